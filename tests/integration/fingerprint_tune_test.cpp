// apply_tuning / restore_tuning / tuning_state against fabricated sysfs/procfs trees in a temp
// directory: what is written, what is saved, that restore puts it back, that applying twice is
// refused, and the rule that SMT stays on when it would take a pinned CPU offline.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "fingerprint/doctor.hpp"
#include "fingerprint/host.hpp"
#include "fingerprint/tune.hpp"
#include "model/errors.hpp"
#include "temp_root.hpp"

namespace fp = noisefloor::fingerprint;
namespace fs = std::filesystem;
using fp::TuneChange;
using fp::TuneNote;
using nlohmann::json;

namespace {

const std::string kCpu = "/sys/devices/system/cpu";
const std::string kGov0 = kCpu + "/cpufreq/policy0/scaling_governor";
const std::string kGov1 = kCpu + "/cpufreq/policy1/scaling_governor";
const std::string kGov2 = kCpu + "/cpufreq/policy2/scaling_governor";
const std::string kGov3 = kCpu + "/cpufreq/policy3/scaling_governor";
const std::string kNoTurbo = kCpu + "/intel_pstate/no_turbo";
const std::string kSmt = kCpu + "/smt/control";
const std::string kAslr = "/proc/sys/kernel/randomize_va_space";
const std::string kThp = "/sys/kernel/mm/transparent_hugepage/enabled";

using noisefloor::testing::TempRoot;

// An untuned 2-core/4-thread Intel machine, siblings numbered like Intel's (0,2 and 1,3):
// powersave, turbo on, SMT on, ASLR 2, THP always.
void write_untuned(const TempRoot& t) {
  t.write(kCpu + "/online", "0-3\n");
  for (int c = 0; c < 4; ++c) {
    t.write(kCpu + "/cpu" + std::to_string(c) + "/topology/thread_siblings_list",
            c % 2 == 0 ? "0,2\n" : "1,3\n");
    const std::string policy = kCpu + "/cpufreq/policy" + std::to_string(c);
    t.write(policy + "/scaling_governor", "powersave\n");
    t.write(policy + "/scaling_available_governors", "performance powersave\n");
    // As on a real system: cpuN/cpufreq is a link to its policy (the probe reads cpuN/cpufreq).
    fs::create_symlink("../cpufreq/policy" + std::to_string(c),
                       t.path() / (kCpu.substr(1) + "/cpu" + std::to_string(c) + "/cpufreq"));
  }
  t.write(kNoTurbo, "0\n");
  t.write(kSmt, "on\n");
  t.write(kAslr, "2\n");
  t.write(kThp, "[always] madvise never\n");
}

const std::vector<TuneChange> kAllChanges = {
    {"governor", kGov0, "powersave", "performance"},
    {"governor", kGov1, "powersave", "performance"},
    {"governor", kGov2, "powersave", "performance"},
    {"governor", kGov3, "powersave", "performance"},
    {"turbo", kNoTurbo, "0", "1"},
    {"aslr", kAslr, "2", "0"},
    {"thp", kThp, "always", "madvise"},
    {"smt", kSmt, "on", "off"},
};

std::vector<TuneChange> without_smt() { return {kAllChanges.begin(), kAllChanges.end() - 1}; }

}  // namespace

TEST_CASE("tune: plan of an untuned machine, no experiment") {
  TempRoot t;
  write_untuned(t);
  const auto plan = fp::plan_tuning(t.path(), {});
  CHECK(plan.changes == kAllChanges);
  CHECK(plan.unchanged.empty());
  CHECK(t.read(kGov0) == "powersave\n");  // planning writes nothing
}

