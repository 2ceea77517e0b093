#include "probe/probe_report.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "docker/api.hpp"
#include "model/errors.hpp"
#include "records/run.hpp"

using noisefloor::ParseError;
using noisefloor::model::ContainerSpec;
using namespace noisefloor::probe;

namespace {

// What the engine's inspect answer says is in effect: docker/ reads it, probe/ says what it means.
Effective engine_of(const nlohmann::json& inspect) {
  return effective_from_engine(noisefloor::docker::engine_limits(inspect));
}

}  // namespace

namespace {

std::string read_probe_file(const std::string& name) {
  const std::string path = std::string(NF_TEST_DATA_DIR) + "/probe/" + name;
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot open " << path);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

Effective inside_of(const std::string& file) {
  return effective_from_probe(parse_probe_report(read_probe_file(file)));
}

nlohmann::json pinned_inspect() { return nlohmann::json::parse(read_probe_file("inspect-pinned.json")); }

// What the v1-pinned capture asked for: --cpuset-cpus=0 --cpus=1 --memory=512m, no pids limit.
ContainerSpec pinned_spec() {
  ContainerSpec spec;
  spec.cpuset = "0";
  spec.cpus = 1.0;
  spec.memory = 536870912;
  spec.pids_limit = 0;
  return spec;
}

using Strings = std::vector<std::string>;

}  // namespace

TEST_CASE("probe report: a real v1 capture, every key exact") {
  const ProbeReport report = parse_probe_report(read_probe_file("v1-pinned.txt"));
  const std::map<std::string, std::string> expected = {{"version", "1"},
                                                       {"cpus_allowed", "0"},
                                                       {"nproc", "1"},
                                                       {"nprocs_onln", "2"},
                                                       {"cgroup_version", "1"},
                                                       {"cpuset_cpus", "0"},
                                                       {"cfs_quota_us", "100000"},
                                                       {"cfs_period_us", "100000"},
                                                       {"memory_limit", "536870912"},
                                                       {"memsw_limit", "1073741824"},
                                                       {"pids_max", "-1"},
                                                       {"uid", "65534"},
                                                       {"gomaxprocs_env", "unset"},
                                                       {"exec", "/bench/true"}};
  CHECK(report.values == expected);
  CHECK(report.benchmark_stderr == "");
}

TEST_CASE("probe report: a real exec failure keeps the errno text") {
  const ProbeReport report = parse_probe_report(read_probe_file("v1-exec-failed.txt"));
  CHECK(report.values.at("exec") == "/bench/missing");
  CHECK(report.values.at("exec_failed") == "No such file or directory");
  CHECK(report.values.at("gomaxprocs_env") == "1");
  CHECK(report.values.at("pids_max") == "1024");
  CHECK(report.values.size() == 15);
  CHECK(report.benchmark_stderr == "");
}

TEST_CASE("probe report: the benchmark's stderr is kept, probe-looking lines after exec too") {
  const std::string text = read_probe_file("v1-memswap-pids.txt") +
                           "goos: linux\n"
                           "noisefloor-probe: nproc=99\n"
                           "last line without newline";
  const ProbeReport report = parse_probe_report(text);
  CHECK(report.values.at("nproc") == "2");
  CHECK(report.values.at("memsw_limit") == "67108864");
  CHECK(report.benchmark_stderr == "goos: linux\nnoisefloor-probe: nproc=99\nlast line without newline");
}

TEST_CASE("probe report: stray lines before exec belong to the benchmark stream") {
  const ProbeReport report =
      parse_probe_report("noisefloor-probe: nproc=2\nwarning: x\nnoisefloor-probe: exec=/b\n");
  CHECK(report.values == std::map<std::string, std::string>{{"nproc", "2"}, {"exec", "/b"}});
  CHECK(report.benchmark_stderr == "warning: x\n");
  CHECK(parse_probe_report("").values.empty());
}

TEST_CASE("probe report: malformed probe lines and repeated keys throw ParseError") {
  CHECK_THROWS_WITH_AS(parse_probe_report("noisefloor-probe: nproc=1\nnoisefloor-probe: garbage\n"),
                       "probe: line 2: expected 'noisefloor-probe: <key>=<value>', got "
                       "'noisefloor-probe: garbage'",
                       ParseError);
  CHECK_THROWS_WITH_AS(parse_probe_report("noisefloor-probe: nproc=1\nnoisefloor-probe: nproc=2\n"),
                       "probe: line 2: key 'nproc' reported twice", ParseError);
}

TEST_CASE("effective from probe: real v1 captures") {
  Effective pinned;
  pinned.cpuset = "0";
  pinned.cfs_quota_us = 100000;
  pinned.cfs_period_us = 100000;
  pinned.memory_limit = 536870912;
  pinned.memsw_limit = 1073741824;
  pinned.pids_max = -1;
  pinned.nproc = 1;
  pinned.cgroup_version = 1;
  CHECK(inside_of("v1-pinned.txt") == pinned);

  const Effective unlimited = inside_of("v1-unlimited.txt");
  CHECK(unlimited.cpuset == "0-1");
  CHECK(unlimited.cfs_quota_us == -1);
  CHECK(unlimited.memory_limit == 9223372036854771712);
  CHECK(unlimited.memsw_limit == 9223372036854771712);
  CHECK_FALSE(unlimited.swap_limit.has_value());
  CHECK(unlimited.nproc == 2);
}

TEST_CASE("effective from probe: unknown values are nullopt, garbage throws") {
  ProbeReport report;
  report.values = {{"memory_limit", "unknown (Permission denied)"},
                   {"cpuset_cpus", "unknown (No such file or directory)"},
                   {"nproc", "1"}};
  const Effective e = effective_from_probe(report);
  CHECK_FALSE(e.memory_limit.has_value());
  CHECK_FALSE(e.cpuset.has_value());
  CHECK(e.nproc == 1);

  report.values = {{"memory_limit", "512m"}};
  CHECK_THROWS_WITH_AS(effective_from_probe(report),
                       "probe: memory_limit: expected an integer or 'unknown (...)', got '512m'", ParseError);
  report.values = {{"cpuset_cpus", "0-"}};
  CHECK_THROWS_AS(effective_from_probe(report), ParseError);
  report.values = {{"cgroup_version", "3"}};
  CHECK_THROWS_WITH_AS(effective_from_probe(report), "probe: cgroup_version: expected 1 or 2, got 3",
                       ParseError);
}

TEST_CASE("effective from engine: the real inspect of the pinned container") {
  Effective expected;
  expected.cpuset = "0";
  expected.cfs_quota_us = 100000;  // NanoCpus 1000000000 × 100000 / 1e9
  expected.cfs_period_us = 100000;
  expected.memory_limit = 536870912;
  expected.memsw_limit = 1073741824;  // Docker's default 2 × Memory
  expected.swap_limit = 536870912;
  expected.pids_max = -1;  // PidsLimit null
  CHECK(engine_of(pinned_inspect()) == expected);
  CHECK(nlohmann::json(expected).get<Effective>() == expected);  // and back, as run.json stores it
  CHECK(nlohmann::json(expected) == nlohmann::json{{"cpuset", "0"},
                                                   {"cfs_quota_us", 100000},
                                                   {"cfs_period_us", 100000},
                                                   {"memory_limit", 536870912},
                                                   {"memsw_limit", 1073741824},
                                                   {"swap_limit", 536870912},
                                                   {"pids_max", -1},
                                                   {"nproc", nullptr},
                                                   {"cgroup_version", nullptr}});
}

TEST_CASE("effective from engine: CpuQuota/CpuPeriod, unlimited and malformed") {
  const auto e = engine_of(nlohmann::json::parse(
      R"({"HostConfig":{"CpusetCpus":"","NanoCpus":0,"CpuQuota":50000,"CpuPeriod":0,
          "Memory":0,"MemorySwap":0,"PidsLimit":-1}})"));
  CHECK_FALSE(e.cpuset.has_value());
  CHECK(e.cfs_quota_us == 50000);
  CHECK(e.cfs_period_us == 100000);
  CHECK(e.memory_limit == -1);
  CHECK(e.memsw_limit == -1);
  CHECK(e.pids_max == -1);

