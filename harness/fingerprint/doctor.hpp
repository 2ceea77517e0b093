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
//                     SwapLimit) is false -> WARN (the daemon silently drops that limit);
//                     each engine "Warnings" entry -> WARN
//   "perflock"        /usr/bin/perflock exists -> OK with how to use it
// A fact that is unknown never yields BAD: at most a WARN "could not check <topic>: <reason>".
// Grade: any BAD -> not_ready; else a VM, Docker Desktop or any WARN -> limited; else ready.
// grade_reasons are the messages of the findings that lowered the grade, in finding order.
#pragma once

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

}  // namespace noisefloor::fingerprint
