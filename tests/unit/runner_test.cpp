// runner/: the run loop against a fake Environment and a fake Clock: the order of what it asks of
// the machine, what it records, how it fails, and time (budgets, cool-downs, sample times).
#include "runner/runner.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <functional>

#include "model/errors.hpp"
#include "plan/plan.hpp"
#include "render/warnings.hpp"
#include "test_support.hpp"

using namespace noisefloor;

namespace {

// Time that moves only when the test (or the fake machine) says so.
struct FakeClock : runner::Clock {
  double now = 0;
  std::vector<double> slept;
  model::Seconds elapsed() override { return model::Seconds(now); }
  std::string utc() override { return fmt::format("t+{:g}", now); }
  void sleep(model::Seconds d, const runner::Cancelled&) override {
    slept.push_back(d.count());
    now += d.count();
  }
};

// Records what the runner asked for, and prints `go test -bench` lines with predictable values.
// Every invocation takes `seconds` on the fake clock.
struct FakeEnvironment : conditions::Environment {
  FakeClock* clock = nullptr;
  double seconds = 1;
  std::vector<std::string> calls;
  int fail_on_invocation = -1;
  int invocations = 0;
  std::optional<model::Counters> counters;               // what every invocation's accounting counted
  std::vector<std::map<std::string, std::string>> envs;  // each invocation's environment

  struct Scope : conditions::ConditionScope {
    FakeEnvironment& env;
    std::string name;
    Scope(FakeEnvironment& e, std::string n) : env(e), name(std::move(n)) {}
    ~Scope() override { env.calls.push_back("leave " + name); }
    conditions::InvocationOutput run(const conditions::Invocation& inv, const model::LineCallback& on_line,
                                     const model::Cancelled&) override {
      env.calls.push_back(fmt::format("run {} #{} {}", name, inv.number, inv.argv.back()));
      env.envs.push_back(inv.env);
      const int count = std::stoi(inv.argv.back().substr(std::string("-test.count=").size()));
      conditions::InvocationOutput out;
      out.exit_code = inv.number == env.fail_on_invocation ? 3 : 0;
      if (out.exit_code) out.err = "panic: boom\ngoroutine 1";
      for (int i = 0; i < count && !out.exit_code; ++i) {
        if (env.clock) env.clock->now += env.seconds / count;
        const std::string line =
            fmt::format("BenchmarkX-2   \t1000\t{}.5 ns/op\t64 B/op\t1 allocs/op", 10 + i);
        if (on_line) on_line(line);
        out.out += line + "\n";
      }
      out.details.affinity = std::vector<int>{0, 1};
      out.accounting.counters = env.counters;
      ++env.invocations;
      return out;
    }
    void finish() override { env.calls.push_back("finish " + name); }
    records::ConditionSetup setup() const override { return {}; }
  };

  std::unique_ptr<conditions::ConditionScope> enter(const model::Condition& c) override {
    calls.push_back("enter " + c.name);
    return std::make_unique<Scope>(*this, c.name);
  }
  // The 1-minute figure is the fake clock's time when there is one: shows when it was read.
  fingerprint::LoadReading load() override {
    return {fingerprint::LoadAverage{clock ? clock->now : 0.5, 0.4, 0.3, 1, 100}, ""};
  }
};

struct Collect : runner::Observer {
  std::vector<records::Sample> samples;
  std::vector<std::pair<std::size_t, std::size_t>> progress_seen;
  void sample(const records::Sample& s) override { samples.push_back(s); }
  std::vector<runner::ProgressCount> counts;
  void progress(const runner::ProgressCount& c, const records::Sample&) override {
    progress_seen.emplace_back(c.done, c.total);
    counts.push_back(c);
  }
};

// Runs the whole experiment; returns what was measured.
runner::Measured run(const model::Experiment& e, conditions::Environment& env, runner::Clock& clock,
                     runner::Observer& obs, const model::Cancelled& cancelled = nullptr) {
  const plan::Plan p = plan::plan(e);
  runner::Measured measured;
  runner::run(e, p, env, clock, obs, cancelled, measured);
  return measured;
}

}  // namespace

