#include "runner/runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <set>
#include <tuple>

#include "model/errors.hpp"
#include "parsers/gbench_json.hpp"
#include "parsers/gotest.hpp"
#include "text/text.hpp"

namespace noisefloor::runner {

namespace {

// No-ops timed before each of the first invocations of a condition's `command` benchmark (the
// launcher overhead, a median of 15): enough to size it, and not 3 more processes for every sample.
constexpr int kLauncherNoops = 3;
constexpr int kLauncherNoopInvocations = 5;

std::string describe_exit(const conditions::InvocationOutput& out) {
  if (out.timed_out) return "timed out";
  if (out.signal) return fmt::format("was killed by signal {}", *out.signal);
  return fmt::format("exited with code {}", out.exit_code);
}

// One run of the loop: the state that lives from the first step to the last.
class Loop {
 public:
  Loop(const model::Experiment& e, const plan::Plan& p, conditions::Environment& env, Clock& clock,
       Observer& observer, const Cancelled& cancelled, Measured& measured)
      : e_(e),
        plan_(p),
        env_(env),
        clock_(clock),
        observer_(observer),
        cancelled_(cancelled),
        measured_(measured),
        scheduler_(e, p) {
    // A resumed run goes on from what its earlier sessions measured: sample indexes, invocation
    // and block numbers continue, progress counts what is already there.
    for (const auto& s : measured_.samples) {
      ++counts_[{s.condition, s.name, s.config}];
      count_progress(s);
      invocation_ = std::max(invocation_, s.invocation + 1);
    }
    // What earlier sessions printed is what every invocation prints.
    for (const auto& [condition, rows] : rows_) known_rows_[condition] = rows.size();
    for (const auto& c : measured_.conditions) {
      block_ = std::max(block_, c.block + 1);
      for (const auto& r : c.runs) invocation_ = std::max(invocation_, r.invocation + 1);
    }
    if (p.adaptive) scheduler_.resume(measured_.samples);
  }

  void confirm_with(const plan::Scheduler::Flagged& confirm) { scheduler_.confirm_with(confirm); }
  void settled_before(model::Seconds settled) { settled_before_ = settled; }

  void run() {
    if (!measured_.samples.empty()) observer_.resumed(measured_.samples);
    try {
      while (true) {
        check();
        const std::optional<plan::Step> step = scheduler_.next(measured_.samples, clock_.elapsed());
        measured_.adaptive = scheduler_.outcomes();
        if (!step) break;
        if (scope_ && scope_condition_ != step->condition) close_block();
        if (!scope_) open_block(step->condition);
        for (const plan::Unit& unit : step->units) invoke(*step, unit);
      }
      if (scope_) close_block();
    } catch (...) {
      // The scope's destructor stops what it started; the record keeps what ran.
      if (scope_) {
        record_.spinner_load = scope_->spinner_load();
        scope_.reset();
        measured_.conditions.push_back(std::move(record_));
      }
      throw;
    }
  }

 private:
  void check() const {
    if (cancelled_ && cancelled_()) throw Interrupted();
  }

  void open_block(std::size_t condition) {
    const model::Condition& c = e_.conditions[condition];
    if (block_ > 0 && e_.cooldown.count() > 0) clock_.sleep(e_.cooldown, cancelled_);
    check();
    observer_.condition_started(condition, e_.conditions.size(), c);
    record_ = records::ConditionRecord{};
    record_.condition = c.name;
    record_.block = block_;
    record_.session = measured_.session;
    record_.started_utc = clock_.utc();
    record_.load_before = env_.load();
    scope_ = env_.enter(c);  // returns once the condition is in force (its spinners spin)
    scope_condition_ = condition;
    record_.setup = scope_->setup();
    record_.setup.args = c.args;
    record_.setup.env = c.env;
    // A sample counts only once the condition has settled: the previous condition's disturbance
    // has died down and this one's load has built up. The load is read after it. The session's
    // first block of a condition that adds nothing to the room (no spinners, no container) has
    // had the time of the noise profile just before it: that much less to wait.
    model::Seconds settle = e_.settle;
    if (!opened_ && !c.spinners && !c.container)
      settle = std::max(model::Seconds(0), settle - settled_before_);
    opened_ = true;
    if (settle.count() > 0) clock_.sleep(settle, cancelled_);
    record_.settle_seconds = settle.count();
    record_.load_settled = env_.load();
  }

