// plan/: the ordered steps of every design, as plain values, and the argv of an invocation.
#include "plan/plan.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <map>

#include "test_support.hpp"

using namespace noisefloor;

namespace {

model::Experiment paired(model::Schedule schedule, int samples, int warmup, bool aa = true) {
  auto e = testing::two_conditions(schedule, samples, warmup, 1);
  e.variants = {model::Variant{"base", {"./w", "-n=1"}, {}, {}, {}},
                model::Variant{"fast", {"./w", "-n=2"}, {}, {}, {}}};
  e.comparison.aa = aa;
  return e;
}

// "condition:repeat:samples" per step.
std::vector<std::string> shape(const plan::Plan& p) {
  std::vector<std::string> out;
  for (const auto& s : p.steps)
    out.push_back(std::to_string(s.condition) + ":" + std::to_string(s.repeat) + ":" +
                  std::to_string(s.samples));
  return out;
}

// "variant/pair/order" of each unit of a step.
std::vector<std::string> units(const plan::Step& s) {
  std::vector<std::string> out;
  for (const auto& u : s.units)
    out.push_back(u.variant + "/" + u.pair + "/" + std::string(model::name_of(u.order)));
  return out;
}

}  // namespace

TEST_CASE("plan: sequential splits each condition's samples plus warm-up into invocations") {
  const auto p = plan::plan(testing::two_conditions(model::Schedule::sequential, 5, 1, 4));
  CHECK(shape(p) == std::vector<std::string>{"0:0:4", "0:1:2", "1:0:4", "1:1:2"});
  CHECK(p.invocations() == 4);
  CHECK(p.per_condition == 5);
  CHECK(p.units_per_repeat == 1);
  CHECK_FALSE(p.adaptive);
  CHECK(p.steps[0].units.front().command == std::vector<std::string>{"./b.test", "-test.bench=."});
}

TEST_CASE("plan: sequential with samples_per_run all is one invocation per condition") {
  const auto p = plan::plan(testing::two_conditions(model::Schedule::sequential, 20, 2, 0));
  CHECK(shape(p) == std::vector<std::string>{"0:0:22", "1:0:22"});
}

TEST_CASE("plan: interleaved goes round-robin over the conditions") {
  const auto p = plan::plan(testing::two_conditions(model::Schedule::interleaved, 3, 0, 1));
  CHECK(shape(p) == std::vector<std::string>{"0:0:1", "1:0:1", "0:1:1", "1:1:1", "0:2:1", "1:2:1"});
}

TEST_CASE("plan: paired repeats run each pair back to back, ABBA over the kept repeats") {
  const auto p = plan::plan(paired(model::Schedule::sequential, 4, 1));
  REQUIRE(p.steps.size() == 10);
  CHECK(p.units_per_repeat == 4);
  // Repeat 0 is the warm-up; the kept repeats 1..4 go AB, BA, BA, AB.
  CHECK(units(p.steps[0]) ==
        std::vector<std::string>{"base/fast/AB", "fast/fast/AB", "base/A/A/AB", "base'/A/A/AB"});
  CHECK(units(p.steps[1]) ==
        std::vector<std::string>{"base/fast/AB", "fast/fast/AB", "base/A/A/AB", "base'/A/A/AB"});
  CHECK(units(p.steps[2]) ==
        std::vector<std::string>{"fast/fast/BA", "base/fast/BA", "base'/A/A/BA", "base/A/A/BA"});
  CHECK(units(p.steps[3]) ==
        std::vector<std::string>{"fast/fast/BA", "base/fast/BA", "base'/A/A/BA", "base/A/A/BA"});
  CHECK(units(p.steps[4]) ==
        std::vector<std::string>{"base/fast/AB", "fast/fast/AB", "base/A/A/AB", "base'/A/A/AB"});
  CHECK(p.steps[5].condition == 1);
  CHECK(p.steps[5].repeat == 0);
  // Without the A/A check a repeat is just the pair.
  CHECK(plan::plan(paired(model::Schedule::sequential, 2, 0, false)).units_per_repeat == 2);
}

