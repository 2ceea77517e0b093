// One sample as measured and stored (one line of samples.jsonl).
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "model/measurement.hpp"
#include "model/pair_order.hpp"

namespace noisefloor::records {

// The paired design's A/A check: the baseline against a copy of itself, run as the variant
// "<baseline>'" in the pair named "A/A" (samples.jsonl's "variant" and "pair").
inline constexpr std::string_view kAaPair = "A/A";
inline std::string aa_copy_of(std::string_view baseline) { return std::string(baseline) + "'"; }

// The gate's quads (harness/stats/README.md §3.13): pair "gate", variants "base", "head" and their
// second runs "base'" and "head'", order "ABBA" (b h h' b') or "BAAB" (h b b' h'), block 1 or 2
// (the confirmation).
inline constexpr std::string_view kGatePair = "gate";
inline constexpr std::string_view kGateBase = "base";
inline constexpr std::string_view kGateHead = "head";

struct Sample {
  std::string condition;
  std::string benchmark;  // name without the -N suffix
  std::string name;       // as printed
  int procs = 1;
  int index = 0;  // 0-based position among this (condition, benchmark)'s samples, warm-up included
  bool warmup = false;
  int invocation = 0;  // 0-based invocation number within the run
  std::int64_t iterations = 0;
  std::vector<model::Metric> metrics;  // metrics.front() is the primary value
  // The Go configuration the result was printed under (model/go_config.hpp), "" for none: a row
  // is (condition, name, config, variant).
  std::string config;
  // Paired design only (empty / -1 otherwise): which variant ran, in which repeat, as part of
  // which pair (the variant compared with the baseline, or "A/A"), and the pair's order.
  std::string variant;
  int repeat = -1;
  std::string pair;
  model::PairOrder order = model::PairOrder::none;  // AB, BA; the gate: ABBA, BAAB
  int block = 0;               // the gate: 1, or 2 for the confirmation block; 0 otherwise
  double elapsed_seconds = 0;  // since the run (its session) started
  std::string utc;             // when it arrived, RFC 3339
  int session = 0;             // 0: the run's first session; n: its n-th resumption (run --resume)
  friend bool operator==(const Sample&, const Sample&) = default;
};

// A sample of `condition` holding a measurement's name, procs, iterations and metrics; the
// bookkeeping fields (index, warm-up, invocation, time) are the caller's.
Sample sample_of(const std::string& condition, const model::Measurement& measurement);

// {"condition", "benchmark", "name", "procs", "index", "warmup", "invocation", "iterations",
//  "metrics": [{"value", "unit"}], "elapsed_s", "utc"} plus, for the paired design, "variant",
// "repeat", "pair", "order", "session" when it is not 0, and "config" ({"pkg": "a", ...}) when
// there is one. A metric value that is not finite (a Google Benchmark counter) is
// written as null and read back as NaN; the primary one never is (the runner refuses it).
// from_json needs condition, benchmark and at least one metric (throws ParseError) and defaults
// the rest.
void to_json(nlohmann::json& j, const Sample& sample);
void from_json(const nlohmann::json& j, Sample& sample);

// The "order" of a sample's or an invocation's JSON object: none when absent or empty; another word
// than AB, BA, ABBA or BAAB throws ParseError.
model::PairOrder order_of(const nlohmann::json& j);

}  // namespace noisefloor::records
