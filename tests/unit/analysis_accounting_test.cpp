// analysis/accounting: the launcher overhead, throttling and spinner shares a run recorded,
// summed per condition, and the notes the table shows for them.
#include <doctest/doctest.h>

#include "analysis/accounting.hpp"

using namespace noisefloor;

namespace {

records::InvocationRecord command_run(double wall, std::vector<double> noops) {
  records::InvocationRecord r;
  model::Usage u;
  u.wall_seconds = wall;
  r.accounting.usage = u;
  r.accounting.measured_by = "host";
  r.accounting.launcher_noop_seconds = std::move(noops);
  return r;
}

records::InvocationRecord container_run(std::int64_t periods, std::int64_t throttled, double held) {
  records::InvocationRecord r;
  r.accounting.usage = model::Usage{};
  r.accounting.measured_by = "container";
  model::CgroupCpu c;
  c.usage_seconds = 0.5;
  c.periods = periods;
  c.throttled_periods = throttled;
  c.throttled_seconds = held;
  r.accounting.cgroup = c;
  return r;
}

records::ConditionRecord condition(std::string name) {
  records::ConditionRecord c;
  c.condition = std::move(name);
  return c;
}

}  // namespace

TEST_CASE("accounting: the launcher overhead is the median of every no-op of the condition") {
  records::RunRecord run;
  auto fast = condition("fast"), slow = condition("slow");
  // fast: a 10 ms command against a 1 ms no-op: 10×, below the 20× floor.
  fast.runs = {command_run(0.010, {0.001, 0.002, 0.001}), command_run(0.011, {0.001, 0.0009, 0.003})};
  slow.runs = {command_run(0.5, {0.001, 0.001, 0.001})};
  run.condition_records = {fast, slow};
  const auto acc = analysis::accounting_of(run, nullptr);
  REQUIRE(acc.size() == 2);
  CHECK(acc[0].condition == "fast");
  CHECK(acc[0].invocations == 2);
  CHECK(acc[0].launcher_noop_seconds.size() == 6);
  CHECK(*acc[0].launcher_median() == doctest::Approx(0.001));
  CHECK(*acc[0].command_median() == doctest::Approx(0.0105));
  CHECK(*acc[0].command_to_launcher() == doctest::Approx(10.5));
  const auto notes = analysis::accounting_notes(acc);
  REQUIRE(notes.size() == 3);
  CHECK(notes[0] ==
        "fast: launcher overhead 1 ms (median of 6 no-ops started the same way, 900 µs–3 ms); included in every "
        "sample, nothing subtracted");
  CHECK(notes[1] ==
        "fast: the command (median 10.5 ms) is only 10.5× the launcher overhead: below 20× starting it is a visible "
        "part of every sample; give each run more work");
  CHECK(notes[2].rfind("slow: launcher overhead 1 ms", 0) == 0);  // 500×: no warning
}

TEST_CASE("accounting: a throttled container is flagged with its figures") {
  records::RunRecord run;
  auto pinned = condition("pinned");
  pinned.runs = {container_run(100, 0, 0), container_run(120, 30, 0.75), container_run(110, 10, 0.25)};
  run.condition_records = {pinned};
  const auto acc = analysis::accounting_of(run, [](const std::string& c) { return "r:" + c; });
  REQUIRE(acc.size() == 1);
  CHECK(acc[0].condition == "r:pinned");
  CHECK(acc[0].throttled());
  CHECK(acc[0].periods == 330);
  CHECK(acc[0].throttled_periods == 40);
  const auto notes = analysis::accounting_notes(acc);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0] ==
        "r:pinned: CPU-throttled in 2 of 3 invocations: 40 of 330 CFS periods hit the quota, 1 s held back; the "
        "container's CPU quota shapes these samples");
  const nlohmann::json j = acc[0];
  CHECK(j["throttling"]["throttled_periods"] == 40);
  CHECK_FALSE(j.contains("launcher"));
}

TEST_CASE("accounting: an unthrottled container and a plain host run add no notes") {
  records::RunRecord run;
  auto pinned = condition("pinned"), idle = condition("idle");
  pinned.runs = {container_run(100, 0, 0)};
  idle.runs = {records::InvocationRecord{}};
  run.condition_records = {pinned, idle};
  const auto acc = analysis::accounting_of(run, nullptr);
  REQUIRE(acc.size() == 1);  // idle recorded nothing accounted
  CHECK_FALSE(acc[0].throttled());
  CHECK(analysis::accounting_notes(acc).empty());
}

TEST_CASE("accounting: noisefloor's own CPU while it sampled, as a share of one CPU over the invocations") {
  records::RunRecord run;
  auto idle = condition("idle"), old = condition("old");
  records::InvocationRecord a, b, unmeasured;
  a.wall_seconds = 30;
  a.harness_cpu_seconds = 0.006;
  b.wall_seconds = 10;
  b.harness_cpu_seconds = 0.002;
  unmeasured.wall_seconds = 100;  // a run recorded before noisefloor measured itself: left out
  idle.runs = {a, b, unmeasured};
  old.runs = {unmeasured};
  run.condition_records = {idle, old};
  const auto acc = analysis::accounting_of(run, nullptr);
  REQUIRE(acc.size() == 1);  // "old" recorded nothing accounted
  CHECK(acc[0].harness_invocations == 2);
  CHECK(*acc[0].harness_share() == doctest::Approx(0.008 / 40));
  const auto notes = analysis::accounting_notes(acc);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0] == "idle: noisefloor's own CPU while it sampled: 0.020% of one CPU (8 ms over 40 s of invocations)");
  const nlohmann::json j = acc[0];
  CHECK(j.at("harness").at("cpu_s") == doctest::Approx(0.008));
  CHECK(j.at("harness").at("wall_s") == doctest::Approx(40));
  CHECK(j.at("harness").at("invocations") == 2);
  // Recorded and read back with the invocation.
  const nlohmann::json inv = a;
  CHECK(inv.at("harness_cpu_s") == doctest::Approx(0.006));
  CHECK(inv.get<records::InvocationRecord>().harness_cpu_seconds == a.harness_cpu_seconds);
  CHECK_FALSE(nlohmann::json(unmeasured).contains("harness_cpu_s"));
}

TEST_CASE("accounting: a condition whose command never ran to its end has no launcher note") {
  // An interrupted run: the no-ops of the condition were timed, its command was cut short.
  records::RunRecord run;
  auto cut = condition("cut");
  records::InvocationRecord r;
  r.accounting.launcher_noop_seconds = {0.001, 0.001, 0.002};
  cut.runs = {r};
  run.condition_records = {cut};
  CHECK(analysis::accounting_notes(analysis::accounting_of(run, nullptr)).empty());
}
