#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "docker/api.hpp"
#include "hash/sha256.hpp"

using namespace noisefloor::docker;
using nlohmann::json;

// ---- versions -------------------------------------------------------------------------------

TEST_CASE("api: parse_api_version") {
  CHECK(parse_api_version("1.41") == ApiVersion{1, 41});
  CHECK(parse_api_version("v1.47") == ApiVersion{1, 47});
  CHECK(parse_api_version("2.0") == ApiVersion{2, 0});
  for (const char* bad : {"", "1", "1.", ".41", "1.x", "1.41.2", "a.b", "-1.2", "1.-2", "v", "1.41 "}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_api_version(bad).has_value());
  }
}

TEST_CASE("api: versions compare numerically, never as strings") {
  CHECK(*parse_api_version("1.9") < *parse_api_version("1.41"));
  CHECK(*parse_api_version("v1.41") == *parse_api_version("1.41"));
  CHECK(*parse_api_version("2.0") > *parse_api_version("1.99"));
  CHECK(negotiate_api_version(std::string("1.100")) == "1.47");  // 100 > 47, though "1.100" < "1.47"
  CHECK_THROWS_WITH_AS(fixed_api_version("new"),
                       "DOCKER_API_VERSION 'new' is not an API version (expected e.g. 1.41)", DockerError);
}

TEST_CASE("api: negotiation takes min(1.47, engine) and refuses engines below 1.41") {
  CHECK(negotiate_api_version(std::nullopt) == "1.47");  // no header: our maximum
  CHECK(negotiate_api_version(std::string("")) == "1.47");
  CHECK(negotiate_api_version(std::string("1.41")) == "1.41");
  CHECK(negotiate_api_version(std::string("1.44")) == "1.44");
  CHECK(negotiate_api_version(std::string("1.53")) == "1.47");
  CHECK(negotiate_api_version(std::string("2.1")) == "1.47");
  CHECK_THROWS_WITH_AS(negotiate_api_version(std::string("1.40")),
                       "docker: engine too old: it speaks API 1.40 at most, noisefloor needs 1.41 or "
                       "newer (Docker 20.10+)",
                       DockerError);
  CHECK_THROWS_WITH_AS(negotiate_api_version(std::string("1.9")),
                       "docker: engine too old: it speaks API 1.9 at most, noisefloor needs 1.41 or "
                       "newer (Docker 20.10+)",
                       DockerError);
  CHECK_THROWS_WITH_AS(negotiate_api_version(std::string("latest")),
                       "docker: the engine's Api-Version header 'latest' is not an API version "
                       "(expected e.g. 1.41)",
                       DockerError);
}

TEST_CASE("api: DOCKER_API_VERSION is used verbatim") {
  CHECK(fixed_api_version("v1.41") == "1.41");
  CHECK(fixed_api_version("1.99") == "1.99");
  CHECK(fixed_api_version("1.24") == "1.24");
  CHECK_THROWS_WITH_AS(fixed_api_version("latest"),
                       "DOCKER_API_VERSION 'latest' is not an API version (expected e.g. 1.41)", DockerError);
}

TEST_CASE("api: GET /version's MinAPIVersion must not exceed the negotiated version") {
  CHECK_NOTHROW(check_version_response("1.41", json{{"ApiVersion", "1.41"}, {"MinAPIVersion", "1.12"}}));
  CHECK_NOTHROW(check_version_response("1.44", json{{"MinAPIVersion", "1.44"}}));
  CHECK_NOTHROW(check_version_response("1.41", json::object()));
  CHECK_THROWS_WITH_AS(check_version_response("1.43", json{{"MinAPIVersion", "1.44"}}),
                       "docker: the engine requires API 1.44 or newer but noisefloor uses 1.43 (it "
                       "speaks 1.41..1.47; unset DOCKER_API_VERSION if it is set)",
                       DockerError);
}

// ---- errors ---------------------------------------------------------------------------------

