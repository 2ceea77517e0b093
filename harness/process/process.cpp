// The only translation unit that includes Boost.Process (it costs tens of seconds to compile).
#include "process/process.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/process.hpp>
#include <boost/process/extend.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "files/files.hpp"
#include "model/errors.hpp"
#include "text/text.hpp"

namespace noisefloor::process {
namespace bp = boost::process;
namespace {

using Clock = std::chrono::steady_clock;

// How often a running child is checked for new output, timeout and interruption: 20 times a
// second, negligible next to a benchmark, and Ctrl-C answers at once. Its exit is noticed at once:
// a thread blocked in wait4(2) takes the time the moment the child is reaped.
constexpr auto kPollInterval = std::chrono::milliseconds(50);

double seconds(const timeval& tv) { return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6; }

// Waits for one child in a thread of its own, so that the exit is timed when it happens (not at
// the next poll) and its rusage is collected: wait4 reaps it with the accounting of its whole
// waited-for tree. Boost.Process never waits for a child handed to a Reaper (it is detached).
// The destructor kills the child's process group if it is still running, then joins.
class Reaper {
 public:
  explicit Reaper(pid_t pid) : pid_(pid) {
    if (::pipe2(fds_, O_CLOEXEC) != 0) {
      const int error = errno;
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
      throw RunError(fmt::format("cannot wait for process {}: {}", pid, std::strerror(error)));
    }
    thread_ = std::thread([this] {
      int status = 0;
      rusage ru{};
      pid_t r;
      do {
        r = ::wait4(pid_, &status, 0, &ru);
      } while (r < 0 && errno == EINTR);
      ended_ = Clock::now();
      status_ = r == pid_ ? status : -1;
      usage_ = ru;
      const char byte = 1;
      while (::write(fds_[1], &byte, 1) < 0 && errno == EINTR) {
      }
    });
  }
  Reaper(const Reaper&) = delete;
  Reaper& operator=(const Reaper&) = delete;
  ~Reaper() {
    if (!done()) kill_group();
    if (thread_.joinable()) thread_.join();
    ::close(fds_[0]);
    ::close(fds_[1]);
  }

