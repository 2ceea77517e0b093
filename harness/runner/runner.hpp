// The run loop: executes the plan's steps through an Environment, parses what each invocation
// prints into samples and hands every sample to the observer the moment it exists. It decides
// nothing about order (plan/) and touches nothing itself: the machine is behind the Environment
// (conditions/), time behind the Clock, so both are replaced in tests.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "conditions/environment.hpp"
#include "model/callbacks.hpp"
#include "model/experiment.hpp"
#include "model/units.hpp"
#include "plan/plan.hpp"
#include "records/run.hpp"
#include "records/sample.hpp"

namespace noisefloor::runner {

using model::Cancelled;

// The runner's only source of time (the real one is pipeline's; tests use a fake).
class Clock {
 public:
  virtual ~Clock() = default;
  virtual model::Seconds elapsed() = 0;  // monotonic, since the clock was made
  virtual std::string utc() = 0;         // wall-clock now, RFC 3339 with milliseconds
  // Waits (cool-down between condition blocks); throws Interrupted once cancelled.
  virtual void sleep(model::Seconds duration, const Cancelled& cancelled) = 0;
  // noisefloor's own CPU time so far, all threads (the harness's share of the machine while it
  // samples); nullopt where it is not measured.
  virtual std::optional<double> own_cpu_seconds() { return std::nullopt; }
};

// How far a run is, counted in kept samples (warm-up excluded) of every benchmark.
struct ProgressCount {
  std::size_t done = 0;   // kept samples so far, every benchmark of every condition
  std::size_t total = 0;  // kept samples the whole run will take (an estimate until total_known)
  // The number of benchmarks a condition runs is known once one of its invocations has printed
  // them all (a -test.bench pattern or a Google Benchmark program decides it); before that, total
  // counts the benchmarks seen so far.
  bool total_known = false;
  // The latest sample's own benchmark in its condition: its kept samples (repeats, in a paired
  // design) so far, and how many it gets.
  std::size_t benchmark_done = 0, benchmark_total = 0;
  // How many benchmarks its condition runs (so far, while total_known is false).
  std::size_t benchmarks = 1;
  // The gate's confirmation block (the latest sample's block is 2): benchmark_done counts this
  // block's repeats, and total is at most what is left of it (its cap), an upper bound.
  bool confirming = false;
};

// Where samples and progress go as they happen.
class Observer {
 public:
  virtual ~Observer() = default;
  virtual void sample(const records::Sample& s) = 0;  // must persist it before returning
  virtual void condition_started(std::size_t /*index*/, std::size_t /*count*/,
                                 const model::Condition& /*c*/) {}
  virtual void condition_finished(std::size_t /*index*/, const records::ConditionRecord& /*record*/) {}
  // After each sample: how far the run is (ProgressCount) and the sample itself.
  virtual void progress(const ProgressCount& /*count*/, const records::Sample& /*latest*/) {}
  // A resumed run: the samples its earlier sessions measured, before any new one.
  virtual void resumed(const std::vector<records::Sample>& /*earlier*/) {}
};

// Everything a run measured, so far or in all. For `run --resume` it starts with what the
// earlier sessions measured (samples and condition records); the run goes on from there and
// stamps what it adds with `session`.
struct Measured {
  int session = 0;
  std::vector<records::Sample> samples;              // warm-up included, in arrival order
  std::vector<records::ConditionRecord> conditions;  // one per condition block entered
  std::vector<records::RunWarning> warnings;
  std::map<std::string, records::AdaptiveOutcome> adaptive;  // samples: auto, per condition
  model::UnitMetadata units;  // `Unit` lines the benchmark printed (Go benchmark format)
};

// Runs the plan. Throws RunError (naming the condition, quoting the last lines of stderr),
// ParseError (output that cannot be read), Interrupted once cancelled; `measured` keeps what was
// measured up to that point either way, including the record of the block that was cut short.
// `confirm`: the gate's question for its second block (plan::Scheduler::confirm_with).
// `settled_before`: how long the room's noise profile ran just before the first block; the
// session's first block of a condition without spinners or container settles that much less.
void run(const model::Experiment& experiment, const plan::Plan& plan, conditions::Environment& environment,
         Clock& clock, Observer& observer, const Cancelled& cancelled, Measured& measured,
         const plan::Scheduler::Flagged& confirm = {}, model::Seconds settled_before = {});

}  // namespace noisefloor::runner
