// The only translation unit that includes Boost.Process (it costs tens of seconds to compile).
#include "process/process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/process.hpp>
#include <boost/process/extend.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>
#include <utility>

#include "files/files.hpp"
#include "model/errors.hpp"
#include "text/text.hpp"

namespace noisefloor::process {
namespace bp = boost::process;
namespace {

using Clock = std::chrono::steady_clock;

double seconds(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

// The stop pipe (notify_stop): written by the signal handler, never drained, so that once a stop
// was requested every wait sees it at once.
int g_stop[2] = {-1, -1};

// A file descriptor that is closed with its owner.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  ~Fd() { reset(); }
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

struct Pipe {
  Fd read, write;
};

Pipe make_pipe(const char* what) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw RunError(fmt::format("cannot start {}: pipe: {}", what, std::strerror(errno)));
  return {Fd(fds[0]), Fd(fds[1])};
}

// The exit of one child, as a file descriptor that becomes readable when it exits: its pidfd
// (Linux 5.3), else a pipe written by a thread blocked in wait4(2) (older kernels). Reaped with
// wait4 either way, for the rusage of its whole waited-for tree. The destructor kills the child's
// process group if it is still running, then reaps it.
class Exit {
 public:
  explicit Exit(pid_t pid) : pid_(pid) {
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (pidfd >= 0) {
      ::fcntl(pidfd, F_SETFD, FD_CLOEXEC);
      fd_ = Fd(pidfd);
      return;
    }
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
      const int error = errno;
      kill_group();
      reap(true);
      throw RunError(fmt::format("cannot wait for process {}: {}", pid, std::strerror(error)));
    }
    fd_ = Fd(fds[0]);
    notify_ = Fd(fds[1]);
    thread_ = std::thread([this] {
      reap(true);
      const char byte = 1;
      while (::write(notify_.get(), &byte, 1) < 0 && errno == EINTR) {
      }
    });
  }
  Exit(const Exit&) = delete;
  Exit& operator=(const Exit&) = delete;
  ~Exit() {
    if (!done()) kill_group();
    wait();
  }

  int fd() const { return fd_.get(); }

  // Called when fd() is readable: reaps the child, which exited at `woke` at the latest.
  void exited(Clock::time_point woke) {
    if (done_) return;
    if (thread_.joinable()) {
      thread_.join();  // the thread reaped it and took the time: it is past its last write
    } else {
      reap(false);
      ended_ = woke;
    }
    done_ = true;
  }
  // True once the child has been reaped; waits up to `timeout` for it. A signal that arrives
  // meanwhile (a second Ctrl-C) does not cut the wait short.
  bool wait_for(std::chrono::milliseconds timeout) {
    if (done_) return true;
    const auto deadline = Clock::now() + timeout;
    while (true) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
      pollfd p{fd_.get(), POLLIN, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(std::max<std::int64_t>(left.count(), 0)));
      if (ready > 0) break;
      if (ready == 0 || errno != EINTR) return false;
    }
    exited(Clock::now());
    return true;
  }
  bool done() { return wait_for(std::chrono::milliseconds(0)); }
  void wait() {
    while (!wait_for(std::chrono::milliseconds(1000))) {
    }
  }
  // SIGKILL to the child's process group (its own: see ChildSetup) and, until it is reaped, to
  // the child (a reaped pid may belong to another process by now; the group id stays reserved
  // while any member of the group lives).
  void kill_group() {
    ::kill(-pid_, SIGKILL);
    if (!done_) ::kill(pid_, SIGKILL);
  }

  // Valid once done().
  int status() const { return status_; }
  Clock::time_point ended() const { return ended_; }
  const rusage& usage() const { return usage_; }

 private:
  void reap(bool take_time) {
    int status = 0;
    rusage ru{};
    pid_t r;
    do {
      r = ::wait4(pid_, &status, 0, &ru);
    } while (r < 0 && errno == EINTR);
    if (take_time) ended_ = Clock::now();
    status_ = r == pid_ ? status : -1;
    usage_ = ru;
  }

  pid_t pid_;
  Fd fd_, notify_;
  std::thread thread_;
  bool done_ = false;
  int status_ = -1;
  Clock::time_point ended_;
  rusage usage_{};
};

