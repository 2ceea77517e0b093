#include <doctest/doctest.h>

#include <map>
#include <string>

#include "docker/api.hpp"
#include "docker/endpoint.hpp"

using noisefloor::docker::DockerError;
using noisefloor::docker::Endpoint;
using noisefloor::docker::endpoint_from_environment;
using noisefloor::docker::endpoint_from_url;
using noisefloor::docker::SshTarget;
using noisefloor::docker::transport_warning;

namespace {

Endpoint resolve(std::map<std::string, std::string> env) {
  return endpoint_from_environment([env](const std::string& name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  });
}

using Env = std::map<std::string, std::string>;

Endpoint url(const std::string& text, Env env = {}) {
  return endpoint_from_url(
      text,
      [env](const std::string& name) -> std::optional<std::string> {
        auto it = env.find(name);
        if (it == env.end()) return std::nullopt;
        return it->second;
      },
      "host 'fast-box'");
}

Endpoint ssh(const std::string& display, SshTarget target) {
  return Endpoint{.display = display, .ssh = std::move(target)};
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
  CHECK(transport_warning(plain) ==
        "tcp://h:2376: TLS without verifying the engine's certificate (DOCKER_TLS is set, DOCKER_TLS_VERIFY "
        "is not): "
        "whoever answers on that address is taken for the engine; set DOCKER_TLS_VERIFY=1");
  // DOCKER_CERT_PATH alone: no TLS, as the docker CLI decides (cli/flags/options.go: only
  // DOCKER_TLS_VERIFY or DOCKER_TLS turn it on); plain TCP, warned about.
  auto cert = resolve({{"DOCKER_HOST", "tcp://h"}, {"DOCKER_CERT_PATH", "/c"}});
  CHECK_FALSE(cert.tls);
  CHECK(cert.base_url == "http://h:2375");
  CHECK(transport_warning(cert) ==
        "tcp://h:2375: plain TCP, no TLS: anyone who can reach that port runs containers as root on that "
        "machine, "
        "and can read or change what noisefloor measures there; use ssh://, or TLS with DOCKER_TLS_VERIFY=1 "
        "and "
        "certificates");
  CHECK_FALSE(transport_warning(zero).has_value());  // TLS, verified
  CHECK_FALSE(transport_warning(resolve({{"DOCKER_HOST", "unix:///tmp/d.sock"}})).has_value());
  CHECK_THROWS_WITH_AS(resolve({{"DOCKER_HOST", "tcp://h"}, {"DOCKER_TLS_VERIFY", "1"}}),
                       "DOCKER_HOST 'tcp://h': TLS is on but neither DOCKER_CERT_PATH, DOCKER_CONFIG "
                       "nor HOME is set",
                       DockerError);
}

TEST_CASE("endpoint: bad schemes and ports") {
  CHECK_THROWS_WITH_AS(resolve({{"DOCKER_HOST", "npipe:////./pipe/docker_engine"}}),
                       "DOCKER_HOST 'npipe:////./pipe/docker_engine': unsupported scheme 'npipe' "
                       "(expected unix:///path/to/docker.sock, tcp://host:port or ssh://user@host)",
                       DockerError);
  CHECK_THROWS_WITH_AS(resolve({{"DOCKER_HOST", "fd://"}}),
                       "DOCKER_HOST 'fd://': unsupported scheme 'fd' (expected "
                       "unix:///path/to/docker.sock, tcp://host:port or ssh://user@host)",
                       DockerError);
  CHECK_THROWS_WITH_AS(resolve({{"DOCKER_HOST", "localhost:2375"}}),
                       "DOCKER_HOST 'localhost:2375': expected unix:///path/to/docker.sock, "
                       "tcp://host:port or ssh://user@host",
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

TEST_CASE("endpoint: [::1]: without a port is an error like h:") {
  CHECK_THROWS_WITH_AS(resolve({{"DOCKER_HOST", "tcp://[::1]:"}}), "DOCKER_HOST 'tcp://[::1]:': empty port",
                       DockerError);
  CHECK_THROWS_WITH_AS(resolve({{"DOCKER_HOST", "tcp://[::1]x"}}),
                       "DOCKER_HOST 'tcp://[::1]x': expected ':' after ']'", DockerError);
}

TEST_CASE("endpoint_from_url: unix and tcp as from DOCKER_HOST, errors named by `what`") {
  CHECK(url("unix:///tmp/d.sock") == unix_socket("/tmp/d.sock"));
  CHECK(url("unix://") == unix_socket("/var/run/docker.sock"));
  CHECK(url("tcp://10.0.0.5") ==
        Endpoint{.display = "tcp://10.0.0.5:2375", .base_url = "http://10.0.0.5:2375"});
  // the environment's TLS applies to tcp:// as to `docker -H`
  CHECK(url("tcp://h", {{"DOCKER_TLS_VERIFY", "1"}, {"DOCKER_CERT_PATH", "/c"}}) ==
        Endpoint{.display = "tcp://h:2376",
                 .base_url = "https://h:2376",
                 .tls = true,
                 .verify = true,
                 .ca_file = "/c/ca.pem",
                 .cert_file = "/c/cert.pem",
                 .key_file = "/c/key.pem"});
  CHECK_THROWS_WITH_AS(url("tcp://h:0"),
                       "host 'fast-box' 'tcp://h:0': port '0' is not a number from 1 to 65535", DockerError);
  CHECK_THROWS_WITH_AS(url("fast-box"),
                       "host 'fast-box' 'fast-box': expected unix:///path/to/docker.sock, tcp://host:port or "
                       "ssh://user@host",
                       DockerError);
  CHECK_THROWS_WITH_AS(url("http://h:2375"),
                       "host 'fast-box' 'http://h:2375': unsupported scheme 'http' (expected "
                       "unix:///path/to/docker.sock, tcp://host:port or ssh://user@host)",
                       DockerError);
  // A hosts: entry, DOCKER_HOST or a context's Host with a newline or ESC: one line, escaped (the
  // adversarial re-test of issue 42 printed a forged "REPRODUCED" line through it).
  CHECK_THROWS_WITH_AS(url("tcp://h:1\x1b[8m\n  REPRODUCED"),
                       "host 'fast-box' 'tcp://h:1\\x1b[8m\\x0a  REPRODUCED': a control character or a byte "
                       "outside UTF-8 is in no endpoint",
                       DockerError);
}

TEST_CASE("endpoint_from_url: ssh://[user@]host[:port][/remote.sock]") {
  CHECK(url("ssh://me@bench-host") ==
        ssh("ssh://me@bench-host", SshTarget{.user = "me", .host = "bench-host"}));
  CHECK(url("ssh://root@127.0.0.1:2222") ==
        ssh("ssh://root@127.0.0.1:2222", SshTarget{.user = "root", .host = "127.0.0.1", .port = 2222}));
  // no user, no port: ssh's own defaults (~/.ssh/config)
  CHECK(url("ssh://bench-host") == ssh("ssh://bench-host", SshTarget{.host = "bench-host"}));
  CHECK(url("ssh://bench-host/") == ssh("ssh://bench-host", SshTarget{.host = "bench-host"}));
  CHECK(url("ssh://@bench-host") == ssh("ssh://bench-host", SshTarget{.host = "bench-host"}));
  // the path names the remote engine's socket
  CHECK(url("ssh://me@h:22/run/user/1000/docker.sock/") ==
        ssh("ssh://me@h:22/run/user/1000/docker.sock",
            SshTarget{.user = "me", .host = "h", .port = 22, .socket = "/run/user/1000/docker.sock"}));
  CHECK(url("ssh://[::1]:2222") == ssh("ssh://[::1]:2222", SshTarget{.host = "::1", .port = 2222}));
  CHECK(url("ssh://me@[fe80::1]") == ssh("ssh://me@[fe80::1]", SshTarget{.user = "me", .host = "fe80::1"}));
  // TLS variables do not apply to ssh
  CHECK(url("ssh://h", {{"DOCKER_TLS_VERIFY", "1"}, {"DOCKER_CERT_PATH", "/c"}}) ==
        ssh("ssh://h", SshTarget{.host = "h"}));
  // and DOCKER_HOST may name one
  CHECK(resolve({{"DOCKER_HOST", "ssh://me@bench-host:2200"}}) ==
        ssh("ssh://me@bench-host:2200", SshTarget{.user = "me", .host = "bench-host", .port = 2200}));
}

TEST_CASE("endpoint_from_url: ssh errors") {
  const auto fails = [](const std::string& text, const std::string& why) {
    CHECK_THROWS_WITH_AS(url(text), ("host 'fast-box' '" + text + "': " + why).c_str(), DockerError);
  };
  fails("ssh://me@h?x=1",
        "a query string is not allowed (expected ssh://[user@]host[:port][/path/to/docker.sock])");
  fails("ssh://me@h/run/d.sock?x",
        "a query string is not allowed (expected "
        "ssh://[user@]host[:port][/path/to/docker.sock])");
  fails("ssh://me@h#top",
        "a fragment is not allowed (expected ssh://[user@]host[:port][/path/to/docker.sock])");
  fails("ssh://me:secret@h",
        "a password is not allowed: let ssh authenticate with a key (ssh-agent, ~/.ssh/config)");
  fails("ssh://", "no host (expected ssh://[user@]host[:port][/path/to/docker.sock])");
  fails("ssh://me@", "no host (expected ssh://[user@]host[:port][/path/to/docker.sock])");
  fails("ssh://:22", "no host (expected ssh://[user@]host[:port][/path/to/docker.sock])");
  fails("ssh://[]:22", "no host (expected ssh://[user@]host[:port][/path/to/docker.sock])");
  fails("ssh:///var/run/docker.sock", "no host (expected ssh://[user@]host[:port][/path/to/docker.sock])");
  fails("ssh://h:0", "port '0' is not a number from 1 to 65535");
  fails("ssh://h:65536", "port '65536' is not a number from 1 to 65535");
  fails("ssh://h:ssh", "port 'ssh' is not a number from 1 to 65535");
  fails("ssh://h:", "empty port");
  fails("ssh://[::1", "unterminated '[' in the address");
  // never an option to ssh
  fails("ssh://-oProxyCommand=touch%20x", "a host cannot begin with '-'");
  CHECK_THROWS_WITH_AS(resolve({{"DOCKER_HOST", "ssh://h:0"}}),
                       "DOCKER_HOST 'ssh://h:0': port '0' is not a number from 1 to 65535", DockerError);
}