  const auto fractional =
      engine_of(nlohmann::json::parse(R"({"HostConfig":{"NanoCpus":1500000000,"PidsLimit":1024}})"));
  CHECK(fractional.cfs_quota_us == 150000);
  CHECK(fractional.cfs_period_us == 100000);
  CHECK(fractional.pids_max == 1024);
  CHECK(fractional.cfs_quota_us.value() == 150000);

  const auto none = engine_of(nlohmann::json::parse(R"({"HostConfig":{}})"));
  CHECK(none.cfs_quota_us == -1);
  CHECK_FALSE(none.cfs_period_us.has_value());

  CHECK_THROWS_WITH_AS(engine_of(nlohmann::json::parse(R"({"Id":"x"})")),
                       "inspect: missing object 'HostConfig'", ParseError);
  CHECK_THROWS_WITH_AS(engine_of(nlohmann::json::parse(R"({"HostConfig":{"Memory":"512m"}})")),
                       "inspect: HostConfig.Memory: expected an integer, got \"512m\"", ParseError);
  // A lying engine (issue 42): NanoCpus × 100000 overflowed 64 bits (undefined behaviour); a string
  // of bytes that are not UTF-8 made the message itself throw nlohmann's type_error.
  CHECK_THROWS_WITH_AS(engine_of(nlohmann::json::parse(R"({"HostConfig":{"NanoCpus":9223372036854775807}})")),
                       "inspect: HostConfig.NanoCpus: 9223372036854775807 is more CPUs than a machine has",
                       ParseError);
  nlohmann::json bad_bytes;
  bad_bytes["HostConfig"]["CpusetCpus"] =
      nlohmann::json::array({std::string("\xff\x9b") + std::string(50, 'x')});
  CHECK_THROWS_WITH_AS(engine_of(bad_bytes),
                       "inspect: HostConfig.CpusetCpus: expected a string, got "
                       "[\"\xef\xbf\xbd\xef\xbf\xbdxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…",
                       ParseError);
}

