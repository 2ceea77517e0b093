// Where the Docker engine is and how to talk to it, named the way docker CLI users name it: an
// endpoint URL (`-H`, DOCKER_HOST: unix://, tcp:// with TLS like the CLI, ssh://), or DOCKER_HOST
// & co (DOCKER_TLS_VERIFY, DOCKER_TLS, DOCKER_CERT_PATH, DOCKER_CONFIG). Docker contexts are
// read by docker/context.hpp. Pure: the environment comes in as a function.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace noisefloor::docker {

inline constexpr const char* kDefaultSocket = "/var/run/docker.sock";

// An engine behind ssh: OpenSSH forwards its socket to a local one (docker/ssh_tunnel.hpp).
struct SshTarget {
  std::string user{};  // empty: ssh's own default (~/.ssh/config, the local user name)
  std::string host{};  // as ssh takes it: a name, an alias of ~/.ssh/config, an address (IPv6 without [])
  int port = 0;        // 0: ssh's own default (~/.ssh/config, 22)
  std::string socket = kDefaultSocket;  // the engine's socket on the remote machine
  friend bool operator==(const SshTarget&, const SshTarget&) = default;
};

struct Endpoint {
  std::string display{};      // what messages show: "unix:///var/run/docker.sock", "tcp://h:2376",
                              // "ssh://me@h:2222"
  std::string socket_path{};  // non-empty for unix sockets (CURLOPT_UNIX_SOCKET_PATH)
  std::string base_url{};     // "http://localhost" for sockets, "https://h:2376[/prefix]" for tcp
  bool tls = false;
  bool verify = true;  // verify the engine's certificate (only meaningful with tls)
  std::string ca_file{}, cert_file{}, key_file{};  // <cert dir>/{ca,cert,key}.pem; files may be missing
  // Set for ssh:// endpoints. socket_path and base_url are then empty until whoever opens the
  // tunnel fills them in (the local end of the tunnel, "http://localhost"): Client does.
  std::optional<SshTarget> ssh{};
  friend bool operator==(const Endpoint&, const Endpoint&) = default;
};

using GetEnv = std::function<std::optional<std::string>(const std::string&)>;

// One endpoint as a docker CLI user writes it (`docker -H`, DOCKER_HOST); `what` names where it
// came from in errors, which read "<what> '<url>': <what is wrong>" ("DOCKER_HOST 'tcp://h:0':
// port '0' is not a number from 1 to 65535").
//  - `unix:///path` (and legacy `unix://path`, read as /path like docker-py; `unix://` alone is
//    /var/run/docker.sock): that socket, at most 107 bytes.
//  - `tcp://host[:port][/prefix]`: TCP, port 2375 by default or 2376 with TLS. TLS is on when
//    DOCKER_TLS_VERIFY, DOCKER_TLS or DOCKER_CERT_PATH is non-empty; the certificate is verified
//    iff DOCKER_TLS_VERIFY is non-empty (any value, even "0", as in the docker CLI). Cert dir:
//    DOCKER_CERT_PATH, else DOCKER_CONFIG, else $HOME/.docker.
//  - `ssh://[user@]host[:port][/path/to/remote.sock]`: the engine on that machine, reached through
//    the system's ssh (the user's ssh config and keys apply). The path names the remote engine's
//    socket, /var/run/docker.sock when absent (the docker CLI reads it the same way). Passwords,
//    query strings and fragments are refused, like the docker CLI does.
// Throws DockerError for any other scheme, a missing scheme, an empty ssh host and a bad port.
Endpoint endpoint_from_url(const std::string& url, const GetEnv& getenv, const std::string& what);

// What is wrong with reaching an engine this way, as a warning, or nullopt: plain TCP (anyone who
// can reach the port runs containers as root there, and sees or changes what is measured), TLS
// that does not verify the engine's certificate. A unix socket and ssh:// are authenticated.
std::optional<std::string> transport_warning(const Endpoint& endpoint);

// The CLI's default context: DOCKER_HOST unset or empty is unix:///var/run/docker.sock, anything
// else is endpoint_from_url(DOCKER_HOST, getenv, "DOCKER_HOST").
Endpoint endpoint_from_environment(const GetEnv& getenv);

}  // namespace noisefloor::docker
