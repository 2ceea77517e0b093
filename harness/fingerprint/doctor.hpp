// `noisefloor doctor`: can this machine be trusted for benchmarks? Pure: findings from the facts
// of probe_host (fingerprint/host.hpp) and, optionally, the Docker engine's facts (engine.hpp).
// In the spirit of pyperf `system tune`: each finding says why and the exact command that fixes
// it. Nothing is changed here.
//
// Findings, in this order (topics in quotes):
//   "virtualization"  VM -> WARN (hypervisor named), grade at best limited
//   "docker-desktop"  engine OperatingSystem contains "Docker Desktop" -> WARN, at best limited
//   "container"       noisefloor itself runs in a container -> WARN
//   "load"            the load rule below (judge_load)
//   "governor"        not "performance" on every CPU -> WARN (cpupower / sysfs fix)
//   "turbo"           on -> WARN (the exact sysfs write for the file that was read)
//   "smt"             active -> WARN (echo off > /sys/devices/system/cpu/smt/control)
//   "isolation"       no isolated CPUs -> WARN (isolcpus/nohz_full/rcu_nocbs, taskset/chrt);
//                     experiment CPUs outside the isolated set -> WARN; isolated -> OK
//   "experiment-cpus" experiment pins to CPUs that are not online -> BAD
//   "aslr"            randomize_va_space != 0 -> WARN (setarch -R)
//   "thp"             always -> WARN
//   "swap"            swap in use -> WARN
//   "power"           on battery -> WARN
//   "clocksource"     hpet or acpi_pm (slow clock reads) -> WARN
//   "noise"           the room's noise profile (noise.hpp), when one was measured: a figure above
//                     its limit (noise_above_limits) -> WARN naming it; else OK with the figures
//   "counters"        perf_event_paranoid > 2 -> WARN (no counter without root or CAP_PERFMON);
//                     no CPU PMU driver -> OK saying software events only; absent fact: nothing
//   "engine-limits"   an engine capability (CPUSet, CpuCfsQuota, CpuCfsPeriod, MemoryLimit,
//                     SwapLimit; or engine_facts' limits.{cpuset, cpu_cfs_quota, ...}) is
//                     false -> WARN (the daemon silently drops that limit);
//                     each engine "Warnings" entry -> WARN
//   "perflock"        /usr/bin/perflock exists -> OK with how to use it
// A fact that is unknown never yields BAD: at most a WARN "could not check <topic>: <reason>".
// Grade: any BAD -> not_ready; else a VM, Docker Desktop or any WARN -> limited; else ready.
// grade_reasons are the messages of the findings that lowered the grade, in finding order.
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fingerprint/engine.hpp"
#include "fingerprint/facts.hpp"
#include "fingerprint/noise.hpp"
#include "model/names.hpp"

