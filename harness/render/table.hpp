// The per-condition table as text: GitHub markdown, an 80-column terminal table, CSV, the demo's
// cv-summary.txt blocks, and raw Go benchmark files. Pure.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/table.hpp"
#include "records/samples.hpp"

namespace noisefloor::render {

// "11.46 ± 4.3%" (benchstat's ±: the 95% median CI relative to the median), "11.46 ± ∞ (n<6)",
// or the absolute interval when the median is ≤ 0; "—" without samples.
std::string median_ci_text(const stats::Summary& summary);

// A row's centre cell: median_ci_text, or for a unit marked `assume=exact` the mode with the range
// benchstat reads its "±" from ("64.00 ± 0% exact").
std::string row_center_text(const analysis::Row& row);

// GitHub-flavoured markdown, columns padded so it also reads well in a terminal.
std::string table_markdown(const analysis::Table& table);
// The same, written to `sink` a piece of about 1 MiB at a time: a table of 10^5 benchmarks is tens
// of megabytes, never one string (cv's peak memory).
void table_markdown(const analysis::Table& table, const std::function<void(std::string_view)>& sink);
// For terminals, in `width` columns (at least 80): the conditions and their labels first, then
// one condition as benchstat prints a file; a suite (more benchmarks than conditions) one line
// per benchmark with the conditions side by side (render/suite.hpp); otherwise one block per
// benchmark, one row per condition. The notes follow.
std::string table_text(const analysis::Table& table, std::size_t width = 80);
std::string table_csv(const analysis::Table& table);

// The demo's cv-summary.txt: header lines ("# ..."), then per condition "## name", the column
// header and one row per benchmark with at least 2 samples (name %-46s, runs %6d, mean %12.4f,
// stddev %12.4f, CV %8.2f, single spaces between). Byte-compatible with the demo's blocks.
std::string summary_blocks(const analysis::Table& table, const std::vector<std::string>& header_lines);

// A raw file in Go benchmark format (benchstat reads it): `key: value` configuration lines (a key
// in `commented` as a `# key: value` comment: benchstat splits its tables on every key that
// differs between files), then one result line per sample of `condition` (warm-up excluded
// unless include_warmup), each preceded by the configuration lines that changed since the last
// (the samples' own configuration, model/go_config.hpp; "key:" deletes a key). `in_force`: the
// configuration already in force in the stream, updated (several conditions in one file).
// A benchmark name made valid for the Go benchmark format ("tiny" → "BenchmarkTiny").
std::string go_benchmark_name(std::string_view name);

std::string gotest_raw(const records::Samples& samples, const std::string& condition,
                       const std::vector<std::pair<std::string, std::string>>& config,
                       bool include_warmup = false, const std::set<std::string>& commented = {},
                       std::map<std::string, std::string>* in_force = nullptr);

// What a condition's label rests on (analysis::LabelReason), as every rendering says it: "2
// spinners", "its threads waited for a CPU 3.1% of the time they were runnable, for each other: no
// other work measured beside it", "1 of 4 settled load readings busy"; "" when none is given.
std::string label_reason_text(const analysis::LabelReason& reason);

}  // namespace noisefloor::render
