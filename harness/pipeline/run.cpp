// `noisefloor run` and `noisefloor validate`: load → build → prepare → fingerprint → run → write
// → analyze → render.
#include "render/run.hpp"

#include <fmt/format.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <thread>

#include "analysis/analysis.hpp"
#include "analysis/anchor.hpp"
#include "conditions/container.hpp"
#include "conditions/host.hpp"
#include "config/experiment_file.hpp"
#include "files/files.hpp"
#include "fingerprint/doctor.hpp"
#include "fingerprint/host.hpp"
#include "fingerprint/tune.hpp"
#include "hash/sha256.hpp"
#include "image/embedded.hpp"
#include "image/recipe.hpp"
#include "model/cpulist.hpp"
#include "model/errors.hpp"
#include "model/names.hpp"
#include "model/version.hpp"
#include "parsers/published.hpp"
#include "pipeline/build.hpp"
#include "pipeline/commands.hpp"
#include "pipeline/gate.hpp"
#include "pipeline/room.hpp"
#include "plan/plan.hpp"
#include "process/process.hpp"
#include "render/fingerprint.hpp"
#include "render/html.hpp"
#include "render/json.hpp"
#include "render/table.hpp"
#include "render/warnings.hpp"
#include "results/directory.hpp"
#include "results/load.hpp"
#include "text/text.hpp"

namespace noisefloor::pipeline {
namespace fs = std::filesystem;

// What validation needs to know of this machine: the CPUs it can use.
config::HostFacts host_facts() {
  config::HostFacts facts;
  if (const auto online = files::try_read("/sys/devices/system/cpu/online"))
    if (auto cpus = model::parse_cpu_list(*online)) facts.online_cpus = *cpus;
  // Our own affinity mask is what we can actually use (e.g. inside a cpuset-limited container).
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) {
    std::vector<int> usable;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &set) &&
          (facts.online_cpus.empty() ||
           std::binary_search(facts.online_cpus.begin(), facts.online_cpus.end(), cpu)))
        usable.push_back(cpu);
    if (!usable.empty()) facts.online_cpus = usable;
  }
  facts.directory_problem = [](const std::string& path) -> std::string {
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (!fs::exists(st)) return "does not exist";
    if (!fs::is_directory(st)) return "is not a directory";
    if (::access(path.c_str(), X_OK) != 0) return fmt::format("cannot be entered ({})", std::strerror(errno));
    return "";
  };
  facts.input_problem = [](const std::string& path) -> std::string {
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (!fs::exists(st)) return "does not exist";
    if (::access(path.c_str(), R_OK) != 0) return fmt::format("cannot be read ({})", std::strerror(errno));
    return "";
  };
  facts.find_program = [](const std::string& program,
                          const std::string& path_env) -> std::optional<std::string> {
    const char* own = std::getenv("PATH");
    const std::string path = !path_env.empty() ? path_env
                             : own != nullptr  ? own
                                               : "/usr/local/bin:/usr/bin:/bin";
    for (std::size_t at = 0; at <= path.size();) {
      const std::size_t end = std::min(path.find(':', at), path.size());
      const fs::path candidate = fs::path(end > at ? path.substr(at, end - at) : ".") / program;
      std::error_code ec;
      if (fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0)
        return fs::absolute(candidate, ec).lexically_normal().string();
      at = end + 1;
    }
    return std::nullopt;
  };
  return facts;
}

namespace {

// reference: read now, so a table that cannot be read stops the run before anything runs.
model::PublishedTable read_reference(const model::ReferenceSpec& spec, const std::string& experiment_path) {
  model::PublishedTable t;
  try {
    t = spec.table.empty() ? read_published((fs::path(experiment_path).parent_path() / spec.file).string())
                           : parsers::parse_published(spec.table);
  } catch (const Error& err) {  // a table that does not parse, a file or result that does not load
    throw ConfigError(fmt::format("{}:{}:{}: reference: {}{} (a path is relative to the experiment file)",
                                  experiment_path, spec.mark.line, spec.mark.column,
                                  spec.file.empty() ? "table: " : "", err.what()));
  }
  t.file = spec.file;
  t.source = spec.source;
  return t;
}

}  // namespace

