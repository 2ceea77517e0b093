// `noisefloor compare OLD NEW`: the benchstat-style unpaired comparison of two result directories
// or two `go test -bench` output files (report/compare.hpp does the work; this file loads and
// prints).
//
// Comparability: for two result directories the fingerprints are compared field by field
// (fingerprint::differences); for two go test files their `goos`/`goarch`/`cpu` headers. A
// benchmark-moving difference marks the output NOT COMPARABLE (the table is still printed, with
// the differing fields) unless --allow-different-hosts; the command then returns normally: the
// exit code is main()'s decision. With --format csv, where the mark has no place, the same
// notice goes to stderr.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "cli/commands.hpp"
#include "fingerprint/compare.hpp"
#include "model/errors.hpp"
#include "report/compare.hpp"
#include "results/results.hpp"

namespace noisefloor::cli {
namespace fs = std::filesystem;

namespace {

struct Source {
  results::LoadedRun run;
  bool file = false;
  std::string name;  // column header
};

Source load_source(const std::string& path, const char* which) {
  if (path.empty()) throw ConfigError(fmt::format("compare: give the {} side (a result directory or a go test file)", which));
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    throw ConfigError(fmt::format("compare: {} side \"{}\": no such file or directory (expected a result "
                                  "directory or a go test -bench output file)",
                                  which, path));
  }
  Source s;
  s.file = fs::is_regular_file(path, ec);
  s.run = results::load_any(path);
  if (s.file) {
    s.name = fs::path(path).filename().string();
  } else {
    // <experiment>/<run id>, as the directory layout names it.
    const fs::path dir = s.run.dir;
    s.name = dir.parent_path().filename().string() + "/" + dir.filename().string();
  }
  return s;
}

// The go test headers that move benchmarks (a different CPU or platform).
bool gotest_header_moves(const std::string& field) {
  return field == "gotest.cpu" || field == "gotest.goos" || field == "gotest.goarch";
}

}  // namespace

void compare_command(const CompareOptions& o) {
  if (o.format != "text" && o.format != "json" && o.format != "csv")
    throw ConfigError(fmt::format("--format: expected text, json or csv, got \"{}\"", o.format));
  if (!(o.threshold >= 0 && o.threshold < 1))
    throw ConfigError(fmt::format("--threshold: expected a fraction in [0, 1) such as 0.01 for 1%, got {}", o.threshold));
  const Source old_src = load_source(o.old_path, "old");
  const Source new_src = load_source(o.new_path, "new");

  report::CompareSettings st;
  st.old_name = old_src.name;
  st.new_name = new_src.name;
  st.old_source = old_src.file ? o.old_path : old_src.run.dir.string();
  st.new_source = new_src.file ? o.new_path : new_src.run.dir.string();
  st.old_conditions = old_src.run.conditions;
  st.new_conditions = new_src.run.conditions;
  st.threshold = o.threshold;
  st.allow_different_hosts = o.allow_different_hosts;
  for (const auto& c : old_src.run.conditions) {
    std::string why;
    st.old_labels[c] = report::condition_label(old_src.run.run, old_src.run.fingerprint, c, &why);
    st.old_label_reasons[c] = why;
  }
  for (const auto& c : new_src.run.conditions) {
    std::string why;
    st.new_labels[c] = report::condition_label(new_src.run.run, new_src.run.fingerprint, c, &why);
    st.new_label_reasons[c] = why;
  }
  if (old_src.file == new_src.file) {
    st.differences = fingerprint::differences(old_src.run.fingerprint, new_src.run.fingerprint);
    if (old_src.file) {
      for (auto& d : st.differences) d.moves_benchmarks = d.moves_benchmarks || gotest_header_moves(d.field);
    }
  } else {
    st.notes.push_back(fmt::format("{} is a go test file with no host fingerprint: the two hosts cannot be "
                                   "checked for comparability",
                                   old_src.file ? old_src.name : new_src.name));
  }
  for (const auto& w : old_src.run.warnings) st.notes.push_back(w);
  for (const auto& w : new_src.run.warnings) st.notes.push_back(w);

  const report::CompareTable table = report::compare_samples(old_src.run.samples, new_src.run.samples, st);
  if (o.format == "text") {
    std::printf("%s", report::render_compare_text(table).c_str());
  } else if (o.format == "csv") {
    std::printf("%s", report::render_compare_csv(table).c_str());
    if (!table.comparable && !o.allow_different_hosts) {
      std::fprintf(stderr, "warning: NOT COMPARABLE: fields that move benchmarks differ (see --format text); "
                           "--allow-different-hosts to accept\n");
    }
  } else {
    std::printf("%s\n", report::render_compare_json(table).dump(2).c_str());
  }
}

}  // namespace noisefloor::cli
