// engine_facts over the captured GET /version and GET /info of a docker 20.10 engine
// (tests/data/fingerprint/engine/) and over hand-made objects with missing and mistyped fields.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fingerprint/doctor.hpp"
#include "fingerprint/engine.hpp"

namespace fp = noisefloor::fingerprint;
using nlohmann::json;

namespace {

json load(const std::string& name) {
  const auto path = std::filesystem::path(NF_TEST_DATA_DIR) / "fingerprint" / "engine" / name;
  std::ifstream in(path);
  REQUIRE_MESSAGE(in, "cannot open " << path);
  std::stringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str());
}

}  // namespace

TEST_CASE("engine_facts: a captured docker 20.10 engine") {
  const json facts = fp::engine_facts(load("version-20.10.json"), load("info-20.10.json"),
                                      "unix:///var/run/docker.sock", "1.41");
  // The recorded form reads back as the same value.
  CHECK(facts.get<fp::EngineFacts>() == fp::engine_facts(load("version-20.10.json"), load("info-20.10.json"),
                                                         "unix:///var/run/docker.sock", "1.41"));
  const json expected = {{"endpoint", "unix:///var/run/docker.sock"},
                         {"server_version", "20.10.24+dfsg1"},
                         {"api_version", "1.41"},
                         {"min_api_version", "1.12"},
                         {"os", "Debian GNU/Linux 12 (bookworm)"},
                         {"os_type", "linux"},
                         {"architecture", "x86_64"},
                         {"kernel", "6.18.44-fc-v669"},
                         {"ncpu", 2},
                         {"mem_total", 25276502016},
                         {"cgroup_version", "1"},
                         {"cgroup_driver", "cgroupfs"},
                         {"storage_driver", "vfs"},
                         {"default_runtime", "runc"},
                         {"components",
                          {{"Engine", "20.10.24+dfsg1"},
                           {"containerd", "1.6.20~ds1"},
                           {"runc", "1.1.5+ds1"},
                           {"docker-init", "0.19.0"}}},
                         {"security_options", {"name=seccomp,profile=default"}},
                         {"rootless", false},
                         {"product", "Docker"},
                         {"warnings", json::array()},  // the engine sent null
                         {"limits",
                          {{"cpuset", true},
                           {"cpu_cfs_quota", true},
                           {"cpu_cfs_period", true},
                           {"memory_limit", true},
                           {"swap_limit", true}}}};
  CHECK(facts == expected);
}

TEST_CASE("engine_facts: missing, null and mistyped fields never throw") {
  const json version = {{"Version", nullptr}, {"Components", {{{"Version", "1.0"}}, "junk"}}};
  const json info = {{"NCPU", "two"},
                     {"MemTotal", nullptr},
                     {"OperatingSystem", 7},
                     {"CPUSet", false},
                     {"CpuCfsQuota", "yes"},
                     {"Warnings", "not a list"},
                     {"SecurityOptions", {"name=seccomp,profile=default", "name=rootless", 3}}};
  json facts;
  REQUIRE_NOTHROW(facts = json(fp::engine_facts(version, info, "tcp://h:2376", "1.44")));
  CHECK(facts["server_version"] == "");
  CHECK(facts["components"] == json{{"?", "1.0"}});
  CHECK(facts["ncpu"] == 0);
  CHECK(facts["mem_total"] == 0);
  CHECK(facts["os"] == "");
  CHECK(facts["warnings"] == json::array());
  CHECK(facts["security_options"] == json{"name=seccomp,profile=default", "name=rootless"});  // strings only
  CHECK(facts["rootless"] == true);
  CHECK_FALSE(facts.contains("product"));  // neither Docker nor Podman named
  CHECK_FALSE(facts.contains("cgroup_controllers"));
  CHECK(facts["limits"] == json{{"cpuset", false},
                                {"cpu_cfs_quota", nullptr},
                                {"cpu_cfs_period", nullptr},
                                {"memory_limit", nullptr},
                                {"swap_limit", nullptr}});
  CHECK(facts["endpoint"] == "tcp://h:2376");
  CHECK(facts["api_version"] == "1.44");
}

