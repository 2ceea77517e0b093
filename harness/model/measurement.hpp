// What a benchmark reports: plain values, no behaviour.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace noisefloor::model {

// One `value unit` pair of a result line ("11.46 ns/op", "64 B/op").
struct Metric {
  double value = 0;
  std::string unit;
  friend bool operator==(const Metric&, const Metric&) = default;
};

// One reported measurement: one Go benchmark result line, one Google Benchmark repetition,
// one run of a command. metrics.front() is the primary metric (ns/op for Go benchmarks).
struct Measurement {
  std::string name;       // as printed, e.g. "BenchmarkMakeBuffer_Correct-2"
  std::string benchmark;  // the name with the -N GOMAXPROCS suffix stripped
  int procs = 1;          // GOMAXPROCS from the -N suffix, 1 when there is none
  std::int64_t iterations = 0;
  std::vector<Metric> metrics;
  // The configuration the result was printed under (model/go_config.hpp: canonical "key: value"
  // lines, e.g. "goarch: amd64\ngoos: linux\npkg: example.com/a"); "" for none.
  std::string config;
  friend bool operator==(const Measurement&, const Measurement&) = default;
};

}  // namespace noisefloor::model