// Appends what a pipe holds to `all` (and passes each complete line to `on_line`); false at end
// of file. Non-blocking reads: a pipe is read only when poll said so, or drained at the end.
class Reader {
 public:
  explicit Reader(Fd fd) : fd_(std::move(fd)) { ::fcntl(fd_.get(), F_SETFL, O_NONBLOCK); }
  int fd() const { return fd_.get(); }
  bool open() const { return static_cast<bool>(fd_); }
  void pump(std::string& all, const LineCallback& on_line) {
    char buf[65536];
    while (fd_) {
      const ssize_t got = ::read(fd_.get(), buf, sizeof buf);
      if (got > 0) {
        all.append(buf, static_cast<std::size_t>(got));
        if (on_line) lines_.feed(std::string_view(buf, static_cast<std::size_t>(got)), on_line);
        continue;
      }
      if (got < 0 && errno == EINTR) continue;
      if (got < 0 && errno == EAGAIN) return;
      fd_.reset();  // end of file (or an error: nothing more will come)
    }
  }
  // The unterminated last line, if any, once the child has exited.
  void flush(const LineCallback& on_line) {
    if (on_line) lines_.finish(on_line);
  }

 private:
  Fd fd_;
  text::LineSplitter lines_;
};

std::optional<Applied> read_back(pid_t pid) {
  Applied applied;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(pid, sizeof set, &set) != 0) return std::nullopt;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) applied.affinity.push_back(cpu);
  errno = 0;
  const int prio = ::getpriority(PRIO_PROCESS, static_cast<id_t>(pid));
  if (errno == 0) applied.nice = prio;
  return applied;
}

// Everything a child needs set between fork and exec, applied with async-signal-safe calls only.
struct ChildSetup {
  pid_t parent = 0;
  cpu_set_t cpus;
  bool pin = false;
  std::optional<int> nice;
  int stdout_fd = -1;  // becomes the child's stdout when set (the spinners' readiness pipe)
  int stdin_fd = -1;   // becomes the child's stdin when set (a supervised child's watched pipe)
  int death_signal = SIGKILL;
  // A session of its own (a spinner): the load of an unrelated job. Where the kernel shares the
  // CPU between sessions before their tasks (autogroup, on by default in most desktop kernels), a
  // spinner in noisefloor's session would only split that session's share with the benchmark, and
  // other work on the machine would leave both less than a spinner should take.
  bool own_session = false;

  template <class Executor>
  void operator()(Executor& exec) const {
    // Die with noisefloor, even when it is SIGKILLed (a supervised child is told with SIGTERM, and
    // then ends what it started itself).
    if (::prctl(PR_SET_PDEATHSIG, death_signal) != 0 || ::getppid() != parent) {
      exec.set_error(std::error_code(errno ? errno : ESRCH, std::system_category()), "prctl");
      return;
    }
    // Its own process group: the terminal's Ctrl-C reaches noisefloor only (which then stops
    // everything in order), and a kill reaches whatever the benchmark started (go test's test
    // binary, a wrapper's children).
    if (own_session ? ::setsid() < 0 : ::setpgid(0, 0) != 0) {
      exec.set_error(std::error_code(errno, std::system_category()), own_session ? "setsid" : "setpgid");
      return;
    }
    // Leave noisefloor's signal mask and dispositions behind.
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    if (pin && ::sched_setaffinity(0, sizeof cpus, &cpus) != 0) {
      exec.set_error(std::error_code(errno, std::system_category()), "sched_setaffinity");
      return;
    }
    if (nice && ::setpriority(PRIO_PROCESS, 0, *nice) != 0) {
      exec.set_error(std::error_code(errno, std::system_category()), "setpriority");
      return;
    }
    // A nice value weighs a task against the others of its autogroup only: a spinner alone in its
    // session gives it to the session too, or `spinners: {nice: 19}` would not yield to the
    // benchmark. No autogroup (a kernel without it, a container): the task's nice is all there is.
    if (nice && own_session) {
      const int fd = ::open("/proc/self/autogroup", O_WRONLY | O_CLOEXEC);
      if (fd >= 0) {
        // between fork and exec: no snprintf (not async-signal-safe), the digits by hand (-20 to 19)
        const int v = *nice < 0 ? -*nice : *nice;
        char text[4];
        std::size_t n = 0;
        if (*nice < 0) text[n++] = '-';
        if (v >= 10) text[n++] = static_cast<char>('0' + v / 10);
        text[n++] = static_cast<char>('0' + v % 10);
        (void)!::write(fd, text, n);
        ::close(fd);
      }
    }
    if (stdout_fd >= 0 && ::dup2(stdout_fd, STDOUT_FILENO) < 0) {
      exec.set_error(std::error_code(errno, std::system_category()), "dup2");
      return;
    }
    if (stdin_fd >= 0 && ::dup2(stdin_fd, STDIN_FILENO) < 0) {
      exec.set_error(std::error_code(errno, std::system_category()), "dup2");
      return;
    }
  }
};

