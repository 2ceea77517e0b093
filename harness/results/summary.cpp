#include "results/summary.hpp"

namespace noisefloor::results {

using nlohmann::json;

nlohmann::json summary_document(const analysis::Analysis& a) {
  const records::Result& first = a.sources.front();
  json j = {{"schema_version", kSummarySchemaVersion}, {"table", a.table}, {"warnings", a.warnings}};
  // A go test text file has no run record: nothing is made up for it.
  if (first.run) {
    const records::RunRecord& run = *first.run;
    j["experiment"] = {{"name", run.experiment}, {"description", run.description}, {"file", run.experiment_file}};
    j["run"] = {{"id", run.run_id},
                {"status", std::string(records::to_string(run.status))},
                {"started_utc", run.started_utc},
                {"finished_utc", run.finished_utc}};
  }
  if (a.comparison) {
    j["paired"] = a.paired.rows;
    j["aa"] = a.paired.aa;
    j["comparison"] = {{"baseline", a.comparison->baseline},
                       {"aa", a.comparison->aa},
                       {"threshold", a.comparison->threshold}};
  }
  if (!a.adaptive.empty()) j["adaptive"] = a.adaptive;
  if (!a.accounting.empty()) j["accounting"] = a.accounting;
  if (a.judgement) j["claims"] = *a.judgement;
  if (a.merged) {
    json labels = json::array();
    for (const auto& s : a.sources) labels.push_back(s.label);
    j["sources"] = labels;
  }
  return j;
}

nlohmann::json cv_document(const analysis::Analysis& a, const std::vector<std::string>& given_paths) {
  json j = {{"schema_version", kCvSchemaVersion}, {"sources", given_paths}, {"table", a.table}};
  j["comparable"] = a.comparable();
  if (!a.accounting.empty()) j["accounting"] = a.accounting;  // what the labels and starvation rest on
  if (a.judgement) j["claims"] = *a.judgement;
  if (!a.differences.empty()) {
    json differences = json::array();
    for (std::size_t i = 0; i < a.differences.size(); ++i) {
      const auto& d = a.differences[i];
      differences.push_back({{"sources", {a.sources.front().source, a.sources[a.difference_source[i]].source}},
                             {"field", d.field},
                             {"values", {d.a, d.b}},
                             {"moves_benchmarks", d.moves_benchmarks}});
    }
    j["differences"] = differences;
  }
  return j;
}

}  // namespace noisefloor::results
