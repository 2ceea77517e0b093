// The kernel's performance counters around exactly one benchmark's process tree, for nf-probe
// (header-only: the probe links nothing of noisefloor; the unit tests include it too).
//
// How: just before the probe starts the benchmark, it opens each counter on its own thread
// (perf_event_open pid 0) disabled, with inherit and enable_on_exec. The benchmark's clone gets
// a copy of every counter; its execve enables them there (the probe's own stay disabled, so
// nothing of the probe is counted); every process and thread the benchmark starts inherits them
// in turn; and as each of them exits the kernel adds its counts to the probe's counter, before
// its parent is told of the exit. Read after the benchmark's tree has been reaped, the probe's
// counters hold the tree's whole count (`perf stat -- cmd` counts the same way).
//
// A counter that cannot be opened is never a zero: the probe reports `unknown (<why>)`, and
// why_unavailable() below turns perf_event_open's errno into the reason and the fix.
#pragma once

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

namespace noisefloor::probe::counters {

struct EventSpec {
  const char* key;  // the probe line's key, after "ctr_"
  std::uint32_t type;
  std::uint64_t config;
  bool hardware;
};

// Software events: counted by the kernel itself, on every machine with perf events.
inline constexpr EventSpec kSoftware[] = {
    {"task_clock_ns", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, false},
    {"context_switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, false},
    {"cpu_migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, false},
    {"minor_faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, false},
    {"major_faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, false},
};
// Hardware events: one group (scheduled onto the PMU together, or not at all), the first its
// leader. Where the PMU has fewer counters than the machine's other users need, the kernel
// multiplexes the group: it then counts for part of the time and the counts are scaled.
inline constexpr EventSpec kHardware[] = {
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, true},
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, true},
    {"branch_misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, true},
    {"cache_misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, true},
};

// What decides the reason for a refused counter, read where the probe runs.
struct Context {
  int paranoid = -99;         // /proc/sys/kernel/perf_event_paranoid; -99: unreadable
  bool in_container = false;  // the probe is PID 1 of a container
  bool pmu_device = false;    // /sys/bus/event_source/devices/cpu exists: a CPU PMU driver is loaded
};

// Why perf_event_open(2) failed with `error` for an event of that kind: one line, with the fix
// where there is one. Pure.
inline std::string why_unavailable(int error, bool hardware, const Context& c) {
  const std::string paranoid = c.paranoid == -99 ? std::string("unreadable") : std::to_string(c.paranoid);
  switch (error) {
    case ENOSYS:
      return "this kernel has no perf_event_open (built without CONFIG_PERF_EVENTS)";
    case ENOENT:
    case EOPNOTSUPP:
    case ENODEV:
      if (hardware && !c.pmu_device)
        return "no PMU: Performance Events: no PMU driver, software events only; the kernel has no "
               "hardware counter driver for this CPU, usual in a virtual machine without a virtual PMU";
      return std::string("the kernel does not count this event here: ") + ::strerror(error);
    case EACCES:
      return "kernel.perf_event_paranoid is " + paranoid +
             ": it refuses to count another process without CAP_PERFMON; run noisefloor as root or "
             "lower it (sysctl kernel.perf_event_paranoid=2)";
    case EPERM:
      if (c.in_container)
        return "the container's seccomp profile refuses perf_event_open without CAP_PERFMON; ask "
               "for it with `perf_events: true` in the condition's container";
      if (c.paranoid > 2)
        return "kernel.perf_event_paranoid is " + paranoid +
               ": it refuses perf_event_open to processes without CAP_PERFMON; run noisefloor as "
               "root or lower it (sysctl kernel.perf_event_paranoid=2)";
      return "perf_event_open refused (EPERM): a seccomp profile or a security module forbids it";
    case EMFILE:
    case ENFILE:
      return std::string("no file descriptor left for the counter: ") + ::strerror(error);
    default:
      return std::string("perf_event_open: ") + ::strerror(error);
  }
}

// The note for a group that ran `running` of the `enabled` nanoseconds it was enabled: empty when
// it counted the whole time. Pure.
inline std::string multiplexed_note(std::uint64_t enabled, std::uint64_t running) {
  if (enabled == 0 || running >= enabled) return {};
  const double share = 100.0 * static_cast<double>(running) / static_cast<double>(enabled);
  char text[160];
  std::snprintf(text, sizeof text,
                "multiplexed: the hardware group counted %.1f%% of the time; its counts are scaled "
                "to the whole",
                share);
  return text;
}

// The count a counter reports over its whole enabled time: scaled by enabled/running when the
// kernel multiplexed it, nothing when it never ran. Pure.
inline bool scaled_count(std::uint64_t value, std::uint64_t enabled, std::uint64_t running,
                         std::uint64_t* out) {
  if (running == 0) {
    if (enabled != 0) return false;  // enabled but never on the PMU: nothing to scale
    *out = value;                    // never enabled (the benchmark did not run): 0 is exact
    return true;
  }
  if (running >= enabled) {
    *out = value;
    return true;
  }
  *out = static_cast<std::uint64_t>(static_cast<long double>(value) * enabled / running);
  return true;
}

// The counters of one benchmark run: open() before the clone, read() after the reap.
class Session {
 public:
  struct Reading {
    std::string key;
    bool ok = false;
    std::uint64_t value = 0;
    std::string why;  // when !ok
  };

  explicit Session(const Context& context) : context_(context) {}
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session() {
    for (Counter& c : counters_)
      if (c.fd >= 0) ::close(c.fd);
  }

  void open() {
    for (const EventSpec& e : kSoftware) add(e, -1);
    int leader = -1;
    for (const EventSpec& e : kHardware) {
      if (!hardware_why_.empty()) {  // the group failed: the same reason for every member
        counters_.push_back({e, -1, hardware_why_});
        continue;
      }
      const int fd = add(e, leader);
      if (fd < 0) {
        hardware_why_ = counters_.back().why;
        // A group is all or nothing: the members opened so far go too.
        for (Counter& c : counters_) {
          if (c.spec.hardware && c.fd >= 0) {
            ::close(c.fd);
            c.fd = -1;
            c.why = hardware_why_;
          }
        }
        continue;
      }
      if (leader < 0) leader = fd;
    }
  }

  // Every counter, in kSoftware then kHardware order. `multiplexed` is set to the note of the
  // hardware group when it was multiplexed.
  std::vector<Reading> read(std::string* multiplexed) const {
    std::vector<Reading> out;
    std::uint64_t hw_enabled = 0, hw_running = 0;
    for (const Counter& c : counters_) {
      Reading r{c.spec.key, false, 0, c.why};
      if (c.fd >= 0) {
        std::uint64_t data[3] = {0, 0, 0};  // value, time enabled, time running
        const ssize_t n = ::read(c.fd, data, sizeof data);
        if (n != static_cast<ssize_t>(sizeof data)) {
          r.why = std::string("reading the counter failed: ") + (n < 0 ? ::strerror(errno) : "short read");
        } else if (!scaled_count(data[0], data[1], data[2], &r.value)) {
          r.why = "the counter was never scheduled onto the PMU (every slot was taken)";
        } else {
          r.ok = true;
          r.why.clear();
          if (c.spec.hardware && hw_enabled == 0) {
            hw_enabled = data[1];
            hw_running = data[2];
          }
        }
      }
      out.push_back(r);
    }
    if (multiplexed != nullptr) *multiplexed = multiplexed_note(hw_enabled, hw_running);
    return out;
  }

  bool user_only() const { return user_only_; }

 private:
  struct Counter {
    EventSpec spec;
    int fd = -1;
    std::string why;
  };

  static int perf_event_open(perf_event_attr* attr, int group) {
    return static_cast<int>(::syscall(SYS_perf_event_open, attr, 0, -1, group, PERF_FLAG_FD_CLOEXEC));
  }

  int add(const EventSpec& e, int group) {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = e.type;
    attr.config = e.config;
    attr.disabled = group < 0 ? 1 : 0;  // a group member follows its leader
    attr.inherit = 1;
    attr.enable_on_exec = group < 0 ? 1 : 0;
    attr.exclude_hv = 1;
    attr.exclude_kernel = user_only_ ? 1 : 0;
    attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    int fd = perf_event_open(&attr, group);
    if (fd < 0 && (errno == EACCES || errno == EPERM) && !user_only_ && !context_.in_container) {
      // kernel.perf_event_paranoid 2 lets a process count user space only: take that, and say so.
      attr.exclude_kernel = 1;
      fd = perf_event_open(&attr, group);
      if (fd >= 0) user_only_ = true;
    }
    const int error = errno;
    counters_.push_back({e, fd, fd < 0 ? why_unavailable(error, e.hardware, context_) : std::string()});
    return fd;
  }

  Context context_;
  std::vector<Counter> counters_;
  std::string hardware_why_;
  bool user_only_ = false;
};

}  // namespace noisefloor::probe::counters
