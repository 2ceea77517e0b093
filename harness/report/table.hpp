// The per-condition table: built from samples, rendered as markdown, CSV, JSON or the demo's
// cv-summary blocks. Pure.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/sample.hpp"
#include "stats/summary.hpp"

namespace noisefloor::report {

// One condition × benchmark: the kept samples (warm-up excluded) of its primary metric.
struct Row {
  std::string condition;
  std::string benchmark;  // without the -N suffix
  std::string variant;    // paired design: which variant ("" otherwise)
  std::string unit;       // of the primary metric, e.g. "ns/op"
  std::vector<int> procs;  // distinct GOMAXPROCS values seen (from the -N suffix)
  std::vector<double> values;  // in run order
  std::size_t warmup_discarded = 0;
  stats::Summary summary;
};

// "BenchmarkX" or, with variants, "BenchmarkX [fast]".
std::string display_name(const Row& row);

struct Table {
  std::vector<std::string> conditions;  // display order
  std::vector<Row> rows;                // grouped by condition, then benchmark in first-seen order
  std::vector<std::string> notes;       // shown under the table
};

// Groups samples by (condition, benchmark) and summarizes each group. Conditions follow
// `condition_order`, then any others in first-seen order.
Table build_table(const std::vector<model::Sample>& samples,
                  const std::vector<std::string>& condition_order);

// Terminal columns of UTF-8 text (continuation bytes take none), and padding to a width.
std::size_t display_width(const std::string& text);
std::string pad_left(const std::string& text, std::size_t width);
std::string pad_right(const std::string& text, std::size_t width);

// "11.46 ± 4.3%" (benchstat's ±: the 95% median CI relative to the median), "11.46 ± ∞ (n<6)",
// or the absolute interval when the median is ≤ 0; "—" without samples.
std::string median_ci_text(const stats::Summary& summary);

// A CSV field, quoted when it holds a comma, a quote or a newline (RFC 4180).
std::string csv_field(const std::string& text);

// Values with 4 significant figures or more, never in exponent form for the usual ranges.
std::string format_value(double value);

// GitHub-flavoured markdown, columns padded so it also reads well in a terminal.
std::string render_markdown(const Table& table);
// For terminals: one block per benchmark, one row per condition, at most 80 columns; the flags
// and notes follow under the blocks.
std::string render_text(const Table& table);
std::string render_csv(const Table& table);
nlohmann::json render_json(const Table& table);  // the "table" part of summary.json

// The demo's cv-summary.txt: header lines ("# ..."), then per condition "## name", the column
// header and one row per benchmark with at least 2 samples (name %-46s, runs %6d, mean %12.4f,
// stddev %12.4f, CV %8.2f, single spaces between). Byte-compatible with the demo's blocks.
std::string render_summary(const Table& table, const std::vector<std::string>& header_lines);

// A raw file in Go benchmark format (benchstat reads it): `key: value` configuration lines,
// then one result line per sample of `condition` (warm-up excluded unless include_warmup).
std::string render_gotest(const std::vector<model::Sample>& samples, const std::string& condition,
                          const std::vector<std::pair<std::string, std::string>>& config,
                          bool include_warmup = false);

}  // namespace noisefloor::report
