// The real Environment: spinners and the benchmark as host processes, containers through the
// Docker Engine API. The only part of the runner that touches the machine.
#pragma once

#include <functional>
#include <memory>

#include "runner/runner.hpp"

namespace noisefloor::runner {

// Runs a container condition; provided by the docker edge (nullptr: container conditions fail).
using ContainerScopeFactory =
    std::function<std::unique_ptr<ConditionScope>(const model::Condition&)>;

class HostEnvironment : public Environment {
 public:
  explicit HostEnvironment(ContainerScopeFactory containers = nullptr);
  std::unique_ptr<ConditionScope> enter(const model::Condition& condition) override;
  void cool_down(model::Seconds duration, const Cancelled& cancelled) override;
  nlohmann::json load() override;

 private:
  ContainerScopeFactory containers_;
};

// The host side of a condition: spinners and affinity/nice for the benchmark process.
// Container scopes reuse it for their spinners.
std::unique_ptr<ConditionScope> make_host_scope(const model::Condition& condition);

}  // namespace noisefloor::runner
