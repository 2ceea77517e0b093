#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "analysis/rooms.hpp"
#include "fingerprint/facts.hpp"

namespace fp = noisefloor::fingerprint;
namespace analysis = noisefloor::analysis;
using nlohmann::json;

namespace {

json room_fingerprint() {
  json f;
  f["host"]["hostname"] = fp::known("vm");
  f["host"]["cpu"]["model_name"] = fp::known("AMD EPYC");
  f["host"]["kernel"]["release"] = fp::known("6.18.44-fc-v669");
  f["host"]["frequency"]["governor"] = fp::unknown("missing /sys/devices/system/cpu/cpu0/cpufreq");
  f["host"]["frequency"]["cur_khz"] = fp::known(2596120);
  f["host"]["load"] = fp::known({{"one", 0.12}, {"running", 1}});
  f["toolchain"]["go"]["version"] = fp::known("go1.19.8");
  f["toolchain"]["binary"]["sha256"] = fp::known(std::string(64, 'a'));
  f["env"] = json::object();
  f["benchmark_env"] = {{"CGO_ENABLED", "0"}};
  return f;
}

// The differences of two fingerprints written as JSON (as fingerprint.json holds them).
std::vector<analysis::Difference> differences(const json& a, const json& b) {
  return analysis::differences(a.get<noisefloor::records::Fingerprint>(),
                               b.get<noisefloor::records::Fingerprint>());
}

bool operator==(const analysis::Difference& x, const analysis::Difference& y) {
  return x.field == y.field && x.a == y.a && x.b == y.b && x.moves_benchmarks == y.moves_benchmarks;
}

}  // namespace

TEST_CASE("rooms: identical fingerprints have no differences") {
  CHECK(differences(room_fingerprint(), room_fingerprint()).empty());
}

TEST_CASE("rooms: benchmark-moving differences come first, then the others") {
  json a = room_fingerprint();
  json b = room_fingerprint();
  b["host"]["hostname"] = fp::known("laptop");
  b["host"]["cpu"]["model_name"] = fp::known("Intel(R) Core(TM) i7-8565U CPU @ 1.80GHz");
  b["toolchain"]["go"]["version"] = fp::known("go1.22.1");
  const auto d = differences(a, b);
  REQUIRE(d.size() == 3);
  CHECK(d[0] == analysis::Difference{"host.cpu.model_name", "AMD EPYC",
                                     "Intel(R) Core(TM) i7-8565U CPU @ 1.80GHz", true});
  CHECK(d[1] == analysis::Difference{"toolchain.go.version", "go1.19.8", "go1.22.1", true});
  CHECK(d[2] == analysis::Difference{"host.hostname", "vm", "laptop", false});
}

TEST_CASE("rooms: unknown against known, and absent values") {
  json a = room_fingerprint();
  json b = room_fingerprint();
  b["host"]["frequency"]["governor"] = fp::known("performance");
  b["env"]["GOMAXPROCS"] = "1";
  b["benchmark_env"]["GOGC"] = "off";
  const auto d = differences(a, b);
  REQUIRE(d.size() == 3);
  CHECK(d[0] == analysis::Difference{"benchmark_env.GOGC", "(absent)", "off", true});
  CHECK(d[1] == analysis::Difference{"env.GOMAXPROCS", "(absent)", "1", true});
  CHECK(d[2] == analysis::Difference{"host.frequency.governor",
                                     "unknown (missing /sys/devices/system/cpu/cpu0/cpufreq)", "performance",
                                     true});
}

TEST_CASE("rooms: engine facts and the benchmark's environment move benchmarks") {
  json a = room_fingerprint();
  json b = room_fingerprint();
  a["engine"] = {{"server_version", "20.10.24+dfsg1"}, {"endpoint", "unix:///var/run/docker.sock"}};
  b["engine"] = {{"server_version", "24.0.7"}, {"endpoint", "unix:///run/user/1000/docker.sock"}};
  b["benchmark_env"]["GOMAXPROCS"] = "1";
  const auto d = differences(a, b);
  REQUIRE(d.size() == 3);
  CHECK(d[0] == analysis::Difference{"benchmark_env.GOMAXPROCS", "(absent)", "1", true});
  CHECK(d[1] == analysis::Difference{"engine.server_version", "20.10.24+dfsg1", "24.0.7", true});
  CHECK(d[2] == analysis::Difference{"engine.endpoint", "unix:///var/run/docker.sock",
                                     "unix:///run/user/1000/docker.sock", false});
}

TEST_CASE("rooms: engine facts a run did not need, and the images made from the binary, are no room") {
  // A host-only run (laptop) against one with a container (laptop-trust), same machine.
  json a = room_fingerprint();
  json b = room_fingerprint();
  b["engine"] = {{"server_version", "20.10.24+dfsg1"},
                 {"cgroup_version", "1"},
                 {"images", {{"pinned", {{"id", "sha256:1"}}}}}};
  auto d = differences(a, b);
  CHECK(std::none_of(d.begin(), d.end(), [](const auto& x) { return x.moves_benchmarks; }));
  CHECK(std::any_of(d.begin(), d.end(), [](const auto& x) { return x.field == "engine.server_version"; }));
  // Two runs with containers: another image id is not another room, another engine is.
  a["engine"] = b["engine"];
  a["engine"]["images"]["pinned"]["id"] = "sha256:2";
  d = differences(a, b);
  REQUIRE(d.size() == 1);
  CHECK(d[0] == analysis::Difference{"engine.images.pinned.id", "sha256:2", "sha256:1", false});
  a["engine"]["server_version"] = "24.0.7";
  d = differences(a, b);
  CHECK(d.front() == analysis::Difference{"engine.server_version", "24.0.7", "20.10.24+dfsg1", true});
}

TEST_CASE("rooms: per-CPU values, volatile leaves and shape changes") {
  json a = room_fingerprint();
  json b = room_fingerprint();
  b["host"]["load"] = fp::known({{"one", 3.5}, {"running", 4}});
  b["host"]["frequency"]["cur_khz"] = fp::known(3100000);
  a["run"]["started_utc"] = "2026-11-30T04:00:00Z";
  b["run"]["started_utc"] = "2026-11-30T05:00:00Z";
  CHECK(differences(a, b).empty());

  b["host"]["frequency"]["governor"] = fp::known({{"0", "performance"}, {"1", "powersave"}});
  b["toolchain"]["binary"] = fp::unknown("no binary");
  const auto d = differences(a, b);
  REQUIRE(d.size() == 2);
  CHECK(d[0] == analysis::Difference{"host.frequency.governor",
                                     "unknown (missing /sys/devices/system/cpu/cpu0/cpufreq)",
                                     R"({"0":"performance","1":"powersave"})", true});
  CHECK(d[1] == analysis::Difference{"toolchain.binary",
                                     R"({"sha256":{"value":")" + std::string(64, 'a') + R"("}})",
                                     "unknown (no binary)", true});
}