ChildSetup make_setup(const std::vector<int>& affinity, std::optional<int> nice) {
  ChildSetup setup;
  setup.parent = ::getpid();
  CPU_ZERO(&setup.cpus);
  for (int cpu : affinity) CPU_SET(cpu, &setup.cpus);
  setup.pin = !affinity.empty();
  setup.nice = nice;
  return setup;
}

// SIGKILL to the child's whole process group (its own: see ChildSetup), then to the child.
void kill_group(bp::child& child) {
  const pid_t pid = child.valid() ? child.id() : -1;
  if (pid > 0) ::kill(-pid, SIGKILL);
  std::error_code ec;
  child.terminate(ec);  // SIGKILL, and a waitpid with WNOHANG that is often too early to reap
  // Reaped now, so no zombie waits for the end of the run (ECHILD: terminate reaped it).
  if (pid > 0) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

std::string describe_argv(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    if (!s.empty()) s += ' ';
    s += a;
  }
  return s;
}

}  // namespace

namespace {

// What the child of spawn() does between clone and exec, prepared by the parent: the child shares
// the parent's memory (CLONE_VM) and must not allocate. It reports where it failed through `step`
// and `error` in the same memory.
struct SpawnArgs {
  const char* program = nullptr;
  char* const* argv = nullptr;
  char* const* envp = nullptr;
  const char* workdir = nullptr;
  pid_t parent = 0;
  cpu_set_t cpus;
  bool pin = false;
  bool set_nice = false;
  int nice = 0;
  int death_signal = SIGKILL;
  int stdio[3] = {-1, -1, -1};          // become the child's 0, 1, 2
  const char* volatile step = nullptr;  // the call that failed, when one did
  volatile int error = 0;
};

int spawn_child(void* raw) {
  auto* a = static_cast<SpawnArgs*>(raw);
  const auto fail = [a](const char* step) {
    a->step = step;
    a->error = errno;
    ::_exit(127);
  };
  // The parent blocked every signal around clone; handlers are the parent's code on the parent's
  // memory, so each one goes back to its default before the mask is lifted (as posix_spawn does).
  for (int sig = 1; sig < NSIG; ++sig) {
    struct sigaction sa {};
    if (::sigaction(sig, nullptr, &sa) == 0 && sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN) {
      sa.sa_handler = SIG_DFL;
      sa.sa_flags = 0;
      ::sigaction(sig, &sa, nullptr);
    }
  }
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
  // Die with noisefloor, even when it is SIGKILLed (a supervised child is told with SIGTERM, and
  // then ends what it started itself).
  if (::prctl(PR_SET_PDEATHSIG, a->death_signal) != 0) fail("prctl");
  if (::getppid() != a->parent) {
    errno = ESRCH;
    fail("getppid");
  }
  // Its own process group: the terminal's Ctrl-C reaches noisefloor only (which then stops
  // everything in order), and a kill reaches whatever the benchmark started.
  if (::setpgid(0, 0) != 0) fail("setpgid");
  if (a->pin && ::sched_setaffinity(0, sizeof a->cpus, &a->cpus) != 0) fail("sched_setaffinity");
  if (a->set_nice && ::setpriority(PRIO_PROCESS, 0, a->nice) != 0) fail("setpriority");
  if (a->workdir != nullptr && ::chdir(a->workdir) != 0) fail("chdir");
  for (int target = 0; target < 3; ++target) {
    const int fd = a->stdio[target];
    if (fd == target) {
      if (::fcntl(fd, F_SETFD, 0) != 0) fail("fcntl");  // keep it across exec
    } else if (::dup2(fd, target) < 0) {
      fail("dup2");
    }
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execve(a->program, a->argv, a->envp);
  fail("execve");
  return 127;
}

// Starts `a` as a child the way posix_spawn(3) does: clone(2) with CLONE_VM | CLONE_VFORK on a
// stack of its own. Nothing of noisefloor's memory is copied (a fork copies its page tables and
// then faults on every page either side writes), and this thread sleeps until the child has
// exec'd or failed. Returns the pid; throws RunError naming the step that failed.
pid_t spawn(SpawnArgs& a, const std::string& what) {
  constexpr std::size_t kStack = 64 * 1024;
  void* stack =
      ::mmap(nullptr, kStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED)
    throw RunError(fmt::format("cannot start {}: mmap: {}", what, std::strerror(errno)));
  sigset_t all, previous;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &previous);
  const pid_t pid =
      ::clone(spawn_child, static_cast<char*>(stack) + kStack, CLONE_VM | CLONE_VFORK | SIGCHLD, &a);
  const int clone_error = errno;
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  ::munmap(stack, kStack);
  if (pid < 0) throw RunError(fmt::format("cannot start {}: clone: {}", what, std::strerror(clone_error)));
  if (a.step != nullptr) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    const std::string step(a.step);
    if (step == "chdir")
      throw RunError(fmt::format("cannot start {}: its working directory {}: {}", what, a.workdir,
                                 std::strerror(a.error)));
    throw RunError(fmt::format("cannot start {}: {}: {}", what, step, std::strerror(a.error)));
  }
  return pid;
}