double wait_limit(const std::string& text) {
  const auto limit = config::parse_duration(text == "true" ? "1h" : text);
  if (!limit || !(limit->count() > 0))
    throw ConfigError(fmt::format("run: --wait={}: expected a duration (90s, 10m, 1h)", text));
  return limit->count();
}

model::PublishedTable read_published(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    // A noisefloor result directory (or an experiment's, through its `latest`).
    if (!fs::exists(fs::path(path) / "samples.jsonl", ec) && !fs::exists(fs::path(path) / "latest", ec))
      throw InputError(
          fmt::format("{}: a directory without samples.jsonl: give a result directory, its summary.json, "
                      "a cv-summary.txt or a markdown table",
                      path));
    const analysis::Analysis a = analysis::analyze({results::load(path)});
    model::PublishedTable t = render::published_table(a);
    t.format = "result";
    return t;
  }
  // A regular file of at most 64 MiB (a published table is a few kilobytes): a device or a FIFO
  // named here is refused, not read for ever.
  const std::string text = files::read_regular(path, 64 << 20, "a published table");
  try {
    return parsers::parse_published(text);
  } catch (const ParseError& err) {
    throw ParseError(fmt::format("{}: {}", path, err.what()));
  }
}

void fail_unreproduced(Output& out,
                       const std::vector<std::pair<std::string, const analysis::Judgement*>>& judged) {
  std::vector<std::string> failed;
  std::size_t claims = 0, undefined = 0;
  for (const auto& [label, j] : judged) {
    if (j == nullptr) continue;
    for (const auto& c : j->claims) {
      ++claims;
      undefined += c.run.verdict == claims::Verdict::undefined;
      if (c.run.verdict == claims::Verdict::not_reproduced)
        failed.push_back(label.empty() ? c.run.claim : fmt::format("{}: {}", label, c.run.claim));
    }
  }
  // A check in which nothing could be judged has checked nothing: it does not pass either.
  const bool nothing_judged = claims > 0 && undefined == claims;
  if (failed.empty() && !nothing_judged) return;
  out.status = kNotReproducedStatus;
  const std::string what =
      !failed.empty()
          ? fmt::format("{} claim{} NOT REPRODUCED: {}", failed.size(), failed.size() == 1 ? "" : "s",
                        fmt::join(failed, "; "))
          : fmt::format("every claim ({}) is UNDEFINED: nothing was checked; see why above", claims);
  out.failure = out.failure.empty() ? what : out.failure + "; " + what;
}

constexpr std::uintmax_t kExperimentLimit = 4 << 20;  // far above any experiment written by hand

model::Experiment load_experiment(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    std::vector<std::string> yaml;
    for (const auto& entry : fs::directory_iterator(path, ec)) {
      const std::string ext = entry.path().extension().string();
      if ((ext == ".yaml" || ext == ".yml") && entry.is_regular_file(ec))
        yaml.push_back(entry.path().string());
    }
    std::sort(yaml.begin(), yaml.end());
    if (yaml.empty())
      throw ConfigError(
          fmt::format("{}: is a directory, not an experiment file, and holds no .yaml file: give "
                      "an experiment file (e.g. experiments/laptop.yaml)",
                      path));
    throw ConfigError(
        fmt::format("{}: is a directory, not an experiment file: give one of its experiment files: {}", path,
                    fmt::join(yaml, ", ")));
  }
  if (!fs::exists(path, ec))
    throw ConfigError(fmt::format("{}: cannot read the experiment file: no such file", path));
  // A regular file of at most 4 MiB, read without blocking: /dev/zero or a FIFO named as the
  // experiment is one line, not a reader that grows without end (issue 42's fourth re-test: 10 GB).
  const std::string text = files::read_regular(path, kExperimentLimit, "an experiment file");
  model::Experiment e = config::parse_experiment(text, path, host_facts());
  if (e.reference) e.reference->published = read_reference(*e.reference, path);
  return e;
}

