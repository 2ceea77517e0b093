// One sample as measured and stored (samples.jsonl): plain values and their JSON form.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/measurement.hpp"

namespace noisefloor::model {

// One kept or warm-up measurement, as stored in samples.jsonl.
struct Sample {
  std::string condition;
  std::string benchmark;  // name without the -N suffix
  std::string name;       // as printed
  int procs = 1;
  int index = 0;          // 0-based position among this (condition, benchmark)'s samples, warm-up included
  bool warmup = false;
  int invocation = 0;     // 0-based invocation number within the run
  std::int64_t iterations = 0;
  std::vector<Metric> metrics;  // metrics.front() is the primary value
  // Paired design only (empty / -1 otherwise): which variant ran, in which repeat, as part of
  // which pair (the variant compared with the baseline, or "A/A"), and the pair's order.
  std::string variant;
  int repeat = -1;
  std::string pair;
  std::string order;  // "AB" (baseline first) or "BA"
  double elapsed_seconds = 0;          // since the run started
  std::string utc;                     // when it arrived, RFC 3339
};
// A sample of `condition` holding a measurement's name, procs, iterations and metrics; the
// bookkeeping fields (index, warm-up, invocation, time) are the caller's.
Sample sample_of(const std::string& condition, const Measurement& measurement);

nlohmann::json to_json(const Sample&);
Sample sample_from_json(const nlohmann::json&);  // throws ParseError

}  // namespace noisefloor::model
