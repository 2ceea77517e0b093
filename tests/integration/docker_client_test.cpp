// Docker Engine client against the real engine (every test case name contains "docker", so
// tests/integration/main.cpp can skip them when no engine answers). There is no registry: the
// image is a static C program compiled here and loaded with a hand-made `docker save` tarball.
#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>

#include "docker/api.hpp"
#include "docker/client.hpp"
#include "docker/container.hpp"
#include "skip.hpp"

using namespace noisefloor::docker;
using nlohmann::json;

namespace {

constexpr const char* kProbeImage = "noisefloor-test-probe:1";

const char* const kProbeSource = R"(
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char** argv) {
  if (argc < 3) { fprintf(stderr, "usage: probe exit|streams|sleep|alloc N\n"); return 2; }
  const char* mode = argv[1];
  long n = atol(argv[2]);
  if (!strcmp(mode, "exit")) {
    const char* a = getenv("NF_A");
    printf("out-line-1 %s\n", a ? a : "-");
    fflush(stdout);
    fprintf(stderr, "err-line-1\n");
    return (int)n;
  }
  if (!strcmp(mode, "streams")) {
    for (long i = 0; i < n; ++i) {
      printf("out %ld\n", i);
      fflush(stdout);
      fprintf(stderr, "err %ld\n", i);
    }
    static char big[100001];
    memset(big, 'x', 100000);
    big[100000] = '\n';
    fwrite(big, 1, sizeof big, stdout);
    fflush(stdout);
    return 0;
  }
  if (!strcmp(mode, "sleep")) { sleep((unsigned)n); return 0; }
  if (!strcmp(mode, "alloc")) {
    usleep(500000);  /* the engine's OOM watcher registers after start: an OOM in the first
                        milliseconds is missed (seen on 20.10, cgroup v1) */
    for (long i = 0; i < n; ++i) {
      char* p = malloc(1 << 20);
      if (!p) return 3;
      memset(p, 1, 1 << 20);
    }
    puts("survived");
    return 0;
  }
  return 2;
}
)";

Client& client() {
  static Client c = Client::from_environment();
  return c;
}

std::string unique(const std::string& what) {
  static int n = 0;
  return "nf-test-" + std::to_string(::getpid()) + "-" + what + "-" + std::to_string(++n);
}

