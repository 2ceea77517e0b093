// One function per command: what each command does, from options to the text it shows. The
// stages are composed here and nowhere else; cli/ only parses options, calls one of these,
// prints what it returns and picks the exit code. Every function throws noisefloor::Error
// subclasses on failure (ConfigError: usage or configuration, exit 2; RunError: exit 1;
// Interrupted: exit 130) and never prints.
#pragma once

#include <array>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/callbacks.hpp"
#include "model/exit_status.hpp"
#include "model/experiment.hpp"
#include "model/names.hpp"
#include "runner/runner.hpp"
#include "store/server.hpp"

namespace noisefloor::pipeline {

using model::Cancelled;

// What a command shows: `out` for stdout, `err` for stderr (complete lines), and how it ended:
// `status` is the exit status a success implies (the doctor's grade), `failure` an error to
// report after the output (exit `status`, or 1 when it is 0), e.g. values `doctor --restore`
// could not write back, or the hosts of a run on several that failed.
// A document too large to hold as one string (report --format json of a million samples) is
// `stream`ed instead: written after `out`, piece by piece, to the sink it is given.
struct Output {
  std::string out, err;
  int status = 0;
  std::string failure;
  std::function<void(const std::function<void(std::string_view)>& sink)> stream;
};

// Reads and validates an experiment file against this host (its online CPUs). Throws
// ConfigError "file:line:col: ...".
model::Experiment load_experiment(const std::string& path);

// `--results ROOT` for experiment NAME, before anything is built or run (nothing is created):
// throws ConfigError when a part of ROOT/NAME is a file or the deepest existing one is not writable.
void check_results_root(const std::string& root, const std::string& experiment);

// ---- run ----

// --wait's value in seconds: "true" (a bare --wait, as CLI11 gives it) is an hour, else a
// duration ("10m", "90s"); throws ConfigError on anything else.
double wait_limit(const std::string& text);

struct RunOptions {
  std::string experiment;
  std::string results_root = "results";
  std::string command_line;
  std::string anchor;      // an earlier clean result: how contended was this run?
  bool terminal = false;   // stdout is a terminal: the text table instead of markdown
  std::size_t width = 80;  // the terminal's columns (at least 80)
  // run --resume DIR: go on with an interrupted or failed run (`experiment` may then be empty:
  // the file the run recorded is used; either way it must be the file the run was started with).
  std::string resume;
  bool allow_different_hosts = false;  // resume on a host whose benchmark-moving facts differ
  // --host NAME (repeatable): Docker contexts or endpoints to run on, instead of the experiment's
  // `hosts:` (README: Many machines).
  std::vector<std::string> hosts;
  // --wait[=DURATION]: wait for an engine another run holds, at most this many seconds (a bare
  // --wait: an hour), instead of failing; nullopt: fail at once.
  std::optional<double> wait;
  // --check: exit 3 when one of the experiment's claims is NOT REPRODUCED (a CI job guarding a
  // published result); the experiment must state claims.
  bool check = false;
  // The A/B gate (README: Is my change faster?): --base REF measures REF against --head REF (the
  // working tree with its uncommitted changes when empty), each built in a checkout of its own.
  std::string base, head;
  bool allow_dirty = false;              // --head HEAD although the working tree has changes
  std::optional<double> threshold;       // --threshold: θ (fraction); default 2%
  bool no_confirm = false;               // --no-confirm: block 1 alone decides
  bool confirm = false;                  // --confirm: a second block confirms every flagged row
  std::string comment_file, junit_file;  // --comment FILE, --junit FILE: copies of gate.md, junit.xml
  // --supersedes RUN: the earlier run whose figures this run replaces (README: Corrections).
  std::string supersedes;
};

// Where a run's live output goes: samples and progress (runner::Observer, after each sample is
// on disk) and one-line notes ("build: ...", "image: ...", the key facts, "results: <dir>").
class RunEvents : public runner::Observer {
 public:
  virtual void note(const std::string& line) = 0;
  // The run is about to end (successfully or not): finish any live line.
  virtual void done() {}
  // The events of one host of a run on several, shown on a line of its own. Called from the
  // thread that runs the host; the returned object is used from that thread only, and must be
  // safe beside the other hosts'. The default prefixes notes with the host and drops progress.
  virtual std::unique_ptr<RunEvents> host(const std::string& name);
};

// Load, build, prepare the container images, fingerprint, run every condition, write the
// results, and return the table (with the anchor and warnings). On a failure or interruption the
// samples measured so far and every result file are written first; the error then says where
// they are kept. With `resume`, the run directory's earlier samples are kept and only what is
// missing is measured, in a new session of the same run (README: Resuming a run).
Output run(const RunOptions& options, RunEvents& events, const Cancelled& cancelled);

Output validate(const std::vector<std::string>& files);

// ---- reading results ----

// The formats each command prints (--format), in the order its usage message lists them.
inline constexpr std::array kCvFormats{model::PrintFormat::text, model::PrintFormat::markdown,
                                       model::PrintFormat::json, model::PrintFormat::csv,
                                       model::PrintFormat::summary};
inline constexpr std::array kCompareFormats{model::PrintFormat::text, model::PrintFormat::json,
                                            model::PrintFormat::csv};
inline constexpr std::array kReportFormats{model::PrintFormat::markdown, model::PrintFormat::csv,
                                           model::PrintFormat::json,     model::PrintFormat::gotest,
                                           model::PrintFormat::summary,  model::PrintFormat::svg,
                                           model::PrintFormat::png};
inline constexpr std::array kCheckFormats{model::PrintFormat::text, model::PrintFormat::markdown,
                                          model::PrintFormat::json};
inline constexpr std::array kHistoryFormats{model::PrintFormat::text, model::PrintFormat::markdown,
                                            model::PrintFormat::csv, model::PrintFormat::json};

// ConfigError "--format: expected ..., got "json"" unless `format` is one of `accepted` (the
// command line checks this first; a caller that builds options itself is held to it here).
void require_format(model::PrintFormat format, std::span<const model::PrintFormat> accepted);

struct CvOptions {
  std::vector<std::string> paths;
  model::PrintFormat format = model::PrintFormat::markdown;  // one of kCvFormats
  bool allow_different_hosts = false;
  std::size_t width = 80;  // text: the terminal's columns (at least 80)
};
Output cv(const CvOptions& options);

struct CompareOptions {
  std::string old_path, new_path;                        // result directories or go test -bench output files
  model::PrintFormat format = model::PrintFormat::text;  // one of kCompareFormats
  std::string threshold = "1%";  // noise threshold θ of the verdicts: "1%" or a fraction "0.01"
  bool allow_different_hosts = false;
  // Compare rows whose sides were measured in rooms of different cleanliness (labels, e.g.
  // MEASURED-clean against CONTENDED); without it such a comparison is refused (exit 2).
  bool allow_different_labels = false;
};
Output compare(const CompareOptions& options);

// A noise threshold as the command line gives it: "2%" → 0.02, "0.02" → 0.02, in [0, 1); else
// ConfigError naming --threshold.
double parse_threshold(const std::string& text);

struct ReportOptions {
  std::vector<std::string> paths;            // one or more result directories (several: merged)
  std::string html;                          // --html FILE ("" = none)
  std::optional<model::PrintFormat> format;  // one of kReportFormats (none: the page only)
  bool allow_different_hosts = false;
  // --redact: the values of the environment (the harness's and the experiment's benchmark.env)
  // and the kernel command line are left out of what is published; their names stay.
  bool redact = false;
};
Output report(const ReportOptions& options);

// `check RESULTS`: the claims a run recorded (or --claim ones instead) judged on its samples, the
// published table beside when the run replayed one (or --reference). Results are result
// directories or go test -bench output files (one condition each, named after the file). Exit 3
// when a claim is NOT REPRODUCED.
struct CheckOptions {
  std::vector<std::string> paths;
  std::vector<std::string> claims;    // --claim (repeatable): replaces the recorded claims
  std::string reference;              // --reference FILE|DIR: replaces the recorded reference
  std::optional<std::uint64_t> seed;  // --seed: default the run's recorded seed, else 1
  model::PrintFormat format = model::PrintFormat::text;  // one of kCheckFormats
  bool allow_different_hosts = false;
  std::size_t width = 80;  // text: the terminal's columns (at least 80)
};
Output check(const CheckOptions& options);

// Exit 3 (status) with a one-line failure when `judged` (label → judgement) has a claim NOT
// REPRODUCED; `out` unchanged otherwise.
inline constexpr int kNotReproducedStatus = model::code(model::ExitStatus::not_reproduced);

// `run --base`: exit 4 (status) when the gate confirmed a regression in a gating benchmark; the
// run itself completed and every result file is written.
inline constexpr int kRegressionStatus = model::code(model::ExitStatus::regression);

// ---- errata ----

inline constexpr std::array kErrataFormats{model::PrintFormat::text, model::PrintFormat::markdown,
                                           model::PrintFormat::json};

// `noisefloor errata --old PATH... --new PATH... [--in PATH...] [--apply]` (README: Corrections):
// the figures OLD published that NEW supersedes, and every place under `in` (default: the git-tracked
// files under the current directory) that quotes one. Each side is what `cv` takes, merged as cv
// merges. With `apply`, the certain quotations are rewritten in place, each with a visible mark.
struct ErrataOptions {
  std::vector<std::string> old_paths, new_paths;
  std::vector<std::string> in;  // files and directories to search ("" = the git-tracked files under cwd)
  bool apply = false;
  model::PrintFormat format = model::PrintFormat::text;  // one of kErrataFormats
  std::string see;                     // what each correction mark points to (default: NEW's paths)
  std::string date;                    // the correction's date, YYYY-MM-DD (default: today, UTC)
  bool allow_different_hosts = false;  // merge a side's results from different rooms
  std::size_t width = 80;
};
Output errata(const ErrataOptions& options);

// ---- history ----

// `noisefloor history results/<experiment>`: every run of one experiment in time order, in
// segments by room, with the significant changes between consecutive runs (analysis/history.hpp).
struct HistoryOptions {
  std::string directory;                     // the experiment directory: results/<experiment>
  std::optional<model::PrintFormat> format;  // one of kHistoryFormats (none: text, or nothing with --html)
  std::string html;              // --html FILE: also write the self-contained page there ("" = none)
  std::string threshold = "2%";  // noise threshold: "2%" or a fraction "0.02"
};
// Runs that fail to load are warnings (on err); none loading is an InputError, a bad path or
// option a ConfigError.
Output history(const HistoryOptions& options);

// ---- the machine ----

Output fingerprint(bool json);

struct DoctorOptions {
  std::string experiment;  // "" = none
  // --host NAME: grade that Docker context or endpoint's machine instead of this one (README: Many
  // machines): its facts read by a facts container, and who holds its engine's lease.
  std::string host;
  bool apply = false, restore = false, json = false;
  bool color = false;  // stdout is a terminal and NO_COLOR is not set
  // --noise-profile: how long the room's noise profile runs (fingerprint/noise.hpp); 0s: none.
  std::string noise_profile = "2s";
};
// status 1 when the grade is "not ready".
Output doctor(const DoctorOptions& options, const Cancelled& cancelled);

// Removes containers that killed runs left behind (label noisefloor.run, or a machine-facts
// container: docker/api.hpp's plan_gc), on the engine of the environment or on `host` (a docker
// context or an endpoint, as run --host takes it).
Output gc(const std::string& host = {});

// ---- the store (README: Crowd replays) ----

// `serve`: the store's server until Ctrl-C (Interrupted then); `say` gets its lines.
Output serve(const store::ServeOptions& options, const Cancelled& cancelled,
             const std::function<void(const std::string&)>& say);
// `serve --idle-timeout`'s text ("10s", "2s"), read: ConfigError unless from 100 ms to 60 s (a
// request's whole deadline: a longer silence could never end one).
std::chrono::milliseconds serve_idle_timeout(const std::string& text);

enum class KeysAction { create, list, revoke };
constexpr std::array<std::pair<KeysAction, std::string_view>, 3> names(KeysAction) {
  return {{{KeysAction::create, "create"}, {KeysAction::list, "list"}, {KeysAction::revoke, "revoke"}}};
}

struct KeysOptions {
  std::string action;  // create, list or revoke (KeysAction)
  std::string db = store::ServeOptions{}.db;
  std::string scope = "publish";  // keys create --scope
  std::optional<int> expires_days;
  std::string id;  // keys revoke ID
};
// keys create (prints the key, once), keys list, keys revoke ID.
Output keys(const KeysOptions& options);

struct PublishOptions {
  std::vector<std::string> results;  // run directories, or experiment directories (their latest)
  std::string to;                    // the store's URL
  std::string key_file;              // else $NOISEFLOOR_KEY
};
Output publish(const PublishOptions& options);

}  // namespace noisefloor::pipeline