  void close_block() {
    record_.spinner_load = scope_->spinner_load();
    scope_->finish();
    scope_.reset();
    record_.finished_utc = clock_.utc();
    record_.load_after = env_.load();
    measured_.conditions.push_back(record_);
    observer_.condition_finished(scope_condition_, record_);
    ++block_;
  }

  // Turns a measurement into the sample of this invocation and hands it on.
  void deliver(const model::Measurement& measured, const model::Condition& cond, const plan::Step& step,
               const plan::Unit& unit, int invocation) {
    model::Measurement m = measured;
    if (!e_.benchmark.metric.empty()) {
      // The chosen metric becomes the primary one; the others stay, in order, after it.
      auto it = std::find_if(m.metrics.begin(), m.metrics.end(),
                             [&](const model::Metric& x) { return x.unit == e_.benchmark.metric; });
      if (it == m.metrics.end())
        throw ParseError(fmt::format("condition '{}': {} reported no {} metric (benchmark.metric)", cond.name,
                                     m.name, e_.benchmark.metric));
      std::rotate(m.metrics.begin(), it, it + 1);
    }
    // A primary value that is not a finite number would poison every statistic of its row. Any
    // other counter may be NaN or infinite (a rate over zero time): kept as not a number, said once.
    if (!std::isfinite(m.metrics.front().value))
      throw ParseError(fmt::format("condition '{}': {} reported {} {}: not a finite number", cond.name,
                                   m.name, m.metrics.front().value, m.metrics.front().unit));
    for (std::size_t i = 1; i < m.metrics.size(); ++i)
      if (!std::isfinite(m.metrics[i].value) &&
          flagged_.insert({cond.name, m.name, m.metrics[i].unit}).second)
        measured_.warnings.push_back({.kind = records::RunWarningKind::non_finite_metric,
                                      .condition = cond.name,
                                      .benchmark = m.name,
                                      .unit = m.metrics[i].unit,
                                      .detail = fmt::format("{}", m.metrics[i].value)});
    records::Sample s = records::sample_of(cond.name, m);
    s.index = counts_[{cond.name, m.name, m.config}]++;
    s.warmup = s.index < e_.benchmark.warmup;
    s.invocation = invocation;
    s.elapsed_seconds = clock_.elapsed().count();
    s.utc = clock_.utc();
    s.session = measured_.session;
    if (!unit.variant.empty()) {
      s.variant = unit.variant;
      s.pair = unit.pair;
      s.order = unit.order;
      s.repeat = step.repeat;
      s.block = unit.block;
      s.index = step.repeat;
      s.warmup = step.repeat < e_.benchmark.warmup;
    }
    observer_.sample(s);  // persisted first: a sample that could not be written is not counted as kept
    measured_.samples.push_back(s);
    ++delivered_;
    observer_.progress(count_progress(s), s);
  }

  // The one result of an invocation, with the counter `metric:` names over the whole invocation
  // per iteration of that result put first.
  void deliver_counted(const std::vector<model::Measurement>& held, const records::Accounting& accounting,
                       const model::Condition& cond, const plan::Step& step, const plan::Unit& unit,
                       int invocation, const std::string& where) {
    const std::string& key = e_.benchmark.counter;
    if (held.size() != 1) {
      std::vector<std::string> names;
      for (const auto& m : held) names.push_back(m.name);
      throw RunError(fmt::format(
          "{}: metric: {} counts the whole invocation, but it printed {} results ({}): make each invocation "
          "print one (a -test.bench or --benchmark_filter pattern that matches one benchmark)",
          where, e_.benchmark.metric, held.size(),
          text::shorten(fmt::format("{}", fmt::join(names, ", ")), 120)));
    }
    const std::optional<model::Counters>& counters = accounting.counters;
    const std::int64_t count = [&] {
      if (counters)
        if (const std::optional<std::int64_t> c = counters->count(key)) return *c;
      const std::string why = !counters                      ? std::string("no counters were read for it")
                              : counters->missing.count(key) ? counters->missing.at(key)
                                                             : std::string("it was not counted");
      throw RunError(fmt::format("{}: metric: {} needs the kernel's {} counter, which could not be read: {}",
                                 where, e_.benchmark.metric, key, why));
    }();
    model::Measurement m = held.front();
    const double per_op = m.iterations > 0 ? static_cast<double>(count) / static_cast<double>(m.iterations)
                                           : static_cast<double>(count);
    m.metrics.insert(m.metrics.begin(), model::Metric{per_op, e_.benchmark.metric});
    deliver(m, cond, step, unit, invocation);
  }