TEST_CASE("runner: sequential runs each condition in one block with one invocation, cooling down between") {
  auto e = testing::two_conditions(model::Schedule::sequential, 3, 1, 0);
  e.cooldown = model::Seconds(2);
  FakeClock clock;
  FakeEnvironment env;
  Collect obs;
  const auto m = run(e, env, clock, obs);
  CHECK(env.calls == std::vector<std::string>{"enter idle", "run idle #0 -test.count=4", "finish idle",
                                              "leave idle", "enter noisy", "run noisy #1 -test.count=4",
                                              "finish noisy", "leave noisy"});
  CHECK(clock.slept == std::vector<double>{2});  // between the blocks, not before the first
  REQUIRE(obs.samples.size() == 8);
  CHECK(obs.samples[0].warmup);
  CHECK_FALSE(obs.samples[1].warmup);
  CHECK(obs.samples[1].index == 1);
  CHECK(obs.samples[1].benchmark == "BenchmarkX");
  CHECK(obs.samples[1].procs == 2);
  CHECK(obs.samples[1].metrics.front().value == 11.5);
  CHECK(obs.samples[4].condition == "noisy");
  CHECK(m.samples == obs.samples);
  // The records: what was entered, with the load around it and every invocation read back.
  REQUIRE(m.conditions.size() == 2);
  CHECK(m.conditions[0].condition == "idle");
  CHECK(m.conditions[1].block == 1);
  CHECK(m.conditions[0].load_before.value->one == 0.5);
  CHECK(m.conditions[0].load_after.has_value());
  REQUIRE(m.conditions[0].runs.size() == 1);
  CHECK(m.conditions[0].runs[0].argv ==
        std::vector<std::string>{"./b.test", "-test.bench=.", "-test.count=4"});
  CHECK(m.conditions[0].runs[0].details.affinity == std::vector<int>{0, 1});
  // Progress counts the kept samples of every benchmark over the whole run.
  CHECK(obs.progress_seen.back() == std::pair<std::size_t, std::size_t>{6, 6});
}

TEST_CASE("runner: a condition's args follow the command and its env is set over the benchmark's") {
  auto e = testing::two_conditions(model::Schedule::sequential, 2, 0, 0);
  e.benchmark.env = {{"GOGC", "100"}, {"GOMAXPROCS", "8"}};
  e.conditions[1].args = {"-test.cpu=2"};
  e.conditions[1].env = {{"GOMAXPROCS", "2"}};
  FakeClock clock;
  FakeEnvironment env;
  Collect obs;
  const auto m = run(e, env, clock, obs);
  REQUIRE(m.conditions.size() == 2);
  CHECK(m.conditions[0].runs[0].argv ==
        std::vector<std::string>{"./b.test", "-test.bench=.", "-test.count=2"});
  CHECK(m.conditions[1].runs[0].argv ==
        std::vector<std::string>{"./b.test", "-test.bench=.", "-test.cpu=2", "-test.count=2"});
  CHECK(env.envs.at(0) == std::map<std::string, std::string>{{"GOGC", "100"}, {"GOMAXPROCS", "8"}});
  CHECK(env.envs.at(1) == std::map<std::string, std::string>{{"GOGC", "100"}, {"GOMAXPROCS", "2"}});
  CHECK(m.conditions[1].setup.args == std::vector<std::string>{"-test.cpu=2"});
  CHECK(m.conditions[1].setup.env == std::map<std::string, std::string>{{"GOMAXPROCS", "2"}});
  CHECK(m.conditions[0].setup.args.empty());
}

TEST_CASE("runner: a condition settles before its first sample, every block, and the load is read after") {
  auto e = testing::two_conditions(model::Schedule::interleaved, 2, 0, 1);
  e.settle = model::Seconds(1.5);
  FakeClock clock;
  FakeEnvironment env;
  env.clock = &clock;
  env.seconds = 1;
  Collect obs;
  const auto m = run(e, env, clock, obs);
  // Interleaved: 4 blocks (idle, noisy, idle, noisy), each settled once before its invocation.
  CHECK(clock.slept == std::vector<double>{1.5, 1.5, 1.5, 1.5});
  REQUIRE(m.conditions.size() == 4);
  for (std::size_t b = 0; b < 4; ++b) {
    CAPTURE(b);
    const double entered = 2.5 * static_cast<double>(b);  // 1.5 s settle + 1 s invocation per block
    CHECK(m.conditions[b].load_before.value->one == entered);
    CHECK(m.conditions[b].settle_seconds == 1.5);
    REQUIRE(m.conditions[b].load_settled.has_value());
    CHECK(m.conditions[b].load_settled->value->one == entered + 1.5);
  }
  // The first sample is taken only after the settle time.
  CHECK(obs.samples[0].elapsed_seconds == 2.5);
}

