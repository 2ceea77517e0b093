#include "runner/runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <map>

#include "model/errors.hpp"
#include "parsers/gbench_json.hpp"
#include "parsers/gotest.hpp"
#include "stats/summary.hpp"

namespace noisefloor::runner {
namespace {

using Clock = std::chrono::steady_clock;


int per_invocation(const model::BenchmarkSpec& b) {
  return b.samples_per_run == 0 ? b.samples + b.warmup : b.samples_per_run;
}

// Turns what one invocation printed into samples, numbering them per (condition, benchmark).
class SampleMaker {
 public:
  SampleMaker(const model::Experiment& e, Clock::time_point start) : experiment_(e), start_(start) {}

  Sample make(const std::string& condition, const model::Measurement& m, int invocation) {
    Sample s = model::sample_of(condition, m);
    s.index = counts_[{condition, m.benchmark}]++;
    s.warmup = s.index < experiment_.benchmark.warmup;
    s.invocation = invocation;
    s.elapsed_seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    s.utc = utc_now();
    return s;
  }

 private:
  const model::Experiment& experiment_;
  Clock::time_point start_;
  std::map<std::pair<std::string, std::string>, int> counts_;
};

std::string describe_exit(const InvocationOutput& out) {
  if (out.timed_out) return "timed out";
  if (out.signal) return fmt::format("was killed by signal {}", *out.signal);
  return fmt::format("exited with code {}", out.exit_code);
}

}  // namespace

std::string utc_now() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return fmt::format("{}.{:03}Z", buf, ms);
}

std::vector<PlannedInvocation> plan(const model::Experiment& e) {
  const int total = e.benchmark.samples + e.benchmark.warmup;
  const int per = per_invocation(e.benchmark);
  std::vector<int> chunks;
  for (int left = total; left > 0; left -= per) chunks.push_back(std::min(per, left));

  std::vector<PlannedInvocation> out;
  if (e.schedule == model::Schedule::sequential) {
    for (std::size_t c = 0; c < e.conditions.size(); ++c)
      for (std::size_t r = 0; r < chunks.size(); ++r)
        out.push_back({c, chunks[r], static_cast<int>(r)});
  } else {
    for (std::size_t r = 0; r < chunks.size(); ++r)
      for (std::size_t c = 0; c < e.conditions.size(); ++c)
        out.push_back({c, chunks[r], static_cast<int>(r)});
  }
  return out;
}

