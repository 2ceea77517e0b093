// The commands that read results: `cv`, `compare` and `report`. Load → analyze → render.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "analysis/analysis.hpp"
#include "analysis/compare.hpp"
#include "files/files.hpp"
#include "model/errors.hpp"
#include "model/version.hpp"
#include "pipeline/commands.hpp"
#include "render/compare.hpp"
#include "render/export.hpp"
#include "render/html.hpp"
#include "render/table.hpp"
#include "results/load.hpp"
#include "results/summary.hpp"

namespace noisefloor::pipeline {
namespace fs = std::filesystem;
namespace {

std::vector<records::Result> load_all(const std::vector<std::string>& paths) {
  std::vector<records::Result> out;
  for (const auto& p : paths) out.push_back(results::load(p));
  return out;
}

// Merged results from different rooms: the fields that move benchmarks and differ, per source.
std::string rooms_verdict(const analysis::Analysis& a) {
  std::string out;
  for (std::size_t k = 1; k < a.sources.size(); ++k) {
    std::string moved;
    for (std::size_t i = 0; i < a.differences.size(); ++i)
      if (a.difference_source[i] == k && a.differences[i].moves_benchmarks)
        moved += fmt::format("  {}: {} vs {}\n", a.differences[i].field, a.differences[i].a, a.differences[i].b);
    if (!moved.empty())
      out += fmt::format("{} and {} come from different rooms:\n{}", a.sources.front().source, a.sources[k].source, moved);
  }
  if (out.empty()) return out;
  return (a.allow_different_hosts ? "merged across different rooms (--allow-different-hosts):\n"
                                  : "NOT COMPARABLE (pass --allow-different-hosts to merge anyway):\n") +
         out;
}

std::string generated_by() { return fmt::format("noisefloor {} ({})", kVersion, kCommit); }

}  // namespace

Output cv(const CvOptions& o) {
  constexpr std::string_view kFormats[] = {"text", "markdown", "json", "csv", "summary"};
  if (std::find(std::begin(kFormats), std::end(kFormats), o.format) == std::end(kFormats))
    throw ConfigError(fmt::format("--format: expected text, markdown, json, csv or summary, got \"{}\"", o.format));
  if (o.paths.empty()) throw ConfigError("cv: give a results directory or go test -bench output files");
  const analysis::Analysis a = analysis::analyze(load_all(o.paths), o.allow_different_hosts);
  Output out;
  for (const auto& s : a.sources)
    for (const auto& w : s.warnings) out.err += fmt::format("warning: {}\n", w);
  const std::string verdict = rooms_verdict(a);
  out.err += verdict;
  if (o.format == "markdown" || o.format == "text") {
    if (!verdict.empty()) out.out += verdict + "\n";
    out.out += o.format == "text" ? render::table_text(a.table) : render::table_markdown(a.table);
  } else if (o.format == "csv") {
    out.out = render::table_csv(a.table);
  } else if (o.format == "summary") {
    const std::vector<std::string> header = a.sources.size() == 1 && a.sources.front().run
                                                ? a.sources.front().run->summary_header
                                                : std::vector<std::string>{"# CV comparison — recomputed by noisefloor cv"};
    out.out = render::summary_blocks(a.table, header);
  } else {
    out.out = results::cv_document(a, o.paths, verdict).dump(2) + "\n";
  }
  return out;
}

Output compare(const CompareOptions& o) {
  if (o.format != "text" && o.format != "json" && o.format != "csv")
    throw ConfigError(fmt::format("--format: expected text, json or csv, got \"{}\"", o.format));
  if (!(o.threshold >= 0 && o.threshold < 1))
    throw ConfigError(fmt::format("--threshold: expected a fraction in [0, 1) such as 0.01 for 1%, got {}", o.threshold));
  const auto side = [](const std::string& path, const char* which) {
    if (path.empty())
      throw ConfigError(fmt::format("compare: give the {} side (a result directory or a go test file)", which));
    std::error_code ec;
    if (!fs::exists(path, ec))
      throw ConfigError(fmt::format("compare: {} side \"{}\": no such file or directory (expected a result "
                                    "directory or a go test -bench output file)",
                                    which, path));
    return results::load(path);
  };
  const records::Result old_side = side(o.old_path, "old");
  const records::Result new_side = side(o.new_path, "new");
  const analysis::CompareTable table =
      analysis::compare_results(old_side, new_side, o.threshold, o.allow_different_hosts);
  Output out;
  if (o.format == "text") {
    out.out = render::compare_text(table);
  } else if (o.format == "csv") {
    out.out = render::compare_csv(table);
    if (!table.comparable && !o.allow_different_hosts)
      out.err = "warning: NOT COMPARABLE: fields that move benchmarks differ (see --format text); "
                "--allow-different-hosts to accept\n";
  } else {
    out.out = nlohmann::json(table).dump(2) + "\n";
  }
  return out;
}

Output report(const ReportOptions& o) {
  if (!o.format.empty() &&
      std::find(std::begin(render::kExportFormats), std::end(render::kExportFormats), o.format) ==
          std::end(render::kExportFormats))
    throw ConfigError(fmt::format("--format: expected markdown, csv, json, gotest or summary, got \"{}\"", o.format));
  if (o.paths.empty()) throw ConfigError("report: give one or more result directories");
  const analysis::Analysis a = analysis::analyze(load_all(o.paths), o.allow_different_hosts);
  Output out;
  for (const auto& w : a.warnings) out.err += fmt::format("warning: {}\n", w);
  if (!o.html.empty()) files::write_atomic(o.html, render::html(a, generated_by()));
  if (!o.format.empty()) out.out = render::export_as(a, o.format);
  if (o.html.empty() && o.format.empty()) {
    // Next to the (first) result: in its directory (an experiment directory's latest), or beside a
    // go test file.
    const fs::path first = o.paths.front();
    const fs::path page = (fs::is_regular_file(first) ? first.parent_path() : results::resolve(first)) / "report.html";
    files::write_atomic(page, render::html(a, generated_by()));
    out.out = page.string() + "\n";
  }
  return out;
}

}  // namespace noisefloor::pipeline
