// One room's run (pipeline/room.hpp): the engine's lease, the images, the fingerprint and the
// doctor, the run directory's first files, the measurement, then the result files. `run` on this
// machine (run.cpp) and on several (fleet.cpp) both go through run_room.
#include "pipeline/room.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>

#include "analysis/analysis.hpp"
#include "fingerprint/doctor.hpp"
#include "fingerprint/host.hpp"
#include "fingerprint/noise_probe.hpp"
#include "fingerprint/tune.hpp"
#include "hash/sha256.hpp"
#include "model/errors.hpp"
#include "model/names.hpp"
#include "model/version.hpp"
#include "pipeline/gate.hpp"
#include "pipeline/run_record.hpp"
#include "plan/plan.hpp"
#include "process/process.hpp"
#include "render/fingerprint.hpp"
#include "render/html.hpp"
#include "render/json.hpp"
#include "render/run.hpp"
#include "render/table.hpp"
#include "render/warnings.hpp"
#include "results/load.hpp"
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

// "<error> — the 12 sample(s) measured so far are kept in <dir>"; an error that quotes output
// says it on its headline, before the quote.
std::string with_kept(const Error& error, std::size_t kept, const fs::path& dir) {
  const std::string note = fmt::format("the {} sample(s) measured so far are kept in {}", kept, dir.string());
  if (!error.quoted().empty()) return fmt::format("{}; {}{}", error.headline(), note, error.quoted());
  const std::string what = error.what();
  const std::size_t first_end = what.find('\n');
  if (first_end == std::string::npos) return what + " — " + note;
  return what.substr(0, first_end) + " — " + note + what.substr(first_end);
}

// One room's run from a prepared environment on.
struct RoomRun {
  const model::Experiment& experiment;
  const RunOptions& options;
  results::RunDirectory& dir;
  conditions::Environment& environment;
  RunEvents& events;
  const Cancelled& cancelled;
  conditions::ContainerRuntime* containers;  // nullptr: no engine
  records::Fingerprint fingerprint;
  std::string started;
  const records::Result* earlier = nullptr;  // run --resume
  int session = 0;
  std::vector<std::string> host_differences{};
  std::string host{};  // the host of a run on several, recorded in run.json ("" = none)
};

}  // namespace