TEST_CASE("runner: the noise profile's time counts towards the first block's settle, when it adds nothing") {
  auto e = testing::two_conditions(model::Schedule::interleaved, 2, 0, 1);
  e.settle = model::Seconds(1.5);
  e.conditions[1].spinners = model::SpinnerSpec{};
  // The waits of a run whose noise profile took `profiled` seconds, and each block's settle time.
  struct Waits {
    std::vector<double> slept, settled;
  };
  const auto run_after = [&](double profiled) {
    FakeClock clock;
    FakeEnvironment env;
    env.clock = &clock;
    Collect obs;
    runner::Measured m;
    runner::run(e, plan::plan(e), env, clock, obs, nullptr, m, {}, model::Seconds(profiled));
    Waits w{clock.slept, {}};
    for (const auto& c : m.conditions) w.settled.push_back(c.settle_seconds);
    return w;
  };
  // idle first: 1 s of profile leaves 0.5 s of its 1.5 s settle; later blocks settle in full.
  const Waits one = run_after(1);
  CHECK(one.slept == std::vector<double>{0.5, 1.5, 1.5, 1.5});
  CHECK(one.settled == std::vector<double>{0.5, 1.5, 1.5, 1.5});
  // A profile longer than the settle time: no wait at all, never a negative one.
  const Waits two = run_after(2);
  CHECK(two.slept == std::vector<double>{1.5, 1.5, 1.5});
  CHECK(two.settled == std::vector<double>{0, 1.5, 1.5, 1.5});
  // A first condition with spinners (or a container) changes the room: it settles in full.
  std::swap(e.conditions[0], e.conditions[1]);
  CHECK(run_after(1).slept == std::vector<double>{1.5, 1.5, 1.5, 1.5});
}

TEST_CASE("runner: metric: instructions is the invocation's count per iteration of its one result") {
  auto e = testing::two_conditions(model::Schedule::sequential, 2, 0, 1);
  e.benchmark.metric = "instructions/op";
  e.benchmark.counter = "instructions";
  FakeClock clock;
  FakeEnvironment env;
  env.counters = model::Counters{};
  env.counters->counts["instructions"] = 2'500'000;  // over 1000 iterations: 2500 per op
  Collect obs;
  const auto m = run(e, env, clock, obs);
  REQUIRE(obs.samples.size() == 4);
  for (const auto& s : obs.samples) {
    REQUIRE(s.metrics.size() == 4);
    CHECK(s.metrics[0] == model::Metric{2500, "instructions/op"});
    CHECK(s.metrics[1].unit == "ns/op");  // what the benchmark printed stays, after it
  }

  // Not counted here: the run fails with the counter's own reason, never a made-up number.
  env.counters->counts.clear();
  env.counters->missing["instructions"] = "no PMU: Performance Events: no PMU driver, software events only";
  Collect none;
  runner::Measured measured;
  try {
    runner::run(e, plan::plan(e), env, clock, none, nullptr, measured);
    FAIL("no error");
  } catch (const RunError& err) {
    CHECK(std::string(err.what()) ==
          "condition 'idle', run 1 of 4: metric: instructions/op needs the kernel's instructions counter, "
          "which "
          "could not be read: no PMU: Performance Events: no PMU driver, software events only");
  }
  CHECK(none.samples.empty());
}

TEST_CASE("runner: every sample and record is stamped by the injected clock") {
  const auto e = testing::two_conditions(model::Schedule::sequential, 2, 0, 0);
  FakeClock clock;
  clock.now = 100;
  FakeEnvironment env;
  env.clock = &clock;
  env.seconds = 4;  // one invocation of 2 samples: 2 s per sample
  Collect obs;
  const auto m = run(e, env, clock, obs);
  REQUIRE(obs.samples.size() == 4);
  CHECK(obs.samples[0].elapsed_seconds == 102);
  CHECK(obs.samples[1].elapsed_seconds == 104);
  CHECK(obs.samples[1].utc == "t+104");
  CHECK(obs.samples[3].elapsed_seconds == 108);
  CHECK(m.conditions[0].started_utc == "t+100");
  CHECK(m.conditions[0].finished_utc == "t+104");
  CHECK(m.conditions[1].started_utc == "t+104");
}

