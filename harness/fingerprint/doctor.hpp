// `noisefloor doctor`: can this machine be trusted for benchmarks? Pure: findings from the facts
// of probe_host (fingerprint/host.hpp) and, optionally, the Docker engine's GET /info object
// (Docker keys; the fingerprint's snake-case engine facts "os" and "warnings" are read too).
// In the spirit of pyperf `system tune`: each finding says why and the exact command that fixes
// it. Nothing is changed here.
//
// Findings, in this order (topics in quotes):
//   "virtualization"  VM -> WARN (hypervisor named), grade at best limited
//   "docker-desktop"  engine OperatingSystem contains "Docker Desktop" -> WARN, at best limited
//   "container"       noisefloor itself runs in a container -> WARN
//   "load"            1-min load >= logical CPUs -> BAD; >= kLoadWarnFraction of them -> WARN
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
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace noisefloor::fingerprint {

enum class Level { ok, warn, bad };

struct Finding {
  Level level;
  std::string topic;    // "governor"
  std::string message;  // why it matters, with the observed value
  std::string fix;      // the exact command(s); empty if none
};

enum class Grade { ready, limited, not_ready };

struct DoctorReport {
  std::vector<Finding> findings;
  Grade grade;
  std::vector<std::string> grade_reasons;
};

// A 1-minute load average at or above this fraction of the logical CPUs is a WARN.
inline constexpr double kLoadWarnFraction = 0.25;

DoctorReport diagnose(const nlohmann::json& host, const std::optional<nlohmann::json>& engine_info,
                      const std::vector<int>& experiment_cpus);

std::string_view to_string(Level level);  // "OK", "WARN", "BAD"
std::string_view to_string(Grade grade);  // "ready", "limited", "not ready"

// {"grade": "ready" | "limited" | "not ready", "reasons": [grade_reasons...],
//  "findings": [{"level": "OK" | "WARN" | "BAD", "topic", "message", "fix"}]} (fix "" when none).
// What `noisefloor doctor --json` prints and a run stores as fingerprint["doctor"].
nlohmann::json doctor_json(const DoctorReport& report);

// ---- terminal rendering (pure; the caller decides on colour: a terminal and no NO_COLOR) ----

// Text width the renderers wrap and truncate to.
inline constexpr std::size_t kRenderWidth = 100;

// One block per finding, blank line between blocks:
//   WARN  governor
//         <message, word-wrapped at kRenderWidth, indented 6>
//         fix: <fix, never wrapped, so it can be copied>      (only when there is a fix)
// then the grade block:
//   grade: limited (6 OK, 7 WARN, 0 BAD)
//     WARN turbo: <message, cut to one line of kRenderWidth with "...">
// one line per finding that lowered the grade, in finding order ("ready" has none).
// With color, levels and the grade are wrapped in ANSI SGR codes (OK and ready green, WARN and
// limited yellow, BAD and not ready red; "grade:" bold); without, the text has no escape at all.
std::string render_doctor(const DoctorReport& report, bool color);

// A fingerprint object (`noisefloor fingerprint --json`) for reading in a terminal. The top-level
// groups "noisefloor", "run", "host", "toolchain", "env", "benchmark_env", "engine", "tuning",
// "doctor" come first in that order, any others after them; inside a group, keys are in JSON
// (alphabetical) order. A group is a heading, its members indented by two; every value starts in
// one column (the longest indented key + 2, at most 40). Values: strings as is ("" shows as
// "(empty)"), booleans "yes"/"no", an unknown fact "unknown (<reason>)", a fact's "evidence" or
// "note" appended in parentheses, a per-CPU object as "0-3: performance, 4-7: powersave", a list
// of plain values comma-joined ("(none)" when empty), a list of objects as one "- k=v k=v" line
// per element. An "engine" that is an unknown fact reads "no engine: <reason>"; a "tuning" that is
// null reads "none applied", a tuning state (fingerprint/tune.hpp) shows its other keys, then
// "changes  <count>" and one "- <setting>: <file>: <before> -> <after>" line per change.
std::string render_fingerprint(const nlohmann::json& fingerprint);

}  // namespace noisefloor::fingerprint