TEST_CASE("verify: the real pinned run matches what was asked") {
  const Verification v =
      verify_limits(pinned_spec(), engine_of(pinned_inspect()), inside_of("v1-pinned.txt"));
  CHECK(limit_check_texts(v.mismatches) == Strings{});
  CHECK(limit_check_texts(v.warnings) == Strings{});
}

TEST_CASE("verify: the real memory+swap+pids run matches what was asked") {
  ContainerSpec spec;
  spec.memory = 64 * 1024 * 1024;
  spec.memory_swap = 64 * 1024 * 1024;
  spec.pids_limit = 50;
  const Effective engine = engine_of(nlohmann::json::parse(
      R"({"HostConfig":{"CpusetCpus":"","NanoCpus":0,"Memory":67108864,"MemorySwap":67108864,
          "PidsLimit":50}})"));
  const Verification v = verify_limits(spec, engine, inside_of("v1-memswap-pids.txt"));
  CHECK(limit_check_texts(v.mismatches) == Strings{});
  CHECK(limit_check_texts(v.warnings) == Strings{});
}

TEST_CASE("verify: limits the engine accepted but the container does not have") {
  // The engine reports the pinned settings, but the probe ran in an unlimited container.
  const Verification v =
      verify_limits(pinned_spec(), engine_of(pinned_inspect()), inside_of("v1-unlimited.txt"));
  CHECK(limit_check_texts(v.mismatches) ==
        Strings{"cpuset: asked for \"0\", the engine reports \"0\", but inside the container "
                "cpuset.cpus is \"0-1\"",
                "cpuset: asked for \"0\" (1 CPU), but inside the container the affinity mask holds 2 "
                "CPUs",
                "cpus: asked for 1, the engine reports a quota of 100000 µs per 100000 µs, but inside "
                "the container cpu.cfs_quota_us/cpu.cfs_period_us is -1/100000 (no limit)",
                "memory: asked for 536870912 bytes, the engine reports 536870912, but inside the "
                "container memory.limit_in_bytes is 9223372036854771712 (no limit)",
                "memory_swap: asked for 1073741824 bytes (Docker's default, 2 × memory), the engine "
                "reports 1073741824, but inside the container memory.memsw.limit_in_bytes is "
                "9223372036854771712 (no limit)"});
  CHECK(limit_check_texts(v.warnings) == Strings{});
}

