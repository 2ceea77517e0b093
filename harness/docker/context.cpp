#include "docker/context.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <string_view>

#include "docker/api.hpp"
#include "hash/sha256.hpp"
#include "text/text.hpp"

namespace noisefloor::docker {
namespace {

using nlohmann::json;

constexpr std::string_view kDefaultContext = "default";

std::string env(const GetEnv& getenv, const std::string& name) {
  auto v = getenv(name);
  return v ? *v : std::string();
}

// The member `key` of an object, its name compared without regard to ASCII case when there is no
// exact match (Go's encoding/json); nullptr when absent.
const json* member(const json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  if (auto it = object.find(std::string(key)); it != object.end()) return &*it;
  for (auto it = object.begin(); it != object.end(); ++it) {
    const std::string& name = it.key();
    if (name.size() != key.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < name.size() && same; ++i) {
      same = std::tolower(static_cast<unsigned char>(name[i])) ==
             std::tolower(static_cast<unsigned char>(key[i]));
    }
    if (same) return &*it;
  }
  return nullptr;
}

bool ascii_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// The docker CLI's rule for context names (cli/context/store: ^[a-zA-Z0-9][a-zA-Z0-9_.+-]+$).
bool valid_context_name(std::string_view name) {
  if (name.size() < 2) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool ok = ascii_alnum(c) || (i > 0 && (c == '_' || c == '.' || c == '+' || c == '-'));
    if (!ok) return false;
  }
  return true;
}

// A tcp:// URL without a port gets the one Go's HTTP client dials for it: contexts do not go
// through the CLI's DOCKER_HOST parsing, so "tcp://h" is h:443 with TLS and h:80 without
// (observed with docker 28.2).
std::string with_default_port(const std::string& url, bool tls) {
  constexpr std::string_view kTcp = "tcp://";
  if (url.rfind(kTcp, 0) != 0) return url;
  const std::size_t start = kTcp.size();
  const std::size_t end = std::min(url.find('/', start), url.size());
  const std::string_view authority = std::string_view(url).substr(start, end - start);
  const bool has_port = !authority.empty() && authority.front() == '['
                            ? authority.find("]:") != std::string_view::npos
                            : authority.find(':') != std::string_view::npos;
  if (has_port) return url;
  std::string out = url;
  out.insert(end, tls ? ":443" : ":80");
  return out;
}

// A context's meta.json, parsed: its Endpoints.docker object, nullptr when it has none; throws
// what `malformed` makes of a document of another shape.
template <class Malformed>
const json* docker_endpoint(const json& meta, const Malformed& malformed) {
  if (meta.is_discarded()) throw malformed("is not valid JSON");
  if (!meta.is_object()) throw malformed("is not a JSON object");
  const json* endpoints = member(meta, "Endpoints");
  if (endpoints && !endpoints->is_object() && !endpoints->is_null())
    throw malformed("has Endpoints that are not an object");
  const json* docker = nullptr;  // a map key: matched exactly
  if (endpoints && endpoints->is_object()) {
    if (auto it = endpoints->find("docker"); it != endpoints->end()) docker = &*it;
  }
  if (!docker || docker->is_null()) return nullptr;
  if (!docker->is_object()) throw malformed("has an Endpoints.docker that is not an object");
  return docker;
}

NamedEndpoint from_store(const std::string& name, const std::string& config, const ReadFile& read) {
  const std::string id = hash::sha256_hex(name);
  const std::string meta_path = config + "/contexts/meta/" + id + "/meta.json";
  const std::string tls_dir = config + "/contexts/tls/" + id + "/docker";
  const auto text = read(meta_path);
  if (!text) {
    throw DockerError(fmt::format(
        "no Docker context '{}' (looked for {}): create it with `docker context create {} --docker "
        "host=...`, or give an endpoint such as ssh://user@host",
        name, meta_path, name));
  }
  const auto malformed = [&](std::string_view what) {
    return DockerError(
        fmt::format("context '{}': {} {}: fix it, or recreate the context with `docker "
                    "context rm {}` and `docker context create {} --docker host=...`",
                    name, meta_path, what, name, name));
  };
  const json meta = json::parse(*text, nullptr, false);
  const json* docker = docker_endpoint(meta, malformed);
  if (!docker) {
    throw DockerError(
        fmt::format("context '{}' has no docker endpoint ({}): recreate it with `docker context "
                    "create {} --docker host=...`",
                    name, meta_path, name));
  }
  std::string host = std::string("unix://") + kDefaultSocket;  // no Host: the client's default
  if (const json* h = member(*docker, "Host"); h && !h->is_null()) {
    if (!h->is_string()) throw malformed("has an Endpoints.docker.Host that is not a string");
    if (!h->get<std::string>().empty()) host = h->get<std::string>();
  }
  bool skip_verify = false;
  if (const json* s = member(*docker, "SkipTLSVerify"); s && !s->is_null()) {
    if (!s->is_boolean()) throw malformed("has an Endpoints.docker.SkipTLSVerify that is not true or false");
    skip_verify = s->get<bool>();
  }
  bool material = false;
  for (const char* file : {"/ca.pem", "/cert.pem", "/key.pem"})
    material = material || read(tls_dir + file).has_value();

  // TLS as cli/context/docker/load.go decides it, expressed as the variables endpoint_from_url
  // reads for tcp:// (it ignores them for unix:// and ssh://); nothing else of the environment.
  const bool tls = material || skip_verify;
  const GetEnv context_env = [&](const std::string& variable) -> std::optional<std::string> {
    if (!tls) return std::nullopt;
    if (variable == "DOCKER_TLS") return "1";
    if (variable == "DOCKER_TLS_VERIFY" && !skip_verify) return "1";
    if (variable == "DOCKER_CERT_PATH") return tls_dir;
    return std::nullopt;
  };
  Endpoint endpoint = endpoint_from_url(with_default_port(host, tls), context_env,
                                        fmt::format("context '{}' endpoint", name));
  return NamedEndpoint{name, std::move(endpoint), fmt::format("context '{}' ({})", name, meta_path)};
}

}  // namespace