TEST_CASE("plan: paired and interleaved alternates conditions at every repeat") {
  const auto p = plan::plan(paired(model::Schedule::interleaved, 2, 0));
  CHECK(shape(p) == std::vector<std::string>{"0:0:1", "1:0:1", "0:1:1", "1:1:1"});
}

TEST_CASE("plan: design blocks runs each variant's repeats in a block of their own") {
  auto e = paired(model::Schedule::sequential, 2, 1);
  e.comparison.blocks = true;
  const auto p = plan::plan(e);
  std::vector<std::string> seen;
  for (const auto& s : p.steps) seen.push_back(std::to_string(s.condition) + ":" + s.units.at(0).variant);
  CHECK(seen == std::vector<std::string>{"0:base", "0:base", "0:base", "0:fast", "0:fast", "0:fast", "1:base",
                                         "1:base", "1:base", "1:fast", "1:fast", "1:fast"});
  CHECK(p.steps[0].units[0].pair.empty());
}

TEST_CASE("plan: samples auto is decided step by step by the scheduler") {
  auto e = testing::two_conditions(model::Schedule::interleaved, 10, 0, 1);
  e.adaptive = model::Adaptive{};
  e.adaptive->min_samples = 2;
  e.adaptive->max_samples = 3;
  const auto p = plan::plan(e);
  CHECK(p.adaptive);
  CHECK(p.steps.empty());
  CHECK(p.per_condition == 3);
  plan::Scheduler scheduler(e, p);
  std::vector<records::Sample> measured;
  std::vector<std::size_t> order;
  while (auto step = scheduler.next(measured, model::Seconds(0))) {
    order.push_back(step->condition);
    // A result that never converges: 1, 100, 1, 100, ...
    records::Sample s;
    s.condition = e.conditions[step->condition].name;
    s.benchmark = "BenchmarkX";
    s.metrics = {{order.size() % 2 ? 1.0 : 100.0, "ns/op"}};
    measured.push_back(s);
  }
  CHECK(order == std::vector<std::size_t>{0, 1, 0, 1, 0, 1});
  CHECK(scheduler.outcomes().at("idle").stopped_by == records::StopReason::max_samples);
  CHECK(scheduler.outcomes().at("idle").samples == 3);
  CHECK_FALSE(scheduler.outcomes().at("noisy").converged);
}

TEST_CASE("plan: argv gets the format's repetition flag") {
  model::BenchmarkSpec b;
  const std::vector<std::string> cmd = {"./b"};
  CHECK(plan::invocation_argv(b, cmd, 7) == std::vector<std::string>{"./b", "-test.count=7"});
  b.format = model::OutputFormat::gbench_json;
  CHECK(plan::invocation_argv(b, cmd, 3) ==
        std::vector<std::string>{"./b", "--benchmark_repetitions=3", "--benchmark_format=json"});
  b.format = model::OutputFormat::command;
  CHECK(plan::invocation_argv(b, cmd, 1) == std::vector<std::string>{"./b"});
}

namespace {
records::Sample done_sample(const std::string& condition, const std::string& name, int repeat = -1,
                            const std::string& variant = "", const std::string& pair = "") {
  records::Sample s;
  s.condition = condition;
  s.benchmark = s.name = name;
  s.repeat = repeat;
  s.variant = variant;
  s.pair = pair;
  s.metrics = {{1.0, "ns/op"}};
  return s;
}
}  // namespace

TEST_CASE("plan: remaining drops what earlier sessions delivered, and cuts a step delivered in part") {
  // Sequential, 3 samples + 1 warm-up per condition in invocations of 2: idle:0:2, idle:1:2, ...
  const auto e = testing::two_conditions(model::Schedule::sequential, 3, 1, 2);
  const plan::Plan full = plan::plan(e);
  CHECK(shape(full) == std::vector<std::string>{"0:0:2", "0:1:2", "1:0:2", "1:1:2"});
  std::vector<records::Sample> done;
  for (int i = 0; i < 4; ++i) done.push_back(done_sample("idle", "BenchmarkX-2"));
  done.push_back(done_sample("idle", "BenchmarkY-2"));  // another benchmark: not what is counted
  done.push_back(done_sample("noisy", "BenchmarkX-2"));
  CHECK(shape(plan::remaining(e, full, done)) == std::vector<std::string>{"1:0:1", "1:1:2"});
  CHECK(shape(plan::remaining(e, full, {})) == shape(full));
}

