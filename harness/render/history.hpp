// `noisefloor history`: the renderings of an analysis::History. Pure and deterministic.
//
// text: per segment a header line ("── segment 2: host.cpu.model_name changed: A → B"), per run a
// line "time  commit C  room D  status  run-id" and under it one line per condition × benchmark:
// "median M unit [lo, hi]  CV c% [lo, hi]  change", the change being "▲ +12.3% [+9.1, +15.0]"
// (the value went up), "▼ -8.0% [-9.0, -7.1]" (down), "~" (no significant change), "—" (not
// compared, the reason in parentheses) or nothing (the first run of a segment). Numbers that do not
// exist are "—" and the reason follows in parentheses. A "claims:" line follows a run only when it
// has claim verdicts.
// markdown: a table per segment; csv: one row per run × row (a "claims" column only when some run
// has claims); json: analysis::to_json(History); html: a self-contained page (inline CSS and SVG,
// no script, nothing fetched) with one trend plot per condition × benchmark.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/history.hpp"

namespace noisefloor::render {

// Why a cell's numbers are absent, from its figures: "n=4 < 6: no median CI", "n=1 < 2: no CV",
// "mean <= 0: no CV", "n=4 < 6: no CV interval".
std::vector<std::string> history_cell_notes(const analysis::HistoryCell& cell);
// A run's claims, one line each with its verdict: "REPRODUCED: cv(noisy) > 2 * cv(idle)".
std::vector<std::string> history_claim_lines(const analysis::HistoryRun& run);

// `directory` is the experiment directory, as shown in the heading.
std::string history_text(const analysis::History& history, std::string_view directory);
std::string history_markdown(const analysis::History& history, std::string_view directory);
std::string history_csv(const analysis::History& history);
std::string history_json(const analysis::History& history);
// `generated_by` names the program in the page ("noisefloor 0.1.0 (2c95392c1134)").
std::string history_html(const analysis::History& history, std::string_view directory,
                         std::string_view generated_by);

// Pieces of the text rendering (exposed for the tests): the change column, a new level's line ("new
// level +10.0%: medians 50 → 55 (E-Divisive, p 1.2e-09)", "" without one) and the segment header.
std::string change_text(const analysis::Change& change);
// A run's status as every format shows it: "complete", "unknown" (no run.json), and for a run
// another superseded, "complete · SUPERSEDED by <experiment>/<run>, ...".
std::string history_status(const analysis::HistoryRun& run);
std::string level_text(const analysis::HistoryCell& cell);
std::string segment_header(const analysis::HistorySegment& segment);
// Why a row was not compared with the previous run ("" when it was, or is the first): "n=1 vs 3:
// too few samples", "n=3 vs 3 cannot reach p < 0.05", "not in the previous run", the test's error.
std::string change_reason(const analysis::Change& change);
// Why a segment starts where no room could be compared.
inline constexpr std::string_view kNoFingerprint = "no fingerprint recorded: the room cannot be compared";

}  // namespace noisefloor::render
