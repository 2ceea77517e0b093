// The per-condition table: the kept samples of each condition × benchmark (× variant) and their
// summary statistics (harness/stats/README.md §3.2–3.4). Pure.
#pragma once

#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "records/sample.hpp"
#include "stats/summary.hpp"

namespace noisefloor::analysis {

// One condition × benchmark (× variant): the kept samples (warm-up excluded) of its primary
// metric.
struct Row {
  std::string condition;
  std::string benchmark;       // without the -N suffix
  std::string variant;         // paired design: which variant ("" otherwise)
  std::string unit;            // of the primary metric, e.g. "ns/op"
  std::vector<int> procs;      // distinct GOMAXPROCS values seen (from the -N suffix)
  std::vector<double> values;  // in run order
  std::size_t warmup_discarded = 0;
  stats::Summary summary;
};

// "BenchmarkX" or, with variants, "BenchmarkX [fast]".
std::string display_name(const Row& row);
// The same name for the row a sample belongs to: every reader groups samples by it.
std::string display_name(const records::Sample& sample);
// The name a table prints: display_name with the -N suffix when the row ran with one GOMAXPROCS
// other than 1 ("BenchmarkX-2 [fast]").
std::string table_name(const Row& row);

// What the flags column says about a row; every rendering words these.
struct Flags {
  int outliers = 0;  // mild or extreme (§3.4)
  bool drift = false, shape = false, few = false;  // few: n < 2
};
Flags flags_of(const Row& row);

struct Table {
  std::vector<std::string> conditions;  // display order
  std::vector<Row> rows;                // grouped by condition, then benchmark in first-seen order
  std::vector<std::string> notes;       // shown under the table
};

// Groups samples by (condition, benchmark, variant) and summarizes each group. Conditions follow
// `condition_order`, then any others in first-seen order.
Table build_table(std::span<const records::Sample> samples, const std::vector<std::string>& condition_order);

// summary.json's "table": {"conditions", "rows": [{"condition", "benchmark", "unit", "procs",
// "warmup_discarded", "values", "summary", "variant" (paired designs only)}], "notes"}.
void to_json(nlohmann::json& j, const Row& row);
void to_json(nlohmann::json& j, const Table& table);

}  // namespace noisefloor::analysis
