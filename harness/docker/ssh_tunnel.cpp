#include "docker/ssh_tunnel.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "docker/api.hpp"

namespace noisefloor::docker {
namespace {

using std::chrono::steady_clock;

constexpr std::chrono::seconds kOpenTimeout{20};
constexpr std::chrono::milliseconds kTunnelPoll{25};
constexpr std::chrono::seconds kStopGrace{2};
constexpr std::chrono::milliseconds kStderrGrace{200};
constexpr std::size_t kMaxSocketPath = 107;  // sizeof(sockaddr_un::sun_path) - 1 on Linux
constexpr std::string_view kSocketName = "/docker.sock";

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

std::vector<std::string> split_spaces(std::string_view text) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    std::size_t end = i;
    while (end < text.size() && text[end] != ' ' && text[end] != '\t') ++end;
    if (end > i) words.emplace_back(text.substr(i, end - i));
    i = end;
  }
  return words;
}

// `name` itself when it has a '/', else its first executable match in PATH; "" when none.
std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? name : std::string();
  std::string path = env("PATH");
  if (path.empty()) path = "/usr/local/bin:/usr/bin:/bin";
  for (std::size_t start = 0; start <= path.size();) {
    const std::size_t end = std::min(path.find(':', start), path.size());
    if (end > start) {
      const std::string candidate = path.substr(start, end - start) + "/" + name;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    start = end + 1;
  }
  return std::string();
}

// What a connection to the tunnel's local socket says about the forward.
enum class Probe {
  not_listening,  // ssh has not bound the socket yet (or is gone)
  answered,       // the remote engine answered a ping through the tunnel
  refused,        // ssh accepted, then closed: it could not open the remote socket
  silent,         // no answer before the deadline
};

// Connects to the local socket and, once ssh accepts, sends HEAD /_ping through it: ssh accepts
// every connection and only then asks the remote side for its socket, so the engine's first byte
// is what shows the forward works.
Probe probe(const std::string& path, steady_clock::time_point deadline) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Probe::not_listening;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.c_str(), std::min(path.size(), sizeof(address.sun_path) - 1));
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return Probe::not_listening;
  }
  constexpr std::string_view kPing = "HEAD /_ping HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
  Probe result = Probe::refused;
  if (::send(fd, kPing.data(), kPing.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(kPing.size())) {
    result = Probe::silent;
    while (result == Probe::silent) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - steady_clock::now());
      if (left.count() <= 0) break;
      pollfd p{fd, POLLIN, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
      if (ready < 0 && errno != EINTR) result = Probe::refused;
      if (ready <= 0) continue;
      char byte;
      const ssize_t n = ::recv(fd, &byte, 1, 0);
      if (n > 0) result = Probe::answered;
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) result = Probe::refused;
    }
  }
  ::close(fd);
  return result;
}

std::string status_text(int status) {
  if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return fmt::format("killed by signal {}", WTERMSIG(status));
  return "stopped";
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// The fresh directory for the local socket: under $TMPDIR, or /tmp when the socket's path there
// would not fit a sockaddr_un or would contain the ':' that separates the two ends of -L.
std::string make_socket_dir(const std::string& display) {
  std::string base = env("TMPDIR");
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  const std::string_view kTemplate = "/nf-ssh-XXXXXX";
  if (base.empty() || base.find(':') != std::string::npos ||
      base.size() + kTemplate.size() + kSocketName.size() > kMaxSocketPath) {
    base = "/tmp";
  }
  std::string dir = base + std::string(kTemplate);
  if (::mkdtemp(dir.data()) == nullptr) {
    throw DockerError(fmt::format("{}: cannot make a directory for the tunnel's socket in {}: {}", display,
                                  base, std::strerror(errno)));
  }
  return dir;
}

}  // namespace