// argv/envp as execve wants them, pointing into `strings`.
std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

std::vector<std::string> environment_with(const std::map<std::string, std::string>& overrides, bool inherit) {
  std::vector<std::string> out;
  for (char** e = inherit ? environ : nullptr; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const auto eq = entry.find('=');
    if (eq != std::string_view::npos && overrides.contains(std::string(entry.substr(0, eq)))) continue;
    out.emplace_back(entry);
  }
  for (const auto& [k, v] : overrides) out.push_back(k + "=" + v);
  return out;
}

}  // namespace

void arm_stop_notifications() {
  if (g_stop[0] < 0 && ::pipe2(g_stop, O_CLOEXEC | O_NONBLOCK) != 0) g_stop[0] = g_stop[1] = -1;
}

void notify_stop() noexcept {
  if (g_stop[1] < 0) return;
  const char byte = 1;
  [[maybe_unused]] const ssize_t n = ::write(g_stop[1], &byte, 1);
}

void sleep_unless_stopped(std::chrono::duration<double> duration, const Cancelled& cancelled) {
  const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(duration);
  bool stop_fd = cancelled && g_stop[0] >= 0;
  while (!(cancelled && cancelled())) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - Clock::now()).count();
    if (left <= 0) return;
    pollfd p{stop_fd ? g_stop[0] : -1, POLLIN, 0};
    const std::int64_t wait = cancelled && !stop_fd ? std::min<std::int64_t>(left, 100) : left;
    if (::poll(&p, 1, static_cast<int>(std::min<std::int64_t>(wait, std::numeric_limits<int>::max()))) > 0 &&
        !(cancelled && cancelled()))
      stop_fd = false;  // a stop that is not this caller's: ask every 100 ms instead
  }
}