TEST_CASE("engine_facts: not objects at all") {
  const json facts = fp::engine_facts(nullptr, json::array(), "", "");
  CHECK_FALSE(facts.contains("images"));  // only a run adds the images it prepared
  CHECK(facts["server_version"] == "");
  CHECK(facts["components"] == json::object());
  CHECK(facts["security_options"] == json::array());
  CHECK(facts["rootless"] == false);
  CHECK(facts["limits"]["cpuset"].is_null());
}

TEST_CASE("engine_facts: feed diagnose's Docker Desktop and limit checks") {
  json info = load("info-20.10.json");
  info["OperatingSystem"] = "Docker Desktop";
  info["Warnings"] = {"WARNING: No swap limit support"};
  info["SwapLimit"] = false;
  const fp::EngineFacts facts =
      fp::engine_facts(load("version-20.10.json"), info, "unix:///var/run/docker.sock", "1.41");
  const auto r = fp::diagnose(fp::FactTree(), facts, {});  // no host facts: only the engine findings
  int desktop = 0;
  std::vector<std::string> messages;
  for (const auto& f : r.findings) {
    if (f.topic == fp::Topic::docker_desktop) {
      ++desktop;
      CHECK(f.level == fp::Level::warn);
    }
    if (f.topic == fp::Topic::engine_limits) messages.push_back(f.message);
  }
  CHECK(desktop == 1);
  CHECK(messages ==
        std::vector<std::string>{
            "the Docker engine reports SwapLimit=false: it silently drops that limit, so the pinned "
            "container is not limited the way the experiment says",
            "Docker engine: WARNING: No swap limit support"});
  CHECK(r.grade == fp::Grade::limited);
}

// Podman 4.3's Docker API (captured: tests/data/fingerprint/engine/README.md).
TEST_CASE("engine_facts: Podman rootful and rootless, from its libpod info") {
  const json rootful_libpod = load("podman-4.3-rootful-libpod-info.json");
  const fp::EngineFacts rootful =
      fp::engine_facts(load("podman-4.3-rootful-version.json"), load("podman-4.3-rootful-info.json"),
                       "unix:///run/podman/podman.sock", "1.41", &rootful_libpod);
  CHECK(fp::is_podman(load("podman-4.3-rootful-version.json")));
  CHECK_FALSE(fp::is_podman(load("version-20.10.json")));
  CHECK(rootful.product == "Podman");
  CHECK(rootful.server_version == "4.3.1");
  CHECK_FALSE(rootful.rootless);
  REQUIRE(rootful.cgroup_controllers);
  CHECK(*rootful.cgroup_controllers == std::vector<std::string>{"cpuset", "cpu", "cpuacct", "blkio", "memory",
                                                                "devices", "freezer", "pids"});
  CHECK(rootful.limits.cpuset == true);
  CHECK(rootful.limits.cpu_cfs_quota == true);
  CHECK(rootful.limits.memory_limit == true);
  // The recorded form reads back as the same value.
  CHECK(json(rootful).get<fp::EngineFacts>() == rootful);

  // Rootless on cgroup v1: /info claims every limit and no rootless option; the libpod info says
  // rootless with no controller, and that decides.
  const json rootless_info = load("podman-4.3-rootless-info.json");
  CHECK(rootless_info["CPUSet"] == true);
  CHECK(rootless_info["MemoryLimit"] == true);
  const json rootless_libpod = load("podman-4.3-rootless-libpod-info.json");
  const fp::EngineFacts rootless =
      fp::engine_facts(load("podman-4.3-rootless-version.json"), rootless_info,
                       "unix:///run/user/1001/podman/podman.sock", "1.41", &rootless_libpod);
  CHECK(rootless.rootless);
  REQUIRE(rootless.cgroup_controllers);
  CHECK(rootless.cgroup_controllers->empty());
  CHECK(rootless.limits.cpuset == false);
  CHECK(rootless.limits.cpu_cfs_quota == false);
  CHECK(rootless.limits.cpu_cfs_period == false);
  CHECK(rootless.limits.memory_limit == false);
  CHECK(rootless.limits.swap_limit == false);
  // Without the libpod info (an engine that would not answer it) nothing is assumed beyond /info.
  const fp::EngineFacts blind =
      fp::engine_facts(load("podman-4.3-rootless-version.json"), rootless_info, "", "");
  CHECK_FALSE(blind.rootless);
  CHECK_FALSE(blind.cgroup_controllers);
  CHECK(blind.product == "Podman");
}

