// How many CPUs this process can keep busy at once: what sizes its worker pools (the store's
// publishes, for one). Host CPUs are the wrong answer inside a container: a cpuset leaves fewer,
// and a CPU quota (docker run --cpus 1.5 on a 64-CPU host) lets the process run only so much.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace noisefloor::process {

// The CPUs of this process's affinity mask (a cpuset): where its unpinned children may run; the
// online count when the mask cannot be read; at least 1. I/O.
int affinity_cpus();

// The CPUs of this process's affinity mask (a cpuset), bounded by the CPU quota of its cgroup and
// of every cgroup above it (cgroup v2 cpu.max, v1 cpu.cfs_quota_us / cpu.cfs_period_us), rounded
// up; at least 1. I/O: reads /proc/self/cgroup and the cgroup files.
int usable_cpus();

// ---- the pure parts ----

// The cgroup directory of the CPU controller in the text of /proc/self/cgroup: v1's line whose
// controllers include "cpu" ("4:cpu,cpuacct:/docker/1f"), else v2's "0::/user.slice". nullopt when
// there is neither. `controllers` receives v1's controller list ("cpu,cpuacct"), "" for v2.
std::optional<std::string> cpu_cgroup(std::string_view proc_self_cgroup, std::string& controllers);

// cgroup v2's cpu.max ("150000 100000": 1.5 CPUs; "max 100000": no limit) in CPUs; nullopt when
// there is no limit or the text is not that.
std::optional<double> cpu_max_limit(std::string_view cpu_max);

// cgroup v1's quota and period files (quota -1: no limit) in CPUs; nullopt when there is no limit
// or the text is not that.
std::optional<double> cfs_limit(std::string_view quota_us, std::string_view period_us);

}  // namespace noisefloor::process
