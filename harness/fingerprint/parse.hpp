// Pure readers of captured system files (/proc, /sys, /etc/os-release) and tool output
// (`go version`, `go version -m`). No I/O. The facts they feed are described in facts.hpp.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fingerprint/facts.hpp"

namespace noisefloor::fingerprint {

// Where Linux describes the CPUs: the facts are read below it (host.hpp), the tuning writes there.
inline constexpr const char* kCpuDir = "/sys/devices/system/cpu";

// ---- /proc/cpuinfo ----
// x86: vendor_id, model name, cpu family, model, stepping, microcode, flags of the first
// processor block. arm64 (no "model name"): vendor is the implementer's name ("ARM", "Ampere",
// ...), model_name the part's name when known ("Cortex-A72") else "part 0x..", family the "CPU
// architecture", model the "CPU part", stepping "r<variant>p<revision>" ("r0p3"), flags the
// "Features", arch_hint "CPU implementer 0x41, CPU part 0xd08, variant 0x0, revision 3".
// logical counts "processor" lines. Missing fields stay empty.
struct CpuInfo {
  std::string vendor, model_name, family, model, stepping, microcode;
  int logical = 0;
  std::set<std::string> flags;
  bool hypervisor_flag = false;  // x86 CPUID leaf 1 ECX bit 31, set by every mainstream hypervisor
  std::string arch_hint;
};
CpuInfo parse_cpuinfo(std::string_view proc_cpuinfo);

// ---- /proc/cmdline ----
// Whitespace-separated params, double quotes group ("a=\"x y\""); a bare word maps to "".
// Parsing stops at "--" (what follows goes to init). The last duplicate wins.
struct KernelCmdline {
  std::map<std::string, std::string> params;
  std::optional<std::string> isolcpus, nohz_full, rcu_nocbs;  // raw values as written
};
KernelCmdline parse_cmdline(std::string_view text);
// The CPU list part of an isolcpus= value: "nohz,domain,2-3" -> "2-3" (flags nohz, domain,
// managed_irq dropped). Returns the text unchanged when it has no flags.
std::string isolcpus_cpu_list(std::string_view isolcpus_value);

// ---- /etc/os-release ---- KEY=value lines; values unquoted ("..." with \" \\ \$ \` escapes,
// or '...'); comments and blank lines skipped.
std::map<std::string, std::string> parse_os_release(std::string_view text);

// ---- `go version` ---- "go version go1.19.8 linux/amd64" -> {"go1.19.8", "linux/amd64"}.
struct GoVersion {
  std::string version, platform;
};
std::optional<GoVersion> parse_go_version(std::string_view output);

// ---- `go version -m BINARY` ----
// go_version "go1.19.8"; path the "path" line; main_module "<module path> <version>" of the "mod"
// line ("example.com/x (devel)"); settings from "build key=value" lines with Go-quoted keys and
// values unquoted (-ldflags="..."); deps "path version" with " => replacement version" appended.
// Throws ParseError when the first line is not "<file>: go<version>".
struct GoBuildInfo {
  std::string go_version, path, main_module;
  std::map<std::string, std::string> settings;
  std::vector<std::string> deps;
};
GoBuildInfo parse_go_version_m(std::string_view output);

// ---- /proc/meminfo ---- values in kB; a field that is absent or malformed stays nullopt.
struct MemInfo {
  std::optional<std::int64_t> mem_total_kb, swap_total_kb, swap_free_kb;
};
MemInfo parse_meminfo(std::string_view text);

// ---- /proc/loadavg ---- "0.12 0.12 0.06 1/107 11806"; nullopt when malformed.
// running counts the reader itself (the kernel counts the task reading the file).
struct LoadAvg {
  double one, five, fifteen;
  int running, total;
};
std::optional<LoadAvg> parse_loadavg(std::string_view text);

// "always [madvise] never" -> "madvise"; "" when there is no bracketed word.
std::string selected_bracket(std::string_view text);

// ---- virtualization and container hints ----
// A hypervisor name from /sys/class/dmi/id/{sys_vendor,product_name} ("QEMU", "KVM", "VMware",
// "Hyper-V", "VirtualBox", "Xen", "Amazon EC2 (Nitro)", "Google Compute Engine", "Parallels",
// ...); nullopt when the strings name physical hardware (including EC2 "*.metal").
std::optional<std::string> hypervisor_from_dmi(std::string_view sys_vendor, std::string_view product_name);
// A hypervisor name from available_clocksource ("kvm-clock" -> "KVM", "hyperv_clocksource..." ->
// "Hyper-V", "xen" -> "Xen"); nullopt otherwise.
std::optional<std::string> hypervisor_from_clocksources(std::string_view available);
// The container runtime a /proc/1/cgroup names ("docker", "kubepods", "containerd", "libpod",
// "lxc", "crio"), or nullopt ("0::/", "1:cpu:/" on a host or a cgroup-namespaced container).
std::optional<std::string> container_from_cgroup(std::string_view proc_1_cgroup);
// The filesystem type mounted at "/" according to /proc/self/mountinfo ("overlay", "ext4").
std::optional<std::string> root_fs_type(std::string_view mountinfo);

}  // namespace noisefloor::fingerprint
