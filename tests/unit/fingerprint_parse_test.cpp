#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "fingerprint/parse.hpp"
#include "model/errors.hpp"

namespace fp = noisefloor::fingerprint;
using nlohmann::json;

namespace {

std::string sample(const std::string& rel) {
  const std::string path = std::string(NF_TEST_DATA_DIR) + "/fingerprint/" + rel;
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "missing test data " << path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("cpuinfo: this VM (captured): AMD EPYC vCPUs with the hypervisor flag") {
  const auto c = fp::parse_cpuinfo(sample("vm-firecracker-amd/proc/cpuinfo"));
  CHECK(c.vendor == "AuthenticAMD");
  CHECK(c.model_name == "AMD EPYC");
  CHECK(c.family == "26");
  CHECK(c.model == "2");
  CHECK(c.stepping == "1");
  CHECK(c.microcode == "0x1000065");
  CHECK(c.logical == 2);
  CHECK(c.hypervisor_flag);
  CHECK(c.flags.count("avx512f") == 1);
  CHECK(c.flags.size() == 106);
  CHECK(c.arch_hint.empty());
}

TEST_CASE("cpuinfo: bare-metal Intel laptop has no hypervisor flag") {
  const auto c = fp::parse_cpuinfo(sample("intel-laptop-pstate/proc/cpuinfo"));
  CHECK(c.vendor == "GenuineIntel");
  CHECK(c.model_name == "Intel(R) Core(TM) i7-8565U CPU @ 1.80GHz");
  CHECK(c.family == "6");
  CHECK(c.model == "142");
  CHECK(c.stepping == "12");
  CHECK(c.microcode == "0xf8");
  CHECK(c.logical == 8);
  CHECK_FALSE(c.hypervisor_flag);
  CHECK(c.flags.count("hwp") == 1);
  // "vmx flags" is a different key and must not leak into flags.
  CHECK(c.flags.count("ept_x_only") == 0);
}

TEST_CASE("cpuinfo: AMD desktop") {
  const auto c = fp::parse_cpuinfo(sample("amd-pstate-desktop/proc/cpuinfo"));
  CHECK(c.vendor == "AuthenticAMD");
  CHECK(c.model_name == "AMD Ryzen 5 7600 6-Core Processor");
  CHECK(c.family == "25");
  CHECK(c.model == "97");
  CHECK(c.microcode == "0xa601206");
  CHECK(c.logical == 12);
  CHECK_FALSE(c.hypervisor_flag);
}

TEST_CASE("cpuinfo: arm64 names the implementer and part") {
  const auto c = fp::parse_cpuinfo(sample("arm64-rpi4/proc/cpuinfo"));
  CHECK(c.vendor == "ARM");
  CHECK(c.model_name == "Cortex-A72");
  CHECK(c.family == "8");
  CHECK(c.model == "0xd08");
  CHECK(c.stepping == "r0p3");
  CHECK(c.microcode == "");
  CHECK(c.logical == 4);
  CHECK(c.flags == std::set<std::string>{"fp", "asimd", "evtstrm", "crc32", "cpuid"});
  CHECK_FALSE(c.hypervisor_flag);
  CHECK(c.arch_hint == "CPU implementer 0x41, CPU part 0xd08, variant 0x0, revision 3");
}

TEST_CASE("cpuinfo: unknown arm parts are shown as hex; empty text gives nothing") {
  const auto c = fp::parse_cpuinfo(
      "processor\t: 0\nCPU implementer\t: 0x99\nCPU architecture: 8\nCPU variant\t: 0x1\n"
      "CPU part\t: 0x123\nCPU revision\t: 0\n");
  CHECK(c.vendor == "implementer 0x99");
  CHECK(c.model_name == "part 0x123");
  CHECK(c.stepping == "r1p0");
  const auto empty = fp::parse_cpuinfo("");
  CHECK(empty.logical == 0);
  CHECK(empty.vendor == "");
}

TEST_CASE("cmdline: this VM (captured) stops at '--'") {
  const auto k = fp::parse_cmdline(sample("vm-firecracker-amd/proc/cmdline"));
  CHECK(k.params.at("console") == "ttyS0");
  CHECK(k.params.at("quiet") == "");
  CHECK(k.params.at("mitigations") == "auto,no_guest_host,no_guest_guest");
  CHECK(k.params.at("rdinit") == "/process_api");
  CHECK(k.params.count("--firecracker-init") == 0);
  CHECK(k.params.size() == 18);
  CHECK_FALSE(k.isolcpus.has_value());
  CHECK_FALSE(k.nohz_full.has_value());
  CHECK_FALSE(k.rcu_nocbs.has_value());
}

TEST_CASE("cmdline: isolation parameters and quoting") {
  const auto k = fp::parse_cmdline(sample("amd-pstate-desktop/proc/cmdline"));
  CHECK(k.isolcpus == "nohz,domain,5,11");
  CHECK(k.nohz_full == "5,11");
  CHECK(k.rcu_nocbs == "5,11");
  CHECK(k.params.at("BOOT_IMAGE") == "(hd0,gpt2)/vmlinuz-6.11.4-201.fc40.x86_64");
  const auto q = fp::parse_cmdline("a=\"x y\" b isolcpus=1 isolcpus=2-3\n");
  CHECK(q.params.at("a") == "x y");
  CHECK(q.params.at("b") == "");
  CHECK(q.isolcpus == "2-3");
}

TEST_CASE("isolcpus: flags are dropped from the cpu list") {
  CHECK(fp::isolcpus_cpu_list("nohz,domain,5,11") == "5,11");
  CHECK(fp::isolcpus_cpu_list("managed_irq,2-3") == "2-3");
  CHECK(fp::isolcpus_cpu_list("1-7") == "1-7");
}

TEST_CASE("os-release: Debian (captured) and Fedora, values unquoted") {
  const auto d = fp::parse_os_release(sample("vm-firecracker-amd/etc/os-release"));
  CHECK(d.at("PRETTY_NAME") == "Debian GNU/Linux 12 (bookworm)");
  CHECK(d.at("ID") == "debian");
  CHECK(d.at("VERSION_ID") == "12");
  const auto f = fp::parse_os_release(sample("amd-pstate-desktop/etc/os-release"));
  CHECK(f.at("PRETTY_NAME") == "Fedora Linux 40 (Workstation Edition)");
  CHECK(f.at("VERSION_ID") == "40");
  CHECK(f.at("VERSION_CODENAME") == "");
  CHECK(f.at("LOGO") == "fedora-logo-icon");
  const auto e = fp::parse_os_release("# comment\n\nA=\"say \\\"hi\\\" \\$HOME\"\nB='x y'\n");
  CHECK(e.at("A") == "say \"hi\" $HOME");
  CHECK(e.at("B") == "x y");
  CHECK(e.size() == 2);
}

TEST_CASE("go version: version and platform") {
  const auto v = fp::parse_go_version(sample("go/version.txt"));
  REQUIRE(v.has_value());
  CHECK(v->version == "go1.19.8");
  CHECK(v->platform == "linux/amd64");
  CHECK_FALSE(fp::parse_go_version("bash: go: command not found").has_value());
}

TEST_CASE("go version -m: a clean build in a git repo records vcs settings") {
  const auto b = fp::parse_go_version_m(sample("go/version_m_clean.txt"));
  CHECK(b.go_version == "go1.19.8");
  CHECK(b.path == "example.com/nfsample");
  CHECK(b.main_module == "example.com/nfsample (devel)");
  CHECK(b.deps.empty());
  CHECK(b.settings.size() == 13);
  CHECK(b.settings.at("-compiler") == "gc");
  CHECK(b.settings.at("CGO_ENABLED") == "1");
  CHECK(b.settings.at("CGO_CFLAGS") == "");
  CHECK(b.settings.at("GOARCH") == "amd64");
  CHECK(b.settings.at("GOOS") == "linux");
  CHECK(b.settings.at("GOAMD64") == "v1");
  CHECK(b.settings.at("vcs") == "git");
  CHECK(b.settings.at("vcs.revision") == "c0acec97c10dcc19eaa889cf2f703f36c27fe4c8");
  CHECK(b.settings.at("vcs.time") == "2026-11-30T04:42:43Z");
  CHECK(b.settings.at("vcs.modified") == "false");
  const auto dirty = fp::parse_go_version_m(sample("go/version_m_dirty.txt"));
  CHECK(dirty.settings.at("vcs.modified") == "true");
}

TEST_CASE("go version -m: replaced dependency, quoted ldflags, a test binary") {
  const auto dep = fp::parse_go_version_m(sample("go/version_m_replace_dep.txt"));
  CHECK(dep.deps == std::vector<std::string>{"example.com/dep v0.0.0 => ./dep (devel)"});
  CHECK(dep.settings.at("vcs.revision") == "3d24a6fec21229cd8f608584805023b4e575d738");

  const auto d = fp::parse_go_version_m(sample("go/version_m_dockerd_ldflags.txt"));
  CHECK(d.path == "github.com/docker/docker/cmd/dockerd");
  CHECK(d.main_module == "");
  CHECK(d.settings.at("-tags") == "apparmor,seccomp,journald");
  const std::string ldflags = d.settings.at("-ldflags");
  CHECK(ldflags.rfind(" \t\t-w \t-X \"github.com/docker/docker/dockerversion.Version=20.10.24+dfsg1\"", 0) ==
        0);
  CHECK(ldflags.find('\\') == std::string::npos);

  const auto t = fp::parse_go_version_m(sample("go/version_m_test_binary.txt"));
  CHECK(t.go_version == "go1.19.8");
  CHECK(t.path == "");
  CHECK(t.settings.empty());
}

TEST_CASE("go version -m: output that is not build info is a ParseError") {
  // `go version -m` on a non-Go file exits 0 with the message on stderr and nothing on stdout.
  CHECK(sample("go/version_m_not_go_stderr.txt") ==
        "/bin/ls: could not read Go build info from /bin/ls: not a Go executable\n");
  CHECK_THROWS_WITH_AS(fp::parse_go_version_m(""),
                       "go version -m: expected '<file>: go<version>' on the first line, got ''",
                       noisefloor::ParseError);
}

TEST_CASE("meminfo: totals and swap in kB") {
  const auto vm = fp::parse_meminfo(sample("vm-firecracker-amd/proc/meminfo"));
  CHECK(vm.mem_total_kb == 24684084);
  CHECK(vm.swap_total_kb == 0);
  CHECK(vm.swap_free_kb == 0);
  const auto laptop = fp::parse_meminfo(sample("intel-laptop-pstate/proc/meminfo"));
  CHECK(laptop.mem_total_kb == 16116232);
  CHECK(laptop.swap_total_kb == 2097148);
  CHECK(laptop.swap_free_kb == 1835004);
  const auto partial = fp::parse_meminfo("MemTotal: lots kB\nSwapTotal: 5 kB\n");
  CHECK_FALSE(partial.mem_total_kb.has_value());
  CHECK(partial.swap_total_kb == 5);
  CHECK_FALSE(partial.swap_free_kb.has_value());
}

TEST_CASE("loadavg: averages and runnable/total tasks") {
  const auto l = fp::parse_loadavg(sample("vm-firecracker-amd/proc/loadavg"));
  REQUIRE(l.has_value());
  CHECK(l->one == 0.83);
  CHECK(l->five == 0.54);
  CHECK(l->fifteen == 0.25);
  CHECK(l->running == 3);
  CHECK(l->total == 124);
  CHECK_FALSE(fp::parse_loadavg("0.1 0.2 0.3").has_value());
  CHECK_FALSE(fp::parse_loadavg("0.1 0.2 x 1/2 3").has_value());
  CHECK_FALSE(fp::parse_loadavg("0.1 0.2 0.3 12 3").has_value());
}

TEST_CASE("selected bracket") {
  CHECK(fp::selected_bracket("always [madvise] never\n") == "madvise");
  CHECK(fp::selected_bracket("[always] madvise never") == "always");
  CHECK(fp::selected_bracket("always defer defer+madvise [madvise] never") == "madvise");
  CHECK(fp::selected_bracket("always madvise never") == "");
}

TEST_CASE("hypervisor from dmi strings") {
  CHECK(fp::hypervisor_from_dmi("QEMU", "Standard PC (Q35 + ICH9, 2009)") == "QEMU");
  CHECK(fp::hypervisor_from_dmi("VMware, Inc.", "VMware Virtual Platform") == "VMware");
  CHECK(fp::hypervisor_from_dmi("Microsoft Corporation", "Virtual Machine") == "Hyper-V");
  CHECK(fp::hypervisor_from_dmi("innotek GmbH", "VirtualBox") == "VirtualBox");
  CHECK(fp::hypervisor_from_dmi("Xen", "HVM domU") == "Xen");
  CHECK(fp::hypervisor_from_dmi("Google", "Google Compute Engine") == "Google Compute Engine");
  CHECK(fp::hypervisor_from_dmi("Amazon EC2", "c6i.large") == "Amazon EC2 (Nitro)");
  CHECK(fp::hypervisor_from_dmi("Red Hat", "KVM") == "KVM");
  CHECK_FALSE(fp::hypervisor_from_dmi("Amazon EC2", "c5.metal").has_value());
  CHECK_FALSE(fp::hypervisor_from_dmi("Dell Inc.", "XPS 13 9380").has_value());
  CHECK_FALSE(fp::hypervisor_from_dmi("Microsoft Corporation", "Surface Laptop 5").has_value());
  CHECK_FALSE(fp::hypervisor_from_dmi("", "").has_value());
}

TEST_CASE("hypervisor from clocksources: this VM (captured) offers kvm-clock") {
  CHECK(fp::hypervisor_from_clocksources(
            sample("vm-firecracker-amd/sys/devices/system/clocksource/clocksource0/"
                   "available_clocksource")) == "KVM");
  CHECK(fp::hypervisor_from_clocksources("tsc hyperv_clocksource_tsc_page acpi_pm") == "Hyper-V");
  CHECK_FALSE(fp::hypervisor_from_clocksources("tsc hpet acpi_pm \n").has_value());
}

TEST_CASE("container hints: cgroup paths and the root filesystem") {
  CHECK_FALSE(fp::container_from_cgroup(sample("vm-firecracker-amd/proc/1/cgroup")).has_value());
  CHECK_FALSE(fp::container_from_cgroup("0::/init.scope\n").has_value());
  CHECK(fp::container_from_cgroup("12:cpu,cpuacct:/docker/3f1c0a\n0::/\n") == "docker");
  CHECK(fp::container_from_cgroup("0::/kubepods.slice/kubepods-pod1.slice/cri-containerd-ab\n") ==
        "kubepods");
  CHECK(fp::root_fs_type(sample("vm-firecracker-amd/proc/self/mountinfo")) == "ext4");
  CHECK(fp::root_fs_type("512 480 0:52 / / rw,relatime master:1 - overlay overlay "
                         "rw,lowerdir=/var/lib/docker/overlay2/l/A\n") == "overlay");
  CHECK_FALSE(fp::root_fs_type("22 27 0:21 / /proc rw - proc proc rw\n").has_value());
}

TEST_CASE("facts: known, unknown and lookups by path") {
  const json host = {{"cpu",
                      {{"model_name", fp::known("AMD EPYC")},
                       {"microcode", fp::unknown("no 'microcode' in /proc/cpuinfo")}}}};
  CHECK(fp::known("x") == json{{"value", "x"}});
  CHECK(fp::unknown("why") == json{{"value", nullptr}, {"unknown", "why"}});
  REQUIRE(fp::known_value(host, "cpu.model_name") != nullptr);
  CHECK(*fp::known_value(host, "cpu.model_name") == "AMD EPYC");
  CHECK(fp::known_value(host, "cpu.microcode") == nullptr);
  CHECK(fp::known_value(host, "cpu") == nullptr);
  CHECK(fp::known_value(host, "cpu.nothing.here") == nullptr);
  CHECK(fp::unknown_reason(host, "cpu.microcode") == "no 'microcode' in /proc/cpuinfo");
  CHECK(fp::unknown_reason(host, "cpu.vendor") == "missing");
  CHECK(fp::unknown_reason(host, "cpu.model_name") == "");
  CHECK(fp::is_fact(host["cpu"]["microcode"]));
  CHECK_FALSE(fp::is_known(host["cpu"]["microcode"]));
  CHECK_FALSE(fp::is_fact(host["cpu"]));
}

TEST_CASE("per-cpu values collapse to one value or group by cpu list") {
  CHECK(fp::collapse_per_cpu({{0, "performance"}, {1, "performance"}}) == "performance");
  CHECK(fp::collapse_per_cpu({{0, 400000}, {1, 400000}, {2, 800000}, {3, 400000}}) ==
        json{{"0,1,3", 400000}, {"2", 800000}});
  CHECK(fp::collapse_per_cpu({}).is_null());
}