TEST_CASE("unenforced_limit: a limit rootless Podman would drop is refused, with why and what works") {
  const json libpod = load("podman-4.3-rootless-libpod-info.json");
  const fp::EngineFacts rootless = fp::engine_facts(load("podman-4.3-rootless-version.json"),
                                                    load("podman-4.3-rootless-info.json"), "", "", &libpod);
  noisefloor::model::ContainerSpec spec;
  CHECK_FALSE(
      fp::unenforced_limit(rootless, spec, "unix:///run/user/1001/podman/podman.sock"));  // no limit asked
  spec.cpus = 1.0;
  spec.memory = 64 << 20;
  CHECK(fp::unenforced_limit(rootless, spec, "unix:///run/user/1001/podman/podman.sock") ==
        "cpus: the engine at unix:///run/user/1001/podman/podman.sock is rootless Podman and its containers "
        "get "
        "no 'cpu' cgroup controller (they get none; cgroup v1): it would accept the limit and not apply it. "
        "Run "
        "this condition on a rootful engine, or on cgroup v2 delegate the controller to the user (systemd: "
        "Delegate=cpu cpuset memory pids), or drop the limit");
  spec.cpus.reset();
  spec.cpuset = "0";
  CHECK(fp::unenforced_limit(rootless, spec, "x")->rfind("cpuset: ", 0) == 0);
  // pids_limit: refused when the file asks for it; its default is not asked for (ContainerRuntime).
  noisefloor::model::ContainerSpec pids;
  CHECK_FALSE(fp::unenforced_limit(rootless, pids, "x"));
  pids.pids_limit_given = true;
  CHECK(fp::unenforced_limit(rootless, pids, "x")->rfind("pids_limit: ", 0) == 0);
  // Rootful Podman and Docker: nothing refused here (the read-back still checks every limit).
  const json rootful_libpod = load("podman-4.3-rootful-libpod-info.json");
  const fp::EngineFacts rootful = fp::engine_facts(
      load("podman-4.3-rootful-version.json"), load("podman-4.3-rootful-info.json"), "", "", &rootful_libpod);
  CHECK_FALSE(fp::unenforced_limit(rootful, spec, "x"));
  const fp::EngineFacts docker =
      fp::engine_facts(load("version-20.10.json"), load("info-20.10.json"), "", "");
  CHECK_FALSE(fp::unenforced_limit(docker, spec, "x"));
}

TEST_CASE("doctor: rootless Podman is one finding that names what it drops") {
  const json libpod = load("podman-4.3-rootless-libpod-info.json");
  const fp::EngineFacts rootless =
      fp::engine_facts(load("podman-4.3-rootless-version.json"), load("podman-4.3-rootless-info.json"),
                       "unix:///run/user/1001/podman/podman.sock", "1.41", &libpod);
  const auto r = fp::diagnose(fp::FactTree(), rootless, {});
  std::vector<std::string> messages;
  for (const auto& f : r.findings)
    if (f.topic == fp::Topic::engine_limits) messages.push_back(f.message);
  CHECK(messages ==
        std::vector<std::string>{
            "the Podman engine is rootless and gives its containers no cpuset, cpu, memory, pids "
            "cgroup controller (cgroup v1): it accepts those limits and applies none, so noisefloor "
            "refuses container conditions that ask for them; run Podman rootful, or on cgroup v2 "
            "delegate the controllers to the user"});
  const json rootful_libpod = load("podman-4.3-rootful-libpod-info.json");
  const fp::EngineFacts rootful = fp::engine_facts(
      load("podman-4.3-rootful-version.json"), load("podman-4.3-rootful-info.json"), "", "", &rootful_libpod);
  for (const auto& f : fp::diagnose(fp::FactTree(), rootful, {}).findings)
    CHECK(f.topic != fp::Topic::engine_limits);
}
