// nf-probe: the entrypoint of noisefloor's auto image,
//   /noisefloor/probe [--tag TAG] [--noop-runs K] [--nice N] [--watch-stdin] [--no-counters] [--no-aslr]
//                     -- <argv...>
// and the few programs noisefloor runs in containers on an engine it cannot start host processes
// on (noisefloor-tools image, README: Many machines):
//   /noisefloor/probe [--nice N] [--watch-stdin] --spin   a busy loop (a spinner) until stdin ends
//   /noisefloor/probe --hold                              blocks until stdin ends (the engine lease)
//   /noisefloor/probe --facts                             the files a host fingerprint reads
//   /noisefloor/probe --burn N                            N rounds of arithmetic, then exits: a
//                                                         fixed workload (the doctor's simulation cost)
//
// 1. Prints what the container really got (affinity, cgroup limits, user) to stderr as
//    `noisefloor-probe: <key>=<value>` lines, the last one `noisefloor-probe: exec=<path>`.
// 2. With --noop-runs K, starts the no-op next to it (/noisefloor/noop, harness/probe/nf_noop.cpp)
//    K times the same way it will start the benchmark, and times each: the launcher overhead in
//    this container.
// 3. Reads the cgroup's CPU accounting, starts a child (clone with CLONE_VM | CLONE_VFORK, as
//    posix_spawn does) that execv(2)s the benchmark: no PATH search, no shell, stdout and stderr
//    inherited untouched. Waits for its exit on a signalfd and reaps it with wait4(2): wall time on
//    CLOCK_MONOTONIC from just before the execv (taken in the child) to the probe's wake-up by
//    the exit, the rusage of the benchmark's whole waited-for tree, and the cgroup's CPU
//    accounting again.
// 4. Prints that as one block of `noisefloor-probe[TAG]: <key>=<value>` lines (one write), and
//    exits with the benchmark's status (128 + signal when a signal ended it).
//
// Nothing the benchmark starts outlives it: the probe is a child subreaper (PID 1 in a container
// is one anyway), so every orphaned descendant — a double-forked daemon included — becomes its
// child; the benchmark runs in a process group of its own; when the benchmark exits, whatever it
// left behind is killed and reaped. With --watch-stdin the probe also stops everything and exits
// when its stdin reaches end of file: noisefloor holds the other end (a pipe on the host, the
// attached stream of a container), so when noisefloor dies, by any signal, so does the run.
// SIGTERM, SIGINT and SIGHUP do the same.
//
// The key set and meanings are the contract parsed by probe/probe_report.hpp; a value that cannot
// be read is `unknown (<reason>)`, never a guess. Built static (the image has no libc of its own
// when the benchmark is static) and linked against nothing from noisefloor. Exit status 127 when
// the benchmark cannot be executed (`noisefloor-probe: exec failed: <reason>` after exec=).
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probe/perf_counters.hpp"  // header-only, as is text.hpp: the probe links nothing of noisefloor
#include "text/text.hpp"

