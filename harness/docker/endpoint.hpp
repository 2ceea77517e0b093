// Where the Docker engine is and how to talk to it, resolved from the environment like the
// docker CLI does (DOCKER_HOST, DOCKER_TLS_VERIFY, DOCKER_TLS, DOCKER_CERT_PATH, DOCKER_CONFIG).
// Pure: the environment comes in as a function.
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
  std::string display{};      // what messages show: "unix:///var/run/docker.sock", "tcp://h:2376"
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

// DOCKER_HOST unset or empty: unix:///var/run/docker.sock. `unix:///path` (and legacy
// `unix://path`, read as /path like docker-py) -> that socket; `tcp://host[:port][/prefix]` -> TCP,
// port 2375 by default or 2376 with TLS. TLS (tcp only) is on when DOCKER_TLS_VERIFY, DOCKER_TLS
// or DOCKER_CERT_PATH is non-empty; the certificate is verified iff DOCKER_TLS_VERIFY is non-empty
// (any value, even "0", as in the docker CLI). Cert dir: DOCKER_CERT_PATH, else DOCKER_CONFIG,
// else $HOME/.docker. Throws DockerError for ssh:// (with a workaround), other schemes, a bad
// port and socket paths longer than 107 bytes.
Endpoint endpoint_from_environment(const GetEnv& getenv);

}  // namespace noisefloor::docker