std::vector<std::string> invocation_argv(const model::BenchmarkSpec& spec, int samples) {
  std::vector<std::string> argv = spec.command;
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

std::string tail_lines(std::string_view text, std::size_t lines) {
  std::vector<std::string_view> all;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    all.push_back(line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  while (!all.empty() && all.back().empty()) all.pop_back();
  std::string out;
  for (std::size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) {
    out += "\n    | ";
    out += all[i];
  }
  return out;
}

std::vector<Unit> paired_units(const model::Experiment& e, int repeat) {
  const model::Variant& base = e.variants.front();
  // Counted from the first kept repeat, so the kept repeats are balanced (AB BA BA AB ...).
  const int k = ((repeat - e.benchmark.warmup) % 4 + 4) % 4;
  const bool ab = k == 0 || k == 3;
  std::vector<Unit> units;
  auto add_pair = [&](const std::string& other_name, const std::vector<std::string>& other_cmd,
                      const std::string& pair) {
    const Unit b{base.name, base.command, pair, ab ? "AB" : "BA"};
    const Unit v{other_name, other_cmd, pair, ab ? "AB" : "BA"};
    if (ab) {
      units.push_back(b);
      units.push_back(v);
    } else {
      units.push_back(v);
      units.push_back(b);
    }
  };
  for (std::size_t i = 1; i < e.variants.size(); ++i) add_pair(e.variants[i].name, e.variants[i].command, e.variants[i].name);
  if (e.comparison.aa) add_pair(base.name + "'", base.command, "A/A");
  return units;
}

std::optional<double> median_halfwidth99(std::vector<double> x) {
  const auto order = stats::median_ci_order(x.size(), 0.99);
  if (!order || x.empty()) return std::nullopt;
  std::sort(x.begin(), x.end());
  const double med = stats::median(x);
  if (!(med > 0)) return std::nullopt;
  const double lo = x[order->k - 1];
  const double hi = x[x.size() - order->k];
  return std::max(hi / med - 1, 1 - lo / med);
}

std::optional<double> paired_halfwidth99(const std::vector<double>& base, const std::vector<double>& variant) {
  const std::size_t n = std::min(base.size(), variant.size());
  if (n < 3) return std::nullopt;
  std::vector<double> d;
  for (std::size_t i = 0; i < n; ++i) {
    if (!(base[i] > 0) || !(variant[i] > 0)) return std::nullopt;
    d.push_back(std::log(variant[i] / base[i]));
  }
  const double sd = std::sqrt(stats::sample_variance(d, stats::mean(d)));
  return std::exp(stats::t_quantile(0.995, static_cast<double>(n - 1)) * sd / std::sqrt(static_cast<double>(n))) - 1;
}

namespace {

// Decides what runs next. Fixed plans are known up front; `samples: auto` looks at what has
// been measured so far.
class Scheduler {
 public:
  Scheduler(const model::Experiment& e, Clock::time_point start) : e_(e), start_(start) {
    if (!e.adaptive && !e.paired()) {
      for (const auto& p : plan(e)) fixed_.push_back(Step{p.condition, p.round, p.samples, {Unit{"", e.benchmark.command, "", ""}}});
    } else if (!e.adaptive && e.comparison.blocks) {
      const int repeats = e.benchmark.samples + e.benchmark.warmup;
      for (std::size_t c = 0; c < e.conditions.size(); ++c)
        for (const auto& v : e.variants)
          for (int r = 0; r < repeats; ++r) fixed_.push_back(Step{c, r, 1, {Unit{v.name, v.command, "", ""}}});
    } else if (!e.adaptive) {
      const int repeats = e.benchmark.samples + e.benchmark.warmup;
      if (e.schedule == model::Schedule::sequential) {
        for (std::size_t c = 0; c < e.conditions.size(); ++c)
          for (int r = 0; r < repeats; ++r) fixed_.push_back(Step{c, r, 1, paired_units(e, r)});
      } else {
        for (int r = 0; r < repeats; ++r)
          for (std::size_t c = 0; c < e.conditions.size(); ++c) fixed_.push_back(Step{c, r, 1, paired_units(e, r)});
      }
    }
    repeats_.assign(e.conditions.size(), 0);
    done_.assign(e.conditions.size(), false);
  }

  // Invocations in a fixed plan (0 when adaptive: not known in advance).
  std::size_t fixed_invocations() const {
    std::size_t n = 0;
    for (const auto& st : fixed_) n += st.units.size();
    return n;
  }

  std::optional<Step> next(RunRecord& record) {
    if (!e_.adaptive) {
      if (next_ >= fixed_.size()) return std::nullopt;
      return fixed_[next_++];
    }
    // Adaptive: sequential keeps a condition until it converges; interleaved rotates over the
    // conditions that have not.
    const std::size_t n = e_.conditions.size();
    if (e_.schedule == model::Schedule::sequential) {
      while (current_ < n) {
        if (!done_[current_] && check_done(current_, record)) done_[current_] = true;
        if (done_[current_]) {
          ++current_;
          continue;
        }
        return make_step(current_);
      }
      return std::nullopt;
    }
    for (std::size_t tried = 0; tried < n; ++tried) {
      const std::size_t c = (current_ + tried) % n;
      if (!done_[c] && check_done(c, record)) done_[c] = true;
      if (done_[c]) continue;
      current_ = (c + 1) % n;
      return make_step(c);
    }
    return std::nullopt;
  }

 private:
  Step make_step(std::size_t c) {
    const int r = repeats_[c]++;
    return Step{c, r, 1, e_.paired() ? paired_units(e_, r) : std::vector<Unit>{Unit{"", e_.benchmark.command, "", ""}}};
  }

  // Whether condition c has converged (or hit a cap); records the outcome.
  bool check_done(std::size_t c, RunRecord& record) {
    const model::Adaptive& a = *e_.adaptive;
    const std::string& name = e_.conditions[c].name;
    const int kept = repeats_[c] - e_.benchmark.warmup;
    const bool over_budget = Clock::now() - start_ > std::chrono::duration_cast<Clock::duration>(a.budget);
    if (kept < a.min_samples && !over_budget) return false;
    // Worst half-width over the condition's benchmarks (or pairs).
    std::optional<double> worst;
    bool undefined = false;
    auto consider = [&](std::optional<double> h) {
      if (!h) undefined = true;
      else worst = std::max(worst.value_or(0), *h);
    };
    if (e_.paired()) {
      std::map<std::pair<std::string, std::string>, std::map<int, std::pair<double, double>>> pairs;  // (benchmark, pair) -> repeat -> (b, v)
      const std::string& base = e_.variants.front().name;
      for (const auto& s : record.samples) {
        if (s.condition != name || s.warmup || s.metrics.empty()) continue;
        auto& slot = pairs[{s.benchmark, s.pair}][s.repeat];
        (s.variant == base ? slot.first : slot.second) = s.metrics.front().value;
      }
      for (const auto& [key, repeats] : pairs) {
        std::vector<double> b, v;
        for (const auto& [r, bv] : repeats)
          if (bv.first > 0 && bv.second > 0) {
            b.push_back(bv.first);
            v.push_back(bv.second);
          }
        consider(paired_halfwidth99(b, v));
      }
    } else {
      std::map<std::string, std::vector<double>> by_benchmark;
      for (const auto& s : record.samples)
        if (s.condition == name && !s.warmup && !s.metrics.empty()) by_benchmark[s.benchmark].push_back(s.metrics.front().value);
      for (const auto& [b, values] : by_benchmark) consider(median_halfwidth99(values));
    }
    const bool converged = !undefined && worst && *worst <= a.precision;
    const bool capped = kept >= a.max_samples || over_budget;
    if (!converged && !capped) return false;
    record.adaptive[name] = {{"converged", converged},
                             {"samples", kept},
                             {"halfwidth", worst ? nlohmann::json(*worst) : nlohmann::json(nullptr)},
                             {"target", a.precision},
                             {"stopped_by", converged ? "precision" : over_budget ? "time budget" : "max_samples"},
                             {"rule", e_.paired() ? "99% paired log-ratio t interval" : "99% median CI (order statistics)"}};
    return true;
  }

  const model::Experiment& e_;
  Clock::time_point start_;
  std::vector<Step> fixed_;
  std::size_t next_ = 0;
  std::vector<int> repeats_;
  std::vector<bool> done_;
  std::size_t current_ = 0;
};

}  // namespace

void run(const model::Experiment& e, Environment& env, Observer& observer, const Cancelled& cancelled,
         RunRecord& record) {
  const auto start = Clock::now();
  Scheduler scheduler(e, start);
  SampleMaker maker(e, start);
  // Progress counts kept samples of the first benchmark of the first unit: how many benchmarks a
  // -test.bench pattern matches is unknown until the first invocation prints.
  const std::size_t units_per_step =
      e.paired() ? (e.comparison.blocks ? e.variants.size() : paired_units(e, 0).size()) : 1;
  const int per_condition = e.adaptive ? e.adaptive->max_samples : e.benchmark.samples;
  const std::size_t total = static_cast<std::size_t>(per_condition) * e.conditions.size() * units_per_step;
  std::size_t done = 0;
  std::string first_benchmark;
  int invocation = 0;

  auto check = [&] {
    if (cancelled && cancelled()) throw Interrupted();
  };

  std::unique_ptr<ConditionScope> scope;
  std::optional<std::size_t> scope_condition;
  nlohmann::json rec, runs;
  std::size_t block = 0;
  auto close_block = [&] {
    scope->finish();
    scope.reset();
    rec["runs"] = runs;
    rec["finished_utc"] = utc_now();
    rec["load_after"] = env.load();
    record.conditions.push_back(rec);
    observer.condition_finished(*scope_condition, rec);
    scope_condition.reset();
    ++block;
  };
  // On an error or interruption the scope's destructor stops what it started; the record keeps
  // what ran.
  auto keep_partial = [&] {
    if (scope_condition) {
      rec["runs"] = runs;
      record.conditions.push_back(rec);
    }
  };

  try {
    while (true) {
      check();
      const std::optional<Step> step = scheduler.next(record);
      if (!step) break;
      const model::Condition& cond = e.conditions[step->condition];
      if (scope_condition && *scope_condition != step->condition) close_block();
      if (!scope_condition) {
        check();
        if (block > 0 && e.cooldown.count() > 0) env.cool_down(e.cooldown, cancelled);
        check();
        observer.condition_started(step->condition, e.conditions.size(), cond);
        rec = {{"condition", cond.name}, {"block", block}, {"started_utc", utc_now()}};
        rec["load_before"] = env.load();
        runs = nlohmann::json::array();
        scope = env.enter(cond);
        scope_condition = step->condition;
        rec["setup"] = scope->describe();
      }

      for (const Unit& unit : step->units) {
        check();
        Invocation inv;
        model::BenchmarkSpec spec = e.benchmark;
        spec.command = unit.command;
        inv.argv = invocation_argv(spec, step->samples);
        inv.env = e.benchmark.env;
        inv.workdir = e.benchmark.workdir;
        inv.timeout = e.benchmark.timeout;
        inv.number = invocation++;

        parsers::GoTestParser go;
        std::size_t delivered = 0;
        auto deliver = [&](const model::Measurement& measured) {
          model::Measurement m = measured;
          if (!e.benchmark.metric.empty()) {
            // The chosen metric becomes the primary one; the others stay, in order, after it.
            auto it = std::find_if(m.metrics.begin(), m.metrics.end(),
                                   [&](const model::Metric& x) { return x.unit == e.benchmark.metric; });
            if (it == m.metrics.end())
              throw ParseError(fmt::format("condition '{}': {} reported no {} metric (benchmark.metric)", cond.name,
                                           m.name, e.benchmark.metric));
            std::rotate(m.metrics.begin(), it, it + 1);
          }
          // A sample that is not a finite number would poison every statistic of its row.
          for (const auto& metric : m.metrics)
            if (!std::isfinite(metric.value))
              throw ParseError(fmt::format("condition '{}': {} reported {} {}: not a finite number", cond.name,
                                           m.name, metric.value, metric.unit));
          Sample s = maker.make(cond.name, m, inv.number);
          if (!unit.variant.empty()) {
            s.variant = unit.variant;
            s.pair = unit.pair;
            s.order = unit.order;
            s.repeat = step->repeat;
            s.index = step->repeat;
            s.warmup = step->repeat < e.benchmark.warmup;
          }
          record.samples.push_back(s);
          observer.sample(s);
          ++delivered;
          if (first_benchmark.empty()) first_benchmark = s.benchmark;
          if (!s.warmup && s.benchmark == first_benchmark) ++done;
          observer.progress(done, total, s);
        };
        LineCallback on_line;
        if (e.benchmark.format == model::OutputFormat::gotest) {
          on_line = [&](std::string_view line) {
            if (auto m = go.feed_line(line)) deliver(*m);
          };
        }
        const InvocationOutput out = scope->run(inv, on_line, cancelled);
        const std::string of = scheduler.fixed_invocations() ? fmt::format(" of {}", scheduler.fixed_invocations()) : "";
        const std::string where = unit.variant.empty()
                                      ? fmt::format("condition '{}', run {}{}", cond.name, inv.number + 1, of)
                                      : fmt::format("condition '{}', variant '{}', repeat {}", cond.name, unit.variant,
                                                    step->repeat + 1);
        nlohmann::json run_rec = {{"invocation", inv.number}, {"argv", inv.argv}, {"exit_code", out.exit_code},
                                  {"wall_s", out.wall_seconds}, {"details", out.details}};
        if (!unit.variant.empty()) {
          run_rec["variant"] = unit.variant;
          run_rec["repeat"] = step->repeat;
          run_rec["order"] = unit.order;
          run_rec["pair"] = unit.pair;
        }
        runs.push_back(run_rec);

        if (e.benchmark.format == model::OutputFormat::command && !out.timed_out && !out.signal && out.exit_code == 0) {
          model::Measurement m;
          m.name = m.benchmark = e.name;
          m.iterations = 1;
          m.metrics = {{out.wall_seconds, "sec/op"}};
          deliver(m);
        }
        if (out.timed_out || out.signal || out.exit_code != 0)
          throw RunError(fmt::format("{}: the benchmark {} ({} sample(s) arrived before it); last lines of stderr:{}", where,
                                     describe_exit(out), delivered,
                                     out.err.empty() ? "\n    | (empty)" : tail_lines(out.err, 10)));
        if (e.benchmark.format == model::OutputFormat::gbench_json) {
          try {
            const parsers::GbenchOutput g = parsers::parse_gbench_json(out.out);
            for (const auto& m : g.measurements) deliver(m);
            for (const auto& err : g.errors) record.warnings.push_back(fmt::format("{}: {}", where, err));
          } catch (const ParseError& pe) {
            throw ParseError(fmt::format("{}: {}", where, pe.what()));
          }
        }
        if (e.benchmark.format == model::OutputFormat::gotest)
          for (const auto& f : go.output().failures) record.warnings.push_back(fmt::format("{}: benchmark {} failed", where, f));
        if (delivered == 0)
          throw RunError(fmt::format("{}: the benchmark printed no result lines (is the -test.bench pattern right?); "
                                     "last lines of output:{}",
                                     where, tail_lines(out.out + out.err, 10)));
      }
    }
    if (scope_condition) close_block();
  } catch (...) {
    keep_partial();
    throw;
  }
}

}  // namespace noisefloor::runner
