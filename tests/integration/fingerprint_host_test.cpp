// probe_host/probe_load over sample trees (tests/data/fingerprint/<kind>/ is a root directory)
// and fabricated temporary trees, then diagnose(); probe_toolchain with the real tools.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "fingerprint/doctor.hpp"
#include "fingerprint/host.hpp"
#include "fingerprint/parse.hpp"
#include "hash/sha256.hpp"
#include "process/process.hpp"
#include "temp_root.hpp"
#include "text/text.hpp"

namespace fp = noisefloor::fingerprint;
namespace fs = std::filesystem;
using fp::Grade;
using fp::Level;
using nlohmann::json;

namespace {

fs::path sample_root(const std::string& kind) { return fs::path(NF_TEST_DATA_DIR) / "fingerprint" / kind; }

// The value of a known fact; fails the test when it is unknown.
json v(const json& host, std::string_view path) {
  const json* value = fp::known_value(host, path);
  INFO("fact ", std::string(path), " reason: ", fp::unknown_reason(host, path));
  REQUIRE(value != nullptr);
  return *value;
}

fp::Finding only(const fp::DoctorReport& r, fp::Topic topic) {
  const auto n = std::count_if(r.findings.begin(), r.findings.end(),
                               [&](const fp::Finding& f) { return f.topic == topic; });
  REQUIRE_MESSAGE(n == 1, "expected one finding for " << fp::to_string(topic) << ", got " << n);
  return *std::find_if(r.findings.begin(), r.findings.end(),
                       [&](const fp::Finding& f) { return f.topic == topic; });
}

using noisefloor::testing::TempRoot;

// A tuned 4-CPU bare-metal Intel machine: performance governor, no turbo, SMT off, CPUs 2-3
// isolated, ASLR off, THP madvise, no swap, on AC power, idle.
void write_good_host(const TempRoot& t) {
  std::string cpuinfo;
  for (int c = 0; c < 4; ++c) {
    cpuinfo += "processor\t: " + std::to_string(c) +
               "\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n"
               "model name\t: Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz\nstepping\t: 7\n"
               "microcode\t: 0x5003604\nflags\t\t: fpu vme de pse tsc msr avx2\n\n";
  }
  t.write("/proc/cpuinfo", cpuinfo);
  t.write("/proc/cmdline", "BOOT_IMAGE=/vmlinuz ro isolcpus=2-3 nohz_full=2-3 rcu_nocbs=2-3\n");
  t.write("/proc/meminfo",
          "MemTotal:       65536000 kB\nSwapTotal:             0 kB\n"
          "SwapFree:              0 kB\n");
  t.write("/proc/loadavg", "0.02 0.05 0.01 1/250 4242\n");
  t.write("/proc/sys/kernel/osrelease", "6.1.0-18-amd64\n");
  t.write("/proc/sys/kernel/version", "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)\n");
  t.write("/proc/sys/kernel/randomize_va_space", "0\n");
  t.write("/proc/sys/kernel/hostname", "bench1\n");
  t.write("/etc/os-release",
          "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\n"
          "VERSION_ID=\"12\"\n");
  const std::string cpu = "/sys/devices/system/cpu";
  t.write(cpu + "/online", "0-3\n");
  t.write(cpu + "/isolated", "2-3\n");
  t.write(cpu + "/nohz_full", "2-3\n");
  t.write(cpu + "/smt/active", "0\n");
  t.write(cpu + "/smt/control", "off\n");
  t.write(cpu + "/intel_pstate/status", "active\n");
  t.write(cpu + "/intel_pstate/no_turbo", "1\n");
  for (int c = 0; c < 4; ++c) {
    const std::string d = cpu + "/cpu" + std::to_string(c);
    t.write(d + "/topology/physical_package_id", "0\n");
    t.write(d + "/topology/core_id", std::to_string(c) + "\n");
    t.write(d + "/cpufreq/scaling_driver", "intel_pstate\n");
    t.write(d + "/cpufreq/scaling_governor", "performance\n");
    t.write(d + "/cpufreq/scaling_min_freq", "2100000\n");
    t.write(d + "/cpufreq/scaling_max_freq", "2100000\n");
    t.write(d + "/cpufreq/scaling_cur_freq", "2100000\n");
  }
  t.write("/sys/devices/system/node/node0/cpulist", "0-3\n");
  t.write("/sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc\n");
  t.write("/sys/devices/system/clocksource/clocksource0/available_clocksource", "tsc hpet \n");
  t.write("/sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n");
  t.write("/sys/class/dmi/id/sys_vendor", "Supermicro\n");
  t.write("/sys/class/dmi/id/product_name", "SYS-1029P-WTR\n");
  t.write("/sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n");
  t.write("/proc/1/cgroup", "0::/init.scope\n");
  t.write("/proc/self/mountinfo", "28 1 8:2 / / rw,relatime shared:1 - ext4 /dev/sda2 rw\n");
}

}  // namespace