// Podman 4.3's Docker API, as it answered on this machine (rootful, cgroup v1): a 500 with words
// where Docker gives a 409.
TEST_CASE("api: Podman's 500s that mean Docker's 409s") {
  const std::string name_taken =
      R"({"cause":"that name is already in use","message":"container create: creating container storage: the )"
      R"(container name \"noisefloor-lease\" is already in use by 66b0426c. You have to remove that container )"
      R"(to be able to reuse that name: that name is already in use","response":500})";
  CHECK(name_in_use(409, "{\"message\":\"Conflict. The container name is already in use\"}"));
  CHECK(name_in_use(500, name_taken));
  CHECK_FALSE(name_in_use(500, R"({"message":"no space left on device"})"));
  CHECK_FALSE(name_in_use(201, ""));

  const std::string kill_exited =
      R"({"cause":"container state improper","message":"can only kill running containers. 5b2e is in state )"
      R"(exited: container state improper","response":500})";
  CHECK(kill_not_running(409, "{\"message\":\"Container 5b2e is not running\"}"));
  CHECK(kill_not_running(500, kill_exited));
  CHECK_FALSE(kill_not_running(500, R"({"message":"no such process"})"));

  const std::string remove_race =
      R"({"cause":"container state improper","message":"cannot remove container dde667ed as it could not be )"
      R"(stopped: sending SIGKILL to container dde667ed: container state improper: stopped","response":500})";
  CHECK(removal_under_way(409, "{\"message\":\"removal of container x is already in progress\"}"));
  CHECK(removal_under_way(500, remove_race));
  CHECK_FALSE(removal_under_way(409, "{\"message\":\"You cannot remove a running container\"}"));
  CHECK_FALSE(removal_under_way(500, R"({"message":"driver failed"})"));
}

TEST_CASE("api: the head of a hijacked connection's refusal") {
  const auto head = parse_answer_head(
      "HTTP/1.1 409 Conflict\r\nApi-Version: 1.41\r\nContent-Type: application/json\r\n"
      "Libpod-Api-Version: 4.3.1\r\ncontent-length: 341");
  CHECK(head.status == 409);
  CHECK(head.content_type == "application/json");
  CHECK(head.content_length == 341);
  CHECK(parse_answer_head("").status == 0);
  CHECK(parse_answer_head("garbage").status == 0);
  // found by the engine fuzz target: a status of 19 digits overflowed a long (undefined behaviour)
  CHECK(parse_answer_head("HTTP/1.1 1844674407370955161612 OK").status == 0);
  CHECK(parse_answer_head("HTTP/1.1 20 OK").status == 0);
  CHECK(parse_answer_head("HTTP/1.1 200\r\nContent-Length: 99999999999999999999999").content_length ==
        SIZE_MAX);
  // What the refusal then says: runc's reason, from the body.
  CHECK(
      engine_error_message(
          "POST", "/v1.41/containers/074fe3d5d2da/attach?stream=1&stdin=1", head.status, head.content_type,
          R"({"cause":"OCI permission denied","message":"preparing container 074f for attach: )"
          R"(runc: runc create failed: unable to start container process: error during )"
          R"(container init: error setting rlimits for ready process: error setting rlimit )"
          R"(type 7: operation not permitted: OCI permission denied","response":409})") ==
      "docker: POST /v1.41/containers/074fe3d5d2da/attach: 409: preparing container 074f for attach: runc: "
      "runc "
      "create failed: unable to start container process: error during container init: error setting rlimits "
      "for ready process: error setting rlimit type 7: operation not permitted: OCI permission denied");
}

TEST_CASE("api: engine errors are one line naming the request") {
  CHECK(engine_error_message("POST", "/containers/create?name=nf-1", 404, "application/json",
                             "{\"message\":\"No such image: bench:1.2\"}\n") ==
        "docker: POST /containers/create: 404: No such image: bench:1.2");
  CHECK(engine_error_message("GET", "/version", 400, "text/plain; charset=utf-8",
                             "client version 1.11 is too old. Minimum supported API version is 1.12, "
                             "please upgrade your client to a newer version\n") ==
        "docker: GET /version: 400: client version 1.11 is too old. Minimum supported API version "
        "is 1.12, please upgrade your client to a newer version");
  CHECK(engine_error_message("DELETE", "/containers/x", 500, "Application/JSON; charset=utf-8",
                             "{\"message\":\"boom\"}") == "docker: DELETE /containers/x: 500: boom");
  // JSON promised but not delivered: keep the raw text
  CHECK(engine_error_message("GET", "/info", 502, "application/json", "<html>bad gateway</html>") ==
        "docker: GET /info: 502: <html>bad gateway</html>");
  CHECK(engine_error_message("POST", "/containers/x/start", 500, "", "") ==
        "docker: POST /containers/x/start: 500: (empty response)");
}

TEST_CASE("api: the unreachable-engine message") {
  CHECK(unreachable_message("unix:///var/run/docker.sock", "no such file or directory") ==
        "cannot reach the Docker engine at unix:///var/run/docker.sock: no such file or directory "
        "\u2014 is dockerd (or `podman system service`) running? set DOCKER_HOST");
}