namespace {

constexpr int kProbeFormatVersion = 2;
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

// ---- after the limits: starting the benchmark and accounting for it ----

std::int64_t monotonic_ns() {
  timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

std::int64_t micros(const timeval& tv) { return static_cast<std::int64_t>(tv.tv_sec) * 1000000 + tv.tv_usec; }

// "key value" lines (cpu.stat): the value of `key` into `out`; false when absent or not a number.
bool stat_field(const std::string& text, const std::string& key, std::int64_t& out) {
  for (const std::string& line : split(text, '\n')) {
    const auto space = line.find(' ');
    if (space == std::string::npos || line.compare(0, space, key) != 0) continue;
    char* end = nullptr;
    const std::string number = trim(line.substr(space + 1));
    errno = 0;
    const long long v = std::strtoll(number.c_str(), &end, 10);
    if (errno != 0 || end == number.c_str() || *end != '\0') return false;
    out = v;
    return true;
  }
  return false;
}

// The cgroup's CPU accounting at one instant, in nanoseconds and periods; -1 where unreadable.
struct CgroupCpu {
  std::int64_t usage_ns = -1, periods = -1, throttled = -1, throttled_ns = -1;
  std::string unknown;  // why something is -1
};

CgroupCpu read_cgroup_cpu(const CgroupMembership& m, int version) {
  CgroupCpu c;
  if (version == 0) {
    c.unknown = "cgroup version unknown";
    return c;
  }
  const FileText stat = read_cgroup_file(m, version, "cpu", "cpu.stat");
  if (!stat.ok) {
    c.unknown = std::string("cpu.stat: ") + strerror(stat.error);
  } else {
    std::int64_t v = 0;
    if (stat_field(stat.text, "nr_periods", v)) c.periods = v;
    if (stat_field(stat.text, "nr_throttled", v)) c.throttled = v;
    if (version == 2) {
      if (stat_field(stat.text, "throttled_usec", v)) c.throttled_ns = v * 1000;
      if (stat_field(stat.text, "usage_usec", v)) c.usage_ns = v * 1000;
    } else if (stat_field(stat.text, "throttled_time", v)) {
      c.throttled_ns = v;
    }
    // v2 without the cpu controller enabled has usage but no CFS fields.
    if (c.periods < 0) c.unknown = "cpu.stat has no nr_periods (is the cpu controller enabled?)";
  }
  if (version == 1) {
    const FileText usage = read_cgroup_file(m, version, "cpuacct", "cpuacct.usage");
    if (usage.ok) {
      char* end = nullptr;
      const std::string number = trim(usage.text);
      const long long v = std::strtoll(number.c_str(), &end, 10);
      if (end != number.c_str() && *end == '\0') c.usage_ns = v;
    } else if (c.unknown.empty()) {
      c.unknown = std::string("cpuacct.usage: ") + strerror(usage.error);
    }
  }
  return c;
}

// How many processes the memory cgroup's OOM killer has killed: the "oom_kill" line of v2's
// memory.events or v1's memory.oom_control (kernel 4.13+). An engine may not report an OOM kill
// (Podman on cgroup v1 never sets OOMKilled); the counter is the kernel's own witness. Unknown
// (with why) where unreadable.
std::string oom_kills(const CgroupMembership& m, int version) {
  if (version == 0) return unknown("cgroup version unknown");
  const FileText file = version == 2 ? read_cgroup_file(m, version, "", "memory.events")
                                     : read_cgroup_file(m, version, "memory", "memory.oom_control");
  if (!file.ok) return unknown(strerror(file.error));
  std::int64_t v = 0;
  if (!stat_field(file.text, "oom_kill", v)) return unknown("no oom_kill line (a kernel before 4.13?)");
  return std::to_string(v);
}

struct Child {
  bool started = false;
  std::string exec_error;  // why execv failed
  int status = 0;
  std::int64_t wall_ns = 0;
  rusage usage{};
};

// A started child that has execv(2)ed `argv` (pid > 0, error empty), or why it could not: a clone
// failure (pid < 0), or a failure before or in the exec (pid > 0: the child has exited with 127
// and is still to be reaped).
//
// The child is started the way posix_spawn(3) does it: clone(2) with CLONE_VM | CLONE_VFORK on a
// stack of its own, so nothing of the probe's memory is copied and the probe sleeps until the
// child has exec'd (or failed). Sharing the memory, the child writes two things the probe reads
// once it runs again: why it failed, and exec_ns, CLOCK_MONOTONIC taken just before the execv
// system call. A sample starts there: the launcher's clone and the child's preparation are not
// the benchmark's. `prepare` runs in the child before that (async-signal-safe calls only, no
// allocation: the memory is the probe's). The probe has no signal handlers (it waits on a
// signalfd), so no handler can run in the child on the shared memory.
struct Forked {
  pid_t pid = -1;
  std::string error;
  std::int64_t exec_ns = 0;  // CLOCK_MONOTONIC just before execv, in the child
};

template <class Prepare>
struct CloneArgs {
  char** argv;
  Prepare* prepare;
  volatile int error = 0;  // errno of the failed exec, written by the child
  volatile std::int64_t exec_ns = 0;
};

template <class Prepare>
int clone_child(void* raw) {
  auto* args = static_cast<CloneArgs<Prepare>*>(raw);
  (*args->prepare)();
  args->exec_ns = monotonic_ns();
  ::execv(args->argv[0], args->argv);
  args->error = errno;
  ::_exit(127);
}

template <class Prepare>
Forked fork_exec(char** argv, Prepare prepare) {
  Forked result;
  // The child's stack: 64 KiB is ample for prepare() and the exec (glibc's posix_spawn uses less).
  constexpr std::size_t kStack = 64 * 1024;
  void* stack =
      ::mmap(nullptr, kStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) {
    result.error = std::string("mmap: ") + strerror(errno);
    return result;
  }
  CloneArgs<Prepare> args{argv, &prepare};
  result.pid = ::clone(clone_child<Prepare>, static_cast<char*>(stack) + kStack,
                       CLONE_VM | CLONE_VFORK | SIGCHLD, &args);
  const int clone_error = errno;
  ::munmap(stack, kStack);  // the child has exec'd or exited: its stack is free
  if (result.pid < 0) {
    result.error = std::string("clone: ") + strerror(clone_error);
    return result;
  }
  result.exec_ns = args.exec_ns;
  if (args.error != 0) result.error = strerror(args.error);
  return result;
}

// Forks, execs `argv` in the child (as it is: the no-op), waits for it.
Child run_child(char** argv) {
  Child result;
  const Forked forked = fork_exec(argv, [] {});
  if (forked.pid < 0) {
    result.exec_error = forked.error;
    return result;
  }
  pid_t waited;
  do {
    waited = ::wait4(forked.pid, &result.status, 0, &result.usage);
  } while (waited < 0 && errno == EINTR);
  result.wall_ns = monotonic_ns() - forked.exec_ns;
  result.exec_error = forked.error;
  result.started = forked.error.empty();
  return result;
}

// ---- supervision -------------------------------------------------------------------------------

// The probe's children, from /proc/self/task/<pid>/children when the kernel has it, else from
// every /proc/<pid>/stat whose parent is the probe.
std::vector<pid_t> children_of_self() {
  std::vector<pid_t> out;
  const pid_t self = ::getpid();
  const FileText listed = read_file("/proc/self/task/" + std::to_string(self) + "/children");
  if (listed.ok) {
    for (const std::string& word : split(trim(listed.text), ' '))
      if (!word.empty()) out.push_back(static_cast<pid_t>(std::atoi(word.c_str())));
    return out;
  }
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return out;
  while (const dirent* entry = ::readdir(proc)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(entry->d_name));
    if (pid <= 0 || pid == self) continue;
    const FileText stat = read_file(std::string("/proc/") + entry->d_name + "/stat");
    if (!stat.ok) continue;
    const auto close = stat.text.rfind(')');
    if (close == std::string::npos || close + 4 >= stat.text.size()) continue;
    // ") S <ppid> ...": the parent follows the state letter.
    if (std::atoi(stat.text.c_str() + close + 4) == self) out.push_back(pid);
  }
  ::closedir(proc);
  return out;
}

// Kills and reaps everything below the probe: the benchmark's process group, then every child
// the probe has (orphans are reparented to it), round after round, until it has none.
void kill_descendants(pid_t group) {
  if (group > 0) ::kill(-group, SIGKILL);
  for (int round = 0; round < 2000; ++round) {
    for (const pid_t pid : children_of_self()) {
      ::kill(-pid, SIGKILL);  // its group, if it leads one
      ::kill(pid, SIGKILL);
    }
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    errno = 0;
    if (::waitpid(-1, nullptr, WNOHANG) < 0 && errno == ECHILD) return;
    ::usleep(1000);
  }
}

// ---- the CPUs' busy time ---------------------------------------------------------------------

// The time every task on the probe's CPUs (its affinity: the benchmark's) spent on them, in
// nanoseconds: /proc/stat's user + nice + system + irq + softirq of those CPUs (guest time is in
// user already; steal is the hypervisor's, not this machine's work). The host's counters, also
// inside a container. Less the benchmark's own time on a CPU, what is left is the work that ran
// beside it: the cause of its run-queue waits, or not (its own threads waiting for each other).
// `steal_ns`: the time the hypervisor ran something else while those CPUs had work (/proc/stat's
// steal; 0 on bare metal). -1 and `why` when unreadable.
struct CpuTimes {
  std::int64_t busy_ns = -1;
  std::int64_t steal_ns = -1;
};

CpuTimes cpu_times(std::string* why) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) {
    *why = std::string("sched_getaffinity: ") + strerror(errno);
    return {};
  }
  const FileText stat = read_file("/proc/stat");
  if (!stat.ok) {
    *why = std::string("/proc/stat: ") + strerror(stat.error);
    return {};
  }
  const long hz = sysconf(_SC_CLK_TCK);
  if (hz <= 0) {
    *why = "no clock tick rate (sysconf(_SC_CLK_TCK))";
    return {};
  }
  long long ticks = 0, steal_ticks = 0;
  int cpus = 0;
  for (const std::string& line : split(stat.text, '\n')) {
    int cpu = -1;
    unsigned long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    const int fields = line.compare(0, 3, "cpu") != 0
                           ? 0
                           : std::sscanf(line.c_str(), "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu,
                                         &user, &nice, &system, &idle, &iowait, &irq, &softirq, &steal);
    if (fields < 8) continue;  // the "cpu " total line, or not a CPU's line
    if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &set)) continue;
    ticks += static_cast<long long>(user + nice + system + irq + softirq);
    steal_ticks += static_cast<long long>(fields >= 9 ? steal : 0);
    ++cpus;
  }
  if (cpus == 0) {
    *why = "/proc/stat has no line for the CPUs the benchmark may use";
    return {};
  }
  return {ticks * (1000000000LL / hz), steal_ticks * (1000000000LL / hz)};
}