std::vector<TarFile> probe_files() {
  static std::vector<TarFile> files = [] {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("nf-docker-probe-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "probe.c") << kProbeSource;
    const std::string cmd =
        "gcc -static -O2 -o '" + (dir / "probe").string() + "' '" + (dir / "probe.c").string() + "' 2>&1";
    REQUIRE_MESSAGE(std::system(cmd.c_str()) == 0, "cannot compile the static probe: " << cmd);
    std::ifstream in(dir / "probe", std::ios::binary);
    std::string binary((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::filesystem::remove_all(dir);
    return std::vector<TarFile>{{"/probe", binary, 0755}};
  }();
  return files;
}

const ImageConfig& probe_config() {
  static const ImageConfig config{.entrypoint = {"/probe"}, .labels = {{"noisefloor.test", "1"}}};
  return config;
}

const std::string& probe_image() {
  static const std::string image = [] {
    const std::string loaded =
        client().load_image(docker_save_tar(kProbeImage, probe_files(), probe_config()));
    REQUIRE(loaded == kProbeImage);
    return loaded;
  }();
  return image;
}

ContainerRequest probe_request(std::vector<std::string> args, double timeout_seconds = 120) {
  ContainerRequest r;
  r.image = probe_image();
  r.argv = {"/probe"};
  r.argv.insert(r.argv.end(), args.begin(), args.end());
  r.name = unique(args.front());
  r.labels = {{"noisefloor.test", "1"}, {"noisefloor.run", r.name}};
  r.timeout = std::chrono::duration<double>(timeout_seconds);
  return r;
}

bool gone(const std::string& run_label) { return client().list_by_label(run_label).empty(); }

const std::function<bool()> kNever = [] { return false; };

}  // namespace

TEST_CASE("docker: api version negotiated with the engine") {
  Client& c = client();
  CHECK_NOTHROW(c.ping());
  const json version = c.version();
  const std::string engine = version.at("ApiVersion").get<std::string>();
  const std::string expected =
      *parse_api_version(engine) < *parse_api_version(kMaxApiVersion) ? engine : std::string(kMaxApiVersion);
  CHECK(c.api_version() == expected);
  CHECK(c.api_version() == expected);  // cached
  CHECK(c.info().at("NCPU").get<int>() >= 1);

  Client fixed(c.endpoint(), std::string("v1.41"));
  CHECK(fixed.api_version() == "1.41");
  Client too_new(c.endpoint(), std::string("1.99"));
  try {
    too_new.ping();  // unversioned: fine
    too_new.info();
    FAIL("an engine accepted API 1.99");
  } catch (const DockerError& e) {
    const std::string what = e.what();
    CHECK(what.rfind("docker: GET /version: 400: client version 1.99 is too new", 0) == 0);
    CHECK(what.ends_with("(the version comes from DOCKER_API_VERSION)"));
  }
}

TEST_CASE("docker: an unreachable engine is one clear line") {
  Client c(endpoint_from_environment([](const std::string& name) -> std::optional<std::string> {
             if (name == "DOCKER_HOST") return "unix:///nonexistent.sock";
             return std::nullopt;
           }),
           std::nullopt);
  CHECK_THROWS_WITH_AS(c.ping(),
                       "cannot reach the Docker engine at unix:///nonexistent.sock: no such file or "
                       "directory \u2014 is dockerd (or `podman system service`) running? set DOCKER_HOST",
                       DockerError);
  CHECK_THROWS_WITH_AS(c.info(),
                       "cannot reach the Docker engine at unix:///nonexistent.sock: no such file or "
                       "directory \u2014 is dockerd (or `podman system service`) running? set DOCKER_HOST",
                       DockerError);
}

TEST_CASE("docker: engine errors are surfaced with the request") {
  Client& c = client();
  ContainerRequest r = probe_request({"exit", "0"});
  r.image = "noisefloor-nosuch:1";
  CHECK_THROWS_WITH_AS(c.create_container(create_body(r), r.name),
                       "docker: POST /containers/create: 404: No such image: noisefloor-nosuch:1",
                       DockerError);
  CHECK_FALSE(c.image_inspect("noisefloor-nosuch:1").has_value());
  CHECK_THROWS_WITH_AS(c.inspect("nf-test-nosuch"),
                       "docker: GET /containers/nf-test-nosuch/json: 404: No such container: nf-test-nosuch",
                       DockerError);
  CHECK_NOTHROW(c.remove("nf-test-nosuch"));  // already gone counts as removed
  // an error streamed inside a 200
  CHECK_THROWS_WITH_AS(c.load_image("garbage\n"),
                       "docker: POST /images/load: Error processing tar file(exit status 1): "
                       "unexpected EOF",
                       DockerError);
}

TEST_CASE("docker: load_image makes a runnable image offline, deterministically") {
  const std::string& image = probe_image();
  CHECK(client().load_image(docker_save_tar(kProbeImage, probe_files(), probe_config())) == image);
  const auto inspected = client().image_inspect(image);
  REQUIRE(inspected.has_value());
  CHECK(inspected->at("Id") == docker_save_image_id(probe_files(), probe_config()));
  CHECK(inspected->at("Created").get<std::string>().rfind("1970-01-01T00:00:00", 0) == 0);
  CHECK(inspected->at("RepoTags") == json::array({kProbeImage}));
}

TEST_CASE("docker: container lifecycle create/start/wait/inspect/logs/remove") {
  ContainerRequest r = probe_request({"exit", "3"});
  r.env = {{"NF_A", "from-benchmark"}};
  r.spec.env = {{"NF_A", "from-condition"}};
  r.spec.memory = 64 << 20;
  r.spec.cpuset = "0";
  r.spec.cpus = 0.5;
  const ContainerOutcome o = run_container(client(), r, kNever);
  CHECK(o.exit_code == 3);
  CHECK_FALSE(o.oom_killed);
  CHECK_FALSE(o.timed_out);
  CHECK(o.out == "out-line-1 from-condition\n");
  CHECK(o.err == "err-line-1\n");
  CHECK(o.inspect.at("State").at("ExitCode") == 3);
  CHECK(o.inspect.at("Name") == "/" + r.name);
  CHECK(o.inspect.at("HostConfig").at("CpusetCpus") == "0");
  CHECK(o.inspect.at("HostConfig").at("NanoCpus") == 500000000);
  CHECK(o.inspect.at("HostConfig").at("Memory") == 64 << 20);
  CHECK(o.inspect.at("HostConfig").at("MemorySwap") == 64 << 20);
  CHECK(o.inspect.at("HostConfig").at("ReadonlyRootfs") == true);
  CHECK(o.inspect.at("Config").at("Labels").at("noisefloor.run") == r.name);
  INFO("state: " << o.inspect.at("State").dump());
  const auto started = parse_rfc3339_nano(o.started_at);
  const auto finished = parse_rfc3339_nano(o.finished_at);
  // both set; but FinishedAt can precede StartedAt for a process this short (the engine records
  // StartedAt after the process began), so their order is not checked
  REQUIRE(started.has_value());
  REQUIRE(finished.has_value());
  CHECK(gone("noisefloor.run=" + r.name));
  CHECK_FALSE(client().oom_event(
      o.inspect.at("Id"), std::chrono::floor<std::chrono::seconds>(*started).time_since_epoch().count() - 1,
      std::chrono::floor<std::chrono::seconds>(*finished).time_since_epoch().count() + 1));
}

TEST_CASE("docker: logs of both streams arrive split into frames, demultiplexed") {
  const ContainerOutcome o = run_container(client(), probe_request({"streams", "300"}), kNever);
  CHECK(o.exit_code == 0);
  std::string out, err;
  for (int i = 0; i < 300; ++i) {
    out += "out " + std::to_string(i) + "\n";
    err += "err " + std::to_string(i) + "\n";
  }
  out += std::string(100000, 'x') + "\n";  // json-file splits it into 16 KiB entries
  CHECK(o.out.size() == out.size());
  CHECK(o.out == out);
  CHECK(o.err == err);
}

TEST_CASE("docker: a TTY container's log is raw") {
  Client& c = client();
  ContainerRequest r = probe_request({"exit", "0"});
  json body = create_body(r);
  body["Tty"] = true;
  const auto created = c.create_container(body, r.name);
  ContainerGuard guard(c, created.id);
  c.start(created.id);
  CHECK(c.wait(created.id, std::chrono::steady_clock::now() + std::chrono::seconds(60), kNever) == 0);
  CHECK(c.inspect(created.id).at("Config").at("Tty") == true);
  const auto logs = c.logs(created.id, true);
  CHECK(logs.out == "out-line-1 -\r\nerr-line-1\r\n");
  CHECK(logs.err.empty());
  guard.remove();
  CHECK(gone("noisefloor.run=" + r.name));
}

TEST_CASE("docker: create warnings are an error and leave nothing behind") {
  // On API 1.41 engines KernelMemory is accepted with a warning (deprecated, or dropped on
  // kernels without kmem accounting); later engines ignore it silently.
  Client& c = client();
  if (c.api_version() != "1.41") {
    noisefloor::testing::skip("no way to provoke a create warning on API " + c.api_version());
    return;
  }
  ContainerRequest r = probe_request({"exit", "0"});
  json body = create_body(r);
  body["HostConfig"]["KernelMemory"] = 64 << 20;
  try {
    run_container(c, body, r.name, r.timeout, kNever);
    FAIL("no create warning for KernelMemory");
  } catch (const DockerError& e) {
    const std::string prefix = "docker: POST /containers/create: container '" + r.name +
                               "' has warnings, so its limits may not apply: ";
    CHECK(std::string(e.what()).rfind(prefix, 0) == 0);
    CHECK(std::string(e.what()).find("kernel memory") != std::string::npos);
  }
  CHECK(gone("noisefloor.run=" + r.name));
}

TEST_CASE("docker: out of memory is detected") {
  ContainerRequest r = probe_request({"alloc", "200"});
  r.spec.memory = 16 << 20;
  const ContainerOutcome o = run_container(client(), r, kNever);
  INFO("state: " << o.inspect.at("State").dump());
  CHECK(o.oom_killed);
  CHECK(o.exit_code == 137);
  CHECK_FALSE(o.timed_out);
  CHECK(o.out.find("survived") == std::string::npos);
  CHECK(gone("noisefloor.run=" + r.name));
  // The event log usually says so as well (it outlives the container), but the engine misses
  // some OOM events on this kernel (seen here: OOMKilled set, no "oom" event): that is why the
  // product checks both. Exercise the query; only warn when the event is missing.
  const auto started = parse_rfc3339_nano(o.started_at);
  const auto finished = parse_rfc3339_nano(o.finished_at);
  REQUIRE(started.has_value());
  REQUIRE(finished.has_value());
  WARN(client().oom_event(
      o.inspect.at("Id"), std::chrono::floor<std::chrono::seconds>(*started).time_since_epoch().count() - 1,
      std::chrono::floor<std::chrono::seconds>(*finished).time_since_epoch().count() + 2));
}

TEST_CASE("docker: a timeout kills the container and removes it") {
  ContainerRequest r = probe_request({"sleep", "120"}, 1.0);
  const ContainerOutcome o = run_container(client(), r, kNever);
  CHECK(o.timed_out);
  CHECK(o.exit_code == 137);
  CHECK_FALSE(o.oom_killed);
  CHECK(o.inspect.at("State").at("Running") == false);
  CHECK(gone("noisefloor.run=" + r.name));
}

TEST_CASE("docker: cancellation kills, removes and throws Interrupted") {
  ContainerRequest r = probe_request({"sleep", "120"});
  int polls = 0;
  const std::function<bool()> cancelled = [&] { return ++polls > 2; };  // after start, during wait
  CHECK_THROWS_AS(run_container(client(), r, cancelled), noisefloor::Interrupted);
  CHECK(polls > 2);
  CHECK(gone("noisefloor.run=" + r.name));
}

TEST_CASE("docker: start failure leaves nothing behind") {
  ContainerRequest r = probe_request({"exit", "0"});
  r.argv = {"/nonexistent"};
  try {
    run_container(client(), r, kNever);
    FAIL("a container with a missing entrypoint started");
  } catch (const DockerError& e) {
    CHECK(std::string(e.what()).rfind("docker: POST /containers/", 0) == 0);
    CHECK(std::string(e.what()).find("/nonexistent") != std::string::npos);
  }
  CHECK(gone("noisefloor.run=" + r.name));
}

TEST_CASE("docker: ContainerGuard removes on scope exit") {
  ContainerRequest r = probe_request({"sleep", "120"});
  {
    const auto created = client().create_container(create_body(r), r.name);
    ContainerGuard guard(client(), created.id);
    client().start(created.id);
    ContainerGuard moved(std::move(guard));
    CHECK(guard.id().empty());
    CHECK(moved.id() == created.id);
    CHECK_FALSE(gone("noisefloor.run=" + r.name));
  }
  CHECK(gone("noisefloor.run=" + r.name));
}

// A container the engine removes itself (AutoRemove: the spinners, the lease) is often being
// removed when noisefloor removes it (409 "removal ... already in progress"): remove() returns
// only once it is gone, or a run's last check, and the user's, still lists it. Ten containers,
// each killed and removed right after: the engine's own removal races ours (before the fix,
// remove() returned with the container still "removing", 10 of 10 here).
TEST_CASE("docker: remove waits out the engine's own removal") {
  for (int i = 0; i < 10; ++i) {
    ContainerRequest r = probe_request({"sleep", "120"});
    r.auto_remove = true;
    const auto created = client().create_container(create_body(r), r.name);
    client().start(created.id);
    client().kill(created.id);
    client().remove(created.id);
    const auto left = client().inspect_if_exists(created.id);
    INFO("after remove: " << (left ? left->at("State").dump() : "gone"));
    CHECK_FALSE(left.has_value());
  }
}

TEST_CASE("docker: list and remove by label") {
  Client& c = client();
  const std::string batch = unique("batch");
  std::set<std::string> expected;
  for (int i = 0; i < 2; ++i) {
    ContainerRequest r = probe_request({"sleep", "120"});
    r.labels["noisefloor.batch"] = batch;
    const auto created = c.create_container(create_body(r), r.name);
    expected.insert(created.id.substr(0, 12) + " " + r.name);
    if (i == 0) c.start(created.id);  // one running, one created: both must go
  }
  const auto listed = c.list_by_label("noisefloor.batch=" + batch);
  CHECK(listed.size() == 2);
  CHECK(c.list_by_label("noisefloor.batch").size() >= 2);  // key only: exists
  const auto removed = remove_labelled(c, "noisefloor.batch=" + batch);
  CHECK(std::set<std::string>(removed.begin(), removed.end()) == expected);
  CHECK(c.list_by_label("noisefloor.batch=" + batch).empty());
  CHECK(remove_labelled(c, "noisefloor.batch=" + batch).empty());
}