// ---- JSON streams ---------------------------------------------------------------------------

TEST_CASE("api: errorDetail inside a 200 (verified /images/load answer)") {
  const auto s = scan_json_stream(
      "{\"errorDetail\":{\"message\":\"Error processing tar file(exit status 1): unexpected "
      "EOF\"},\"error\":\"Error processing tar file(exit status 1): unexpected EOF\"}\n");
  REQUIRE(s.error.has_value());
  CHECK(*s.error == "Error processing tar file(exit status 1): unexpected EOF");
  CHECK(s.objects.size() == 1);
}

TEST_CASE("api: errorDetail after progress lines (verified build stream)") {
  const auto s = scan_json_stream(
      "{\"stream\":\"Step 1/5 : FROM scratch\"}\r\n"
      "{\"stream\":\"\\n\"}\n"
      "{\"stream\":\" ---\\u003e \\n\"}\n"
      "\n"
      "{\"errorDetail\":{\"message\":\"COPY failed: file not found in build context or excluded by "
      ".dockerignore: stat missing: file does not exist\"},\"error\":\"COPY failed: file not found "
      "in build context or excluded by .dockerignore: stat missing: file does not exist\"}\n");
  CHECK(*s.error ==
        "COPY failed: file not found in build context or excluded by .dockerignore: stat missing: "
        "file does not exist");
  CHECK(s.stream == "Step 1/5 : FROM scratch\n ---> \n");
  CHECK(s.objects.size() == 4);
}

TEST_CASE("api: successful streams have no error") {
  const auto load = scan_json_stream("{\"stream\":\"Loaded image: bench:1\\n\"}\n");
  CHECK_FALSE(load.error.has_value());
  CHECK(loaded_image(load.stream) == std::optional<std::string>("bench:1"));

  const auto build = scan_json_stream(
      "{\"aux\":{\"ID\":\"sha256:f0a23e0a8247\"}}\n"
      "{\"stream\":\"Successfully built f0a23e0a8247\\n\"}\n"
      "{\"stream\":\"Successfully tagged research-probe:built\\n\"}\n");
  CHECK_FALSE(build.error.has_value());
  CHECK(build.aux_id == std::optional<std::string>("sha256:f0a23e0a8247"));
  CHECK_FALSE(loaded_image(build.stream).has_value());

  const auto empty = scan_json_stream("");
  CHECK_FALSE(empty.error.has_value());
  CHECK(empty.objects.empty());
}

TEST_CASE("api: legacy error field and cut streams are errors too") {
  CHECK(scan_json_stream("{\"status\":\"x\"}\n{\"error\":\"only legacy\"}\n").error ==
        std::optional<std::string>("only legacy"));
  CHECK(scan_json_stream("{\"stream\":\"Loaded im").error ==
        std::optional<std::string>("unreadable line in the engine's response: '{\"stream\":\"Loaded im'"));
  // the first error wins
  CHECK(scan_json_stream("{\"error\":\"first\"}\n{\"errorDetail\":{\"message\":\"second\"}}").error ==
        std::optional<std::string>("first"));
}

TEST_CASE("api: loaded_image reads the reference or the id") {
  CHECK(loaded_image("Loaded image ID: sha256:abc\n") == std::optional<std::string>("sha256:abc"));
  CHECK(loaded_image("Loaded image: a:1\nLoaded image: b:2\n") == std::optional<std::string>("b:2"));
  CHECK_FALSE(loaded_image("nothing here\n").has_value());
}

// ---- create body ----------------------------------------------------------------------------

