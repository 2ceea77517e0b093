#include "analysis/accounting.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "stats/summary.hpp"

namespace noisefloor::analysis {
namespace {

std::optional<double> median_of(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  return stats::median(values);
}

}  // namespace

std::optional<double> RunQueueEvidence::waited() const {
  if (invocations == 0 || !(run_seconds + wait_seconds > 0)) return std::nullopt;
  return wait_seconds / (run_seconds + wait_seconds);
}

std::optional<double> RunQueueEvidence::used() const {
  if (invocations == 0 || !(wall_seconds > 0)) return std::nullopt;
  return run_seconds / wall_seconds;
}

bool RunQueueEvidence::below_capacity() const {
  const auto u = used();
  return !u || !cpus_allowed || *u < kStarvedCapacity * *cpus_allowed;
}

std::optional<double> RunQueueEvidence::slowed() const {
  if (invocations == 0 || !(wall_seconds > 0)) return std::nullopt;
  return wait_seconds / wall_seconds;
}

std::optional<double> RunQueueEvidence::beside() const {
  if (invocations == 0 || busy_invocations != invocations) return std::nullopt;
  return std::max(0.0, busy_seconds - busy_own_seconds);
}

bool RunQueueEvidence::others_ran() const {
  const auto b = beside();
  return !b || *b >= kBesideFraction * wall_seconds + kBusyTolerance * busy_own_seconds + busy_ticks_seconds;
}

bool RunQueueEvidence::starved() const {
  const auto w = waited(), s = slowed();
  return w && s && *w >= kStarvedWaitFraction && *s >= kStarvedWallFraction && below_capacity() &&
         others_ran();
}

bool RunQueueEvidence::noteworthy() const {
  const auto w = waited(), s = slowed();
  return w && s && *w >= kWaitNoteFraction && *s >= kStarvedWallFraction / 2 && below_capacity() &&
         others_ran();
}

namespace {

// The CPUs an invocation could use: its affinity, and a container's CFS quota.
std::optional<double> cpus_allowed(const records::InvocationRecord& inv) {
  const records::InvocationDetails& d = inv.details;
  if (inv.accounting.measured_by == records::MeasuredBy::container) {
    if (!d.limits_inside || !d.limits_inside->nproc) return std::nullopt;
    double cpus = *d.limits_inside->nproc;
    const auto quota = d.limits_inside->cfs_quota_us, period = d.limits_inside->cfs_period_us;
    if (quota && period && *quota > 0 && *period > 0)
      cpus = std::min(cpus, static_cast<double>(*quota) / *period);
    return cpus;
  }
  if (d.affinity && !d.affinity->empty()) return static_cast<double>(d.affinity->size());
  return std::nullopt;
}

// How many CPUs' lines the probe summed for the busy time: its affinity (in a container, nproc).
double cpus_summed(const records::InvocationRecord& inv) {
  const records::InvocationDetails& d = inv.details;
  if (d.limits_inside && d.limits_inside->nproc) return *d.limits_inside->nproc;
  if (d.affinity && !d.affinity->empty()) return static_cast<double>(d.affinity->size());
  return 1;
}

void add_run_queue(RunQueueEvidence& e, const records::InvocationRecord& inv) {
  const records::Accounting& acc = inv.accounting;
  if (!acc.run_queue) return;
  const model::RunQueue& q = *acc.run_queue;
  if (!q.run_seconds || !q.wait_seconds || !acc.usage) {
    if (e.unknown.empty()) e.unknown = q.unknown.empty() ? "not measured" : q.unknown;
    return;
  }
  ++e.invocations;
  e.run_seconds += *q.run_seconds;
  e.wait_seconds += *q.wait_seconds;
  e.wall_seconds += acc.usage->wall_seconds;
  if (const auto cpus = cpus_allowed(inv)) e.cpus_allowed = std::min(e.cpus_allowed.value_or(*cpus), *cpus);
  if (q.cpus_busy_seconds) {
    ++e.busy_invocations;
    e.busy_seconds += *q.cpus_busy_seconds;
    // Its threads' time misses what a thread did after its last read before it exited; the
    // tree's rusage counts every waited-for process whole.
    e.busy_own_seconds += std::max(*q.run_seconds, acc.usage->cpu_seconds());
    e.busy_ticks_seconds += 2 * kBusyTickSeconds * cpus_summed(inv);
  } else if (e.busy_unknown.empty()) {
    e.busy_unknown = q.busy_unknown.empty() ? "not measured" : q.busy_unknown;
  }
}

}  // namespace

std::optional<double> ConditionAccounting::launcher_median() const {
  return median_of(launcher_noop_seconds);
}
std::optional<double> ConditionAccounting::command_median() const { return median_of(command_seconds); }

std::optional<double> ConditionAccounting::harness_share() const {
  if (harness_invocations == 0 || !(harness_wall_seconds > 0)) return std::nullopt;
  return harness_cpu_seconds / harness_wall_seconds;
}

std::optional<double> ConditionAccounting::command_to_launcher() const {
  const auto l = launcher_median(), c = command_median();
  if (!l || !c || !(*l > 0)) return std::nullopt;
  return *c / *l;
}

std::vector<ConditionAccounting> accounting_of(const records::RunRecord& run,
                                               const std::function<std::string(const std::string&)>& rename) {
  std::map<std::string, ConditionAccounting> by;
  std::vector<std::string> order;
  for (const auto& block : run.condition_records) {
    const std::string name = rename ? rename(block.condition) : block.condition;
    if (!by.count(name)) order.push_back(name);
    ConditionAccounting& a = by[name];
    a.condition = name;
    if (block.setup.spinners && block.setup.spinners->count > 0) a.spinners = true;
    for (const auto& load : block.spinner_load) {
      a.spinner_expected_share = load.expected_share;
      if (const auto share = load.share(); share && load.wall_seconds > 0)
        a.spinner_min_share = std::min(a.spinner_min_share.value_or(*share), *share);
    }
    for (const auto& inv : block.runs) {
      ++a.invocations;
      if (inv.harness_cpu_seconds) {
        ++a.harness_invocations;
        a.harness_cpu_seconds += *inv.harness_cpu_seconds;
        a.harness_wall_seconds += inv.wall_seconds;
      }
      const records::Accounting& acc = inv.accounting;
      a.launcher_noop_seconds.insert(a.launcher_noop_seconds.end(), acc.launcher_noop_seconds.begin(),
                                     acc.launcher_noop_seconds.end());
      if (!acc.launcher_unknown.empty() && a.launcher_unknown.empty())
        a.launcher_unknown = acc.launcher_unknown;
      const bool command = !acc.launcher_noop_seconds.empty() || !acc.launcher_unknown.empty();
      if (command && acc.usage) a.command_seconds.push_back(acc.usage->wall_seconds);
      add_run_queue(a.run_queue, inv);
      if (acc.cgroup && acc.cgroup->periods) {
        ++a.cgroup_invocations;
        a.periods += *acc.cgroup->periods;
        a.throttled_periods += acc.cgroup->throttled_periods.value_or(0);
        a.throttled_seconds += acc.cgroup->throttled_seconds.value_or(0);
        if (acc.cgroup->throttled()) ++a.throttled_invocations;
      }
    }
  }
  std::vector<ConditionAccounting> out;
  for (const auto& name : order) {
    const ConditionAccounting& a = by[name];
    const bool anything = !a.launcher_noop_seconds.empty() || !a.launcher_unknown.empty() ||
                          a.cgroup_invocations > 0 || a.spinner_min_share.has_value() ||
                          a.harness_invocations > 0 || a.run_queue.invocations > 0 ||
                          !a.run_queue.unknown.empty();
    if (anything) out.push_back(a);
  }
  return out;
}

}  // namespace noisefloor::analysis