// ---- performance counters -----------------------------------------------------------------------

noisefloor::probe::counters::Context counter_context() {
  noisefloor::probe::counters::Context c;
  const FileText paranoid = read_file("/proc/sys/kernel/perf_event_paranoid");
  if (paranoid.ok) c.paranoid = std::atoi(paranoid.text.c_str());
  c.in_container = ::getpid() == 1;
  for (const char* pmu : {"cpu", "cpu_core", "cpu_atom", "armv8_pmuv3", "armv8_pmuv3_0"})
    if (exists(std::string("/sys/bus/event_source/devices/") + pmu)) c.pmu_device = true;
  return c;
}

// ---- run-queue delay --------------------------------------------------------------------------

// How long the benchmark's threads ran and how long they were runnable but waiting for a CPU
// (/proc/<pid>/task/<tid>/schedstat: on-CPU ns, run-queue ns, timeslices), summed over every
// thread of the probe's descendants: the benchmark, its children and any orphan the probe
// adopted. Read every kSampleMs while the benchmark runs and once more when it exits (its
// leader is then a zombie, still readable). A thread that exits between two reads loses what it
// did since the last one, so both sums are lower bounds.
class RunQueueSampler {
 public:
  static constexpr int kSampleMs = 100;

  void sample() {
    ++reads_;
    std::vector<pid_t> pending = children_of(::getpid());
    std::vector<pid_t> seen;
    while (!pending.empty()) {
      const pid_t pid = pending.back();
      pending.pop_back();
      if (std::find(seen.begin(), seen.end(), pid) != seen.end()) continue;
      seen.push_back(pid);
      const std::string task_dir = "/proc/" + std::to_string(pid) + "/task";
      DIR* tasks = ::opendir(task_dir.c_str());
      if (tasks == nullptr) continue;  // gone since it was listed
      while (const dirent* entry = ::readdir(tasks)) {
        const pid_t tid = static_cast<pid_t>(std::atoi(entry->d_name));
        if (tid <= 0) continue;
        const std::string dir = task_dir + "/" + entry->d_name;
        record(tid, read_file(dir + "/schedstat"), read_file(dir + "/sched"));
        for (const pid_t child : children_of_task(dir)) pending.push_back(child);
      }
      ::closedir(tasks);
    }
  }

