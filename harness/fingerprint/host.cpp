#include "fingerprint/host.hpp"

#include <fmt/format.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <exception>
#include <nlohmann/json.hpp>
#include <set>
#include <system_error>
#include <utility>

#include "files/files.hpp"
#include "fingerprint/parse.hpp"
#include "hash/sha256.hpp"
#include "model/cpulist.hpp"
#include "process/process.hpp"
#include "text/text.hpp"

extern char** environ;

namespace noisefloor::fingerprint {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using text::trim;

// Reads files under root; paths are given as absolute paths of the probed system ("/proc/...").
class Reader {
 public:
  explicit Reader(fs::path root) : root_(std::move(root)) {}

  fs::path under(std::string_view abs) const { return files::under(root_, abs); }

  bool exists(std::string_view abs) const {
    std::error_code ec;
    return fs::exists(under(abs), ec);
  }

  std::optional<std::string> read(std::string_view abs) const { return files::try_read(under(abs)); }

  // Why abs could not be read, for an unknown fact.
  std::string why(std::string_view abs) const {
    return (exists(abs) ? "cannot read " : "missing ") + std::string(abs);
  }

  // A trimmed text fact.
  json text(std::string_view abs) const {
    const auto t = read(abs);
    return t ? known(std::string(trim(*t))) : unknown(why(abs));
  }

  std::optional<long long> integer(std::string_view abs) const {
    const auto t = read(abs);
    if (!t) return std::nullopt;
    const auto s = trim(*t);
    long long v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
    return v;
  }

  json integer_fact(std::string_view abs) const {
    const auto t = read(abs);
    if (!t) return unknown(why(abs));
    const auto v = integer(abs);
    if (!v) return unknown("not an integer in " + std::string(abs) + ": '" + std::string(trim(*t)) + "'");
    return known(*v);
  }