TEST_CASE("plan: remaining of a paired plan reruns every repeat that is not complete") {
  const auto e = paired(model::Schedule::sequential, 2, 0);
  const plan::Plan full = plan::plan(e);
  CHECK(shape(full) == std::vector<std::string>{"0:0:1", "0:1:1", "1:0:1", "1:1:1"});
  std::vector<records::Sample> done;
  // idle, repeat 0 complete: base and fast in pair "fast", base and base' in the A/A pair.
  for (const auto& [variant, pair] : std::vector<std::pair<std::string, std::string>>{
           {"base", "fast"}, {"fast", "fast"}, {"base", "A/A"}, {"base'", "A/A"}})
    done.push_back(done_sample("idle", "BenchmarkX", 0, variant, pair));
  // idle, repeat 1: only half.
  done.push_back(done_sample("idle", "BenchmarkX", 1, "base", "fast"));
  CHECK(shape(plan::remaining(e, full, done)) == std::vector<std::string>{"0:1:1", "1:0:1", "1:1:1"});
}

namespace {

model::Experiment gate(int warmup) {
  auto e = testing::two_conditions(model::Schedule::sequential, 10, warmup, 1);
  model::Variant base{"base", {"/c/b/bench.test"}, {}, "/c/b", {}};
  model::Variant head{"head", {"/c/h/bench.test"}, {}, "/c/h", {}};
  e.variants = {base, head};
  e.gate = model::GateSettings{};
  e.gate->max_repeats = 8;
  e.adaptive = model::Adaptive{.precision = 0.02, .min_samples = 6, .max_samples = 8};
  return e;
}

// "variant/order/workdir" of each unit of a step.
std::vector<std::string> quad(const std::vector<plan::Unit>& us) {
  std::vector<std::string> out;
  for (const auto& u : us)
    out.push_back(u.variant + "/" + std::string(model::name_of(u.order)) + "/" + u.workdir.value_or("-"));
  return out;
}

}  // namespace

TEST_CASE("plan: a gate repeat is a quad, ABBA over the kept repeats, each side in its checkout") {
  const auto e = gate(1);
  // Repeat 0 is the warm-up: the kept repeats 1, 2, 3, 4 run ABBA, BAAB, BAAB, ABBA.
  CHECK(quad(plan::quad_units(e, 1)) ==
        std::vector<std::string>{"base/ABBA//c/b", "head/ABBA//c/h", "head'/ABBA//c/h", "base'/ABBA//c/b"});
  CHECK(quad(plan::quad_units(e, 2)) ==
        std::vector<std::string>{"head/BAAB//c/h", "base/BAAB//c/b", "base'/BAAB//c/b", "head'/BAAB//c/h"});
  CHECK(plan::quad_units(e, 3).front().variant == "head");
  CHECK(plan::quad_units(e, 4).front().variant == "base");
  for (const auto& u : plan::quad_units(e, 1, 2)) {
    CHECK(u.pair == "gate");
    CHECK(u.block == 2);
  }
  const auto p = plan::plan(e);
  CHECK(p.adaptive);
  CHECK(p.units_per_repeat == 4);
  CHECK(p.per_condition == 8);
}

TEST_CASE("plan: the confirmation block runs only the flagged benchmarks") {
  model::BenchmarkSpec go;
  go.format = model::OutputFormat::gotest;
  const std::vector<std::string> cmd{"./b.test", "-test.bench=."};
  CHECK(plan::filtered_command(go, cmd, {}) == cmd);
  CHECK(
      plan::filtered_command(go, cmd,
                             {"BenchmarkSlowed-2", "BenchmarkMap/size=10-2", "BenchmarkMap/size=99-2"}) ==
      std::vector<std::string>{"./b.test", "-test.bench=.", "-test.bench=^(BenchmarkSlowed|BenchmarkMap)$"});
  CHECK(plan::filtered_command(go, cmd, {"BenchmarkX-y"}).back() == "-test.bench=^(BenchmarkX-y)$");
  model::BenchmarkSpec gb;
  gb.format = model::OutputFormat::gbench_json;
  CHECK(plan::filtered_command(gb, {"./g"}, {"BM_Sort/1024", "BM_f(x)"}) ==
        std::vector<std::string>{"./g", "--benchmark_filter=^(BM_Sort/1024|BM_f\\(x\\))$"});
  model::BenchmarkSpec command;
  command.format = model::OutputFormat::command;
  CHECK(plan::filtered_command(command, {"./run.sh"}, {"x"}) == std::vector<std::string>{"./run.sh"});
}

