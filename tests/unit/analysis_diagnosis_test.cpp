// analysis/diagnosis: which recorded factor goes with the spread within a condition, and which
// changed between conditions, on records built by hand (known by construction).
#include <doctest/doctest.h>

#include "analysis/diagnosis.hpp"
#include "records/samples.hpp"
#include "render/diagnosis.hpp"

using namespace noisefloor;

namespace {

records::InvocationRecord invocation(int number, double wall, double wait, std::int64_t migrations) {
  records::InvocationRecord r;
  r.invocation = number;
  model::Usage u;
  u.wall_seconds = wall;
  u.user_seconds = 0.05;
  u.voluntary_switches = 2;
  u.involuntary_switches = 1;
  r.accounting.usage = u;
  r.accounting.measured_by = records::MeasuredBy::host;
  model::RunQueue q;
  q.run_seconds = 0.05;
  q.wait_seconds = wait;
  r.accounting.run_queue = q;
  model::Counters c;
  c.counts = {{"task_clock_ns", 50000000},
              {"context_switches", 3},
              {"cpu_migrations", migrations},
              {"minor_faults", 100},
              {"major_faults", 0}};
  for (const char* key : {"instructions", "cycles", "branch_misses", "cache_misses"})
    c.missing[key] = "no PMU";
  r.accounting.counters = c;
  return r;
}

records::Sample sample(const std::string& condition, int invocation, double value) {
  records::Sample s;
  s.condition = condition;
  s.benchmark = s.name = "burn";
  s.invocation = invocation;
  s.index = invocation;
  s.metrics = {{value, "sec/op"}};
  return s;
}

}  // namespace

TEST_CASE("diagnosis: the wait that makes the time is found within, and named between conditions") {
  records::RunRecord run;
  run.conditions = {"idle", "noisy"};
  records::ConditionRecord idle, noisy;
  idle.condition = "idle";
  noisy.condition = "noisy";
  std::vector<records::Sample> samples;
  // idle: 50 ms of work, almost no wait, 20 migrations; noisy: the wait is the time beyond the
  // work, and the slowest invocation waited most (ρ = 1 by construction); 0 migrations.
  const double idle_wait[] = {0.0001, 0.0003, 0.0002, 0.0001, 0.0002, 0.0004, 0.0001, 0.0003};
  const double noisy_wait[] = {0.040, 0.010, 0.055, 0.020, 0.030, 0.070, 0.025, 0.045};
  const double idle_offset[] = {2, 5, 8, 7, 1, 3, 4, 6};  // ranks with ρ = 0 against idle_wait's
  for (int i = 0; i < 8; ++i) {
    idle.runs.push_back(invocation(i, 0.05 + idle_wait[i], idle_wait[i], 20));
    samples.push_back(sample("idle", i, 0.05 + idle_offset[i] * 1e-5));
  }
  for (int i = 0; i < 8; ++i) {
    noisy.runs.push_back(invocation(8 + i, 0.05 + noisy_wait[i], noisy_wait[i], 0));
    samples.push_back(sample("noisy", 8 + i, 0.05 + noisy_wait[i]));
  }
  run.condition_records = {idle, noisy};
  const records::Samples held(samples);
  const analysis::Table table = analysis::build_table(held, run.conditions);
  const analysis::Diagnosis d = analysis::diagnose(run, table, held, {});

  REQUIRE(d.conditions.size() == 2);
  const analysis::ConditionDiagnosis& n = d.conditions[1];
  CHECK(n.invocations == 8);
  REQUIRE_FALSE(n.links.empty());
  CHECK(n.links.front().key == "run_queue_wait");
  CHECK(n.links.front().association.rho == doctest::Approx(1.0));
  CHECK(n.links.front().association.exact);
  CHECK(n.links.front().association.p == doctest::Approx(2.0 / 40320));
  // Tried: wait and beside? beside needs busy time (absent); the counters and switches are constant
  // (ρ undefined), so one factor was tried.
  CHECK(n.tried == 1);
  CHECK(n.links.front().p_adjusted == doctest::Approx(2.0 / 40320));
  // The slowest quarter (70, 55 ms) against the fastest (10, 20 ms).
  CHECK(n.links.front().slow_quarter == doctest::Approx(0.0625));
  CHECK(n.links.front().fast_quarter == doctest::Approx(0.015));

  REQUIRE(d.conditions.size() == 2);
  CHECK(d.conditions[1].telling() == &d.conditions[1].links.front());
  CHECK(d.conditions[0].telling() == nullptr);
  CHECK(render::within_text(d.conditions[1]) ==
        "noisy / burn: its slower invocations had more time waiting for a CPU (Spearman ρ = +1.00, "
        "permutation p = 5e-05 adjusted for 1 factor, n = 8): 62.5 ms per invocation in the slowest "
        "quarter, 4.2× as much as the fastest quarter (15.0 ms)");
  CHECK(render::within_text(d.conditions[0]) ==
        "idle: no recorded factor goes with the spread of its 8 invocations (1 factor tried, none with "
        "adjusted p < 0.05 and a difference past its floor)");
  CHECK(d.conditions[0].links.front().association.rho == doctest::Approx(0.0));

  REQUIRE(d.contrasts.size() == 1);
  // Medians: noisy wait 35 ms of 85 ms wall; idle 0.2 ms of 50.2 ms; migrations 0 against 20.
  CHECK(d.contrasts[0].changed.size() == 2);
  CHECK(render::contrast_text(d.contrasts[0]) ==
        "noisy against idle, per invocation (median): time waiting for a CPU 35.0 ms (41% of its wall "
        "time) against 0.20 ms (0.4%); CPU migrations 0 against 20");
  REQUIRE(d.missing.gaps.size() == 1);
  CHECK(d.missing.gaps[0].counters ==
        std::vector<std::string>{"instructions", "cycles", "branch_misses", "cache_misses"});
  CHECK_FALSE(d.missing.gaps[0].all);
  CHECK(d.missing.gaps[0].conditions.empty());  // every condition
  CHECK(d.missing.gaps[0].why == "no PMU");
  CHECK(render::missing_lines(d.missing) ==
        std::vector<std::string>{"not counted: instructions, cycles, branch_misses, cache_misses: no PMU"});
}