  // The block's keys: sched_run_ns, sched_wait_ns, sched_migrations, sched_tasks, sched_reads.
  template <class Add>
  void report(Add add) const {
    std::int64_t run = retired_run_, wait = retired_wait_;
    for (const auto& [tid, times] : last_) {
      run += times.run;
      wait += times.wait;
    }
    std::string why = problem_;
    if (why.empty() && last_.empty()) why = "no thread of the benchmark was read";
    if (why.empty() && run == 0 && wait == 0)
      why = "the kernel accounts no run-queue delay (schedstat reads 0 0)";
    if (!why.empty()) {
      add("sched_run_ns", unknown(why));
      add("sched_wait_ns", unknown(why));
    } else {
      add("sched_run_ns", std::to_string(run));
      add("sched_wait_ns", std::to_string(wait));
    }
    std::int64_t migrations = retired_migrations_;
    for (const auto& [tid, times] : last_) migrations += times.migrations;
    const std::string migrations_why = !why.empty() ? why : migrations_problem_;
    add("sched_migrations", migrations_why.empty() ? std::to_string(migrations) : unknown(migrations_why));
    add("sched_tasks", std::to_string(tasks_));
    add("sched_reads", std::to_string(reads_));
  }

 private:
  struct Times {
    std::int64_t run = 0, wait = 0, migrations = 0;
  };

  static std::vector<pid_t> children_of_task(const std::string& task_dir) {
    std::vector<pid_t> out;
    const FileText listed = read_file(task_dir + "/children");
    if (!listed.ok) return out;
    for (const std::string& word : split(trim(listed.text), ' '))
      if (!word.empty()) out.push_back(static_cast<pid_t>(std::atoi(word.c_str())));
    return out;
  }

  static std::vector<pid_t> children_of(pid_t self) {
    return children_of_task("/proc/" + std::to_string(self) + "/task/" + std::to_string(self));
  }

  // se.nr_migrations of /proc/<pid>/task/<tid>/sched (kernels with CONFIG_SCHED_DEBUG): -1 when
  // the file or the line is missing.
  static std::int64_t migrations_of(const FileText& sched) {
    if (!sched.ok) return -1;
    const auto at = sched.text.find("se.nr_migrations");
    if (at == std::string::npos) return -1;
    const auto colon = sched.text.find(':', at);
    if (colon == std::string::npos) return -1;
    return std::atoll(sched.text.c_str() + colon + 1);
  }

  void record(pid_t tid, const FileText& text, const FileText& sched) {
    if (!text.ok) {
      if (text.error != ENOENT && text.error != ESRCH && problem_.empty())
        problem_ = std::string("schedstat: ") + strerror(text.error);
      return;
    }
    long long run = 0, wait = 0;
    if (std::sscanf(text.text.c_str(), "%lld %lld", &run, &wait) != 2) {
      if (problem_.empty()) problem_ = "schedstat: not two numbers";
      return;
    }
    const std::int64_t migrations = migrations_of(sched);
    if (migrations < 0 && migrations_problem_.empty())
      migrations_problem_ = sched.ok ? "no se.nr_migrations in /proc/<pid>/sched"
                                     : std::string("/proc/<pid>/sched: ") + strerror(sched.error);
    auto [it, added] = last_.try_emplace(tid);
    if (added) {
      ++tasks_;
    } else if (run < it->second.run || wait < it->second.wait) {
      // A new thread with a reused id: the old one's last reading stays counted.
      retired_run_ += it->second.run;
      retired_wait_ += it->second.wait;
      retired_migrations_ += it->second.migrations;
      ++tasks_;
    }
    it->second = {run, wait, std::max<std::int64_t>(migrations, 0)};
  }

