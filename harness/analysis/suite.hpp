// A suite the way its users read it: one line per benchmark, the conditions side by side (as
// `benchstat -col` lays out a column key). Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/table.hpp"

namespace noisefloor::analysis {

// The name of a row without its parallelism: Go's "-N" suffix (GOMAXPROCS), Google Benchmark's
// "/threads:N" segment; and without Go's "Benchmark" prefix, as benchstat shows names.
// "BenchmarkSum64/4B-2" → "Sum64/4B", "BM_Pi/threads:2" → "BM_Pi".
std::string suite_name(const Row& row);

// One benchmark × metric across the conditions. When every condition ran a benchmark at one
// GOMAXPROCS or thread count, its rows share one line whatever the counts (a pinned condition's Go
// benchmarks run at GOMAXPROCS 1, unsuffixed, beside idle's -2). When a condition ran it at
// several (go test -cpu 1,2), each count has a line of its own with every condition's row of
// that count.
// Its strings are views of its rows' (the table outlives its lines): a suite of 10^5 benchmarks
// has three times as many lines.
struct SuiteLine {
  std::string_view config;        // canonical configuration (Row::config)
  std::string_view config_label;  // as shown ("pkg: a"), "" when no key tells rows apart
  std::string_view variant;
  std::string name;        // suite_name
  std::string_view unit;   // as recorded
  std::size_t metric = 0;  // 0: the primary metric, 1: another
  // Its benchmark (configuration, variant, name), numbered as first seen in the lines: the lines
  // of one benchmark have one number.
  std::size_t benchmark = 0;
  std::vector<const Row*> cells;  // one per Table::conditions, nullptr where the condition has none
  // Its name as shown, with its variant: "Sum64/4B [fast]".
  std::string shown_name() const;
  // Every present cell's parallelism is the same (then `name` plus it is the row's own name).
  bool same_procs() const;
  // The present cells' parallelisms, in condition order ("2" or "2 1"); "" when none is known.
  std::string procs_text() const;
  // Every present cell has one value in all its samples, all cells the same value.
  bool constant() const;
};

// Every row of `table` (other metrics too) as lines: by configuration (first seen), then the
// primary metric's lines before each other unit's, then benchmark (first seen), then parallelism.
// Pointers into `table`, which must outlive them.
std::vector<SuiteLine> suite_lines(const Table& table);

// Every row of `table`, a benchmark at a time: its lines (each parallelism, the primary metric
// first), each line's conditions in table order. For tables sorted by benchmark (markdown, HTML).
std::vector<const Row*> rows_by_benchmark(const Table& table);

// Whether the table's parallelism is Google Benchmark's thread count rather than GOMAXPROCS: some
// row's name has "/threads:N".
bool threads_not_procs(const Table& table);

}  // namespace noisefloor::analysis
