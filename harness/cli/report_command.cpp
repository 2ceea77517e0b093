// `noisefloor report RESULTS...`: the HTML page and the --format exports, from saved results.
// The I/O edge of report/ (report_data, html, export are pure).
#include "cli/version.hpp"
#include "cli/report_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>

#include "cli/commands.hpp"
#include "model/errors.hpp"
#include "report/export.hpp"
#include "report/html.hpp"
#include "report/report_data.hpp"
#include "results/results.hpp"


namespace noisefloor::cli {
namespace fs = std::filesystem;
namespace {

constexpr const char* kFormats[] = {"markdown", "csv", "json", "gotest", "summary"};

report::ReportSource load_source(const fs::path& path) {
  const bool file = fs::is_regular_file(path);
  results::LoadedRun run = results::load_any(path);
  report::ReportSource s;
  s.label = run.run.contains("run_id") && run.run["run_id"].is_string() ? run.run["run_id"].get<std::string>()
                                                                        : run.dir.filename().string();
  if (file) s.label = run.dir.stem().string();
  s.run = std::move(run.run);
  s.fingerprint = std::move(run.fingerprint);
  s.samples = std::move(run.samples);
  s.conditions = std::move(run.conditions);
  s.warnings = std::move(run.warnings);
  if (file) {
    s.gotest_config[s.conditions.front()] = report::parse_gotest_config(results::read_file(path));
    return s;
  }
  const fs::path summary = run.dir / "summary.json";
  if (fs::exists(summary)) {
    try {
      s.summary = nlohmann::json::parse(results::read_file(summary));
    } catch (const nlohmann::json::exception& e) {
      throw RunError(fmt::format("{}: {}", summary.string(), e.what()));
    }
  }
  for (const auto& c : s.conditions) {
    const fs::path raw = run.dir / (c + ".txt");
    if (fs::is_regular_file(raw)) s.gotest_config[c] = report::parse_gotest_config(results::read_file(raw));
  }
  return s;
}

report::ReportData load(const std::vector<std::string>& paths, bool allow_different_hosts) {
  std::vector<report::ReportSource> sources;
  std::set<std::string> labels;
  for (const auto& p : paths) {
    sources.push_back(load_source(p));
    // The same run given twice still needs two names for its conditions.
    std::string label = sources.back().label;
    for (int n = 2; labels.count(label); ++n) label = fmt::format("{}#{}", sources.back().label, n);
    labels.insert(label);
    sources.back().label = label;
  }
  return report::make_report_data(std::move(sources), allow_different_hosts,
                                  fmt::format("noisefloor {} ({})", kVersion, kCommit));
}

}  // namespace

void report_command(const ReportOptions& o) {
  if (!o.format.empty() &&
      std::find(std::begin(kFormats), std::end(kFormats), o.format) == std::end(kFormats))
    throw ConfigError(
        fmt::format("--format: expected markdown, csv, json, gotest or summary, got \"{}\"", o.format));
  if (o.paths.empty()) throw ConfigError("report: give one or more result directories");
  const report::ReportData data = load(o.paths, o.allow_different_hosts);
  for (const auto& w : data.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  if (!o.html.empty()) results::write_atomic(o.html, report::render_html(data));
  if (!o.format.empty()) {
    const std::string text = report::render_export(data, o.format);
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  if (o.html.empty() && o.format.empty()) {
    fs::path dir = o.paths.front();
    if (fs::is_regular_file(dir))
      dir = dir.parent_path();  // a go test -bench file: next to it
    else if (!fs::exists(dir / "samples.jsonl") && fs::exists(dir / "latest"))
      dir /= "latest";
    const fs::path out = dir / "report.html";
    results::write_atomic(out, report::render_html(data));
    std::printf("%s\n", out.string().c_str());
  }
}

void write_run_report(const fs::path& run_dir) {
  const report::ReportData data = load({run_dir.string()}, false);
  results::write_atomic(run_dir / "report.html", report::render_html(data));
}

}  // namespace noisefloor::cli