TEST_CASE("probe_host: this VM (captured tree)") {
  const json h = fp::probe_host(sample_root("vm-firecracker-amd"));
  CHECK(v(h, "hostname") == "vm");
  CHECK(v(h, "cpu.vendor") == "AuthenticAMD");
  CHECK(v(h, "cpu.model_name") == "AMD EPYC");
  CHECK(v(h, "cpu.microcode") == "0x1000065");
  CHECK(v(h, "cpu.online") == "0,1");
  CHECK(v(h, "cpu.logical") == 2);
  CHECK(v(h, "cpu.cores") == 2);
  CHECK(v(h, "cpu.threads_per_core") == 1);
  CHECK(v(h, "cpu.sockets") == 1);
  CHECK(v(h, "cpu.hypervisor_flag") == true);
  CHECK(v(h, "numa") == json::array({{{"node", 0}, {"cpulist", "0-1"}}}));
  CHECK(v(h, "caches").size() == 4);
  CHECK(v(h, "caches")[3] ==
        json{{"level", 3}, {"type", "Unified"}, {"size", "32768K"}, {"shared_cpu_list", "0-1"}});
  CHECK(v(h, "smt.active") == false);
  CHECK(v(h, "smt.control") == "notsupported");
  CHECK(fp::unknown_reason(h, "frequency.governor") ==
        "missing /sys/devices/system/cpu/cpu0/cpufreq (no cpufreq driver: the platform or "
        "hypervisor controls the frequency)");
  CHECK_FALSE(fp::is_known(h["frequency"]["turbo"]));
  CHECK(v(h, "isolation.isolated") == "");
  CHECK(v(h, "isolation.cmdline_isolcpus") == "");
  CHECK(fp::unknown_reason(h, "isolation.nohz_full") ==
        "missing /sys/devices/system/cpu/nohz_full (kernel without CONFIG_NO_HZ_FULL)");
  CHECK(v(h, "kernel.release") == "6.18.44-fc-v669");
  CHECK(v(h, "kernel.version") == "#1 SMP PREEMPT_DYNAMIC @0");
  CHECK(v(h, "os.pretty_name") == "Debian GNU/Linux 12 (bookworm)");
  CHECK(v(h, "os.id") == "debian");
  CHECK(v(h, "os.version_id") == "12");
  CHECK(v(h, "virtualization.virtual") == true);
  CHECK(v(h, "virtualization.hypervisor") == "KVM");
  CHECK(h["virtualization"]["virtual"]["evidence"] ==
        json::array({"paravirtual clocksource available: 'tsc kvm-clock'", "cpuinfo flag 'hypervisor'"}));
  // Only /.dockerenv says "container" here: weak, so the fact says no and keeps the evidence
  // (the doctor reads the same fact: both say "not in a container").
  CHECK(v(h, "container.inside") == false);
  CHECK(h["container"]["inside"]["evidence"] == json::array({"/.dockerenv exists"}));
  CHECK(h["container"]["inside"].contains("note"));
  CHECK(v(h, "memory.total_kb") == 24684084);
  CHECK(v(h, "memory.swap_used_kb") == 0);
  CHECK(v(h, "thp") == "madvise");
  CHECK(v(h, "aslr") == 2);
  CHECK(v(h, "clocksource") == "tsc");
  CHECK(v(h, "power") == "none");
  CHECK(v(h, "load") ==
        json{{"one", 0.83}, {"five", 0.54}, {"fifteen", 0.25}, {"running", 3}, {"total", 124}});
  CHECK(v(h, "cgroup.version") == 1);
  CHECK(v(h, "cgroup.layout") == "hybrid");
  CHECK(v(h, "tools.perflock") == false);

  const auto r = fp::diagnose(h, std::nullopt, {0});
  // Captured while two other tasks were running on its 2 CPUs (3/124 in /proc/loadavg, one of
  // them the reader): that alone makes it not ready; everything else is at most a warning.
  CHECK(r.grade == Grade::not_ready);
  CHECK(only(r, fp::Topic::load).level == Level::bad);
  CHECK(only(r, fp::Topic::virtualization).message.rfind("virtual machine (hypervisor: KVM)", 0) == 0);
  CHECK(only(r, fp::Topic::governor).level == Level::warn);
  CHECK(only(r, fp::Topic::container).level == Level::ok);
  for (const auto& f : r.findings)
    if (f.topic != fp::Topic::load) CHECK(f.level != Level::bad);
}

