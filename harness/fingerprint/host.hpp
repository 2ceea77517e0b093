// Probes of the machine noisefloor runs on: reads /proc, /sys and /etc under a root directory (so
// tests pass a fabricated tree) and runs small tools through process::capture. Every fact uses
// the shape documented in fingerprint/parse.hpp; nothing here throws (an unreadable file or a
// failing tool becomes {"value": null, "unknown": "<reason>"}).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fingerprint/facts.hpp"

namespace noisefloor::fingerprint {

// Every host fact. Layout (each leaf is a fact):
//   hostname
//   cpu        {vendor, model_name, family, model, stepping, microcode, arch_hint, online
//               ("0-7"), logical, cores, threads_per_core, sockets, hypervisor_flag}
//   numa       [{"node": 0, "cpulist": "0-7"}, ...]
//   caches     [{"level": 1, "type": "Data", "size": "48K", "shared_cpu_list": "0"}, ...] (cpu0)
//   smt        {active (bool), control ("on", "off", "forceoff", "notsupported", "notimplemented")}
//   frequency  {driver, governor, min_khz, max_khz, cur_khz (per CPU, see parse.hpp),
//               turbo (bool, true = on; "source" names the file), intel_pstate_status,
//               amd_pstate_status}
//   isolation  {isolated (cpu list, "" = none; sysfs, else isolcpus=), nohz_full,
//               cmdline_isolcpus, cmdline_nohz_full, cmdline_rcu_nocbs (raw; "" when absent)}
//   kernel     {release, version, cmdline}
//   os         {pretty_name, id, version_id}
//   virtualization {virtual (bool, "evidence": [...]), hypervisor ("KVM", ...)}
//   container  {inside (bool, "evidence": [...], "kind")}: noisefloor itself in a container
//   memory     {total_kb, swap_total_kb, swap_free_kb, swap_used_kb}
//   thp ("always" | "madvise" | "never"), aslr (0, 1, 2), clocksource, power ("ac" | "battery" |
//   "none"), load (see probe_load), cgroup {version (1 | 2), layout ("v1", "hybrid", "v2")},
//   tools {perflock (bool: /usr/bin/perflock exists)}
FactTree probe_host(const std::filesystem::path& root = "/");

// probe_host("/") plus "uname" (uname(2): "Linux 6.18.44 x86_64") and "one_line" ("host · CPU model ·
// N CPUs · uname · OS"), the host facts every run and the fingerprint and doctor commands show.
FactTree probe_this_host();

// Just /proc/loadavg, cheap, for before/after each condition.
LoadReading probe_load(const std::filesystem::path& root = "/");

// Toolchain facts; runs `go version`, `go version -m <binary>`, `git -C <dir> rev-parse HEAD`,
// `git -C <dir> status --porcelain`, and with native `c++ --version`, `cc --version`:
//   go      {version ("go1.19.8"), platform ("linux/amd64")}
//   binary  {path, sha256, go ({go_version, path, main_module, settings, deps}; unknown when
//            the binary is not a Go binary)}                                 when a binary is given
//   source  {dir, commit, dirty (bool)}                                      when a dir is given
//   cxx, cc (first line of --version)                                        when native
//   valgrind {version (first line of --version), settings (model::valgrind_settings)}  when simulated (its
//   settings given)
FactTree probe_toolchain(const std::optional<std::filesystem::path>& benchmark_binary,
                         const std::optional<std::filesystem::path>& source_dir, bool native,
                         const std::optional<std::string>& valgrind_settings = std::nullopt);

// Environment variables that change benchmarks, only those that are set: {"GOMAXPROCS": "1"}.
// The fixed list (GOMAXPROCS, GOGC, GOMEMLIMIT, GODEBUG, GOTOOLCHAIN, GOAMD64, GOARM,
// OMP_NUM_THREADS, MKL_NUM_THREADS, OPENBLAS_NUM_THREADS, GLIBC_TUNABLES, LD_PRELOAD,
// LD_LIBRARY_PATH, PYTHONHASHSEED) plus every name in environ_names that starts with "MALLOC_".
// Plain strings, not facts: an unset variable is simply absent.
std::map<std::string, std::string> probe_env(
    const std::function<std::optional<std::string>(const std::string&)>& getenv,
    const std::vector<std::string>& environ_names);

// The names of the variables in this process's environment (from `environ`), for probe_env.
std::vector<std::string> environment_names();
// probe_env over this process's own environment.
std::map<std::string, std::string> probe_this_env();

}  // namespace noisefloor::fingerprint