TEST_CASE("api: create_body has safe defaults (exact JSON)") {
  ContainerRequest r;
  r.image = "noisefloor-bench:1";
  r.argv = {"/bench", "-test.bench=.", "-test.count=5"};
  r.env = {{"GOMAXPROCS", "1"}, {"A", "benchmark"}};
  r.spec.cpuset = "1";
  r.spec.cpus = 1.5;
  r.spec.memory = 268435456;
  r.spec.env = {{"A", "condition"}};
  r.spec.user = "65534:65534";
  r.labels = {{"noisefloor.run", "abc"}, {"noisefloor.condition", "pinned"}};
  r.name = "nf-abc-pinned-1";
  const json expected = R"({
    "Image": "noisefloor-bench:1",
    "Entrypoint": ["/bench"],
    "Cmd": ["-test.bench=.", "-test.count=5"],
    "Env": ["A=condition", "GOMAXPROCS=1"],
    "Labels": {"noisefloor.condition": "pinned", "noisefloor.run": "abc"},
    "User": "65534:65534",
    "Tty": false, "OpenStdin": false, "StdinOnce": false, "AttachStdin": false, "AttachStdout": false,
    "AttachStderr": false,
    "HostConfig": {
      "NetworkMode": "none",
      "CapDrop": ["ALL"],
      "SecurityOpt": ["no-new-privileges"],
      "ReadonlyRootfs": true,
      "Tmpfs": {"/tmp": "rw,noexec,nosuid,size=64m"},
      "PidsLimit": 1024,
      "Privileged": false,
      "Init": false,
      "AutoRemove": false,
      "RestartPolicy": {"Name": "no"},
      "LogConfig": {"Type": "json-file", "Config": {}},
      "CpusetCpus": "1",
      "NanoCpus": 1500000000,
      "Memory": 268435456,
      "MemorySwap": 268435456
    }
  })"_json;
  CHECK(create_body(r) == expected);
  // Held stdin: the engine keeps it open for one attached client and closes it when it goes.
  r.hold_stdin = true;
  const json held = create_body(r);
  CHECK(held["OpenStdin"] == true);
  CHECK(held["StdinOnce"] == true);
  CHECK(held["AttachStdin"] == true);
}

TEST_CASE("api: create_body leaves unset limits to the engine") {
  ContainerRequest r;
  r.image = "x:1";
  r.argv = {"/x"};
  r.spec.read_only = false;
  r.spec.network = "host";
  r.spec.pids_limit = 64;
  const json body = create_body(r);
  CHECK(body["Cmd"] == json::array());
  CHECK(body["Env"] == json::array());
  CHECK(body["Labels"] == json::object());
  CHECK_FALSE(body.contains("User"));
  const json& host = body["HostConfig"];
  CHECK(host["NetworkMode"] == "host");
  CHECK(host["ReadonlyRootfs"] == false);
  CHECK(host["PidsLimit"] == 64);
  for (const char* key : {"Tmpfs", "CpusetCpus", "NanoCpus", "Memory", "MemorySwap"}) {
    CAPTURE(key);
    CHECK_FALSE(host.contains(key));
  }
  r.spec.memory = 16 << 20;
  r.spec.memory_swap = -1;
  CHECK(create_body(r)["HostConfig"]["MemorySwap"] == -1);
  r.spec.network = "";
  CHECK(create_body(r)["HostConfig"]["NetworkMode"] == "none");
}

TEST_CASE("api: create_body needs a command") {
  ContainerRequest r;
  r.image = "x:1";
  r.name = "nf-1";
  CHECK_THROWS_WITH_AS(create_body(r), "container 'nf-1': no command to run (argv is empty)", DockerError);
}

// ---- timestamps -----------------------------------------------------------------------------

TEST_CASE("api: RFC3339Nano timestamps") {
  using namespace std::chrono;
  const Timestamp base = sys_days{2026y / November / 30} + 3h + 38min + 8s;
  CHECK(parse_rfc3339_nano("2026-11-30T03:38:08.103801088Z") == base + 103801088ns);
  CHECK(parse_rfc3339_nano("2026-11-30T03:38:08Z") == base);
  CHECK(parse_rfc3339_nano("2026-11-30T03:38:08.5Z") == base + 500ms);
  CHECK(parse_rfc3339_nano("2026-11-30T04:38:08.000000001+01:00") == base + 1ns);
  CHECK(parse_rfc3339_nano("2026-11-29T22:08:08-05:30") == base);
  CHECK(parse_rfc3339_nano("1970-01-01T00:00:00Z") == Timestamp{});
  CHECK(parse_rfc3339_nano("2024-02-29T00:00:00Z") == Timestamp{sys_days{2024y / February / 29}});
  CHECK(parse_rfc3339_nano("2026-05-07T21:09:36.000000000+00:00") ==
        sys_days{2026y / May / 7} + 21h + 9min + 36s);
  CHECK_FALSE(parse_rfc3339_nano("0001-01-01T00:00:00Z").has_value());  // never started
  for (const char* bad : {"", "2026-11-30", "2026-11-30 03:38:08Z", "2026-11-30T03:38:08",
                          "2026-11-30T03:38:08.Z", "2026-11-30T03:38:08.1234567890Z", "2026-13-01T00:00:00Z",
                          "2026-02-30T00:00:00Z", "2026-11-30T24:00:00Z", "2026-11-30T03:38:08Zjunk",
                          "2026-11-30T03:38:08+0100", "0001-01-01T00:00:01Z", "2026-11-3OT03:38:08Z"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_rfc3339_nano(bad), DockerError);
  }
  CHECK_THROWS_WITH_AS(parse_rfc3339_nano("yesterday"),
                       "docker: timestamp 'yesterday' is not RFC 3339 (expected e.g. "
                       "2026-11-30T03:38:08.103801088Z)",
                       DockerError);
}