SshTunnel::SshTunnel(const SshTarget& target, const std::string& display) {
  if (target.socket.find(':') != std::string::npos) {
    throw DockerError(fmt::format("{}: the remote socket path '{}' contains ':', which ssh -L cannot forward",
                                  display, target.socket));
  }
  const std::string program_name = env("NF_SSH").empty() ? std::string("ssh") : env("NF_SSH");
  const std::string program = find_program(program_name);
  if (program.empty()) {
    throw DockerError(
        fmt::format("{}: ssh failed: '{}' is not an executable program (install OpenSSH's "
                    "client, or name one with NF_SSH)",
                    display, program_name));
  }
  try {
    dir_ = make_socket_dir(display);
    socket_path_ = dir_ + std::string(kSocketName);

    std::vector<std::string> args{program};
    for (std::string& word : split_spaces(env("NF_SSH_OPTS"))) args.push_back(std::move(word));
    for (const char* option : {"BatchMode=yes", "ExitOnForwardFailure=yes", "StreamLocalBindUnlink=yes",
                               "ServerAliveInterval=10", "ServerAliveCountMax=3", "ConnectTimeout=15"}) {
      args.insert(args.end(), {"-o", option});
    }
    args.push_back("-nNT");
    if (target.port > 0) args.insert(args.end(), {"-p", std::to_string(target.port)});
    if (!target.user.empty()) args.insert(args.end(), {"-l", target.user});
    args.insert(args.end(), {"-L", socket_path_ + ":" + target.socket, "--", target.host});

    // Everything the child needs, made before fork: between fork and exec only async-signal-safe calls.
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const std::string exec_failed = fmt::format("cannot execute {}\n", program);
    rlimit files{};
    const int max_fd = ::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY
                           ? static_cast<int>(std::min<rlim_t>(files.rlim_cur, 65536))
                           : 65536;
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
      throw DockerError(fmt::format("{}: ssh failed: pipe: {}", display, std::strerror(errno)));
    }
    const int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ == 0) {
      ::setsid();  // no terminal signals: the tunnel must outlive a Ctrl-C until noisefloor is done
      if (::prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || ::getppid() != parent) ::_exit(127);
      if (null_fd >= 0) {
        ::dup2(null_fd, 0);
        ::dup2(null_fd, 1);
      }
      ::dup2(pipe_fds[1], 2);
      if (::close_range(3, ~0U, 0) != 0) {
        for (int fd = 3; fd < max_fd; ++fd) ::close(fd);
      }
      for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD}) ::signal(sig, SIG_DFL);
      sigset_t none;
      ::sigemptyset(&none);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      ::execv(argv[0], argv.data());
      [[maybe_unused]] auto n = ::write(2, exec_failed.data(), exec_failed.size());
      ::_exit(127);
    }
    const int fork_errno = errno;
    ::close(pipe_fds[1]);
    if (null_fd >= 0) ::close(null_fd);
    stderr_fd_ = pipe_fds[0];
    if (pid_ < 0) {
      throw DockerError(fmt::format("{}: ssh failed: fork: {}", display, std::strerror(fork_errno)));
    }
    ::fcntl(stderr_fd_, F_SETFL, ::fcntl(stderr_fd_, F_GETFL) | O_NONBLOCK);
    reader_ = std::thread([this] { drain(); });

    const auto deadline = steady_clock::now() + kOpenTimeout;
    while (true) {
      int status = 0;
      pid_t done = ::waitpid(pid_, &status, WNOHANG);
      while (done < 0 && errno == EINTR) done = ::waitpid(pid_, &status, WNOHANG);
      if (done == pid_ || (done < 0 && errno == ECHILD)) {
        pid_ = -1;  // reaped (or reaped by someone else): never signal that pid again
        stop_ = true;
        reader_.join();  // its last read takes what ssh wrote before it exited
        const std::string said = last_stderr_line();
        throw DockerError(
            fmt::format("{}: ssh failed: {}", display, said.empty() ? status_text(status) : said));
      }
      switch (probe(socket_path_, deadline)) {
        case Probe::answered:
          return;
        case Probe::refused: {
          std::this_thread::sleep_for(kStderrGrace);  // for ssh's word on it to reach the reader
          const std::string said = last_stderr_line();
          throw DockerError(fmt::format(
              "{}: ssh cannot open the engine's socket {} on the remote machine{}: is dockerd running there, "
              "and may {} use it (the docker group)?",
              display, target.socket, said.empty() ? std::string() : " (ssh: " + said + ")",
              target.user.empty() ? std::string("the ssh user") : "'" + target.user + "'"));
        }
        case Probe::silent:
          throw DockerError(fmt::format("{}: the engine did not answer through the tunnel within {} s",
                                        display, kOpenTimeout.count()));
        case Probe::not_listening:
          break;
      }
      if (steady_clock::now() >= deadline) {
        const std::string said = last_stderr_line();
        throw DockerError(fmt::format("{}: no tunnel within {} s{}", display, kOpenTimeout.count(),
                                      said.empty() ? std::string() : " (ssh: " + said + ")"));
      }
      std::this_thread::sleep_for(kTunnelPoll);
    }
  } catch (...) {
    stop();
    throw;
  }
}

SshTunnel::~SshTunnel() { stop(); }

std::string SshTunnel::last_stderr_line() const {
  std::lock_guard lock(mutex_);
  return last_line_;
}

void SshTunnel::drain() {
  pollfd p{stderr_fd_, POLLIN, 0};
  bool eof = false;
  while (!eof) {
    const bool stopping = stop_;
    ::poll(&p, 1, stopping ? 0 : 50);
    char buffer[4096];
    while (true) {
      const ssize_t n = ::read(stderr_fd_, buffer, sizeof buffer);
      if (n == 0) eof = true;
      if (n <= 0) break;
      std::lock_guard lock(mutex_);
      pending_.append(buffer, static_cast<std::size_t>(n));
      for (std::size_t newline; (newline = pending_.find('\n')) != std::string::npos;) {
        const std::string_view line = trimmed(std::string_view(pending_).substr(0, newline));
        if (!line.empty()) last_line_ = std::string(line);
        pending_.erase(0, newline + 1);
      }
      if (pending_.size() > 4096) pending_.erase(0, pending_.size() - 4096);
    }
    if (stopping) break;
  }
  std::lock_guard lock(mutex_);
  if (const std::string_view rest = trimmed(pending_); !rest.empty()) last_line_ = std::string(rest);
  pending_.clear();
}

void SshTunnel::stop() noexcept {
  stop_ = true;
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    const auto give_up = steady_clock::now() + kStopGrace;
    int status = 0;
    while (true) {
      const pid_t done = ::waitpid(pid_, &status, WNOHANG);
      if (done == pid_ || (done < 0 && errno != EINTR)) break;
      if (steady_clock::now() >= give_up) {
        ::kill(pid_, SIGKILL);
        while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    pid_ = -1;
  }
  try {
    if (reader_.joinable()) reader_.join();
  } catch (...) {  // never throw from cleanup
  }
  if (stderr_fd_ >= 0) ::close(stderr_fd_);
  stderr_fd_ = -1;
  if (!socket_path_.empty()) ::unlink(socket_path_.c_str());
  if (!dir_.empty()) ::rmdir(dir_.c_str());
}

}  // namespace noisefloor::docker