TEST_CASE("probe_host: Intel laptop with intel_pstate, on battery") {
  const json h = fp::probe_host(sample_root("intel-laptop-pstate"));
  CHECK(v(h, "cpu.logical") == 8);
  CHECK(v(h, "cpu.cores") == 4);
  CHECK(v(h, "cpu.threads_per_core") == 2);
  CHECK(v(h, "frequency.driver") == "intel_pstate");
  CHECK(v(h, "frequency.governor") == "powersave");
  CHECK(v(h, "frequency.min_khz") == 400000);
  CHECK(v(h, "frequency.max_khz") == 4600000);
  CHECK(v(h, "frequency.cur_khz") == json{{"0", 1800021},
                                          {"1", 3899812},
                                          {"2,5", 400000},
                                          {"3", 2100153},
                                          {"4", 1797611},
                                          {"6", 3900000},
                                          {"7", 2289004}});
  CHECK(v(h, "frequency.turbo") == true);
  CHECK(h["frequency"]["turbo"]["source"] == "/sys/devices/system/cpu/intel_pstate/no_turbo");
  CHECK(v(h, "frequency.intel_pstate_status") == "active");
  CHECK(fp::unknown_reason(h, "frequency.amd_pstate_status") ==
        "missing /sys/devices/system/cpu/amd_pstate/status");
  CHECK(v(h, "isolation.nohz_full") == "");
  CHECK(v(h, "virtualization.virtual") == false);
  CHECK(v(h, "virtualization.hypervisor") == "none");
  CHECK(v(h, "container.inside") == false);
  CHECK(v(h, "power") == "battery");
  CHECK(v(h, "memory.swap_used_kb") == 262144);
  CHECK(v(h, "cgroup.version") == 2);
  CHECK(v(h, "os.pretty_name") == "Ubuntu 22.04.4 LTS");

  const auto r = fp::diagnose(h, std::nullopt, {});
  CHECK(r.grade == Grade::limited);
  CHECK(only(r, fp::Topic::governor).level == Level::warn);
  CHECK(only(r, fp::Topic::turbo).fix == "echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo");
  CHECK(only(r, fp::Topic::smt).fix == "echo off > /sys/devices/system/cpu/smt/control");
  CHECK(only(r, fp::Topic::isolation).fix.rfind("add \"isolcpus=7 nohz_full=7 rcu_nocbs=7\"", 0) == 0);
  CHECK(only(r, fp::Topic::power).level == Level::warn);
  CHECK(only(r, fp::Topic::swap).level == Level::warn);
  CHECK(only(r, fp::Topic::load).level == Level::warn);  // 2/1183 running: one other task besides the reader
  CHECK(r.grade_reasons.size() == 8);  // load, governor, turbo, smt, isolation, aslr, swap, power
}