// ---- tar, docker save ---------------------------------------------------------------

namespace {

struct Entry {
  std::string name;
  char type;
  std::uint32_t mode;
  std::string data;
};

std::uint64_t octal(std::string_view field) {
  std::uint64_t v = 0;
  for (char c : field) {
    if (c < '0' || c > '7') break;
    v = v * 8 + static_cast<std::uint64_t>(c - '0');
  }
  return v;
}

// A small ustar reader, enough to check what tar_archive writes.
std::vector<Entry> read_tar(const std::string& tar) {
  std::vector<Entry> entries;
  REQUIRE(tar.size() % 512 == 0);
  std::size_t pos = 0;
  while (pos + 512 <= tar.size()) {
    std::string_view h(tar.data() + pos, 512);
    if (h.find_first_not_of('\0') == std::string_view::npos) break;
    unsigned sum = 0;
    for (std::size_t i = 0; i < 512; ++i) {
      sum += (i >= 148 && i < 156) ? ' ' : static_cast<unsigned char>(h[i]);
    }
    REQUIRE(octal(h.substr(148, 8)) == sum);
    REQUIRE(h.substr(257, 6) == std::string_view("ustar\0", 6));
    REQUIRE(octal(h.substr(116, 8)) == 0);        // uid
    REQUIRE(octal(h.substr(124 + 12, 12)) == 0);  // mtime
    std::string name(h.substr(0, 100).data());
    name = name.substr(0, std::min<std::size_t>(name.size(), 100));
    std::string prefix(h.substr(345, 155).data());
    prefix = prefix.substr(0, std::min<std::size_t>(prefix.size(), 155));
    if (!prefix.empty()) name = prefix + "/" + name;
    const std::size_t size = octal(h.substr(124, 12));
    entries.push_back(
        {name, h[156], static_cast<std::uint32_t>(octal(h.substr(100, 8))), tar.substr(pos + 512, size)});
    pos += 512 + (size + 511) / 512 * 512;
  }
  REQUIRE(tar.size() - pos == 1024);  // two zero blocks end the archive
  return entries;
}

}  // namespace

TEST_CASE("api: tar_archive is sorted, adds parents and is deterministic") {
  const std::vector<TarFile> files = {{"/probe",
                                       "\x7f"
                                       "ELF...",
                                       0755},
                                      {"etc/passwd", "nobody:x:65534:65534::/:/probe\n", 0644},
                                      {"/etc/group", "nogroup:x:65534:\n", 0644}};
  const std::string tar = tar_archive(files);
  const auto entries = read_tar(tar);
  REQUIRE(entries.size() == 4);
  CHECK(entries[0].name == "etc/");
  CHECK(entries[0].type == '5');
  CHECK(entries[0].mode == 0755);
  CHECK(entries[1].name == "etc/group");
  CHECK(entries[2].name == "etc/passwd");
  CHECK(entries[2].type == '0');
  CHECK(entries[2].mode == 0644);
  CHECK(entries[2].data == "nobody:x:65534:65534::/:/probe\n");
  CHECK(entries[3].name == "probe");
  CHECK(entries[3].mode == 0755);
  CHECK(tar.size() == 512 * (4 + 3) + 1024);
  const std::vector<TarFile> shuffled = {files[2], files[0], files[1]};
  CHECK(tar_archive(shuffled) == tar);
}

TEST_CASE("api: tar_archive long names and bad paths") {
  const std::string dir(120, 'd');
  const auto entries = read_tar(tar_archive({{dir + "/file", "x", 0600}}));
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].name == dir + "/");
  CHECK(entries[1].name == dir + "/file");
  CHECK(entries[1].mode == 0600);
  CHECK_THROWS_WITH_AS(tar_archive({{"../etc/x", "", 0644}}), "image file path '../etc/x' contains '..'",
                       DockerError);
  CHECK_THROWS_WITH_AS(tar_archive({{"/", "", 0644}}), "image file path '/' is empty", DockerError);
  CHECK_THROWS_WITH_AS(tar_archive({{"/a", "", 0644}, {"a", "", 0644}}), "image file path 'a' is given twice",
                       DockerError);
  CHECK_THROWS_WITH_AS(tar_archive({{"/a", "", 0644}, {"a/b", "", 0644}}),
                       "image file path 'a' is also a directory", DockerError);
  CHECK_THROWS_AS(tar_archive({{std::string(300, 'x'), "", 0644}}), DockerError);
}