namespace {

// What the child is started with, but its standard streams.
SpawnArgs spawn_args(const Spec& spec, const std::string& program, const std::vector<char*>& argv,
                     const std::vector<char*>& envp) {
  SpawnArgs a;
  a.program = program.c_str();
  a.argv = argv.data();
  a.envp = envp.data();
  a.workdir = spec.workdir ? spec.workdir->c_str() : nullptr;
  a.parent = ::getpid();
  CPU_ZERO(&a.cpus);
  for (int cpu : spec.affinity) CPU_SET(cpu, &a.cpus);
  a.pin = !spec.affinity.empty();
  a.set_nice = spec.nice.has_value();
  a.nice = spec.nice.value_or(0);
  a.death_signal = spec.supervised ? SIGTERM : SIGKILL;
  return a;
}

model::Usage usage_of(const rusage& ru, Clock::duration wall) {
  model::Usage u;
  u.wall_seconds = std::chrono::duration<double>(wall).count();
  u.user_seconds = seconds(ru.ru_utime);
  u.system_seconds = seconds(ru.ru_stime);
  u.max_rss_kib = ru.ru_maxrss;
  u.voluntary_switches = ru.ru_nvcsw;
  u.involuntary_switches = ru.ru_nivcsw;
  return u;
}

// The rest of the output once the child's group is dead: the pipes reach end of file unless
// something outside it (a daemon that left the group) holds them; that gets 2 s, then is cut off.
void drain(Reader& out_reader, Reader& err_reader, Result& result, const LineCallback& on_stdout_line) {
  const auto drain_until = Clock::now() + std::chrono::seconds(2);
  while (out_reader.open() || err_reader.open()) {
    pollfd fds[2] = {{out_reader.fd(), POLLIN, 0}, {err_reader.fd(), POLLIN, 0}};
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(drain_until - Clock::now()).count();
    if (left <= 0) break;
    if (::poll(fds, 2, static_cast<int>(left)) < 0 && errno != EINTR) break;
    if (fds[0].revents) out_reader.pump(result.out, on_stdout_line);
    if (fds[1].revents) err_reader.pump(result.err, nullptr);
  }
  out_reader.flush(on_stdout_line);
}

}  // namespace

