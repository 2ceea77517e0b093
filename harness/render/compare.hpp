// `noisefloor compare` as text and CSV (the JSON is analysis::to_json(CompareTable)). Pure.
#pragma once

#include <string>
#include <vector>

#include "analysis/compare.hpp"

namespace noisefloor::render {

// Text readable side by side with benchstat (one table per unit, the rows of every condition in
// it, "<condition>: <benchmark>" when there are several, each condition's label listed above;
// lines <= 80 columns: a long name goes on its own line), then the effects (Hodges-Lehmann
// new/old with CI and verdict), the rows not compared and the warnings.
std::string compare_text(const analysis::CompareTable& table);
// One line per row (compared or not), RFC 4180 quoting, numbers in shortest round-trip form,
// empty for undefined values.
std::string compare_csv(const analysis::CompareTable& table);

// A row's two labels and what each rests on: "old 'idle' is MEASURED-clean, new 'idle' is
// CONTENDED (2 spinners)".
std::string labels_text(const analysis::CompareRow& row);
// Why a row was not compared ("labels differ: " and labels_text; "" for a compared row).
std::string not_compared_reason(const analysis::CompareRow& row);
// What a compared row's label rests on: "2 spinners" (both sides alike), "old: 2 spinners; new: …",
// or both labels and "; compared because of --allow-different-labels" ("" for a row not compared).
std::string label_reason(const analysis::CompareRow& row);
// A table-wide note's sentence.
std::string compare_note_text(const analysis::CompareNote& note);
// What one side lacks, as a line: "condition 'noisy' (all benchmarks)", "idle: BenchmarkA-2",
// "idle: BenchmarkA-2 (B/op)", "idle: unit B/op".
std::string one_sided_text(const analysis::OneSided& s);
// The label differences of a table's refused rows, one line (labels_text) per condition pair;
// empty when every row was compared.
std::vector<std::string> label_differences(const analysis::CompareTable& table);

// What benchstat prints for a row, from the same numbers: the "±" of a side ("4%", "∞", "?",
// "0%"), the delta ("~", "+5.00%", "0.00%", "?") and the p slot ("p=0.008 n=10", "n=1+2" for an
// exact unit, which has no test). The terminal and CSV tables and compare.json say the same.
std::string benchstat_pct_range(const analysis::CompareSide& side);
std::string benchstat_delta(const analysis::CompareRow& row);
std::string benchstat_p_text(const analysis::CompareRow& row);

}  // namespace noisefloor::render