TEST_CASE("verify: a cpuset the engine dropped (inside shows all CPUs)") {
  nlohmann::json inspect = pinned_inspect();
  inspect["HostConfig"]["CpusetCpus"] = "";  // how a discarded cpuset shows in inspect
  ContainerSpec spec;
  spec.cpuset = "0";
  spec.pids_limit = 0;
  const Verification v = verify_limits(spec, engine_of(inspect), inside_of("v1-unlimited.txt"));
  CHECK(limit_check_texts(v.mismatches) ==
        Strings{"cpuset: asked for \"0\", the engine reports no cpuset, and inside the container "
                "cpuset.cpus is \"0-1\"",
                "cpuset: asked for \"0\" (1 CPU), but inside the container the affinity mask "
                "holds 2 CPUs"});
  CHECK(limit_check_texts(v.warnings) == Strings{});
}

TEST_CASE("verify: cpusets are compared as sets, not as text") {
  ContainerSpec spec = pinned_spec();  // (a fresh spec trips GCC 12's -Wmaybe-uninitialized)
  spec.cpuset = "0,1";
  spec.cpus.reset();
  spec.memory.reset();
  const Verification v =
      verify_limits(spec, engine_of(nlohmann::json::parse(R"({"HostConfig":{"CpusetCpus":"1,0"}})")),
                    inside_of("v1-unlimited.txt"));  // "0-1", nproc 2
  CHECK(limit_check_texts(v.mismatches) == Strings{});
  CHECK(limit_check_texts(v.warnings) == Strings{});
}

TEST_CASE("verify: a memory limit that differs on both sides") {
  ContainerSpec spec;
  spec.memory = 268435456;
  spec.memory_swap = 268435456;
  spec.pids_limit = 0;
  const Verification v = verify_limits(spec, engine_of(pinned_inspect()), inside_of("v1-pinned.txt"));
  CHECK(limit_check_texts(v.mismatches) ==
        Strings{"memory: asked for 268435456 bytes, the engine reports 536870912, and inside the "
                "container memory.limit_in_bytes is 536870912",
                "memory_swap: asked for 268435456 bytes, the engine reports 1073741824, and "
                "inside the container memory.memsw.limit_in_bytes is 1073741824"});
  CHECK(limit_check_texts(v.warnings) == Strings{});
}

TEST_CASE("verify: the kernel's page rounding is accepted with a warning") {
  ContainerSpec spec;
  spec.memory = 100000000;  // not a multiple of 4096: the kernel keeps 99999744
  spec.memory_swap = -1;
  spec.pids_limit = 0;
  Effective engine;
  engine.memory_limit = 100000000;
  engine.memsw_limit = -1;
  engine.pids_max = -1;
  Effective inside;
  inside.cgroup_version = 1;
  inside.memory_limit = 99999744;
  inside.memsw_limit = 9223372036854771712;
  inside.pids_max = -1;
  const Verification v = verify_limits(spec, engine, inside);
  CHECK(limit_check_texts(v.mismatches) == Strings{});
  CHECK(limit_check_texts(v.warnings) ==
        Strings{"memory: asked for 100000000 bytes; inside the container "
                "memory.limit_in_bytes is 99999744: the kernel rounded it down to "
                "whole 4096-byte pages"});
}

TEST_CASE("verify: the (fabricated) cgroup v2 sample") {
  ContainerSpec spec = pinned_spec();
  spec.pids_limit = 1024;
  nlohmann::json inspect = pinned_inspect();
  inspect["HostConfig"]["PidsLimit"] = 1024;
  const Effective inside = inside_of("v2-pinned.txt");
  CHECK(inside.cgroup_version == 2);
  CHECK(inside.swap_limit == 536870912);
  CHECK_FALSE(inside.memsw_limit.has_value());
  const Verification ok = verify_limits(spec, engine_of(inspect), inside);
  CHECK(limit_check_texts(ok.mismatches) == Strings{});
  CHECK(limit_check_texts(ok.warnings) == Strings{});

  // v2 swap.max is swap alone: asking memory_swap == memory means swap.max 0.
  spec.memory_swap = 536870912;
  inspect["HostConfig"]["MemorySwap"] = 536870912;
  Effective quota_dropped = inside;
  quota_dropped.cfs_quota_us = -1;
  const Verification bad = verify_limits(spec, engine_of(inspect), quota_dropped);
  CHECK(limit_check_texts(bad.mismatches) ==
        Strings{"cpus: asked for 1, the engine reports a quota of 100000 µs per 100000 µs, but "
                "inside the container cpu.max is \"max 100000\" (no limit)",
                "memory_swap: asked for 536870912 bytes, the engine reports 536870912, but inside "
                "the container memory.swap.max is 536870912 (expected 0 = memory_swap − memory)"});
  CHECK(limit_check_texts(bad.warnings) == Strings{});
}

