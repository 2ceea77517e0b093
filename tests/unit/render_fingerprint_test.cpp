// The doctor report's JSON, render::doctor and render::fingerprint_view: exact text for
// hand-made reports and facts.
#include <doctest/doctest.h>

#include <string>

#include "fingerprint/doctor.hpp"
#include "fingerprint/facts.hpp"
#include "model/errors.hpp"
#include "records/fingerprint.hpp"
#include "render/fingerprint.hpp"
#include "text/text.hpp"

namespace fp = noisefloor::fingerprint;
namespace render = noisefloor::render;
using fp::Grade;
using fp::Level;
using nlohmann::json;
using noisefloor::records::Fingerprint;

namespace {

fp::DoctorReport sample_report() {
  fp::DoctorReport r;
  r.findings = {
      {Level::ok, fp::Topic::load, "1-minute load average 0.05 on 8 logical CPUs", ""},
      {Level::warn, fp::Topic::governor,
       "cpufreq governor is 'powersave' (not performance): the frequency follows the load, so the first "
       "iterations run slower than the rest",
       "cpupower frequency-set -g performance"},
      {Level::bad, fp::Topic::experiment_cpus, "the experiment pins to CPUs 9 but only 0-7 are online", ""},
  };
  r.grade = Grade::not_ready;
  r.grade_reasons = {r.findings[1].message, r.findings[2].message};
  return r;
}

}  // namespace

TEST_CASE("doctor report JSON: grade, reasons and every finding, and back") {
  const json j = sample_report();
  CHECK(j.get<fp::DoctorReport>() == sample_report());
  CHECK(j["grade"] == "not ready");
  CHECK(j["reasons"] == json{sample_report().findings[1].message, sample_report().findings[2].message});
  REQUIRE(j["findings"].size() == 3);
  CHECK(j["findings"][0] == json{{"level", "OK"},
                                 {"topic", "load"},
                                 {"message", "1-minute load average 0.05 on 8 logical CPUs"},
                                 {"fix", ""}});
  CHECK(j["findings"][1]["level"] == "WARN");
  CHECK(j["findings"][1]["fix"] == "cpupower frequency-set -g performance");
  CHECK(j["findings"][2]["level"] == "BAD");
}

TEST_CASE("doctor report JSON: every topic's name reads back; one this version does not know is kept") {
  for (const auto& [topic, name] : names(fp::Topic{})) {
    json j = sample_report();
    j["findings"][0]["topic"] = name;
    CHECK(j.get<fp::DoctorReport>().findings[0].topic == topic);
  }
  // A newer noisefloor's topic: read as other, its name shown and written back as it was said.
  json j = sample_report();
  j["findings"][0]["topic"] = "gremlins";
  const auto report = j.get<fp::DoctorReport>();
  CHECK(report.findings[0].topic == fp::Topic::other);
  CHECK(fp::topic_name(report.findings[0]) == "gremlins");
  CHECK(json(report)["findings"][0]["topic"] == "gremlins");
  CHECK(render::doctor(report, false).starts_with("OK    gremlins\n"));
  // A level it does not know is still refused: the grade depends on it.
  j["findings"][0]["level"] = "MEH";
  CHECK_THROWS_WITH_AS(j.get<fp::DoctorReport>(), "doctor: unknown level \"MEH\"", noisefloor::ParseError);
}

TEST_CASE("render doctor: one block per finding, wrapped message, unwrapped fix, grade last") {
  const std::string expected =
      "OK    load\n"
      "      1-minute load average 0.05 on 8 logical CPUs\n"
      "\n"
      "WARN  governor\n"
      "      cpufreq governor is 'powersave' (not performance): the frequency follows the load, so the\n"
      "      first iterations run slower than the rest\n"
      "      fix: cpupower frequency-set -g performance\n"
      "\n"
      "BAD   experiment-cpus\n"
      "      the experiment pins to CPUs 9 but only 0-7 are online\n"
      "\n"
      "grade: not ready (1 OK, 1 WARN, 1 BAD)\n"
      "  WARN governor: cpufreq governor is 'powersave' (not performance): the frequency follows the load,…\n"
      "  BAD experiment-cpus: the experiment pins to CPUs 9 but only 0-7 are online\n";
  const std::string text = render::doctor(sample_report(), false);
  CHECK(text == expected);
  CHECK(text.find('\x1b') == std::string::npos);
  for (std::size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    const std::string line = text.substr(start, end - start);
    if (line.find("fix: ") == std::string::npos) CHECK(noisefloor::text::width(line) <= render::kRenderWidth);
  }
}

TEST_CASE("render doctor: colour only wraps the level words and the grade") {
  fp::DoctorReport r;
  r.findings = {{Level::ok, fp::Topic::aslr, "address space layout randomization is off", ""},
                {Level::warn, fp::Topic::thp, "transparent huge pages are 'always'", "echo madvise > x"}};
  r.grade = Grade::limited;
  r.grade_reasons = {"transparent huge pages are 'always'"};
  const std::string expected =
      "\x1b[32mOK\x1b[0m    aslr\n"
      "      address space layout randomization is off\n"
      "\n"
      "\x1b[33mWARN\x1b[0m  thp\n"
      "      transparent huge pages are 'always'\n"
      "      fix: echo madvise > x\n"
      "\n"
      "\x1b[1mgrade:\x1b[0m \x1b[1;33mlimited\x1b[0m (1 OK, 1 WARN, 0 BAD)\n"
      "  \x1b[33mWARN\x1b[0m thp: transparent huge pages are 'always'\n";
  CHECK(render::doctor(r, true) == expected);
}