  // Sorted numeric suffixes of entries named <prefix><n> in directory abs ("node", "index").
  std::vector<int> numbered(std::string_view abs, std::string_view prefix) const {
    std::vector<int> out;
    std::error_code ec;
    for (fs::directory_iterator it(under(abs), ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
      int n = 0;
      const char* b = name.data() + prefix.size();
      const char* e = name.data() + name.size();
      auto [ptr, perr] = std::from_chars(b, e, n);
      if (perr == std::errc{} && ptr == e) out.push_back(n);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  std::vector<std::string> entries(std::string_view abs) const {
    std::vector<std::string> out;
    std::error_code ec;
    for (fs::directory_iterator it(under(abs), ec), end; !ec && it != end; it.increment(ec))
      out.push_back(it->path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  fs::path root_;
};

std::string cpu_path(int cpu, std::string_view rest) {
  return std::string(kCpuDir) + "/cpu" + std::to_string(cpu) + "/" + std::string(rest);
}

// Runs f; any exception becomes an unknown fact, so one broken probe cannot sink the others.
template <typename F>
json guarded(std::string_view what, F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    return unknown(std::string(what) + " probe failed: " + e.what());
  }
}

std::optional<std::vector<int>> online_cpus(const Reader& r) {
  const auto t = r.read(std::string(kCpuDir) + "/online");
  if (!t) return std::nullopt;
  return model::parse_cpu_list(*t);
}

json probe_cpu(const Reader& r, const std::optional<CpuInfo>& info,
               const std::optional<std::vector<int>>& online) {
  json cpu = json::object();
  const std::string missing_cpuinfo = r.why("/proc/cpuinfo");
  auto field = [&](const std::string& value, const char* name) {
    if (!info) return unknown(missing_cpuinfo);
    if (value.empty()) return unknown(std::string("no '") + name + "' in /proc/cpuinfo");
    return known(value);
  };
  cpu["vendor"] = field(info ? info->vendor : "", "vendor_id");
  cpu["model_name"] = field(info ? info->model_name : "", "model name");
  cpu["family"] = field(info ? info->family : "", "cpu family");
  cpu["model"] = field(info ? info->model : "", "model");
  cpu["stepping"] = field(info ? info->stepping : "", "stepping");
  cpu["microcode"] = field(info ? info->microcode : "", "microcode");
  cpu["arch_hint"] = info && !info->arch_hint.empty() ? known(info->arch_hint)
                                                      : unknown(
                                                            "no 'CPU implementer' in "
                                                            "/proc/cpuinfo (not arm)");
  cpu["hypervisor_flag"] = info ? known(info->hypervisor_flag) : unknown(missing_cpuinfo);

  const std::string online_file = std::string(kCpuDir) + "/online";
  if (online) {
    cpu["online"] = known(model::format_cpu_list(*online));
    cpu["logical"] = known(static_cast<int>(online->size()));
  } else {
    cpu["online"] = unknown(r.why(online_file));
    cpu["logical"] = info && info->logical > 0 ? known(info->logical) : unknown(missing_cpuinfo);
  }

  // Cores and sockets from sysfs topology: a core is a (package, core_id) pair.
  std::set<std::pair<long long, long long>> cores;
  std::set<long long> sockets;
  std::string topology_problem;
  if (!online) topology_problem = r.why(online_file);
  for (const int c : online.value_or(std::vector<int>{})) {
    const auto package = r.integer(cpu_path(c, "topology/physical_package_id"));
    const auto core = r.integer(cpu_path(c, "topology/core_id"));
    if (!package || !core) {
      topology_problem = r.why(cpu_path(c, "topology/core_id"));
      break;
    }
    cores.emplace(*package, *core);
    sockets.insert(*package);
  }
  if (topology_problem.empty() && !cores.empty()) {
    cpu["cores"] = known(static_cast<int>(cores.size()));
    cpu["sockets"] = known(static_cast<int>(sockets.size()));
    if (online->size() % cores.size() == 0) {
      cpu["threads_per_core"] = known(static_cast<int>(online->size() / cores.size()));
    } else {
      cpu["threads_per_core"] = unknown("uneven threads per core (hybrid cpu or offline siblings)");
    }
  } else {
    for (const char* k : {"cores", "sockets", "threads_per_core"}) {
      cpu[k] = unknown(topology_problem.empty() ? "no online cpus" : topology_problem);
    }
  }
  return cpu;
}

json probe_numa(const Reader& r) {
  const std::string dir = "/sys/devices/system/node";
  const auto nodes = r.numbered(dir, "node");
  if (nodes.empty()) return unknown("missing " + dir + "/node* (kernel without numa)");
  json out = json::array();
  for (const int n : nodes) {
    const auto list = r.read(dir + "/node" + std::to_string(n) + "/cpulist");
    out.push_back({{"node", n}, {"cpulist", list ? json(std::string(trim(*list))) : json()}});
  }
  return known(out);
}

json probe_caches(const Reader& r, int cpu) {
  const std::string dir = cpu_path(cpu, "cache");
  const auto indexes = r.numbered(dir, "index");
  if (indexes.empty()) return unknown("missing " + dir + "/index*");
  json out = json::array();
  for (const int i : indexes) {
    const std::string base = dir + "/index" + std::to_string(i) + "/";
    json c = json::object();
    const auto level = r.integer(base + "level");
    c["level"] = level ? json(*level) : json();
    for (const char* k : {"type", "size", "shared_cpu_list"}) {
      const auto t = r.read(base + k);
      c[k] = t ? json(std::string(trim(*t))) : json();
    }
    out.push_back(c);
  }
  return known(out);
}

json probe_smt(const Reader& r) {
  json smt = json::object();
  const std::string active = std::string(kCpuDir) + "/smt/active";
  const auto a = r.integer(active);
  smt["active"] = a ? known(*a != 0) : unknown(r.why(active));
  smt["control"] = r.text(std::string(kCpuDir) + "/smt/control");
  return smt;
}

json probe_frequency(const Reader& r, const std::optional<std::vector<int>>& online) {
  json f = json::object();
  const std::vector<int> cpus = online.value_or(std::vector<int>{0});
  const int first = cpus.empty() ? 0 : cpus.front();
  const std::string first_dir = cpu_path(first, "cpufreq");
  const bool have_cpufreq = r.exists(first_dir);
  const std::string no_cpufreq = "missing " + first_dir +
                                 " (no cpufreq driver: the platform or hypervisor controls the "
                                 "frequency)";

  auto per_cpu = [&](const char* file, bool numeric) -> json {
    if (!have_cpufreq) return unknown(no_cpufreq);
    std::map<int, json> values;
    for (const int c : cpus) {
      const std::string path = cpu_path(c, std::string("cpufreq/") + file);
      if (numeric) {
        if (const auto v = r.integer(path)) values[c] = *v;
      } else if (const auto t = r.read(path)) {
        values[c] = std::string(trim(*t));
      }
    }
    if (values.empty()) return unknown(r.why(cpu_path(first, std::string("cpufreq/") + file)));
    return known(collapse_per_cpu(values));
  };
  f["driver"] = per_cpu("scaling_driver", false);
  f["governor"] = per_cpu("scaling_governor", false);
  f["min_khz"] = per_cpu("scaling_min_freq", true);
  f["max_khz"] = per_cpu("scaling_max_freq", true);
  f["cur_khz"] = per_cpu("scaling_cur_freq", true);

  const std::string no_turbo = std::string(kCpuDir) + "/intel_pstate/no_turbo";
  const std::string boost = std::string(kCpuDir) + "/cpufreq/boost";
  const std::string policy_boost =
      std::string(kCpuDir) + "/cpufreq/policy" + std::to_string(first) + "/boost";
  if (const auto v = r.integer(no_turbo)) {
    f["turbo"] = known(*v == 0);
    f["turbo"]["source"] = no_turbo;
  } else if (const auto b = r.integer(boost)) {
    f["turbo"] = known(*b != 0);
    f["turbo"]["source"] = boost;
  } else if (const auto pb = r.integer(policy_boost)) {
    f["turbo"] = known(*pb != 0);
    f["turbo"]["source"] = policy_boost;
  } else {
    f["turbo"] = unknown("no turbo control found (" + no_turbo + ", " + boost + ", " + policy_boost + ")");
  }
  f["intel_pstate_status"] = r.text(std::string(kCpuDir) + "/intel_pstate/status");
  f["amd_pstate_status"] = r.text(std::string(kCpuDir) + "/amd_pstate/status");
  return f;
}

json probe_isolation(const Reader& r, const std::optional<KernelCmdline>& cmdline) {
  json iso = json::object();
  const std::string isolated = std::string(kCpuDir) + "/isolated";
  if (const auto t = r.read(isolated)) {
    iso["isolated"] = known(std::string(trim(*t)));
    iso["isolated"]["source"] = isolated;
  } else if (cmdline) {
    iso["isolated"] = known(cmdline->isolcpus ? isolcpus_cpu_list(*cmdline->isolcpus) : std::string());
    iso["isolated"]["source"] = "/proc/cmdline isolcpus=";
  } else {
    iso["isolated"] = unknown(r.why(isolated));
  }
  const std::string nohz = std::string(kCpuDir) + "/nohz_full";
  if (const auto t = r.read(nohz)) {
    const auto v = trim(*t);
    iso["nohz_full"] = known(v == "(null)" ? std::string() : std::string(v));
  } else {
    iso["nohz_full"] = unknown(r.why(nohz) + " (kernel without CONFIG_NO_HZ_FULL)");
  }
  auto raw = [&](const std::optional<std::string>& v) {
    return cmdline ? known(v.value_or("")) : unknown(r.why("/proc/cmdline"));
  };
  iso["cmdline_isolcpus"] = raw(cmdline ? cmdline->isolcpus : std::nullopt);
  iso["cmdline_nohz_full"] = raw(cmdline ? cmdline->nohz_full : std::nullopt);
  iso["cmdline_rcu_nocbs"] = raw(cmdline ? cmdline->rcu_nocbs : std::nullopt);
  return iso;
}

json probe_os(const Reader& r) {
  json os = json::object();
  std::string file = "/etc/os-release";
  auto text = r.read(file);
  if (!text) {
    file = "/usr/lib/os-release";
    text = r.read(file);
  }
  const auto fields = text ? parse_os_release(*text) : std::map<std::string, std::string>{};
  for (const auto& [key, name] : {std::pair{"PRETTY_NAME", "pretty_name"}, std::pair{"ID", "id"},
                                  std::pair{"VERSION_ID", "version_id"}}) {
    const auto it = fields.find(key);
    if (!text) {
      os[name] = unknown(r.why("/etc/os-release") + " and /usr/lib/os-release");
    } else if (it == fields.end()) {
      os[name] = unknown(std::string("no ") + key + " in " + file);
    } else {
      os[name] = known(it->second);
    }
  }
  return os;
}

json probe_virtualization(const Reader& r, const std::optional<CpuInfo>& info) {
  json v = json::object();
  json evidence = json::array();
  std::optional<std::string> hypervisor;
  const auto vendor = r.read("/sys/class/dmi/id/sys_vendor");
  const auto product = r.read("/sys/class/dmi/id/product_name");
  if (vendor || product) {
    if (auto h = hypervisor_from_dmi(vendor.value_or(""), product.value_or(""))) {
      evidence.push_back("dmi: '" + std::string(trim(vendor.value_or(""))) + "' / '" +
                         std::string(trim(product.value_or(""))) + "'");
      hypervisor = h;
    }
  }
  if (const auto t = r.read("/sys/hypervisor/type")) {
    const std::string type(trim(*t));
    if (!type.empty()) {
      evidence.push_back("/sys/hypervisor/type: '" + type + "'");
      if (!hypervisor) hypervisor = type == "xen" ? "Xen" : type;
    }
  }
  const auto clocks = r.read("/sys/devices/system/clocksource/clocksource0/available_clocksource");
  if (clocks) {
    if (auto h = hypervisor_from_clocksources(*clocks)) {
      evidence.push_back("paravirtual clocksource available: '" + std::string(trim(*clocks)) + "'");
      if (!hypervisor) hypervisor = h;
    }
  }
  if (info && info->hypervisor_flag) evidence.push_back("cpuinfo flag 'hypervisor'");

  if (!evidence.empty()) {
    v["virtual"] = known(true);
  } else if (info) {
    // x86 hypervisors set the CPUID flag; arm64 has none, so absence there is weaker evidence.
    v["virtual"] = known(false);
  } else {
    v["virtual"] = unknown(r.why("/proc/cpuinfo") + " and no dmi or clocksource hint");
  }
  v["virtual"]["evidence"] = evidence;
  if (hypervisor) {
    v["hypervisor"] = known(*hypervisor);
  } else if (!evidence.empty()) {
    v["hypervisor"] = unknown(
        "virtual, but neither dmi, /sys/hypervisor nor the clocksource "
        "names the hypervisor");
  } else {
    v["hypervisor"] = known("none");
  }
  return v;
}

json probe_container(const Reader& r) {
  json evidence = json::array();
  std::string kind;
  bool strong = false;
  if (r.exists("/.dockerenv")) {
    evidence.push_back("/.dockerenv exists");
    kind = "docker";
  }
  if (r.exists("/run/.containerenv")) {
    evidence.push_back("/run/.containerenv exists");
    kind = "podman";
    strong = true;
  }
  const auto cgroup = r.read("/proc/1/cgroup");
  if (cgroup) {
    if (auto c = container_from_cgroup(*cgroup)) {
      evidence.push_back("/proc/1/cgroup names '" + *c + "'");
      if (kind.empty()) kind = *c;
      strong = true;
    }
  }
  const auto mountinfo = r.read("/proc/self/mountinfo");
  if (mountinfo) {
    const auto fs_type = root_fs_type(*mountinfo);
    if (fs_type && (*fs_type == "overlay" || *fs_type == "aufs")) {
      evidence.push_back("root filesystem is " + *fs_type);
      strong = true;
    }
  }
  // /.dockerenv alone is weak (a vfs-backed container, or a vm image made from a container image):
  // the fact says no, keeping its evidence and why, so doctor and fingerprint say the same.
  json inside = known(strong);
  inside["evidence"] = evidence;
  if (!kind.empty()) inside["kind"] = kind;
  if (!evidence.empty() && !strong) {
    inside["note"] =
        "only /.dockerenv, which a vm image built from a container image also has: probably not in a "
        "container (a vfs-backed one cannot be told apart)";
  }
  if (evidence.empty() && !cgroup && !mountinfo) {
    inside = unknown(r.why("/proc/1/cgroup") + " and " + r.why("/proc/self/mountinfo"));
  }
  return json{{"inside", inside}};
}

json probe_memory(const Reader& r) {
  json m = json::object();
  const auto text = r.read("/proc/meminfo");
  const MemInfo mi = text ? parse_meminfo(*text) : MemInfo{};
  auto fact = [&](const std::optional<std::int64_t>& v, const char* key) {
    if (!text) return unknown(r.why("/proc/meminfo"));
    return v ? known(*v) : unknown(std::string("no ") + key + " in /proc/meminfo");
  };
  m["total_kb"] = fact(mi.mem_total_kb, "MemTotal");
  m["swap_total_kb"] = fact(mi.swap_total_kb, "SwapTotal");
  m["swap_free_kb"] = fact(mi.swap_free_kb, "SwapFree");
  if (mi.swap_total_kb && mi.swap_free_kb) {
    m["swap_used_kb"] = known(*mi.swap_total_kb - *mi.swap_free_kb);
  } else {
    m["swap_used_kb"] = fact(std::nullopt, "SwapTotal/SwapFree");
  }
  return m;
}

json probe_power(const Reader& r) {
  const std::string dir = "/sys/class/power_supply";
  const auto names = r.entries(dir);
  std::optional<bool> mains_online;
  bool battery = false;
  bool discharging = false;
  json evidence = json::array();
  for (const auto& name : names) {
    const auto type = r.read(dir + "/" + name + "/type");
    if (!type) continue;
    const std::string t(trim(*type));
    if (t == "Mains" || t == "USB") {
      const auto online = r.integer(dir + "/" + name + "/online");
      evidence.push_back(name + ": " + t +
                         " online=" + (online ? std::to_string(*online) : std::string("?")));
      if (online) mains_online = mains_online.value_or(false) || *online != 0;
    } else if (t == "Battery") {
      battery = true;
      const auto status = r.read(dir + "/" + name + "/status");
      const std::string s = status ? std::string(trim(*status)) : "?";
      evidence.push_back(name + ": Battery status=" + s);
      if (s == "Discharging") discharging = true;
    }
  }
  std::string value;
  if (mains_online) {
    value = *mains_online ? "ac" : (battery ? "battery" : "none");
  } else if (battery) {
    value = discharging ? "battery" : "ac";
  } else {
    value = "none";  // servers and most VMs expose no power supply
  }
  json fact = known(value);
  fact["evidence"] = evidence;
  return fact;
}

json probe_cgroup(const Reader& r) {
  json c = json::object();
  if (r.exists("/sys/fs/cgroup/cgroup.controllers")) {
    c["version"] = known(2);
    c["layout"] = known("v2");
  } else if (r.exists("/sys/fs/cgroup/cpu") || r.exists("/sys/fs/cgroup/cpu,cpuacct")) {
    c["version"] = known(1);
    c["layout"] = known(r.exists("/sys/fs/cgroup/unified") ? "hybrid" : "v1");
  } else {
    c["version"] = unknown("neither /sys/fs/cgroup/cgroup.controllers nor /sys/fs/cgroup/cpu");
    c["layout"] = c["version"];
  }
  return c;
}

std::string first_line(std::string_view text) {
  const auto t = trim(text);
  return std::string(t.substr(0, t.find('\n')));
}

// Runs a tool; the trimmed stdout, or the reason it failed.
std::pair<std::optional<std::string>, std::string> run_tool(const std::vector<std::string>& argv) {
  std::string shown;
  for (const auto& a : argv) shown += (shown.empty() ? "" : " ") + a;
  try {
    const auto r = process::capture(argv);
    if (r.exit_code != 0) {
      const std::string err = first_line(r.err.empty() ? r.out : r.err);
      return {std::nullopt,
              "'" + shown + "' exited with " + std::to_string(r.exit_code) + (err.empty() ? "" : ": " + err)};
    }
    if (trim(r.out).empty() && !trim(r.err).empty()) {
      // `go version -m` on a file that is not a Go binary exits 0 with only a stderr message.
      return {std::nullopt, "'" + shown + "' printed no output: " + first_line(r.err)};
    }
    return {r.out, ""};
  } catch (const std::exception& e) {
    return {std::nullopt, "cannot run '" + shown + "': " + e.what()};
  }
}

json sha256_of_file(const fs::path& file) {
  const auto data = files::try_read(file);
  return data ? known(hash::sha256_hex(*data)) : unknown("cannot read '" + file.string() + "'");
}

}  // namespace

LoadReading probe_load(const fs::path& root) {
  try {
    const Reader r(root);
    const auto text = r.read("/proc/loadavg");
    if (!text) return {std::nullopt, r.why("/proc/loadavg")};
    const auto l = parse_loadavg(*text);
    if (!l) return {std::nullopt, "malformed /proc/loadavg: '" + std::string(trim(*text)) + "'"};
    return {LoadAverage{l->one, l->five, l->fifteen, l->running, l->total}, ""};
  } catch (const std::exception& e) {
    return {std::nullopt, std::string("cannot probe load: ") + e.what()};
  }
}

FactTree probe_host(const fs::path& root) {
  const Reader r(root);
  json host = json::object();
  std::optional<CpuInfo> info;
  std::optional<KernelCmdline> cmdline;
  std::optional<std::vector<int>> online;
  try {
    if (const auto t = r.read("/proc/cpuinfo")) info = parse_cpuinfo(*t);
    if (const auto t = r.read("/proc/cmdline")) cmdline = parse_cmdline(*t);
    online = online_cpus(r);
  } catch (const std::exception&) {
    // Leave them unset: each section below then reports what it could not read.
  }
  const int first_cpu = online && !online->empty() ? online->front() : 0;

  host["hostname"] = guarded("hostname", [&] {
    json h = r.text("/proc/sys/kernel/hostname");
    return is_known(h) ? h : r.text("/etc/hostname");
  });
  host["cpu"] = guarded("cpu", [&] { return probe_cpu(r, info, online); });
  host["numa"] = guarded("numa", [&] { return probe_numa(r); });
  host["caches"] = guarded("caches", [&] { return probe_caches(r, first_cpu); });
  host["smt"] = guarded("smt", [&] { return probe_smt(r); });
  host["frequency"] = guarded("frequency", [&] { return probe_frequency(r, online); });
  host["isolation"] = guarded("isolation", [&] { return probe_isolation(r, cmdline); });
  host["kernel"] = guarded("kernel", [&] {
    return json{{"release", r.text("/proc/sys/kernel/osrelease")},
                {"version", r.text("/proc/sys/kernel/version")},
                {"cmdline", r.text("/proc/cmdline")}};
  });
  host["os"] = guarded("os", [&] { return probe_os(r); });
  host["virtualization"] = guarded("virtualization", [&] { return probe_virtualization(r, info); });
  host["container"] = guarded("container", [&] { return probe_container(r); });
  host["memory"] = guarded("memory", [&] { return probe_memory(r); });
  host["thp"] = guarded("thp", [&] {
    const std::string file = "/sys/kernel/mm/transparent_hugepage/enabled";
    const auto t = r.read(file);
    if (!t) return unknown(r.why(file));
    const std::string sel = selected_bracket(*t);
    return sel.empty() ? unknown("no [selected] value in " + file) : known(sel);
  });
  host["aslr"] = guarded("aslr", [&] { return r.integer_fact("/proc/sys/kernel/randomize_va_space"); });
  host["clocksource"] = guarded("clocksource", [&] {
    return r.text("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  });
  host["power"] = guarded("power", [&] { return probe_power(r); });
  host["load"] = probe_load(root);  // LoadReading, in the fact shape
  host["cgroup"] = guarded("cgroup", [&] { return probe_cgroup(r); });
  // What the kernel lets the probe count (probe/perf_counters.hpp): a CPU PMU driver for the hardware
  // counters, and the paranoid level that decides who may count at all.
  host["perf"] = guarded("perf", [&] {
    bool pmu = false;
    for (const char* device : {"cpu", "cpu_core", "cpu_atom", "armv8_pmuv3_0"})
      if (r.exists(fmt::format("/sys/bus/event_source/devices/{}/type", device))) pmu = true;
    return json{{"paranoid", r.integer_fact("/proc/sys/kernel/perf_event_paranoid")}, {"pmu", known(pmu)}};
  });
  host["tools"] = guarded("tools", [&] { return json{{"perflock", known(r.exists("/usr/bin/perflock"))}}; });
  return FactTree(std::move(host));
}

FactTree probe_this_host() {
  FactTree host = probe_host("/");
  json& h = host.document();
  struct utsname u {};
  h["uname"] = ::uname(&u) == 0 ? known(fmt::format("{} {} {}", u.sysname, u.release, u.machine))
                                : unknown("uname(2) failed");
  h["one_line"] =
      known(fmt::format("{} · {} · {} CPUs · {} · {}", host.show("hostname"), host.show("cpu.model_name"),
                        host.show("cpu.logical"), host.show("uname"), host.show("os.pretty_name")));
  return host;
}

namespace {

// The benchmark binary: its path, hash and, for a Go binary, how it was built.
json binary_facts(const fs::path& binary) {
  json b = json::object();
  b["path"] = known(binary.string());
  b["sha256"] = sha256_of_file(binary);
  const auto [out, why] = run_tool({"go", "version", "-m", binary.string()});
  if (!out) {
    b["go"] = unknown(why);
  } else {
    try {
      const GoBuildInfo gi = parse_go_version_m(*out);
      b["go"] = known({{"go_version", gi.go_version},
                       {"path", gi.path},
                       {"main_module", gi.main_module},
                       {"settings", gi.settings},
                       {"deps", gi.deps}});
    } catch (const std::exception& e) {
      b["go"] = unknown(e.what());
    }
  }
  return b;
}

// valgrind's version and the settings simulated counts use (model::valgrind_settings).
json valgrind_facts(const std::string& settings) {
  const auto [out, why] = run_tool({"valgrind", "--version"});
  return json{{"version", out ? known(first_line(*out)) : unknown(why)}, {"settings", known(settings)}};
}

}  // namespace

FactTree probe_toolchain(const std::optional<fs::path>& benchmark_binary,
                         const std::optional<fs::path>& source_dir, bool native,
                         const std::optional<std::string>& valgrind_settings) {
  json tc = json::object();
  tc["go"] = guarded("go", [&] {
    const auto [out, why] = run_tool({"go", "version"});
    if (!out) return json{{"version", unknown(why)}, {"platform", unknown(why)}};
    const auto v = parse_go_version(*out);
    if (!v) {
      const json u = unknown("unexpected 'go version' output: '" + first_line(*out) + "'");
      return json{{"version", u}, {"platform", u}};
    }
    return json{{"version", known(v->version)}, {"platform", known(v->platform)}};
  });
  if (benchmark_binary) tc["binary"] = guarded("binary", [&] { return binary_facts(*benchmark_binary); });
  if (source_dir) {
    tc["source"] = guarded("source", [&] {
      json s = json::object();
      s["dir"] = known(source_dir->string());
      const auto [head, head_why] = run_tool({"git", "-C", source_dir->string(), "rev-parse", "HEAD"});
      s["commit"] = head ? known(std::string(trim(*head))) : unknown(head_why);
      const auto [status, status_why] =
          run_tool({"git", "-C", source_dir->string(), "status", "--porcelain"});
      s["dirty"] = status ? known(!trim(*status).empty()) : unknown(status_why);
      return s;
    });
  }
  if (native) {
    for (const auto& entry : {std::pair{"cxx", "c++"}, std::pair{"cc", "cc"}}) {
      const char* key = entry.first;  // not a structured binding: clang 14 cannot capture one
      const char* tool = entry.second;
      tc[key] = guarded(tool, [&] {
        const auto [out, why] = run_tool({tool, "--version"});
        return out ? known(first_line(*out)) : unknown(why);
      });
    }
  }
  if (valgrind_settings)
    tc["valgrind"] = guarded("valgrind", [&] { return valgrind_facts(*valgrind_settings); });
  return FactTree(std::move(tc));
}

std::map<std::string, std::string> probe_env(
    const std::function<std::optional<std::string>(const std::string&)>& getenv,
    const std::vector<std::string>& environ_names) {
  static const char* kNames[] = {
      "GOMAXPROCS",     "GOGC",       "GOMEMLIMIT",      "GODEBUG",         "GOTOOLCHAIN",
      "GOAMD64",        "GOARM",      "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
      "GLIBC_TUNABLES", "LD_PRELOAD", "LD_LIBRARY_PATH", "PYTHONHASHSEED"};
  std::set<std::string> names(std::begin(kNames), std::end(kNames));
  for (const auto& n : environ_names) {
    if (n.rfind("MALLOC_", 0) == 0) names.insert(n);
  }
  std::map<std::string, std::string> out;
  for (const auto& n : names) {
    if (auto v = getenv(n)) out[n] = *v;
  }
  return out;
}

std::vector<std::string> environment_names() {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry(*e);
    out.push_back(entry.substr(0, entry.find('=')));
  }
  return out;
}

std::map<std::string, std::string> probe_this_env() {
  return probe_env(
      [](const std::string& name) -> std::optional<std::string> {
        const char* v = std::getenv(name.c_str());
        return v ? std::optional<std::string>(v) : std::nullopt;
      },
      environment_names());
}

}  // namespace noisefloor::fingerprint