TEST_CASE("tune: apply writes the values, saves the previous ones; restore puts them back") {
  TempRoot t;
  write_untuned(t);
  const auto r = fp::apply_tuning(t.path(), t.state(), {0, 1});
  CHECK(r.applied == kAllChanges);
  CHECK(r.unchanged.empty());
  for (const auto& g : {kGov0, kGov1, kGov2, kGov3}) CHECK(t.read(g) == "performance\n");
  CHECK(t.read(kNoTurbo) == "1\n");
  CHECK(t.read(kSmt) == "off\n");
  CHECK(t.read(kAslr) == "0\n");
  CHECK(t.read(kThp) == "madvise\n");

  const json state = json::parse(TempRoot::slurp(t.state()));
  CHECK(state["schema_version"] == 1);
  CHECK(state["complete"] == true);
  CHECK(state["experiment_cpus"] == "0,1");
  CHECK(state["applied_utc"].get<std::string>().size() == 24);  // 2024-05-01T10:00:00.000Z
  json changes = json::array();
  for (const auto& c : kAllChanges) changes.push_back(c);
  CHECK(state["changes"] == changes);
  CHECK(json(fp::tuning_state(t.state())) == state);
  CHECK(fp::tuning_state(t.state()).state->changes == kAllChanges);
  CHECK(!fs::exists(t.state().string() + ".tmp-" + std::to_string(::getpid())));

  // The doctor sees the tuned machine. (Not THP: a plain file keeps "madvise" without the
  // brackets sysfs shows, so the probe cannot read it.)
  const json host = fp::probe_host(t.path());
  const auto report = fp::diagnose(host, std::nullopt, {});
  for (const auto& f : report.findings) {
    if (f.topic == fp::Topic::governor || f.topic == fp::Topic::aslr || f.topic == fp::Topic::turbo) {
      CHECK_MESSAGE(f.level == fp::Level::ok, fp::to_string(f.topic) << ": " << f.message);
    }
  }

  const auto back = fp::restore_tuning(t.path(), t.state());
  CHECK(back.failed.empty());
  const std::vector<TuneChange> reversed(kAllChanges.rbegin(), kAllChanges.rend());
  CHECK(back.restored == reversed);
  for (const auto& g : {kGov0, kGov1, kGov2, kGov3}) CHECK(t.read(g) == "powersave\n");
  CHECK(t.read(kNoTurbo) == "0\n");
  CHECK(t.read(kSmt) == "on\n");
  CHECK(t.read(kAslr) == "2\n");
  CHECK(t.read(kThp) == "always\n");
  CHECK(!fs::exists(t.state()));
  CHECK(fp::tuning_state(t.state()) == fp::TuningStatus{});
  CHECK_THROWS_AS(fp::restore_tuning(t.path(), t.state()), noisefloor::RunError);
}

TEST_CASE("tune: applying twice is refused and changes nothing") {
  TempRoot t;
  write_untuned(t);
  fp::apply_tuning(t.path(), t.state(), {});
  const std::string saved = TempRoot::slurp(t.state());
  t.write(kAslr, "2\n");  // someone turned ASLR back on by hand
  CHECK_THROWS_WITH_AS(fp::apply_tuning(t.path(), t.state(), {}),
                       doctest::Contains("tuning is already applied"), noisefloor::RunError);
  CHECK(t.read(kAslr) == "2\n");
  CHECK(TempRoot::slurp(t.state()) == saved);  // still the untuned values
}

TEST_CASE("tune: SMT stays on when it would take a pinned CPU offline") {
  TempRoot t;
  write_untuned(t);
  SUBCASE("pinned to a second thread") {
    const auto r = fp::apply_tuning(t.path(), t.state(), {1, 2});
    CHECK(r.applied == without_smt());
    CHECK(r.unchanged ==
          std::vector<TuneNote>{
              {"smt",
               "stays on: SMT off would take the experiment's CPU 2 (sibling of 0) offline; pin "
               "the experiment to first threads of cores (0,1) to allow it"}});
    CHECK(t.read(kSmt) == "on\n");
    CHECK(json::parse(TempRoot::slurp(t.state()))["changes"].size() == without_smt().size());
  }
  SUBCASE("pinned to both threads of a core") {
    const auto r = fp::apply_tuning(t.path(), t.state(), {3, 1});
    CHECK(r.applied == without_smt());
    REQUIRE(r.unchanged.size() == 1);
    CHECK(r.unchanged[0].reason.find("CPU 3 (sibling of 1)") != std::string::npos);
    CHECK(t.read(kSmt) == "on\n");
  }
  SUBCASE("pinned to first threads only") {
    const auto r = fp::apply_tuning(t.path(), t.state(), {1});
    CHECK(r.applied == kAllChanges);
    CHECK(t.read(kSmt) == "off\n");
  }
  SUBCASE("siblings unknown: on with an experiment, off without") {
    t.remove(kCpu + "/cpu3/topology");
    auto plan = fp::plan_tuning(t.path(), {1});
    CHECK(plan.changes == without_smt());
    CHECK(plan.unchanged ==
          std::vector<TuneNote>{{"smt",
                                 "stays on: cannot tell which CPUs SMT off would take offline (missing "
                                 "/sys/devices/system/cpu/cpu3/topology/thread_siblings_list)"}});
    CHECK(fp::plan_tuning(t.path(), {}).changes == kAllChanges);
  }
}

