#include "docker/endpoint.hpp"

#include <fmt/format.h>

#include <string_view>

#include "docker/api.hpp"
#include "text/text.hpp"

namespace noisefloor::docker {
namespace {

constexpr std::size_t kMaxSocketPath = 107;  // sizeof(sockaddr_un::sun_path) - 1 on Linux
constexpr std::string_view kExpected = "unix:///path/to/docker.sock, tcp://host:port or ssh://user@host";

std::string non_empty(const GetEnv& getenv, const std::string& name) {
  auto v = getenv(name);
  return v ? *v : std::string();
}

// One endpoint URL and where it came from, for the errors.
struct Source {
  const std::string& what;
  const std::string& url;
  [[noreturn]] void bad(std::string_view why) const {
    throw DockerError(fmt::format("{} '{}': {}", what, text::name_safe(url), why));
  }
};

// "1".."65535"; anything else is an error naming the text.
int port_number(const Source& source, std::string_view port) {
  int n = 0;
  for (char c : port) {
    if (c < '0' || c > '9' || n > 65535) {
      source.bad(fmt::format("port '{}' is not a number from 1 to 65535", port));
    }
    n = n * 10 + (c - '0');
  }
  if (n < 1 || n > 65535) source.bad(fmt::format("port '{}' is not a number from 1 to 65535", port));
  return n;
}

// "host", "host:port", "[v6]", "[v6]:port" -> the host as written (brackets kept) and the port
// text (empty when there is none; "host:" is an error).
std::pair<std::string, std::string_view> split_host_port(const Source& source, std::string_view authority) {
  if (!authority.empty() && authority.front() == '[') {  // [::1]:2376
    auto close = authority.find(']');
    if (close == std::string_view::npos) source.bad("unterminated '[' in the address");
    std::string_view after = authority.substr(close + 1);
    if (!after.empty() && after.front() != ':') source.bad("expected ':' after ']'");
    if (after.size() == 1) source.bad("empty port");
    return {std::string(authority.substr(0, close + 1)), after.empty() ? after : after.substr(1)};
  }
  auto colon = authority.find(':');
  if (colon == std::string_view::npos) return {std::string(authority), {}};
  if (colon + 1 == authority.size()) source.bad("empty port");
  return {std::string(authority.substr(0, colon)), authority.substr(colon + 1)};
}

Endpoint unix_endpoint(const Source& source, std::string_view rest) {
  std::string path(rest);
  if (path.empty()) path = kDefaultSocket;
  if (path.front() != '/') path.insert(path.begin(), '/');  // legacy unix://path (docker-py)
  if (path.size() > kMaxSocketPath) {
    source.bad(fmt::format("socket path is longer than {} bytes", kMaxSocketPath));
  }
  Endpoint e;
  e.display = "unix://" + path;
  e.socket_path = path;
  e.base_url = "http://localhost";  // the host part is ignored on a unix socket
  return e;
}

Endpoint tcp_endpoint(const GetEnv& getenv, const Source& source, std::string_view rest) {
  const std::string tls_verify = non_empty(getenv, "DOCKER_TLS_VERIFY");
  const std::string tls_plain = non_empty(getenv, "DOCKER_TLS");
  std::string cert_path = non_empty(getenv, "DOCKER_CERT_PATH");
  Endpoint e;
  // The docker CLI's rule (cli/flags/options.go): DOCKER_TLS_VERIFY or DOCKER_TLS turns TLS on,
  // only DOCKER_TLS_VERIFY verifies; DOCKER_CERT_PATH only says where the certificates are.
  e.tls = !tls_verify.empty() || !tls_plain.empty();
  e.verify = !e.tls || !tls_verify.empty();

  std::string_view authority = rest.substr(0, rest.find('/'));
  std::string prefix(rest.substr(authority.size()));
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  auto [hostname, port] = split_host_port(source, authority);
  if (hostname.empty()) hostname = "localhost";
  const int number = port.empty() ? (e.tls ? 2376 : 2375) : port_number(source, port);
  const std::string hostport = fmt::format("{}:{}", hostname, number);
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
        source.bad("TLS is on but neither DOCKER_CERT_PATH, DOCKER_CONFIG nor HOME is set");
      }
    }
    while (cert_path.size() > 1 && cert_path.back() == '/') cert_path.pop_back();
    e.ca_file = cert_path + "/ca.pem";
    e.cert_file = cert_path + "/cert.pem";
    e.key_file = cert_path + "/key.pem";
  }
  return e;
}

