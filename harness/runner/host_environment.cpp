#include "runner/host_environment.hpp"

#include <fmt/format.h>

#include <thread>

#include "fingerprint/host.hpp"
#include "model/cpulist.hpp"
#include "model/errors.hpp"
#include "process/process.hpp"

namespace noisefloor::runner {
namespace {

class HostScope : public ConditionScope {
 public:
  explicit HostScope(const model::Condition& c) : condition_(c) {
    // Spinners start just before the condition's samples and stop right after them.
    if (c.spinners) spinners_ = std::make_unique<process::SpinnerSet>(*c.spinners);
  }

  InvocationOutput run(const Invocation& inv, const LineCallback& on_line,
                       const Cancelled& cancelled) override {
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
    if (r.applied) {
      out.details["affinity"] = model::format_cpu_list(r.applied->affinity);
      if (r.applied->nice) out.details["nice"] = *r.applied->nice;
      // What was asked must be what the kernel applied; read back, not assumed.
      if (!condition_.affinity.empty() && r.applied->affinity != condition_.affinity)
        throw RunError(fmt::format("condition '{}': asked for affinity {}, the benchmark ran on {}",
                                   condition_.name, model::format_cpu_list(condition_.affinity),
                                   model::format_cpu_list(r.applied->affinity)));
      if (condition_.nice && r.applied->nice && *r.applied->nice != *condition_.nice)
        throw RunError(fmt::format("condition '{}': asked for nice {}, the benchmark ran at nice {}",
                                   condition_.name, *condition_.nice, *r.applied->nice));
    } else {
      out.details["affinity"] = "unknown (the benchmark exited before it could be read back)";
    }
    return out;
  }

  void finish() override {
    if (spinners_) spinners_->stop();
    spinners_.reset();
  }

  nlohmann::json describe() const override {
    nlohmann::json j = nlohmann::json::object();
    if (condition_.spinners) {
      j["spinners"] = {{"count", condition_.spinners->count},
                       {"cpus", condition_.spinners->cpus.empty()
                                    ? "unpinned"
                                    : model::format_cpu_list(condition_.spinners->cpus)},
                       {"pids", spinners_ ? spinners_->pids() : std::vector<int>{}}};
      if (condition_.spinners->nice) j["spinners"]["nice"] = *condition_.spinners->nice;
    }
    if (!condition_.affinity.empty()) j["affinity"] = model::format_cpu_list(condition_.affinity);
    if (condition_.nice) j["nice"] = *condition_.nice;
    return j;
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

void HostEnvironment::cool_down(model::Seconds duration, const Cancelled& cancelled) {
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::duration_cast<std::chrono::steady_clock::duration>(duration);
  while (std::chrono::steady_clock::now() < until) {
    if (cancelled && cancelled()) throw Interrupted();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// The same probe the fingerprint uses: a fact {"value": {one, five, fifteen, running, total}}
// or {"value": null, "unknown": reason}.
nlohmann::json HostEnvironment::load() { return fingerprint::probe_load(); }

}  // namespace noisefloor::runner