TEST_CASE("verify: unknown values are warnings, not mismatches") {
  ContainerSpec spec = pinned_spec();
  ProbeReport report = parse_probe_report(read_probe_file("v1-pinned.txt"));
  report.values["cpuset_cpus"] = "unknown (No such file or directory)";
  report.values["memory_limit"] = "unknown (Permission denied)";
  report.values["memsw_limit"] = "unknown (No such file or directory)";
  report.values["nproc"] = "unknown (Invalid argument)";
  const Verification v = verify_limits(spec, engine_of(pinned_inspect()), effective_from_probe(report));
  CHECK(limit_check_texts(v.mismatches) == Strings{});
  CHECK(limit_check_texts(v.warnings) ==
        Strings{"cpuset: asked for \"0\", but the probe could not read cpuset.cpus inside the "
                "container (see the probe's 'unknown' value)",
                "cpuset: asked for \"0\", but the probe could not count the CPUs in its affinity "
                "mask",
                "memory: asked for 536870912 bytes, but the probe could not read "
                "memory.limit_in_bytes inside the container (see the probe's 'unknown' value)",
                "memory_swap: asked for 1073741824 bytes (Docker's default, 2 × memory), but "
                "memory.memsw.limit_in_bytes is not readable inside the container: swap "
                "accounting is probably off, so swap is not limited"});
}

TEST_CASE("verify: no probe output at all leaves only warnings") {
  const Verification v = verify_limits(pinned_spec(), engine_of(pinned_inspect()), Effective{});
  CHECK(limit_check_texts(v.mismatches) == Strings{});
  CHECK(v.warnings.size() == 6);
}

TEST_CASE("verify: a pids limit the engine lost") {
  ContainerSpec spec;  // pids_limit defaults to 1024
  const Verification v = verify_limits(spec, engine_of(pinned_inspect()), inside_of("v1-pinned.txt"));
  CHECK(limit_check_texts(v.mismatches) ==
        Strings{"pids_limit: asked for 1024, the engine reports -1 (no limit), "
                "and inside the container pids.max is max (no limit)"});
}

// ---- probe format 2: the block after the benchmark (real captures, tests/data/probe/README.md) ----

TEST_CASE("probe report: a throttled benchmark's block, every figure exact") {
  const std::string text = read_probe_file("v1-result-throttled.txt");
  const ProbeReport report = parse_probe_report(text, "5f0c2a9d3b7e4c11");
  CHECK(report.values.at("version") == "2");
  CHECK(report.values.at("exec") == "/bench/burn");
  CHECK(report.benchmark_stderr.empty());  // every line was the probe's
  const auto run = probe_run(report);
  REQUIRE(run.has_value());
  CHECK(run->exit_code == 0);
  CHECK_FALSE(run->signal.has_value());
  CHECK(run->usage.wall_seconds == 1489158130 / 1e9);
  CHECK(run->usage.user_seconds == 290262 / 1e6);
  CHECK(run->usage.system_seconds == 11767 / 1e6);
  CHECK(run->usage.max_rss_kib == 640);
  CHECK(run->usage.voluntary_switches == 1);
  CHECK(run->usage.involuntary_switches == 26);
  CHECK(*run->cgroup.usage_seconds == 303637563 / 1e9);
  CHECK(*run->cgroup.periods == 15);
  CHECK(*run->cgroup.throttled_periods == 15);
  CHECK(*run->cgroup.throttled_seconds == 1184615488 / 1e9);
  CHECK(run->cgroup.throttled());
  CHECK(run->cgroup.unknown.empty());
  CHECK(run->noop_seconds.empty());  // no --noop-runs
}