// ssh://[user@]host[:port][/path/to/remote.sock], refused as the docker CLI refuses it
// (cli/connhelper/ssh: passwords, query strings, fragments, an empty host).
Endpoint ssh_endpoint(const Source& source, std::string_view rest) {
  constexpr std::string_view kForm = "ssh://[user@]host[:port][/path/to/docker.sock]";
  if (rest.find('?') != std::string_view::npos) {
    source.bad(fmt::format("a query string is not allowed (expected {})", kForm));
  }
  if (rest.find('#') != std::string_view::npos) {
    source.bad(fmt::format("a fragment is not allowed (expected {})", kForm));
  }
  const std::string_view authority = rest.substr(0, rest.find('/'));
  std::string path(rest.substr(authority.size()));
  while (!path.empty() && path.back() == '/') path.pop_back();

  SshTarget target;
  std::string_view hostport = authority;
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) {
    target.user = std::string(authority.substr(0, at));
    hostport = authority.substr(at + 1);
    if (target.user.find(':') != std::string::npos) {
      source.bad("a password is not allowed: let ssh authenticate with a key (ssh-agent, ~/.ssh/config)");
    }
  }
  auto [host, port] = split_host_port(source, hostport);
  target.host = !host.empty() && host.front() == '[' ? host.substr(1, host.size() - 2) : host;
  if (target.host.empty()) source.bad(fmt::format("no host (expected {})", kForm));
  if (target.host.front() == '-') source.bad("a host cannot begin with '-'");
  if (!port.empty()) target.port = port_number(source, port);
  if (!path.empty()) target.socket = path;

  Endpoint e;
  e.display = "ssh://" + (target.user.empty() ? "" : target.user + "@") + host +
              (port.empty() ? "" : ":" + std::string(port)) + path;
  e.ssh = std::move(target);
  return e;
}

}  // namespace

Endpoint endpoint_from_url(const std::string& url, const GetEnv& getenv, const std::string& what) {
  const Source source{what, url};
  // from a file or the environment: a newline or ESC in it would print a line of its own
  if (text::needs_name_escape(url))
    source.bad("a control character or a byte outside UTF-8 is in no endpoint");
  const auto sep = url.find("://");
  if (sep == std::string::npos) source.bad(fmt::format("expected {}", kExpected));
  const std::string scheme = url.substr(0, sep);
  const std::string_view rest = std::string_view(url).substr(sep + 3);
  if (scheme == "unix") return unix_endpoint(source, rest);
  if (scheme == "tcp") return tcp_endpoint(getenv, source, rest);
  if (scheme == "ssh") return ssh_endpoint(source, rest);
  source.bad(fmt::format("unsupported scheme '{}' (expected {})", scheme, kExpected));
}

Endpoint endpoint_from_environment(const GetEnv& getenv) {
  const std::string host = non_empty(getenv, "DOCKER_HOST");
  if (host.empty()) return endpoint_from_url("unix://", getenv, "DOCKER_HOST");
  return endpoint_from_url(host, getenv, "DOCKER_HOST");
}

std::optional<std::string> transport_warning(const Endpoint& e) {
  if (!e.socket_path.empty() || e.ssh || e.base_url.empty()) return std::nullopt;
  if (!e.tls)
    return fmt::format(
        "{}: plain TCP, no TLS: anyone who can reach that port runs containers as root on that "
        "machine, and can read or change what noisefloor measures there; use ssh://, or TLS with "
        "DOCKER_TLS_VERIFY=1 and certificates",
        e.display);
  if (!e.verify)
    return fmt::format(
        "{}: TLS without verifying the engine's certificate (DOCKER_TLS is set, DOCKER_TLS_VERIFY is "
        "not): whoever answers on that address is taken for the engine; set DOCKER_TLS_VERIFY=1",
        e.display);
  return std::nullopt;
}

}  // namespace noisefloor::docker
