// Conditions in force: what the runner asks of the machine. A condition is entered (spinners
// started, a container template made ready), the benchmark is invoked in it any number of times,
// and it is left; everything it started stops on every path. The real implementations are in
// host.hpp (host processes) and container.hpp (Docker); tests use fakes. Pure interfaces.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fingerprint/facts.hpp"
#include "model/callbacks.hpp"
#include "model/experiment.hpp"
#include "model/simulation.hpp"
#include "records/run.hpp"

namespace noisefloor::conditions {

using model::Cancelled;
using model::LineCallback;

// One invocation of the benchmark command as the condition should run it.
struct Invocation {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;
  std::optional<std::string> workdir;
  model::Seconds timeout{600};
  int number = 0;  // 0-based within the run
  // No-ops to time first, started exactly as the benchmark will be, in the same condition: the
  // launcher overhead of `format: command` (records::Accounting::launcher_noop_seconds).
  int launcher_noops = 0;
  // Run it under valgrind with the fixed cache geometry and ASLR off, and return its counts over
  // the scope (model/simulation.hpp): the host only.
  std::optional<model::SimulationScope> simulate;
};

struct InvocationOutput {
  int exit_code = -1;
  std::optional<int> signal;
  bool timed_out = false;
  std::string out, err;
  double wall_seconds = 0;                          // as noisefloor saw it (a container: its whole lifecycle)
  records::Accounting accounting;                   // the benchmark's own, measured where it ran
  records::InvocationDetails details;               // what was applied, read back
  std::optional<model::SimulatedCounts> simulated;  // simulate whole_run: cachegrind's counts
  std::vector<model::TimedLoop> simulated_loops;    // simulate timed_loop: every loop, in order
};

// A condition in force. Destroying it stops everything it started, on every path.
class ConditionScope {
 public:
  virtual ~ConditionScope() = default;
  // Runs one invocation to its end; complete stdout lines go to on_stdout_line as they arrive.
  // Throws RunError when the condition did not hold (an affinity not applied, a container limit
  // not in effect), Interrupted once cancelled.
  virtual InvocationOutput run(const Invocation& invocation, const LineCallback& on_stdout_line,
                               const Cancelled& cancelled) = 0;
  // Happy-path teardown: throws RunError when the condition did not hold (a spinner died early).
  virtual void finish() = 0;
  // What was put in place (spinner pids, CPUs, the container's settings).
  virtual records::ConditionSetup setup() const = 0;
  // How much CPU each spinner got while the benchmark ran, so far (empty without spinners).
  virtual std::vector<records::SpinnerLoad> spinner_load() const { return {}; }
};

class Environment {
 public:
  virtual ~Environment() = default;
  // Puts the condition in force: returns once its spinners report that they spin (throws
  // RunError when they do not) and its container template is ready.
  virtual std::unique_ptr<ConditionScope> enter(const model::Condition& condition) = 0;
  // The machine's load, read before and after every condition.
  virtual fingerprint::LoadReading load() = 0;
};

}  // namespace noisefloor::conditions