TEST_CASE("probe report: run-queue delay on the host, real captures against known truth") {
  // nf-burn 0.3 beside a busy loop on its one CPU: half its runnable time in the run queue, and
  // its CPU busy for the whole 0.6 s (the loop had the other half).
  const auto starved =
      probe_run(parse_probe_report(read_probe_file("host-result-starved.txt"), "a1b2c3d4e5f60718"));
  REQUIRE(starved.has_value());
  CHECK(*starved->run_queue.run_seconds == 301238010 / 1e9);
  CHECK(*starved->run_queue.wait_seconds == 303604333 / 1e9);
  CHECK(starved->run_queue.tasks == 1);
  CHECK(starved->run_queue.reads == 6);
  CHECK(starved->run_queue.unknown.empty());
  CHECK(*starved->run_queue.cpus_busy_seconds == 0.6);
  CHECK(starved->run_queue.busy_unknown.empty());
  // Three processes (the burn and two children, found through the tree) beside the loop: each
  // waits 3/4 of the time (four runnable tasks on one CPU; the last part of a child that exited
  // between two reads is lost, so run 0.554 s is below the tree's rusage of 0.603 s).
  const auto tree =
      probe_run(parse_probe_report(read_probe_file("host-result-starved-tree.txt"), "b1b2c3d4e5f60718"));
  REQUIRE(tree.has_value());
  CHECK(tree->run_queue.tasks == 3);
  CHECK(*tree->run_queue.run_seconds == 553888711 / 1e9);
  CHECK(*tree->run_queue.wait_seconds == 1660375691 / 1e9);
  CHECK(*tree->run_queue.cpus_busy_seconds == 0.81);
  CHECK(tree->usage.cpu_seconds() == doctest::Approx(0.603267));
  // Alone on its CPU: 0.87 ms.
  const auto quiet =
      probe_run(parse_probe_report(read_probe_file("host-result-quiet.txt"), "c1b2c3d4e5f60718"));
  REQUIRE(quiet.has_value());
  CHECK(*quiet->run_queue.wait_seconds == 874763 / 1e9);
  CHECK(*quiet->run_queue.cpus_busy_seconds == 0.3);
  // Its own processes for each other, nothing else running: nf-burn 0.4 with two children of
  // 0.1 s on CPUs 0-1 (three tasks on two CPUs for a while) waited 0.106 s, and its CPUs were
  // busy 0.61 s, its own 0.604 s.
  const auto own =
      probe_run(parse_probe_report(read_probe_file("host-result-own-threads.txt"), "d1b2c3d4e5f60718"));
  REQUIRE(own.has_value());
  CHECK(*own->run_queue.wait_seconds == 106006169 / 1e9);
  CHECK(*own->run_queue.run_seconds == 603783678 / 1e9);
  CHECK(*own->run_queue.cpus_busy_seconds == 0.61);
  // An older probe (no sched keys): unknown, with the reason.
  const auto old =
      probe_run(parse_probe_report(read_probe_file("v1-result-throttled.txt"), "5f0c2a9d3b7e4c11"));
  REQUIRE(old.has_value());
  CHECK_FALSE(old->run_queue.run_seconds.has_value());
  CHECK(old->run_queue.unknown == "the probe is older than run-queue accounting");
  CHECK_FALSE(old->run_queue.cpus_busy_seconds.has_value());
  CHECK(old->run_queue.busy_unknown == "the probe is older than busy-time accounting");
  // A kernel that does not account it.
  std::string text = read_probe_file("host-result-quiet.txt");
  for (const char* key : {"sched_run_ns=301002571", "sched_wait_ns=874763", "cpus_busy_ns=300000000"}) {
    const std::string k = key;
    REQUIRE(text.find(k) != std::string::npos);
    text.replace(text.find(k), k.size(), k.substr(0, k.find('=') + 1) + "unknown (no schedstat)");
  }
  const auto none = probe_run(parse_probe_report(text, "c1b2c3d4e5f60718"));
  REQUIRE(none.has_value());
  CHECK_FALSE(none->run_queue.wait_seconds.has_value());
  CHECK(none->run_queue.unknown == "unknown (no schedstat)");
  CHECK_FALSE(none->run_queue.cpus_busy_seconds.has_value());
  CHECK(none->run_queue.busy_unknown == "unknown (no schedstat)");
}

TEST_CASE("probe report: the no-ops, a signal, an exec failure") {
  const auto noop = probe_run(parse_probe_report(read_probe_file("v1-result-noop.txt"), "0123456789abcdef"));
  REQUIRE(noop.has_value());
  CHECK(noop->noop_seconds == std::vector<double>{810657 / 1e9, 182705 / 1e9, 287685 / 1e9});
  CHECK_FALSE(noop->cgroup.throttled());

  const auto signal =
      probe_run(parse_probe_report(read_probe_file("v1-result-signal.txt"), "00000000deadbeef"));
  REQUIRE(signal.has_value());
  CHECK(signal->signal == 6);
  CHECK_FALSE(signal->exit_code.has_value());

  const ProbeReport failed =
      parse_probe_report(read_probe_file("v1-result-exec-failed.txt"), "1111111111111111");
  CHECK(failed.values.at("exec_failed") == "No such file or directory");
  CHECK_FALSE(probe_run(failed).has_value());
}

