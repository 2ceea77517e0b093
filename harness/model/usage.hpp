// What the kernel accounted to one run of a benchmark: plain values, no behaviour.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace noisefloor::model {

// One benchmark process tree, from the process that started it and waited for it: wall time on
// the monotonic clock from its start to the moment its exit woke the waiter (the probe: from just
// before the child's execve(2); noisefloor's own launcher: from just before clone(2)), and the
// rusage wait4(2) reports, which covers the process and every descendant it waited for (go
// test's test binary, a shell script's commands).
struct Usage {
  double wall_seconds = 0;
  double user_seconds = 0;
  double system_seconds = 0;
  std::int64_t max_rss_kib = 0;  // the largest resident set of any one process of the tree
  std::int64_t voluntary_switches = 0;
  std::int64_t involuntary_switches = 0;
  // Page faults of the tree (ru_minflt, ru_majflt); nullopt from a probe older than them.
  std::optional<std::int64_t> minor_faults, major_faults;
  double cpu_seconds() const { return user_seconds + system_seconds; }
  friend bool operator==(const Usage&, const Usage&) = default;
};

// A container's cgroup over one invocation: differences of its CPU accounting from just before
// the benchmark started to just after it exited, read by the probe inside the container
// (cgroup v1: cpuacct.usage and cpu.stat; v2: cpu.stat). A field that could not be read is
// nullopt and `unknown` says why.
struct CgroupCpu {
  std::optional<double> usage_seconds;            // CPU time charged to the cgroup
  std::optional<std::int64_t> periods;            // CFS enforcement periods that elapsed
  std::optional<std::int64_t> throttled_periods;  // periods in which the quota ran out
  std::optional<double> throttled_seconds;        // time the cgroup's tasks were held back
  std::string unknown;
  bool throttled() const { return throttled_periods.value_or(0) > 0; }
  friend bool operator==(const CgroupCpu&, const CgroupCpu&) = default;
};

// The benchmark's threads over one invocation, from the kernel's scheduler statistics
// (/proc/<pid>/task/<tid>/schedstat), read by the probe that started it: how long they ran on a
// CPU and how long they were runnable but waiting in a run queue. Both are lower bounds (a
// thread that exits between two reads loses its last part). nullopt when unknown, `unknown` says
// why.
struct RunQueue {
  std::optional<double> run_seconds;   // on a CPU
  std::optional<double> wait_seconds;  // runnable, waiting for a CPU
  // Moves between CPUs of those threads (se.nr_migrations of /proc/<pid>/task/<tid>/sched, a
  // lower bound as the times are); nullopt when unreadable (a kernel without CONFIG_SCHED_DEBUG).
  std::optional<std::int64_t> migrations;
  int tasks = 0;  // threads seen
  int reads = 0;  // times the probe read them
  std::string unknown;
  // Every task's time on the CPUs the benchmark may use, the benchmark's included (/proc/stat
  // over the invocation): less run_seconds, the work beside it. nullopt when unknown (an older
  // probe, an unreadable /proc/stat), `busy_unknown` says why.
  std::optional<double> cpus_busy_seconds;
  std::string busy_unknown;
  // The hypervisor's: time those CPUs had work but the host ran something else (/proc/stat's
  // steal over the invocation; 0 on bare metal). Unknown when busy time is (busy_unknown).
  std::optional<double> steal_seconds;
  friend bool operator==(const RunQueue&, const RunQueue&) = default;
};

// The kernel's performance counters over one benchmark process tree (perf_event_open, inherited by
// every process and thread of the tree; probe/perf_counters.hpp), by key:
//   software: task_clock_ns, context_switches, cpu_migrations, minor_faults, major_faults
//   hardware: instructions, cycles, branch_misses, cache_misses
// A counter either has a count or a reason in `missing`, never a silent zero.
inline constexpr std::array<const char*, 9> kCounterKeys = {
    "task_clock_ns", "context_switches", "cpu_migrations", "minor_faults", "major_faults",
    "instructions",  "cycles",           "branch_misses",  "cache_misses"};
struct Counters {
  std::map<std::string, std::int64_t> counts;
  std::map<std::string, std::string> missing;  // key → why it could not be counted
  std::string multiplexed;  // the hardware group ran part of the time: its counts are scaled
  bool user_only = false;   // kernel.perf_event_paranoid allowed user space only
  std::optional<std::int64_t> count(const std::string& key) const {
    const auto it = counts.find(key);
    if (it == counts.end()) return std::nullopt;
    return it->second;
  }
  friend bool operator==(const Counters&, const Counters&) = default;
};

}  // namespace noisefloor::model
