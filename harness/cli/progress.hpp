// What a user sees while a run goes on: condition i/N, sample j/M, the latest value, elapsed and
// remaining time. A live line on a terminal, plain lines otherwise, nothing with --quiet.
#pragma once

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "results/results.hpp"
#include "runner/runner.hpp"

namespace noisefloor::cli {

class ProgressObserver : public runner::Observer {
 public:
  // Samples are persisted to `dir` before anything is shown.
  ProgressObserver(results::RunDirectory& dir, const model::Experiment& experiment, bool quiet);
  ~ProgressObserver() override;

  void sample(const model::Sample& s) override;
  void condition_started(std::size_t index, std::size_t count, const model::Condition& c) override;
  void condition_finished(std::size_t index, const nlohmann::json& record) override;
  void progress(std::size_t done, std::size_t total, const model::Sample& latest) override;
  void end_line();  // finishes a live line before other output

 private:
  void show(const std::string& line);

  results::RunDirectory& dir_;
  const model::Experiment& experiment_;
  bool quiet_;
  bool live_;
  bool line_open_ = false;
  std::chrono::steady_clock::time_point start_;
  std::size_t condition_index_ = 0, condition_count_ = 0;
  std::string condition_;
  std::size_t condition_done_ = 0;
  std::string first_benchmark_;
  std::vector<double> values_;  // this condition's kept samples of the first benchmark
  bool color_;
};

std::string format_clock(double seconds);  // "1:05", "1:02:03"

// "▁▃█▅": the last `width` values scaled between their min and max.
std::string sparkline(const std::vector<double>& values, std::size_t width = 16);
// Running CV% of the values; nullopt below n = 2.
std::optional<double> running_cv(const std::vector<double>& values);

}  // namespace noisefloor::cli