// Every file is checked, each failure reported on its own line; exit 2 when any failed.
// What `run` checks of the benchmark before its first sample, without an engine: the executable
// exists (unless the build step makes it), and the auto image a container condition uses can be
// made from it (an ELF program, its libraries, its inputs). Throws ConfigError naming the file.
void preflight(model::Experiment e) {
  config::resolve_paths(e, fs::absolute(fs::path(e.source_file)).parent_path().string());
  const std::string& exe = e.benchmark.command.front();
  std::error_code ec;
  const bool exists = exe.find('/') == std::string::npos || fs::exists(exe, ec);
  if (!exists && e.benchmark.build.empty())
    throw ConfigError(
        fmt::format("{}: benchmark.command: {} does not exist (and there is no build step to make it)",
                    e.source_file, exe));
  const bool auto_image =
      !e.hosts.empty() || std::any_of(e.conditions.begin(), e.conditions.end(), [](const auto& c) {
        return c.container && c.container->image == "auto";
      });
  if (!auto_image || !exists) return;
  std::vector<image::ImageInput> inputs;
  for (const auto& in : e.benchmark.inputs) inputs.push_back({fs::path(*e.benchmark.workdir) / in, in});
  try {
    (void)image::plan_image(exe, image::embedded_probe(), image::embedded_noop(), image::embedded_recipe(),
                            inputs);
  } catch (const RunError& err) {
    throw ConfigError(fmt::format("{}: {}", e.source_file, err.what()));
  }
}

namespace {

// "4 min 12 s", "38 s", "2 h 5 min".
std::string span_text(double seconds) {
  const auto s = static_cast<long>(std::llround(seconds));
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return s % 60 ? fmt::format("{} min {} s", s / 60, s % 60) : fmt::format("{} min", s / 60);
  return fmt::format("{} h {} min", s / 3600, (s % 3600) / 60);
}

// Each sweep and its points, as validate expands them: "  sweep noisy: 3 points, spinners = 0, 1, 2".
std::string sweeps_text(const model::Experiment& e) {
  std::string out;
  for (std::size_t i = 0; i < e.conditions.size();) {
    const auto& first = e.conditions[i];
    if (!first.sweep) {
      ++i;
      continue;
    }
    // Each parameter's values in first-seen order: "spinners = 0, 1 × affinity = none, 0".
    std::vector<std::pair<std::string, std::vector<std::string>>> axes;
    for (const auto& setting : first.sweep->settings) axes.push_back({setting.parameter, {}});
    std::size_t j = i;
    for (; j < e.conditions.size() && e.conditions[j].sweep &&
           e.conditions[j].sweep->group == first.sweep->group;
         ++j)
      for (std::size_t k = 0; k < axes.size() && k < e.conditions[j].sweep->settings.size(); ++k) {
        auto& values = axes[k].second;
        const std::string& v = e.conditions[j].sweep->settings[k].value;
        if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
      }
    std::vector<std::string> parts;
    for (const auto& [parameter, values] : axes)
      parts.push_back(fmt::format("{} = {}", parameter, fmt::join(values, ", ")));
    out += fmt::format("  sweep {}: {} point{}, {}\n", first.sweep->group, j - i, j - i == 1 ? "" : "s",
                       text::shorten(fmt::format("{}", fmt::join(parts, " × ")), 400));
    i = j;
  }
  return out;
}

// "  84 samples in 84 invocations, 14 blocks: at least 1 min 2 s (…)".
std::string estimate_text(const plan::Estimate& est) {
  std::string out = fmt::format(
      "  {}{} samples of each benchmark in {}{} invocations, {} block{}: ", est.adaptive ? "at most " : "",
      est.samples, est.adaptive ? "at most " : "", est.invocations, est.blocks, est.blocks == 1 ? "" : "s");
  if (est.sample_seconds)
    return out +
           fmt::format(
               "at least {} for one benchmark ({} of noise profile, settle and cooldown; each sample at "
               "least {} s, {})\n",
               span_text(est.fixed_seconds + *est.sample_seconds * static_cast<double>(est.samples)),
               span_text(est.fixed_seconds), text::shortest(*est.sample_seconds), est.sample_basis);
  return out + fmt::format(
                   "{} of noise profile, settle and cooldown, plus the samples' own time (not known "
                   "before they run: {})\n",
                   span_text(est.fixed_seconds), est.sample_basis);
}

}  // namespace

