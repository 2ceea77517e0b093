// The sanity anchor (harness/stats/README.md §3.6): a run's baseline against the clean baseline
// of an earlier run on the same machine, per condition and benchmark. Pure.
#pragma once

#include <string>
#include <vector>

#include "analysis/rooms.hpp"
#include "records/result.hpp"

namespace noisefloor::analysis {

struct AnchorRow {
  // benchmark: its name, with the configuration that tells it apart ("BenchmarkGet (pkg: a)")
  std::string condition, benchmark;
  std::string unit;                   // of the primary metric, whose values are divided
  double lo = 0, hi = 0, median = 0;  // this run's baseline samples over the anchor's median
};

struct Anchor {
  std::string source;              // the anchor result
  std::string condition;           // its clean condition: the first without spinners
  std::string baseline;            // the baseline variant ("" without variants)
  std::vector<Difference> moving;  // fingerprint fields that move benchmarks and differ
  std::vector<AnchorRow> rows;
  // When no row matched: the benchmarks of each side, to say why.
  std::vector<std::string> anchor_benchmarks, run_benchmarks;
};

// The anchor's clean baseline (its first condition without spinners, or its first condition)
// and, for every condition of `run` and benchmark of the anchor (by name and the configuration keys
// that tell rows apart on either side: a go test ./... run's pkg), the ratios of this run's kept
// baseline samples to the anchor's median.
Anchor compare_with_anchor(const records::Result& run, const records::Result& anchor);

}  // namespace noisefloor::analysis