TEST_CASE("runner: interleaved goes round-robin over conditions, one invocation each") {
  const auto e = testing::two_conditions(model::Schedule::interleaved, 2, 0, 1);
  FakeClock clock;
  FakeEnvironment env;
  Collect obs;
  const auto m = run(e, env, clock, obs);
  std::vector<std::string> runs;
  for (const auto& c : env.calls)
    if (c.rfind("run ", 0) == 0) runs.push_back(c);
  CHECK(runs == std::vector<std::string>{"run idle #0 -test.count=1", "run noisy #1 -test.count=1",
                                         "run idle #2 -test.count=1", "run noisy #3 -test.count=1"});
  CHECK(obs.samples.size() == 4);
  CHECK(obs.samples[2].condition == "idle");
  CHECK(obs.samples[2].index == 1);
  CHECK(m.conditions.size() == 4);  // every turn is a block of its own
}

TEST_CASE("runner: a failing benchmark names the condition and quotes stderr; samples so far are kept") {
  const auto e = testing::two_conditions(model::Schedule::sequential, 2, 0, 0);
  FakeClock clock;
  FakeEnvironment env;
  env.fail_on_invocation = 1;
  Collect obs;
  const plan::Plan p = plan::plan(e);
  runner::Measured m;
  CHECK_THROWS_WITH_AS(runner::run(e, p, env, clock, obs, nullptr, m),
                       "condition 'noisy', run 2 of 2: the benchmark exited with code 3 (0 sample(s) arrived "
                       "before it); last lines of its stderr:\n    | panic: boom\n    | goroutine 1",
                       RunError);
  CHECK(m.samples.size() == 2);
  CHECK(env.calls.back() == "leave noisy");  // the scope was torn down on the error path
  // The cut-short block is recorded, without an end.
  REQUIRE(m.conditions.size() == 2);
  CHECK(m.conditions[1].runs.size() == 1);
  CHECK(m.conditions[1].runs[0].exit_code == 3);
  CHECK(m.conditions[1].finished_utc.empty());
  CHECK_FALSE(m.conditions[1].load_after.has_value());
}

TEST_CASE("runner: cancellation between invocations throws Interrupted and tears the scope down") {
  const auto e = testing::two_conditions(model::Schedule::interleaved, 3, 0, 1);
  FakeClock clock;
  FakeEnvironment env;
  Collect obs;
  const plan::Plan p = plan::plan(e);
  runner::Measured m;
  CHECK_THROWS_AS(runner::run(
                      e, p, env, clock, obs, [&] { return env.invocations >= 3; }, m),
                  Interrupted);
  CHECK(m.samples.size() == 3);
  CHECK(env.calls.back() == "leave idle");
}

namespace {

// Records the variant of each run (its command's 2nd argument) and prints one result line whose
// value depends on the variant, so paired ratios are known.
struct VariantEnv : conditions::Environment {
  FakeClock* clock = nullptr;
  std::vector<std::string> runs;
  struct Scope : conditions::ConditionScope {
    VariantEnv& env;
    explicit Scope(VariantEnv& e) : env(e) {}
    conditions::InvocationOutput run(const conditions::Invocation& inv, const model::LineCallback& on_line,
                                     const model::Cancelled&) override {
      const std::string v = inv.argv.at(1);
      env.runs.push_back(v);
      if (env.clock) env.clock->now += 1;
      const double value = v == "x3" ? 300 : 100 + static_cast<double>(env.runs.size() % 3);
      on_line(fmt::format("BenchmarkW\t10\t{} ns/op", value));
      conditions::InvocationOutput out;
      out.exit_code = 0;
      return out;
    }
    void finish() override {}
    records::ConditionSetup setup() const override { return {}; }
  };
  std::unique_ptr<conditions::ConditionScope> enter(const model::Condition&) override {
    return std::make_unique<Scope>(*this);
  }
  fingerprint::LoadReading load() override { return {}; }
};

model::Experiment paired_experiment(int samples, int warmup) {
  auto e = testing::two_conditions(model::Schedule::sequential, samples, warmup, 1);
  e.conditions.resize(1);
  e.variants = {model::Variant{"base", {"./w", "x1"}, {}, {}, {}},
                model::Variant{"x3", {"./w", "x3"}, {}, {}, {}}};
  e.comparison.baseline = "base";
  return e;
}

}  // namespace