TEST_CASE("probe_host: AMD desktop with amd-pstate and isolated CPUs") {
  const json h = fp::probe_host(sample_root("amd-pstate-desktop"));
  CHECK(v(h, "cpu.cores") == 6);
  CHECK(v(h, "cpu.threads_per_core") == 2);
  CHECK(v(h, "frequency.driver") == "amd-pstate-epp");
  CHECK(v(h, "frequency.governor") == "performance");
  CHECK(v(h, "frequency.amd_pstate_status") == "active");
  CHECK(v(h, "frequency.turbo") == true);
  CHECK(h["frequency"]["turbo"]["source"] == "/sys/devices/system/cpu/cpufreq/boost");
  CHECK(v(h, "isolation.isolated") == "5,11");
  CHECK(v(h, "isolation.nohz_full") == "5,11");
  CHECK(v(h, "isolation.cmdline_isolcpus") == "nohz,domain,5,11");
  CHECK(v(h, "isolation.cmdline_rcu_nocbs") == "5,11");
  CHECK(v(h, "thp") == "always");
  CHECK(v(h, "power") == "none");
  CHECK(v(h, "os.version_id") == "40");

  const auto r = fp::diagnose(h, std::nullopt, {5, 11});
  CHECK(only(r, fp::Topic::isolation).level == Level::ok);
  CHECK(only(r, fp::Topic::governor).level == Level::ok);
  CHECK(only(r, fp::Topic::turbo).fix == "echo 0 > /sys/devices/system/cpu/cpufreq/boost");
  CHECK(only(r, fp::Topic::thp).level == Level::warn);
  CHECK(r.grade == Grade::limited);
}

TEST_CASE("probe_host: arm64 Raspberry Pi without SMT, cache or turbo files") {
  const json h = fp::probe_host(sample_root("arm64-rpi4"));
  CHECK(v(h, "cpu.vendor") == "ARM");
  CHECK(v(h, "cpu.model_name") == "Cortex-A72");
  CHECK(v(h, "cpu.arch_hint") == "CPU implementer 0x41, CPU part 0xd08, variant 0x0, revision 3");
  CHECK(fp::unknown_reason(h, "cpu.microcode") == "no 'microcode' in /proc/cpuinfo");
  CHECK(v(h, "cpu.cores") == 4);
  CHECK(fp::unknown_reason(h, "smt.active") == "missing /sys/devices/system/cpu/smt/active");
  CHECK(fp::unknown_reason(h, "caches") == "missing /sys/devices/system/cpu/cpu0/cache/index*");
  CHECK_FALSE(fp::is_known(h["frequency"]["turbo"]));
  CHECK(v(h, "frequency.governor") == "ondemand");
  CHECK(v(h, "frequency.max_khz") == 1800000);
  CHECK(v(h, "virtualization.virtual") == false);
  CHECK(v(h, "clocksource") == "arch_sys_counter");
  CHECK(v(h, "kernel.release") == "6.6.31+rpt-rpi-v8");

  const auto r = fp::diagnose(h, std::nullopt, {});
  CHECK(only(r, fp::Topic::smt).message == "could not check smt: missing /sys/devices/system/cpu/smt/active");
  for (const auto& f : r.findings) CHECK(f.level != Level::bad);
}

TEST_CASE("doctor from a fabricated tree: a tuned bare-metal host is ready") {
  TempRoot t;
  write_good_host(t);
  const json h = fp::probe_host(t.path());
  CHECK(v(h, "cpu.model_name") == "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz");
  CHECK(v(h, "frequency.turbo") == false);
  const auto r = fp::diagnose(h, std::nullopt, {2, 3});
  CHECK(r.grade == Grade::ready);
  CHECK(r.grade_reasons.empty());
  CHECK(only(r, fp::Topic::isolation).message == "CPUs 2,3 are isolated from the scheduler");
  for (const auto& f : r.findings) CHECK(f.level == Level::ok);
}