  // A simulated sample: counts over `ops` ops, the one `metric:` names first. Times taken under
  // valgrind are not the program's: they stay in the run record, not among the samples.
  std::vector<model::Metric> simulated_metrics(const model::SimulatedCounts& counts, std::int64_t ops) const {
    const auto per_op = [&](model::SimulatedMetric m) {
      return static_cast<double>(model::count_of(counts, m)) / static_cast<double>(ops);
    };
    const model::SimulatedMetric first = *e_.benchmark.simulated;
    std::vector<model::Metric> metrics{{per_op(first), model::simulated_unit(first)}};
    for (const auto& n : model::kSimulatedMetrics)
      if (n.metric != first) metrics.push_back({per_op(n.metric), n.unit});
    return metrics;
  }

  // The counter a Google Benchmark MemoryManager adds to every repetition it ran the loop again for.
  static constexpr std::string_view kMemoryManagerCounter = "allocs_per_iter";

  // Whether a Google Benchmark invocation's loops can be told apart: its repetitions must be the
  // last loops it ran (calibration came before them), so one benchmark, in one thread, and no run
  // that leaves loops of its own between or after them (a skipped or failed run, a
  // MemoryManager's extra run after each repetition). Returns the benchmark's name.
  std::string check_timed_loops(const std::vector<model::Measurement>& held,
                                const std::vector<model::TimedLoop>& loops,
                                const std::vector<std::string>& errors, const std::string& where) const {
    const char* metric = model::kSimulatedMetrics[static_cast<std::size_t>(*e_.benchmark.simulated)].name;
    std::vector<std::string> names;
    for (const auto& m : held)
      if (std::find(names.begin(), names.end(), m.name) == names.end()) names.push_back(m.name);
    if (names.size() != 1)
      throw RunError(fmt::format(
          "{}: metric: {} counts one Google Benchmark per invocation, but it ran {} ({}): give "
          "--benchmark_filter a pattern that matches one",
          where, metric, names.size(), text::shorten(fmt::format("{}", fmt::join(names, ", ")), 120)));
    if (!errors.empty())
      throw RunError(
          fmt::format("{}: metric: {} cannot tell the repetitions' loops apart when a run was "
                      "skipped or failed ({}): filter that benchmark out",
                      where, metric, text::shorten(errors.front(), 120)));
    if (held.front().procs != 1)
      throw RunError(
          fmt::format("{}: metric: {} counts a timed loop in one thread; {} runs in {}: count a "
                      "single-threaded benchmark",
                      where, metric, names.front(), held.front().procs));
    for (const auto& m : held) {
      if (std::any_of(m.metrics.begin(), m.metrics.end(),
                      [](const model::Metric& x) { return x.unit == kMemoryManagerCounter; }))
        throw RunError(
            fmt::format("{}: metric: {}: {} reports allocs_per_iter: a MemoryManager runs the loop "
                        "again after each repetition, which cannot be told from it; count "
                        "without RegisterMemoryManager",
                        where, metric, names.front()));
      if (m.iterations < 1)
        throw RunError(
            fmt::format("{}: a repetition of {} reports {} iterations", where, names.front(), m.iterations));
    }
    if (loops.size() < held.size())
      throw RunError(fmt::format(
          "{}: valgrind saw {} timed loop(s) for {} repetition(s): it found no "
          "benchmark::State::StartKeepRunning/FinishKeepRunning to count between (a stripped binary, or "
          "not Google Benchmark 1.5 or later); build it with symbols",
          where, loops.size(), held.size()));
    return names.front();
  }

  // A Google Benchmark's repetitions under callgrind: each one's sample is its timed loop's counts
  // over its iterations, all checked before any is delivered.
  void deliver_timed_loops(std::vector<model::Measurement> held, const std::vector<model::TimedLoop>& loops,
                           const std::vector<std::string>& errors, const model::Condition& cond,
                           const plan::Step& step, const plan::Unit& unit, int invocation,
                           const std::string& where) {
    const std::string name = check_timed_loops(held, loops, errors, where);
    const std::size_t first = loops.size() - held.size();
    for (std::size_t k = 0; k < held.size(); ++k) {
      const model::TimedLoop& loop = loops[first + k];
      if (loop.paused) note_once({.kind = records::RunWarningKind::paused_timing, .benchmark = name});
      held[k].metrics = simulated_metrics(loop.counts, held[k].iterations);
      deliver(held[k], cond, step, unit, invocation);
    }
  }

