// Reading what nf-probe printed inside a container, and proving the container's limits took
// effect: what the experiment asked for vs what the engine reports vs what the probe saw. Pure.
//
// Probe line format (harness/probe/nf_probe.cpp), on the container's stderr before the benchmark
// starts: `noisefloor-probe: <key>=<value>`, the last one `noisefloor-probe: exec=<path>`,
// optionally followed by `noisefloor-probe: exec failed: <errno text>`. A value the probe could
// not read is `unknown (<reason>)`. Keys: version, cpus_allowed, nproc, nprocs_onln,
// cgroup_version, cpuset_cpus, cfs_quota_us, cfs_period_us, memory_limit, memsw_limit (v1:
// memory+swap), swap_limit (v2: swap only), pids_max, uid, gomaxprocs_env, exec.
// "No limit" is -1 except v1 memory files, which hold a huge page-aligned number instead.
//
// After the benchmark exits (probe format 2), one block of `noisefloor-probe[<tag>]: <key>=<value>`
// lines, the tag being the one noisefloor passed with --tag: exit or signal, wall_ns (fork to
// wait4, monotonic), user_us, sys_us, maxrss_kib, nvcsw, nivcsw, noop_ns (comma-separated, with
// --noop-runs), cgroup_usage_ns, cgroup_periods, cgroup_throttled, cgroup_throttled_ns (deltas
// over the benchmark), sched_run_ns, sched_wait_ns (the benchmark's threads on a CPU and waiting
// in a run queue, summed from /proc/<pid>/task/<tid>/schedstat), sched_tasks, sched_reads,
// cpus_busy_ns (every task's time on the benchmark's CPUs over the run, from /proc/stat), steal_ns
// (the hypervisor's steal on those CPUs), oom_kills (the memory cgroup's OOM-kill count after the
// run: v2 memory.events, v1 memory.oom_control), ctr_<key> for every model::kCounterKeys key (a count, or
// `unknown (<why>)`), ctr_multiplexed=<note> and ctr_user_only=1 when they apply, end=1. A run
// stopped from outside (a signal to the probe, its watched stdin closed) has instead one tagged line:
// stopped=<why>.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/experiment.hpp"
#include "model/usage.hpp"

