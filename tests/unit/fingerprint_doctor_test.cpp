#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "fingerprint/doctor.hpp"
#include "fingerprint/engine.hpp"
#include "fingerprint/facts.hpp"

namespace fp = noisefloor::fingerprint;
using fp::Grade;
using fp::Level;
using nlohmann::json;

namespace {

// A tuned bare-metal host in the probe_host shape: nothing to complain about.
json good_host() {
  json h;
  h["cpu"] = {{"online", fp::known("0-7")}, {"logical", fp::known(8)}};
  h["smt"] = {{"active", fp::known(false)}, {"control", fp::known("off")}};
  h["frequency"] = {{"governor", fp::known("performance")}, {"turbo", fp::known(false)}};
  h["frequency"]["turbo"]["source"] = "/sys/devices/system/cpu/intel_pstate/no_turbo";
  h["isolation"] = {{"isolated", fp::known("5-7")}};
  h["virtualization"] = {{"virtual", fp::known(false)}, {"hypervisor", fp::known("none")}};
  h["container"] = {{"inside", fp::known(false)}};
  h["memory"] = {{"swap_used_kb", fp::known(0)}};
  h["thp"] = fp::known("madvise");
  h["aslr"] = fp::known(0);
  h["clocksource"] = fp::known("tsc");
  h["power"] = fp::known("none");
  h["load"] = fp::known({{"one", 0.05}, {"five", 0.1}, {"fifteen", 0.1}, {"running", 1}, {"total", 300}});
  h["tools"] = {{"perflock", fp::known(false)}};
  return h;
}

// By value: callers often pass a temporary report.
fp::Finding only(const fp::DoctorReport& r, fp::Topic topic) {
  const auto n = std::count_if(r.findings.begin(), r.findings.end(),
                               [&](const fp::Finding& f) { return f.topic == topic; });
  REQUIRE_MESSAGE(n == 1, "expected one finding for " << fp::to_string(topic) << ", got " << n);
  return *std::find_if(r.findings.begin(), r.findings.end(),
                       [&](const fp::Finding& f) { return f.topic == topic; });
}

}  // namespace

TEST_CASE("doctor: a tuned bare-metal host is ready") {
  const auto r = fp::diagnose(good_host(), std::nullopt, {6, 7});
  CHECK(r.grade == Grade::ready);
  CHECK(r.grade_reasons.empty());
  std::vector<fp::Topic> topics;
  for (const auto& f : r.findings) {
    CHECK(f.level == Level::ok);
    topics.push_back(f.topic);
  }
  using enum fp::Topic;
  CHECK(topics == std::vector{virtualization, load, governor, turbo, smt, isolation, aslr, thp, swap, power,
                              clocksource});
  CHECK(only(r, fp::Topic::isolation).message == "CPUs 5-7 are isolated from the scheduler");
}

TEST_CASE("doctor: powersave governor is a WARN with the exact fix") {
  json h = good_host();
  h["frequency"]["governor"] = fp::known("powersave");
  const auto r = fp::diagnose(fp::FactTree(h), std::nullopt, {});
  const auto f = only(r, fp::Topic::governor);
  CHECK(f.level == Level::warn);
  CHECK(f.message ==
        "cpufreq governor is 'powersave' (not performance): the frequency follows the load, so "
        "the first iterations run slower than the rest");
  CHECK(f.fix ==
        "for f in /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor; do echo performance > "
        "\"$f\"; done   # or: cpupower frequency-set -g performance");
  CHECK(r.grade == Grade::limited);
  CHECK(r.grade_reasons == std::vector<std::string>{f.message});
}

TEST_CASE("doctor: governors that differ per CPU are shown by cpu list") {
  json h = good_host();
  h["frequency"]["governor"] = fp::known({{"0-5", "performance"}, {"6-7", "schedutil"}});
  const auto f = only(fp::diagnose(fp::FactTree(h), std::nullopt, {}), fp::Topic::governor);
  CHECK(f.level == Level::warn);
  CHECK(f.message.rfind(R"(cpufreq governor is {"0-5":"performance","6-7":"schedutil"})", 0) == 0);
}