  std::map<pid_t, Times> last_;
  std::int64_t retired_run_ = 0, retired_wait_ = 0, retired_migrations_ = 0;
  int tasks_ = 0, reads_ = 0;
  std::string problem_, migrations_problem_;
};

struct Supervised {
  Child child;
  RunQueueSampler run_queue;
  std::string stopped;  // why the run was stopped before the benchmark exited; empty if it was not
};

// Like run_child, but the benchmark gets a process group and a death signal of its own, stdin
// from /dev/null when the probe watches its own, and the probe waits on a signalfd: the
// benchmark's exit (SIGCHLD), a request to stop (SIGTERM, SIGINT, SIGHUP) or, with watch_stdin,
// the end of its stdin. Orphans that reach the probe meanwhile are reaped as they die.
Supervised run_supervised(char** argv, bool watch_stdin) {
  Supervised result;
  sigset_t handled;
  sigemptyset(&handled);
  for (const int sig : {SIGCHLD, SIGTERM, SIGINT, SIGHUP}) sigaddset(&handled, sig);
  sigset_t previous;
  ::sigprocmask(SIG_BLOCK, &handled, &previous);
  const int signals = ::signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK);
  if (signals < 0) {
    result.child.exec_error = std::string("signalfd: ") + strerror(errno);
    ::sigprocmask(SIG_SETMASK, &previous, nullptr);
    return result;
  }
  // The benchmark: a process group and a death signal of its own, the probe's signal mask undone.
  const Forked forked = fork_exec(argv, [&] {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // the probe gone: the benchmark goes too
    ::sigprocmask(SIG_SETMASK, &previous, nullptr);
    if (watch_stdin) {  // the watched stream is the probe's, not the benchmark's
      const int null = ::open("/dev/null", O_RDONLY);
      if (null >= 0) ::dup2(null, STDIN_FILENO);
    }
  });
  if (forked.pid < 0) {
    result.child.exec_error = forked.error;
    ::close(signals);
    ::sigprocmask(SIG_SETMASK, &previous, nullptr);
    return result;
  }
  const pid_t pid = forked.pid;
  result.child.exec_error = forked.error;

  bool exited = false;
  bool stdin_open = watch_stdin;
  while (!exited && result.stopped.empty()) {
    pollfd waits[2] = {{signals, POLLIN, 0}, {STDIN_FILENO, POLLIN, 0}};
    const int ready = ::poll(waits, stdin_open ? 2 : 1, RunQueueSampler::kSampleMs);
    if (ready < 0) {
      if (errno == EINTR) continue;
      result.stopped = std::string("poll: ") + strerror(errno);
      break;
    }
    // Taken the moment the probe wakes: when the wake is the benchmark's SIGCHLD, this is its end
    // (the reads and the reap below are the probe's, not the benchmark's).
    const std::int64_t woke_ns = monotonic_ns();
    if (ready == 0) {
      result.run_queue.sample();
      continue;
    }
    if (waits[0].revents & POLLIN) {
      // Before the reap: an exited benchmark's leader is a zombie whose schedstat is still there.
      result.run_queue.sample();
      signalfd_siginfo info;
      while (::read(signals, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
        if (info.ssi_signo != SIGCHLD) {
          result.stopped = std::string("signal ") + strsignal(static_cast<int>(info.ssi_signo));
          break;
        }
      }
      // Reap: the benchmark (its exit time and rusage), or an orphan that died.
      int status = 0;
      rusage usage{};
      pid_t reaped;
      while ((reaped = ::wait4(-1, &status, WNOHANG, &usage)) > 0) {
        if (reaped != pid) continue;
        result.child.wall_ns = woke_ns - forked.exec_ns;
        result.child.status = status;
        result.child.usage = usage;
        exited = true;
      }
    }
    if (stdin_open && (waits[1].revents & (POLLIN | POLLHUP | POLLERR))) {
      char buffer[256];
      const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
        result.stopped = "noisefloor closed the stream the probe watches (it is gone)";
        stdin_open = false;
      }
    }
  }
  // Whatever the benchmark left behind (or all of it, when stopped) goes.
  kill_descendants(pid);
  ::close(signals);
  ::sigprocmask(SIG_SETMASK, &previous, nullptr);
  result.child.started = result.child.exec_error.empty();
  return result;
}

