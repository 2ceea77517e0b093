#include <doctest/doctest.h>

#include <map>
#include <string>

#include "docker/api.hpp"
#include "docker/endpoint.hpp"

using noisefloor::docker::DockerError;
using noisefloor::docker::Endpoint;
using noisefloor::docker::endpoint_from_environment;

namespace {

Endpoint resolve(std::map<std::string, std::string> env) {
  return endpoint_from_environment([env](const std::string& name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  });
}

Endpoint unix_socket(const std::string& path) {
  return Endpoint{.display = "unix://" + path, .socket_path = path, .base_url = "http://localhost"};
}

}  // namespace

TEST_CASE("endpoint: DOCKER_HOST unset or empty is the default socket") {
  CHECK(resolve({}) == unix_socket("/var/run/docker.sock"));
  CHECK(resolve({{"DOCKER_HOST", ""}}) == unix_socket("/var/run/docker.sock"));
  CHECK(resolve({}).display == "unix:///var/run/docker.sock");
}

TEST_CASE("endpoint: unix:// forms") {
  CHECK(resolve({{"DOCKER_HOST", "unix://"}}) == unix_socket("/var/run/docker.sock"));
  CHECK(resolve({{"DOCKER_HOST", "unix:///tmp/d.sock"}}) == unix_socket("/tmp/d.sock"));
  // legacy unix://path is /path (docker-py)
  CHECK(resolve({{"DOCKER_HOST", "unix://run/d.sock"}}) == unix_socket("/run/d.sock"));
  // TLS settings do not apply to sockets
  CHECK(resolve({{"DOCKER_HOST", "unix:///tmp/d.sock"}, {"DOCKER_TLS_VERIFY", "1"}}) ==
        unix_socket("/tmp/d.sock"));
  const std::string long_path = "/" + std::string(107, 'a');
  CHECK_THROWS_WITH_AS(
      resolve({{"DOCKER_HOST", "unix://" + long_path}}),
      ("DOCKER_HOST 'unix://" + long_path + "': socket path is longer than 107 bytes").c_str(), DockerError);
  CHECK(resolve({{"DOCKER_HOST", "unix://" + long_path.substr(2)}}).socket_path.size() == 107);
}

TEST_CASE("endpoint: tcp without TLS, default port 2375") {
  CHECK(resolve({{"DOCKER_HOST", "tcp://10.0.0.5"}}) ==
        Endpoint{.display = "tcp://10.0.0.5:2375", .base_url = "http://10.0.0.5:2375"});
  CHECK(resolve({{"DOCKER_HOST", "tcp://10.0.0.5:1234/prefix/"}}) ==
        Endpoint{.display = "tcp://10.0.0.5:1234/prefix", .base_url = "http://10.0.0.5:1234/prefix"});
  CHECK(resolve({{"DOCKER_HOST", "tcp://:2375"}}).base_url == "http://localhost:2375");
  CHECK(resolve({{"DOCKER_HOST", "tcp://[::1]:2380"}}).base_url == "http://[::1]:2380");
  CHECK(resolve({{"DOCKER_HOST", "tcp://[::1]"}}).base_url == "http://[::1]:2375");
  // empty TLS variables mean unset
  CHECK_FALSE(resolve({{"DOCKER_HOST", "tcp://h"},
                       {"DOCKER_TLS_VERIFY", ""},
                       {"DOCKER_TLS", ""},
                       {"DOCKER_CERT_PATH", ""}})
                  .tls);
}