  void note_once(records::RunWarning note) {
    if (std::find(measured_.warnings.begin(), measured_.warnings.end(), note) == measured_.warnings.end())
      measured_.warnings.push_back(std::move(note));
  }

  // Where a warning about one invocation of `cond` arose (run `number` of the plan's, or the
  // variant's repeat); its kind and what it says are the caller's.
  records::RunWarning at(const model::Condition& cond, const plan::Step& step, const plan::Unit& unit,
                         int number) const {
    const bool variant = !unit.variant.empty();
    return {.condition = cond.name,
            .variant = unit.variant,
            .invocation = variant ? static_cast<int>(step.repeat) + 1 : number + 1,
            .invocations = variant || plan_.adaptive ? 0 : static_cast<int>(plan_.invocations())};
  }

  // What the benchmark's output said of itself, as the run's warnings (`here`: the invocation).
  // Google Benchmark: its errors, each invocation's, and its notes, said once.
  void note_output(const parsers::GbenchOutput& g, records::RunWarning here) {
    here.kind = records::RunWarningKind::benchmark_error;
    for (const auto& err : g.errors) {
      here.detail = err;
      measured_.warnings.push_back(here);
    }
    for (const auto& note : g.notes)
      note_once({.kind = records::RunWarningKind::output_note, .detail = note});
  }
  // go test: its failed benchmarks, each invocation's, and its `Unit` lines' conflicts, said once.
  void note_output(const parsers::GoTestOutput& go, records::RunWarning here) {
    here.kind = records::RunWarningKind::benchmark_failed;
    for (const auto& failed : go.failures) {
      here.benchmark = failed;
      measured_.warnings.push_back(here);
    }
    for (auto& conflict : measured_.units.merge(go.units))
      note_once({.kind = records::RunWarningKind::unit_conflict, .detail = std::move(conflict)});
  }