Result run(const Spec& spec, const LineCallback& on_stdout_line, const Cancelled& cancelled) {
  if (spec.argv.empty()) throw RunError("cannot run an empty command");
  const std::string what = describe_argv(spec.argv);
  const std::string program = resolve_program(spec.argv.front());
  std::vector<std::string> argv_strings = spec.argv;
  std::vector<std::string> env_strings = environment_with(spec.env, spec.inherit_env);
  const std::vector<char*> argv = pointers(argv_strings);
  const std::vector<char*> envp = pointers(env_strings);

  Pipe out = make_pipe(what.c_str());
  Pipe err = make_pipe(what.c_str());
  // A benchmark's burst of output fills the pipe's buffer, not its time: 1 MiB where allowed.
  ::fcntl(out.write.get(), F_SETPIPE_SZ, 1 << 20);
  Fd null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!null) throw RunError(fmt::format("cannot start {}: /dev/null: {}", what, std::strerror(errno)));
  // A supervised child watches a pipe noisefloor holds: its end closes with noisefloor.
  Pipe watched;
  if (spec.supervised) watched = make_pipe(what.c_str());

  SpawnArgs a = spawn_args(spec, program, argv, envp);
  a.stdio[0] = spec.supervised ? watched.read.get() : null.get();
  a.stdio[1] = out.write.get();
  a.stdio[2] = err.write.get();

  const auto started = Clock::now();
  const pid_t pid = spawn(a, what);
  Exit child(pid);    // on every path out of here it kills the child's group first
  out.write.reset();  // the child has its copies
  err.write.reset();
  watched.read.reset();
  null.reset();

  Result result;
  result.pid = pid;
  result.applied = read_back(pid);
  Reader out_reader(std::move(out.read));
  Reader err_reader(std::move(err.read));
  const auto deadline = started + std::chrono::duration_cast<Clock::duration>(spec.timeout);
  // A supervised child (the probe) ends what it started when told to; it is killed (below, or by
  // Exit) only if it has not in time.
  const auto stop_supervised = [&] {
    if (!spec.supervised || child.done()) return;
    watched.write.reset();
    ::kill(pid, SIGTERM);
    child.wait_for(std::chrono::duration_cast<std::chrono::milliseconds>(kSupervisedGrace));
  };
  // No tick: the wait sleeps until the child exits, writes, the deadline passes or a stop is
  // requested (the stop pipe; without it, `cancelled` is asked every 100 ms).
  bool stop_fd = cancelled && g_stop[0] >= 0;
  bool interrupted = false;
  try {
    while (true) {
      pollfd fds[4] = {{child.fd(), POLLIN, 0},
                       {out_reader.fd(), POLLIN, 0},
                       {err_reader.fd(), POLLIN, 0},
                       {stop_fd ? g_stop[0] : -1, POLLIN, 0}};
      auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
      left = std::clamp<std::int64_t>(left, 0, std::numeric_limits<int>::max());
      if (cancelled && !stop_fd) left = std::min<std::int64_t>(left, 100);
      const int ready = ::poll(fds, 4, static_cast<int>(left));
      const auto woke = Clock::now();
      if (ready < 0 && errno != EINTR)
        throw RunError(fmt::format("waiting for {}: poll: {}", what, std::strerror(errno)));
      if (ready > 0 && (fds[0].revents & POLLIN)) {
        child.exited(woke);
        break;
      }
      if (ready > 0 && fds[1].revents) out_reader.pump(result.out, on_stdout_line);
      if (ready > 0 && fds[2].revents) err_reader.pump(result.err, nullptr);
      if (cancelled && (!stop_fd || (ready > 0 && fds[3].revents))) {
        if (cancelled()) {
          interrupted = true;
          break;
        }
        // A stop this caller does not count as its own (never in noisefloor: the handler sets
        // both): asking every 100 ms instead of waking on a pipe that stays readable.
        stop_fd = false;
      }
      if (woke >= deadline) {
        result.timed_out = true;
        break;
      }
    }
  } catch (...) {  // e.g. output that cannot be parsed: the run stops, in order
    stop_supervised();
    throw;
  }
  // A child that died of a signal while we were asked to stop was stopped by the request.
  if (!interrupted && cancelled && cancelled()) interrupted = true;
  if (interrupted || result.timed_out) stop_supervised();
  // Whatever the benchmark started and left behind goes with it.
  child.kill_group();
  child.wait();
  result.usage = usage_of(child.usage(), child.ended() - started);
  drain(out_reader, err_reader, result, on_stdout_line);
  if (interrupted) throw Interrupted();

  const int status = child.status();
  if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    result.exit_code = -1;
  } else {
    result.exit_code = WEXITSTATUS(status);
  }
  return result;
}

Captured capture(const std::vector<std::string>& argv, std::chrono::duration<double> timeout) {
  Spec spec;
  spec.argv = argv;
  spec.timeout = timeout;
  const Result r = run(spec, nullptr, nullptr);
  Captured c;
  c.exit_code = r.timed_out ? -1 : r.exit_code;
  c.out = r.out;
  c.err = r.err;
  return c;
}

std::string resolve_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const auto found = bp::search_path(name);
  if (found.empty()) throw RunError(fmt::format("cannot run {}: not found in PATH", name));
  return found.string();
}

std::string self_executable() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw RunError(fmt::format("cannot find the noisefloor executable: {}", ec.message()));
  return p.string();
}

void spin_forever(int expected_parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != expected_parent) ::_exit(0);
  // Ready: the parent waits for this byte before the condition counts as in force.
  const char ready = 1;
  while (::write(STDOUT_FILENO, &ready, 1) < 0 && errno == EINTR) {
  }
  ::close(STDOUT_FILENO);
  // A pure busy loop: no I/O, no allocation. The rare getppid() is a belt to PDEATHSIG's braces.
  volatile std::uint64_t counter = 0;
  while (true) {
    for (std::uint32_t i = 0; i < (1u << 28); ++i) counter = counter + 1;
    if (::getppid() != expected_parent) ::_exit(0);
  }
}