TEST_CASE("endpoint: tcp with TLS from the environment, default port 2376") {
  CHECK(resolve({{"DOCKER_HOST", "tcp://h"}, {"DOCKER_TLS_VERIFY", "1"}, {"DOCKER_CERT_PATH", "/certs/"}}) ==
        Endpoint{.display = "tcp://h:2376",
                 .base_url = "https://h:2376",
                 .tls = true,
                 .verify = true,
                 .ca_file = "/certs/ca.pem",
                 .cert_file = "/certs/cert.pem",
                 .key_file = "/certs/key.pem"});
  // any non-empty value verifies, even "0" (docker CLI)
  auto zero = resolve({{"DOCKER_HOST", "tcp://h:9999"}, {"DOCKER_TLS_VERIFY", "0"}, {"HOME", "/home/u"}});
  CHECK(zero.tls);
  CHECK(zero.verify);
  CHECK(zero.base_url == "https://h:9999");
  CHECK(zero.ca_file == "/home/u/.docker/ca.pem");
  // DOCKER_TLS: TLS without verification
  auto plain = resolve({{"DOCKER_HOST", "tcp://h"}, {"DOCKER_TLS", "1"}, {"DOCKER_CONFIG", "/cfg"}});
  CHECK(plain.tls);
  CHECK_FALSE(plain.verify);
  CHECK(plain.key_file == "/cfg/key.pem");
  // DOCKER_CERT_PATH alone: TLS, not verified (Go SDK, docker-py)
  auto cert = resolve({{"DOCKER_HOST", "tcp://h"}, {"DOCKER_CERT_PATH", "/c"}});
  CHECK(cert.tls);
  CHECK_FALSE(cert.verify);
  CHECK(cert.cert_file == "/c/cert.pem");
  CHECK_THROWS_WITH_AS(resolve({{"DOCKER_HOST", "tcp://h"}, {"DOCKER_TLS_VERIFY", "1"}}),
                       "DOCKER_HOST 'tcp://h': TLS is on but neither DOCKER_CERT_PATH, DOCKER_CONFIG "
                       "nor HOME is set",
                       DockerError);
}

TEST_CASE("endpoint: ssh is rejected with a workaround") {
  CHECK_THROWS_WITH_AS(resolve({{"DOCKER_HOST", "ssh://me@bench-host"}}),
                       "DOCKER_HOST 'ssh://me@bench-host': ssh:// is not supported by noisefloor; "
                       "forward the socket instead (ssh -nNT -L /tmp/docker.sock:/var/run/docker.sock "
                       "<host>) and set DOCKER_HOST=unix:///tmp/docker.sock",
                       DockerError);
}

TEST_CASE("endpoint: bad schemes and ports") {
  CHECK_THROWS_WITH_AS(resolve({{"DOCKER_HOST", "npipe:////./pipe/docker_engine"}}),
                       "DOCKER_HOST 'npipe:////./pipe/docker_engine': unsupported scheme 'npipe' "
                       "(expected unix:///path/to/docker.sock or tcp://host:port)",
                       DockerError);
  CHECK_THROWS_WITH_AS(resolve({{"DOCKER_HOST", "fd://"}}),
                       "DOCKER_HOST 'fd://': unsupported scheme 'fd' (expected "
                       "unix:///path/to/docker.sock or tcp://host:port)",
                       DockerError);
  CHECK_THROWS_WITH_AS(resolve({{"DOCKER_HOST", "localhost:2375"}}),
                       "DOCKER_HOST 'localhost:2375': expected unix:///path/to/docker.sock or "
                       "tcp://host:port",
                       DockerError);
  CHECK_THROWS_WITH_AS(resolve({{"DOCKER_HOST", "tcp://h:0"}}),
                       "DOCKER_HOST 'tcp://h:0': port '0' is not a number from 1 to 65535", DockerError);
  CHECK_THROWS_WITH_AS(resolve({{"DOCKER_HOST", "tcp://h:65536"}}),
                       "DOCKER_HOST 'tcp://h:65536': port '65536' is not a number from 1 to 65535",
                       DockerError);
  CHECK_THROWS_WITH_AS(resolve({{"DOCKER_HOST", "tcp://h:99999999999"}}),
                       "DOCKER_HOST 'tcp://h:99999999999': port '99999999999' is not a number from 1 "
                       "to 65535",
                       DockerError);
  CHECK_THROWS_WITH_AS(resolve({{"DOCKER_HOST", "tcp://h:ab"}}),
                       "DOCKER_HOST 'tcp://h:ab': port 'ab' is not a number from 1 to 65535", DockerError);
  CHECK_THROWS_WITH_AS(resolve({{"DOCKER_HOST", "tcp://h:"}}), "DOCKER_HOST 'tcp://h:': empty port",
                       DockerError);
  CHECK_THROWS_WITH_AS(resolve({{"DOCKER_HOST", "tcp://[::1"}}),
                       "DOCKER_HOST 'tcp://[::1': unterminated '[' in the address", DockerError);
  CHECK(resolve({{"DOCKER_HOST", "tcp://h:65535"}}).base_url == "http://h:65535");
}
