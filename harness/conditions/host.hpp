// The real Environment: spinners and the benchmark as host processes, container conditions
// through a ContainerScopeFactory (container.hpp). I/O edge.
#pragma once

#include <functional>
#include <memory>

#include "conditions/environment.hpp"

namespace noisefloor::conditions {

// Makes the scope of a container condition (nullptr: container conditions are refused).
using ContainerScopeFactory = std::function<std::unique_ptr<ConditionScope>(const model::Condition&)>;

class HostEnvironment : public Environment {
 public:
  explicit HostEnvironment(ContainerScopeFactory containers = nullptr);
  std::unique_ptr<ConditionScope> enter(const model::Condition& condition) override;
  fingerprint::LoadReading load() override;  // /proc/loadavg

 private:
  ContainerScopeFactory containers_;
};

// The host side of a condition: spinners, and affinity and nice for the benchmark process (both
// read back from the running process). Container scopes reuse it for their spinners.
std::unique_ptr<ConditionScope> make_host_scope(const model::Condition& condition);

}  // namespace noisefloor::conditions