std::string delta(std::int64_t before, std::int64_t after, const std::string& reason) {
  if (before < 0 || after < 0) return unknown(reason.empty() ? "not readable" : reason);
  return std::to_string(after - before);
}

// ---- the tools modes ----------------------------------------------------------------------

// Blocks until stdin reaches end of file (or fails): the other end is noisefloor's.
void wait_for_stdin_end() {
  char buffer[256];
  while (true) {
    const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
    if (n == 0) return;
    if (n < 0 && errno != EINTR) return;
  }
}

// --spin: a child spins on the CPUs the container got; the probe (PID 1) waits for the end of
// its stdin (noisefloor gone or done) and then ends. Without --watch-stdin it spins itself.
int spin(bool watch_stdin) {
  const auto busy = [] {
    volatile std::uint64_t counter = 0;
    for (;;) counter = counter + 1;
  };
  if (!watch_stdin) busy();
  const pid_t pid = ::fork();
  if (pid < 0) {
    std::fprintf(stderr, "noisefloor-probe: spin failed: fork: %s\n", strerror(errno));
    return 127;
  }
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    busy();
  }
  std::fputs("spinning\n", stdout);
  std::fflush(stdout);
  wait_for_stdin_end();
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  return 0;
}

// --facts: the files of the machine that a host fingerprint reads (fingerprint/host.hpp), framed
// on stdout as `file <path> <size>\n<bytes>\n` and `dir <path>\n`; unreadable files are left out
// (the fingerprint then says which file it missed). Bounded: trees to a fixed depth, files to
// 256 KiB, everything to 16 MiB.
class FactDump {
 public:
  void file(const std::string& path) {
    if (total_ > kTotalLimit) return;
    const FileText t = read_file(path);
    if (!t.ok || t.text.size() > kFileLimit) return;
    total_ += t.text.size();
    std::printf("file %s %zu\n", path.c_str(), t.text.size());
    std::fwrite(t.text.data(), 1, t.text.size(), stdout);
    std::fputc('\n', stdout);
  }
  void tree(const std::string& path, int depth) {
    DIR* dir = ::opendir(path.c_str());
    if (dir == nullptr) return;
    std::printf("dir %s\n", path.c_str());
    std::vector<std::string> names;
    while (const dirent* entry = ::readdir(dir)) {
      const std::string name = entry->d_name;
      if (name == "." || name == ".." || name == "power" || name == "uevent" || name == "subsystem" ||
          name == "driver" || name == "firmware_node" || name == "cpuidle" || name == "device" ||
          name == "hotplug")
        continue;
      names.push_back(name);
    }
    ::closedir(dir);
    for (const auto& name : names) {
      const std::string child = path + "/" + name;
      struct stat st, link;
      if (::stat(child.c_str(), &st) != 0 || ::lstat(child.c_str(), &link) != 0) continue;
      // Links between sysfs trees (cpuN/node0, ...) are not followed, except cpuN/cpufreq.
      if (S_ISLNK(link.st_mode) && S_ISDIR(st.st_mode) && name != "cpufreq") continue;
      if (S_ISDIR(st.st_mode)) {
        if (depth > 0) tree(child, depth - 1);
      } else if (S_ISREG(st.st_mode) && (st.st_mode & S_IRUSR)) {
        file(child);
      }
    }
  }

 private:
  static constexpr std::size_t kFileLimit = 256 * 1024;
  static constexpr std::size_t kTotalLimit = 16 * 1024 * 1024;
  std::size_t total_ = 0;
};

int facts() {
  FactDump dump;
  for (const char* path :
       {"/proc/cpuinfo", "/proc/loadavg", "/proc/cmdline", "/proc/meminfo", "/proc/sys/kernel/osrelease",
        "/proc/sys/kernel/version", "/proc/sys/kernel/randomize_va_space",
        "/sys/kernel/mm/transparent_hugepage/enabled",
        "/sys/devices/system/clocksource/clocksource0/current_clocksource",
        "/sys/devices/system/clocksource/clocksource0/available_clocksource", "/sys/hypervisor/type",
        "/sys/class/dmi/id/product_name", "/sys/class/dmi/id/sys_vendor",
        "/proc/sys/kernel/perf_event_paranoid", "/sys/bus/event_source/devices/cpu/type",
        "/sys/bus/event_source/devices/cpu_core/type", "/sys/bus/event_source/devices/cpu_atom/type",
        "/sys/bus/event_source/devices/armv8_pmuv3_0/type"})
    dump.file(path);
  dump.tree("/sys/devices/system/cpu", 4);
  dump.tree("/sys/devices/system/node", 1);
  dump.tree("/sys/class/power_supply", 1);
  std::fflush(stdout);
  return 0;
}