TEST_CASE("diagnosis: what the counters lacked, a line each") {
  analysis::CountersMissing m;
  m.gaps = {{.counters = {"instructions", "cycles"}, .conditions = {"busy", "pinned"}, .why = "no PMU"},
            {.counters = {"instructions"}, .all = true, .why = "perf_event_open: EACCES"}};
  m.multiplexed = {{"busy", "multiplexed: counted 61% of the time, scaled"}};
  m.user_only = true;
  CHECK(render::missing_lines(m) ==
        std::vector<std::string>{
            "not counted in busy, pinned: instructions, cycles: no PMU",
            "not counted: no counter: perf_event_open: EACCES",
            "condition 'busy': multiplexed: counted 61% of the time, scaled",
            "counters count user space only: kernel.perf_event_paranoid allows no more without CAP_PERFMON "
            "(context switches and kernel time are not in them)"});
  CHECK(render::missing_lines({}).empty());
  CHECK(analysis::CountersMissing{}.empty());
  CHECK_FALSE(m.empty());
}

TEST_CASE("diagnosis: one invocation per condition is not ranked within, and says why") {
  records::RunRecord run;
  run.conditions = {"idle"};
  records::ConditionRecord idle;
  idle.condition = "idle";
  idle.runs.push_back(invocation(0, 1.0, 0.001, 3));
  run.condition_records = {idle};
  std::vector<records::Sample> samples;
  for (int i = 0; i < 5; ++i) {
    records::Sample s = sample("idle", 0, 0.2 + i * 0.001);
    s.index = i;
    samples.push_back(s);
  }
  const records::Samples held(samples);
  const analysis::Diagnosis d =
      analysis::diagnose(run, analysis::build_table(held, run.conditions), held, {});
  REQUIRE(d.conditions.size() == 1);
  CHECK(d.conditions[0].untested->invocations == 1);
  CHECK(d.conditions[0].untested->samples == 5);
  CHECK(render::diagnosis_lines(d) ==
        std::vector<std::string>{
            "idle: not ranked within: its 5 samples came from one invocation, which has one reading of each "
            "factor (samples_per_run: 1 gives every sample its own)"});
  CHECK(d.contrasts.empty());
}
