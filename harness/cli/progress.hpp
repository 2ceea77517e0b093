// What a user sees while a run goes on: condition i/N, sample j/M, the latest value, the running
// CV, a sparkline, elapsed and remaining time. A live line on a terminal, plain lines otherwise,
// nothing but errors with --quiet. The run's notes ("build: ...", the key facts) go above it.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "model/experiment.hpp"
#include "pipeline/commands.hpp"

namespace noisefloor::cli {

class Progress : public pipeline::RunEvents {
 public:
  // `live`: stderr is a terminal; `color`: and NO_COLOR is not set.
  Progress(bool quiet, bool live, bool color);
  ~Progress() override;

  void note(const std::string& line) override;
  void done() override { end_line(); }
  void sample(const records::Sample&) override {}
  void condition_started(std::size_t index, std::size_t count, const model::Condition& c) override;
  void condition_finished(std::size_t index, const records::ConditionRecord& record) override;
  void progress(const runner::ProgressCount& count, const records::Sample& latest) override;
  void resumed(const std::vector<records::Sample>& earlier) override;
  // A run on several hosts: one progress line per host, kept together under the notes (redrawn
  // in place on a terminal, "[host] ..." lines otherwise).
  std::unique_ptr<pipeline::RunEvents> host(const std::string& name) override;

  struct Board;  // the hosts' lines, shared by the per-host Progress objects

 private:
  void show(const std::string& line);
  void count(const records::Sample& sample);  // into its benchmark's series (kept samples only)
  void end_line();                            // finishes a live line before other output

  bool quiet_, live_, color_;
  bool line_open_ = false;
  std::chrono::steady_clock::time_point start_;
  std::size_t condition_index_ = 0, condition_count_ = 0;
  std::string condition_;
  // Per benchmark of a condition (condition, name, config, variant), kept across its blocks (an
  // interleaved schedule enters each condition many times): its kept samples so far, for the
  // running CV and the sparkline of the benchmark the line names.
  std::map<std::tuple<std::string, std::string, std::string, std::string>, std::vector<double>> values_;
  std::set<std::string> announced_;  // conditions said once
  std::size_t earlier_done_ = 0;     // kept samples of a resumed run's earlier sessions
  std::shared_ptr<Board> board_;     // set: a run on several hosts (this object: one host, or all)
  // Without a terminal: when the last progress line was printed (one every kPlainEvery at most).
  static constexpr std::chrono::seconds kPlainEvery{5};
  std::optional<std::chrono::steady_clock::time_point> last_plain_;
  std::string host_;  // the host this object shows ("" for the run's own notes)
};

// "▁▃█▅": the last `width` values scaled between their min and max.
std::string sparkline(const std::vector<double>& values, std::size_t width = 16);
// Running CV% of the values; nullopt below n = 2 or for a mean that is not positive.
std::optional<double> running_cv(const std::vector<double>& values);

}  // namespace noisefloor::cli
