#include "conditions/host.hpp"

#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

#include "fingerprint/host.hpp"
#include "image/embedded.hpp"
#include "model/cpulist.hpp"
#include "model/errors.hpp"
#include "process/process.hpp"

namespace noisefloor::conditions {
namespace {

// CPUs noisefloor itself may run on: where unpinned spinners land.
int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN));
  return std::max(1, CPU_COUNT(&set));
}

// The share of a CPU each spinner can expect: 1 / (spinners on its CPU) when pinned,
// min(1, usable CPUs / spinners) when the scheduler places them.
std::vector<double> expected_shares(const model::SpinnerSpec& spec) {
  std::vector<double> out;
  if (spec.cpus.empty()) {
    const double share = std::min(1.0, static_cast<double>(usable_cpus()) / std::max(1, spec.count));
    out.assign(static_cast<std::size_t>(spec.count), share);
    return out;
  }
  std::map<int, int> per_cpu;
  for (int i = 0; i < spec.count; ++i) ++per_cpu[spec.cpus[static_cast<std::size_t>(i) % spec.cpus.size()]];
  for (int i = 0; i < spec.count; ++i)
    out.push_back(1.0 / per_cpu[spec.cpus[static_cast<std::size_t>(i) % spec.cpus.size()]]);
  return out;
}

}  // namespace

Spinners::Spinners(const model::Condition& c) : condition_(c.name) {
  if (!c.spinners) return;
  spec_ = *c.spinners;
  set_ = std::make_unique<process::SpinnerSet>(*c.spinners);
  const std::vector<int> pids = set_->pids();
  const std::vector<double> expected = expected_shares(*c.spinners);
  for (std::size_t i = 0; i < pids.size(); ++i) {
    records::SpinnerLoad load;
    load.pid = pids[i];
    load.cpu_seconds = 0.0;
    load.expected_share = expected[i];
    load_.push_back(load);
  }
}

Spinners::~Spinners() = default;

Spinners::Snapshot Spinners::snapshot() const { return set_ ? set_->cpu_seconds() : Snapshot{}; }

void Spinners::account(const Snapshot& before, double wall_seconds, int invocation) {
  if (!set_) return;
  const Snapshot after = set_->cpu_seconds();
  for (std::size_t i = 0; i < load_.size() && i < before.size() && i < after.size(); ++i) {
    load_[i].wall_seconds += wall_seconds;
    if (before[i] && after[i] && load_[i].cpu_seconds)
      *load_[i].cpu_seconds += *after[i] - *before[i];
    else
      load_[i].cpu_seconds.reset();
  }
  const std::vector<std::size_t> gone = set_->exited();
  for (const std::size_t i : gone) load_[i].alive = false;
  if (!gone.empty())
    throw RunError(fmt::format("condition '{}': spinner {} exited during run {}: the background load was not "
                               "there the whole time",
                               condition_, load_[gone.front()].pid, invocation + 1));
}

void Spinners::finish() {
  if (!set_) return;
  set_->stop();
  set_.reset();
  for (const auto& load : load_)
    if (load.starved())
      throw RunError(fmt::format(
          "condition '{}': spinner {} got {:.1f}% of a CPU while the benchmark ran (it could expect about {:.0f}%): "
          "the background load was not there{}",
          condition_, load.pid, 100 * *load.share(), 100 * load.expected_share,
          spec_.nice ? " (spinners.nice lets the benchmark starve them)" : ""));
}

std::optional<records::SpinnerSetup> Spinners::setup() const {
  if (load_.empty() && !set_) return std::nullopt;
  std::vector<int> pids;
  for (const auto& load : load_) pids.push_back(load.pid);
  return records::SpinnerSetup{spec_.count, spec_.cpus, pids, spec_.nice};
}

namespace {

class HostScope : public ConditionScope {
 public:
  HostScope(const model::Condition& c, std::string noop_program)
      : condition_(c), noop_program_(std::move(noop_program)), spinners_(c) {}