TEST_CASE("doctor from a fabricated tree: powersave governor, turbo and SMT on") {
  TempRoot t;
  write_good_host(t);
  for (int c = 0; c < 4; ++c) {
    t.write("/sys/devices/system/cpu/cpu" + std::to_string(c) + "/cpufreq/scaling_governor", "powersave\n");
  }
  t.write("/sys/devices/system/cpu/intel_pstate/no_turbo", "0\n");
  t.write("/sys/devices/system/cpu/smt/active", "1\n");
  t.write("/sys/devices/system/cpu/smt/control", "on\n");
  const auto r = fp::diagnose(fp::probe_host(t.path()), std::nullopt, {2});
  const auto governor = only(r, fp::Topic::governor);
  CHECK(governor.level == Level::warn);
  CHECK(governor.fix ==
        "for f in /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor; do echo performance > "
        "\"$f\"; done   # or: cpupower frequency-set -g performance");
  CHECK(only(r, fp::Topic::turbo).level == Level::warn);
  CHECK(only(r, fp::Topic::turbo).fix == "echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo");
  CHECK(only(r, fp::Topic::smt).level == Level::warn);
  CHECK(only(r, fp::Topic::smt).fix == "echo off > /sys/devices/system/cpu/smt/control");
  CHECK(only(r, fp::Topic::isolation).level == Level::ok);
  CHECK(r.grade == Grade::limited);
  CHECK(r.grade_reasons.size() == 3);
}

TEST_CASE("doctor from a fabricated tree: a QEMU VM is limited; busy host is not ready") {
  TempRoot t;
  write_good_host(t);
  std::string cpuinfo;
  for (int c = 0; c < 4; ++c) {
    cpuinfo += "processor\t: " + std::to_string(c) +
               "\nvendor_id\t: GenuineIntel\nmodel name\t: Intel Xeon Processor (Icelake)\n"
               "flags\t\t: fpu tsc hypervisor avx2\n\n";
  }
  t.write("/proc/cpuinfo", cpuinfo);
  t.write("/sys/class/dmi/id/sys_vendor", "QEMU\n");
  t.write("/sys/class/dmi/id/product_name", "Standard PC (Q35 + ICH9, 2009)\n");
  const json h = fp::probe_host(t.path());
  CHECK(v(h, "virtualization.hypervisor") == "QEMU");
  const auto r = fp::diagnose(h, std::nullopt, {2, 3});
  CHECK(r.grade == Grade::limited);
  CHECK(only(r, fp::Topic::virtualization).level == Level::warn);

  t.write("/proc/loadavg", "6.10 5.80 4.00 7/412 9000\n");
  const auto busy = fp::diagnose(fp::probe_host(t.path()), std::nullopt, {2, 3});
  CHECK(only(busy, fp::Topic::load).level == Level::bad);
  CHECK(busy.grade == Grade::not_ready);
}

TEST_CASE("probe_host: container markers, perflock, cgroup v1 and an empty root") {
  TempRoot t;
  write_good_host(t);
  t.write("/run/.containerenv", "");
  t.write("/proc/self/mountinfo",
          "600 540 0:60 / / rw,relatime - overlay overlay rw,lowerdir=/var/lib/containers/l\n");
  t.write("/usr/bin/perflock", "#!/bin/sh\n");
  t.remove("/sys/fs/cgroup/cgroup.controllers");
  t.write("/sys/fs/cgroup/cpu/cpu.shares", "1024\n");
  const json h = fp::probe_host(t.path());
  CHECK(v(h, "container.inside") == true);
  CHECK(h["container"]["inside"]["kind"] == "podman");
  CHECK(h["container"]["inside"]["evidence"] ==
        json::array({"/run/.containerenv exists", "root filesystem is overlay"}));
  CHECK(v(h, "tools.perflock") == true);
  CHECK(v(h, "cgroup.version") == 1);
  CHECK(v(h, "cgroup.layout") == "v1");
  const auto r = fp::diagnose(h, std::nullopt, {});
  CHECK(only(r, fp::Topic::container).level == Level::warn);
  CHECK(only(r, fp::Topic::perflock).fix == "perflock -governor=70% <benchmark>");

  TempRoot empty;
  json e;
  CHECK_NOTHROW(e = fp::probe_host(empty.path()));
  CHECK(fp::unknown_reason(e, "cpu.model_name") == "missing /proc/cpuinfo");
  CHECK(fp::unknown_reason(e, "load") == "missing /proc/loadavg");
  CHECK(fp::unknown_reason(e, "kernel.release") == "missing /proc/sys/kernel/osrelease");
  CHECK(v(e, "power") == "none");
  CHECK(fp::probe_load(empty.path()) == fp::unknown("missing /proc/loadavg"));
  const auto r2 = fp::diagnose(e, std::nullopt, {});
  for (const auto& f : r2.findings) CHECK(f.level != Level::bad);
}