// The probe's command line: its options, then `--` and the program (first: where the options end).
struct Options {
  enum class Mode { run, spin, hold, facts, burn };
  int first = 1;
  std::string tag = "untagged";
  int noop_runs = 0;
  std::string noop_path;
  bool watch_stdin = false;
  bool counters_wanted = true;
  bool no_aslr = false;
  std::optional<int> nice;
  Mode mode = Mode::run;
  unsigned long long burn_rounds = 0;
};

Options parse_options(int argc, char** argv) {
  using Mode = Options::Mode;
  constexpr std::pair<std::string_view, Mode> kModes[] = {
      {"--spin", Mode::spin}, {"--hold", Mode::hold}, {"--facts", Mode::facts}};
  Options o;
  int& first = o.first;
  while (first < argc && std::string(argv[first]) != "--") {
    const std::string option = argv[first];
    const bool has_value = first + 1 < argc;
    if (option == "--tag" && has_value) {
      o.tag = argv[++first];
    } else if (option == "--noop-runs" && has_value) {
      o.noop_runs = std::atoi(argv[++first]);
    } else if (option == "--noop" && has_value) {
      o.noop_path = argv[++first];
    } else if (option == "--watch-stdin") {
      o.watch_stdin = true;
    } else if (option == "--no-aslr") {  // simulated counts: the same addresses on every run
      o.no_aslr = true;
    } else if (option == "--no-counters") {  // for make perf (P12): the counters' own cost
      o.counters_wanted = false;
    } else if (option == "--nice" && has_value) {
      o.nice = std::atoi(argv[++first]);
    } else if (option == "--burn" && has_value) {
      o.mode = Mode::burn;
      o.burn_rounds = std::strtoull(argv[++first], nullptr, 10);
    } else if (const auto m = std::find_if(std::begin(kModes), std::end(kModes),
                                           [&](const auto& flag) { return flag.first == option; });
               m != std::end(kModes)) {
      o.mode = m->second;
    } else {
      break;
    }
    ++first;
  }
  return o;
}

// The no-op's wall times, comma-separated (an unknown for a run that failed). The no-op: given (on
// the host), or next to the probe (/noisefloor/noop in the image).
std::string time_noops(const Options& o, const char* probe_path) {
  std::string noop_path = o.noop_path;
  if (noop_path.empty()) {
    noop_path = probe_path;
    const auto slash = noop_path.rfind('/');
    noop_path = slash == std::string::npos ? "/noisefloor/noop" : noop_path.substr(0, slash + 1) + "noop";
  }
  char* noop_argv[] = {noop_path.data(), nullptr};
  std::string noops;
  for (int i = 0; i < o.noop_runs; ++i) {
    const Child noop = run_child(noop_argv);
    if (!noops.empty()) noops += ',';
    noops += noop.started && WIFEXITED(noop.status) && WEXITSTATUS(noop.status) == 0
                 ? std::to_string(noop.wall_ns)
                 : unknown(noop.exec_error.empty() ? "the no-op failed" : noop.exec_error);
  }
  return noops;
}

// What the probe reads around the benchmark's run: before it starts, and after it ended.
struct Around {
  CgroupMembership membership;
  int version = 0;
  CgroupCpu before, after;
  CpuTimes cpus_before, cpus_after;
  std::string busy_why;
};

// The account of a finished run, one key=value line each, ending in end=1.
std::string account(const Options& o, const Supervised& run, const Around& a, const std::string& noops,
                    noisefloor::probe::counters::Session& counters) {
  const Child& child = run.child;
  std::string block;
  const auto add = [&](const std::string& key, std::string value) {
    for (char& c : value) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    block += "noisefloor-probe[" + o.tag + "]: " + key + "=" + value + "\n";
  };
  if (WIFSIGNALED(child.status)) {
    add("signal", std::to_string(WTERMSIG(child.status)));
  } else {
    add("exit", std::to_string(WEXITSTATUS(child.status)));
  }
  add("wall_ns", std::to_string(child.wall_ns));
  add("user_us", std::to_string(micros(child.usage.ru_utime)));
  add("sys_us", std::to_string(micros(child.usage.ru_stime)));
  add("maxrss_kib", std::to_string(child.usage.ru_maxrss));
  add("nvcsw", std::to_string(child.usage.ru_nvcsw));
  add("nivcsw", std::to_string(child.usage.ru_nivcsw));
  add("minflt", std::to_string(child.usage.ru_minflt));
  add("majflt", std::to_string(child.usage.ru_majflt));
  if (o.noop_runs > 0) add("noop_ns", noops);
  const std::string why = a.before.unknown.empty() ? a.after.unknown : a.before.unknown;
  add("cgroup_usage_ns", delta(a.before.usage_ns, a.after.usage_ns, why));
  add("cgroup_periods", delta(a.before.periods, a.after.periods, why));
  add("cgroup_throttled", delta(a.before.throttled, a.after.throttled, why));
  add("cgroup_throttled_ns", delta(a.before.throttled_ns, a.after.throttled_ns, why));
  run.run_queue.report(add);
  add("cpus_busy_ns", delta(a.cpus_before.busy_ns, a.cpus_after.busy_ns, a.busy_why));
  add("oom_kills", oom_kills(a.membership, a.version));
  add("steal_ns", delta(a.cpus_before.steal_ns, a.cpus_after.steal_ns, a.busy_why));
  std::string multiplexed;
  for (const auto& reading : counters.read(&multiplexed))
    add("ctr_" + reading.key, reading.ok ? std::to_string(reading.value) : unknown(reading.why));
  if (!multiplexed.empty()) add("ctr_multiplexed", multiplexed);
  if (counters.user_only()) add("ctr_user_only", "1");
  add("end", "1");
  return block;
}

