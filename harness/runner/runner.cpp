#include "runner/runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>

#include "model/errors.hpp"
#include "parsers/gbench_json.hpp"
#include "parsers/gotest.hpp"

namespace noisefloor::runner {
namespace {

using Clock = std::chrono::steady_clock;

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

int per_invocation(const model::BenchmarkSpec& b) {
  return b.samples_per_run == 0 ? b.samples + b.warmup : b.samples_per_run;
}

// Turns what one invocation printed into samples, numbering them per (condition, benchmark).
class SampleMaker {
 public:
  SampleMaker(const model::Experiment& e, Clock::time_point start) : experiment_(e), start_(start) {}

  Sample make(const std::string& condition, const model::Measurement& m, int invocation) {
    Sample s;
    s.condition = condition;
    s.benchmark = m.benchmark;
    s.name = m.name;
    s.procs = m.procs;
    s.iterations = m.iterations;
    s.metrics = m.metrics;
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

void run(const model::Experiment& e, Environment& env, Observer& observer, const Cancelled& cancelled,
         RunRecord& record) {
  const auto start = Clock::now();
  const std::vector<PlannedInvocation> invocations = plan(e);
  SampleMaker maker(e, start);
  // Progress counts kept samples of the first benchmark only: the number of benchmarks a
  // regex matches is unknown until the first invocation prints.
  const std::size_t total = static_cast<std::size_t>(e.benchmark.samples) * e.conditions.size();
  std::size_t done = 0;
  std::string first_benchmark;

  auto check = [&] {
    if (cancelled && cancelled()) throw Interrupted();
  };

  std::size_t i = 0;
  std::size_t block = 0;
  while (i < invocations.size()) {
    // A block is a run of consecutive invocations of one condition: entered once, so spinners
    // and containers are set up once per block.
    const std::size_t cond_index = invocations[i].condition;
    std::size_t end = i;
    while (end < invocations.size() && invocations[end].condition == cond_index) ++end;
    const model::Condition& cond = e.conditions[cond_index];

    check();
    if (block > 0 && e.cooldown.count() > 0) env.cool_down(e.cooldown, cancelled);
    check();
    observer.condition_started(cond_index, e.conditions.size(), cond);
    nlohmann::json rec = {{"condition", cond.name}, {"block", block}, {"started_utc", utc_now()}};
    rec["load_before"] = env.load();
    std::unique_ptr<ConditionScope> scope = env.enter(cond);
    rec["setup"] = scope->describe();
    nlohmann::json runs = nlohmann::json::array();

    for (; i < end; ++i) {
      check();
      const PlannedInvocation& p = invocations[i];
      Invocation inv;
      inv.argv = invocation_argv(e.benchmark, p.samples);
      inv.env = e.benchmark.env;
      inv.workdir = e.benchmark.workdir;
      inv.timeout = e.benchmark.timeout;
      inv.number = static_cast<int>(i);

      parsers::GoTestParser go;
      std::size_t delivered = 0;
      auto deliver = [&](const model::Measurement& m) {
        Sample s = maker.make(cond.name, m, inv.number);
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
      const std::string where =
          fmt::format("condition '{}', run {} of {}", cond.name, inv.number + 1, invocations.size());
      nlohmann::json run_rec = {{"invocation", inv.number}, {"argv", inv.argv},
                                {"exit_code", out.exit_code}, {"wall_s", out.wall_seconds},
                                {"details", out.details}};
      runs.push_back(run_rec);

      if (e.benchmark.format == model::OutputFormat::command && !out.timed_out && !out.signal &&
          out.exit_code == 0) {
        model::Measurement m;
        m.name = m.benchmark = e.name;
        m.iterations = 1;
        m.metrics = {{out.wall_seconds, "sec/op"}};
        deliver(m);
      }
      if (out.timed_out || out.signal || out.exit_code != 0) {
        rec["runs"] = runs;
        record.conditions.push_back(rec);
        throw RunError(fmt::format("{}: the benchmark {} ({} sample(s) arrived before it); last lines of "
                                   "stderr:{}",
                                   where, describe_exit(out), delivered,
                                   out.err.empty() ? "\n    | (empty)" : tail_lines(out.err, 10)));
      }
      if (e.benchmark.format == model::OutputFormat::gbench_json) {
        try {
          const parsers::GbenchOutput g = parsers::parse_gbench_json(out.out);
          for (const auto& m : g.measurements) deliver(m);
          for (const auto& err : g.errors) record.warnings.push_back(fmt::format("{}: {}", where, err));
        } catch (const ParseError& pe) {
          throw ParseError(fmt::format("{}: {}", where, pe.what()));
        }
      }
      if (e.benchmark.format == model::OutputFormat::gotest) {
        for (const auto& f : go.output().failures)
          record.warnings.push_back(fmt::format("{}: benchmark {} failed", where, f));
      }
      if (delivered == 0) {
        rec["runs"] = runs;
        record.conditions.push_back(rec);
        throw RunError(fmt::format("{}: the benchmark printed no result lines (is the -test.bench "
                                   "pattern right?); last lines of output:{}",
                                   where, tail_lines(out.out + out.err, 10)));
      }
    }
    scope->finish();
    scope.reset();
    rec["runs"] = runs;
    rec["finished_utc"] = utc_now();
    rec["load_after"] = env.load();
    record.conditions.push_back(rec);
    observer.condition_finished(cond_index, rec);
    ++block;
  }
}

}  // namespace noisefloor::runner
