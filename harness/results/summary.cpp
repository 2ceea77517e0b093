#include "results/summary.hpp"

namespace noisefloor::results {

using nlohmann::json;

nlohmann::json summary_document(const analysis::Analysis& a) {
  const records::Result& first = a.sources.front();
  const records::RunRecord run = first.run.value_or(records::RunRecord{});
  json j = {{"schema_version", kSummarySchemaVersion},
            {"experiment", {{"name", run.experiment}, {"description", run.description}, {"file", run.experiment_file}}},
            {"run",
             {{"id", run.run_id},
              {"status", std::string(records::to_string(run.status))},
              {"started_utc", run.started_utc},
              {"finished_utc", run.finished_utc}}},
            {"table", a.table},
            {"warnings", a.warnings}};
  if (a.comparison) {
    j["paired"] = a.paired.rows;
    j["aa"] = a.paired.aa;
    j["comparison"] = {{"baseline", a.comparison->baseline},
                       {"aa", a.comparison->aa},
                       {"threshold", a.comparison->threshold}};
  }
  if (!a.adaptive.empty()) j["adaptive"] = a.adaptive;
  if (a.merged) {
    json labels = json::array();
    for (const auto& s : a.sources) labels.push_back(s.label);
    j["sources"] = labels;
  }
  return j;
}

}  // namespace noisefloor::results