TEST_CASE("runner: paired repeats run baseline and variant back to back, ABBA, with the A/A pair") {
  const auto e = paired_experiment(4, 1);
  FakeClock clock;
  VariantEnv env;
  Collect obs;
  const auto m = run(e, env, clock, obs);
  // repeat 0 is the warm-up; the kept repeats 1..4 go AB, BA, BA, AB; each repeat runs the
  // (base, x3) pair, then the (base, base') A/A pair
  CHECK(env.runs == std::vector<std::string>{"x1", "x3", "x1", "x1",    // r0 (warm-up) AB
                                             "x1", "x3", "x1", "x1",    // r1 AB
                                             "x3", "x1", "x1", "x1",    // r2 BA
                                             "x3", "x1", "x1", "x1",    // r3 BA
                                             "x1", "x3", "x1", "x1"});  // r4 AB
  REQUIRE(obs.samples.size() == 20);
  CHECK(obs.samples[0].variant == "base");
  CHECK(obs.samples[0].pair == "x3");
  CHECK(obs.samples[0].order == model::PairOrder::ab);
  CHECK(obs.samples[0].warmup);
  CHECK(obs.samples[3].variant == "base'");
  CHECK(obs.samples[3].pair == "A/A");
  CHECK(obs.samples[4].variant == "base");
  CHECK(obs.samples[4].order == model::PairOrder::ab);
  CHECK(obs.samples[4].repeat == 1);
  CHECK_FALSE(obs.samples[4].warmup);
  CHECK(obs.samples[8].variant == "x3");
  CHECK(obs.samples[8].order == model::PairOrder::ba);
  // Every invocation's place in the design is recorded with it.
  REQUIRE(m.conditions.size() == 1);
  REQUIRE(m.conditions[0].runs.size() == 20);
  CHECK(m.conditions[0].runs[8].pair == records::PairPosition{"x3", 2, model::PairOrder::ba, "x3"});
}

TEST_CASE("runner: samples: auto stops a condition once the 99% median CI is narrow enough") {
  auto e = testing::two_conditions(model::Schedule::sequential, 10, 0, 1);
  e.adaptive = model::Adaptive{};
  e.adaptive->precision = 0.05;
  e.adaptive->max_samples = 40;
  // FakeEnvironment prints -test.count=1 lines with value 10.5: zero spread converges at n0.
  FakeClock clock;
  FakeEnvironment env;
  Collect obs;
  const auto m = run(e, env, clock, obs);
  CHECK(obs.samples.size() == 20);  // 10 per condition: n0, then converged
  CHECK(m.adaptive.at("idle").converged);
  CHECK(m.adaptive.at("idle").samples == 10);
  CHECK(m.adaptive.at("noisy").stopped_by == records::StopReason::precision);
}

TEST_CASE("runner: samples: auto stops at max_samples when it cannot converge, and says so") {
  auto e = paired_experiment(10, 0);
  e.adaptive = model::Adaptive{};
  e.adaptive->precision = 0.0001;
  e.adaptive->max_samples = 12;
  FakeClock clock;
  VariantEnv env;
  Collect obs;
  const auto m = run(e, env, clock, obs);
  CHECK_FALSE(m.adaptive.at("idle").converged);
  CHECK(m.adaptive.at("idle").samples == 12);
  CHECK(m.adaptive.at("idle").stopped_by == records::StopReason::max_samples);
  CHECK(*m.adaptive.at("idle").halfwidth > 0.0001);
}

