// `noisefloor run`: its mode chosen once from the options and the experiment file, then load →
// build → prepare → fingerprint → run → write → analyze → render (the experiment's loading and
// `validate` are in experiment.cpp, --resume's checks in resume.cpp).
#include "render/run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>

#include "analysis/analysis.hpp"
#include "analysis/anchor.hpp"
#include "conditions/container.hpp"
#include "config/experiment_file.hpp"
#include "files/files.hpp"
#include "hash/sha256.hpp"
#include "model/errors.hpp"
#include "pipeline/build.hpp"
#include "pipeline/commands.hpp"
#include "pipeline/gate.hpp"
#include "pipeline/resume.hpp"
#include "pipeline/room.hpp"
#include "render/warnings.hpp"
#include "results/load.hpp"
#include "text/text.hpp"

namespace noisefloor::pipeline {
namespace fs = std::filesystem;

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
