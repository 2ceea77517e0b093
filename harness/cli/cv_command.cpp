// `noisefloor cv PATH...`: the table recomputed from saved results or go test -bench files.
#include <unistd.h>

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <set>

#include "cli/commands.hpp"
#include "fingerprint/compare.hpp"
#include "model/errors.hpp"
#include "report/table.hpp"
#include "results/results.hpp"

namespace noisefloor::cli {
namespace fs = std::filesystem;

void cv_command(const CvOptions& options) {
  CvOptions o = options;
  if (o.format.empty()) o.format = ::isatty(STDOUT_FILENO) ? "text" : "markdown";
  if (o.format != "text" && o.format != "markdown" && o.format != "json" && o.format != "csv" && o.format != "summary")
    throw ConfigError(fmt::format("--format: expected text, markdown, json, csv or summary, got \"{}\"", o.format));
  if (o.paths.empty()) throw ConfigError("cv: give a results directory or go test -bench output files");
  std::vector<results::LoadedRun> runs;
  for (const auto& p : o.paths) {
    runs.push_back(results::load_any(p));
  }
  // Several results: keep condition names apart when they collide.
  std::vector<model::Sample> samples;
  std::vector<std::string> order;
  std::vector<std::string> header;
  std::map<std::string, int> seen;
  for (const auto& r : runs)
    for (const auto& c : r.conditions) ++seen[c];
  std::set<std::string> prefixes;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    std::string prefix = r.dir.filename().string();
    if (!prefixes.insert(prefix).second) prefix = fmt::format("{}#{}", prefix, i + 1);
    prefixes.insert(prefix);
    prefix += ":";
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
  // Merging results from different rooms: say exactly what differs, and refuse to call the
  // table comparable unless asked to.
  std::string verdict;
  for (std::size_t i = 1; i < runs.size(); ++i) {
    if (runs[0].fingerprint.empty() || runs[i].fingerprint.empty()) continue;
    std::vector<std::string> moved;
    for (const auto& d : fingerprint::differences(runs[0].fingerprint, runs[i].fingerprint))
      if (d.moves_benchmarks) moved.push_back(fmt::format("{}: {} vs {}", d.field, d.a, d.b));
    if (moved.empty()) continue;
    verdict += fmt::format("{} and {} come from different rooms:\n", runs[0].dir.string(), runs[i].dir.string());
    for (const auto& m : moved) verdict += "  " + m + "\n";
  }
  if (!verdict.empty()) {
    verdict = (o.allow_different_hosts ? "merged across different rooms (--allow-different-hosts):\n"
                                       : "NOT COMPARABLE (pass --allow-different-hosts to merge anyway):\n") +
              verdict;
    std::fprintf(stderr, "%s", verdict.c_str());
  }
  const report::Table table = report::build_table(samples, order);
  if (o.format == "markdown" || o.format == "text") {
    if (!verdict.empty()) std::printf("%s\n", verdict.c_str());
    std::printf("%s", (o.format == "text" ? report::render_text(table) : report::render_markdown(table)).c_str());
  }
  else if (o.format == "csv") std::printf("%s", report::render_csv(table).c_str());
  else if (o.format == "summary") std::printf("%s", report::render_summary(table, header).c_str());
  else {
    nlohmann::json j = {{"schema_version", 1}, {"sources", o.paths}, {"table", report::render_json(table)}};
    j["comparable"] = verdict.empty() || o.allow_different_hosts;
    if (!verdict.empty()) j["differences"] = verdict;
    std::printf("%s\n", j.dump(2).c_str());
  }
}

}  // namespace noisefloor::cli