TEST_CASE("runner: samples: auto stops every condition once the time budget is spent") {
  auto e = paired_experiment(10, 0);
  e.conditions.resize(2);
  e.conditions[1].name = "noisy";
  e.adaptive = model::Adaptive{};
  e.adaptive->precision = 0.0001;  // never reached
  e.adaptive->max_samples = 1000;
  e.adaptive->budget = model::Seconds(60);
  FakeClock clock;
  VariantEnv env;
  env.clock = &clock;  // every invocation takes 1 s; a repeat is 4 invocations
  Collect obs;
  const auto m = run(e, env, clock, obs);
  // 15 repeats of 4 s reach the 60 s budget exactly; the 16th starts past it: the first
  // condition stops at 16 repeats, the second is past the budget at once.
  CHECK(m.adaptive.at("idle").stopped_by == records::StopReason::time_budget);
  CHECK(m.adaptive.at("idle").samples == 16);
  CHECK(m.adaptive.at("noisy").stopped_by == records::StopReason::time_budget);
  CHECK(m.adaptive.at("noisy").samples == 0);
  CHECK(clock.now == 64);
}

TEST_CASE("runner: samples: auto stopped by the budget during the warm-up kept no samples, not fewer") {
  auto e = paired_experiment(10, 3);
  e.adaptive = model::Adaptive{};
  e.adaptive->budget = model::Seconds(2);
  FakeClock clock;
  VariantEnv env;
  env.clock = &clock;  // a repeat is 4 invocations of 1 s: past the budget after the first
  Collect obs;
  const auto m = run(e, env, clock, obs);
  CHECK(m.adaptive.at("idle").stopped_by == records::StopReason::time_budget);
  CHECK(m.adaptive.at("idle").samples == 0);
}

TEST_CASE("runner: benchmark.metric makes the chosen unit the primary metric") {
  auto e = testing::two_conditions(model::Schedule::sequential, 2, 0, 0);
  e.benchmark.metric = "B/op";
  FakeClock clock;
  FakeEnvironment env;
  Collect obs;
  run(e, env, clock, obs);
  REQUIRE(!obs.samples.empty());
  CHECK(obs.samples[0].metrics.front() == model::Metric{64, "B/op"});
  CHECK(obs.samples[0].metrics[1] == model::Metric{10.5, "ns/op"});
  e.benchmark.metric = "cpu-ns/op";
  Collect obs2;
  CHECK_THROWS_WITH_AS(run(e, env, clock, obs2),
                       "condition 'idle': BenchmarkX-2 reported no cpu-ns/op metric (benchmark.metric)",
                       ParseError);
}

// A machine whose benchmark prints the lines `script` gives for the condition and the -test.count
// of the invocation, and exits 0.
struct ScriptedEnv : conditions::Environment {
  using Script = std::function<std::vector<std::string>(const std::string& condition, int count)>;
  Script script;
  explicit ScriptedEnv(Script s) : script(std::move(s)) {}
  struct Scope : conditions::ConditionScope {
    const Script& script;
    std::string name;
    Scope(const Script& s, std::string n) : script(s), name(std::move(n)) {}
    conditions::InvocationOutput run(const conditions::Invocation& inv, const model::LineCallback& on_line,
                                     const model::Cancelled&) override {
      const int count = std::stoi(inv.argv.back().substr(std::string("-test.count=").size()));
      for (const auto& line : script(name, count)) on_line(line);
      conditions::InvocationOutput out;
      out.exit_code = 0;
      return out;
    }
    void finish() override {}
    records::ConditionSetup setup() const override { return {}; }
  };
  std::unique_ptr<conditions::ConditionScope> enter(const model::Condition& c) override {
    return std::make_unique<Scope>(script, c.name);
  }
  fingerprint::LoadReading load() override { return {}; }
};

TEST_CASE("runner: a sample that is not a finite number is an error naming it") {
  ScriptedEnv env(
      [](const std::string&, int) { return std::vector<std::string>{"BenchmarkX-2\t100\t+Inf ns/op"}; });
  auto e = testing::two_conditions(model::Schedule::sequential, 2, 0, 0);
  FakeClock clock;
  Collect obs;
  const plan::Plan p = plan::plan(e);
  runner::Measured m;
  CHECK_THROWS_WITH_AS(runner::run(e, p, env, clock, obs, nullptr, m),
                       "condition 'idle': BenchmarkX-2 reported inf ns/op: not a finite number", ParseError);
  CHECK(m.samples.empty());
}