namespace {

// CPU time of a process so far: schedstat's first field (ns on the CPU), else utime + stime.
std::optional<double> process_cpu_seconds(int pid) {
  if (const auto text = files::try_read(fmt::format("/proc/{}/schedstat", pid))) {
    char* end = nullptr;
    const unsigned long long ns = std::strtoull(text->c_str(), &end, 10);
    if (end != text->c_str()) return static_cast<double>(ns) / 1e9;
  }
  const auto stat = files::try_read(fmt::format("/proc/{}/stat", pid));
  if (!stat) return std::nullopt;
  // "pid (comm) state ppid ...": fields after the last ')' start at field 3; utime is 14, stime 15.
  const auto close = stat->rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::vector<std::string_view> fields;
  for (std::string_view rest = std::string_view(*stat).substr(close + 2); !rest.empty();) {
    const auto space = rest.find(' ');
    fields.push_back(rest.substr(0, space));
    if (space == std::string_view::npos) break;
    rest.remove_prefix(space + 1);
  }
  if (fields.size() < 13) return std::nullopt;
  const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  const auto number = [](std::string_view f) { return std::strtod(std::string(f).c_str(), nullptr); };
  return (number(fields[11]) + number(fields[12])) / ticks;
}

}  // namespace

struct SpinnerSet::Impl {
  std::vector<bp::child> children;
  std::vector<int> pids;
};

SpinnerSet::SpinnerSet(const model::SpinnerSpec& spec, std::chrono::duration<double> ready_timeout)
    : impl_(std::make_unique<Impl>()) {
  const std::string self = self_executable();
  const std::string parent = std::to_string(::getpid());
  Pipe ready = make_pipe("spinners");
  for (int i = 0; i < spec.count; ++i) {
    std::vector<int> cpus;
    if (!spec.cpus.empty()) cpus.push_back(spec.cpus[static_cast<std::size_t>(i) % spec.cpus.size()]);
    ChildSetup setup = make_setup(cpus, spec.nice);
    setup.stdout_fd = ready.write.get();
    setup.own_session = true;
    std::error_code ec;
    bp::child c(bp::exe = self, bp::args = std::vector<std::string>{"__spin", parent},
                bp::std_in<bp::null, bp::std_err> bp::null, bp::extend::on_exec_setup = setup, ec);
    if (ec) throw RunError(fmt::format("cannot start spinner {} of {}: {}", i + 1, spec.count, ec.message()));
    impl_->pids.push_back(c.id());
    impl_->children.push_back(std::move(c));
  }
  ready.write.reset();
  // One byte per spinner once it spins.
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(ready_timeout);
  int got = 0;
  while (got < spec.count) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    pollfd p{ready.read.get(), POLLIN, 0};
    const int r = left.count() > 0 ? ::poll(&p, 1, static_cast<int>(left.count())) : 0;
    if (r < 0 && errno == EINTR) continue;
    char bytes[64];
    const ssize_t n = r > 0 ? ::read(ready.read.get(), bytes, sizeof bytes) : 0;
    if (n > 0) {
      got += static_cast<int>(n);
      continue;
    }
    // Timed out, or every write end closed (all spinners gone) before all of them reported.
    const std::vector<std::size_t> gone = exited();
    throw RunError(fmt::format("{} of {} spinner(s) did not start spinning within {:.0f} s{}",
                               spec.count - got, spec.count, ready_timeout.count(),
                               gone.empty() ? std::string() : fmt::format(" ({} exited)", gone.size())));
  }
}

SpinnerSet::~SpinnerSet() {
  for (auto& c : impl_->children)
    if (c.valid()) kill_group(c);
}

std::vector<int> SpinnerSet::pids() const { return impl_->pids; }

std::vector<std::optional<double>> SpinnerSet::cpu_seconds() const {
  std::vector<std::optional<double>> out;
  for (const int pid : impl_->pids) out.push_back(process_cpu_seconds(pid));
  return out;
}

std::vector<std::size_t> SpinnerSet::exited() {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < impl_->children.size(); ++i) {
    std::error_code ec;
    if (!impl_->children[i].running(ec)) out.push_back(i);
  }
  return out;
}

void SpinnerSet::stop() {
  const std::size_t died_early = exited().size();
  for (auto& c : impl_->children) kill_group(c);
  impl_->children.clear();
  if (died_early > 0)
    throw RunError(
        fmt::format("{} spinner(s) exited before the condition ended: the background load "
                    "was not there the whole time",
                    died_early));
}

}  // namespace noisefloor::process
