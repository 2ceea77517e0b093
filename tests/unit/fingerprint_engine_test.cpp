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
    if (f.topic == "docker-desktop") {
      ++desktop;
      CHECK(f.level == fp::Level::warn);
    }
    if (f.topic == "engine-limits") messages.push_back(f.message);
  }
  CHECK(desktop == 1);
  CHECK(messages ==
        std::vector<std::string>{
            "the docker engine reports SwapLimit=false: it silently drops that limit, so the pinned "
            "container is not limited the way the experiment says",
            "docker engine: WARNING: No swap limit support"});
  CHECK(r.grade == fp::Grade::limited);
}
