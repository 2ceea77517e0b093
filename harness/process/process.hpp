// Child processes on the host: the benchmark, small tool probes, and CPU spinners.
//
// Every child is started from an argv vector (never a shell), gets PR_SET_PDEATHSIG(SIGKILL) so it
// cannot outlive noisefloor (even when noisefloor is SIGKILLed), and is reaped on every exit path.
// Boost.Process (spinners, PATH lookup) is confined to process.cpp.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/callbacks.hpp"
#include "model/experiment.hpp"
#include "model/usage.hpp"

namespace noisefloor::process {

struct Spec {
  std::vector<std::string> argv;           // argv[0] without a '/' is looked up in PATH
  std::map<std::string, std::string> env;  // added to (or replacing in) the inherited environment
  bool inherit_env = true;                 // false: `env` is the whole environment
  std::optional<std::string> workdir;
  std::vector<int> affinity;  // CPUs, applied in the child before exec; empty: inherited
  std::optional<int> nice;    // applied in the child before exec
  std::chrono::duration<double> timeout{600};
  // The child is noisefloor's probe supervising the benchmark (probe/nf_probe.cpp --watch-stdin):
  // its stdin is a pipe noisefloor holds open for the run, its death signal is SIGTERM instead of
  // SIGKILL, and to stop it (timeout, interruption) noisefloor closes the pipe and sends SIGTERM,
  // so that it ends the benchmark's whole tree itself; SIGKILL only if it has not within
  // kSupervisedGrace. When noisefloor dies, by any signal, the pipe closes and the probe stops
  // the run the same way.
  bool supervised = false;
};

// How long a supervised child may take to end what it started before it is killed.
inline constexpr std::chrono::seconds kSupervisedGrace{5};

// Scheduling settings as read back from the running child (sched_getaffinity, getpriority).
struct Applied {
  std::vector<int> affinity;
  std::optional<int> nice;
};

struct Result {
  int pid = 0;                // the child's, as it ran
  int exit_code = -1;         // -1 when killed by a signal
  std::optional<int> signal;  // the terminating signal, if any
  bool timed_out = false;
  std::string out;  // the whole stdout
  std::string err;  // the whole stderr
  // Wall time from just before the child was started to the moment noisefloor woke up to its
  // exit, and the rusage (wait4) of the child and of every descendant it waited for.
  model::Usage usage;
  std::optional<Applied> applied;  // nullopt when the child exited before it could be read back
};

using model::Cancelled;
using model::LineCallback;

// Stop requests as a file descriptor, so that waits sleep until something happens instead of
// asking `cancelled` on a tick: arm once (before installing the signal handlers), then call
// notify_stop() from the handler (async-signal-safe) whenever a stop is requested. Unarmed,
// run() asks `cancelled` every 100 ms.
void arm_stop_notifications();
void notify_stop() noexcept;
// Sleeps for `duration`, or less when `cancelled` becomes true: woken by the stop pipe when it is
// armed, else asking `cancelled` every 100 ms.
void sleep_unless_stopped(std::chrono::duration<double> duration, const Cancelled& cancelled);

// Runs one child to completion (started like posix_spawn: clone with CLONE_VM | CLONE_VFORK, so
// noisefloor's memory is never copied; no shell). Complete stdout lines are passed to on_stdout_line as they
// arrive (for live parsing and progress). On timeout the child is killed (timed_out = true); when
// cancelled() becomes true the child is killed and noisefloor::Interrupted is thrown.
// Throws RunError when the child cannot be started.
Result run(const Spec& spec, const LineCallback& on_stdout_line, const Cancelled& cancelled);

// Runs a small tool (e.g. `go version`) and captures its output; for probes, not benchmarks.
struct Captured {
  int exit_code = -1;
  std::string out;
  std::string err;
};
Captured capture(const std::vector<std::string>& argv,
                 std::chrono::duration<double> timeout = std::chrono::seconds(20));

// Background CPU load: `count` processes doing a pure busy loop (no I/O, no allocation), each one
// the noisefloor binary itself re-executed as `noisefloor __spin`. Stopped (SIGKILL) and reaped
// by stop() or the destructor; they also die with noisefloor through PR_SET_PDEATHSIG.
class SpinnerSet {
 public:
  // Starts the spinners (spinner i pinned to cpus[i % cpus.size()] when cpus is not empty) and
  // waits until every one has written the byte that says it entered its loop; throws RunError
  // naming those that did not within `ready_timeout` (they are stopped).
  explicit SpinnerSet(const model::SpinnerSpec& spec,
                      std::chrono::duration<double> ready_timeout = std::chrono::seconds(10));
  SpinnerSet(const SpinnerSet&) = delete;
  SpinnerSet& operator=(const SpinnerSet&) = delete;
  ~SpinnerSet();  // best effort: kills and reaps whatever is left, never throws

  std::vector<int> pids() const;
  // The CPU time each spinner has had so far, in the order of pids(): /proc/<pid>/schedstat
  // (nanoseconds), else utime + stime of /proc/<pid>/stat (clock ticks); nullopt when neither can
  // be read (the spinner is gone).
  std::vector<std::optional<double>> cpu_seconds() const;
  // Which spinners are no longer running (died or were killed), by index into pids().
  std::vector<std::size_t> exited();
  void stop();  // kills and reaps; throws RunError if a spinner died early (the load was not there)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The body of `noisefloor __spin`: writes one byte to its stdout (the readiness pipe) once it
// spins, and never returns. Exits when its parent is gone.
[[noreturn]] void spin_forever(int expected_parent);

// The running executable (/proc/self/exe), for re-executing ourselves as a spinner.
std::string self_executable();

// `name` as exec would find it: unchanged when it holds a '/', else looked up in PATH. Throws
// RunError when it is not found.
std::string resolve_program(const std::string& name);

}  // namespace noisefloor::process