Output validate(const std::vector<std::string>& files) {
  Output o;
  std::size_t bad = 0;
  for (const auto& f : files) {
    try {
      const model::Experiment e = load_experiment(f);
      preflight(e);
      o.out += fmt::format("{}: ok ({} condition{}, {} samples each, {})\n", f, e.conditions.size(),
                           e.conditions.size() == 1 ? "" : "s",
                           e.adaptive ? fmt::format("auto up to {}", e.adaptive->max_samples)
                                      : std::to_string(e.benchmark.samples),
                           model::name_of(e.schedule));
      o.out += sweeps_text(e);
      o.out += estimate_text(plan::estimate(e));
    } catch (const ConfigError& e) {
      o.err += fmt::format("{}\n", e.what());
      ++bad;
    } catch (const InputError& e) {
      o.err += fmt::format("{}\n", e.what());
      ++bad;
    }
  }
  if (bad > 0 && files.size() > 1)
    o.err += fmt::format("noisefloor: {} of {} experiment files failed validation\n", bad, files.size());
  if (bad > 0) o.status = 2;
  return o;
}

namespace {

// The run `run --resume DIR` goes on with: its samples, records and fingerprint as written.
records::Result load_resumable(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec) || !fs::exists(fs::path(dir) / "samples.jsonl", ec))
    throw ConfigError(
        fmt::format("--resume {}: not a run directory (expected results/<experiment>/<run>/ with a "
                    "samples.jsonl)",
                    dir));
  records::Result r = results::load(dir);
  // One host of a run on several (its run.json says so, or, killed before it wrote one, where it is).
  const fs::path canonical = fs::weakly_canonical(dir, ec);
  const bool in_fleet = canonical.parent_path().filename() == "hosts" &&
                        fs::exists(canonical.parent_path().parent_path() / "fleet.json", ec);
  if ((r.run && !r.run->host.empty()) || in_fleet)
    throw ConfigError(
        fmt::format("--resume {}: this is host '{}' of a run on several hosts, which cannot be resumed "
                    "yet (here it would run on this machine instead): start a new run",
                    dir, r.run && !r.run->host.empty() ? r.run->host : canonical.filename().string()));
  if (r.run && r.run->status == records::RunStatus::complete)
    throw ConfigError(fmt::format("--resume {}: the run is complete: nothing to resume", dir));
  return r;
}

}  // namespace

std::optional<records::Result> load_anchor(const RunOptions& o) {
  if (o.anchor.empty()) return std::nullopt;
  try {
    return results::load(o.anchor);  // a bad anchor is a usage error, found before anything runs
  } catch (const RunError& err) {
    throw ConfigError(fmt::format("--anchor: {}", err.what()));
  }
}

// `--results`, checked before anything is built or run (and nothing is created): every part of
// <root>/<experiment> that exists must be a directory, and the deepest one writable.
void check_results_root(const std::string& root, const std::string& experiment) {
  std::error_code ec;
  fs::path existing;
  for (fs::path p = fs::path(root) / experiment;; p = p.parent_path()) {
    if (p.empty()) {
      existing = ".";
      break;
    }
    const fs::file_status st = fs::status(p, ec);
    if (fs::exists(st)) {
      if (!fs::is_directory(st))
        throw ConfigError(
            fmt::format("--results {}: {} is a file, not a directory: give a directory where "
                        "noisefloor may create result directories",
                        root, p.string()));
      existing = p;
      break;
    }
    if (p == p.parent_path()) break;
  }
  for (fs::path p = fs::path(root) / experiment; !p.empty() && p != existing; p = p.parent_path()) {
    const fs::file_status st = fs::symlink_status(p, ec);
    if (fs::is_symlink(st))
      throw ConfigError(fmt::format("--results {}: {} is a dangling link: fix it or give another directory",
                                    root, p.string()));
    if (p == p.parent_path()) break;
  }
  if (!existing.empty() && ::access(existing.c_str(), W_OK | X_OK) != 0)
    throw ConfigError(
        fmt::format("--results {}: cannot create directories in {} ({}): give a writable directory", root,
                    existing.string(), std::strerror(errno)));
  // `latest` is the link a complete run is pointed at: anything else there would fail the run
  // only once it has measured.
  const fs::path latest = fs::path(root) / experiment / "latest";
  if (const fs::file_status st = fs::symlink_status(latest, ec); fs::exists(st) && !fs::is_symlink(st))
    throw ConfigError(
        fmt::format("--results {}: {} is a {}, where noisefloor keeps the link to the last complete "
                    "run: move it away (nothing has run)",
                    root, latest.string(), fs::is_directory(st) ? "directory" : "file"));
}

