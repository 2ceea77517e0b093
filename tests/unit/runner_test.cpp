#include <doctest/doctest.h>

#include <fmt/format.h>

#include "model/errors.hpp"
#include "runner/runner.hpp"

using namespace noisefloor;

namespace {

// Records what the runner asked for, and prints `go test -bench` lines with predictable values.
struct FakeEnvironment : runner::Environment {
  std::vector<std::string> calls;
  int exit_code = 0;
  int fail_on_invocation = -1;
  int cancel_after_invocations = -1;
  int invocations = 0;

  struct Scope : runner::ConditionScope {
    FakeEnvironment& env;
    std::string name;
    Scope(FakeEnvironment& e, std::string n) : env(e), name(std::move(n)) {}
    ~Scope() override { env.calls.push_back("leave " + name); }
    runner::InvocationOutput run(const runner::Invocation& inv, const runner::LineCallback& on_line,
                                 const runner::Cancelled&) override {
      env.calls.push_back(fmt::format("run {} #{} {}", name, inv.number, inv.argv.back()));
      const int count = std::stoi(inv.argv.back().substr(std::string("-test.count=").size()));
      runner::InvocationOutput out;
      out.exit_code = inv.number == env.fail_on_invocation ? 3 : 0;
      if (out.exit_code) out.err = "panic: boom\ngoroutine 1";
      for (int i = 0; i < count && !out.exit_code; ++i) {
        const std::string line = fmt::format("BenchmarkX-2   \t1000\t{}.5 ns/op\t64 B/op\t1 allocs/op", 10 + i);
        if (on_line) on_line(line);
        out.out += line + "\n";
      }
      ++env.invocations;
      return out;
    }
    void finish() override { env.calls.push_back("finish " + name); }
    nlohmann::json describe() const override { return {{"name", name}}; }
  };

  std::unique_ptr<runner::ConditionScope> enter(const model::Condition& c) override {
    calls.push_back("enter " + c.name);
    return std::make_unique<Scope>(*this, c.name);
  }
  void cool_down(model::Seconds d, const runner::Cancelled&) override {
    calls.push_back(fmt::format("cool {}", d.count()));
  }
  nlohmann::json load() override { return {{"load1", 0.0}}; }
};

struct Collect : runner::Observer {
  std::vector<model::Sample> samples;
  void sample(const model::Sample& s) override { samples.push_back(s); }
};

model::Experiment experiment(model::Schedule schedule, int samples, int warmup, int per_run) {
  model::Experiment e;
  e.name = "t";
  e.benchmark.command = {"./b.test", "-test.bench=."};
  e.benchmark.samples = samples;
  e.benchmark.warmup = warmup;
  e.benchmark.samples_per_run = per_run;
  e.schedule = schedule;
  e.conditions.resize(2);
  e.conditions[0].name = "idle";
  e.conditions[1].name = "noisy";
  return e;
}

}  // namespace

TEST_CASE("runner: sequential runs each condition in one block with one invocation") {
  auto e = experiment(model::Schedule::sequential, 3, 1, 0);
  e.cooldown = model::Seconds(2);
  FakeEnvironment env;
  Collect obs;
  runner::RunRecord rec;
  runner::run(e, env, obs, nullptr, rec);
  CHECK(env.calls == std::vector<std::string>{"enter idle", "run idle #0 -test.count=4", "finish idle",
                                              "leave idle", "cool 2", "enter noisy", "run noisy #1 -test.count=4",
                                              "finish noisy", "leave noisy"});
  REQUIRE(obs.samples.size() == 8);
  CHECK(obs.samples[0].warmup);
  CHECK_FALSE(obs.samples[1].warmup);
  CHECK(obs.samples[1].index == 1);
  CHECK(obs.samples[1].benchmark == "BenchmarkX");
  CHECK(obs.samples[1].procs == 2);
  CHECK(obs.samples[1].metrics.front().value == 11.5);
  CHECK(obs.samples[4].condition == "noisy");
  CHECK(rec.conditions.size() == 2);
  CHECK(rec.samples.size() == 8);
}

TEST_CASE("runner: interleaved goes round-robin over conditions, one invocation each") {
  const auto e = experiment(model::Schedule::interleaved, 2, 0, 1);
  FakeEnvironment env;
  Collect obs;
  runner::RunRecord rec;
  runner::run(e, env, obs, nullptr, rec);
  std::vector<std::string> runs;
  for (const auto& c : env.calls)
    if (c.rfind("run ", 0) == 0) runs.push_back(c);
  CHECK(runs == std::vector<std::string>{"run idle #0 -test.count=1", "run noisy #1 -test.count=1",
                                         "run idle #2 -test.count=1", "run noisy #3 -test.count=1"});
  CHECK(obs.samples.size() == 4);
  CHECK(obs.samples[2].condition == "idle");
  CHECK(obs.samples[2].index == 1);
}

