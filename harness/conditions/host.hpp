// The real Environment: spinners and the benchmark as host processes, container conditions
// through a ContainerScopeFactory (container.hpp). I/O edge.
#pragma once

#include <functional>
#include <memory>

#include "conditions/environment.hpp"

namespace noisefloor::process {
class SpinnerSet;
}

namespace noisefloor::conditions {

// The background load of a condition, host or container: its spinners, started and spinning
// when the constructor returns, and how much CPU each got while the benchmark ran. Nothing
// without spinners.
class Spinners {
 public:
  using Snapshot = std::vector<std::optional<double>>;
  explicit Spinners(const model::Condition& condition);
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
  std::string condition_;
  model::SpinnerSpec spec_;
  std::unique_ptr<process::SpinnerSet> set_;
  std::vector<records::SpinnerLoad> load_;
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

// The host side of a condition: spinners (and how much CPU they got), and affinity and nice for
// the benchmark (applied to the probe that starts it, read back, inherited).
std::unique_ptr<ConditionScope> make_host_scope(const model::Condition& condition, const Launcher& launcher);

}  // namespace noisefloor::conditions