  InvocationOutput run(const Invocation& inv, const LineCallback& on_line, const Cancelled& cancelled) override {
    process::Spec spec;
    spec.argv = inv.argv;
    spec.env = inv.env;
    spec.workdir = inv.workdir;
    spec.timeout = inv.timeout;
    spec.affinity = condition_.affinity;
    spec.nice = condition_.nice;

    InvocationOutput out;
    if (inv.launcher_noops > 0) time_noops(spec, inv.launcher_noops, cancelled, out.accounting);

    const Spinners::Snapshot before = spinners_.snapshot();
    const process::Result r = process::run(spec, on_line, cancelled);
    spinners_.account(before, r.usage.wall_seconds, inv.number);

    out.exit_code = r.exit_code;
    out.signal = r.signal;
    out.timed_out = r.timed_out;
    out.out = r.out;
    out.err = r.err;
    out.wall_seconds = r.usage.wall_seconds;
    out.accounting.usage = r.usage;
    out.accounting.measured_by = "host";
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

  void finish() override { spinners_.finish(); }

  records::ConditionSetup setup() const override {
    records::ConditionSetup s;
    s.spinners = spinners_.setup();
    s.affinity = condition_.affinity;
    s.nice = condition_.nice;
    return s;
  }

  std::vector<records::SpinnerLoad> spinner_load() const override { return spinners_.load(); }

 private:
  // The launcher overhead: the embedded nf-noop started through the same path as the benchmark
  // (same launcher, affinity, nice, working directory), `count` times.
  void time_noops(const process::Spec& benchmark, int count, const Cancelled& cancelled,
                  records::Accounting& accounting) {
    if (noop_program_.empty()) {
      accounting.launcher_unknown = "the no-op program could not be prepared";
      return;
    }
    process::Spec spec = benchmark;
    spec.argv = {noop_program_};
    spec.timeout = std::chrono::seconds(10);
    for (int i = 0; i < count; ++i) {
      const process::Result r = process::run(spec, nullptr, cancelled);
      if (r.exit_code != 0 || r.timed_out) {
        accounting.launcher_noop_seconds.clear();
        accounting.launcher_unknown =
            fmt::format("the no-op {}", r.timed_out ? "timed out" : fmt::format("exited with code {}", r.exit_code));
        return;
      }
      accounting.launcher_noop_seconds.push_back(r.usage.wall_seconds);
    }
  }

  model::Condition condition_;
  std::string noop_program_;
  Spinners spinners_;
};

}  // namespace

std::unique_ptr<ConditionScope> make_host_scope(const model::Condition& condition, const std::string& noop_program) {
  return std::make_unique<HostScope>(condition, noop_program);
}

// The embedded nf-noop in an anonymous memory file, executed as /proc/self/fd/N: nothing is
// written to disk, so nothing can be left behind, whatever ends noisefloor.
struct HostEnvironment::NoopProgram {
  int fd = -1;
  std::string path;
  std::string problem;
  NoopProgram() {
    fd = ::memfd_create("noisefloor-noop", MFD_CLOEXEC);
    if (fd < 0) {
      problem = fmt::format("memfd_create: {}", std::strerror(errno));
      return;
    }
    const std::string_view bytes = image::embedded_noop();
    std::size_t written = 0;
    while (written < bytes.size()) {
      const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        problem = fmt::format("writing the no-op: {}", std::strerror(errno));
        return;
      }
      written += static_cast<std::size_t>(n);
    }
    path = fmt::format("/proc/self/fd/{}", fd);
  }
  ~NoopProgram() {
    if (fd >= 0) ::close(fd);
  }
};

HostEnvironment::HostEnvironment(ContainerScopeFactory containers)
    : containers_(std::move(containers)), noop_(std::make_unique<NoopProgram>()) {}

HostEnvironment::~HostEnvironment() = default;

std::unique_ptr<ConditionScope> HostEnvironment::enter(const model::Condition& condition) {
  if (condition.container) {
    if (!containers_)
      throw RunError(fmt::format("condition '{}': container conditions need the Docker engine", condition.name));
    return containers_(condition);
  }
  return make_host_scope(condition, noop_->path);
}

fingerprint::LoadReading HostEnvironment::load() { return fingerprint::probe_load(); }

}  // namespace noisefloor::conditions
