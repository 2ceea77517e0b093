// The A/B gate's renderings (harness/stats/README.md §3.13): the terminal table, the PR comment
// (also what goes into $GITHUB_STEP_SUMMARY), GitHub Actions annotations and JUnit XML. The JSON
// document is render/json.hpp's gate_json. Pure: the pipeline writes the files and picks the
// exit code.
//
// One style for numbers everywhere: a head/base ratio is shown as the change of the metric in
// percent with one decimal ("+50.0%", CI "[+47.1%, +53.0%]"; two where one would say 0.0%), so a
// throughput that went up by 25% reads "+25.0% … faster"; a floor is a half-width ("±0.6%"); the
// MDE is the smallest change in the regressing direction ("+2.3%" for a time, "-2.3%" for a
// rate). Only the contention's ratio of ratios is a factor ("×1.17 [1.12, 1.21]"): it compares
// two changes, not two values.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "analysis/gate.hpp"
#include "fingerprint/doctor.hpp"
#include "model/gate.hpp"

namespace noisefloor::render {

// What the table does not hold: which commits the sides are, where the experiment is, the room.
struct GateContext {
  model::GateSide base, head;
  std::string experiment_file;  // relative to the repo top, for annotations' file=
  int benchmark_line = 0;       // the experiment's `benchmark:` line, for annotations' line=
  // The room beside the rows' labels (gate_room_line): the doctor's grade and the host's line.
  std::optional<fingerprint::Grade> doctor;
  std::string host;
  std::string reproduce;  // the one command that reproduces the gate locally
  double seconds = 0;     // wall time of the gate
  int exit_code = 0;      // what the run exits with (4: a confirmed regression), for gate.json
};

// The row's verdict as every rendering says it: the unit's words (faster/slower for a time or a
// rate, better/worse, lower/higher) and "within noise" for an equivalent row.
std::string gate_verdict_word(const analysis::GateRow& row);

// The room in one line: the rows' labels (first seen), the doctor's grade and the host, e.g.
// "MEASURED-clean · doctor: ready · 2 CPUs, Xeon, Linux 6.18".
std::string gate_room_line(const analysis::GateTable& table, const GateContext& context);

// The gate's notes, as its text and its JSON say them: each block's paired-test caveats and a
// spread the floors do not explain ("BenchmarkX sec/op in idle, block 2: ..."), then the table's own.
std::vector<std::string> gate_notes(const analysis::GateTable& table);

// The terminal: one line per row (every row, within noise too), then the decision lines (floors,
// load, notes, the sides, the room, the false-positive bound, how to reproduce, pass or fail).
// A row wider than `width` (at least 80) puts its name on a line of its own.
std::string gate_text(const analysis::GateTable& table, const GateContext& context, int width);

// The PR comment, short: the heading with the counts, the rows that matter (regressions first),
// the rows within noise folded in <details>, the floors, the load, the sides, the room, the
// false-positive bound and the command that reproduces it. Benchmark names are escaped.
std::string gate_markdown(const analysis::GateTable& table, const GateContext& context);

// GitHub Actions workflow commands, one a line, errors first: ::error for each confirmed
// regression; ::warning for a gating row slower but not confirmed, a gating row inconclusive, a
// failed floor (any row, either block). Escaped as actions/toolkit does (message: % CR LF;
// properties also : and ,). file= and line= come from the context when it has them.
std::string gate_annotations(const analysis::GateTable& table, const GateContext& context);

// JUnit XML: one <testsuite> per condition, one <testcase> per row (classname
// "noisefloor.gate.<condition>", name "<benchmark> <unit>"); a confirmed regression is a
// <failure type="regression">, an inconclusive row is <skipped>, every other row passes with its
// figures in <system-out>. Every text is XML-escaped; control characters but tab and newline are
// dropped (XML 1.0 cannot hold them).
std::string gate_junit(const analysis::GateTable& table, const GateContext& context);

// The markdown as $GITHUB_STEP_SUMMARY takes it: unchanged within `limit` bytes (GitHub's 1 MiB
// per step), else cut at a line end, an open code block or <details> closed, and a last line
// that points to gate.md; never longer than `limit`.
std::string step_summary(std::string markdown, std::size_t limit = std::size_t{1} << 20);

}  // namespace noisefloor::render