  // True once the child has been reaped; waits up to `timeout` for it. A signal that arrives
  // meanwhile (a second Ctrl-C) does not cut the wait short: the grace a supervised child gets to
  // end its tree is the whole of it.
  bool wait_for(std::chrono::milliseconds timeout) {
    if (done_) return true;
    const auto deadline = Clock::now() + timeout;
    while (true) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
      pollfd p{fds_[0], POLLIN, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(std::max<std::int64_t>(left.count(), 0)));
      if (ready > 0) break;
      if (ready == 0 || errno != EINTR) return false;
    }
    thread_.join();  // the thread is past its last write: its results are visible after join
    thread_ = std::thread();
    done_ = true;
    return true;
  }
  bool done() { return wait_for(std::chrono::milliseconds(0)); }
  // Blocks until the child has been reaped.
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
  pid_t pid_;
  int fds_[2] = {-1, -1};
  std::thread thread_;
  bool done_ = false;
  int status_ = -1;
  Clock::time_point ended_;
  rusage usage_{};
};

// A temporary file that is removed with its owner.
class TempFile {
 public:
  explicit TempFile(const char* tag) {
    const char* dir = std::getenv("TMPDIR");
    std::string pattern = fmt::format("{}/noisefloor-{}-XXXXXX", dir && *dir ? dir : "/tmp", tag);
    const int fd = ::mkstemp(pattern.data());
    if (fd < 0) throw RunError(fmt::format("cannot create a temporary file {}: {}", pattern, std::strerror(errno)));
    ::close(fd);
    path_ = pattern;
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() { ::unlink(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Reads what a child appended to a file since the last call.
class Tail {
 public:
  explicit Tail(const std::string& path) : in_(path, std::ios::binary) {}
  // Appends new bytes to `all` and passes each complete new line to `on_line`.
  void pump(std::string& all, const LineCallback& on_line) {
    char buf[65536];
    while (true) {
      in_.read(buf, sizeof buf);
      const std::streamsize got = in_.gcount();
      if (got <= 0) break;
      all.append(buf, static_cast<std::size_t>(got));
      if (on_line) lines_.feed(std::string_view(buf, static_cast<std::size_t>(got)), on_line);
    }
    in_.clear();  // clear EOF so the next pump sees later writes
  }
  // The unterminated last line, if any, once the child has exited.
  void flush(const LineCallback& on_line) { lines_.finish(on_line); }

 private:
  std::ifstream in_;
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
    if (::setpgid(0, 0) != 0) {
      exec.set_error(std::error_code(errno, std::system_category()), "setpgid");
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
  if (child.valid() && child.id() > 0) ::kill(-child.id(), SIGKILL);
  std::error_code ec;
  child.terminate(ec);  // SIGKILL and reap
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

Result run(const Spec& spec, const LineCallback& on_stdout_line, const Cancelled& cancelled) {
  if (spec.argv.empty()) throw RunError("cannot run an empty command");
  const std::string program = resolve_program(spec.argv.front());
  const std::vector<std::string> args(spec.argv.begin() + 1, spec.argv.end());

  TempFile out_file("out");
  TempFile err_file("err");
  bp::environment env = boost::this_process::environment();
  for (const auto& [k, v] : spec.env) env[k] = v;
  ChildSetup setup = make_setup(spec.affinity, spec.nice);
  // A supervised child watches a pipe noisefloor holds: its end closes with noisefloor.
  int watched[2] = {-1, -1};
  if (spec.supervised) {
    if (::pipe2(watched, O_CLOEXEC) != 0)
      throw RunError(fmt::format("cannot start {}: pipe: {}", describe_argv(spec.argv), std::strerror(errno)));
    setup.stdin_fd = watched[0];
    setup.death_signal = SIGTERM;
  }
  struct Watched {
    int* fds;
    void close_end(int i) {
      if (fds[i] >= 0) ::close(fds[i]);
      fds[i] = -1;
    }
    ~Watched() {
      close_end(0);
      close_end(1);
    }
  } watched_guard{watched};

  std::error_code ec;
  const auto started = Clock::now();
  bp::child child = [&] {
    if (spec.workdir)
      return bp::child(bp::exe = program, bp::args = args, bp::env = env, bp::start_dir = *spec.workdir,
                       bp::std_in < bp::null, bp::std_out > out_file.path(), bp::std_err > err_file.path(),
                       bp::extend::on_exec_setup = setup, ec);
    return bp::child(bp::exe = program, bp::args = args, bp::env = env, bp::std_in < bp::null,
                     bp::std_out > out_file.path(), bp::std_err > err_file.path(),
                     bp::extend::on_exec_setup = setup, ec);
  }();
  if (ec) throw RunError(fmt::format("cannot start {}: {}", describe_argv(spec.argv), ec.message()));
  const pid_t pid = child.id();
  child.detach();  // the Reaper waits for it; on every path out of here it kills its group first
  Reaper reaper(pid);
  watched_guard.close_end(0);  // the child has its copy

  Result result;
  result.pid = pid;
  result.applied = read_back(pid);
  Tail out_tail(out_file.path());
  Tail err_tail(err_file.path());
  const auto deadline = started + std::chrono::duration_cast<Clock::duration>(spec.timeout);
  // A supervised child (the probe) ends what it started when told to; it is killed (below, or by
  // the Reaper) only if it has not in time.
  const auto stop_supervised = [&] {
    if (!spec.supervised || reaper.done()) return;
    watched_guard.close_end(1);
    ::kill(pid, SIGTERM);
    reaper.wait_for(std::chrono::duration_cast<std::chrono::milliseconds>(kSupervisedGrace));
  };
  bool interrupted = false;
  try {
    while (!reaper.wait_for(kPollInterval)) {
      out_tail.pump(result.out, on_stdout_line);
      if (cancelled && cancelled()) {
        interrupted = true;
        break;
      }
      if (Clock::now() >= deadline) {
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
  reaper.kill_group();
  reaper.wait();
  const rusage& ru = reaper.usage();
  result.usage.wall_seconds = std::chrono::duration<double>(reaper.ended() - started).count();
  result.usage.user_seconds = seconds(ru.ru_utime);
  result.usage.system_seconds = seconds(ru.ru_stime);
  result.usage.max_rss_kib = ru.ru_maxrss;
  result.usage.voluntary_switches = ru.ru_nvcsw;
  result.usage.involuntary_switches = ru.ru_nivcsw;
  out_tail.pump(result.out, on_stdout_line);
  out_tail.flush(on_stdout_line);
  err_tail.pump(result.err, nullptr);
  if (interrupted) throw Interrupted();

  const int status = reaper.status();
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
  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0)
    throw RunError(fmt::format("cannot start spinners: pipe: {}", std::strerror(errno)));
  struct Pipe {
    int* fds;
    ~Pipe() {
      if (fds[0] >= 0) ::close(fds[0]);
      if (fds[1] >= 0) ::close(fds[1]);
    }
  } pipe_guard{ready};
  for (int i = 0; i < spec.count; ++i) {
    std::vector<int> cpus;
    if (!spec.cpus.empty()) cpus.push_back(spec.cpus[static_cast<std::size_t>(i) % spec.cpus.size()]);
    ChildSetup setup = make_setup(cpus, spec.nice);
    setup.stdout_fd = ready[1];
    std::error_code ec;
    bp::child c(bp::exe = self, bp::args = std::vector<std::string>{"__spin", parent}, bp::std_in < bp::null,
                bp::std_err > bp::null, bp::extend::on_exec_setup = setup, ec);
    if (ec) throw RunError(fmt::format("cannot start spinner {} of {}: {}", i + 1, spec.count, ec.message()));
    impl_->pids.push_back(c.id());
    impl_->children.push_back(std::move(c));
  }
  ::close(ready[1]);
  ready[1] = -1;
  // One byte per spinner once it spins.
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(ready_timeout);
  int got = 0;
  while (got < spec.count) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    pollfd p{ready[0], POLLIN, 0};
    const int r = left.count() > 0 ? ::poll(&p, 1, static_cast<int>(left.count())) : 0;
    if (r < 0 && errno == EINTR) continue;
    char bytes[64];
    const ssize_t n = r > 0 ? ::read(ready[0], bytes, sizeof bytes) : 0;
    if (n > 0) {
      got += static_cast<int>(n);
      continue;
    }
    // Timed out, or every write end closed (all spinners gone) before all of them reported.
    const std::vector<std::size_t> gone = exited();
    throw RunError(fmt::format("{} of {} spinner(s) did not start spinning within {:.0f} s{}", spec.count - got,
                               spec.count, ready_timeout.count(),
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
    throw RunError(fmt::format("{} spinner(s) exited before the condition ended: the background load "
                               "was not there the whole time",
                               died_early));
}

}  // namespace noisefloor::process