TEST_CASE("tune: settings already tuned, missing or not offering the value are left alone") {
  TempRoot t;
  write_untuned(t);
  t.write(kCpu + "/cpufreq/policy1/scaling_governor", "performance\n");
  t.write(kCpu + "/cpufreq/policy2/scaling_available_governors", "ondemand powersave\n");
  t.write(kNoTurbo, "1\n");
  t.write(kAslr, "0\n");
  t.write(kThp, "always madvise [never]\n");
  t.write(kSmt, "notsupported\n");
  const auto plan = fp::plan_tuning(t.path(), {});
  CHECK(plan.changes == std::vector<TuneChange>{{"governor", kGov0, "powersave", "performance"},
                                                {"governor", kGov3, "powersave", "performance"}});
  CHECK(plan.unchanged ==
        std::vector<TuneNote>{{"governor",
                               "/sys/devices/system/cpu/cpufreq/policy2 offers no performance governor "
                               "(available: ondemand powersave)"},
                              {"turbo", "already off (/sys/devices/system/cpu/intel_pstate/no_turbo is 1)"},
                              {"aslr", "already off (randomize_va_space is 0)"},
                              {"thp", "already 'never' (only 'always' is changed)"},
                              {"smt", "control is 'notsupported' (only 'on' is changed)"}});
}

TEST_CASE("tune: a VM without cpufreq, turbo or SMT controls; boost files per policy") {
  TempRoot t;
  t.write(kCpu + "/online", "0-1\n");
  t.write(kAslr, "2\n");
  t.write(kThp, "always [madvise] never\n");
  auto plan = fp::plan_tuning(t.path(), {0, 1});
  CHECK(plan.changes == std::vector<TuneChange>{{"aslr", kAslr, "2", "0"}});
  CHECK(plan.unchanged ==
        std::vector<TuneNote>{
            {"governor",
             "no cpufreq scaling_governor under /sys/devices/system/cpu/cpufreq (no cpufreq driver; usual in "
             "VMs)"},
            {"turbo",
             "no turbo control found (/sys/devices/system/cpu/intel_pstate/no_turbo, "
             "/sys/devices/system/cpu/cpufreq/boost, /sys/devices/system/cpu/cpufreq/policy*/boost)"},
            {"thp", "already 'madvise' (only 'always' is changed)"},
            {"smt", "missing /sys/devices/system/cpu/smt/control"}});

  t.write(kCpu + "/cpufreq/policy0/boost", "1\n");
  t.write(kCpu + "/cpufreq/policy1/boost", "0\n");
  plan = fp::plan_tuning(t.path(), {});
  CHECK(plan.changes == std::vector<TuneChange>{{"turbo", kCpu + "/cpufreq/policy0/boost", "1", "0"},
                                                {"aslr", kAslr, "2", "0"}});
  t.write(kCpu + "/cpufreq/boost", "1\n");  // the global switch wins over per-policy files
  CHECK(fp::plan_tuning(t.path(), {}).changes.front() ==
        TuneChange{"turbo", kCpu + "/cpufreq/boost", "1", "0"});
}

TEST_CASE("tune: governors under cpuN/cpufreq when there are no policy directories") {
  TempRoot t;
  t.write(kCpu + "/cpu0/cpufreq/scaling_governor", "ondemand\n");
  t.write(kCpu + "/cpu1/cpufreq/scaling_governor", "performance\n");
  t.write(kCpu + "/cpu10/cpufreq/scaling_governor", "schedutil\n");
  const auto plan = fp::plan_tuning(t.path(), {});
  REQUIRE(plan.changes.size() == 2);
  CHECK(plan.changes[0] ==
        TuneChange{"governor", kCpu + "/cpu0/cpufreq/scaling_governor", "ondemand", "performance"});
  CHECK(plan.changes[1] ==
        TuneChange{"governor", kCpu + "/cpu10/cpufreq/scaling_governor", "schedutil", "performance"});
}

