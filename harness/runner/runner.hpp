// The run loop: plan invocations over conditions, run them through an Environment, parse what
// they print into samples and hand each sample to the sink the moment it exists.
//
// Pure apart from the clock: everything that touches processes or Docker sits behind
// Environment, so the order of execution is testable with a fake.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/experiment.hpp"
#include "model/measurement.hpp"
#include "model/sample.hpp"

namespace noisefloor::runner {

using Cancelled = std::function<bool()>;
using LineCallback = std::function<void(std::string_view line)>;

using model::Sample;

// One invocation of the benchmark command as the environment should run it.
struct Invocation {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;
  std::optional<std::string> workdir;
  model::Seconds timeout{600};
  int number = 0;  // 0-based within the run
};

struct InvocationOutput {
  int exit_code = -1;
  std::optional<int> signal;
  bool timed_out = false;
  std::string out, err;
  double wall_seconds = 0;
  nlohmann::json details = nlohmann::json::object();  // what was applied, read back (affinity, nice, container)
};

// A condition in force: spinners running, a container template ready. Destroying it stops
// everything it started, on every path.
class ConditionScope {
 public:
  virtual ~ConditionScope() = default;
  virtual InvocationOutput run(const Invocation& invocation, const LineCallback& on_stdout_line,
                               const Cancelled& cancelled) = 0;
  // Happy-path teardown: throws RunError when the condition did not hold (a spinner died early).
  virtual void finish() = 0;
  virtual nlohmann::json describe() const = 0;  // what was put in place (spinner pids, CPUs, ...)
};

class Environment {
 public:
  virtual ~Environment() = default;
  virtual std::unique_ptr<ConditionScope> enter(const model::Condition& condition) = 0;
  virtual void cool_down(model::Seconds duration, const Cancelled& cancelled) = 0;
  virtual nlohmann::json load() = 0;  // load average and runnable tasks, before and after a condition
};

// Where samples and progress go as they happen.
class Observer {
 public:
  virtual ~Observer() = default;
  virtual void sample(const Sample& s) = 0;  // must persist it before returning
  virtual void condition_started(std::size_t /*index*/, std::size_t /*count*/, const model::Condition& /*c*/) {}
  virtual void condition_finished(std::size_t /*index*/, const nlohmann::json& /*record*/) {}
  // progress: kept samples done so far and in total over the whole run
  virtual void progress(std::size_t /*done*/, std::size_t /*total*/, const Sample& /*latest*/) {}
};

struct RunRecord {
  std::vector<Sample> samples;                // every sample, warm-up included, in arrival order
  std::vector<nlohmann::json> conditions;     // one record per condition block entered
  std::vector<std::string> warnings;
  nlohmann::json adaptive = nlohmann::json::object();  // samples: auto — per condition: converged, n, half-width
};

// One invocation of one variant inside a step (paired design: a pair run back to back).
struct Unit {
  std::string variant;  // "" without variants; "<baseline>'" is the A/A copy of the baseline
  std::vector<std::string> command;
  std::string pair;     // the variant compared with the baseline, or "A/A"
  std::string order;    // "AB" or "BA"
};
struct Step {
  std::size_t condition = 0;
  int repeat = 0;   // paired: the repeat; otherwise the invocation's chunk index
  int samples = 1;  // samples each unit's invocation should deliver per benchmark
  std::vector<Unit> units;
};
// The units of one paired repeat, counterbalanced ABBA over the kept repeats (the first kept
// repeat is AB, then BA, BA, AB, ...).
std::vector<Unit> paired_units(const model::Experiment& experiment, int repeat);

// Relative half-width of the 99% order-statistic median CI (statistics.md §3.8); nullopt while
// n is too small for a 99% interval.
std::optional<double> median_halfwidth99(std::vector<double> values);
// Relative half-width of the 99% paired log-ratio t interval, as exp(t·s_d/√n) − 1.
std::optional<double> paired_halfwidth99(const std::vector<double>& base, const std::vector<double>& variant);

// The planned shape of a run (also used for progress): invocations in execution order.
struct PlannedInvocation {
  std::size_t condition = 0;  // index into experiment.conditions
  int samples = 0;            // samples this invocation should deliver per benchmark
  int round = 0;
};
std::vector<PlannedInvocation> plan(const model::Experiment& experiment);

// The argv of one invocation: the command plus the format's repetition flag
// (gotest: -test.count=N; gbench-json: --benchmark_repetitions=N --benchmark_format=json).
std::vector<std::string> invocation_argv(const model::BenchmarkSpec& spec, int samples);

// Runs the whole plan. Throws RunError (with the condition and the last lines of stderr),
// Interrupted when cancelled; `record` keeps what was measured up to that point either way.
void run(const model::Experiment& experiment, Environment& environment, Observer& observer,
         const Cancelled& cancelled, RunRecord& record);

// Now, UTC, RFC 3339 with milliseconds ("2026-11-30T05:01:11.123Z"): every timestamp a run records.
std::string utc_now();

// "the last 10 lines of stderr", indented, for error messages.
std::string tail_lines(std::string_view text, std::size_t lines);

}  // namespace noisefloor::runner
