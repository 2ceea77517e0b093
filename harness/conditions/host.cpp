#include "conditions/host.hpp"

#include <fmt/format.h>

#include "fingerprint/host.hpp"
#include "model/cpulist.hpp"
#include "model/errors.hpp"
#include "process/process.hpp"

namespace noisefloor::conditions {
namespace {

class HostScope : public ConditionScope {
 public:
  explicit HostScope(const model::Condition& c) : condition_(c) {
    // Spinners start just before the condition's samples and stop right after them.
    if (c.spinners) spinners_ = std::make_unique<process::SpinnerSet>(*c.spinners);
  }

  InvocationOutput run(const Invocation& inv, const LineCallback& on_line, const Cancelled& cancelled) override {
    process::Spec spec;
    spec.argv = inv.argv;
    spec.env = inv.env;
    spec.workdir = inv.workdir;
    spec.timeout = inv.timeout;
    spec.affinity = condition_.affinity;
    spec.nice = condition_.nice;
    const process::Result r = process::run(spec, on_line, cancelled);
    InvocationOutput out;
    out.exit_code = r.exit_code;
    out.signal = r.signal;
    out.timed_out = r.timed_out;
    out.out = r.out;
    out.err = r.err;
    out.wall_seconds = r.wall_seconds;
    if (!r.applied) {
      out.details.affinity_unknown = "the benchmark exited before it could be read back";
      return out;
    }
    out.details.affinity = r.applied->affinity;
    out.details.nice = r.applied->nice;
    // What was asked must be what the kernel applied; read back, not assumed.
    if (!condition_.affinity.empty() && r.applied->affinity != condition_.affinity)
      throw RunError(fmt::format("condition '{}': asked for affinity {}, the benchmark ran on {}", condition_.name,
                                 model::format_cpu_list(condition_.affinity),
                                 model::format_cpu_list(r.applied->affinity)));
    if (condition_.nice && r.applied->nice && *r.applied->nice != *condition_.nice)
      throw RunError(fmt::format("condition '{}': asked for nice {}, the benchmark ran at nice {}", condition_.name,
                                 *condition_.nice, *r.applied->nice));
    return out;
  }

  void finish() override {
    if (spinners_) spinners_->stop();
    spinners_.reset();
  }

  records::ConditionSetup setup() const override {
    records::ConditionSetup s;
    if (condition_.spinners)
      s.spinners = records::SpinnerSetup{condition_.spinners->count, condition_.spinners->cpus,
                                         spinners_ ? spinners_->pids() : std::vector<int>{}, condition_.spinners->nice};
    s.affinity = condition_.affinity;
    s.nice = condition_.nice;
    return s;
  }

 private:
  model::Condition condition_;
  std::unique_ptr<process::SpinnerSet> spinners_;
};

}  // namespace

std::unique_ptr<ConditionScope> make_host_scope(const model::Condition& condition) {
  return std::make_unique<HostScope>(condition);
}

HostEnvironment::HostEnvironment(ContainerScopeFactory containers) : containers_(std::move(containers)) {}

std::unique_ptr<ConditionScope> HostEnvironment::enter(const model::Condition& condition) {
  if (condition.container) {
    if (!containers_)
      throw RunError(fmt::format("condition '{}': container conditions need the Docker engine", condition.name));
    return containers_(condition);
  }
  return make_host_scope(condition);
}

fingerprint::LoadReading HostEnvironment::load() { return fingerprint::probe_load(); }

}  // namespace noisefloor::conditions