TEST_CASE("probe_toolchain: go, a non-Go binary, a git work tree and the C++ compiler") {
  // This test binary: not a Go binary. (Resolved here: in the child, /proc/self/exe is go.)
  const fs::path self = fs::read_symlink("/proc/self/exe");
  const json tc = fp::probe_toolchain(self, std::nullopt, true);
  // The binary's hash is the hash of its bytes.
  std::ifstream in(self, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  CHECK(v(tc, "binary.sha256") == noisefloor::hash::sha256_hex(bytes.str()));
  CHECK_FALSE(fp::is_known(tc["binary"]["go"]));
  CHECK(v(tc, "cxx").get<std::string>().rfind("c++ ", 0) == 0);
  CHECK(v(tc, "cc").get<std::string>().rfind("cc ", 0) == 0);
  const auto go = fp::known_value(tc, "go.version");
  if (go == nullptr) {
    MESSAGE("go not usable here: " << fp::unknown_reason(tc, "go.version"));
    CHECK(fp::unknown_reason(tc, "go.version").find("'go version'") != std::string::npos);
  } else {
    CHECK(go->get<std::string>().rfind("go1.", 0) == 0);
    CHECK(fp::unknown_reason(tc, "binary.go").find("not a Go executable") != std::string::npos);
    // The go command is itself a Go binary with build info.
    const auto goroot = noisefloor::process::capture({"go", "env", "GOROOT"});
    const fs::path go_binary = fs::path(std::string(noisefloor::text::trim(goroot.out))) / "bin" / "go";
    const json tg = fp::probe_toolchain(go_binary, std::nullopt, false);
    CHECK(v(tg, "binary.go")["path"] == "cmd/go");
    CHECK(v(tg, "binary.go")["go_version"] == *go);
    CHECK_FALSE(tg.contains("cxx"));
  }

  TempRoot repo;
  const std::string dir = repo.path().string();
  const json not_repo = fp::probe_toolchain(std::nullopt, repo.path(), false);
  CHECK_FALSE(fp::is_known(not_repo["source"]["commit"]));
  noisefloor::process::capture({"git", "-C", dir, "init", "-q"});
  noisefloor::process::capture({"git", "-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q",
                                "--allow-empty", "-m", "x"});
  const json clean = fp::probe_toolchain(std::nullopt, repo.path(), false);
  CHECK(v(clean, "source.commit").get<std::string>().size() == 40);
  CHECK(v(clean, "source.dirty") == false);
  repo.write("/new.txt", "x\n");
  const json dirty = fp::probe_toolchain(std::nullopt, repo.path(), false);
  CHECK(v(dirty, "source.dirty") == true);
  CHECK(v(dirty, "source.commit") == v(clean, "source.commit"));
}

TEST_CASE("probe_env: only variables that are set, MALLOC_* by name") {
  const std::map<std::string, std::string> env = {
      {"GOMAXPROCS", "1"}, {"MALLOC_ARENA_MAX", "2"}, {"HOME", "/root"}, {"GOGC", "off"}};
  const auto getenv = [&](const std::string& name) -> std::optional<std::string> {
    const auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  CHECK(fp::probe_env(getenv, {"HOME", "GOMAXPROCS", "MALLOC_ARENA_MAX", "GOGC"}) ==
        json{{"GOGC", "off"}, {"GOMAXPROCS", "1"}, {"MALLOC_ARENA_MAX", "2"}});
  const auto names = fp::environment_names();
  CHECK(std::find(names.begin(), names.end(), "PATH") != names.end());
}
