// analysis/accounting: the launcher overhead, throttling and spinner shares a run recorded,
// summed per condition, and the notes the table shows for them.
#include <doctest/doctest.h>

#include "analysis/accounting.hpp"
#include "render/accounting.hpp"
#include "render/json.hpp"

using namespace noisefloor;

namespace {

records::InvocationRecord command_run(double wall, std::vector<double> noops) {
  records::InvocationRecord r;
  model::Usage u;
  u.wall_seconds = wall;
  r.accounting.usage = u;
  r.accounting.measured_by = records::MeasuredBy::host;
  r.accounting.launcher_noop_seconds = std::move(noops);
  return r;
}

records::InvocationRecord container_run(std::int64_t periods, std::int64_t throttled, double held) {
  records::InvocationRecord r;
  r.accounting.usage = model::Usage{};
  r.accounting.measured_by = records::MeasuredBy::container;
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
  const auto notes = render::accounting_notes(acc);
  REQUIRE(notes.size() == 3);
  CHECK(notes[0] ==
        "fast: launcher overhead 1 ms (median of 6 no-ops started the same way, 900 µs–3 ms); included in "
        "every "
        "sample, nothing subtracted");
  CHECK(notes[1] ==
        "fast: the command (median 10.5 ms) is only 10.5× the launcher overhead: below 20× starting it is a "
        "visible "
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
  const auto notes = render::accounting_notes(acc);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0] ==
        "r:pinned: CPU-throttled in 2 of 3 invocations: 40 of 330 CFS periods hit the quota, 1 s held back; "
        "the "
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
  CHECK(render::accounting_notes(acc).empty());
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
  const auto notes = render::accounting_notes(acc);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0] ==
        "idle: noisefloor's own CPU while it sampled: 0.020% of one CPU (8 ms over 40 s of invocations)");
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
  CHECK(render::accounting_notes(analysis::accounting_of(run, nullptr)).empty());
}

namespace {

// An invocation whose probe measured the run queue: `run` s on a CPU, `wait` s waiting, over
// `wall` s, on `cpus` CPUs (host affinity), or in a container with `nproc` CPUs and a quota.
records::InvocationRecord queued(double run, double wait, double wall, std::vector<int> cpus) {
  records::InvocationRecord r;
  model::Usage u;
  u.wall_seconds = wall;
  r.accounting.usage = u;
  r.accounting.measured_by = records::MeasuredBy::host;
  model::RunQueue q;
  q.run_seconds = run;
  q.wait_seconds = wait;
  q.tasks = 1;
  r.accounting.run_queue = q;
  r.details.affinity = std::move(cpus);
  return r;
}

}  // namespace

