#include "docker/endpoint.hpp"

#include <fmt/format.h>

#include <string_view>

#include "docker/api.hpp"

namespace noisefloor::docker {
namespace {

constexpr std::size_t kMaxSocketPath = 107;  // sizeof(sockaddr_un::sun_path) - 1 on Linux

std::string non_empty(const GetEnv& getenv, const std::string& name) {
  auto v = getenv(name);
  return v ? *v : std::string();
}

[[noreturn]] void bad_host(const std::string& host, std::string_view why) {
  throw DockerError(fmt::format("DOCKER_HOST '{}': {}", host, why));
}

Endpoint unix_endpoint(const std::string& host, std::string_view rest) {
  std::string path(rest);
  if (path.empty()) path = kDefaultSocket;
  if (path.front() != '/') path.insert(path.begin(), '/');  // legacy unix://path (docker-py)
  if (path.size() > kMaxSocketPath) {
    bad_host(host, fmt::format("socket path is longer than {} bytes", kMaxSocketPath));
  }
  Endpoint e;
  e.display = "unix://" + path;
  e.socket_path = path;
  e.base_url = "http://localhost";  // the host part is ignored on a unix socket
  return e;
}

Endpoint tcp_endpoint(const GetEnv& getenv, const std::string& host, std::string_view rest) {
  const std::string tls_verify = non_empty(getenv, "DOCKER_TLS_VERIFY");
  const std::string tls_plain = non_empty(getenv, "DOCKER_TLS");
  std::string cert_path = non_empty(getenv, "DOCKER_CERT_PATH");
  Endpoint e;
  e.tls = !tls_verify.empty() || !tls_plain.empty() || !cert_path.empty();
  e.verify = !e.tls || !tls_verify.empty();

  std::string_view authority = rest.substr(0, rest.find('/'));
  std::string prefix(rest.substr(authority.size()));
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  std::string hostname;
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {  // [::1]:2376
    auto close = authority.find(']');
    if (close == std::string_view::npos) bad_host(host, "unterminated '[' in the address");
    hostname = std::string(authority.substr(0, close + 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') bad_host(host, "expected ':' after ']'");
      port = after.substr(1);
    }
  } else {
    auto colon = authority.find(':');
    hostname = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
    if (colon != std::string_view::npos && port.empty()) bad_host(host, "empty port");
  }
  if (hostname.empty()) hostname = "localhost";
  int port_number = e.tls ? 2376 : 2375;
  if (!port.empty()) {
    port_number = 0;
    for (char c : port) {
      if (c < '0' || c > '9' || port_number > 65535) {
        bad_host(host, fmt::format("port '{}' is not a number from 1 to 65535", port));
      }
      port_number = port_number * 10 + (c - '0');
    }
    if (port_number < 1 || port_number > 65535) {
      bad_host(host, fmt::format("port '{}' is not a number from 1 to 65535", port));
    }
  }
  const std::string hostport = fmt::format("{}:{}", hostname, port_number);
  e.display = "tcp://" + hostport + prefix;
  e.base_url = (e.tls ? "https://" : "http://") + hostport + prefix;
  if (e.tls) {
    if (cert_path.empty()) {
      const std::string config = non_empty(getenv, "DOCKER_CONFIG");
      const std::string home = non_empty(getenv, "HOME");
      if (!config.empty()) {
        cert_path = config;
      } else if (!home.empty()) {
        cert_path = home + "/.docker";
      } else {
        bad_host(host, "TLS is on but neither DOCKER_CERT_PATH, DOCKER_CONFIG nor HOME is set");
      }
    }
    while (cert_path.size() > 1 && cert_path.back() == '/') cert_path.pop_back();
    e.ca_file = cert_path + "/ca.pem";
    e.cert_file = cert_path + "/cert.pem";
    e.key_file = cert_path + "/key.pem";
  }
  return e;
}

}  // namespace

Endpoint endpoint_from_environment(const GetEnv& getenv) {
  const std::string host = non_empty(getenv, "DOCKER_HOST");
  if (host.empty()) return unix_endpoint("unix://", "");
  const auto sep = host.find("://");
  if (sep == std::string::npos) {
    bad_host(host, "expected unix:///path/to/docker.sock or tcp://host:port");
  }
  const std::string scheme = host.substr(0, sep);
  const std::string_view rest = std::string_view(host).substr(sep + 3);
  if (scheme == "unix") return unix_endpoint(host, rest);
  if (scheme == "tcp") return tcp_endpoint(getenv, host, rest);
  if (scheme == "ssh") {
    bad_host(host,
             "ssh:// is not supported by noisefloor; forward the socket instead "
             "(ssh -nNT -L /tmp/docker.sock:/var/run/docker.sock <host>) and set "
             "DOCKER_HOST=unix:///tmp/docker.sock");
  }
  bad_host(host, fmt::format("unsupported scheme '{}' (expected unix:///path/to/docker.sock or "
                             "tcp://host:port)",
                             scheme));
}

}  // namespace noisefloor::docker
