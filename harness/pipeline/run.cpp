// `noisefloor run` and `noisefloor validate`: load → build → prepare → fingerprint → run → write
// → analyze → render.
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <fmt/format.h>

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
#include "model/version.hpp"
#include "parsers/published.hpp"
#include "pipeline/commands.hpp"
#include "pipeline/room.hpp"
#include "plan/plan.hpp"
#include "process/process.hpp"
#include "render/fingerprint.hpp"
#include "render/html.hpp"
#include "render/run.hpp"
#include "render/table.hpp"
#include "results/directory.hpp"
#include "results/load.hpp"
#include "results/summary.hpp"
#include "text/text.hpp"

namespace noisefloor::pipeline {
namespace fs = std::filesystem;
namespace {

// The runner's clock: steady_clock and system_clock; sleeps until the time is up or a stop is
// requested (process::sleep_unless_stopped), and reads noisefloor's own CPU time.
class SystemClock : public runner::Clock {
 public:
  SystemClock() : start_(std::chrono::steady_clock::now()) {}
  model::Seconds elapsed() override { return std::chrono::steady_clock::now() - start_; }
  std::string utc() override { return text::utc(std::chrono::system_clock::now()); }
  void sleep(model::Seconds duration, const Cancelled& cancelled) override {
    process::sleep_unless_stopped(duration, cancelled);
    if (cancelled && cancelled()) throw Interrupted();
  }
  std::optional<double> own_cpu_seconds() override {
    timespec ts{};
    if (::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return std::nullopt;
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

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
      if (CPU_ISSET(cpu, &set) && (facts.online_cpus.empty() || std::binary_search(facts.online_cpus.begin(),
                                                                                    facts.online_cpus.end(), cpu)))
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
  facts.find_program = [](const std::string& program, const std::string& path_env) -> std::optional<std::string> {
    const char* own = std::getenv("PATH");
    const std::string path = !path_env.empty() ? path_env : own != nullptr ? own : "/usr/local/bin:/usr/bin:/bin";
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

void build(const model::Experiment& e, RunEvents& events, const Cancelled& cancelled) {
  if (e.benchmark.build.empty()) return;
  events.note(fmt::format("build: {}", fmt::join(e.benchmark.build, " ")));
  process::Spec spec;
  spec.argv = e.benchmark.build;
  spec.env = e.benchmark.env;
  spec.workdir = e.benchmark.workdir;
  spec.timeout = std::chrono::minutes(30);
  const process::Result r = process::run(spec, nullptr, cancelled);
  if (r.timed_out || r.signal || r.exit_code != 0)
    throw RunError(fmt::format("the build step failed ({}){}",
                               r.timed_out ? "timed out"
                               : r.signal  ? fmt::format("killed by signal {}", *r.signal)
                                           : fmt::format("exit code {}", r.exit_code),
                               text::last_lines(r.out + r.err, 15, "its output")));
}

// Everything probed about the run, host, toolchain and environment. Never throws for a probe
// that cannot be read: the fact says "unknown" with the reason.
records::Fingerprint collect_fingerprint(const model::Experiment& e, const std::string& command_line,
                                         const std::string& started) {
  records::Fingerprint fp;
  // Interleaving is a fixed round-robin and pairs alternate ABBA: nothing is random, so there is
  // no seed to record.
  const bool sequential = e.schedule == model::Schedule::sequential;
  fp.run = records::RunFacts{started,
                             "",
                             command_line,
                             fs::absolute(e.source_file).string(),
                             hash::sha256_hex(e.source_text),
                             kVersion,
                             kCommit,
                             sequential ? "sequential" : "interleaved",
                             sequential ? "each condition's samples together, conditions in file order"
                                        : "round-robin over conditions in file order (deterministic: no random seed)",
                             e.paired() ? "ABBA counterbalanced over the kept repeats (deterministic)" : ""};
  fp.host = fingerprint::probe_this_host();
  std::optional<fs::path> binary;
  if (!e.benchmark.command.empty() && e.benchmark.command.front().find('/') != std::string::npos &&
      fs::exists(e.benchmark.command.front()))
    binary = e.benchmark.command.front();
  const bool native = e.benchmark.format != model::OutputFormat::gotest;
  fp.toolchain = fingerprint::probe_toolchain(binary, e.base_dir.empty() ? std::nullopt : std::optional<fs::path>(e.base_dir),
                                              native);
  fp.env = fingerprint::probe_this_env();
  fp.benchmark_env = e.benchmark.env;
  fp.tuning = fingerprint::tuning_state();  // nothing applied: neither state nor error
  return fp;
}

namespace {

// The value of a -benchtime style flag of the command, "" when none.
std::string benchtime_of(const std::vector<std::string>& argv) {
  for (const auto& a : argv)
    for (const std::string_view flag : {"-test.benchtime=", "-benchtime=", "--benchmark_min_time="})
      if (a.starts_with(flag)) return a.substr(flag.size());
  return "";
}

// The demo's cv-summary.txt header, with what the demo forgot: the platform is in it.
std::vector<std::string> summary_header(const model::Experiment& e, const records::Fingerprint& fp,
                                        const std::vector<records::Sample>& samples) {
  std::vector<std::string> benchmarks;
  for (const auto& s : samples)
    if (std::find(benchmarks.begin(), benchmarks.end(), s.benchmark) == benchmarks.end()) benchmarks.push_back(s.benchmark);
  std::vector<std::string> h;
  std::string first = fmt::format("# CV comparison — {}, count={}", fmt::join(benchmarks, ", "), e.benchmark.samples);
  if (const std::string bt = benchtime_of(e.benchmark.command); !bt.empty()) first += ", benchtime=" + bt;
  h.push_back(first);
  h.push_back(fmt::format("# host: {}, {} logical CPUs", fp.host.show("uname"), fp.host.show("cpu.logical")));
  for (const auto& c : e.conditions) {
    if (!c.container) continue;
    std::string flags;
    if (c.container->cpuset) flags += " --cpuset-cpus=" + *c.container->cpuset;
    if (c.container->cpus) flags += fmt::format(" --cpus={}", *c.container->cpus);
    if (c.container->memory) flags += fmt::format(" --memory={}m", *c.container->memory / (1024 * 1024));
    h.push_back(fmt::format("# container image: {} ({})", c.container->image, flags.empty() ? "" : flags.substr(1)));
    break;
  }
  h.push_back(fmt::format("# generated by noisefloor {} ({})", kVersion, kCommit));
  return h;
}

// The `key: value` lines heading each raw <condition>.txt: the condition and the facts that
// move benchmarks, readable by benchstat's -filter and -col.
// The keys of raw_config that set one condition apart: comments in <condition>.txt, so that
// `benchstat idle.txt noisy.txt pinned.txt` prints one table.
const std::set<std::string> kConditionKeys = {"condition", "spinners",         "affinity",        "nice",
                                              "container-cpuset", "container-cpus", "container-memory"};

records::GoTestConfig raw_config(const model::Experiment& e, const records::Fingerprint& fp, const model::Condition& c,
                                 const std::string& run_id) {
  records::GoTestConfig cfg = {
      {"noisefloor-version", kVersion}, {"noisefloor-commit", kCommit}, {"experiment", e.name},
      {"run", run_id},                  {"condition", c.name},
  };
  if (c.spinners)
    cfg.emplace_back("spinners", fmt::format("{}{}", c.spinners->count,
                                             c.spinners->cpus.empty() ? "" : " on cpus " + model::format_cpu_list(c.spinners->cpus)));
  if (!c.affinity.empty()) cfg.emplace_back("affinity", model::format_cpu_list(c.affinity));
  if (c.nice) cfg.emplace_back("nice", std::to_string(*c.nice));
  if (c.container) {
    if (c.container->cpuset) cfg.emplace_back("container-cpuset", *c.container->cpuset);
    if (c.container->cpus) cfg.emplace_back("container-cpus", fmt::format("{}", *c.container->cpus));
    if (c.container->memory) cfg.emplace_back("container-memory", std::to_string(*c.container->memory));
  }
  const std::pair<const char*, std::string> facts[] = {
      {"host", fp.host.show("hostname")},
      {"cpu", fp.host.show("cpu.model_name")},
      {"logical-cpus", fp.host.show("cpu.logical")},
      {"kernel", fp.host.show("kernel.release")},
      {"os", fp.host.show("os.pretty_name")},
      {"platform", fp.host.show("uname")},
      {"virtual", fp.host.show("virtualization.hypervisor")},
      {"go-version", fp.toolchain.show("go.version")},
      {"binary-sha256", fp.toolchain.show("binary.sha256")},
      {"command-line", fp.run ? fp.run->command_line : "unknown"},
  };
  for (const auto& [key, value] : facts) {
    std::string flat = value;
    std::replace(flat.begin(), flat.end(), '\n', ' ');
    cfg.emplace_back(key, flat);
  }
  return cfg;
}

// Persists every sample before anyone sees it, then passes it on.
class Recorder : public runner::Observer {
 public:
  Recorder(results::RunDirectory& dir, RunEvents& events) : dir_(dir), events_(events) {}
  void sample(const records::Sample& s) override {
    dir_.append(s);
    events_.sample(s);
  }
  void condition_started(std::size_t index, std::size_t count, const model::Condition& c) override {
    events_.condition_started(index, count, c);
  }
  void condition_finished(std::size_t index, const records::ConditionRecord& record) override {
    events_.condition_finished(index, record);
  }
  void progress(const runner::ProgressCount& count, const records::Sample& latest) override {
    events_.progress(count, latest);
  }
  void resumed(const std::vector<records::Sample>& earlier) override { events_.resumed(earlier); }

 private:
  results::RunDirectory& dir_;
  RunEvents& events_;
};

// "<error> — the 12 sample(s) measured so far are kept in <dir>" (on a line of its own when the
// error quotes output).
std::string with_kept(const std::string& what, std::size_t kept, const fs::path& dir) {
  // One line says it all; quoted output (after "; last lines of ...:") follows on the lines below.
  const std::string note = fmt::format("the {} sample(s) measured so far are kept in {}", kept, dir.string());
  const std::size_t quote = what.find("; last lines of ");
  const std::size_t first_end = what.find('\n');
  if (quote != std::string::npos && quote < first_end) return what.substr(0, quote) + "; " + note + what.substr(quote);
  if (first_end == std::string::npos) return what + " — " + note;
  return what.substr(0, first_end) + " — " + note + what.substr(first_end);
}

}  // namespace

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
      throw InputError(fmt::format("{}: a directory without samples.jsonl: give a result directory, its summary.json, "
                                   "a cv-summary.txt or a markdown table",
                                   path));
    const analysis::Analysis a = analysis::analyze({results::load(path)});
    model::PublishedTable t = parsers::parse_summary_json(results::summary_document(a).dump());
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

void fail_unreproduced(Output& out, const std::vector<std::pair<std::string, const analysis::Judgement*>>& judged) {
  std::vector<std::string> failed;
  for (const auto& [label, j] : judged) {
    if (j == nullptr) continue;
    for (const auto& c : j->claims)
      if (c.run.verdict == claims::Verdict::not_reproduced)
        failed.push_back(label.empty() ? c.run.claim : fmt::format("{}: {}", label, c.run.claim));
  }
  if (failed.empty()) return;
  out.status = kNotReproducedStatus;
  const std::string what = fmt::format("{} claim{} NOT REPRODUCED: {}", failed.size(), failed.size() == 1 ? "" : "s",
                                       fmt::join(failed, "; "));
  out.failure = out.failure.empty() ? what : out.failure + "; " + what;
}

model::Experiment load_experiment(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    std::vector<std::string> yaml;
    for (const auto& entry : fs::directory_iterator(path, ec)) {
      const std::string ext = entry.path().extension().string();
      if ((ext == ".yaml" || ext == ".yml") && entry.is_regular_file(ec)) yaml.push_back(entry.path().string());
    }
    std::sort(yaml.begin(), yaml.end());
    if (yaml.empty())
      throw ConfigError(fmt::format("{}: is a directory, not an experiment file, and holds no .yaml file: give "
                                    "an experiment file (e.g. experiments/laptop.yaml)",
                                    path));
    throw ConfigError(fmt::format("{}: is a directory, not an experiment file: give one of its experiment files: {}",
                                  path, fmt::join(yaml, ", ")));
  }
  const auto text = files::try_read(path);
  if (!text)
    throw ConfigError(fmt::format("{}: cannot read the experiment file: {}", path,
                                  fs::exists(path) ? std::strerror(errno) : "no such file"));
  model::Experiment e = config::parse_experiment(*text, path, host_facts());
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
    throw ConfigError(fmt::format("{}: benchmark.command: {} does not exist (and there is no build step to make it)",
                                  e.source_file, exe));
  const bool auto_image = !e.hosts.empty() || std::any_of(e.conditions.begin(), e.conditions.end(), [](const auto& c) {
    return c.container && c.container->image == "auto";
  });
  if (!auto_image || !exists) return;
  std::vector<image::ImageInput> inputs;
  for (const auto& in : e.benchmark.inputs) inputs.push_back({fs::path(*e.benchmark.workdir) / in, in});
  try {
    (void)image::plan_image(exe, image::embedded_probe(), image::embedded_noop(), image::embedded_recipe(), inputs);
  } catch (const RunError& err) {
    throw ConfigError(fmt::format("{}: {}", e.source_file, err.what()));
  }
}

Output validate(const std::vector<std::string>& files) {
  Output o;
  std::size_t bad = 0;
  for (const auto& f : files) {
    try {
      const model::Experiment e = load_experiment(f);
      preflight(e);
      o.out += fmt::format("{}: ok ({} condition{}, {} samples each, {})\n", f, e.conditions.size(),
                           e.conditions.size() == 1 ? "" : "s", e.benchmark.samples,
                           e.schedule == model::Schedule::sequential ? "sequential" : "interleaved");
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
    throw ConfigError(fmt::format("--resume {}: not a run directory (expected results/<experiment>/<run>/ with a "
                                  "samples.jsonl)",
                                  dir));
  records::Result r = results::load(dir);
  // One host of a run on several (its run.json says so, or, killed before it wrote one, where it is).
  const fs::path canonical = fs::weakly_canonical(dir, ec);
  const bool in_fleet = canonical.parent_path().filename() == "hosts" &&
                        fs::exists(canonical.parent_path().parent_path() / "fleet.json", ec);
  if ((r.run && !r.run->host.empty()) || in_fleet)
    throw ConfigError(fmt::format("--resume {}: this is host '{}' of a run on several hosts, which cannot be resumed "
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

docker::LeaseOwner lease_owner(const model::Experiment& e, const std::string& run_id) {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const char* user = std::getenv("USER");
  return {fmt::format("{}@{} pid {}", user && *user ? user : (::geteuid() == 0 ? "root" : "uid " + std::to_string(::geteuid())),
                      host, ::getpid()),
          run_id.empty() ? e.name : e.name + "/" + run_id, text::utc(std::chrono::system_clock::now())};
}

// ---- one room: measure, then write -------------------------------------------------------

Finished measure_and_write(const RoomRun& r) {
  const model::Experiment& e = r.experiment;
  const RunOptions& o = r.options;
  results::RunDirectory& dir = r.dir;
  records::Fingerprint fp = r.fingerprint;
  Finished f;
  runner::Measured measured;
  if (r.earlier) {
    measured.session = r.session;
    measured.samples = r.earlier->samples.to_vector();
    if (r.earlier->run) measured.conditions = r.earlier->run->condition_records;
  }
  const plan::Plan plan = r.earlier ? plan::remaining(e, plan::plan(e), measured.samples) : plan::plan(e);
  Recorder recorder(dir, r.events);
  // The run's clock starts with the first step: sample times and the time budget of samples:
  // auto count from here, not from the build, the image or the fingerprint.
  SystemClock clock;
  try {
    runner::run(e, plan, r.environment, clock, recorder, r.cancelled, measured);
  } catch (const Interrupted&) {
    f.status = records::RunStatus::interrupted;
    f.error = "interrupted";
    f.failure = std::current_exception();
  } catch (const Error& err) {
    f.status = records::RunStatus::failed;
    f.error = err.what();
    f.failure = std::current_exception();
  } catch (const std::exception& err) {  // not ours (a JSON type error, out of memory): still recorded
    f.status = records::RunStatus::failed;
    f.error = fmt::format("internal error: {}", err.what());
    f.failure = std::current_exception();
  }
  // Containers a guard could not remove: said in run.json and, on a failed run, in the error.
  f.cleanup = r.containers ? r.containers->clean_up(dir.id()) : std::vector<std::string>{};
  measured.warnings.insert(measured.warnings.end(), f.cleanup.begin(), f.cleanup.end());
  r.events.done();
  const std::string finished = clock.utc();
  // The run's fingerprint is its first session's: a resumed run keeps it (and its finish time).
  if (r.earlier) fp = r.earlier->fingerprint;
  if (fp.run) fp.run->finished_utc = finished;

  // The raw files and run.json are written first: they hold every sample whatever happens to the
  // statistics below. A failure here (a full disk) never hides the run's own error.
  records::Result& result = f.result;
  result.label = r.label.empty() ? dir.id() : r.label;
  result.source = dir.path().string();
  records::RunRecord& run = result.run.emplace();
  try {
    dir.write(fp);
    for (const auto& c : e.conditions) {
      result.conditions.push_back(c.name);
      result.gotest_config[c.name] = raw_config(e, fp, c, dir.id());
      dir.write(c.name + ".txt", render::gotest_raw(measured.samples, c.name, result.gotest_config[c.name], false,
                                                    kConditionKeys));
    }
    run.experiment = e.name;
    run.description = e.description;
    run.experiment_file = e.source_file;
    run.run_id = dir.id();
    run.status = f.status;
    run.error = f.error;
    run.started_utc = r.started;
    run.finished_utc = finished;
    run.command_line = o.command_line;
    run.host = r.host;
    if (r.earlier) {
      // Every session, the first one included: when, how it ended, what it was run with.
      const records::SessionRecord now{r.started, finished, o.command_line, f.status, f.error, r.host_differences};
      if (r.earlier->run) {
        run.started_utc = r.earlier->run->started_utc;
        run.command_line = r.earlier->run->command_line;
        run.sessions = r.earlier->run->sessions;
        if (run.sessions.empty())
          run.sessions.push_back({r.earlier->run->started_utc, r.earlier->run->finished_utc,
                                  r.earlier->run->command_line, r.earlier->run->status, r.earlier->run->error, {}});
      } else {  // the first session was killed before it could write run.json
        run.started_utc = r.earlier->fingerprint.run ? r.earlier->fingerprint.run->started_utc : r.started;
        // Its fingerprint (written at its start) still says how it was started.
        const std::string command_line = r.earlier->fingerprint.run ? r.earlier->fingerprint.run->command_line : "";
        run.sessions.push_back({run.started_utc, "", command_line, records::RunStatus::failed,
                                std::string("ended without a record (killed)"), {}});
      }
      run.sessions.push_back(now);
      for (const auto& d : r.host_differences) measured.warnings.push_back("resumed on another host: " + d);
      if (r.earlier->run)
        measured.warnings.insert(measured.warnings.begin(), r.earlier->run->warnings.begin(),
                                 r.earlier->run->warnings.end());
    }
    run.conditions = result.conditions;
    run.summary_header = summary_header(e, fp, measured.samples);
    run.condition_records = measured.conditions;
    run.warnings = measured.warnings;
    if (e.paired())
      run.comparison = records::ComparisonSettings{e.variants.front().name, e.comparison.aa, e.comparison.threshold,
                                                   e.comparison.blocks};
    run.adaptive = measured.adaptive;
    run.units = measured.units;
    if (r.earlier && r.earlier->run) run.units.merge(r.earlier->run->units);
    for (const auto& c : e.claims) run.claims.push_back(c.text);
    if (e.reference) run.reference = e.reference->published;
    dir.write(run);
    result.fingerprint = fp;
    result.samples = measured.samples;

    f.analysis = analysis::analyze({result});
    dir.write("summary.json", results::summary_document(*f.analysis).dump(2) + "\n");
    dir.write("table.md", render::table_md(*f.analysis));
    dir.write("cv-summary.txt", render::summary_blocks(f.analysis->table, run.summary_header));
    // The page is a view of what is already written: a problem with it never fails the run, and is
    // said even under --quiet.
    try {
      dir.write("report.html", render::html(*f.analysis, fmt::format("noisefloor {} ({})", kVersion, kCommit)));
    } catch (const std::exception& err) {
      f.page_problem = fmt::format("warning: report.html not written: {}\n", err.what());
    }
  } catch (const std::exception& err) {
    f.finish_problem = err.what();
  }
  for (const auto& s : measured.samples) f.kept += !s.warmup;
  return f;
}

void throw_if_failed(const Finished& f, const fs::path& dir) {
  if (f.failure) {
    const auto kept_message = [&](const std::string& what) {
      std::string message = with_kept(what, f.kept, dir);
      for (const auto& w : f.cleanup) message += "\nwarning: " + w;
      if (!f.finish_problem.empty()) message += "\nthe result files could not all be written: " + f.finish_problem;
      if (!f.page_problem.empty()) message += "\n" + std::string(text::trim(f.page_problem));
      return message;
    };
    try {
      std::rethrow_exception(f.failure);
    } catch (const Interrupted& err) {
      throw Interrupted(kept_message(err.what()));
    } catch (const ConfigError& err) {
      throw ConfigError(kept_message(err.what()));
    } catch (const ParseError& err) {
      throw ParseError(kept_message(err.what()));
    } catch (const Error& err) {
      throw RunError(kept_message(err.what()));
    } catch (const std::exception&) {
      throw RunError(kept_message(*f.error));
    }
  }
  if (!f.finish_problem.empty())
    throw RunError(with_kept(fmt::format("the run completed, but its result files could not all be written: {}",
                                         f.finish_problem),
                             f.kept, dir));
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
        throw ConfigError(fmt::format("--results {}: {} is a file, not a directory: give a directory where "
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
      throw ConfigError(fmt::format("--results {}: {} is a dangling link: fix it or give another directory", root,
                                    p.string()));
    if (p == p.parent_path()) break;
  }
  if (!existing.empty() && ::access(existing.c_str(), W_OK | X_OK) != 0)
    throw ConfigError(fmt::format("--results {}: cannot create directories in {} ({}): give a writable directory",
                                  root, existing.string(), std::strerror(errno)));
}

Output run(const RunOptions& o, RunEvents& events, const Cancelled& cancelled) {
  if (o.resume.empty() && !o.hosts.empty()) return run_fleet(o, events, cancelled);
  // run --resume: the earlier sessions of the run, and the experiment it was started with.
  std::optional<records::Result> earlier;
  std::string experiment_file = o.experiment;
  if (!o.resume.empty()) {
    if (fs::exists(fs::path(o.resume) / "fleet.json"))
      throw ConfigError(fmt::format("--resume {}: a run on several hosts cannot be resumed yet: start a new run (what "
                                    "it measured stays in {}/hosts/)",
                                    o.resume, o.resume));
    earlier = load_resumable(o.resume);
    // The file the run recorded: run.json's (as given then), else the fingerprint's (absolute).
    if (experiment_file.empty() && earlier->fingerprint.run) experiment_file = earlier->fingerprint.run->experiment_file;
    if (experiment_file.empty() && earlier->run) experiment_file = earlier->run->experiment_file;
    if (experiment_file.empty())
      throw ConfigError(fmt::format("--resume {}: the run does not say which experiment file it ran: give it, "
                                    "`noisefloor run EXPERIMENT --resume {}`",
                                    o.resume, o.resume));
    // A result directory is not trusted: the experiment it names would be run (its build step,
    // its benchmark) though the user never named it. Nothing runs until the user names it; the
    // refusal says what it would run, from the copy the directory holds.
    if (o.experiment.empty()) {
      std::string runs;
      try {
        const auto copy = files::read_regular(fs::path(o.resume) / "experiment.yaml", 1 << 20, "an experiment's copy");
        const model::Experiment stored = config::parse_experiment(copy, "experiment.yaml", {});
        const auto argv = [](const std::vector<std::string>& a) {
          std::vector<std::string> quoted;
          for (const auto& w : a) quoted.push_back(text::quote(w));
          return fmt::format("{}", fmt::join(quoted, " "));
        };
        runs = stored.benchmark.build.empty() ? "" : fmt::format("build: {}; ", argv(stored.benchmark.build));
        runs += fmt::format("benchmark: {}", argv(stored.benchmark.command));
      } catch (const Error& err) {
        runs = fmt::format("its copy cannot be read: {}", err.what());
      }
      throw ConfigError(fmt::format("--resume {}: resuming runs the commands of the experiment this run names, {} "
                                    "({}); name it to go on: `noisefloor run {} --resume {}`",
                                    o.resume, experiment_file, runs, experiment_file, o.resume));
    }
  }
  model::Experiment e = load_experiment(experiment_file);
  if (o.check && e.claims.empty())
    throw ConfigError(fmt::format("{}: --check: the experiment states no claims to check; add claims: [\"cv(noisy) > 2 * "
                                  "cv(idle)\", ...] or run without --check",
                                  experiment_file));
  if (!earlier) check_results_root(o.results_root, e.name);
  if (!earlier && (!o.hosts.empty() || !e.hosts.empty())) return run_fleet(o, events, cancelled);
  if (earlier) {
    const auto stored = files::try_read(fs::path(o.resume) / "experiment.yaml");
    if (!stored || hash::sha256_hex(*stored) != hash::sha256_hex(e.source_text))
      throw ConfigError(fmt::format("{}: not the experiment the run in {} was started with (its copy there has "
                                    "another SHA-256): a resumed run must measure the same thing; start a new run",
                                    experiment_file, o.resume));
  }
  config::resolve_paths(e, fs::absolute(fs::path(e.source_file)).parent_path().string());
  std::optional<records::Result> anchor = load_anchor(o);
  const std::string started = text::utc(std::chrono::system_clock::now());

  // Containers are checked against the engine before anything is built or written.
  std::unique_ptr<conditions::ContainerRuntime> containers;
  if (std::any_of(e.conditions.begin(), e.conditions.end(), [](const model::Condition& c) { return c.container; }))
    containers = std::make_unique<conditions::ContainerRuntime>(e, [&](const std::string& line) { events.note(line); });

  build(e, events, cancelled);
  // One experiment per engine at a time: the lease before the images (loading one disturbs).
  std::unique_ptr<docker::EngineLease> lease;
  if (containers) lease = containers->take_lease(lease_owner(e, ""), o.wait, cancelled);
  if (containers) containers->prepare(cancelled);

  records::Fingerprint fp = collect_fingerprint(e, o.command_line, started);
  if (containers) fp.engine = containers->engine_facts();
  // The doctor's verdict on the room, stored with the run and shown above the progress.
  fp.doctor = fingerprint::diagnose(fp.host, fp.engine, config::pinned_cpus(e));

  // A resumed run goes on in the room it started in: facts that move benchmarks must agree.
  std::vector<std::string> host_differences;
  if (earlier && !earlier->fingerprint.empty()) {
    for (const auto& d : analysis::differences(earlier->fingerprint, fp))
      if (d.moves_benchmarks) host_differences.push_back(fmt::format("{}: {} then, {} now", d.field, d.a, d.b));
    if (!host_differences.empty() && !o.allow_different_hosts)
      throw ConfigError(fmt::format("--resume {}: this is not the room the run started in ({}); samples from both "
                                    "would not be comparable: pass --allow-different-hosts to resume anyway",
                                    o.resume, fmt::join(host_differences, "; ")));
  }

  bool torn = false;
  results::RunDirectory dir = earlier ? results::RunDirectory::reopen(o.resume, &torn)
                                      : results::RunDirectory(o.results_root, e.name);
  const int session = earlier ? std::max<int>(1, static_cast<int>(earlier->run ? earlier->run->sessions.size() : 1)) : 0;
  if (earlier) {
    // The first session's fingerprint stays the run's; each later one is kept beside it.
    dir.write(fmt::format("fingerprint.session-{}.json", session), nlohmann::json(fp).dump(2) + "\n");
    if (torn) events.note("resume: a torn last line of samples.jsonl (a crash mid-write) was dropped");
  } else {
    dir.write("experiment.yaml", e.source_text);
    dir.write(fp);
  }
  const std::string facts = render::key_facts(fp);  // lines() views it: it must outlive the loop
  for (const auto line : text::lines(facts)) events.note(std::string(line));
  events.note(fmt::format("results: {}", dir.path().string()));

  conditions::HostEnvironment env(containers ? containers->factory(dir.id()) : nullptr);
  const Finished f = measure_and_write({e, o, dir, env, events, cancelled, containers.get(), fp, started,
                                        earlier ? &*earlier : nullptr, session, host_differences, "", ""});
  throw_if_failed(f, dir.path());
  dir.point_latest();

  Output out;
  out.err = f.page_problem;
  out.out = "\n" + render::run_tables(*f.analysis, o.terminal, o.width) + "\n";
  if (anchor) {
    const std::string text = render::anchor_text(analysis::compare_with_anchor(f.result, *anchor));
    out.out += text;
    dir.write("anchor.txt", text);
  }
  for (const auto& w : f.result.run->warnings) out.out += fmt::format("warning: {}\n", w);
  out.out += fmt::format("results: {}\n", dir.path().string());
  if (o.check && f.analysis->judgement) fail_unreproduced(out, {{"", &*f.analysis->judgement}});
  return out;
}

}  // namespace noisefloor::pipeline