namespace {

// Everything probed about the run, host, toolchain and environment. Never throws for a probe
// that cannot be read: the fact says "unknown" with the reason.
records::Fingerprint collect_fingerprint(const model::Experiment& e, const std::string& command_line,
                                         const std::string& started) {
  records::Fingerprint fp;
  // Interleaving is a fixed round-robin and pairs alternate ABBA: nothing is random, so there is
  // no seed to record.
  fp.run = records::RunFacts{
      .started_utc = started,
      .finished_utc = "",
      .command_line = command_line,
      .experiment_file = fs::absolute(e.source_file).string(),
      .experiment_sha256 = hash::sha256_hex(e.source_text),
      .noisefloor_version = kVersion,
      .noisefloor_commit = kCommit,
      .schedule = e.schedule,
      .pairing = e.gate       ? model::Pairing::quads
                 : e.paired() ? model::Pairing::abba
                              : model::Pairing::none,
      .gate = std::nullopt,
  };
  fp.host = fingerprint::probe_this_host();
  std::optional<fs::path> binary;
  if (!e.benchmark.command.empty() && e.benchmark.command.front().find('/') != std::string::npos &&
      fs::exists(e.benchmark.command.front()))
    binary = e.benchmark.command.front();
  const bool native = e.benchmark.format != model::OutputFormat::gotest;
  fp.toolchain = fingerprint::probe_toolchain(
      binary, e.base_dir.empty() ? std::nullopt : std::optional<fs::path>(e.base_dir), native,
      e.benchmark.simulated ? std::optional(model::valgrind_settings(*e.benchmark.simulation_scope()))
                            : std::nullopt);
  fp.env = fingerprint::probe_this_env();
  fp.benchmark_env = e.benchmark.env;
  fp.tuning = fingerprint::tuning_state();  // nothing applied: neither state nor error
  return fp;
}

docker::LeaseOwner lease_owner(const model::Experiment& e, const std::string& run_id) {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const char* user = std::getenv("USER");
  return {
      fmt::format("{}@{} pid {}",
                  user && *user ? user : (::geteuid() == 0 ? "root" : "uid " + std::to_string(::geteuid())),
                  host, ::getpid()),
      run_id.empty() ? e.name : e.name + "/" + run_id, text::utc(std::chrono::system_clock::now())};
}

// ---- one room: measure, then write -------------------------------------------------------

// The plan run in the room: what it measured (a resumed run's earlier samples first) and how it
// ended; never throws for the run's own failure.
runner::Measured measure(const RoomRun& r, Finished& f) {
  const model::Experiment& e = r.experiment;
  runner::Measured measured;
  if (r.earlier) {
    measured.session = r.session;
    measured.samples = r.earlier->samples.to_vector();
    if (r.earlier->run) measured.conditions = r.earlier->run->condition_records;
  }
  const plan::Plan plan = r.earlier ? plan::remaining(e, plan::plan(e), measured.samples) : plan::plan(e);
  Recorder recorder(r.dir, r.events);
  // The run's clock starts with the first step: sample times and the time budget of samples:
  // auto count from here, not from the build, the image or the fingerprint.
  SystemClock clock;
  try {
    const model::Seconds profiled(
        r.fingerprint.noise && r.fingerprint.noise->measured() ? r.fingerprint.noise->seconds : 0.0);
    runner::run(e, plan, r.environment, clock, recorder, r.cancelled, measured,
                e.gate ? gate_confirmation(e) : plan::Scheduler::Flagged{}, profiled);
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
  f.cleanup = r.containers ? r.containers->clean_up(r.dir.id()) : std::vector<records::RunWarning>{};
  measured.warnings.insert(measured.warnings.end(), f.cleanup.begin(), f.cleanup.end());
  f.finished_utc = clock.utc();
  return measured;
}

// The raw files and run.json first: they hold every sample whatever happens to the statistics
// after them. Then the analysis and the files made from it.
void write_result(results::RunDirectory& dir, Finished& f) {
  const records::Result& result = f.result;
  dir.write(result.fingerprint);
  for (const auto& c : result.conditions)
    dir.write(c + ".txt",
              render::gotest_raw(result.samples, c, result.gotest_config.at(c), false, kConditionKeys));
  dir.write(*result.run);
  f.analysis = analysis::analyze({result});
  dir.write("summary.json", render::summary_json(*f.analysis));
  dir.write("table.md", render::table_md(*f.analysis));
  dir.write("cv-summary.txt", render::summary_blocks(f.analysis->table, result.run->summary_header));
  // The page is a view of what is already written: a problem with it never fails the run, and is
  // said even under --quiet.
  try {
    dir.write("report.html", render::html(*f.analysis, fmt::format("noisefloor {} ({})", kVersion, kCommit)));
  } catch (const std::exception& err) {
    f.page_problem = fmt::format("warning: report.html not written: {}\n", err.what());
  }
}

// Runs the plan, then writes the raw files, run.json, summary.json, table.md, cv-summary.txt and
// report.html; never throws for the run's own failure (Finished says it).
Finished measure_and_write(const RoomRun& r) {
  Finished f;
  runner::Measured measured = measure(r, f);
  r.events.done();
  for (const auto& s : measured.samples) f.kept += !s.warmup;
  // A failure here (a full disk) never hides the run's own error.
  try {
    f.result = build_run_record({
        .experiment = r.experiment,
        .producer = {kVersion, kCommit},
        .run_id = r.dir.id(),
        .directory = r.dir.path().string(),
        .host = r.host,
        .command_line = r.options.command_line,
        .started = r.started,
        .finished = f.finished_utc,
        .status = f.status,
        .error = f.error,
        .fingerprint = r.fingerprint,
        .measured = std::move(measured),
        .earlier = r.earlier,
        .host_differences = r.host_differences,
        .supersedes = r.options.supersedes.empty()
                          ? std::nullopt
                          : std::optional(results::superseded_run(r.options.supersedes)),
    });
    write_result(r.dir, f);
  } catch (const std::exception& err) {
    f.finish_problem = err.what();
  }
  return f;
}

}  // namespace

void throw_if_failed(const Finished& f, const fs::path& dir) {
  if (f.failure) {
    const auto kept_message = [&](const Error& error) {
      std::string message = with_kept(error, f.kept, dir);
      for (const auto& w : f.cleanup) message += "\nwarning: " + render::run_warning_text(w);
      if (!f.finish_problem.empty())
        message += "\nthe result files could not all be written: " + f.finish_problem;
      if (!f.page_problem.empty()) message += "\n" + std::string(text::trim(f.page_problem));
      return message;
    };
    try {
      std::rethrow_exception(f.failure);
    } catch (const Interrupted& err) {
      throw Interrupted(kept_message(err));
    } catch (const ConfigError& err) {
      throw ConfigError(kept_message(err));
    } catch (const ParseError& err) {
      throw ParseError(kept_message(err));
    } catch (const Error& err) {
      throw RunError(kept_message(err));
    } catch (const std::exception&) {
      throw RunError(kept_message(RunError(*f.error)));
    }
  }
  if (!f.finish_problem.empty())
    throw RunError(
        with_kept(RunError(fmt::format("the run completed, but its result files could not all be written: {}",
                                       f.finish_problem)),
                  f.kept, dir));
}

bool has_container_condition(const model::Experiment& e) {
  return std::any_of(e.conditions.begin(), e.conditions.end(),
                     [](const model::Condition& c) { return c.container.has_value(); });
}

namespace {

// The room's noise (fingerprint/noise.hpp), measured last before the run, when nothing of
// noisefloor's own is running any more; or why it is not.
fingerprint::NoiseProfile room_noise(const RoomSetup& s) {
  const model::Experiment& e = s.experiment;
  using fingerprint::NoiseNotTaken;
  if (s.remote) return fingerprint::noise_not_measured(NoiseNotTaken::other_machine, s.endpoint);
  if (e.gate && !e.noise_profile_set) return fingerprint::noise_not_measured(NoiseNotTaken::gate);
  if (e.noise_profile.count() <= 0) return fingerprint::noise_not_measured(NoiseNotTaken::profile_off);
  s.events.note(
      fmt::format("measuring the room's noise for {:g} s (noise_profile)", e.noise_profile.count()));
  return fingerprint::measure_noise(e.noise_profile, s.cancelled);
}

// The room as the run records it: this host's facts, or (another machine's engine) that machine's
// as a container reads them, with the engine, the noise and the doctor's verdict.
records::Fingerprint room_fingerprint(const RoomSetup& s) {
  std::optional<fingerprint::FactTree> machine;
  if (s.remote) machine = s.containers->machine_facts(s.cancelled);
  if (s.containers) s.containers->prepare(s.cancelled);
  records::Fingerprint fp = collect_fingerprint(s.experiment, s.options.command_line, s.started);
  if (fp.run) fp.run->gate = s.gate;
  if (machine) {
    fp.host = *machine;
    // This process's environment is not the containers': they get benchmark.env only.
    fp.env = std::map<std::string, std::string>{};
  }
  if (s.containers) fp.engine = s.containers->engine_facts();
  fp.noise = room_noise(s);
  // The doctor's verdict on the room, stored with the run and shown above the progress.
  fp.doctor = fingerprint::diagnose(fp.host, fp.engine, config::pinned_cpus(s.experiment), fp.noise);
  return fp;
}

// Where the conditions run: here (processes, and containers on this machine's engine), or every
// one as containers on another machine's engine.
std::unique_ptr<conditions::Environment> room_environment(const RoomSetup& s, const std::string& run_id) {
  if (s.remote) return std::make_unique<conditions::EngineEnvironment>(s.containers->factory(run_id));
  return std::make_unique<conditions::HostEnvironment>(s.containers ? s.containers->factory(run_id)
                                                                    : nullptr);
}

// The room's key facts, where the conditions run and where the results go, above the progress.
void announce(const RoomSetup& s, const records::Fingerprint& fp, const results::RunDirectory& dir) {
  const std::string facts = render::key_facts(fp);  // lines() views it: it must outlive the loop
  for (const auto line : text::lines(facts)) s.events.note(std::string(line));
  if (s.remote)
    s.events.note(fmt::format(
        "every condition runs as containers on {} (noisefloor starts no host processes there)", s.endpoint));
  if (s.host.empty()) s.events.note(fmt::format("results: {}", dir.path().string()));
}

}  // namespace

RoomOutcome run_room(RoomSetup s, const OpenDirectory& open) {
  const model::Experiment& e = s.experiment;
  // The lease first: loading an image, or reading the machine, disturbs a run that holds it.
  std::unique_ptr<docker::EngineLease> lease;
  if (s.containers)
    lease = s.containers->take_lease(lease_owner(e, s.lease_run), s.options.wait, s.cancelled);
  const records::Fingerprint fp = room_fingerprint(s);

  RoomDirectory where = open(fp);
  results::RunDirectory& dir = where.dir;
  if (s.earlier) {
    // The first session's fingerprint stays the run's; each later one is kept beside it.
    dir.write_session(where.session, fp);
  } else {
    dir.write("experiment.yaml", e.source_text);
    dir.write(fp);
  }
  announce(s, fp, dir);
  const std::unique_ptr<conditions::Environment> env = room_environment(s, dir.id());
  Finished f = measure_and_write({
      .experiment = e,
      .options = s.options,
      .dir = dir,
      .environment = *env,
      .events = s.events,
      .cancelled = s.cancelled,
      .containers = s.containers.get(),
      .fingerprint = fp,
      .started = s.started,
      .earlier = s.earlier,
      .session = where.session,
      .host_differences = where.host_differences,
      .host = s.host,
  });
  return {std::move(where.dir), std::move(f)};
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

}  // namespace noisefloor::pipeline