TEST_CASE("tune: nothing to change leaves no state file") {
  TempRoot t;
  t.write(kAslr, "0\n");
  const auto r = fp::apply_tuning(t.path(), t.state(), {});
  CHECK(r.applied.empty());
  CHECK(!fs::exists(t.state()));
  CHECK(fp::tuning_state(t.state()) == fp::TuningStatus{});
}

TEST_CASE("tune: a state file that cannot be written stops apply before any change") {
  TempRoot t;
  write_untuned(t);
  t.write("/blocked", "a file where the state directory should be\n");
  CHECK_THROWS_AS(fp::apply_tuning(t.path(), t.path() / "blocked/tune-state.json", {}), noisefloor::RunError);
  CHECK(t.read(kGov0) == "powersave\n");
  CHECK(t.read(kAslr) == "2\n");
}

TEST_CASE("tune: a value that cannot be written back stays saved for a retry") {
  TempRoot t;
  write_untuned(t);
  fp::apply_tuning(t.path(), t.state(), {});
  t.remove(kThp);  // files are never created, so this write fails
  const auto back = fp::restore_tuning(t.path(), t.state());
  CHECK(back.restored.size() == kAllChanges.size() - 1);
  REQUIRE(back.failed.size() == 1);
  CHECK(back.failed[0].setting == "thp");
  CHECK(back.failed[0].reason.find("cannot open /sys/kernel/mm/transparent_hugepage/enabled for writing") ==
        0);
  CHECK(t.read(kAslr) == "2\n");
  const json state = json::parse(TempRoot::slurp(t.state()));
  CHECK(state["changes"] == json::array({json(TuneChange{"thp", kThp, "always", "madvise"})}));
  CHECK(!fs::exists(t.path() / kThp.substr(1)));

  t.write(kThp, "always [madvise] never\n");
  const auto retry = fp::restore_tuning(t.path(), t.state());
  CHECK(retry.failed.empty());
  CHECK(t.read(kThp) == "always\n");
  CHECK(!fs::exists(t.state()));
}

TEST_CASE("tune: restore refuses a state file naming a file or value noisefloor never writes") {
  TempRoot t;
  write_untuned(t);
  t.write("/etc/passwd", "root:x:0:0::/root:/bin/bash\n");
  const auto bad_state = [&](const json& change) {
    t.write(
        "/var/lib/noisefloor/tune-state.json",
        json{{"schema_version", 1},
             {"changes", {{{"setting", "aslr"}, {"file", kAslr}, {"before", "2"}, {"after", "0"}}, change}}}
            .dump());
  };
  bad_state({{"setting", "governor"}, {"file", "/etc/passwd"}, {"before", "x"}, {"after", "performance"}});
  CHECK_THROWS_WITH_AS(fp::restore_tuning(t.path(), t.state()),
                       doctest::Contains("which noisefloor never changes"), noisefloor::RunError);
  bad_state({{"setting", "governor"},
             {"file", kGov0},
             {"before", "performance; reboot"},
             {"after", "performance"}});
  CHECK_THROWS_AS(fp::restore_tuning(t.path(), t.state()), noisefloor::RunError);
  bad_state({{"setting", "governor"},
             {"file", kCpu + "/cpufreq/policy0/../../../../../etc/passwd"},
             {"before", "x"},
             {"after", "y"}});
  CHECK_THROWS_AS(fp::restore_tuning(t.path(), t.state()), noisefloor::RunError);
  CHECK(t.read("/etc/passwd") == "root:x:0:0::/root:/bin/bash\n");
  CHECK(t.read(kAslr) == "2\n");  // validated before anything is written
  CHECK(fs::exists(t.state()));

  t.write("/var/lib/noisefloor/tune-state.json", "{not json");
  CHECK_THROWS_WITH_AS(fp::restore_tuning(t.path(), t.state()),
                       doctest::Contains("is not a noisefloor tuning state file"), noisefloor::RunError);
  const fp::TuningStatus s = fp::tuning_state(t.state());
  CHECK_FALSE(s.state.has_value());
  CHECK(s.error.find("is not valid JSON") != std::string::npos);
}