TEST_CASE("probe report: only the right tag is the probe's; a block cut short is no account") {
  const std::string text = read_probe_file("v1-result-throttled.txt");
  // Another tag (a nested noisefloor, a benchmark echoing lines): the benchmark's stderr.
  const ProbeReport other = parse_probe_report(text, "ffffffffffffffff");
  CHECK_FALSE(probe_run(other).has_value());
  CHECK(other.benchmark_stderr.find("noisefloor-probe[5f0c2a9d3b7e4c11]: wall_ns=1489158130\n") !=
        std::string::npos);
  // Without end=1 (the container was killed before the probe finished): nothing is made up.
  const std::string cut = text.substr(0, text.find("noisefloor-probe[5f0c2a9d3b7e4c11]: end=1"));
  CHECK_FALSE(probe_run(parse_probe_report(cut, "5f0c2a9d3b7e4c11")).has_value());
  // A figure that is not a number is an error naming it.
  std::string bad = text;
  bad.replace(bad.find("wall_ns=1489158130"), 18, "wall_ns=soon");
  CHECK_THROWS_WITH_AS(probe_run(parse_probe_report(bad, "5f0c2a9d3b7e4c11")),
                       "probe: wall_ns: expected an integer or 'unknown (...)', got 'soon'", ParseError);
  // Benchmark output between the header and the block stays the benchmark's.
  std::string mixed = text;
  mixed.insert(mixed.find("noisefloor-probe[5f0c2a9d3b7e4c11]: exit=0"), "warming up\n");
  const ProbeReport m = parse_probe_report(mixed, "5f0c2a9d3b7e4c11");
  CHECK(m.benchmark_stderr == "warming up\n");
  CHECK(probe_run(m).has_value());
}

TEST_CASE("probe facts: the framing of nf-probe --facts, read back exactly") {
  using noisefloor::probe::parse_fact_dump;
  const std::string out =
      "file /proc/loadavg 26\n0.52 0.58 0.59 1/123 4567\n\ndir /sys/devices/system/cpu\n"
      "file /sys/devices/system/cpu/online 4\n0-1\n\nfile /proc/cmdline 0\n\n";
  const auto dump = parse_fact_dump(out);
  CHECK(dump.files.size() == 3);
  CHECK(dump.files.at("/proc/loadavg") == "0.52 0.58 0.59 1/123 4567\n");
  CHECK(dump.files.at("/sys/devices/system/cpu/online") == "0-1\n");
  CHECK(dump.files.at("/proc/cmdline").empty());
  CHECK(dump.dirs == std::vector<std::string>{"/sys/devices/system/cpu"});
  CHECK(parse_fact_dump("").files.empty());
  // content with newlines and a "file" look-alike inside is taken by its length
  CHECK(parse_fact_dump("file /proc/a 15\nfile /proc/b 1\n\n").files.at("/proc/a") == "file /proc/b 1\n");
  CHECK_THROWS_WITH(
      parse_fact_dump("file /proc/a 5\nabc\n"),
      "the fingerprint probe's output is malformed at byte 0: the content of /proc/a is cut short");
  CHECK_THROWS_WITH(
      parse_fact_dump("junk\n"),
      "the fingerprint probe's output is malformed at byte 0: expected `file <path> <size>` or `dir <path>`");
  CHECK_THROWS_WITH(parse_fact_dump("file /a x\n"),
                    "the fingerprint probe's output is malformed at byte 0: a bad file size");
  CHECK_THROWS_WITH(parse_fact_dump("dir /a"),
                    "the fingerprint probe's output is malformed at byte 0: an unterminated line");
}