  void invoke(const plan::Step& step, const plan::Unit& unit) {
    check();
    const model::Condition& cond = e_.conditions[step.condition];
    conditions::Invocation inv;
    // The condition's args follow the command, before the repetition flags noisefloor adds.
    std::vector<std::string> command = unit.command;
    command.insert(command.end(), cond.args.begin(), cond.args.end());
    inv.argv = plan::invocation_argv(e_.benchmark, command, step.samples);
    inv.env = e_.benchmark.env;
    for (const auto& [name, value] : cond.env) inv.env[name] = value;
    inv.workdir = unit.workdir ? unit.workdir : e_.benchmark.workdir;
    inv.timeout = e_.benchmark.timeout;
    inv.number = invocation_++;
    inv.simulate = e_.benchmark.simulation_scope();
    // A command's sample includes starting and waiting for it: time that much for a no-op.
    // (Not for simulated counts: nothing is timed, and valgrind's start is not the program's.)
    if (e_.benchmark.format == model::OutputFormat::command && !e_.benchmark.simulated &&
        noop_invocations_[cond.name]++ < kLauncherNoopInvocations)
      inv.launcher_noops = kLauncherNoops;
    delivered_ = 0;

    parsers::GoTestParser go;
    parsers::GbenchStream gbench;  // Google Benchmark's entries as each benchmark's repetitions end
    // `metric: instructions` and its kin: the invocation's one result waits for the count, which
    // exists once the invocation has ended. Any other result is delivered as it arrives.
    const bool counted = !e_.benchmark.counter.empty() || inv.simulate == model::SimulationScope::timed_loop;
    std::vector<model::Measurement> held;
    const auto take = [&](const model::Measurement& m) {
      if (counted)
        held.push_back(m);
      else
        deliver(m, cond, step, unit, inv.number);
    };
    model::LineCallback on_line;
    if (e_.benchmark.format == model::OutputFormat::gotest)
      on_line = [&](std::string_view line) {
        if (auto m = go.feed_line(line)) take(*m);
      };
    if (e_.benchmark.format == model::OutputFormat::gbench_json)
      on_line = [&](std::string_view line) {
        for (const auto& m : gbench.feed_line(line)) take(m);
      };
    const std::optional<double> cpu_before = clock_.own_cpu_seconds();
    const conditions::InvocationOutput out = scope_->run(inv, on_line, cancelled_);
    const std::optional<double> cpu_after = clock_.own_cpu_seconds();
    const std::string where =
        unit.variant.empty() ? fmt::format("condition '{}', run {}{}", cond.name, inv.number + 1,
                                           plan_.adaptive ? "" : fmt::format(" of {}", plan_.invocations()))
                             : fmt::format("condition '{}', variant '{}', repeat {}", cond.name, unit.variant,
                                           step.repeat + 1);
    records::InvocationRecord run{inv.number,  inv.argv,       out.exit_code, out.wall_seconds,
                                  out.details, out.accounting, std::nullopt,  std::nullopt};
    if (!unit.variant.empty())
      run.pair = records::PairPosition{unit.variant, step.repeat, unit.order, unit.pair};
    if (cpu_before && cpu_after) run.harness_cpu_seconds = std::max(0.0, *cpu_after - *cpu_before);
    record_.runs.push_back(std::move(run));

    const bool ok = !out.timed_out && !out.signal && out.exit_code == 0;
    if (e_.benchmark.format == model::OutputFormat::command && ok) {
      // The command's own figures, measured where it ran (never the container's lifecycle).
      if (!out.accounting.usage)
        throw RunError(
            fmt::format("{}: the command ran, but its time was not measured (no accounting from {})", where,
                        cond.container ? "the probe inside the container" : "the host"));
      const model::Usage& u = *out.accounting.usage;
      model::Measurement m;
      m.name = m.benchmark = e_.name;
      m.iterations = 1;
      m.metrics = {{u.wall_seconds, "sec/op"},
                   {u.cpu_seconds(), "cpu-sec/op"},
                   {u.user_seconds, "user-sec/op"},
                   {u.system_seconds, "sys-sec/op"}};
      if (e_.benchmark.simulated) {
        if (!out.simulated)
          throw RunError(
              fmt::format("{}: the command ran, but valgrind's counts of it did not arrive", where));
        m.metrics = simulated_metrics(*out.simulated, 1);
      }
      take(m);
    }
    if (!ok)
      throw RunError(fmt::format("{}: the benchmark {} ({} sample(s) arrived before it)", where,
                                 describe_exit(out), delivered_),
                     text::last_lines(out.err, 10, "its stderr"));
    std::vector<std::string> gbench_errors;  // its skipped and failed runs
    if (e_.benchmark.format == model::OutputFormat::gbench_json) {
      parsers::GbenchOutput g;
      try {
        g = parsers::parse_gbench_json(out.out);
      } catch (const ParseError& pe) {
        // What the program itself said comes first: "Failed to match any benchmarks against regex"
        // explains an empty output better than a JSON parser does.
        if (!text::trim(out.err).empty())
          throw ParseError(
              fmt::format(
                  "{}: {}", where,
                  text::trim(out.out).empty()
                      ? std::string("the benchmark printed nothing on stdout, no Google Benchmark JSON")
                      : fmt::format("the benchmark's output is not Google Benchmark JSON ({})", pe.what())),
              text::last_lines(out.err, 10, "what it said on stderr"));
        throw ParseError(fmt::format("{}: {}", where, pe.what()));
      }
      // The whole output read again says it was valid; what the stream delivered as it came is
      // its first measurements, and any the stream could not read come now.
      for (std::size_t i = gbench.output().measurements.size(); i < g.measurements.size(); ++i)
        take(g.measurements[i]);
      note_output(g, at(cond, step, unit, inv.number));
      gbench_errors = g.errors;
    }
    if (e_.benchmark.format == model::OutputFormat::gotest)
      note_output(go.output(), at(cond, step, unit, inv.number));
    if (inv.simulate == model::SimulationScope::timed_loop && !held.empty())
      deliver_timed_loops(std::move(held), out.simulated_loops, gbench_errors, cond, step, unit, inv.number,
                          where);
    else if (counted && !held.empty())
      deliver_counted(held, out.accounting, cond, step, unit, inv.number, where);
    if (delivered_ == 0)
      throw RunError(
          fmt::format("{}: the benchmark printed no result lines (is the -test.bench pattern right?)", where),
          text::last_lines(out.out + out.err, 10, "its output"));
    // A whole invocation printed every benchmark the condition runs.
    known_rows_[cond.name] = rows_[cond.name].size();
  }