namespace {

// A container condition's settings that change what runs and what it may reach: its image, and
// what it asks beyond the safe defaults (network, user, a writable root, performance counters,
// environment).
std::string container_words(const model::ContainerSpec& c) {
  std::string out = "image " + text::quote(c.image);
  if (c.network != model::ContainerSpec{}.network) out += ", network " + text::quote(c.network);
  if (c.user) out += ", user " + text::quote(*c.user);
  if (!c.read_only) out += ", writable root";
  if (c.perf_events) out += ", performance counters (CAP_PERFMON)";
  for (const auto& [name, value] : c.env) out += ", env " + text::quote(name) + "=" + text::quote(value);
  return out;
}

// Everything an experiment would run, as the --resume refusal shows it: the build step, the
// benchmark, where and with what environment (a workdir or an LD_PRELOAD changes what runs as much
// as argv), each condition's and variant's own arguments, environment, container and command, and
// the hosts it runs on.
std::string what_it_runs(const model::Experiment& e) {
  const auto argv = [](const std::vector<std::string>& a) {
    std::vector<std::string> quoted;
    for (const auto& w : a) quoted.push_back(text::quote(w));
    return fmt::format("{}", fmt::join(quoted, " "));
  };
  const auto env = [](const std::map<std::string, std::string>& vars) {
    std::vector<std::string> set;
    for (const auto& [name, value] : vars) set.push_back(text::quote(name) + "=" + text::quote(value));
    return fmt::format("{}", fmt::join(set, " "));
  };
  std::string runs = e.benchmark.build.empty() ? "" : fmt::format("build: {}; ", argv(e.benchmark.build));
  runs += fmt::format("benchmark: {}", argv(e.benchmark.command));
  if (e.benchmark.workdir) runs += fmt::format("; workdir: {}", text::quote(*e.benchmark.workdir));
  if (!e.benchmark.env.empty()) runs += fmt::format("; env: {}", env(e.benchmark.env));
  for (const auto& c : e.conditions) {
    if (!c.args.empty()) runs += fmt::format("; args of {}: {}", text::quote(c.name), argv(c.args));
    if (!c.env.empty()) runs += fmt::format("; env of {}: {}", text::quote(c.name), env(c.env));
    if (c.container)
      runs += fmt::format("; container of {}: {}", text::quote(c.name), container_words(*c.container));
  }
  for (const auto& v : e.variants) {
    if (v.command != e.benchmark.command)
      runs += fmt::format("; variant {}: {}", text::quote(v.name), argv(v.command));
    if (v.workdir) runs += fmt::format("; workdir of {}: {}", text::quote(v.name), text::quote(*v.workdir));
  }
  if (!e.hosts.empty()) {
    std::vector<std::string> hosts;
    for (const auto& h : e.hosts) hosts.push_back(text::quote(h.name));
    runs += fmt::format("; hosts: {}", fmt::join(hosts, " "));
  }
  return runs;
}

// run --resume: the earlier sessions of the run (nullopt without --resume), and the experiment
// file it was started with in `experiment_file` when not given. Nothing runs until the user names
// that file: a result directory is not trusted.
std::optional<records::Result> resumed(const RunOptions& o, std::string& experiment_file) {
  if (o.resume.empty()) return std::nullopt;
  if (fs::exists(fs::path(o.resume) / "fleet.json"))
    throw ConfigError(
        fmt::format("--resume {}: a run on several hosts cannot be resumed yet: start a new run (what "
                    "it measured stays in {}/hosts/)",
                    o.resume, o.resume));
  std::optional<records::Result> earlier = load_resumable(o.resume);
  // The file the run recorded: run.json's (as given then), else the fingerprint's (absolute).
  if (experiment_file.empty() && earlier->fingerprint.run)
    experiment_file = earlier->fingerprint.run->experiment_file;
  if (experiment_file.empty() && earlier->run) experiment_file = earlier->run->experiment_file;
  if (experiment_file.empty())
    throw ConfigError(
        fmt::format("--resume {}: the run does not say which experiment file it ran: give it, "
                    "`noisefloor run EXPERIMENT --resume {}`",
                    o.resume, o.resume));
  // A result directory is not trusted: the experiment it names would be run (its build step,
  // its benchmark) though the user never named it. Nothing runs until the user names it; the
  // refusal says what it would run, from the copy the directory holds.
  if (o.experiment.empty()) {
    std::string runs;
    try {
      const auto copy =
          files::read_regular(fs::path(o.resume) / "experiment.yaml", 1 << 20, "an experiment's copy", true);
      runs = what_it_runs(config::parse_experiment(copy, "experiment.yaml", {}));
    } catch (const Error& err) {
      runs = fmt::format("its copy cannot be read: {}", err.what());
    }
    throw ConfigError(fmt::format(
        "--resume {}: resuming runs the commands of the experiment this run names, {} "
        "({}); name it to go on: `noisefloor run {} --resume {}`",
        o.resume, experiment_file, runs, text::shell_word(experiment_file), text::shell_word(o.resume)));
  }
  return earlier;
}

}  // namespace

