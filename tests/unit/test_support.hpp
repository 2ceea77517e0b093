// Helpers shared by the unit tests: reading committed test data, the public statistics vectors,
// the committed small result, and relative comparisons.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/experiment.hpp"
#include "model/measurement.hpp"
#include "records/result.hpp"
#include "results/decode.hpp"
#include "stats/summary.hpp"

namespace noisefloor::testing {

inline const std::string kData = NF_TEST_DATA_DIR;
inline const std::string kSmall = kData + "/results/small";

// Relative tolerances for the statistics vectors: closed forms, and anything with a t quantile.
inline constexpr double kClosed = 1e-12;
inline constexpr double kT = 1e-9;

// The whole file, or a failed REQUIRE naming it.
inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// tests/data/stats/stats-vectors.json (a copy of the shared public vectors).
inline const nlohmann::json& vectors() {
  static const nlohmann::json json = [] {
    const std::string path = kData + "/stats/stats-vectors.json";
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path);
    return nlohmann::json::parse(in);
  }();
  return json;
}

inline std::vector<double> values(const nlohmann::json& j) { return j.get<std::vector<double>>(); }

// Purely relative comparison (doctest's default Approx also adds an absolute term).
inline doctest::Approx rel(double expected, double tolerance) {
  return doctest::Approx(expected).epsilon(tolerance).scale(0.0);
}

inline bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// A committed result directory decoded as results::load would (unit tests link the core only,
// so the files are read here).
inline records::Result load_result(const std::string& dir) {
  namespace fs = std::filesystem;
  results::ResultFiles f;
  f.source = dir;
  f.samples_jsonl = slurp(dir + "/samples.jsonl");
  for (const char* name : {"run.json", "fingerprint.json", "summary.json"}) {
    if (!fs::exists(dir + "/" + name)) continue;
    auto& slot = std::string(name) == "run.json"           ? f.run_json
                 : std::string(name) == "fingerprint.json" ? f.fingerprint_json
                                                           : f.summary_json;
    slot = slurp(dir + "/" + name);
  }
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".txt")
      f.raw[entry.path().stem().string()] = slurp(entry.path().string());
  return results::decode_result(f);
}

// tests/data/results/small, the committed result of 0.1 (schema 1).
inline records::Result load_small() { return load_result(kSmall); }

// Samples of a paired run: per repeat the baseline (`baseline`, values `base`) and the other side
// of `pair` (`variant`, values `other`) back to back, counterbalanced ABBA.
inline void add_pair(std::vector<records::Sample>& out, const std::string& condition, const std::string& pair,
                     const std::string& variant, const std::vector<double>& base,
                     const std::vector<double>& other, const std::string& baseline = "base",
                     const std::string& benchmark = "BenchmarkWork") {
  for (std::size_t r = 0; r < base.size(); ++r) {
    const model::PairOrder order = (r % 4 == 0 || r % 4 == 3) ? model::PairOrder::ab : model::PairOrder::ba;
    for (int side = 0; side < 2; ++side) {
      records::Sample s;
      s.condition = condition;
      s.benchmark = s.name = benchmark;
      s.variant = side == 0 ? baseline : variant;
      s.pair = pair;
      s.order = order;
      s.repeat = s.index = static_cast<int>(r);
      s.metrics = {{side == 0 ? base[r] : other[r], "ns/op"}};
      out.push_back(s);
    }
  }
}

// An experiment with the conditions "idle" and "noisy" and the benchmark ./b.test.
inline model::Experiment two_conditions(model::Schedule schedule, int samples, int warmup, int per_run) {
  model::Experiment e;
  e.name = "t";
  e.benchmark.command = {"./b.test", "-test.bench=."};
  e.benchmark.samples = samples;
  e.benchmark.warmup = warmup;
  e.benchmark.samples_per_run = per_run;
  e.schedule = schedule;
  e.settle = model::Seconds(0);  // tests that time the run set their own
  e.conditions.resize(2);
  e.conditions[0].name = "idle";
  e.conditions[1].name = "noisy";
  return e;
}

// The samples of a committed go test file, as one condition.
inline std::vector<records::Sample> gotest_samples(const std::string& condition,
                                                   const std::string& relative) {
  auto r = results::decode_gotest_file(condition + ".txt", slurp(kData + "/" + relative));
  return r.samples.to_vector();
}

// A summary.json row as 0.1 wrote it, brought to this version's deliberate change of the median's
// interval: benchstat's rule (harness/stats/README.md §3.2) instead of the equal-tailed one, taken
// from the row's own values, so that every other field is still compared as 0.1 computed it.
inline nlohmann::json with_benchstat_median_ci(nlohmann::json row) {
  std::vector<double> v = row.at("values").get<std::vector<double>>();
  std::sort(v.begin(), v.end());
  nlohmann::json& s = row.at("summary");
  const auto orders = stats::benchstat_median_ci_orders(v.size());
  if (!orders) {
    s["median_ci"] = nullptr;
    s["median_rel_halfwidth"] = nullptr;
    return row;
  }
  const double lo = v[orders->lo - 1], hi = v[orders->hi - 1], median = s.at("median").get<double>();
  s["median_ci"] = {{"lo", lo}, {"hi", hi}, {"level", orders->level}};
  s["median_rel_halfwidth"] =
      median > 0 ? nlohmann::json(std::max(hi / median - 1, 1 - lo / median)) : nlohmann::json();
  return row;
}

// Compares `actual` with tests/data/golden/<name>. NF_UPDATE_GOLDEN=1 rewrites the file and fails
// the check anyway, so an update can never pass by construction: review the diff, then run the
// tests again without it. The goldens are also checked against an independent computation
// (tests/golden/verify.py).
inline void check_golden(const std::string& name, const std::string& actual) {
  const std::string path = kData + "/golden/" + name;
  if (std::getenv("NF_UPDATE_GOLDEN")) {
    std::ofstream(path, std::ios::binary) << actual;
    FAIL_CHECK("golden " << name << " rewritten: review the diff, then rerun without NF_UPDATE_GOLDEN");
    return;
  }
  CHECK_MESSAGE(slurp(path) == actual, "golden " << name << " differs; actual:\n" << actual);
}

// A file under tests/data, whole.
inline std::string read_data(const std::string& relative) { return slurp(kData + "/" + relative); }

// Field by field, so a failure names the field (Measurement has no operator<<); a NaN in `want`
// matches a NaN in `got`.
// What a parser test expects of a measurement: its name, benchmark, procs, iterations and metrics
// (the configuration it was printed under is checked where a test is about it).
struct ExpectedMeasurement {
  std::string name, benchmark;
  int procs = 1;
  std::int64_t iterations = 0;
  std::vector<model::Metric> metrics;
};

inline void check_measurement(const model::Measurement& got, const ExpectedMeasurement& want) {
  INFO("measurement ", want.name);
  CHECK(got.name == want.name);
  CHECK(got.benchmark == want.benchmark);
  CHECK(got.procs == want.procs);
  CHECK(got.iterations == want.iterations);
  REQUIRE(got.metrics.size() == want.metrics.size());
  for (std::size_t i = 0; i < want.metrics.size(); ++i) {
    INFO("metric ", i, " (", want.metrics[i].unit, ")");
    CHECK(got.metrics[i].unit == want.metrics[i].unit);
    if (std::isnan(want.metrics[i].value)) {
      CHECK(std::isnan(got.metrics[i].value));
    } else {
      CHECK(got.metrics[i].value == want.metrics[i].value);
    }
  }
}

}  // namespace noisefloor::testing
