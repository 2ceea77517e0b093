// The real Environment: spinners and the benchmark as host processes, container conditions
// through a ContainerScopeFactory (container.hpp). I/O edge.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "conditions/environment.hpp"

namespace noisefloor::conditions {

// A random 64-bit tag for names that must not collide between runs (spinner groups, containers).
std::uint64_t random_tag();

// Where a condition's spinners run: host processes (process::SpinnerSet) or containers on an
// engine (container.hpp). Started and spinning when made.
class SpinnerBackend {
 public:
  virtual ~SpinnerBackend() = default;
  virtual std::vector<int> pids() const = 0;                          // on the machine they run on
  virtual std::vector<std::string> containers() const { return {}; }  // container ids, when containers
  // The CPU time each has had so far; nullopt when it cannot be read (gone).
  virtual std::vector<std::optional<double>> cpu_seconds() const = 0;
  virtual std::vector<std::size_t> exited() = 0;  // indices into pids()
  virtual void stop() = 0;                        // throws RunError when one died early
};

// The background load of a condition, host or container: its spinners, started and spinning
// when the constructor returns, and how much CPU each got while the benchmark ran. Nothing
// without spinners.
class Spinners {
 public:
  using Snapshot = std::vector<std::optional<double>>;
  using Start = std::function<std::unique_ptr<SpinnerBackend>(const model::SpinnerSpec&)>;
  // Host processes, on the CPUs noisefloor may use.
  explicit Spinners(const model::Condition& condition);
  // Started by `start` (containers on an engine) on a machine with `usable_cpus` CPUs.
  Spinners(const model::Condition& condition, const Start& start, int usable_cpus);
  ~Spinners();
  // Around every invocation: snapshot() before, account() after with the invocation's wall time.
  // account() throws RunError when a spinner is gone.
  Snapshot snapshot() const;
  void account(const Snapshot& before, double wall_seconds, int invocation);
  // Stops them; throws RunError when one died early or was starved (records::SpinnerLoad::starved).
  void finish();
  std::optional<records::SpinnerSetup> setup() const;
  const std::vector<records::SpinnerLoad>& load() const { return load_; }

 private:
  void init(int usable_cpus);
  std::string condition_;
  model::SpinnerSpec spec_;
  std::unique_ptr<SpinnerBackend> set_;
  std::vector<records::SpinnerLoad> load_;
  std::vector<std::string> containers_;
};

// Makes the scope of a container condition (nullptr: container conditions are refused).
using ContainerScopeFactory = std::function<std::unique_ptr<ConditionScope>(const model::Condition&)>;

// How host benchmarks are started: through the embedded nf-probe (which times the benchmark and
// ends its whole tree with it, or with noisefloor), the embedded nf-noop for the launcher
// overhead; paths empty and `problem` set when they could not be prepared.
struct Launcher {
  std::string probe, noop, problem;
};

class HostEnvironment : public Environment {
 public:
  explicit HostEnvironment(ContainerScopeFactory containers = nullptr);
  ~HostEnvironment() override;
  std::unique_ptr<ConditionScope> enter(const model::Condition& condition) override;
  fingerprint::LoadReading load() override;  // /proc/loadavg

 private:
  struct Programs;  // the probe and the no-op, in memory files
  ContainerScopeFactory containers_;
  std::unique_ptr<Programs> programs_;
};

// What a simulated run costs on this machine (`noisefloor doctor`): the probe's fixed workload
// (--burn) timed as it is, the best of three, and once under valgrind with the settings simulated
// metrics use. `problem` says why there is no figure (no valgrind on PATH, it failed).
struct SimulationCost {
  std::string valgrind;  // the first line of `valgrind --version`
  double native_seconds = 0, simulated_seconds = 0;
  std::string problem;
};
SimulationCost measure_simulation_cost(const Cancelled& cancelled);

// The host side of a condition: spinners (and how much CPU they got), and affinity and nice for
// the benchmark (applied to the probe that starts it, read back, inherited).
std::unique_ptr<ConditionScope> make_host_scope(const model::Condition& condition, const Launcher& launcher);

}  // namespace noisefloor::conditions