TEST_CASE("doctor: turbo on names the sysfs write for the file that was read") {
  struct Case {
    const char* source;
    const char* fix;
  };
  const Case cases[] = {
      {"/sys/devices/system/cpu/intel_pstate/no_turbo",
       "echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo"},
      {"/sys/devices/system/cpu/cpufreq/boost", "echo 0 > /sys/devices/system/cpu/cpufreq/boost"},
      {"/sys/devices/system/cpu/cpufreq/policy0/boost",
       "for f in /sys/devices/system/cpu/cpufreq/policy*/boost; do echo 0 > \"$f\"; done"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.source);
    json h = good_host();
    h["frequency"]["turbo"] = fp::known(true);
    h["frequency"]["turbo"]["source"] = c.source;
    const auto r = fp::diagnose(fp::FactTree(h), std::nullopt, {});
    const auto f = only(r, fp::Topic::turbo);
    CHECK(f.level == Level::warn);
    CHECK(f.fix == c.fix);
    CHECK(r.grade == Grade::limited);
  }
}

TEST_CASE("doctor: SMT on is a WARN; forced off is OK") {
  json h = good_host();
  h["smt"] = {{"active", fp::known(true)}, {"control", fp::known("on")}};
  const auto on = only(fp::diagnose(fp::FactTree(h), std::nullopt, {}), fp::Topic::smt);
  CHECK(on.level == Level::warn);
  CHECK(on.fix == "echo off > /sys/devices/system/cpu/smt/control");
  h["smt"] = {{"active", fp::known(false)}, {"control", fp::known("forceoff")}};
  const auto off = only(fp::diagnose(fp::FactTree(h), std::nullopt, {}), fp::Topic::smt);
  CHECK(off.level == Level::ok);
  CHECK(off.message == "SMT (hyper-threading) is inactive (control: forceoff)");
}

TEST_CASE("doctor: no isolated CPUs suggests kernel parameters for the experiment's CPUs") {
  json h = good_host();
  h["isolation"]["isolated"] = fp::known("");
  const auto f = only(fp::diagnose(fp::FactTree(h), std::nullopt, {3, 2}), fp::Topic::isolation);
  CHECK(f.level == Level::warn);
  CHECK(f.fix ==
        "add \"isolcpus=2,3 nohz_full=2,3 rcu_nocbs=2,3\" to GRUB_CMDLINE_LINUX in "
        "/etc/default/grub, run update-grub and reboot; then run the benchmark with taskset -c "
        "2,3 chrt -f 50 <benchmark>");
  // Without experiment CPUs the highest CPU is suggested (CPU 0 keeps the housekeeping).
  const auto g = only(fp::diagnose(fp::FactTree(h), std::nullopt, {}), fp::Topic::isolation);
  CHECK(g.fix.rfind("add \"isolcpus=7 nohz_full=7 rcu_nocbs=7\"", 0) == 0);
  const auto cpu0 = only(fp::diagnose(fp::FactTree(h), std::nullopt, {0}), fp::Topic::isolation);
  CHECK(cpu0.message ==
        "no isolated CPUs: the scheduler, timer ticks and RCU callbacks run on the benchmark's "
        "CPUs; the experiment pins to CPU 0, which keeps housekeeping work even when isolated: "
        "pin to 7 instead");
  CHECK(cpu0.fix.rfind("add \"isolcpus=7 nohz_full=7 rcu_nocbs=7\"", 0) == 0);
}

TEST_CASE("doctor: experiment CPUs outside the isolated set, or offline") {
  json h = good_host();
  const auto r = fp::diagnose(fp::FactTree(h), std::nullopt, {0});
  const auto f = only(r, fp::Topic::isolation);
  CHECK(f.level == Level::warn);
  CHECK(f.message ==
        "CPUs 5-7 are isolated but the experiment pins to 0, which are not: pin the experiment "
        "to the isolated CPUs");
  const auto offline = fp::diagnose(fp::FactTree(h), std::nullopt, {6, 64});
  const auto bad = only(offline, fp::Topic::experiment_cpus);
  CHECK(bad.level == Level::bad);
  CHECK(bad.message == "the experiment pins to CPUs 64 but only 0-7 are online");
  CHECK(offline.grade == Grade::not_ready);
}