TEST_CASE("accounting: starved is waiting for a CPU the benchmark could have used") {
  records::RunRecord run;
  // The case: a pinned benchmark given 53% of its CPU (17.9 s of 33.5 s).
  auto starved = condition("pinned");
  starved.runs = {queued(17.9, 15.6, 33.5, {0})};
  // Its own threads waiting for each other: 4 threads on 2 CPUs, both CPUs fully used.
  auto self = condition("parallel");
  self.runs = {queued(2.0, 2.0, 1.0, {0, 1})};
  // A little wait, and a wait just under the line.
  auto quiet = condition("idle");
  quiet.runs = {queued(1.0, 0.003, 1.0, {0, 1}), queued(1.0, 0.001, 1.0, {0, 1})};
  auto near = condition("near");
  near.runs = {queued(0.98, 0.10, 1.08, {0, 1})};
  // The condition's own spinners: waits are the experiment's.
  auto spun = condition("noisy");
  spun.setup.spinners = records::SpinnerSetup{1, {}, {}, {}, {}};
  spun.runs = {queued(1.0, 1.0, 2.0, {0})};
  // A container under a 0.5-CPU quota, using all of it: throttled, not starved.
  auto quota = condition("quota");
  quota.runs = {queued(1.0, 1.0, 2.0, {})};
  quota.runs[0].accounting.measured_by = records::MeasuredBy::container;
  probe::Effective inside;
  inside.nproc = 2;
  inside.cfs_quota_us = 50000;
  inside.cfs_period_us = 100000;
  quota.runs[0].details.limits_inside = inside;
  run.condition_records = {starved, self, quiet, near, spun, quota};
  const auto acc = analysis::accounting_of(run, nullptr);
  REQUIRE(acc.size() == 6);
  CHECK(*acc[0].run_queue.waited() == doctest::Approx(15.6 / 33.5));
  CHECK(*acc[0].run_queue.used() == doctest::Approx(17.9 / 33.5));
  CHECK(*acc[0].run_queue.cpus_allowed == 1);
  CHECK(acc[0].starved());
  CHECK_FALSE(acc[1].starved());  // used 2 of its 2 CPUs
  CHECK(*acc[1].run_queue.waited() == doctest::Approx(0.5));
  CHECK_FALSE(acc[2].starved());
  CHECK(acc[2].run_queue.invocations == 2);
  CHECK(*acc[2].run_queue.waited() == doctest::Approx(0.004 / 2.004));
  CHECK_FALSE(acc[3].starved());  // 9.3% < 10%
  CHECK(acc[4].run_queue.starved());
  CHECK_FALSE(acc[4].starved());  // spinners: the experiment's own load
  CHECK(*acc[5].run_queue.cpus_allowed == 0.5);
  CHECK_FALSE(acc[5].starved());
  const auto notes = render::accounting_notes(acc);
  const auto has = [&](const std::string& text) {
    return std::find(notes.begin(), notes.end(), text) != notes.end();
  };
  CHECK(has(
      "pinned: STARVED by other work: the benchmark's threads waited for a CPU 47% of the time they were "
      "runnable (15.6 s waiting, 17.9 s on a CPU, over 33.5 s of benchmark time, 0.53 of the 1 CPU it may "
      "use); its numbers measure that work too: bands capped at \"do not trust\", labelled CONTENDED"));
  CHECK(has(
      "near: the benchmark's threads waited for a CPU 9.3% of the time they were runnable (100 ms waiting, "
      "980 ms on a CPU, over 1.08 s of benchmark time, 0.91 of the 2 CPUs it may use); 10% or more marks a "
      "starved condition"));
  for (const auto& n : notes) {
    CAPTURE(n);
    CHECK(n.find("idle:") != 0);   // 0.2%: nothing to say
    CHECK(n.find("noisy:") != 0);  // its spinners' doing
    CHECK(n.find("quota:") != 0);  // its quota's doing (throttling has its own note)
  }
  const nlohmann::json j = acc[0];
  CHECK(j["run_queue"]["starved"] == true);
  CHECK(j["run_queue"]["cpus_allowed"] == 1.0);
  CHECK(j["run_queue"]["beside_s"].is_null());  // no busy time read: the older rule alone
}