TEST_CASE("api: docker_save_tar writes manifest, config and layer") {
  const std::vector<TarFile> files = {{"/probe", "binary", 0755}};
  const noisefloor::docker::ImageConfig config{.entrypoint = {"/probe"},
                                               .labels = {{"noisefloor.test", "1"}}};
  const std::string tar = docker_save_tar("noisefloor-probe:1", files, config);
  CHECK(tar == docker_save_tar("noisefloor-probe:1", files, config));
  const auto entries = read_tar(tar);
  REQUIRE(entries.size() == 4);
  const std::string layer = tar_archive(files);
  const std::string layer_dir = noisefloor::hash::sha256_hex(layer);
  const auto config_it = std::find_if(entries.begin(), entries.end(), [](const Entry& e) {
    return e.name != "manifest.json" && e.name.size() == 64 + 5 && e.name.ends_with(".json");
  });
  REQUIRE(config_it != entries.end());
  const Entry& config_entry = *config_it;
  const std::string config_hex = noisefloor::hash::sha256_hex(config_entry.data);
  CHECK(config_entry.name == config_hex + ".json");
  CHECK(docker_save_image_id(files, config) == "sha256:" + config_hex);
  const auto found = [&](const std::string& name) {
    return std::find_if(entries.begin(), entries.end(), [&](const Entry& e) { return e.name == name; });
  };
  REQUIRE(found(layer_dir + "/") != entries.end());
  REQUIRE(found(layer_dir + "/layer.tar") != entries.end());
  CHECK(found(layer_dir + "/layer.tar")->data == layer);
  REQUIRE(found("manifest.json") != entries.end());
  CHECK(json::parse(found("manifest.json")->data) == json::array({{{"Config", config_hex + ".json"},
                                                                   {"RepoTags", {"noisefloor-probe:1"}},
                                                                   {"Layers", {layer_dir + "/layer.tar"}}}}));
  const json image = json::parse(config_entry.data);
  CHECK(image["config"] == json{{"Entrypoint", {"/probe"}}, {"Labels", {{"noisefloor.test", "1"}}}});
  CHECK(image["os"] == "linux");
  CHECK(image["created"] == "1970-01-01T00:00:00Z");
  CHECK(image["rootfs"] == json{{"type", "layers"}, {"diff_ids", {"sha256:" + layer_dir}}});
  CHECK_THROWS_WITH_AS(docker_save_tar("Bench:1", files, config),
                       "image name 'Bench:1' is not a lower-case reference (expected e.g. "
                       "noisefloor-bench:1)",
                       DockerError);
}

TEST_CASE("gc: a living run's containers are kept, orphans removed, unknown owners kept while a run lives") {
  const json listed =
      json::array({{{"Id", "aaaaaaaaaaaaaaaa"},
                    {"Names", {"/nf-r1-pinned-2"}},
                    {"State", "running"},
                    {"Labels", {{"noisefloor.run", "r1"}, {"noisefloor.owner", "root@box pid 7"}}}},
                   {{"Id", "bbbbbbbbbbbbbbbb"},
                    {"Names", {"/nf-r0-pinned-9"}},
                    {"State", "exited"},
                    {"Labels", {{"noisefloor.run", "r0"}, {"noisefloor.owner", "root@box pid 3"}}}},
                   {{"Id", "cccccccccccccccc"},
                    {"Names", {"/nf-old-x-1"}},
                    {"State", "exited"},
                    {"Labels", {{"noisefloor.run", "old"}}}},
                   {{"Names", {"/no-id"}}}});
  std::vector<RunContainer> all;
  for (const auto& c : listed)
    if (auto r = run_container_of(c)) all.push_back(*r);
  REQUIRE(all.size() == 3);
  CHECK(all[0].name == "nf-r1-pinned-2");
  CHECK(all[0].run == "r1");
  CHECK(all[0].owner == "root@box pid 7");
  CHECK(all[0].state == "running");
  CHECK(all[2].owner.empty());
  const auto names = [](const std::vector<RunContainer>& v) {
    std::vector<std::string> out;
    for (const auto& c : v) out.push_back(c.run);
    return out;
  };
  // pid 7 holds the lease: its container stays, and so does the one of unknown owner.
  GcPlan alive = plan_gc(all, std::string("root@box pid 7"));
  CHECK(names(alive.keep) == std::vector<std::string>{"r1", "old"});
  CHECK(names(alive.remove) == std::vector<std::string>{"r0"});
  // Nobody holds the lease: every one is an orphan.
  GcPlan none = plan_gc(all, std::nullopt);
  CHECK(none.keep.empty());
  CHECK(names(none.remove) == std::vector<std::string>{"r1", "r0", "old"});
}