namespace {

// How a run measures. Five modes, chosen once (mode_of) from the options and the experiment file:
// a run on several hosts (fleet.cpp), and four on one machine's room that share its steps and
// differ in what they hook into them: the plain run, a resumed one (--resume: the earlier
// sessions, their directory), the gate (--base: two sides built, verdicts at the end) and the
// gate on another machine's engine (--base with --host or hosts:).
class Mode {
 public:
  virtual ~Mode() = default;
  virtual Output run(RunEvents& events, const Cancelled& cancelled) = 0;
};

class FleetMode final : public Mode {
 public:
  explicit FleetMode(const RunOptions& o) : o_(o) {}
  Output run(RunEvents& events, const Cancelled& cancelled) override {
    return run_fleet(o_, events, cancelled);
  }

 private:
  const RunOptions& o_;
};

// One machine's room: setup (the benchmark built, the engine checked), run_room into the directory
// `open` gives, then the mode's conclusion and what every mode adds (anchor, warnings, claims).
class RoomMode : public Mode {
 public:
  RoomMode(const RunOptions& o, model::Experiment e) : o_(o), e_(std::move(e)) {}
  Output run(RunEvents& events, const Cancelled& cancelled) final;

 protected:
  // Everything before the first condition; `setup.experiment` must outlive the mode.
  virtual RoomSetup setup(RunEvents& events, const Cancelled& cancelled, const std::string& started) = 0;
  virtual RoomDirectory open(const records::Fingerprint&, RunEvents&) {
    return {results::RunDirectory(o_.results_root, e_.name), 0, {}};
  }
  virtual void conclude(Output& out, const Finished& f, results::RunDirectory&, double) {
    out.out = "\n" + render::run_tables(*f.analysis, o_.terminal, o_.width) + "\n";
  }
  // The engine this machine's containers run on when a condition asks for one (nullptr: none).
  std::unique_ptr<conditions::ContainerRuntime> local_containers(RunEvents& events) const {
    if (!has_container_condition(e_)) return nullptr;
    return std::make_unique<conditions::ContainerRuntime>(
        e_, [&events](const std::string& l) { events.note(l); });
  }
  RoomSetup plain_setup(RunEvents& events, const Cancelled& cancelled, const std::string& started) {
    // Containers are checked against the engine before anything is built or written.
    RoomSetup setup{
        .experiment = e_, .options = o_, .events = events, .cancelled = cancelled, .started = started};
    setup.containers = local_containers(events);
    build(e_, events, cancelled);
    return setup;
  }