TEST_CASE("runner: a failing benchmark names the condition and quotes stderr; samples so far are kept") {
  const auto e = experiment(model::Schedule::sequential, 2, 0, 0);
  FakeEnvironment env;
  env.fail_on_invocation = 1;
  Collect obs;
  runner::RunRecord rec;
  CHECK_THROWS_WITH_AS(runner::run(e, env, obs, nullptr, rec),
                       "condition 'noisy', run 2 of 2: the benchmark exited with code 3 (0 sample(s) arrived "
                       "before it); last lines of stderr:\n    | panic: boom\n    | goroutine 1",
                       RunError);
  CHECK(rec.samples.size() == 2);
  CHECK(env.calls.back() == "leave noisy");  // the scope was torn down on the error path
}

TEST_CASE("runner: cancellation between invocations throws Interrupted and tears the scope down") {
  const auto e = experiment(model::Schedule::interleaved, 3, 0, 1);
  FakeEnvironment env;
  Collect obs;
  runner::RunRecord rec;
  CHECK_THROWS_AS(runner::run(e, env, obs, [&] { return env.invocations >= 3; }, rec), Interrupted);
  CHECK(rec.samples.size() == 3);
  CHECK(env.calls.back() == "leave idle");
}

TEST_CASE("runner: plan splits samples plus warm-up into invocations") {
  auto e = experiment(model::Schedule::sequential, 5, 1, 4);
  const auto p = runner::plan(e);
  REQUIRE(p.size() == 4);
  CHECK(p[0].samples == 4);
  CHECK(p[1].samples == 2);
  CHECK(p[2].condition == 1);
}

TEST_CASE("runner: argv gets the format's repetition flag") {
  model::BenchmarkSpec b;
  b.command = {"./b"};
  CHECK(runner::invocation_argv(b, 7) == std::vector<std::string>{"./b", "-test.count=7"});
  b.format = model::OutputFormat::gbench_json;
  CHECK(runner::invocation_argv(b, 3) ==
        std::vector<std::string>{"./b", "--benchmark_repetitions=3", "--benchmark_format=json"});
  b.format = model::OutputFormat::command;
  CHECK(runner::invocation_argv(b, 1) == std::vector<std::string>{"./b"});
}

TEST_CASE("runner: tail_lines quotes the last lines, indented") {
  CHECK(runner::tail_lines("a\nb\nc\n", 2) == "\n    | b\n    | c");
  CHECK(runner::tail_lines("only", 5) == "\n    | only");
}

namespace {

// Records the variant of each run (its command's 2nd argument) and prints one result line whose
// value depends on the variant, so paired ratios are known.
struct VariantEnv : runner::Environment {
  std::vector<std::string> runs;
  struct Scope : runner::ConditionScope {
    VariantEnv& env;
    explicit Scope(VariantEnv& e) : env(e) {}
    runner::InvocationOutput run(const runner::Invocation& inv, const runner::LineCallback& on_line,
                                 const runner::Cancelled&) override {
      const std::string v = inv.argv.at(1);
      env.runs.push_back(v);
      const double value = v == "x3" ? 300 : 100 + static_cast<double>(env.runs.size() % 3);
      on_line(fmt::format("BenchmarkW\t10\t{} ns/op", value));
      runner::InvocationOutput out;
      out.exit_code = 0;
      return out;
    }
    void finish() override {}
    nlohmann::json describe() const override { return nlohmann::json::object(); }
  };
  std::unique_ptr<runner::ConditionScope> enter(const model::Condition&) override { return std::make_unique<Scope>(*this); }
  void cool_down(model::Seconds, const runner::Cancelled&) override {}
  nlohmann::json load() override { return nlohmann::json::object(); }
};

model::Experiment paired_experiment(int samples, int warmup) {
  auto e = experiment(model::Schedule::sequential, samples, warmup, 1);
  e.conditions.resize(1);
  e.variants = {model::Variant{"base", {"./w", "x1"}, {}}, model::Variant{"x3", {"./w", "x3"}, {}}};
  e.comparison.baseline = "base";
  return e;
}

}  // namespace

TEST_CASE("runner: paired repeats run baseline and variant back to back, ABBA, with the A/A pair") {
  const auto e = paired_experiment(4, 1);
  VariantEnv env;
  Collect obs;
  runner::RunRecord rec;
  runner::run(e, env, obs, nullptr, rec);
  // repeat 0 is the warm-up; the kept repeats 1..4 go AB, BA, BA, AB; each repeat runs the
  // (base, x3) pair, then the (base, base') A/A pair
  CHECK(env.runs == std::vector<std::string>{"x1", "x3", "x1", "x1",   // r0 (warm-up) AB
                                             "x1", "x3", "x1", "x1",   // r1 AB
                                             "x3", "x1", "x1", "x1",   // r2 BA
                                             "x3", "x1", "x1", "x1",   // r3 BA
                                             "x1", "x3", "x1", "x1"}); // r4 AB
  REQUIRE(obs.samples.size() == 20);
  CHECK(obs.samples[0].variant == "base");
  CHECK(obs.samples[0].pair == "x3");
  CHECK(obs.samples[0].order == "AB");
  CHECK(obs.samples[0].warmup);
  CHECK(obs.samples[3].variant == "base'");
  CHECK(obs.samples[3].pair == "A/A");
  CHECK(obs.samples[4].variant == "base");
  CHECK(obs.samples[4].order == "AB");
  CHECK(obs.samples[4].repeat == 1);
  CHECK_FALSE(obs.samples[4].warmup);
  CHECK(obs.samples[8].variant == "x3");
  CHECK(obs.samples[8].order == "BA");
}