TEST_CASE("accounting: waits with nothing beside the benchmark are its own threads', not starvation") {
  // The figures of the real captures in tests/data/probe (host-result-*.txt): an invocation with
  // its CPUs' busy time and its tree's rusage.
  const auto busy = [](double run, double wait, double wall, std::vector<int> cpus, double rusage,
                       double busy_s) {
    records::InvocationRecord r = queued(run, wait, wall, std::move(cpus));
    r.accounting.usage->user_seconds = rusage;
    r.accounting.run_queue->cpus_busy_seconds = busy_s;
    return r;
  };
  records::RunRecord run;
  // nf-burn 0.4 with two 0.1 s children on CPUs 0-1, nothing else running: waited 15% of its
  // runnable time, under the old rule starved; its CPUs were busy 0.61 s, its own 0.604 s.
  auto own = condition("own");
  own.runs = {busy(0.603783678, 0.106006169, 0.455562769, {0, 1}, 0.603783, 0.61)};
  // nf-burn 0.3 beside a busy loop on its CPU: the loop ran 0.3 s beside it.
  auto loop = condition("loop");
  loop.runs = {busy(0.301238010, 0.303604333, 0.604867115, {0}, 0.301237, 0.6)};
  // Three processes beside the loop: the tree's rusage (0.603 s) counts what the threads' last
  // reads missed (0.554 s), so the loop's 0.207 s is not overstated.
  auto tree = condition("tree");
  tree.runs = {busy(0.553888711, 1.660375691, 0.805265856, {0, 1}, 0.603267, 0.81)};
  tree.runs[0].details.affinity = std::vector<int>{0};
  // The same burn in CI, nothing else running: the CPUs' tick-counted busy time came out 0.155 s
  // above its own 2.415 s (6%), within the tolerance.
  auto ci = condition("ci");
  ci.runs = {busy(2.415026457, 0.435415213, 1.820746688, {0, 1}, 2.415026457, 2.57)};
  // A run whose probe read no busy time for one of two invocations: unknown, the older rule.
  auto mixed = condition("mixed");
  mixed.runs = {busy(0.6, 0.1, 0.45, {0, 1}, 0.6, 0.61), queued(0.6, 0.1, 0.45, {0, 1})};
  // Many short invocations (a Go benchmark of a few milliseconds, its GC threads waiting for each
  // other): each read of /proc/stat can be a tick (10 ms) off per CPU, which here is most of what
  // "ran beside it" reads. 20 invocations of 10 ms on 2 CPUs, 9 ms of busy time more than its own
  // in each (CI's sanitizer pass labelled such a condition CONTENDED).
  auto quick = condition("quick");
  for (int i = 0; i < 20; ++i) quick.runs.push_back(busy(0.011, 0.0015, 0.01, {0, 1}, 0.011, 0.02));
  run.condition_records = {own, loop, tree, mixed, ci, quick};
  const auto acc = analysis::accounting_of(run, nullptr);
  REQUIRE(acc.size() == 6);
  CHECK(*acc[5].run_queue.waited() >= 0.10);
  CHECK(*acc[5].run_queue.beside() == doctest::Approx(20 * 0.009));
  CHECK(acc[5].run_queue.busy_ticks_seconds == doctest::Approx(20 * 2 * 0.01 * 2));
  CHECK_FALSE(acc[5].starved());
  CHECK(*acc[4].run_queue.waited() >= 0.15);
  CHECK(*acc[4].run_queue.beside() == doctest::Approx(0.155).epsilon(0.01));
  CHECK_FALSE(acc[4].starved());
  CHECK(*acc[0].run_queue.waited() == doctest::Approx(0.106006169 / (0.603783678 + 0.106006169)));
  CHECK(*acc[0].run_queue.beside() == doctest::Approx(0.61 - 0.603783678));
  CHECK_FALSE(acc[0].run_queue.others_ran());
  CHECK_FALSE(acc[0].starved());
  CHECK(*acc[1].run_queue.beside() == doctest::Approx(0.6 - 0.301238010));
  CHECK(acc[1].starved());
  CHECK(*acc[2].run_queue.beside() == doctest::Approx(0.81 - 0.603267));
  CHECK(acc[2].starved());
  CHECK_FALSE(acc[3].run_queue.beside().has_value());
  CHECK(acc[3].run_queue.busy_unknown == "not measured");
  CHECK(acc[3].starved());
  const auto notes = render::accounting_notes(acc);
  for (const auto& n : notes) CHECK(n.find("own:") != 0);  // nothing beside it: nothing to say
  CHECK(std::find(
            notes.begin(), notes.end(),
            "loop: STARVED by other work: the benchmark's threads waited for a CPU 50% of the time they were "
            "runnable (304 ms waiting, 301 ms on a CPU, over 605 ms of benchmark time, 0.50 of the 1 CPU it "
            "may use; other work 299 ms on those CPUs); its numbers measure that work too: bands capped at "
            "\"do not trust\", labelled CONTENDED") != notes.end());
  const nlohmann::json j = acc[1];
  CHECK(j["run_queue"]["beside_s"].get<double>() == doctest::Approx(0.298762));
}