  const RunOptions& o_;
  model::Experiment e_;
};

Output RoomMode::run(RunEvents& events, const Cancelled& cancelled) {
  const auto began = std::chrono::steady_clock::now();
  const std::optional<records::Result> anchor = load_anchor(o_);
  const std::string started = text::utc(std::chrono::system_clock::now());
  RoomOutcome room = run_room(setup(events, cancelled, started),
                              [&](const records::Fingerprint& fp) { return open(fp, events); });
  results::RunDirectory& dir = room.dir;
  const Finished& f = room.finished;
  throw_if_failed(f, dir.path());
  dir.point_latest();

  Output out;
  out.err = f.page_problem;
  conclude(out, f, dir, std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
  if (anchor) {
    const std::string text = render::anchor_text(analysis::compare_with_anchor(f.result, *anchor));
    out.out += text;
    dir.write("anchor.txt", text);
  }
  for (const auto& w : f.result.run->warnings)
    out.out += fmt::format("warning: {}\n", render::run_warning_text(w));
  out.out += fmt::format("results: {}\n", dir.path().string());
  if (o_.check && f.analysis->judgement) fail_unreproduced(out, {{"", &*f.analysis->judgement}});
  return out;
}

class PlainMode final : public RoomMode {
 public:
  using RoomMode::RoomMode;

 private:
  RoomSetup setup(RunEvents& events, const Cancelled& cancelled, const std::string& started) override {
    return plain_setup(events, cancelled, started);
  }
};

// run --resume: the earlier sessions go on in their directory, in the room they started in.
class ResumeMode final : public RoomMode {
 public:
  ResumeMode(const RunOptions& o, model::Experiment e, records::Result earlier)
      : RoomMode(o, std::move(e)), earlier_(std::move(earlier)) {}

 private:
  RoomSetup setup(RunEvents& events, const Cancelled& cancelled, const std::string& started) override {
    // The directory is checked (its samples.jsonl this run's own regular file) and locked before
    // the experiment's build step runs: a refused directory runs nothing.
    reopened_.emplace(results::RunDirectory::reopen(o_.resume, &torn_));
    RoomSetup setup = plain_setup(events, cancelled, started);
    setup.earlier = &earlier_;
    return setup;
  }
  // Facts that move benchmarks must agree with the run's first session.
  RoomDirectory open(const records::Fingerprint& fp, RunEvents& events) override {
    std::vector<std::string> host_differences;
    if (!earlier_.fingerprint.empty()) {
      for (const auto& d : analysis::differences(earlier_.fingerprint, fp))
        if (d.moves_benchmarks)
          host_differences.push_back(fmt::format("{}: {} then, {} now", d.field, d.a, d.b));
      if (!host_differences.empty() && !o_.allow_different_hosts)
        throw ConfigError(
            fmt::format("--resume {}: this is not the room the run started in ({}); samples from both "
                        "would not be comparable: pass --allow-different-hosts to resume anyway",
                        o_.resume, fmt::join(host_differences, "; ")));
    }
    RoomDirectory where{std::move(*reopened_),
                        std::max<int>(1, static_cast<int>(earlier_.run ? earlier_.run->sessions.size() : 1)),
                        std::move(host_differences)};
    if (torn_) events.note("resume: a torn last line of samples.jsonl (a crash mid-write) was dropped");
    return where;
  }

  records::Result earlier_;
  std::optional<results::RunDirectory> reopened_;  // by setup, before the build
  bool torn_ = false;
};

// run --base: both sides checked out and built (or found in the cache) before anything is
// measured; verdicts at the end. `sides` are --base/--head, or the file's variants.
class GateMode : public RoomMode {
 public:
  GateMode(const RunOptions& o, model::Experiment e, RunOptions sides)
      : RoomMode(o, std::move(e)), sides_(std::move(sides)) {}

 protected:
  RoomSetup setup(RunEvents& events, const Cancelled& cancelled, const std::string& started) override {
    gate_ = prepare_gate(e_, sides_, events, cancelled);
    RoomSetup setup{
        .experiment = e_, .options = o_, .events = events, .cancelled = cancelled, .started = started};
    setup.containers = local_containers(events);
    setup.gate = gate_->facts;
    return setup;
  }
  void conclude(Output& out, const Finished& f, results::RunDirectory& dir, double seconds) override {
    conclude_gate(out, *f.analysis, e_, sides_, o_.base.empty(), dir, seconds);
  }

  RunOptions sides_;
  std::optional<PreparedGate> gate_;  // its cache entries stay locked while the gate runs
};

// The gate on one other machine (--host or hosts:): both sides built here, measured on that
// engine, every condition there as containers.
class RemoteGateMode final : public GateMode {
 public:
  using GateMode::GateMode;

 private:
  RoomSetup setup(RunEvents& events, const Cancelled& cancelled, const std::string& started) override {
    const GateHost where = gate_host(e_, o_);
    gate_ = prepare_gate(e_, sides_, events, cancelled);
    room_ = gate_room(where, e_, events);
    RoomSetup setup{.experiment = room_->experiment,
                    .options = o_,
                    .events = events,
                    .cancelled = cancelled,
                    .started = started,
                    .remote = room_->remote,
                    .endpoint = room_->endpoint};
    if (room_->client)
      setup.containers = std::make_unique<conditions::ContainerRuntime>(
          room_->experiment, [&events](const std::string& l) { events.note(l); }, std::move(*room_->client),
          room_->remote);
    setup.gate = gate_->facts;
    return setup;
  }

  std::optional<GateRoom> room_;
};

// Whether `o` holds an option of the gate's (what --base, or sides named in the file, take).
bool gate_options_given(const RunOptions& o) {
  return !o.head.empty() || o.allow_dirty || o.threshold || o.no_confirm || o.confirm ||
         !o.comment_file.empty() || !o.junit_file.empty();
}

// Refuses the gate's options in a run that is no gate (exit 2, before anything runs).
void refuse_gate_options(const RunOptions& o) {
  if (gate_options_given(o))
    throw ConfigError(
        "run: --head, --threshold, --confirm, --no-confirm, --allow-dirty, --comment and --junit belong to "
        "the gate: add --base REF (e.g. --base main), or name the sides in the experiment (variants with "
        "ref: or worktree: true)");
}

// Before anything is loaded: the options that belong to a mode the others do not take.
void check_run_options(const RunOptions& o) {
  // A run on hosts without --base is a fleet, decided before the experiment is read.
  if (o.base.empty() && o.resume.empty() && !o.hosts.empty()) refuse_gate_options(o);
  if (!o.supersedes.empty()) {
    if (!o.hosts.empty())
      throw ConfigError(
          "run: --supersedes with --host: a run on several hosts cannot record what it supersedes yet");
    (void)results::superseded_run(o.supersedes);  // a wrong path is found before anything runs (exit 2)
  }
}

// The mode of this run, its experiment loaded and checked.
std::unique_ptr<Mode> mode_of(const RunOptions& o) {
  if (o.resume.empty() && o.base.empty() && !o.hosts.empty()) return std::make_unique<FleetMode>(o);
  std::string experiment_file = o.experiment;
  std::optional<records::Result> earlier = resumed(o, experiment_file);
  model::Experiment e = load_experiment(experiment_file);
  if (o.check && e.claims.empty())
    throw ConfigError(
        fmt::format("{}: --check: the experiment states no claims to check; add claims: [\"cv(noisy) > 2 * "
                    "cv(idle)\", ...] or run without --check",
                    experiment_file));
  if (!earlier) check_results_root(o.results_root, e.name);
  // A gate named in the file (variants with ref: or worktree: true) is the gate --base asks for.
  RunOptions sides = o;
  if (!e.variants.empty() && e.variants.front().git) {
    if (!o.base.empty() || !o.head.empty())
      throw ConfigError(
          fmt::format("{}:{}:{}: the experiment names its gate's sides (ref:, worktree:): run it "
                      "without --base and --head, or remove them from the file",
                      experiment_file, e.variants.front().mark.line, e.variants.front().mark.column));
    sides.base = *e.variants[0].git;
    sides.head = *e.variants[1].git;
    e.variants.clear();
  }
  if (sides.base.empty()) refuse_gate_options(o);
  const bool elsewhere = !o.hosts.empty() || !e.hosts.empty();
  if (!earlier && sides.base.empty() && elsewhere) return std::make_unique<FleetMode>(o);
  if (earlier) {
    // A copy that is not a regular file (a FIFO, a link, a device) is named as such, not as a
    // different experiment.
    const std::string stored = files::read_regular(fs::path(o.resume) / "experiment.yaml", 1 << 20,
                                                   "a run's copy of its experiment", true);
    if (hash::sha256_hex(stored) != hash::sha256_hex(e.source_text))
      throw ConfigError(
          fmt::format("{}: not the experiment the run in {} was started with (its copy there has "
                      "another SHA-256): a resumed run must measure the same thing; start a new run",
                      experiment_file, o.resume));
  }
  config::resolve_paths(e, fs::absolute(fs::path(e.source_file)).parent_path().string());
  if (!sides.base.empty() && elsewhere)
    return std::make_unique<RemoteGateMode>(o, std::move(e), std::move(sides));
  if (!sides.base.empty()) return std::make_unique<GateMode>(o, std::move(e), std::move(sides));
  if (earlier) return std::make_unique<ResumeMode>(o, std::move(e), std::move(*earlier));
  return std::make_unique<PlainMode>(o, std::move(e));
}

}  // namespace

Output run(const RunOptions& o, RunEvents& events, const Cancelled& cancelled) {
  check_run_options(o);
  return mode_of(o)->run(events, cancelled);
}

}  // namespace noisefloor::pipeline