namespace noisefloor::fingerprint {

enum class Level { ok, warn, bad };

constexpr std::array<std::pair<Level, std::string_view>, 3> names(Level) {
  return {{
      {Level::ok, "OK"},
      {Level::warn, "WARN"},
      {Level::bad, "BAD"},
  }};
}

// What a finding is about, in the order the doctor checks (the list above); `simulation` is the
// doctor command's own (pipeline/machine.cpp: whether valgrind's simulated counts work here);
// `other`, read from a file only: a topic this version does not know (a newer noisefloor's), its
// name kept in Finding::other_topic.
enum class Topic {
  virtualization,
  docker_desktop,
  container,
  load,
  governor,
  turbo,
  smt,
  isolation,
  experiment_cpus,
  aslr,
  thp,
  swap,
  power,
  clocksource,
  noise,
  counters,
  engine_limits,
  perflock,
  simulation,
  other
};

constexpr std::array<std::pair<Topic, std::string_view>, 19> names(Topic) {
  using enum Topic;
  return {{{virtualization, "virtualization"},
           {docker_desktop, "docker-desktop"},
           {container, "container"},
           {load, "load"},
           {governor, "governor"},
           {turbo, "turbo"},
           {smt, "smt"},
           {isolation, "isolation"},
           {experiment_cpus, "experiment-cpus"},
           {aslr, "aslr"},
           {thp, "thp"},
           {swap, "swap"},
           {power, "power"},
           {clocksource, "clocksource"},
           {noise, "noise"},
           {counters, "counters"},
           {engine_limits, "engine-limits"},
           {perflock, "perflock"},
           {simulation, "simulation"}}};
}

// Every topic but `other` has its name, in the enum's order.
static_assert([] {
  const auto table = names(Topic{});
  for (std::size_t i = 0; i < table.size(); ++i)
    if (table[i].first != static_cast<Topic>(i)) return false;
  return table.size() == static_cast<std::size_t>(Topic::other);
}());

struct Finding {
  Level level = Level::ok;
  Topic topic = Topic::virtualization;
  std::string message;        // why it matters, with the observed value
  std::string fix;            // the exact command(s); empty if none
  std::string other_topic{};  // Topic::other: the topic's name as the file said it
  friend bool operator==(const Finding&, const Finding&) = default;
};

enum class Grade { ready, limited, not_ready };

constexpr std::array<std::pair<Grade, std::string_view>, 3> names(Grade) {
  return {{
      {Grade::ready, "ready"},
      {Grade::limited, "limited"},
      {Grade::not_ready, "not ready"},
  }};
}

struct DoctorReport {
  std::vector<Finding> findings;
  Grade grade = Grade::ready;
  std::vector<std::string> grade_reasons;
  friend bool operator==(const DoctorReport&, const DoctorReport&) = default;
};

// A 1-minute load average at or above this fraction of the logical CPUs is a WARN.
inline constexpr double kLoadWarnFraction = 0.25;

// The load rule: the one judgement of how busy the machine is, behind the doctor's "load" finding
// and the label of every condition in `run`, `cv`, `report` and `compare` (analysis/labels.hpp,
// CONTENDED when it says BAD). From one /proc/loadavg reading:
//   others = runnable tasks now − 1 (the process reading it: noisefloor)
//   BAD    others ≥ logical CPUs: every CPU is already busy with other work
//   WARN   others > 0, or the 1-minute average ≥ kLoadWarnFraction × logical CPUs (the average
//          lags by minutes, e.g. behind a previous run's spinners, so alone it only warns)
//   OK     otherwise
struct LoadJudgement {
  Level level = Level::ok;
  int others = 0;
  std::string what;  // "3 other runnable task(s) now, 1-minute load average 2.50, on 2 logical CPUs"
};
LoadJudgement judge_load(const LoadAverage& load, double logical_cpus);

DoctorReport diagnose(const FactTree& host, const std::optional<EngineFacts>& engine,
                      const std::vector<int>& experiment_cpus,
                      const std::optional<NoiseProfile>& noise = std::nullopt);

std::string_view to_string(Level level);        // "OK", "WARN", "BAD"
std::string_view to_string(Topic topic);        // "governor", "engine-limits", ...
std::string_view topic_name(const Finding& f);  // its topic's name, or other_topic
std::string_view to_string(Grade grade);        // "ready", "limited", "not ready"

// {"grade": "ready" | "limited" | "not ready", "reasons": [grade_reasons...],
//  "findings": [{"level": "OK" | "WARN" | "BAD", "topic", "message", "fix"}]} (fix "" when none).
// What `noisefloor doctor --json` prints and a run stores as fingerprint["doctor"]. from_json
// throws ParseError for an unknown grade or level; a topic it does not know is read as
// Topic::other with its name (a newer noisefloor's finding, shown as it was said).
void to_json(nlohmann::json& j, const DoctorReport& report);
void from_json(const nlohmann::json& j, DoctorReport& report);

}  // namespace noisefloor::fingerprint
