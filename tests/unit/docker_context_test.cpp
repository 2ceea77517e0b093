#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "docker/api.hpp"
#include "docker/context.hpp"
#include "docker/endpoint.hpp"

using noisefloor::docker::current_context;
using noisefloor::docker::docker_config_dir;
using noisefloor::docker::DockerError;
using noisefloor::docker::Endpoint;
using noisefloor::docker::endpoint_name;
using noisefloor::docker::NamedEndpoint;
using noisefloor::docker::resolve_host;
using noisefloor::docker::SshTarget;

namespace {

// tests/data/contexts/README.md: docker-config/ is what `docker context create` wrote, broken-config/
// holds meta.json files made by hand.
const std::string kStore = std::string(NF_TEST_DATA_DIR) + "/contexts/docker-config";
const std::string kBroken = std::string(NF_TEST_DATA_DIR) + "/contexts/broken-config";

// The ids the docker CLI gave the captured contexts (their directory names): sha256 of the name.
const std::string kFastBox = "3fb1f21a606a7e191f89b278fccc9251924f742d5982b0f2742f47a23243d16a";
const std::string kInsecureBox = "52267bc57e734248078c4e1bdbe6e12fcdba06accee90e758bd611e875ede9d2";
const std::string kCaOnly = "013c3ea52eb58495e9e1efcfaae074cf343f01172830ff6d4cff90ab92fabf79";

using Env = std::map<std::string, std::string>;

noisefloor::docker::GetEnv getenv_of(Env env) {
  return [env](const std::string& name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
}

std::optional<std::string> read_disk(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

NamedEndpoint store(const std::string& entry, Env env = {}) {
  env.emplace("DOCKER_CONFIG", kStore);
  return resolve_host(entry, getenv_of(env), read_disk);
}

std::string meta(const std::string& id) { return kStore + "/contexts/meta/" + id + "/meta.json"; }
std::string tls(const std::string& id) { return kStore + "/contexts/tls/" + id + "/docker"; }

}  // namespace

TEST_CASE("context: tcp with the CLI's TLS material, verified") {
  const NamedEndpoint fast = store("fast-box");
  CHECK(fast == NamedEndpoint{.name = "fast-box",
                              .endpoint = Endpoint{.display = "tcp://127.0.0.1:2376",
                                                   .base_url = "https://127.0.0.1:2376",
                                                   .tls = true,
                                                   .verify = true,
                                                   .ca_file = tls(kFastBox) + "/ca.pem",
                                                   .cert_file = tls(kFastBox) + "/cert.pem",
                                                   .key_file = tls(kFastBox) + "/key.pem"},
                              .origin = "context 'fast-box' (" + meta(kFastBox) + ")"});
  CHECK(read_disk(fast.endpoint.ca_file));
  CHECK(read_disk(fast.endpoint.cert_file));
  CHECK(read_disk(fast.endpoint.key_file));
  // the environment's TLS settings are the default context's, not a stored context's
  CHECK(store("fast-box", {{"DOCKER_CERT_PATH", "/elsewhere"}, {"DOCKER_TLS", "1"}}) == fast);
  // nor does DOCKER_HOST override a context named explicitly
  CHECK(store("fast-box", {{"DOCKER_HOST", "tcp://other:2375"}}) == fast);
}

TEST_CASE("context: skip-tls-verify is TLS without verification, even without material") {
  CHECK(store("insecure-box").endpoint == Endpoint{.display = "tcp://10.0.0.7:2376",
                                                   .base_url = "https://10.0.0.7:2376",
                                                   .tls = true,
                                                   .verify = false,
                                                   .ca_file = tls(kInsecureBox) + "/ca.pem",
                                                   .cert_file = tls(kInsecureBox) + "/cert.pem",
                                                   .key_file = tls(kInsecureBox) + "/key.pem"});
  CHECK_FALSE(read_disk(tls(kInsecureBox) + "/ca.pem"));
}

TEST_CASE("context: a CA alone turns TLS on; no port is 443 with TLS, 80 without (as the CLI dials)") {
  const Endpoint ca = store("ca-only").endpoint;
  CHECK(ca.display == "tcp://10.0.0.9:443");
  CHECK(ca.base_url == "https://10.0.0.9:443");
  CHECK(ca.tls);
  CHECK(ca.verify);
  CHECK(ca.ca_file == tls(kCaOnly) + "/ca.pem");
  CHECK(read_disk(ca.ca_file));
  CHECK_FALSE(read_disk(ca.cert_file));
}

TEST_CASE("context: plain tcp, unix and ssh hosts") {
  CHECK(store("plain-box").endpoint ==
        Endpoint{.display = "tcp://10.0.0.8:2375", .base_url = "http://10.0.0.8:2375"});
  CHECK(store("unix-box").endpoint == Endpoint{.display = "unix:///run/other.sock",
                                               .socket_path = "/run/other.sock",
                                               .base_url = "http://localhost"});
  CHECK(store("ssh-box").endpoint ==
        Endpoint{.display = "ssh://root@127.0.0.1:2222",
                 .ssh = SshTarget{.user = "root", .host = "127.0.0.1", .port = 2222}});
  CHECK(store("ssh-path").endpoint ==
        Endpoint{
            .display = "ssh://bench@fast-box/run/user/1000/docker.sock",
            .ssh = SshTarget{.user = "bench", .host = "fast-box", .socket = "/run/user/1000/docker.sock"}});
  CHECK(store("ssh-box").name == "ssh-box");
}

TEST_CASE("context: the default context is DOCKER_HOST & co") {
  CHECK(store("default") == NamedEndpoint{.name = "default",
                                          .endpoint = Endpoint{.display = "unix:///var/run/docker.sock",
                                                               .socket_path = "/var/run/docker.sock",
                                                               .base_url = "http://localhost"},
                                          .origin = "default context"});
  const NamedEndpoint host = store("default", {{"DOCKER_HOST", "tcp://h:2375"}});
  CHECK(host.endpoint.base_url == "http://h:2375");
  CHECK(host.origin == "DOCKER_HOST");
  CHECK(store("default", {{"DOCKER_HOST", "tcp://h"}, {"DOCKER_TLS_VERIFY", "1"}}).endpoint.ca_file ==
        kStore + "/ca.pem");
}

TEST_CASE("context: the current context, as the CLI picks it") {
  const auto current = [](Env env) { return current_context(getenv_of(env), read_disk); };
  CHECK(current({{"DOCKER_CONFIG", kStore}}) == "fast-box");  // config.json's currentContext
  CHECK(current({{"DOCKER_CONFIG", kStore}, {"DOCKER_CONTEXT", "ssh-box"}}) == "ssh-box");
  // DOCKER_HOST means the default context, over DOCKER_CONTEXT and config.json (docker 28.2)
  CHECK(current({{"DOCKER_CONFIG", kStore}, {"DOCKER_CONTEXT", "ssh-box"}, {"DOCKER_HOST", "tcp://h"}}) ==
        "default");
  CHECK(current({{"DOCKER_CONFIG", kStore}, {"DOCKER_HOST", ""}}) == "fast-box");  // empty is unset
  CHECK(current({{"DOCKER_CONFIG", "/nonexistent"}}) == "default");
  CHECK(current({}) == "default");
  // $HOME/.docker without DOCKER_CONFIG
  const std::map<std::string, std::string> files{
      {"/home/u/.docker/config.json", R"({"auths": {}, "CurrentContext": "from-home"})"},
      {"/home/v/.docker/config.json", R"({"auths": {}, "currentContext": ""})"}};
  const auto read_memory = [&](const std::string& path) -> std::optional<std::string> {
    auto it = files.find(path);
    if (it == files.end()) return std::nullopt;
    return it->second;
  };
  CHECK(current_context(getenv_of({{"HOME", "/home/u"}}), read_memory) == "from-home");
  CHECK(current_context(getenv_of({{"HOME", "/home/u/"}}), read_memory) == "from-home");
  CHECK(current_context(getenv_of({{"HOME", "/home/v"}}), read_memory) == "default");
  // the CLI warns about a broken config.json and uses the default context; noisefloor says so
  CHECK_THROWS_WITH_AS(
      current({{"DOCKER_CONFIG", kBroken}}),
      ("Docker config " + kBroken +
       "/config.json is not a valid JSON object: fix it, or name the context (DOCKER_CONTEXT)")
          .c_str(),
      DockerError);
  CHECK(current({{"DOCKER_CONFIG", kBroken}, {"DOCKER_CONTEXT", "x1"}}) == "x1");
  const std::map<std::string, std::string> numbers{{"/c/config.json", R"({"currentContext": 5})"}};
  CHECK_THROWS_WITH_AS(
      current_context(getenv_of({{"DOCKER_CONFIG", "/c/"}}),
                      [&](const std::string& path) -> std::optional<std::string> {
                        auto it = numbers.find(path);
                        if (it == numbers.end()) return std::nullopt;
                        return it->second;
                      }),
      "Docker config /c/config.json: currentContext is not a string: fix it, or name the context "
      "(DOCKER_CONTEXT)",
      DockerError);
}

TEST_CASE("context: the config dir") {
  CHECK(docker_config_dir(getenv_of({{"DOCKER_CONFIG", "/cfg/"}, {"HOME", "/home/u"}})) == "/cfg");
  CHECK(docker_config_dir(getenv_of({{"DOCKER_CONFIG", ""}, {"HOME", "/home/u"}})) == "/home/u/.docker");
  CHECK(docker_config_dir(getenv_of({{"HOME", "/"}})) == "/.docker");
  CHECK_FALSE(docker_config_dir(getenv_of({})));
}

TEST_CASE("context: a missing context says where it looked and what to do") {
  CHECK_THROWS_WITH_AS(
      resolve_host("ctx\x1b[31mRED\n  REPRODUCED", getenv_of({}), read_disk),
      "'ctx\\x1b[31mRED\\x0a  REPRODUCED' is neither a Docker context name nor an endpoint: give "
      "a context (docker context ls) or an endpoint such as ssh://user@host or tcp://host:2376",
      DockerError);
  const std::string looked =
      kStore + "/contexts/meta/9e62f93eb7d2499903ac66232f187c56fc050eb74c765f90eb214360b21f0e96/meta.json";
  CHECK_THROWS_WITH_AS(store("nosuch"),
                       ("no Docker context 'nosuch' (looked for " + looked +
                        "): create it with `docker context create nosuch --docker host=...`, or give an "
                        "endpoint such as ssh://user@host")
                           .c_str(),
                       DockerError);
  CHECK_THROWS_WITH_AS(resolve_host("fast-box", getenv_of({}), read_disk),
                       "cannot look for Docker context 'fast-box': neither DOCKER_CONFIG nor HOME is set",
                       DockerError);
  // $HOME/.docker when DOCKER_CONFIG is unset
  CHECK_THROWS_WITH_AS(
      resolve_host("nosuch", getenv_of({{"HOME", "/home/u"}}), read_disk),
      "no Docker context 'nosuch' (looked for "
      "/home/u/.docker/contexts/meta/"
      "9e62f93eb7d2499903ac66232f187c56fc050eb74c765f90eb214360b21f0e96/meta.json): create it "
      "with `docker context create nosuch --docker host=...`, or give an endpoint such as "
      "ssh://user@host",
      DockerError);
}

TEST_CASE("context: names the CLI could not have created, and empty entries") {
  for (const std::string name : {"a", "fast box", "-x", "_x", "a/b", "../x", "host:2375"}) {
    CAPTURE(name);
    CHECK_THROWS_WITH_AS(
        store(name),
        ("'" + name +
         "' is neither a Docker context name nor an endpoint: give a context (docker context "
         "ls) or an endpoint such as ssh://user@host or tcp://host:2376")
            .c_str(),
        DockerError);
  }
  CHECK_THROWS_WITH_AS(store(""),
                       "empty Docker host: name a Docker context, or give an endpoint such as "
                       "ssh://user@host",
                       DockerError);
  // the CLI's name rule admits '+' and '.'
  CHECK_THROWS_WITH_AS(store("a+b.c"), doctest::Contains("no Docker context 'a+b.c'"), DockerError);
}

TEST_CASE("context: meta.json files that are not what the CLI writes, one line naming the file") {
  const auto broken = [](const std::string& name) {
    return resolve_host(name, getenv_of({{"DOCKER_CONFIG", kBroken}}), read_disk);
  };
  const auto path = [](const std::string& id) { return kBroken + "/contexts/meta/" + id + "/meta.json"; };
  CHECK_THROWS_WITH_AS(
      broken("broken"),
      ("context 'broken': " + path("f526795c95399cea27c055c842c3d6ab018ed0fa4f66f701c28ab22dec28237b") +
       " is not valid JSON: fix it, or recreate the context with `docker context rm broken` and `docker "
       "context "
       "create broken --docker host=...`")
          .c_str(),
      DockerError);
  CHECK_THROWS_WITH_AS(
      broken("not-bool"),
      ("context 'not-bool': " + path("05e51b297fe7e65a1d4ea1468a88aa1d5b0ad7e2474c7fc29e1c4c940cd5c5b9") +
       " has an Endpoints.docker.SkipTLSVerify that is not true or false: fix it, or recreate the context "
       "with "
       "`docker context rm not-bool` and `docker context create not-bool --docker host=...`")
          .c_str(),
      DockerError);
  CHECK_THROWS_WITH_AS(broken("no-docker"),
                       ("context 'no-docker' has no docker endpoint (" +
                        path("d2a6d9bda514237590f76a00f5dd09631573699da2edee5d431074a535f667f6") +
                        "): recreate it with `docker context create no-docker --docker host=...`")
                           .c_str(),
                       DockerError);
  CHECK_THROWS_WITH_AS(
      broken("bad-port"),
      "context 'bad-port' endpoint 'tcp://10.0.0.7:99999': port '99999' is not a number from 1 "
      "to 65535",
      DockerError);
  // what the CLI accepts: no Host is the local socket, keys in any case (Go's encoding/json)
  CHECK(broken("empty-host").endpoint == Endpoint{.display = "unix:///var/run/docker.sock",
                                                  .socket_path = "/var/run/docker.sock",
                                                  .base_url = "http://localhost"});
  const Endpoint lower = broken("lower-case").endpoint;
  CHECK(lower.base_url == "https://10.0.0.7:2376");
  CHECK(lower.tls);
  CHECK_FALSE(lower.verify);
}

TEST_CASE("context: a store in memory: TLS material decides, read from the context's tls dir") {
  const std::string id =
      "86b07aed02bc9ca11b0ba509e7494e6ebf75f659200ed115ec62b78e4b6a1f1f";  // sha256("mem-box")
  const std::string meta_path = "/cfg/contexts/meta/" + id + "/meta.json";
  const std::string tls_dir = "/cfg/contexts/tls/" + id + "/docker";
  std::vector<std::string> asked;
  std::map<std::string, std::string> files;
  const auto read = [&](const std::string& path) -> std::optional<std::string> {
    asked.push_back(path);
    auto it = files.find(path);
    if (it == files.end()) return std::nullopt;
    return it->second;
  };
  const auto resolve = [&] {
    return resolve_host("mem-box", getenv_of({{"DOCKER_CONFIG", "/cfg"}}), read).endpoint;
  };

  files[meta_path] =
      R"({"Name":"mem-box","Endpoints":{"docker":{"Host":"tcp://mem","SkipTLSVerify":false}}})";
  CHECK(resolve() == Endpoint{.display = "tcp://mem:80", .base_url = "http://mem:80"});
  CHECK(asked == std::vector<std::string>{meta_path, tls_dir + "/ca.pem", tls_dir + "/cert.pem",
                                          tls_dir + "/key.pem"});

  files[tls_dir + "/key.pem"] = "k";  // any one file is TLS material
  CHECK(resolve() == Endpoint{.display = "tcp://mem:443",
                              .base_url = "https://mem:443",
                              .tls = true,
                              .verify = true,
                              .ca_file = tls_dir + "/ca.pem",
                              .cert_file = tls_dir + "/cert.pem",
                              .key_file = tls_dir + "/key.pem"});

  // material on a socket or ssh host: no TLS (the CLI uses TLS for tcp only)
  files[meta_path] =
      R"({"Name":"mem-box","Endpoints":{"docker":{"Host":"unix:///run/d.sock","SkipTLSVerify":true}}})";
  CHECK(resolve() == Endpoint{.display = "unix:///run/d.sock",
                              .socket_path = "/run/d.sock",
                              .base_url = "http://localhost"});
  files[meta_path] = R"({"Name":"mem-box","Endpoints":{"docker":{"Host":"ssh://m"}}})";
  CHECK(resolve() == Endpoint{.display = "ssh://m", .ssh = SshTarget{.host = "m"}});

  files[meta_path] =
      R"({"Name":"mem-box","Endpoints":{"docker":{"Host":"tcp://[::1]","SkipTLSVerify":true}}})";
  CHECK(resolve().base_url == "https://[::1]:443");
  files[meta_path] = R"({"Name":"mem-box","Endpoints":{"docker":{"Host":"tcp://mem:2376/p"}}})";
  CHECK(resolve().base_url == "https://mem:2376/p");

  files[meta_path] = R"({"Name":"mem-box","Endpoints":{"docker":{"Host":"npipe:////./pipe/docker_engine"}}})";
  CHECK_THROWS_WITH_AS(
      resolve(),
      "context 'mem-box' endpoint 'npipe:////./pipe/docker_engine': unsupported scheme 'npipe' "
      "(expected unix:///path/to/docker.sock, tcp://host:port or ssh://user@host)",
      DockerError);
  files[meta_path] = R"({"Name":"mem-box","Endpoints":{"docker":{"Host":7}}})";
  CHECK_THROWS_WITH_AS(resolve(), doctest::Contains("has an Endpoints.docker.Host that is not a string"),
                       DockerError);
  files[meta_path] = R"(["mem-box"])";
  CHECK_THROWS_WITH_AS(resolve(), doctest::Contains((meta_path + " is not a JSON object: fix it").c_str()),
                       DockerError);
  files[meta_path] = R"({"Name":"mem-box","Endpoints":[]})";
  CHECK_THROWS_WITH_AS(resolve(), doctest::Contains("has Endpoints that are not an object"), DockerError);
  files[meta_path] = R"({"Name":"mem-box","Endpoints":{"docker":"tcp://h"}})";
  CHECK_THROWS_WITH_AS(resolve(), doctest::Contains("has an Endpoints.docker that is not an object"),
                       DockerError);
  files[meta_path] = R"({"Name":"mem-box"})";
  CHECK_THROWS_WITH_AS(resolve(), doctest::Contains("context 'mem-box' has no docker endpoint"), DockerError);
}

TEST_CASE("resolve_host: endpoint URLs and their names") {
  const auto entry = [](const std::string& text, Env env = {}) {
    return resolve_host(text, getenv_of(env), [](const std::string&) -> std::optional<std::string> {
      FAIL("an endpoint URL reads no file");
      return std::nullopt;
    });
  };
  CHECK(
      entry("ssh://root@fast-box:2222") ==
      NamedEndpoint{.name = "fast-box",
                    .endpoint = Endpoint{.display = "ssh://root@fast-box:2222",
                                         .ssh = SshTarget{.user = "root", .host = "fast-box", .port = 2222}},
                    .origin = "endpoint"});
  CHECK(entry("tcp://10.0.0.5:2376").name == "10.0.0.5");
  CHECK(entry("tcp://10.0.0.5:2376", {{"DOCKER_TLS_VERIFY", "1"}, {"DOCKER_CERT_PATH", "/c"}})
            .endpoint.base_url == "https://10.0.0.5:2376");
  CHECK(entry("tcp://bench.example.com/prefix").name == "bench.example.com");
  CHECK(entry("tcp://:2375").name == "localhost");
  CHECK(entry("tcp://[::1]:2376").name == "__1");
  CHECK(entry("unix:///var/run/docker.sock").name == "docker");
  CHECK(entry("unix:///run/user/1000/podman/podman.sock").name == "podman");
  CHECK(entry("ssh://[fe80::1%eth0]").name == "fe80__1_eth0");
  CHECK(entry("ssh://.hidden").name == "_hidden");
  CHECK(entry("ssh://me@h/x").endpoint.ssh->socket == "/x");
  CHECK_THROWS_WITH_AS(entry("ssh://h:0"), "host 'ssh://h:0': port '0' is not a number from 1 to 65535",
                       DockerError);
}

TEST_CASE("endpoint_name: safe as a directory name") {
  CHECK(endpoint_name(Endpoint{.display = "tcp://a b:1", .base_url = "http://a b:1"}) == "a_b");
  CHECK(endpoint_name(Endpoint{.socket_path = "/s/.sock"}) == "_sock");
  CHECK(endpoint_name(Endpoint{.socket_path = "/"}) == "engine");
  CHECK(endpoint_name(Endpoint{.ssh = SshTarget{.host = ".."}}) == "_.");
  CHECK(endpoint_name(Endpoint{.ssh = SshTarget{.host = "\xc3\xa9t\xc3\xa9"}}) == "__t__");
}
