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

#include "model/errors.hpp"
#include "text/text.hpp"

namespace noisefloor::process {
namespace bp = boost::process;
namespace {

using Clock = std::chrono::steady_clock;

// How often a running child is checked for new output, timeout and interruption: 20 times a
// second, negligible next to a benchmark, and Ctrl-C answers at once. Its exit is noticed at once
// through a pidfd (Linux ≥ 5.3); older kernels fall back to this interval.
constexpr auto kPollInterval = std::chrono::milliseconds(50);

// A file descriptor that becomes readable when the process exits, or -1.
class PidFd {
 public:
  explicit PidFd(pid_t pid) {
#ifdef SYS_pidfd_open
    fd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
    (void)pid;
#endif
  }
  PidFd(const PidFd&) = delete;
  PidFd& operator=(const PidFd&) = delete;
  ~PidFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  // Waits up to `timeout` for the exit (or just sleeps when there is no pidfd).
  void wait(std::chrono::milliseconds timeout) const {
    if (fd_ < 0) {
      std::this_thread::sleep_for(timeout);
      return;
    }
    pollfd p{fd_, POLLIN, 0};
    ::poll(&p, 1, static_cast<int>(timeout.count()));
  }

 private:
  int fd_ = -1;
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

std::string resolve_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const auto found = bp::search_path(name);
  if (found.empty())
    throw RunError(fmt::format("cannot run {}: not found in PATH", name));
  return found.string();
}

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

  template <class Executor>
  void operator()(Executor& exec) const {
    // Die with noisefloor, even when it is SIGKILLed.
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) {
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
  const ChildSetup setup = make_setup(spec.affinity, spec.nice);

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

  // If anything below throws (a parse error in on_stdout_line, ...), the child's whole group
  // goes: bp::child's own destructor would only kill the child.
  struct GroupGuard {
    bp::child& child;
    ~GroupGuard() {
      std::error_code e;
      if (child.valid() && child.running(e)) kill_group(child);
    }
  } group_guard{child};

  Result result;
  result.applied = read_back(child.id());
  const PidFd exited(child.id());
  Tail out_tail(out_file.path());
  Tail err_tail(err_file.path());
  const auto deadline = started + std::chrono::duration_cast<Clock::duration>(spec.timeout);
  bool interrupted = false;
  while (child.running(ec)) {
    out_tail.pump(result.out, on_stdout_line);
    if (cancelled && cancelled()) {
      interrupted = true;
      break;
    }
    if (Clock::now() >= deadline) {
      result.timed_out = true;
      break;
    }
    exited.wait(kPollInterval);
  }
  // A child that died of a signal while we were asked to stop was stopped by the request.
  if (!interrupted && cancelled && cancelled()) interrupted = true;
  if (interrupted || result.timed_out) {
    kill_group(child);
  } else {
    child.wait(ec);
    // Whatever the benchmark started and left behind goes with it.
    ::kill(-child.id(), SIGKILL);
  }
  result.wall_seconds = std::chrono::duration<double>(Clock::now() - started).count();
  out_tail.pump(result.out, on_stdout_line);
  out_tail.flush(on_stdout_line);
  err_tail.pump(result.err, nullptr);
  if (interrupted) throw Interrupted();

  const int status = child.native_exit_code();
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

std::string self_executable() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw RunError(fmt::format("cannot find the noisefloor executable: {}", ec.message()));
  return p.string();
}

void spin_forever(int expected_parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != expected_parent) ::_exit(0);
  // A pure busy loop: no I/O, no allocation. The rare getppid() is a belt to PDEATHSIG's braces.
  volatile std::uint64_t counter = 0;
  while (true) {
    for (std::uint32_t i = 0; i < (1u << 28); ++i) counter = counter + 1;
    if (::getppid() != expected_parent) ::_exit(0);
  }
}

struct SpinnerSet::Impl {
  std::vector<bp::child> children;
};

SpinnerSet::SpinnerSet(const model::SpinnerSpec& spec) : impl_(std::make_unique<Impl>()) {
  const std::string self = self_executable();
  const std::string parent = std::to_string(::getpid());
  for (int i = 0; i < spec.count; ++i) {
    std::vector<int> cpus;
    if (!spec.cpus.empty()) cpus.push_back(spec.cpus[static_cast<std::size_t>(i) % spec.cpus.size()]);
    const ChildSetup setup = make_setup(cpus, spec.nice);
    std::error_code ec;
    bp::child c(bp::exe = self, bp::args = std::vector<std::string>{"__spin", parent}, bp::std_in < bp::null,
                bp::std_out > bp::null, bp::std_err > bp::null, bp::extend::on_exec_setup = setup, ec);
    if (ec) throw RunError(fmt::format("cannot start spinner {} of {}: {}", i + 1, spec.count, ec.message()));
    impl_->children.push_back(std::move(c));
  }
}

SpinnerSet::~SpinnerSet() {
  for (auto& c : impl_->children) {
    std::error_code ec;
    if (c.valid()) kill_group(c);
    (void)ec;
  }
}

std::vector<int> SpinnerSet::pids() const {
  std::vector<int> pids;
  for (const auto& c : impl_->children) pids.push_back(c.id());
  return pids;
}

void SpinnerSet::stop() {
  int died_early = 0;
  for (auto& c : impl_->children) {
    std::error_code ec;
    if (!c.running(ec)) ++died_early;
    kill_group(c);
  }
  impl_->children.clear();
  if (died_early > 0)
    throw RunError(fmt::format("{} spinner(s) exited before the condition ended: the background load "
                               "was not there the whole time",
                               died_early));
}

}  // namespace noisefloor::process
