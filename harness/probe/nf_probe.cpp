// nf-probe: the entrypoint of noisefloor's auto image, `/noisefloor/probe -- <benchmark argv...>`.
//
// Prints what the container really got (affinity, cgroup limits, user) to stderr as
// `noisefloor-probe: <key>=<value>` lines, then replaces itself with the benchmark through
// execv(2): no PATH search, no shell, same pid, stdout untouched. The key set and meanings are
// the contract parsed by probe/probe_report.hpp; a value that cannot be read is
// `unknown (<reason>)`, never a guess.
//
// Built static (the image has no libc of its own when the benchmark is static) and linked
// against nothing from noisefloor. Exit status 127 when the benchmark cannot be executed.
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "text/text.hpp"  // header-only trim: the probe links nothing of noisefloor

namespace {

constexpr int kProbeFormatVersion = 1;
constexpr const char* kCgroupRoot = "/sys/fs/cgroup";

void emit(const std::string& key, std::string value) {
  // One line per key: a value must never break the line format.
  for (char& c : value) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  std::fprintf(stderr, "noisefloor-probe: %s=%s\n", key.c_str(), value.c_str());
}

std::string unknown(const std::string& reason) { return "unknown (" + reason + ")"; }

std::string trim(std::string_view s) { return std::string(noisefloor::text::trim(s)); }

// The whole file, or the errno of the failure.
struct FileText {
  bool ok = false;
  std::string text;
  int error = 0;
};

FileText read_file(const std::string& path) {
  FileText result;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    result.error = errno;
    return result;
  }
  char buffer[4096];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      result.error = errno;
      ::close(fd);
      return result;
    }
    if (n == 0) break;
    result.text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  result.ok = true;
  return result;
}

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const auto at = s.find(sep, start);
    out.push_back(s.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) break;
    start = at + 1;
  }
  return out;
}

// /proc/self/cgroup: "hierarchy-id:controller,list:/path" (v1) or "0::/path" (v2).
struct CgroupMembership {
  bool readable = false;
  int error = 0;
  bool has_v1_lines = false;
  bool has_v2_line = false;
  std::string v2_path;
  std::map<std::string, std::string> v1_path;   // controller → path
  std::map<std::string, std::string> v1_mount;  // controller → its comma list ("cpu,cpuacct")
};

CgroupMembership read_membership() {
  CgroupMembership m;
  const FileText file = read_file("/proc/self/cgroup");
  if (!file.ok) {
    m.error = file.error;
    return m;
  }
  m.readable = true;
  for (const std::string& line : split(file.text, '\n')) {
    const auto first = line.find(':');
    if (first == std::string::npos) continue;
    const auto second = line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (line.compare(0, first, "0") == 0 && controllers.empty()) {
      m.has_v2_line = true;
      m.v2_path = path;
      continue;
    }
    if (controllers.empty()) continue;
    m.has_v1_lines = true;
    for (const std::string& c : split(controllers, ',')) {
      // "name=systemd" is a named hierarchy, not a controller.
      if (c.empty() || c.find('=') != std::string::npos) continue;
      m.v1_path[c] = path;
      m.v1_mount[c] = controllers;
    }
  }
  return m;
}

// 2 when the unified hierarchy is mounted at /sys/fs/cgroup, 1 when /proc/self/cgroup names v1
// controllers, 0 when neither can be told.
int cgroup_version(const CgroupMembership& m) {
  if (exists(std::string(kCgroupRoot) + "/cgroup.controllers")) return 2;
  if (m.has_v1_lines) return 1;
  if (m.has_v2_line) return 2;
  return 0;
}

// Reads a cgroup file of `controller` (empty for v2). Inside a container the cgroup's own
// directory is mounted at /sys/fs/cgroup[/<controller>], so the direct file is ours; when the
// whole host hierarchy is visible instead (probe run on the host, privileged containers), the
// direct file is the root's and the file under our path from /proc/self/cgroup is the right one,
// so that one is tried first.
FileText read_cgroup_file(const CgroupMembership& m, int version, const std::string& controller,
                          const std::string& name) {
  std::vector<std::string> bases;
  std::string path;
  if (version == 2) {
    bases.push_back(kCgroupRoot);
    path = m.v2_path;
  } else {
    bases.push_back(std::string(kCgroupRoot) + "/" + controller);
    const auto mount = m.v1_mount.find(controller);
    if (mount != m.v1_mount.end() && mount->second != controller) {
      bases.push_back(std::string(kCgroupRoot) + "/" + mount->second);  // e.g. "cpu,cpuacct"
    }
    const auto p = m.v1_path.find(controller);
    if (p != m.v1_path.end()) path = p->second;
  }
  std::vector<std::string> candidates;
  for (const std::string& base : bases) {
    if (!path.empty() && path != "/") candidates.push_back(base + path + "/" + name);
  }
  for (const std::string& base : bases) candidates.push_back(base + "/" + name);
  FileText last;
  for (const std::string& candidate : candidates) {
    last = read_file(candidate);
    if (last.ok) return last;
  }
  // Report the direct file's failure: the nested path is expected to be absent in containers.
  for (const std::string& base : bases) {
    FileText direct = read_file(base + "/" + name);
    if (!direct.ok) return direct;
  }
  return last;
}