TEST_CASE("plan: a gate stops at the cap, then confirms what block 1 flagged in block 2") {
  auto e = gate(0);
  const auto p = plan::plan(e);
  plan::Scheduler scheduler(e, p);
  std::vector<std::map<std::string, std::vector<std::string>>> asked;
  scheduler.confirm_with([&](std::span<const records::Sample> measured) {
    std::map<std::string, std::vector<std::string>> flagged;
    if (asked.empty()) flagged["noisy"] = {"BenchmarkX-2"};
    asked.push_back(flagged);
    CHECK(measured.size() == 2 * 8 * 4);
    return flagged;
  });
  std::vector<records::Sample> measured;
  std::vector<std::string> steps;
  while (auto step = scheduler.next(measured, model::Seconds(0))) {
    steps.push_back(fmt::format("{}:{}:{}", step->condition, step->repeat, step->units.front().block));
    for (const auto& u : step->units) {
      records::Sample s;
      s.condition = e.conditions[step->condition].name;
      s.benchmark = "BenchmarkX";
      s.name = "BenchmarkX-2";
      s.variant = u.variant;
      s.pair = u.pair;
      s.order = u.order;
      s.repeat = step->repeat;
      s.block = u.block;
      // head/base alternates 1 and 1.5 from quad to quad: never converges, every block runs to its cap
      s.metrics = {{u.variant[0] == 'h' && step->repeat % 2 ? 1.5 : 1.0, "ns/op"}};
      measured.push_back(s);
    }
    if (step->units.front().block == 2)
      CHECK(step->units.front().command.back() == "-test.bench=^(BenchmarkX)$");
  }
  // Block 1: both conditions to the cap of 8 quads; block 2: only noisy, again 8.
  REQUIRE(steps.size() == 24);
  CHECK(steps[0] == "0:0:1");
  CHECK(steps[15] == "1:7:1");
  CHECK(steps[16] == "1:0:2");
  CHECK(steps[23] == "1:7:2");
  CHECK(asked.size() == 1);
  CHECK(scheduler.outcomes().at("noisy").samples == 8);
  CHECK(scheduler.outcomes().at("noisy").stopped_by == records::StopReason::max_samples);
}

TEST_CASE("plan: a gate whose quads agree stops at its first six") {
  auto e = gate(0);
  e.conditions.resize(1);
  const auto p = plan::plan(e);
  plan::Scheduler scheduler(e, p);
  std::vector<records::Sample> measured;
  int quads = 0;
  while (auto step = scheduler.next(measured, model::Seconds(0))) {
    ++quads;
    for (const auto& u : step->units) {
      records::Sample s;
      s.condition = e.conditions[0].name;
      s.benchmark = s.name = "BenchmarkX";
      s.variant = u.variant;
      s.pair = u.pair;
      s.repeat = step->repeat;
      s.block = u.block;
      s.metrics = {{u.variant[0] == 'h' ? 150.0 + step->repeat : 100.0 + step->repeat, "ns/op"}};
      measured.push_back(s);
    }
  }
  CHECK(quads == 6);
  CHECK(scheduler.outcomes().at("idle").converged);
}

namespace {

// A gate's block 1 on one condition whose every quad is made by `value(variant, repeat)`: how many
// quads it ran and how it stopped.
template <typename Value>
std::pair<int, records::AdaptiveOutcome> run_gate(const Value& value) {
  auto e = gate(0);
  e.conditions.resize(1);
  const auto p = plan::plan(e);
  plan::Scheduler scheduler(e, p);
  std::vector<records::Sample> measured;
  int quads = 0;
  while (auto step = scheduler.next(measured, model::Seconds(0))) {
    ++quads;
    for (const auto& u : step->units) {
      records::Sample s;
      s.condition = e.conditions[0].name;
      s.benchmark = s.name = "BenchmarkX";
      s.variant = u.variant;
      s.pair = u.pair;
      s.order = u.order;
      s.repeat = step->repeat;
      s.block = u.block;
      s.metrics = {{value(u.variant, step->repeat), "ns/op"}};
      measured.push_back(s);
    }
  }
  return {quads, scheduler.outcomes().at("idle")};
}

}  // namespace