TEST_CASE("api: gc and machine-facts containers: a dead owner's removed, a doctor's kept while it runs") {
  using nlohmann::json;
  const auto facts = [](const char* id, const char* state, const char* owner) {
    json labels = {{"noisefloor.role", "facts"}};
    if (*owner) labels["noisefloor.owner"] = owner;
    return json{
        {"Id", id}, {"Names", {std::string("/nf-facts-") + id}}, {"State", state}, {"Labels", labels}};
  };
  std::vector<RunContainer> all;
  for (const json& c : {facts("a1", "exited", "root@box pid 7"), facts("b2", "running", "root@box pid 3"),
                        facts("c3", "running", ""), facts("d4", "exited", ""), facts("e5", "created", "")})
    all.push_back(run_container_of(c).value());
  CHECK(all[0].facts);
  CHECK(all[0].run.empty());
  const auto ids = [](const std::vector<RunContainer>& v) {
    std::string out;
    for (const auto& c : v) out += c.id + " ";
    return out;
  };
  // pid 7 holds the lease: its facts container stays; pid 3's is a dead run's, even running; a
  // running one of no owner is a doctor reading the machine now; a stopped one of no owner is a
  // killed doctor's.
  const GcPlan held = plan_gc(all, std::string("root@box pid 7"));
  CHECK(ids(held.keep) == "a1 ");
  CHECK(ids(held.reading) == "c3 ");
  CHECK(ids(held.remove) == "b2 d4 e5 ");
  const GcPlan free = plan_gc(all, std::nullopt);
  CHECK(free.keep.empty());
  CHECK(ids(free.reading) == "c3 ");
  CHECK(ids(free.remove) == "a1 b2 d4 e5 ");
  // A container of a run is no facts container.
  CHECK_FALSE(run_container_of(json{{"Id", "f6"}, {"Labels", {{"noisefloor.run", "r"}}}})->facts);
}

TEST_CASE("api: an engine's CPU count is a whole number from 1 to 65536, or the engine's error") {
  // Issue 42, item 6: a string where the number should be ended the run with "internal error";
  // 2^31 would have sized a loop of that many CPUs.
  using nlohmann::json;
  CHECK(engine_cpus(json{{"NCPU", 2}}, "e") == 2);
  CHECK_FALSE(engine_cpus(json::object(), "e").has_value());
  CHECK_FALSE(engine_cpus(json{{"NCPU", nullptr}}, "e").has_value());
  for (const json& lie : {json("2"), json(0), json(-1), json(2147483648LL), json(2.5)})
    CHECK_THROWS_WITH_AS(
        engine_cpus(json{{"NCPU", lie}}, "tcp://h:2375"),
        doctest::Contains("not a number of CPUs from 1 to 65536: is tcp://h:2375 a Docker engine?"),
        DockerError);
}

// ---- reading answers --------------------------------------------------------------------------

namespace {
json captured(const std::string& name) {
  std::ifstream in(std::string(NF_TEST_DATA_DIR) + "/fingerprint/engine/" + name);
  REQUIRE_MESSAGE(in.good(), "cannot read " << name);
  return json::parse(in);
}
}  // namespace

TEST_CASE("api: a container's answers as Docker 20.10 gave them (captured)") {
  const Created created = created_of(captured("docker-20.10-create.json"));
  CHECK(created.id == "f1b62ed4192d90fdb5556e0f25ba27e2f30e742e4645f0e26771fe90f3c46437");
  CHECK(created.warnings.empty());
  CHECK(wait_status(captured("docker-20.10-wait.json"), "f1b62ed4192d") == 127);  // "Error": null
  const ContainerState state = container_state(captured("docker-20.10-inspect.json"));
  CHECK(state.id == created.id);
  CHECK(state.image == "sha256:3ee8c425eabfa66a8b5c239b86f9006b0ac9b40121a66aa6e113bf6164f7dbd9");
  CHECK(state.status == "exited");
  CHECK(state.started_at == "2026-12-05T03:57:32.098625559Z");
  CHECK_FALSE(state.running);
  CHECK_FALSE(state.oom_killed);
  CHECK_FALSE(state.tty);
  CHECK(state.pid == 0);
  CHECK(state.labels.at("noisefloor.run") == "capture");
  // the exited container's stats: Go's zero time, zeros: no reading
  CHECK_FALSE(cpu_seconds_of(captured("docker-20.10-stats.json")).has_value());
  const json listed = captured("docker-20.10-list.json");
  REQUIRE(listed.size() == 1);
  const auto c = run_container_of(listed[0]);
  REQUIRE(c.has_value());
  CHECK(c->id == created.id);
  CHECK(c->name == "nf-capture");
  CHECK(c->run == "capture");
  CHECK(c->state == "exited");
}

