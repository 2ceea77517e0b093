// `noisefloor history`: load every run directory of an experiment → analysis::history → render.
#include "analysis/history.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "files/files.hpp"
#include "model/errors.hpp"
#include "model/version.hpp"
#include "pipeline/commands.hpp"
#include "render/history.hpp"
#include "render/warnings.hpp"
#include "results/load.hpp"

namespace noisefloor::pipeline {
namespace fs = std::filesystem;

Output history(const HistoryOptions& o) {
  using model::PrintFormat;
  const std::optional<PrintFormat> format = !o.format && o.html.empty() ? PrintFormat::text : o.format;
  if (format) require_format(*format, kHistoryFormats);
  analysis::HistoryOptions options;
  options.threshold = parse_threshold(o.threshold);
  if (o.directory.empty())
    throw ConfigError("history: give an experiment's results directory (results/<experiment>)");
  const fs::path dir = o.directory;
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw ConfigError(
        fmt::format("history: \"{}\": {} (give an experiment's results directory, e.g. results/<experiment>)",
                    o.directory, fs::exists(dir, ec) ? "not a directory" : "no such directory"));
  if (fs::exists(dir / "run.json", ec) || fs::exists(dir / "samples.jsonl", ec) ||
      fs::exists(dir / "fleet.json", ec))
    throw ConfigError(
        fmt::format("history: \"{}\" is one run's directory: give the experiment directory that holds "
                    "the runs ({})",
                    o.directory, (dir.lexically_normal().parent_path()).string()));

  std::vector<fs::path> runs;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (!entry.is_symlink() && entry.is_directory()) runs.push_back(entry.path());  // `latest` is a symlink
  if (ec) throw InputError(fmt::format("{}: {}", o.directory, ec.message()));
  std::sort(runs.begin(), runs.end());
  if (runs.empty())
    throw ConfigError(
        fmt::format("history: \"{}\" holds no run directories (expected {}/<run>/ with run.json and "
                    "samples.jsonl, as `noisefloor run` writes them)",
                    o.directory, o.directory));

  Output out;
  std::vector<analysis::Warning> skipped;
  std::vector<records::Result> results;
  for (const auto& run : runs) {
    if (fs::exists(run / "fleet.json", ec)) {
      skipped.push_back({.what = {.kind = records::RunWarningKind::several_hosts, .file = run.string()}});
      continue;
    }
    try {
      results.push_back(results::load(run));
    } catch (const Error& e) {
      skipped.push_back({.what = {.kind = records::RunWarningKind::skipped, .detail = e.what()}});
    }
  }
  std::vector<std::string> said;
  for (const auto& s : skipped) said.push_back(render::warning_text(s));
  for (const auto& s : said) out.err += "warning: " + s + "\n";
  if (results.empty())
    throw InputError(fmt::format("{}: none of its {} run directories could be loaded:\n  {}", o.directory,
                                 runs.size(), fmt::join(said, "\n  ")));

  analysis::History h = analysis::history(results, options);
  // A run another recorded as superseding it (run --supersedes): said with its status, wherever
  // the status is shown, so its figures are never read as current.
  const auto superseded = results::supersessions(fs::absolute(dir).lexically_normal().parent_path());
  for (auto& run : h.runs) {
    std::error_code e;
    const auto it = superseded.find(fs::canonical(run.source, e).string());
    if (!e && it != superseded.end()) run.superseded_by = it->second;
  }
  if (format == PrintFormat::text) out.out = render::history_text(h, o.directory);
  if (format == PrintFormat::markdown) out.out = render::history_markdown(h, o.directory);
  if (format == PrintFormat::csv) out.out = render::history_csv(h);
  if (format == PrintFormat::json) out.out = render::history_json(h);
  if (!o.html.empty()) {
    h.warnings.insert(h.warnings.begin(), skipped.begin(), skipped.end());
    files::write_atomic(
        o.html, render::history_html(h, o.directory, fmt::format("noisefloor {} ({})", kVersion, kCommit)));
  }
  return out;
}

}  // namespace noisefloor::pipeline