TEST_CASE("plan: a gate stops at its first look when a change is clear, whatever its floors (§3.13)") {
  // head/base is exactly 1.5 in every pair, but base' and head' wander ±5%: the floors stay wide;
  // the pairs decide at the first look.
  const auto [quads, outcome] = run_gate([](const std::string& v, int repeat) {
    const double wobble = repeat % 2 ? 1.05 : 0.95;
    return v == "base" ? 100.0 : v == "head" ? 150.0 : v == "base'" ? 100.0 * wobble : 150.0 * wobble;
  });
  CHECK(quads == 6);
  CHECK(outcome.converged);
  CHECK(outcome.stopped_by == records::StopReason::decided);
}

TEST_CASE("plan: a gate stops as futile when even an optimistic spread at the cap decides nothing") {
  // Every quad: one pair +3.5%, the other 0: about +1.7%, under θ = 2% (not slower), and too spread
  // for "within noise" by the cap (8 quads) with the spread at its lower 90% bound.
  const auto [quads, outcome] =
      run_gate([](const std::string& v, int) { return v == "head" ? 103.5 : 100.0; });
  CHECK(quads == 6);
  CHECK_FALSE(outcome.converged);
  CHECK(outcome.stopped_by == records::StopReason::futile);
}

TEST_CASE("plan: a gate goes on to its cap while the cap could still decide") {
  // Pairs of +4% and −4%: no change, too spread to say so at the first look (12 pairs), "within
  // noise" in reach at the cap (16 pairs) with an optimistic spread: not futile, so on to the cap.
  const auto [quads, outcome] = run_gate([](const std::string& v, int) {
    return v == "head" ? 104.0 : v == "head'" ? 96.0 : 100.0;
  });
  CHECK(quads == 8);
  CHECK_FALSE(outcome.converged);
  CHECK(outcome.stopped_by == records::StopReason::max_samples);
}

TEST_CASE("plan: the estimate validate prints: samples, blocks, fixed time and a sample's stated time") {
  auto e = testing::two_conditions(model::Schedule::sequential, 5, 1, 1);
  e.settle = model::Seconds(1);
  e.cooldown = model::Seconds(2);
  e.noise_profile = model::Seconds(1);
  plan::Estimate est = plan::estimate(e);
  CHECK(est.conditions == 2);
  CHECK(est.samples == 12);  // (5 kept + 1 warm-up) × 2 conditions
  CHECK(est.invocations == 12);
  CHECK(est.blocks == 2);
  CHECK(est.fixed_seconds == 1 + 2 * 1 + 1 * 2);
  // ./b.test without -test.benchtime: go test's default of 1 s.
  REQUIRE(est.sample_seconds);
  CHECK(*est.sample_seconds == 1);
  CHECK(est.sample_basis == "-test.benchtime=1s, go test's default");

  e.benchmark.command.push_back("-test.benchtime=250ms");
  e.schedule = model::Schedule::interleaved;
  est = plan::estimate(e);
  CHECK(est.blocks == 12);  // every invocation enters its condition again
  CHECK(est.fixed_seconds == 1 + 12 * 1 + 11 * 2);
  CHECK(*est.sample_seconds == 0.25);
  CHECK(est.sample_basis == "-test.benchtime=250ms");

  e.benchmark.command = {"./b.test", "-test.benchtime=100x"};  // a count: no time stated
  CHECK_FALSE(plan::estimate(e).sample_seconds);
  e.benchmark.command = {"./tool"};
  e.benchmark.format = model::OutputFormat::command;
  est = plan::estimate(e);
  CHECK_FALSE(est.sample_seconds);
  CHECK(est.sample_basis == "a command's time is its own");
}