TEST_CASE("api: an answer of the wrong shape reads as absent, never as an exception of the parser") {
  // Issue 42, item 6: value() threw nlohmann's type_error for these, and the run ended with
  // "internal error".
  const json lying = json::parse(R"({"Id": 5, "Image": ["x"], "State": {"OOMKilled": "yes", "Running": 1,
      "Pid": 1e30, "StartedAt": 7, "Status": null}, "Config": {"Tty": "true", "Labels": {"a": 1, "b": "2"}}})");
  const ContainerState state = container_state(lying);
  CHECK(state.id.empty());
  CHECK(state.image.empty());
  CHECK_FALSE(state.oom_killed);
  CHECK_FALSE(state.running);
  CHECK(state.pid == 0);
  CHECK(state.started_at.empty());
  CHECK_FALSE(state.tty);
  CHECK(state.labels == std::map<std::string, std::string>{{"b", "2"}});
  CHECK(container_state(json::array()).id.empty());
  CHECK(container_state(json::parse(R"({"State": {"Pid": 4294967296}})")).pid == 0);  // not a pid
  CHECK(container_state(json::parse(R"({"State": {"Pid": -5}})")).pid == 0);
  CHECK(container_state(json::parse(R"({"State": {"Pid": 4242}})")).pid == 4242);

  CHECK_THROWS_WITH_AS(created_of(json::parse(R"({"Id": 5})")),
                       "docker: POST /containers/create: 201 without an Id", DockerError);
  CHECK_THROWS_AS(created_of(json::array()), DockerError);
  CHECK(created_of(json::parse(R"({"Id": "abc", "Warnings": [1, "", "swap"]})")).warnings ==
        std::vector<std::string>{"swap"});

  CHECK_THROWS_WITH_AS(wait_status(json::parse(R"({"Error": {"Message": "gone"}, "StatusCode": 0})"), "c1"),
                       "docker: POST /containers/c1/wait: gone", DockerError);
  CHECK_THROWS_WITH_AS(
      wait_status(json::parse(R"({"Error": {"Message": 5}, "StatusCode": "0"})"), "c1"),
      R"(docker: POST /containers/c1/wait: no StatusCode in '{"Error":{"Message":5},"StatusCode":"0"}')",
      DockerError);
  CHECK_THROWS_AS(wait_status(json::parse(R"({"StatusCode": 18446744073709551615})"), "c1"), DockerError);
  CHECK(wait_status(json::parse(R"({"StatusCode": 137})"), "c1") == 137);

  CHECK_FALSE(
      cpu_seconds_of(json::parse(R"({"cpu_stats": {"cpu_usage": {"total_usage": "1"}}})")).has_value());
  CHECK_FALSE(cpu_seconds_of(json::parse(R"({"cpu_stats": []})")).has_value());
  CHECK(cpu_seconds_of(
            json::parse(R"({"read": 0, "cpu_stats": {"cpu_usage": {"total_usage": 2500000000}}})")) == 2.5);

  const std::vector<json> events{
      json::parse(R"({"Action": 1, "Actor": {"ID": "0123456789ab"}})"),
      json::parse(R"({"status": "oom", "Actor": {"ID": 7}, "id": "0123456789abcd"})")};
  CHECK(oom_event_among(events, "0123456789ab"));
  CHECK_FALSE(oom_event_among(events, "fedcba"));
  CHECK_FALSE(oom_event_among(events, ""));

  const json listed =
      json::parse(R"({"Id": "abc", "Names": [7], "Labels": {"noisefloor.run": 1}, "State": 3})");
  const auto c = run_container_of(listed);
  REQUIRE(c.has_value());
  CHECK(c->name.empty());
  CHECK(c->run.empty());
  CHECK(c->state.empty());
  CHECK_FALSE(run_container_of(json::parse(R"({"Id": 5})")).has_value());
}