TEST_CASE("probe facts: a doctored dump cannot name a path outside /proc and /sys or climb out") {
  // The output comes from another machine's engine and is laid out as files here: the issue's
  // proxy appended one such line and noisefloor wrote outside its temporary tree, as root.
  using noisefloor::probe::parse_fact_dump;
  const std::string good = "file /proc/loadavg 4\n0.5\n\n";
  const auto refused = [&](const std::string& extra) {
    try {
      parse_fact_dump(good + extra);
    } catch (const ParseError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const std::string at = "the fingerprint probe's output is malformed at byte 26: ";
  CHECK(refused("file /proc/../../tmp/pwned 3\nabc\n") ==
        at + "a path with an empty, '.' or '..' component: \"/proc/../../tmp/pwned\"");
  CHECK(refused("dir /sys/../../etc/cron.d\n") ==
        at + "a path with an empty, '.' or '..' component: \"/sys/../../etc/cron.d\"");
  CHECK(refused("file /etc/passwd 1\nx\n") == at + "a path outside /proc and /sys: \"/etc/passwd\"");
  CHECK(refused("file /root/.ssh/authorized_keys 1\nx\n") ==
        at + "a path outside /proc and /sys: \"/root/.ssh/authorized_keys\"");
  CHECK(refused("file /proc//x 1\nx\n") == at + "a path with an empty, '.' or '..' component: \"/proc//x\"");
  CHECK(refused("file /proc/./x 1\nx\n") ==
        at + "a path with an empty, '.' or '..' component: \"/proc/./x\"");
  CHECK(refused("file /proc/x/ 1\nx\n") == at + "a path with an empty, '.' or '..' component: \"/proc/x/\"");
  CHECK(refused("file /proc/a\x1b]52;c;aGk=\x07 1\nx\n") ==
        at + "a path with a space, a control or a non-ASCII byte: \"/proc/a\\x1b]52;c;aGk=\\x07\"");
  CHECK(refused("file /proc/" + std::string(5000, 'a') + " 1\nx\n")
            .starts_with(at + "a path longer than 4096 bytes: \"/proc/aaa"));
  CHECK(refused("file /proc/big 262145\n" + std::string(262145, 'x') + "\n") ==
        at + "/proc/big is larger than 256 KiB (the probe sends no larger file)");
  std::string many;
  for (int i = 0; i <= 100000; ++i) many += "dir /sys/d" + std::to_string(i) + "\n";
  CHECK(refused(many).find("more than 100000 files and directories") != std::string::npos);
  CHECK_THROWS_WITH(
      parse_fact_dump(std::string(17 * 1024 * 1024 + 1, '\n')),
      "the fingerprint probe's output is malformed at byte 0: more than 17 MiB (the probe sends at most "
      "16 MiB of files)");
  // What the probe does send passes: deep sysfs paths, names with ':' ',' '-' '_'.
  CHECK(parse_fact_dump(
            good +
            "file /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 12\nperformance\n\n"
            "dir /sys/devices/system/node/node0\nfile /sys/class/power_supply/AC:1,x-y_z/online 2\n1\n\n")
            .files.size() == 3);
}

TEST_CASE("probe report: an OOM kill Podman did not report, counted by the memory cgroup (real captures)") {
  // podman-v1-oom.txt: a 16 MiB container whose benchmark allocated until the kernel killed it.
  const auto oom = probe_run(parse_probe_report(read_probe_file("podman-v1-oom.txt"), "00000000000000aa"));
  REQUIRE(oom.has_value());
  CHECK(oom->signal == 9);
  CHECK(oom->oom_kills == 1);
  // podman-v1-hello.txt: the same container, a benchmark that prints a line and exits: none.
  const auto fine = probe_run(parse_probe_report(read_probe_file("podman-v1-hello.txt"), "00000000000000bb"));
  REQUIRE(fine.has_value());
  CHECK(fine->exit_code == 0);
  CHECK(fine->oom_kills == 0);
  // An older probe says nothing: unknown, never 0.
  const auto older =
      probe_run(parse_probe_report(read_probe_file("v1-result-signal.txt"), "00000000deadbeef"));
  REQUIRE(older.has_value());
  CHECK_FALSE(older->oom_kills.has_value());
  // Unreadable (no memory controller): unknown too.
  std::string text = read_probe_file("podman-v1-hello.txt");
  text.replace(text.find("oom_kills=0"), 11, "oom_kills=unknown (No such file or directory)");
  CHECK_FALSE(probe_run(parse_probe_report(text, "00000000000000bb"))->oom_kills.has_value());
}
