#include "plan/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>

#include "stats/gate.hpp"
#include "stats/summary.hpp"

namespace noisefloor::plan {
namespace {

// Samples one invocation delivers per benchmark: all of a condition's (plus warm-up) when
// samples_per_run is 0 (sequential only), else samples_per_run.
int per_invocation(const model::BenchmarkSpec& b) {
  return b.samples_per_run == 0 ? b.samples + b.warmup : b.samples_per_run;
}

Unit single_unit(const model::Experiment& e) {
  return Unit{"", e.benchmark.command, "", model::PairOrder::none, {}, 0};
}

constexpr double kStoppingConfidence = 0.99;

}  // namespace

namespace {

// A duration flag's value in seconds ("2s", "500ms", "1.5"), nullopt for a count ("100x").
std::optional<double> flag_seconds(std::string_view value) {
  double scale = 1;
  if (value.ends_with("ms")) {
    scale = 1e-3;
    value.remove_suffix(2);
  } else if (value.ends_with("us")) {
    scale = 1e-6;
    value.remove_suffix(2);
  } else if (value.ends_with("s")) {
    value.remove_suffix(1);
  } else if (value.ends_with("m")) {
    scale = 60;
    value.remove_suffix(1);
  } else if (value.ends_with("x")) {
    return std::nullopt;
  }
  double v = 0;
  const auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (value.empty() || ec != std::errc{} || p != value.data() + value.size() || !(v > 0)) return std::nullopt;
  return v * scale;
}

}  // namespace

Estimate estimate(const model::Experiment& e) {
  Estimate out;
  out.conditions = e.conditions.size();
  const Plan p = plan(e);
  out.adaptive = p.adaptive;
  if (p.adaptive) {
    const std::size_t per = static_cast<std::size_t>(e.adaptive->max_samples + e.benchmark.warmup);
    out.samples = per * e.conditions.size() * p.units_per_repeat;
    out.invocations = out.samples;
    out.blocks = e.schedule == model::Schedule::sequential ? e.conditions.size() : out.invocations;
  } else {
    std::optional<std::size_t> last;
    for (const Step& step : p.steps) {
      out.samples += static_cast<std::size_t>(step.samples) * step.units.size();
      if (!last || *last != step.condition) ++out.blocks;
      last = step.condition;
    }
    out.invocations = p.invocations();
  }
  out.fixed_seconds = e.noise_profile.count() + e.settle.count() * static_cast<double>(out.blocks) +
                      e.cooldown.count() * static_cast<double>(out.blocks > 0 ? out.blocks - 1 : 0);
  const std::string_view flag = e.benchmark.format == model::OutputFormat::gotest ? "-test.benchtime="
                                : e.benchmark.format == model::OutputFormat::gbench_json
                                    ? "--benchmark_min_time="
                                    : "";
  if (flag.empty()) {
    out.sample_basis = "a command's time is its own";
    return out;
  }
  for (const auto& arg : e.benchmark.command) {
    std::string_view a = arg;
    if (a.starts_with("--test.")) a.remove_prefix(1);  // go test accepts --flag too
    if (!a.starts_with(flag)) continue;
    out.sample_seconds = flag_seconds(a.substr(flag.size()));
    out.sample_basis = arg;
  }
  if (!out.sample_basis.empty()) return out;
  // A go test binary (x.test) or `go test` without -test.benchtime: go test's default, 1s.
  const auto& c = e.benchmark.command;
  const bool go_test =
      e.benchmark.format == model::OutputFormat::gotest && !c.empty() &&
      (c.front().ends_with(".test") ||
       (c.size() > 1 && (c.front() == "go" || c.front().ends_with("/go")) && c[1] == "test"));
  if (go_test) {
    out.sample_seconds = 1;
    out.sample_basis = "-test.benchtime=1s, go test's default";
  } else {
    out.sample_basis = fmt::format("the command does not set {}", flag.substr(0, flag.size() - 1));
  }
  return out;
}

std::size_t Plan::invocations() const {
  std::size_t n = 0;
  for (const auto& s : steps) n += s.units.size();
  return n;
}

std::vector<Unit> paired_units(const model::Experiment& e, int repeat) {
  const model::Variant& base = e.variants.front();
  // Counted from the first kept repeat, so the kept repeats are balanced (AB BA BA AB ...).
  const int k = ((repeat - e.benchmark.warmup) % 4 + 4) % 4;
  const bool ab = k == 0 || k == 3;
  std::vector<Unit> units;
  auto add_pair = [&](const std::string& other_name, const std::vector<std::string>& other_cmd,
                      const std::string& pair) {
    const model::PairOrder order = ab ? model::PairOrder::ab : model::PairOrder::ba;
    const Unit b{base.name, base.command, pair, order, {}, 0};
    const Unit v{other_name, other_cmd, pair, order, {}, 0};
    units.push_back(ab ? b : v);
    units.push_back(ab ? v : b);
  };
  for (std::size_t i = 1; i < e.variants.size(); ++i)
    add_pair(e.variants[i].name, e.variants[i].command, e.variants[i].name);
  if (e.comparison.aa) add_pair(records::aa_copy_of(base.name), base.command, std::string(records::kAaPair));
  return units;
}

std::vector<Unit> quad_units(const model::Experiment& e, int repeat, int block,
                             const std::vector<std::string>& benchmarks) {
  const model::Variant& base = e.variants.at(0);
  const model::Variant& head = e.variants.at(1);
  const int k = ((repeat - e.benchmark.warmup) % 4 + 4) % 4;
  const bool abba = k == 0 || k == 3;
  const model::PairOrder order = abba ? model::PairOrder::abba : model::PairOrder::baab;
  const auto unit = [&](const model::Variant& v, std::string name) {
    return Unit{std::move(name),
                filtered_command(e.benchmark, v.command, benchmarks),
                std::string(records::kGatePair),
                order,
                v.workdir,
                block};
  };
  Unit b = unit(base, base.name), h = unit(head, head.name);
  Unit b2 = unit(base, records::aa_copy_of(base.name)), h2 = unit(head, records::aa_copy_of(head.name));
  if (abba) return {b, h, h2, b2};
  return {h, b, b2, h2};
}

namespace {

// `name` with every regular-expression metacharacter escaped (RE2 and Go's regexp agree on them).
std::string regex_quote(std::string_view name) {
  std::string out;
  for (const char c : name) {
    if (std::string_view(R"(\.+*?()|[]{}^$)").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

// A go test result's top-level benchmark: "BenchmarkX/size=10-8" → "BenchmarkX", "BenchmarkY-8" →
// "BenchmarkY" (the -N GOMAXPROCS suffix dropped).
std::string go_top_level(std::string_view name) {
  name = name.substr(0, name.find('/'));
  const std::size_t dash = name.rfind('-');
  if (dash != std::string_view::npos && dash + 1 < name.size() &&
      name.find_first_not_of("0123456789", dash + 1) == std::string_view::npos)
    name = name.substr(0, dash);
  return std::string(name);
}

}  // namespace

std::vector<std::string> filtered_command(const model::BenchmarkSpec& spec,
                                          const std::vector<std::string>& command,
                                          const std::vector<std::string>& benchmarks) {
  if (benchmarks.empty() || spec.format == model::OutputFormat::command) return command;
  std::vector<std::string> names;
  for (const auto& b : benchmarks) {
    std::string n = regex_quote(spec.format == model::OutputFormat::gotest ? go_top_level(b) : b);
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(std::move(n));
  }
  std::vector<std::string> argv = command;
  // Both read their flags in order, so the last one given wins over the experiment's own.
  argv.push_back(fmt::format(
      "{}=^({})$", spec.format == model::OutputFormat::gotest ? "-test.bench" : "--benchmark_filter",
      fmt::join(names, "|")));
  return argv;
}

std::vector<std::string> invocation_argv(const model::BenchmarkSpec& spec,
                                         const std::vector<std::string>& command, int samples) {
  std::vector<std::string> argv = command;
  switch (spec.format) {
    case model::OutputFormat::gotest:
      argv.push_back(fmt::format("-test.count={}", samples));
      break;
    case model::OutputFormat::gbench_json:
      argv.push_back(fmt::format("--benchmark_repetitions={}", samples));
      argv.push_back("--benchmark_format=json");
      break;
    case model::OutputFormat::command:
      break;
  }
  return argv;
}

Plan plan(const model::Experiment& e) {
  Plan p;
  const std::size_t n = e.conditions.size();
  if (e.paired()) p.units_per_repeat = e.comparison.blocks ? e.variants.size() : paired_units(e, 0).size();
  if (e.gate) {
    p.adaptive = true;
    p.units_per_repeat = 4;
    p.per_condition = static_cast<std::size_t>(e.gate->max_repeats);
    return p;
  }
  if (e.adaptive) {
    p.adaptive = true;
    p.per_condition = static_cast<std::size_t>(e.adaptive->max_samples);
    return p;
  }
  p.per_condition = static_cast<std::size_t>(e.benchmark.samples);
  const int repeats = e.benchmark.samples + e.benchmark.warmup;
  const bool sequential = e.schedule == model::Schedule::sequential;
  if (!e.paired()) {
    std::vector<int> chunks;
    const int per = per_invocation(e.benchmark);
    for (int left = repeats; left > 0; left -= per) chunks.push_back(std::min(per, left));
    const std::size_t rounds = chunks.size();
    for (std::size_t outer = 0; outer < (sequential ? n : rounds); ++outer)
      for (std::size_t inner = 0; inner < (sequential ? rounds : n); ++inner) {
        const std::size_t c = sequential ? outer : inner;
        const std::size_t r = sequential ? inner : outer;
        p.steps.push_back(Step{c, static_cast<int>(r), chunks[r], {single_unit(e)}});
      }
    return p;
  }
  if (e.comparison.blocks) {
    // Each variant's repeats in a block of their own, conditions in file order.
    for (std::size_t c = 0; c < n; ++c)
      for (const auto& v : e.variants)
        for (int r = 0; r < repeats; ++r)
          p.steps.push_back(Step{c, r, 1, {Unit{v.name, v.command, "", model::PairOrder::none, {}, 0}}});
    return p;
  }
  for (int outer = 0; outer < (sequential ? static_cast<int>(n) : repeats); ++outer)
    for (int inner = 0; inner < (sequential ? repeats : static_cast<int>(n)); ++inner) {
      const std::size_t c = static_cast<std::size_t>(sequential ? outer : inner);
      const int r = sequential ? inner : outer;
      p.steps.push_back(Step{c, r, 1, paired_units(e, r)});
    }
  return p;
}

namespace {

// Per condition, the first benchmark name it printed: the one whose samples count.
std::map<std::string, std::string> first_names(std::span<const records::Sample> done) {
  std::map<std::string, std::string> first;
  for (const auto& s : done) first.emplace(s.condition, s.name);
  return first;
}

}  // namespace

Plan remaining(const model::Experiment& e, const Plan& full, std::span<const records::Sample> done) {
  Plan left = full;
  left.steps.clear();
  const auto first = first_names(done);
  if (!e.paired()) {
    std::map<std::string, int> delivered;
    for (const auto& s : done)
      if (first.at(s.condition) == s.name) ++delivered[s.condition];
    for (Step step : full.steps) {
      int& had = delivered[e.conditions[step.condition].name];
      if (had >= step.samples) {
        had -= step.samples;
        continue;
      }
      step.samples -= had;
      had = 0;
      left.steps.push_back(step);
    }
    return left;
  }
  const auto delivered = [&](const Step& step, const Unit& unit) {
    const std::string& condition = e.conditions[step.condition].name;
    return std::any_of(done.begin(), done.end(), [&](const records::Sample& s) {
      return s.condition == condition && s.repeat == step.repeat && s.variant == unit.variant &&
             s.pair == unit.pair && first.at(condition) == s.name;
    });
  };
  for (const Step& step : full.steps)
    if (!std::all_of(step.units.begin(), step.units.end(), [&](const Unit& u) { return delivered(step, u); }))
      left.steps.push_back(step);
  return left;
}

Scheduler::Scheduler(const model::Experiment& e, const Plan& p)
    : experiment_(e),
      plan_(p),
      repeats_(e.conditions.size(), 0),
      done_(e.conditions.size(), false),
      confirm_(e.conditions.size()) {}

std::optional<Step> Scheduler::next(std::span<const records::Sample> measured, model::Seconds elapsed) {
  if (!plan_.adaptive) {
    if (next_ >= plan_.steps.size()) return std::nullopt;
    return plan_.steps[next_++];
  }
  std::optional<Step> step = next_adaptive(measured, elapsed);
  if (!step && start_second_block(measured)) step = next_adaptive(measured, elapsed);
  return step;
}

bool Scheduler::start_second_block(std::span<const records::Sample> measured) {
  if (!experiment_.gate || block_ != 1 || !flagged_) return false;
  const auto flagged = flagged_(measured);
  bool any = false;
  for (std::size_t c = 0; c < experiment_.conditions.size(); ++c) {
    const auto it = flagged.find(experiment_.conditions[c].name);
    confirm_[c] = it != flagged.end() ? it->second : std::vector<std::string>{};
    done_[c] = confirm_[c].empty();
    repeats_[c] = 0;
    any = any || !confirm_[c].empty();
  }
  if (!any) return false;
  block_ = 2;
  current_ = 0;
  return true;
}

std::optional<Step> Scheduler::next_adaptive(std::span<const records::Sample> measured,
                                             model::Seconds elapsed) {
  const std::size_t n = experiment_.conditions.size();
  if (experiment_.schedule == model::Schedule::sequential) {
    while (current_ < n) {
      if (!done_[current_] && stopped(current_, measured, elapsed)) done_[current_] = true;
      if (done_[current_]) {
        ++current_;
        continue;
      }
      return adaptive_step(current_);
    }
    return std::nullopt;
  }
  for (std::size_t tried = 0; tried < n; ++tried) {
    const std::size_t c = (current_ + tried) % n;
    if (!done_[c] && stopped(c, measured, elapsed)) done_[c] = true;
    if (done_[c]) continue;
    current_ = (c + 1) % n;
    return adaptive_step(c);
  }
  return std::nullopt;
}

void Scheduler::resume(std::span<const records::Sample> done) {
  const auto first = first_names(done);
  for (std::size_t c = 0; c < experiment_.conditions.size(); ++c) {
    const std::string& name = experiment_.conditions[c].name;
    int repeats = 0;
    for (const auto& s : done) {
      if (s.condition != name || first.at(name) != s.name) continue;
      repeats = experiment_.paired() ? std::max(repeats, s.repeat + 1) : repeats + 1;
    }
    repeats_[c] = repeats;
  }
}

Step Scheduler::adaptive_step(std::size_t c) {
  const int r = repeats_[c]++;
  if (experiment_.gate) return Step{c, r, 1, quad_units(experiment_, r, block_, confirm_[c])};
  return Step{
      c, r, 1,
      experiment_.paired() ? paired_units(experiment_, r) : std::vector<Unit>{single_unit(experiment_)}};
}

bool Scheduler::stopped(std::size_t c, std::span<const records::Sample> measured, model::Seconds elapsed) {
  const model::Adaptive& a = *experiment_.adaptive;
  const std::string& name = experiment_.conditions[c].name;
  // Repeats past the warm-up; none yet when the budget stops a condition during its warm-up.
  const int kept = std::max(0, repeats_[c] - experiment_.benchmark.warmup);
  const bool over_budget = elapsed > a.budget;
  if (kept < a.min_samples && !over_budget) return false;
  const bool capped = kept >= a.max_samples || over_budget;
  bool undefined = false;
  std::optional<double> worst;
  bool converged = false;
  std::optional<records::StopReason> early;
  if (experiment_.gate) {
    // The gate stops at a look where every row is decided or futile, and at its cap (§3.13).
    const GateLook look = gate_look(c, measured, kept);
    worst = look.worst;
    undefined = !worst;
    if (!look.done && !capped) return false;
    converged = look.done && !look.futile;
    if (look.done && !capped)
      early = look.futile ? records::StopReason::futile : records::StopReason::decided;
  } else {
    worst = worst_halfwidth(c, measured, undefined);
    converged = !undefined && worst && *worst <= a.precision;
    if (!converged && !capped) return false;
  }
  if (block_ == 1)  // the confirmation block's own stop is not the condition's outcome
    outcomes_[name] = records::AdaptiveOutcome{
        converged,
        kept,
        worst,
        a.precision,
        early         ? *early
        : converged   ? (experiment_.gate ? records::StopReason::decided : records::StopReason::precision)
        : over_budget ? records::StopReason::time_budget
                      : records::StopReason::max_samples,
        experiment_.gate       ? "95% signed-rank interval of the pairs' log ratios (head/base)"
        : experiment_.paired() ? "99% paired log-ratio t interval"
                               : "99% median CI (order statistics)"};
  return true;
}

namespace {

// The gate's quads of one condition and block, per (name, configuration): per repeat the primary
// values of base, head, base' and head' (0 where missing).
using Quads = std::map<std::pair<std::string, std::string>, std::map<int, std::array<double, 4>>>;

Quads quads_of(std::span<const records::Sample> measured, const std::string& condition, int block,
               const std::string& base, const std::string& head) {
  Quads quads;
  for (const auto& s : measured) {
    if (s.condition != condition || s.warmup || s.block != block || s.pair != records::kGatePair ||
        s.metrics.empty())
      continue;
    const std::size_t slot = s.variant == base                        ? 0
                             : s.variant == head                      ? 1
                             : s.variant == records::aa_copy_of(base) ? 2
                                                                      : 3;
    quads[{s.name, s.config}][s.repeat][slot] = s.metrics.front().value;
  }
  return quads;
}

// One row's pair log ratios (§3.13 "Effect"), ln(h/b) and ln(h'/b') of each complete quad.
std::vector<double> pair_logs(const std::map<int, std::array<double, 4>>& repeats) {
  std::vector<double> x;
  for (const auto& [repeat, q] : repeats)
    if (q[0] > 0 && q[1] > 0 && q[2] > 0 && q[3] > 0) {
      x.push_back(std::log(q[1] / q[0]));
      x.push_back(std::log(q[3] / q[2]));
    }
  return x;
}

}  // namespace

Scheduler::GateLook Scheduler::gate_look(std::size_t c, std::span<const records::Sample> measured,
                                         int kept) const {
  const model::Adaptive& a = *experiment_.adaptive;
  const model::GateSettings& g = *experiment_.gate;
  const auto looks =
      stats::gate_looks(static_cast<std::size_t>(std::max(g.first_repeats, 1)),
                        static_cast<std::size_t>(std::max(a.max_samples, 1)), g.confidence, g.sequential);
  const auto at = std::find_if(looks.begin(), looks.end(), [&](const stats::Look& l) {
    return l.quads == static_cast<std::size_t>(kept);
  });
  GateLook out;
  bool rows = false, all_done = true;
  for (const auto& [key, repeats] : quads_of(measured, experiment_.conditions[c].name, block_,
                                             experiment_.variants[0].name, experiment_.variants[1].name)) {
    const std::vector<double> x = pair_logs(repeats);
    rows = true;
    if (x.empty()) {
      all_done = false;
      continue;
    }
    const stats::Shift shift = stats::signed_rank_shift(x, at != looks.end() ? at->tail : looks.back().tail);
    if (std::isfinite(shift.lo) && std::isfinite(shift.hi))
      out.worst = std::max(out.worst.value_or(0.0), 0.5 * (std::exp(shift.hi) - std::exp(shift.lo)));
    if (at == looks.end()) continue;
    if (stats::shift_verdict(shift, g.threshold) != stats::Verdict::inconclusive) continue;
    if (stats::futile(x, g.threshold, 2 * looks.back().quads, looks.back().tail)) {
      out.futile = true;
      continue;
    }
    all_done = false;
  }
  out.done = at != looks.end() && rows && all_done;
  return out;
}

std::optional<double> Scheduler::worst_halfwidth(std::size_t c, std::span<const records::Sample> measured,
                                                 bool& undefined) const {
  const std::string& name = experiment_.conditions[c].name;
  std::optional<double> worst;
  auto consider = [&](std::optional<double> h) {
    if (!h)
      undefined = true;
    else
      worst = std::max(worst.value_or(0), *h);
  };
  if (experiment_.paired()) {
    // (full name, pair) -> repeat -> (baseline, variant)
    std::map<std::pair<std::string, std::string>, std::map<int, std::pair<double, double>>> pairs;
    const std::string& base = experiment_.variants.front().name;
    for (const auto& s : measured) {
      if (s.condition != name || s.warmup || s.metrics.empty()) continue;
      auto& slot = pairs[{s.name, s.pair}][s.repeat];
      (s.variant == base ? slot.first : slot.second) = s.metrics.front().value;
    }
    for (const auto& [key, repeats] : pairs) {
      std::vector<double> b, v;
      for (const auto& [r, bv] : repeats)
        if (bv.first > 0 && bv.second > 0) {
          b.push_back(bv.first);
          v.push_back(bv.second);
        }
      consider(stats::paired_gm_halfwidth(b, v, kStoppingConfidence));
    }
  } else {
    std::map<std::string, std::vector<double>> by_benchmark;
    for (const auto& s : measured)
      if (s.condition == name && !s.warmup && !s.metrics.empty())
        by_benchmark[s.name].push_back(s.metrics.front().value);  // GOMAXPROCS apart
    for (const auto& [b, values] : by_benchmark)
      consider(stats::median_ci_halfwidth(values, kStoppingConfidence));
  }
  if (!worst && !undefined) undefined = true;  // nothing measured yet
  return worst;
}

}  // namespace noisefloor::plan