// A cgroup value: the trimmed file content, "max" → "-1" when `max_is_unlimited`.
std::string cgroup_value(const CgroupMembership& m, int version, const std::string& controller,
                         const std::string& name, bool max_is_unlimited) {
  if (version == 0) return unknown("cgroup version unknown");
  const FileText file = read_cgroup_file(m, version, controller, name);
  if (!file.ok) return unknown(strerror(file.error));
  std::string value = trim(file.text);
  if (max_is_unlimited && value == "max") return "-1";
  return value;
}

std::string cpus_allowed() {
  const FileText status = read_file("/proc/self/status");
  if (!status.ok) return unknown(strerror(status.error));
  for (const std::string& line : split(status.text, '\n')) {
    static const std::string kKey = "Cpus_allowed_list:";
    if (line.compare(0, kKey.size(), kKey) == 0) return trim(line.substr(kKey.size()));
  }
  return unknown("no Cpus_allowed_list in /proc/self/status");
}

std::string affinity_count() {
  // Grow the mask until the kernel's CPU count fits (EINVAL means the mask was too small).
  for (int cpus = 1024; cpus <= (1 << 20); cpus *= 2) {
    cpu_set_t* set = CPU_ALLOC(cpus);
    if (set == nullptr) return unknown(strerror(errno));
    const std::size_t size = CPU_ALLOC_SIZE(cpus);
    CPU_ZERO_S(size, set);
    if (sched_getaffinity(0, size, set) == 0) {
      const int count = CPU_COUNT_S(size, set);
      CPU_FREE(set);
      return std::to_string(count);
    }
    const int error = errno;
    CPU_FREE(set);
    if (error != EINVAL) return unknown(strerror(error));
  }
  return unknown("affinity mask larger than 1048576 CPUs");
}

void report_limits() {
  emit("version", std::to_string(kProbeFormatVersion));
  emit("cpus_allowed", cpus_allowed());
  emit("nproc", affinity_count());
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  emit("nprocs_onln", online > 0 ? std::to_string(online) : unknown(strerror(errno)));

  const CgroupMembership m = read_membership();
  const int version = cgroup_version(m);
  if (version != 0) {
    emit("cgroup_version", std::to_string(version));
  } else {
    emit("cgroup_version", m.readable ? unknown("no cgroup.controllers and no v1 controllers in "
                                                "/proc/self/cgroup")
                                      : unknown(strerror(m.error)));
  }

  if (version == 2) {
    emit("cpuset_cpus", cgroup_value(m, version, "", "cpuset.cpus.effective", false));
    // cpu.max is "<quota> <period>" or "max <period>".
    const FileText cpu_max = read_cgroup_file(m, version, "", "cpu.max");
    if (cpu_max.ok) {
      const std::vector<std::string> fields = split(trim(cpu_max.text), ' ');
      if (fields.size() == 2) {
        emit("cfs_quota_us", fields[0] == "max" ? "-1" : fields[0]);
        emit("cfs_period_us", fields[1]);
      } else {
        emit("cfs_quota_us", unknown("cpu.max is \"" + trim(cpu_max.text) + "\""));
        emit("cfs_period_us", unknown("cpu.max is \"" + trim(cpu_max.text) + "\""));
      }
    } else {
      emit("cfs_quota_us", unknown(strerror(cpu_max.error)));
      emit("cfs_period_us", unknown(strerror(cpu_max.error)));
    }
    emit("memory_limit", cgroup_value(m, version, "", "memory.max", true));
    // v2 limits swap alone (memory.swap.max), not memory+swap like v1's memsw: another key.
    emit("swap_limit", cgroup_value(m, version, "", "memory.swap.max", true));
    emit("pids_max", cgroup_value(m, version, "", "pids.max", true));
  } else {
    emit("cpuset_cpus", cgroup_value(m, version, "cpuset", "cpuset.cpus", false));
    emit("cfs_quota_us", cgroup_value(m, version, "cpu", "cpu.cfs_quota_us", false));
    emit("cfs_period_us", cgroup_value(m, version, "cpu", "cpu.cfs_period_us", false));
    emit("memory_limit", cgroup_value(m, version, "memory", "memory.limit_in_bytes", false));
    emit("memsw_limit", cgroup_value(m, version, "memory", "memory.memsw.limit_in_bytes", false));
    emit("pids_max", cgroup_value(m, version, "pids", "pids.max", true));
  }

  emit("uid", std::to_string(getuid()));
  const char* gomaxprocs = std::getenv("GOMAXPROCS");
  emit("gomaxprocs_env", gomaxprocs != nullptr ? gomaxprocs : "unset");
}

}  // namespace

int main(int argc, char** argv) {
  report_limits();
  int first = 1;
  if (first < argc && std::string(argv[first]) == "--") ++first;
  if (first >= argc) {
    std::fprintf(stderr,
                 "noisefloor-probe: exec failed: no program given (usage: %s -- program "
                 "[args...])\n",
                 argc > 0 ? argv[0] : "probe");
    return 127;
  }
  emit("exec", argv[first]);
  std::fflush(stderr);
  ::execv(argv[first], argv + first);
  std::fprintf(stderr, "noisefloor-probe: exec failed: %s\n", strerror(errno));
  return 127;
}