TEST_CASE("render doctor: a ready report lists no reasons") {
  fp::DoctorReport r;
  r.findings = {{Level::ok, fp::Topic::smt, "SMT (hyper-threading) is inactive (control: off)", ""}};
  r.grade = Grade::ready;
  CHECK(render::doctor(r, false) ==
        "OK    smt\n"
        "      SMT (hyper-threading) is inactive (control: off)\n"
        "\n"
        "grade: ready (1 OK, 0 WARN, 0 BAD)\n");
}

TEST_CASE("render fingerprint_view: groups in order, aligned values, unknowns with their reason") {
  json host;
  host["hostname"] = fp::known("bench1");
  host["cpu"] = {{"logical", fp::known(8)},
                 {"arch_hint", fp::unknown("no 'CPU implementer' in /proc/cpuinfo")}};
  host["frequency"] = {{"governor", fp::known({{"0-3", "performance"}, {"4-7", "powersave"}})}};
  host["virtualization"] = {{"virtual", fp::known(true)}};
  host["virtualization"]["virtual"]["evidence"] = {"cpuinfo flag 'hypervisor'", "dmi: QEMU"};
  host["numa"] = fp::known({{{"node", 0}, {"cpulist", "0-7"}}});
  host["isolation"] = {{"isolated", fp::known("")}};
  const json fpr = {{"tuning", nullptr},
                    {"engine", fp::unknown("cannot reach the Docker engine at unix:///var/run/docker.sock")},
                    {"env", json::object()},
                    {"host", host},
                    {"noisefloor", {{"version", "0.1.0"}, {"commit", "abc"}}}};
  const std::string expected =
      "noisefloor\n"
      "  commit       abc\n"
      "  version      0.1.0\n"
      "\n"
      "host\n"
      "  cpu\n"
      "    arch_hint  unknown (no 'CPU implementer' in /proc/cpuinfo)\n"
      "    logical    8\n"
      "  frequency\n"
      "    governor   0-3: performance, 4-7: powersave\n"
      "  hostname     bench1\n"
      "  isolation\n"
      "    isolated   (empty)\n"
      "  numa\n"
      "    - cpulist=0-7 node=0\n"
      "  virtualization\n"
      "    virtual    yes (evidence: cpuinfo flag 'hypervisor'; dmi: QEMU)\n"
      "\n"
      "env            (none)\n"
      "\n"
      "engine\n"
      "  no engine: cannot reach the Docker engine at unix:///var/run/docker.sock\n"
      "\n"
      "tuning         none applied\n";
  CHECK(render::fingerprint_view(fpr.get<Fingerprint>()) == expected);
}

TEST_CASE("render fingerprint_view: a recorded tuning state and engine facts") {
  const json fpr = {{"engine", {{"server_version", "20.10.24"}, {"rootless", false}, {"ncpu", 2}}},
                    {"tuning",
                     {{"applied_utc", "2024-05-01T10:00:00Z"},
                      {"changes",
                       {{{"setting", "aslr"},
                         {"file", "/proc/sys/kernel/randomize_va_space"},
                         {"before", "2"},
                         {"after", "0"}}}}}}};
  // Every engine fact is shown (an engine leaves none out); the limits it did not report are null.
  const std::string expected =
      "engine\n"
      "  api_version       (empty)\n"
      "  architecture      (empty)\n"
      "  cgroup_driver     (empty)\n"
      "  cgroup_version    (empty)\n"
      "  components        (none)\n"
      "  default_runtime   (empty)\n"
      "  endpoint          (empty)\n"
      "  kernel            (empty)\n"
      "  limits\n"
      "    cpu_cfs_period  null\n"
      "    cpu_cfs_quota   null\n"
      "    cpuset          null\n"
      "    memory_limit    null\n"
      "    swap_limit      null\n"
      "  mem_total         0\n"
      "  min_api_version   (empty)\n"
      "  ncpu              2\n"
      "  os                (empty)\n"
      "  os_type           (empty)\n"
      "  rootless          no\n"
      "  security_options  (none)\n"
      "  server_version    20.10.24\n"
      "  storage_driver    (empty)\n"
      "  warnings          (none)\n"
      "\n"
      "tuning\n"
      "  applied_utc       2024-05-01T10:00:00Z\n"
      "  complete          no\n"
      "  experiment_cpus   (empty)\n"
      "  schema_version    1\n"
      "  changes           1\n"
      "    - aslr: /proc/sys/kernel/randomize_va_space: 2 -> 0\n";
  CHECK(render::fingerprint_view(fpr.get<Fingerprint>()) == expected);
}
