// The per-condition table: the kept samples of each condition × benchmark (× variant) and their
// summary statistics (harness/stats/README.md §3.2–3.4). Pure.
#pragma once

#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "records/samples.hpp"
#include "stats/summary.hpp"

namespace noisefloor::analysis {

// One condition × benchmark (× variant): the kept samples (warm-up excluded) of its primary
// metric. A benchmark is keyed by its full name, as benchstat keys it: "BenchmarkX-2" and
// "BenchmarkX-4" (GOMAXPROCS), "BM_X/threads:2" and "BM_X/threads:4", are rows of their own.
struct Row {
  std::string condition;
  std::string name;            // as printed, with the -N suffix
  std::string benchmark;       // without the -N suffix
  std::string variant;         // paired design: which variant ("" otherwise)
  std::string pair;            // paired design: the pair its samples come from (see build_table)
  std::string unit;            // of the primary metric, e.g. "ns/op"
  std::vector<int> procs;      // its GOMAXPROCS (threads), one value
  std::vector<double> values;  // in run order
  std::size_t warmup_discarded = 0;
  stats::Summary summary;
};

// The row's name everywhere a row is named: "BenchmarkX-2" or, with variants, "BenchmarkX-2 [fast]".
std::string display_name(const Row& row);
// The same name for the row a sample belongs to: every reader groups samples by it.
std::string display_name(const records::SampleRef& sample);
// Whether `sample` (warm-up included) is one of the row's.
bool in_row(const Row& row, const records::SampleRef& sample);
// Whether the rows hold each sample, in order: all of them, except that in a paired design each
// (condition, name, variant) keeps only the samples of the first pair it ran in.
std::vector<bool> row_samples(const records::Samples& samples);

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

// Groups samples by (condition, full name, variant) and summarizes each group. Conditions follow
// `condition_order`, then any others in first-seen order. In a paired design a variant's row holds
// the samples of the first pair it runs in (the baseline runs in every pair, and its A/A copy
// once more: one sample per repeat keeps its row a plain series in run order).
Table build_table(const records::Samples& samples, const std::vector<std::string>& condition_order);

// summary.json's "table": {"conditions", "rows": [{"condition", "name", "benchmark", "unit", "procs",
// "warmup_discarded", "values", "summary", "variant" (paired designs only)}], "notes"}.
void to_json(nlohmann::json& j, const Row& row);
void to_json(nlohmann::json& j, const Table& table);

}  // namespace noisefloor::analysis