TEST_CASE("doctor: load relative to logical CPUs: runnable tasks now, the 1-minute average as a hint") {
  json h = good_host();
  h["load"]["value"]["one"] = 8.5;
  h["load"]["value"]["running"] = 9;  // 8 others besides noisefloor on 8 CPUs
  const auto busy = fp::diagnose(fp::FactTree(h), std::nullopt, {});
  CHECK(only(busy, fp::Topic::load).level == Level::bad);
  CHECK(only(busy, fp::Topic::load).message ==
        "8 other runnable task(s) now, 1-minute load average 8.50, on 8 logical CPUs: every CPU is already "
        "busy; results would measure the other work");
  CHECK(only(busy, fp::Topic::load).fix == "top -o %CPU   # then stop the busy processes it lists");
  CHECK(busy.grade == Grade::not_ready);
  h["load"]["value"]["running"] = 3;
  const auto some = fp::diagnose(fp::FactTree(h), std::nullopt, {});
  CHECK(only(some, fp::Topic::load).level == Level::warn);
  CHECK(
      only(some, fp::Topic::load).message ==
      "2 other runnable task(s) now, 1-minute load average 8.50, on 8 logical CPUs: other processes compete "
      "for the CPUs");
  CHECK(some.grade == Grade::limited);
  // Nothing else runs now, but the average still remembers a busy minute (e.g. our own spinners).
  h["load"]["value"]["running"] = 1;
  h["load"]["value"]["one"] = 2.0;
  const auto settling = fp::diagnose(fp::FactTree(h), std::nullopt, {});
  CHECK(only(settling, fp::Topic::load).level == Level::warn);
  CHECK(only(settling, fp::Topic::load).message ==
        "0 other runnable task(s) now, 1-minute load average 2.00, on 8 logical CPUs: the machine was busy "
        "within "
        "the last minute; let it settle");
  h["load"]["value"]["one"] = 0.5;
  CHECK(only(fp::diagnose(fp::FactTree(h), std::nullopt, {}), fp::Topic::load).level == Level::ok);
}

TEST_CASE("doctor: a virtual machine is limited at best, naming the hypervisor") {
  json h = good_host();
  h["virtualization"] = {{"virtual", fp::known(true)}, {"hypervisor", fp::known("KVM")}};
  const auto r = fp::diagnose(fp::FactTree(h), std::nullopt, {6});
  CHECK(r.grade == Grade::limited);
  const auto f = only(r, fp::Topic::virtualization);
  CHECK(f.level == Level::warn);
  CHECK(f.message.rfind("virtual machine (hypervisor: KVM): ", 0) == 0);
  CHECK(r.grade_reasons == std::vector<std::string>{f.message});
}

TEST_CASE("doctor: Docker Desktop and engine capabilities") {
  const auto engine_of = [](const json& info) { return fp::engine_facts(json::object(), info, "", ""); };
  const json desktop = {{"OperatingSystem", "Docker Desktop"}, {"CPUSet", true}};
  const auto r = fp::diagnose(good_host(), engine_of(desktop), {});
  CHECK(r.grade == Grade::limited);
  CHECK(only(r, fp::Topic::docker_desktop).level == Level::warn);

  const json engine = {{"OperatingSystem", "Debian GNU/Linux 12 (bookworm)"},
                       {"CPUSet", true},
                       {"CpuCfsQuota", false},
                       {"Warnings", {"WARNING: No swap limit support"}}};
  const auto e = fp::diagnose(good_host(), engine_of(engine), {});
  std::vector<std::string> messages;
  for (const auto& f : e.findings) {
    if (f.topic == fp::Topic::engine_limits) messages.push_back(f.message);
  }
  CHECK(messages ==
        std::vector<std::string>{"the docker engine reports CpuCfsQuota=false: it silently drops that "
                                 "limit, so the pinned container is not limited the way the experiment "
                                 "says",
                                 "docker engine: WARNING: No swap limit support"});
  CHECK(e.grade == Grade::limited);

  // The engine facts as a fingerprint recorded them read the same.
  fp::EngineFacts recorded;
  recorded.os = "Docker Desktop";
  const auto f = fp::diagnose(good_host(), recorded, {});
  CHECK(only(f, fp::Topic::docker_desktop).message ==
        "the docker engine runs in Docker Desktop's VM ('Docker Desktop'): pinned CPUs are vCPUs "
        "of that VM and host-side spinners run outside it");
  CHECK(f.grade == Grade::limited);
}

