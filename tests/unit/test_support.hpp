// Helpers shared by the unit tests: reading committed test data, the public statistics vectors,
// the committed small result, and relative comparisons.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/sample.hpp"
#include "report/report_data.hpp"

namespace noisefloor::testing {

inline const std::string kData = NF_TEST_DATA_DIR;
inline const std::string kSmall = kData + "/results/small";

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

// What cli/report_command.cpp reads of tests/data/results/small, without the I/O library (unit
// tests link the core only).
inline report::ReportSource load_small(const std::string& label = "20261130T050436Z") {
  using nlohmann::json;
  report::ReportSource s;
  s.label = label;
  s.run = json::parse(slurp(kSmall + "/run.json"));
  s.summary = json::parse(slurp(kSmall + "/summary.json"));
  s.fingerprint = json::parse(slurp(kSmall + "/fingerprint.json"));
  std::istringstream lines(slurp(kSmall + "/samples.jsonl"));
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) s.samples.push_back(model::sample_from_json(json::parse(line)));
  s.conditions = s.run["conditions"].get<std::vector<std::string>>();
  for (const auto& c : s.conditions)
    s.gotest_config[c] = report::parse_gotest_config(slurp(kSmall + "/" + c + ".txt"));
  return s;
}

}  // namespace noisefloor::testing