  // Counts a sample into the progress (every benchmark's kept samples) and says how far the run is.
  runner::ProgressCount count_progress(const records::Sample& s) {
    auto& rows = rows_[s.condition];
    const std::tuple<std::string, std::string, std::string> row{s.name, s.config, s.variant};
    rows.insert({s.name, s.config});
    // Block 2 (the gate's confirmation) counts its own repeats, from the run's count when it began.
    const bool confirming = s.block == 2;
    const RowKey key{s.condition, s.block, std::get<0>(row), std::get<1>(row), std::get<2>(row)};
    std::size_t& kept = kept_[key];
    if (confirming && !first_block_done_) first_block_done_ = done_;
    if (!s.warmup) {
      ++done_;
      if (s.repeat < 0 || repeats_[key].insert(s.repeat).second) ++kept;
    }
    ProgressCount c;
    if (confirming) {
      // What block 2 runs: the rows it printed so far, each up to the cap of repeats.
      auto& confirmed = rows2_[s.condition];
      confirmed.insert({s.name, s.config});
      c.confirming = true;
      c.done = done_;
      c.total_known = true;
      std::size_t rows = 0;
      for (const auto& [condition, names] : rows2_) rows += names.size();
      c.total = *first_block_done_ + plan_.per_condition * plan_.units_per_repeat * rows;
      c.benchmark_done = kept;
      c.benchmark_total = plan_.per_condition;
      c.benchmarks = confirmed.size();
      return c;
    }
    c.done = done_;
    c.total_known = !known_rows_.empty();
    // A condition not yet run whole counts as many benchmarks as one that was (conditions of one
    // experiment run the same pattern), else as many as it printed so far.
    std::size_t typical = 0;
    for (const auto& [condition, n] : known_rows_) typical = std::max(typical, n);
    for (const auto& cond : e_.conditions) {
      const auto known = known_rows_.find(cond.name);
      const auto seen = rows_.find(cond.name);
      const std::size_t n = known != known_rows_.end() ? known->second
                            : typical > 0              ? typical
                            : seen != rows_.end()      ? seen->second.size()
                                                       : 1;
      c.total += plan_.per_condition * plan_.units_per_repeat * std::max<std::size_t>(n, 1);
    }
    c.benchmark_done = kept;
    c.benchmark_total = plan_.per_condition;
    const auto known = known_rows_.find(s.condition);
    c.benchmarks = known != known_rows_.end() ? known->second : std::max(typical, rows.size());
    return c;
  }

  const model::Experiment& e_;
  const plan::Plan& plan_;
  conditions::Environment& env_;
  Clock& clock_;
  Observer& observer_;
  const Cancelled& cancelled_;
  Measured& measured_;
  plan::Scheduler scheduler_;

  std::unique_ptr<conditions::ConditionScope> scope_;
  std::size_t scope_condition_ = 0;
  records::ConditionRecord record_;
  int block_ = 0;
  bool opened_ = false;               // a block was opened in this session
  model::Seconds settled_before_{0};  // the noise profile's time, just before the first block
  int invocation_ = 0;
  std::map<std::string, int> noop_invocations_;  // per condition: invocations that timed the no-ops
  std::size_t delivered_ = 0;                    // samples of the current invocation
  // Progress: kept samples of every benchmark; how many benchmarks a condition runs (a -test.bench
  // pattern, a Google Benchmark program) is known once one of its invocations has printed them all.
  std::size_t done_ = 0;
  std::map<std::string, std::set<std::pair<std::string, std::string>>> rows_;  // condition -> (name, config)
  std::map<std::string, std::size_t> known_rows_;                              // condition -> benchmarks
  // (condition, block, name, configuration, variant): a row's kept samples and its repeats.
  using RowKey = std::tuple<std::string, int, std::string, std::string, std::string>;
  std::map<RowKey, std::size_t> kept_;
  std::map<RowKey, std::set<int>> repeats_;
  // The gate's block 2: the rows each condition confirms, and the run's count when it began.
  std::map<std::string, std::set<std::pair<std::string, std::string>>> rows2_;
  std::optional<std::size_t> first_block_done_;
  // (condition, full name, configuration) -> samples so far: a row's own count (`go test ./...`
  // prints BenchmarkGet-8 of two packages; each has its warm-up).
  std::map<std::tuple<std::string, std::string, std::string>, int> counts_;
  std::set<std::tuple<std::string, std::string, std::string>> flagged_;  // non-finite counters said once
};

}  // namespace

void run(const model::Experiment& experiment, const plan::Plan& plan, conditions::Environment& environment,
         Clock& clock, Observer& observer, const Cancelled& cancelled, Measured& measured,
         const plan::Scheduler::Flagged& confirm, model::Seconds settled_before) {
  Loop loop(experiment, plan, environment, clock, observer, cancelled, measured);
  loop.confirm_with(confirm);
  loop.settled_before(settled_before);
  loop.run();
}

}  // namespace noisefloor::runner