// Writes the block at once: a benchmark's leftover children cannot split it.
void write_block(const std::string& block) {
  std::size_t written = 0;
  while (written < block.size()) {
    const ssize_t n = ::write(2, block.data() + written, block.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
}

// Runs the other modes than `run` to their end (nullopt for `run`).
std::optional<int> other_mode(const Options& o) {
  using Mode = Options::Mode;
  if (o.mode == Mode::facts) return facts();
  if (o.mode == Mode::burn) {
    volatile std::uint64_t x = 1;
    for (unsigned long long i = 0; i < o.burn_rounds; ++i)
      x = x * 6364136223846793005ull + 1442695040888963407ull;
    return 0;
  }
  if (o.mode == Mode::hold) {
    wait_for_stdin_end();
    return 0;
  }
  // The nice value of the benchmark (or the spinner): the probe's own, inherited. Raising it needs
  // no privilege; lowering it below 0 needs CAP_SYS_NICE, which containers do not get by default.
  if (o.nice && ::setpriority(PRIO_PROCESS, 0, *o.nice) != 0) {
    std::fprintf(stderr, "noisefloor-probe: exec failed: cannot set nice %d: %s\n", *o.nice, strerror(errno));
    return 127;
  }
  if (o.mode == Mode::spin) return spin(o.watch_stdin);
  return std::nullopt;
}

// Sets up the process the benchmark will inherit: a subreaper, its nice value reported, and
// address-space randomization off when asked (in force at its exec). False when that failed.
bool prepare(const Options& o) {
  // Orphans of the benchmark's tree become the probe's, so it can end them (PID 1 is one already).
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  report_limits();
  if (o.nice) {
    errno = 0;
    const int got = ::getpriority(PRIO_PROCESS, 0);
    emit("nice", errno == 0 ? std::to_string(got) : unknown(strerror(errno)));
  }
  if (o.no_aslr) {
    const int current = ::personality(0xffffffff);
    if (current == -1 || ::personality(static_cast<unsigned long>(current) | ADDR_NO_RANDOMIZE) == -1) {
      std::fprintf(stderr, "noisefloor-probe: exec failed: cannot turn address-space randomization off: %s\n",
                   strerror(errno));
      return false;
    }
    emit("aslr", "off");
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse_options(argc, argv);
  if (const std::optional<int> code = other_mode(o)) return *code;
  if (!prepare(o)) return 127;
  int first = o.first;
  if (first < argc && std::string(argv[first]) == "--") ++first;
  if (first >= argc) {
    std::fprintf(stderr,
                 "noisefloor-probe: exec failed: no program given (usage: %s [--tag TAG] [--noop-runs K] -- "
                 "program [args...])\n",
                 argc > 0 ? argv[0] : "probe");
    return 127;
  }
  emit("exec", argv[first]);
  std::fflush(stderr);
  const std::string noops = time_noops(o, argc > 0 ? argv[0] : "");

  Around a;
  a.membership = read_membership();
  a.version = cgroup_version(a.membership);
  a.before = read_cgroup_cpu(a.membership, a.version);
  a.cpus_before = cpu_times(&a.busy_why);
  noisefloor::probe::counters::Session counters(counter_context());
  if (o.counters_wanted)
    counters.open();  // on this thread, right before the clone: the benchmark inherits them
  const Supervised run = run_supervised(argv + first, o.watch_stdin);
  if (a.busy_why.empty()) a.cpus_after = cpu_times(&a.busy_why);
  a.after = read_cgroup_cpu(a.membership, a.version);
  if (!run.child.started) {
    std::fprintf(stderr, "noisefloor-probe: exec failed: %s\n", run.child.exec_error.c_str());
    return 127;
  }
  if (!run.stopped.empty()) {  // no account (no end=1): the run was cut short, and why
    std::fprintf(stderr, "noisefloor-probe[%s]: stopped=%s\n", o.tag.c_str(), run.stopped.c_str());
    return 128 + SIGTERM;
  }
  write_block(account(o, run, a, noops, counters));
  if (WIFSIGNALED(run.child.status)) return 128 + WTERMSIG(run.child.status);
  return WEXITSTATUS(run.child.status);
}
