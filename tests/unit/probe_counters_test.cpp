// probe/perf_counters.hpp (the probe's own code, header-only) and the probe report's counters:
// every reason a counter can be missing, multiplexing, and real captures parsed.
#include <doctest/doctest.h>
#include <errno.h>

#include <fstream>
#include <sstream>
#include <string>

#include "probe/perf_counters.hpp"
#include "probe/probe_report.hpp"

using namespace noisefloor::probe;
using counters::Context;
using counters::why_unavailable;

namespace {

std::string capture(const std::string& name) {
  std::ifstream in(std::string(NF_TEST_DATA_DIR) + "/probe/" + name, std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

constexpr const char* kNoPmu =
    "no PMU: Performance Events: no PMU driver, software events only; the kernel has no hardware counter "
    "driver for this CPU, usual in a virtual machine without a virtual PMU";
constexpr const char* kSeccomp =
    "the container's seccomp profile refuses perf_event_open without CAP_PERFMON; ask for it with "
    "`perf_events: true` in the condition's container";

}  // namespace

TEST_CASE("counters: each reason perf_event_open gives, worded with its fix") {
  Context host;  // paranoid unreadable, on the host, no PMU device
  host.paranoid = 2;
  // No PMU: a hardware event on a kernel without a CPU PMU driver (this machine).
  CHECK(why_unavailable(ENOENT, true, host) == kNoPmu);
  CHECK(why_unavailable(EOPNOTSUPP, true, host) == kNoPmu);
  Context with_pmu = host;
  with_pmu.pmu_device = true;
  CHECK(why_unavailable(ENOENT, true, with_pmu) ==
        "the kernel does not count this event here: No such file or directory");
  // perf_event_paranoid refuses (EACCES), with the value and the fix.
  Context strict = host;
  strict.paranoid = 3;
  CHECK(why_unavailable(EACCES, false, strict) ==
        "kernel.perf_event_paranoid is 3: it refuses to count another process without CAP_PERFMON; run "
        "noisefloor as root or lower it (sysctl kernel.perf_event_paranoid=2)");
  CHECK(why_unavailable(EPERM, false, strict).rfind("kernel.perf_event_paranoid is 3: ", 0) == 0);
  // EPERM in a container: its seccomp profile, with the experiment key that grants CAP_PERFMON.
  Context container = host;
  container.in_container = true;
  CHECK(why_unavailable(EPERM, false, container) == kSeccomp);
  CHECK(why_unavailable(EPERM, true, container) == kSeccomp);
  // EPERM on the host with a permissive paranoid: something else forbids it.
  CHECK(why_unavailable(EPERM, false, host) ==
        "perf_event_open refused (EPERM): a seccomp profile or a security module forbids it");
  CHECK(why_unavailable(ENOSYS, false, host) ==
        "this kernel has no perf_event_open (built without CONFIG_PERF_EVENTS)");
  Context unreadable;
  CHECK(why_unavailable(EACCES, false, unreadable).rfind("kernel.perf_event_paranoid is unreadable: ", 0) ==
        0);
}

TEST_CASE("counters: a multiplexed group is scaled to its whole time and said so") {
  CHECK(counters::multiplexed_note(1000, 1000) == "");
  CHECK(counters::multiplexed_note(0, 0) == "");
  CHECK(counters::multiplexed_note(1000, 250) ==
        "multiplexed: the hardware group counted 25.0% of the time; its counts are scaled to the whole");
  std::uint64_t out = 0;
  CHECK(counters::scaled_count(300, 1000, 250, &out));
  CHECK(out == 1200);
  CHECK(counters::scaled_count(300, 1000, 1000, &out));
  CHECK(out == 300);
  CHECK(counters::scaled_count(0, 0, 0, &out));  // never enabled: the benchmark did not run
  CHECK(out == 0);
  CHECK_FALSE(counters::scaled_count(0, 1000, 0, &out));  // enabled, never on the PMU: no count
}

TEST_CASE("counters: a real host capture, software counted, hardware missing with the reason") {
  const auto run = probe_run(parse_probe_report(capture("v2-counters-host.txt"), "0123456789abcdef"));
  REQUIRE(run);
  REQUIRE(run->counters);
  const noisefloor::model::Counters& c = *run->counters;
  CHECK(c.counts.at("task_clock_ns") == 5574024);
  CHECK(c.counts.at("context_switches") == 22);
  CHECK(c.counts.at("cpu_migrations") == 4);
  CHECK(c.counts.at("minor_faults") == 431);
  CHECK(c.counts.at("major_faults") == 1);
  CHECK(c.counts.size() == 5);
  REQUIRE(c.missing.size() == 4);
  for (const char* key : {"instructions", "cycles", "branch_misses", "cache_misses"})
    CHECK(c.missing.at(key) == kNoPmu);
  CHECK(c.multiplexed.empty());
  CHECK_FALSE(c.user_only);
  CHECK(run->usage.minor_faults == 438);
  CHECK(run->usage.major_faults == 1);
  CHECK(run->usage.voluntary_switches == 23);
  CHECK(run->run_queue.migrations == 1);
  CHECK(run->run_queue.steal_seconds == 0.0);
}

TEST_CASE("counters: a real container capture, every counter refused by seccomp, the rest read") {
  const auto run = probe_run(parse_probe_report(capture("v2-counters-container.txt"), "0123456789abcdef"));
  REQUIRE(run);
  REQUIRE(run->counters);
  CHECK(run->counters->counts.empty());
  CHECK(run->counters->missing.size() == noisefloor::model::kCounterKeys.size());
  for (const auto& [key, why] : run->counters->missing) CHECK(why == kSeccomp);
  CHECK(run->run_queue.migrations == 0);  // --cpuset-cpus 0: one CPU, no move
  CHECK(run->usage.minor_faults == 105);
  CHECK(run->cgroup.throttled_periods == 2);
  REQUIRE(run->cgroup.throttled_seconds);
  CHECK(*run->cgroup.throttled_seconds == doctest::Approx(0.15990913));
}

TEST_CASE("counters: an older probe's block has none, and says nothing it did not read") {
  const auto run = probe_run(parse_probe_report(capture("v1-result-throttled.txt"), "5f0c2a9d3b7e4c11"));
  REQUIRE(run);
  CHECK_FALSE(run->counters);
  CHECK_FALSE(run->usage.minor_faults);
  CHECK_FALSE(run->run_queue.migrations);
  CHECK_FALSE(run->run_queue.steal_seconds);
}
