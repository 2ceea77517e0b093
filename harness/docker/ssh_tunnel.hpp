// An OpenSSH tunnel to a remote Docker engine: the system's `ssh` forwards the engine's socket on
// the remote machine to a local socket, which the client then uses like any local engine. I/O edge.
//
//   ssh [NF_SSH_OPTS...] -o BatchMode=yes -o ExitOnForwardFailure=yes -o StreamLocalBindUnlink=yes
//       -o ServerAliveInterval=10 -o ServerAliveCountMax=3 -o ConnectTimeout=15
//       -nNT [-p PORT] [-l USER] -L <local.sock>:<remote.sock> -- HOST
//
// run from an argv vector (never a shell), so the user's own ~/.ssh/config, keys and ssh-agent
// apply; BatchMode: ssh never prompts (a host key not yet in known_hosts, or a key that needs a
// passphrase and no agent, is an error). Environment:
//   NF_SSH       the ssh binary (a path, or a name looked up in PATH; default "ssh"), e.g. for tests;
//   NF_SSH_OPTS  extra arguments split on spaces, placed before noisefloor's own options so that
//                they win (ssh keeps the first value it is given for an option), e.g.
//                "-o StrictHostKeyChecking=accept-new -i /path/to/key -F /path/to/config".
// The local socket is <dir>/docker.sock in a fresh mkdtemp(3) directory (mode 0700) under $TMPDIR,
// or /tmp when that path would not fit a socket address (107 bytes).
//
// ssh runs in a session of its own (a Ctrl-C at the terminal reaches noisefloor, which still needs
// the tunnel to clean up its containers, not ssh) and gets PR_SET_PDEATHSIG(SIGTERM): it dies with
// the thread that opened the tunnel, so open it from a thread that outlives the Client. Its stderr
// is read through a pipe for as long as the tunnel lives.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <thread>

#include "docker/endpoint.hpp"

namespace noisefloor::docker {

class SshTunnel {
 public:
  // Starts ssh and returns once the tunnel works, within 20 s: a connect() to the local socket
  // succeeds and the engine answers a HEAD /_ping sent through it (ssh accepts every local
  // connection and only then opens the remote socket, so a connect alone proves nothing about the
  // remote side). Otherwise stops ssh, removes what it made and throws DockerError with one line
  // naming `display` (the ssh:// URL):
  //   "ssh://root@127.0.0.1:2222: ssh failed: <ssh's last non-empty stderr line>" (ssh exited),
  //   "ssh://...: ssh cannot open the engine's socket /var/run/docker.sock on the remote machine
  //    (ssh: ...): is dockerd running there, and may 'root' use it (the docker group)?",
  //   "ssh://...: no tunnel within 20 s (ssh: <its last line>)",
  //   "ssh://...: the engine did not answer through the tunnel within 20 s".
  SshTunnel(const SshTarget& target, const std::string& display);
  SshTunnel(const SshTunnel&) = delete;
  SshTunnel& operator=(const SshTunnel&) = delete;
  // SIGTERM to ssh (SIGKILL if it has not exited within 2 s), reaped; the socket and its directory
  // removed. Never throws.
  ~SshTunnel();

  const std::string& socket_path() const { return socket_path_; }
  int pid() const { return pid_; }
  // ssh's last non-empty stderr line so far (a failed forward: "channel 2: open failed: connect
  // failed: No such file or directory"); empty when it said nothing.
  std::string last_stderr_line() const;

 private:
  void drain();  // the reader thread: ssh's stderr until EOF or stop_
  void stop() noexcept;

  std::string dir_;
  std::string socket_path_;
  int pid_ = -1;
  int stderr_fd_ = -1;
  mutable std::mutex mutex_;
  std::string pending_;    // stderr bytes after the last newline
  std::string last_line_;  // the last non-empty complete line (or pending_ once ssh is gone)
  std::atomic<bool> stop_{false};
  std::thread reader_;
};

}  // namespace noisefloor::docker