std::optional<std::string> docker_config_dir(const GetEnv& getenv) {
  std::string dir = env(getenv, "DOCKER_CONFIG");
  if (dir.empty()) {
    const std::string home = env(getenv, "HOME");
    if (home.empty()) return std::nullopt;
    dir = home + (home.back() == '/' ? ".docker" : "/.docker");
  }
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

std::string current_context(const GetEnv& getenv, const ReadFile& read) {
  if (!env(getenv, "DOCKER_HOST").empty()) return std::string(kDefaultContext);
  if (std::string name = env(getenv, "DOCKER_CONTEXT"); !name.empty()) return name;
  const auto config = docker_config_dir(getenv);
  if (!config) return std::string(kDefaultContext);
  const std::string path = *config + "/config.json";
  const auto text = read(path);
  if (!text) return std::string(kDefaultContext);
  const json j = json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    throw DockerError(
        fmt::format("Docker config {} is not a valid JSON object: fix it, or name the context "
                    "(DOCKER_CONTEXT)",
                    path));
  }
  const json* current = member(j, "currentContext");
  if (!current || current->is_null()) return std::string(kDefaultContext);
  if (!current->is_string()) {
    throw DockerError(
        fmt::format("Docker config {}: currentContext is not a string: fix it, or name the "
                    "context (DOCKER_CONTEXT)",
                    path));
  }
  const std::string name = current->get<std::string>();
  return name.empty() ? std::string(kDefaultContext) : name;
}

NamedEndpoint resolve_host(const std::string& entry, const GetEnv& getenv, const ReadFile& read) {
  if (entry.empty()) {
    throw DockerError(
        "empty Docker host: name a Docker context, or give an endpoint such as ssh://user@host");
  }
  if (entry.find("://") != std::string::npos) {
    Endpoint endpoint = endpoint_from_url(entry, getenv, "host");
    std::string name = endpoint_name(endpoint);
    return NamedEndpoint{std::move(name), std::move(endpoint), "endpoint"};
  }
  if (entry == kDefaultContext) {
    const bool from_host = !env(getenv, "DOCKER_HOST").empty();
    return NamedEndpoint{std::string(kDefaultContext), endpoint_from_environment(getenv),
                         from_host ? "DOCKER_HOST" : "default context"};
  }
  if (!valid_context_name(entry)) {
    throw DockerError(
        fmt::format("'{}' is neither a Docker context name nor an endpoint: give a context "
                    "(docker context ls) or an endpoint such as ssh://user@host or tcp://host:2376",
                    text::name_safe(entry)));
  }
  const auto config = docker_config_dir(getenv);
  if (!config) {
    throw DockerError(
        fmt::format("cannot look for Docker context '{}': neither DOCKER_CONFIG nor HOME is set", entry));
  }
  return from_store(entry, *config, read);
}

std::string endpoint_name(const Endpoint& endpoint) {
  std::string raw;
  if (endpoint.ssh) {
    raw = endpoint.ssh->host;
  } else if (!endpoint.socket_path.empty()) {
    raw = endpoint.socket_path.substr(endpoint.socket_path.rfind('/') + 1);
    if (const auto dot = raw.rfind('.'); dot != std::string::npos && dot > 0) raw.resize(dot);
  } else {
    std::string_view rest = endpoint.display;
    if (const auto sep = rest.find("://"); sep != std::string_view::npos) rest.remove_prefix(sep + 3);
    rest = rest.substr(0, rest.find('/'));
    if (!rest.empty() && rest.front() == '[') {
      rest = rest.substr(1, rest.find(']') - 1);
    } else {
      rest = rest.substr(0, rest.rfind(':'));
    }
    raw = std::string(rest);
  }
  for (char& c : raw) {
    if (!ascii_alnum(c) && c != '.' && c != '_' && c != '-') c = '_';
  }
  if (!raw.empty() && raw.front() == '.') raw.front() = '_';
  return raw.empty() ? "engine" : raw;
}

}  // namespace noisefloor::docker