TEST_CASE("runner: progress counts each condition's own benchmarks (GOMAXPROCS differs by condition)") {
  // idle prints BenchmarkX-2, pinned (one CPU) BenchmarkX: progress must reach its total.
  ScriptedEnv env([](const std::string& condition, int count) {
    return std::vector<std::string>(static_cast<std::size_t>(count), condition == "idle"
                                                                         ? "BenchmarkX-2\t100\t12.5 ns/op"
                                                                         : "BenchmarkX\t100\t20.5 ns/op");
  });
  auto e = testing::two_conditions(model::Schedule::sequential, 3, 0, 0);
  e.conditions[1].name = "pinned";
  FakeClock clock;
  Collect obs;
  run(e, env, clock, obs);
  REQUIRE(obs.samples.size() == 6);
  CHECK(obs.progress_seen.back() == std::pair<std::size_t, std::size_t>{6, 6});
}

TEST_CASE(
    "runner: progress counts every benchmark against the true total, once one invocation printed them") {
  // Three benchmarks per invocation (a -test.bench pattern that matches three), as go test prints
  // them: each benchmark's count samples, then the next.
  ScriptedEnv env([](const std::string&, int count) {
    std::vector<std::string> lines;
    for (const char* name : {"BenchmarkA-2", "BenchmarkB-2", "BenchmarkC-2"})
      for (int i = 0; i < count; ++i) lines.push_back(fmt::format("{}\t100\t{}.5 ns/op", name, 10 + i));
    return lines;
  });
  auto e = testing::two_conditions(model::Schedule::sequential, 4, 0, 0);
  FakeClock clock;
  Collect obs;
  run(e, env, clock, obs);
  REQUIRE(obs.counts.size() == 24);  // 2 conditions × 3 benchmarks × 4 samples
  // During the first invocation the size is not known: the count grows with what was printed.
  CHECK_FALSE(obs.counts[0].total_known);
  CHECK(obs.counts[4].benchmarks == 2);
  CHECK(obs.counts[4].benchmark_done == 1);  // B's first sample
  // From the second condition on, the run's size is 2 × 3 × 4 and every sample counts towards it.
  CHECK(obs.counts[12].total_known);
  CHECK(obs.counts[12].total == 24);
  CHECK(obs.counts[12].benchmarks == 3);
  CHECK(obs.counts.back().done == 24);
  CHECK(obs.counts.back().total == 24);
  CHECK(obs.counts.back().benchmark_done == 4);
  CHECK(obs.counts.back().benchmark_total == 4);
  for (std::size_t i = 0; i < obs.counts.size(); ++i) CHECK(obs.counts[i].done == i + 1);
}

TEST_CASE("runner: a counter that is not a number is kept as NaN and said once; the primary must be finite") {
  // Google Benchmark prints a rate over zero time as NaN: only the metric the statistics use matters.
  ScriptedEnv env([](const std::string&, int) {
    return std::vector<std::string>{"BenchmarkX-2\t100\t12.5 ns/op\tNaN items/s",
                                    "BenchmarkX-2\t100\t12.7 ns/op\tNaN items/s"};
  });
  auto e = testing::two_conditions(model::Schedule::sequential, 2, 0, 0);
  e.conditions.resize(1);
  FakeClock clock;
  Collect obs;
  const auto m = run(e, env, clock, obs);
  REQUIRE(m.samples.size() == 2);
  CHECK(m.samples[0].metrics.front().value == 12.5);
  CHECK(std::isnan(m.samples[0].metrics[1].value));
  REQUIRE(m.warnings.size() == 1);
  CHECK(m.warnings[0] == records::RunWarning{.kind = records::RunWarningKind::non_finite_metric,
                                             .condition = "idle",
                                             .benchmark = "BenchmarkX-2",
                                             .unit = "items/s",
                                             .detail = "nan"});
  CHECK(render::run_warning_text(m.warnings[0]) ==
        "condition 'idle': BenchmarkX-2 reported nan items/s: kept as not a number (only the primary metric "
        "must "
        "be finite)");
  // Asking for the NaN counter as the primary metric makes it an error.
  e.benchmark.metric = "items/s";
  Collect obs2;
  CHECK_THROWS_WITH_AS(run(e, env, clock, obs2),
                       "condition 'idle': BenchmarkX-2 reported nan items/s: not a finite number",
                       ParseError);
}