TEST_CASE("runner: samples: auto stops a condition once the 99% median CI is narrow enough") {
  auto e = experiment(model::Schedule::sequential, 10, 0, 1);
  e.adaptive = model::Adaptive{};
  e.adaptive->precision = 0.05;
  e.adaptive->max_samples = 40;
  // FakeEnvironment prints -test.count=1 lines with value 10.5: zero spread converges at n0.
  FakeEnvironment env;
  Collect obs;
  runner::RunRecord rec;
  runner::run(e, env, obs, nullptr, rec);
  CHECK(obs.samples.size() == 20);  // 10 per condition: n0, then converged
  CHECK(rec.adaptive["idle"]["converged"] == true);
  CHECK(rec.adaptive["idle"]["samples"] == 10);
  CHECK(rec.adaptive["noisy"]["stopped_by"] == "precision");
}

TEST_CASE("runner: samples: auto stops at max_samples when it cannot converge, and says so") {
  auto e = paired_experiment(10, 0);
  e.adaptive = model::Adaptive{};
  e.adaptive->precision = 0.0001;
  e.adaptive->max_samples = 12;
  VariantEnv env;
  Collect obs;
  runner::RunRecord rec;
  runner::run(e, env, obs, nullptr, rec);
  CHECK(rec.adaptive["idle"]["converged"] == false);
  CHECK(rec.adaptive["idle"]["samples"] == 12);
  CHECK(rec.adaptive["idle"]["stopped_by"] == "max_samples");
  CHECK(rec.adaptive["idle"]["halfwidth"].get<double>() > 0.0001);
}

TEST_CASE("runner: the 99% stopping half-widths") {
  CHECK_FALSE(runner::median_halfwidth99({1, 2, 3}).has_value());  // n too small for 99%
  std::vector<double> flat(10, 5.0);
  CHECK(runner::median_halfwidth99(flat) == 0.0);
  CHECK(runner::paired_halfwidth99({100, 100, 100}, {300, 300, 300}) == 0.0);
}

TEST_CASE("runner: benchmark.metric makes the chosen unit the primary metric") {
  auto e = experiment(model::Schedule::sequential, 2, 0, 0);
  e.benchmark.metric = "B/op";
  FakeEnvironment env;
  Collect obs;
  runner::RunRecord rec;
  runner::run(e, env, obs, nullptr, rec);
  REQUIRE(!obs.samples.empty());
  CHECK(obs.samples[0].metrics.front() == model::Metric{64, "B/op"});
  CHECK(obs.samples[0].metrics[1] == model::Metric{10.5, "ns/op"});
  e.benchmark.metric = "cpu-ns/op";
  Collect obs2;
  runner::RunRecord rec2;
  CHECK_THROWS_WITH_AS(runner::run(e, env, obs2, nullptr, rec2),
                       "condition 'idle': BenchmarkX-2 reported no cpu-ns/op metric (benchmark.metric)", ParseError);
}

TEST_CASE("runner: a sample that is not a finite number is an error naming it") {
  struct InfEnv : runner::Environment {
    struct Scope : runner::ConditionScope {
      runner::InvocationOutput run(const runner::Invocation&, const runner::LineCallback& on_line,
                                   const runner::Cancelled&) override {
        on_line("BenchmarkX-2\t100\t+Inf ns/op");
        runner::InvocationOutput out;
        out.exit_code = 0;
        return out;
      }
      void finish() override {}
      nlohmann::json describe() const override { return nlohmann::json::object(); }
    };
    std::unique_ptr<runner::ConditionScope> enter(const model::Condition&) override {
      return std::make_unique<Scope>();
    }
    void cool_down(model::Seconds, const runner::Cancelled&) override {}
    nlohmann::json load() override { return nlohmann::json::object(); }
  } env;
  auto e = experiment(model::Schedule::sequential, 2, 0, 0);
  Collect obs;
  runner::RunRecord rec;
  CHECK_THROWS_WITH_AS(runner::run(e, env, obs, nullptr, rec),
                       "condition 'idle': BenchmarkX-2 reported inf ns/op: not a finite number", ParseError);
  CHECK(rec.samples.empty());
}