namespace noisefloor::probe {

struct ProbeReport {
  std::map<std::string, std::string> values;  // raw key → value; "exec failed:" → "exec_failed"
  std::map<std::string, std::string> after;   // the tagged block after the benchmark, raw
  std::string benchmark_stderr;               // the stderr with the probe lines removed
};

// Splits container stderr into probe values and the benchmark's own stderr. Probe lines are
// recognised up to and including the `exec=` line (and an `exec failed:` line right after it);
// after that, only lines tagged `noisefloor-probe[<tag>]: ` (with a non-empty `tag`) are the
// probe's; everything else belongs to the benchmark, even if it looks like a probe line. Throws
// ParseError ("probe: ...") for a malformed probe line or a key reported twice.
ProbeReport parse_probe_report(std::string_view container_stderr, std::string_view tag = {});

// The probe's account of the benchmark it started, from the tagged block.
struct ProbeRun {
  std::optional<int> exit_code;  // exactly one of exit_code and signal
  std::optional<int> signal;
  model::Usage usage;
  model::CgroupCpu cgroup;
  model::RunQueue run_queue;                // absent keys (an older probe): unknown
  std::optional<model::Counters> counters;  // nullopt: an older probe, which read none
  std::vector<double> noop_seconds;         // launcher overhead inside the container, one per no-op
  std::string noop_unknown;                 // why a no-op could not be timed
  // The container's memory cgroup OOM-kill count after the run; nullopt: unreadable, or an older
  // probe. The kernel's witness where the engine reports none (Podman on cgroup v1).
  std::optional<std::int64_t> oom_kills;
};

// nullopt when the block is absent or incomplete (no end=1: the probe did not finish, e.g. the
// container was killed). Throws ParseError for a value that is not what the key promises.
std::optional<ProbeRun> probe_run(const ProbeReport& report);

// Effective limits, from either side. nullopt: unknown. -1: no limit (for cfs_quota_us,
// memory_limit, memsw_limit, swap_limit, pids_max).
struct Effective {
  std::optional<std::string> cpuset;  // CPU list as reported ("0-1"); engine: HostConfig.CpusetCpus
  std::optional<std::int64_t> cfs_quota_us, cfs_period_us, memory_limit, memsw_limit, swap_limit, pids_max;
  std::optional<int> nproc;           // CPUs in the affinity mask (probe only)
  std::optional<int> cgroup_version;  // 1 or 2 (probe only)
  friend bool operator==(const Effective&, const Effective&) = default;
};

// From the probe's values: `unknown (...)` and missing keys become nullopt. Throws ParseError for
// a value that is neither a number (CPU list for cpuset) nor `unknown (...)`.
Effective effective_from_probe(const ProbeReport& report);

// From the limits the engine reports (docker::engine_limits): CpusetCpus as it is, NanoCpus (quota =
// NanoCpus × 100000 / 1e9 µs, period 100000) or CpuQuota/CpuPeriod (period 0 → 100000); no quota
// → cfs_quota_us -1 and no period. Memory 0 → -1. MemorySwap → memsw_limit (0 → nullopt unless
// Memory is 0 too, then -1), swap_limit = MemorySwap − Memory when both are positive. PidsLimit
// ≤0 → -1. nproc and cgroup_version stay nullopt. Throws ParseError for a NanoCpus no machine has.
Effective effective_from_engine(const model::EngineLimits& limits);

// Whether a view of a limit (the engine's, the container's own) agrees with what was asked.
enum class Agreement : std::uint8_t { yes, no, unknown };

// One finding of the check of a limit; limit_check_text says it.
struct LimitCheck {
  enum class Kind : std::uint8_t {
    differs,           // the engine's view (`engine`) or the container's (`inside` in `file`) is not `asked`
    not_a_cpu_list,    // the cpuset asked for is not a CPU list
    affinity_count,    // the affinity mask inside holds `actual` CPUs, `expected` asked for
    engine_unknown,    // the engine does not report the limit
    inside_unknown,    // the probe could not read `file` inside the container
    pages_rounded,     // the kernel rounded `expected` bytes down to whole `page`-byte pages: `actual`
    affinity_unknown,  // the probe could not count the CPUs in its affinity mask
    swap_undefined,    // memory_swap without memory on cgroup v2: the swap part is undefined
    swap_unreadable,   // `file` not readable inside: swap accounting is probably off
    no_probe,          // a named image runs without noisefloor's probe: the engine's side only
    said,              // a run.json's sentence, as it was written (`asked`)
  };
  Kind kind = Kind::said;
  std::string limit{};  // "cpuset", "cpus", "memory", "memory_swap", "pids_limit"
  std::string asked{};  // as asked, shown: "\"0\"", "1073741824 bytes"
  Agreement engine_agrees = Agreement::unknown, inside_agrees = Agreement::unknown;  // differs
  std::string engine{};  // the engine's view, shown
  std::string file{};    // the file read inside the container
  std::string inside{};  // its value, shown
  std::int64_t expected = 0, actual = 0, page = 0;
  friend bool operator==(const LimitCheck&, const LimitCheck&) = default;
};

struct Verification {
  std::vector<LimitCheck> mismatches;  // a limit did not take effect: the run is not trustworthy
  std::vector<LimitCheck> warnings;    // could not be checked, or checked with a caveat
  friend bool operator==(const Verification&, const Verification&) = default;
};

// A finding in words, e.g. "cpuset: asked for \"0\", the engine reports \"0\", but inside the
// container cpuset.cpus is \"0-1\"" (run.json keeps the words; a run's error says them).
std::string limit_check_text(const LimitCheck& check);
std::vector<std::string> limit_check_texts(const std::vector<LimitCheck>& checks);

// Compares each limit the experiment asked for with the engine's and the probe's view; one
// message per limit naming the values that disagree, e.g.
//   cpuset: asked for "0", the engine reports "0", but inside the container cpuset.cpus is "0-1"
// Rules: cpuset compared as CPU sets (and against the affinity count); cpus as quota/period
// within 1e-6; memory exactly, except that the kernel's rounding down to whole 4 KiB or 64 KiB
// pages is accepted with a warning; memory_swap: unset with memory set means Docker's default
// 2 × memory; v1 checks memory.memsw (total), v2 memory.swap.max (= memory_swap − memory); an
// unreadable swap file is a warning (swap accounting off), not a mismatch; pids_limit ≤ 0 means
// no limit. Values unknown on either side are warnings, never mismatches.
Verification verify_limits(const model::ContainerSpec& asked, const Effective& engine,
                           const Effective& inside);

// What `nf-probe --facts` printed: the files of the machine a host fingerprint reads, by absolute
// path, and the directories it listed. Throws ParseError on output that is not that framing, and
// on anything the probe never sends, since the output comes from another machine's engine and is
// laid out as files here: a path not under /proc or /sys, with an empty, "." or ".." component,
// a byte outside printable ASCII, longer than kFactPathLimit; a file over kFactFileLimit, more
// than kFactEntryLimit entries or kFactDumpLimit bytes in all.
inline constexpr std::size_t kFactPathLimit = 4096;
inline constexpr std::size_t kFactFileLimit = 256 * 1024;
inline constexpr std::size_t kFactEntryLimit = 100000;
inline constexpr std::size_t kFactDumpLimit = 17 * 1024 * 1024;
struct FactDump {
  std::map<std::string, std::string> files;
  std::vector<std::string> dirs;
};
FactDump parse_fact_dump(std::string_view out);

}  // namespace noisefloor::probe