TEST_CASE("doctor: ASLR, THP always, swap in use, battery") {
  json h = good_host();
  h["aslr"] = fp::known(2);
  h["thp"] = fp::known("always");
  h["memory"]["swap_used_kb"] = fp::known(262144);
  h["power"] = fp::known("battery");
  const auto r = fp::diagnose(fp::FactTree(h), std::nullopt, {});
  CHECK(only(r, fp::Topic::aslr).level == Level::warn);
  CHECK(only(r, fp::Topic::aslr).fix ==
        "setarch -R <benchmark>   # or system-wide: echo 0 > /proc/sys/kernel/randomize_va_space");
  CHECK(only(r, fp::Topic::thp).level == Level::warn);
  CHECK(only(r, fp::Topic::thp).fix == "echo madvise > /sys/kernel/mm/transparent_hugepage/enabled");
  CHECK(only(r, fp::Topic::swap).level == Level::warn);
  CHECK(only(r, fp::Topic::swap).message ==
        "262144 kB of swap in use: pages the benchmark touches may have to come back from disk");
  CHECK(only(r, fp::Topic::power).level == Level::warn);
  CHECK(r.grade == Grade::limited);
  CHECK(r.grade_reasons.size() == 4);
}

TEST_CASE("doctor: unknown facts are at most a WARN, never BAD") {
  json h = good_host();
  h["frequency"]["governor"] =
      fp::unknown("missing /sys/devices/system/cpu/cpu0/cpufreq (no cpufreq driver)");
  h["frequency"]["turbo"] = fp::unknown("no turbo control found");
  h.erase("smt");
  h["load"] = fp::unknown("missing /proc/loadavg");
  const auto r = fp::diagnose(fp::FactTree(h), std::nullopt, {});
  CHECK(only(r, fp::Topic::governor).level == Level::warn);
  CHECK(only(r, fp::Topic::governor).message ==
        "could not check governor: missing /sys/devices/system/cpu/cpu0/cpufreq (no cpufreq "
        "driver)");
  CHECK(only(r, fp::Topic::turbo).message == "could not check turbo: no turbo control found");
  CHECK(only(r, fp::Topic::smt).message == "could not check smt: missing");
  CHECK(only(r, fp::Topic::load).message == "could not check load: missing /proc/loadavg");
  for (const auto& f : r.findings) CHECK(f.level != Level::bad);
  CHECK(r.grade == Grade::limited);
  // An empty host: everything unknown, still no BAD.
  const auto empty = fp::diagnose(fp::FactTree(), std::nullopt, {1});
  for (const auto& f : empty.findings) CHECK(f.level == Level::warn);
  CHECK(empty.grade == Grade::limited);
}

TEST_CASE("doctor: perflock and a weak container marker are OK findings") {
  json h = good_host();
  h["tools"]["perflock"] = fp::known(true);
  h["container"]["inside"] = fp::known(false);
  h["container"]["inside"]["evidence"] = {"/.dockerenv exists"};
  h["container"]["inside"]["note"] = "only /.dockerenv";
  const auto r = fp::diagnose(fp::FactTree(h), std::nullopt, {});
  CHECK(only(r, fp::Topic::perflock).level == Level::ok);
  CHECK(only(r, fp::Topic::perflock).fix == "perflock -governor=70% <benchmark>");
  CHECK(only(r, fp::Topic::container).level == Level::ok);
  CHECK(only(r, fp::Topic::container).message == "not in a container: only /.dockerenv");
  CHECK(r.grade == Grade::ready);
  h["container"]["inside"] = fp::known(true);
  h["container"]["inside"]["evidence"] = {"/proc/1/cgroup names 'docker'"};
  const auto strong = fp::diagnose(fp::FactTree(h), std::nullopt, {});
  CHECK(only(strong, fp::Topic::container).level == Level::warn);
  CHECK(strong.grade == Grade::limited);
}

TEST_CASE("doctor: names of levels and grades") {
  CHECK(fp::to_string(Level::ok) == "OK");
  CHECK(fp::to_string(Level::warn) == "WARN");
  CHECK(fp::to_string(Level::bad) == "BAD");
  CHECK(fp::to_string(Grade::ready) == "ready");
  CHECK(fp::to_string(Grade::limited) == "limited");
  CHECK(fp::to_string(Grade::not_ready) == "not ready");
}
