// `noisefloor cv PATH...`: the table recomputed from saved results or go test -bench files.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "cli/commands.hpp"
#include "model/errors.hpp"
#include "report/table.hpp"
#include "results/results.hpp"

namespace noisefloor::cli {
namespace fs = std::filesystem;

void cv_command(const CvOptions& o) {
  if (o.format != "markdown" && o.format != "json" && o.format != "csv" && o.format != "summary")
    throw ConfigError(fmt::format("--format: expected markdown, json, csv or summary, got \"{}\"", o.format));
  if (o.paths.empty()) throw ConfigError("cv: give a results directory or go test -bench output files");
  std::vector<results::LoadedRun> runs;
  for (const auto& p : o.paths) {
    if (fs::is_regular_file(p)) runs.push_back(results::load_gotest_file(p));
    else runs.push_back(results::load_run(p));
  }
  // Several results: keep condition names apart when they collide.
  std::vector<model::Sample> samples;
  std::vector<std::string> order;
  std::vector<std::string> header;
  std::map<std::string, int> seen;
  for (const auto& r : runs)
    for (const auto& c : r.conditions) ++seen[c];
  for (const auto& r : runs) {
    const std::string prefix = r.run.contains("run_id") ? r.run["run_id"].get<std::string>() + ":" : r.dir.filename().string() + ":";
    for (const auto& c : r.conditions) order.push_back(seen[c] > 1 ? prefix + c : c);
    for (auto s : r.samples) {
      if (seen[s.condition] > 1) s.condition = prefix + s.condition;
      samples.push_back(std::move(s));
    }
    for (const auto& w : r.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  }
  if (runs.size() == 1 && runs.front().run.contains("summary_header"))
    header = runs.front().run["summary_header"].get<std::vector<std::string>>();
  else
    header.push_back("# CV comparison — recomputed by noisefloor cv");
  const report::Table table = report::build_table(samples, order);
  if (o.format == "markdown") std::printf("%s", report::render_markdown(table).c_str());
  else if (o.format == "csv") std::printf("%s", report::render_csv(table).c_str());
  else if (o.format == "summary") std::printf("%s", report::render_summary(table, header).c_str());
  else {
    nlohmann::json j = {{"schema_version", 1}, {"sources", o.paths}, {"table", report::render_json(table)}};
    std::printf("%s\n", j.dump(2).c_str());
  }
}

}  // namespace noisefloor::cli
