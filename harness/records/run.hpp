// The record of one run (run.json): what ran, under which conditions as they were in force (read
// back, not assumed), and how it ended. Written by the run pipeline, read back by every command
// that reads results.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fingerprint/facts.hpp"
#include "model/names.hpp"
#include "model/pair_order.hpp"
#include "model/published.hpp"
#include "model/sweep.hpp"
#include "model/units.hpp"
#include "model/usage.hpp"
#include "probe/probe_report.hpp"

namespace noisefloor::records {

// The current run.json schema; a reader refuses a newer one.
inline constexpr int kRunSchemaVersion = 1;

enum class RunStatus { complete, interrupted, failed };

constexpr std::array<std::pair<RunStatus, std::string_view>, 3> names(RunStatus) {
  return {{
      {RunStatus::complete, "complete"},
      {RunStatus::interrupted, "interrupted"},
      {RunStatus::failed, "failed"},
  }};
}

std::string_view to_string(RunStatus status);  // "complete", "interrupted", "failed"

// What a run says without failing: a measurement kept with a caveat, another program's own
// complaint, a container left behind, a session resumed elsewhere. Typed here, said in one
// sentence by render::run_warning_text (the run's output, the reading commands); run.json keeps the
// fields, so a program reads the kind, never a sentence. (claims_not_judged arises in reading a
// run, never in its run.json.)
enum class RunWarningKind {
  non_finite_metric,  // a metric other than the primary was NaN or infinite: kept as not a number
  paused_timing,      // a timed loop counted under valgrind calls PauseTiming (the counts include it)
  benchmark_error,    // the benchmark reported an error of one of its benchmarks (an invocation's)
  benchmark_failed,   // go test: a benchmark failed (an invocation's)
  output_note,        // the benchmark's output read with a caveat (the parser's words)
  unit_conflict,      // two `Unit` lines set one key differently: the first value kept
  container_left,     // a container the run's guard could not remove (detail: why)
  container_late,     // a container whose first removal failed, removed at the end of the run
  resumed_elsewhere,  // a session of the run went on where a fact of the host differs
  claims_not_judged,  // reading it: the claims it recorded cannot be judged (the claim's error)
  torn_last_line,     // reading it: the last line of samples.jsonl was cut short (ignored)
  no_samples,         // reading it: samples.jsonl holds no sample
  skipped,            // reading many: a run that could not be loaded (detail: the error)
  several_hosts,      // reading many: a run on several hosts, which history does not read
  other,              // a run.json of 0.x: its sentence, as it was written
};

constexpr std::array<std::pair<RunWarningKind, std::string_view>, 15> names(RunWarningKind) {
  return {{
      {RunWarningKind::non_finite_metric, "non_finite_metric"},
      {RunWarningKind::paused_timing, "paused_timing"},
      {RunWarningKind::benchmark_error, "benchmark_error"},
      {RunWarningKind::benchmark_failed, "benchmark_failed"},
      {RunWarningKind::output_note, "output_note"},
      {RunWarningKind::unit_conflict, "unit_conflict"},
      {RunWarningKind::container_left, "container_left"},
      {RunWarningKind::container_late, "container_late"},
      {RunWarningKind::resumed_elsewhere, "resumed_elsewhere"},
      {RunWarningKind::claims_not_judged, "claims_not_judged"},
      {RunWarningKind::torn_last_line, "torn_last_line"},
      {RunWarningKind::no_samples, "no_samples"},
      {RunWarningKind::skipped, "skipped"},
      {RunWarningKind::several_hosts, "several_hosts"},
      {RunWarningKind::other, "other"},
  }};
}

// One warning; the fields its kind does not use stay empty (0 for the numbers).
struct RunWarning {
  RunWarningKind kind = RunWarningKind::other;
  std::string condition{};  // the condition it arose in
  std::string variant{};    // a paired experiment's variant
  int invocation = 0;       // which invocation (1-based; a variant's repeat), 0: none
  int invocations = 0;      // of how many (fixed sample counts), 0: not known in advance
  std::string benchmark{};  // the benchmark it is about
  std::string unit{};       // non_finite_metric: the metric's unit
  std::string detail{};     // the source's own words: the value (nan, inf), an error, a difference
  std::string container{};  // container_left, container_late: the container's id
  std::string file{};       // the file (or directory) it is about, when one is
  int line = 0;             // in `file` (1-based), 0: none
  friend bool operator==(const RunWarning&, const RunWarning&) = default;
};

// How the variants of a paired experiment are compared (from the experiment's comparison:).
struct ComparisonSettings {
  std::string baseline;     // the baseline variant's name
  bool aa = true;           // the baseline was also paired with itself
  double threshold = 0.01;  // θ, a fraction
  bool blocks = false;      // design: blocks (unpaired) rather than paired
  friend bool operator==(const ComparisonSettings&, const ComparisonSettings&) = default;
};

// Why `samples: auto` stopped taking samples of a condition.
// decided, futile: the gate's early stops (harness/stats/README.md §3.13 "When a block stops").
enum class StopReason { none, precision, max_samples, time_budget, decided, futile };

// Where the probe that measured an invocation ran.
enum class MeasuredBy { none, host, container };

constexpr std::array<std::pair<StopReason, std::string_view>, 6> names(StopReason) {
  return {{
      {StopReason::none, ""},
      {StopReason::precision, "precision"},
      {StopReason::max_samples, "max_samples"},
      {StopReason::time_budget, "time budget"},
      {StopReason::decided, "decided"},
      {StopReason::futile, "futile"},
  }};
}
constexpr std::array<std::pair<MeasuredBy, std::string_view>, 3> names(MeasuredBy) {
  return {{
      {MeasuredBy::none, ""},
      {MeasuredBy::host, "host"},
      {MeasuredBy::container, "container"},
  }};
}

// How `samples: auto` ended for one condition.
struct AdaptiveOutcome {
  bool converged = false;
  int samples = 0;                  // kept samples (or repeats) when it stopped
  std::optional<double> halfwidth;  // relative 99% half-width reached; nullopt: not computable
  double target = 0;                // the precision asked for
  StopReason stopped_by = StopReason::none;
  std::string rule;  // which interval was tested
  friend bool operator==(const AdaptiveOutcome&, const AdaptiveOutcome&) = default;
};

// ---- a condition as it was put in place ----

struct SpinnerSetup {
  int count = 0;
  std::vector<int> cpus;  // empty: unpinned
  std::vector<int> pids;
  std::optional<int> nice;
  std::vector<std::string> containers;  // id12 of each, when the spinners ran as containers
  friend bool operator==(const SpinnerSetup&, const SpinnerSetup&) = default;
};

struct ContainerSetup {
  std::string image;
  std::optional<std::string> cpuset;
  std::optional<double> cpus;
  std::optional<std::int64_t> memory, memory_swap;
  std::string network;
  bool read_only = true;
  std::int64_t pids_limit = 0;
  bool perf_events = false;  // CAP_PERFMON granted
  friend bool operator==(const ContainerSetup&, const ContainerSetup&) = default;
};

struct ConditionSetup {
  std::optional<SpinnerSetup> spinners;
  std::vector<int> affinity;  // asked for the benchmark process; empty: inherited
  std::optional<int> nice;
  std::optional<ContainerSetup> container;
  std::vector<std::string> args;           // the condition's args, after the benchmark's command
  std::map<std::string, std::string> env;  // the condition's env, over benchmark.env
  friend bool operator==(const ConditionSetup&, const ConditionSetup&) = default;
};

// ---- one invocation of the benchmark ----

// The container an invocation ran in, as the engine reported it.
struct ContainerRun {
  std::string id, name, image, image_id, started_at, finished_at;
  std::int64_t exit_code = 0;
  bool oom_killed = false, timed_out = false;
  friend bool operator==(const ContainerRun&, const ContainerRun&) = default;
};

// What was applied, read back from the running benchmark or its container.
struct InvocationDetails {
  // Host process: the CPU affinity and nice value read back from the running benchmark.
  std::optional<std::vector<int>> affinity;
  std::string affinity_unknown;  // why the affinity could not be read back
  std::optional<int> nice;
  // Container: the engine's view of the container and of its limits, the probe's view from
  // inside, and the comparison of both with what the experiment asked for.
  std::optional<ContainerRun> container;
  std::optional<probe::Effective> limits_engine, limits_inside;
  std::map<std::string, std::string> probe;  // the probe's raw values
  std::optional<probe::Verification> verification;
  friend bool operator==(const InvocationDetails&, const InvocationDetails&) = default;
};

// Where an invocation sits in the paired design.
struct PairPosition {
  std::string variant;
  int repeat = 0;
  model::PairOrder order = model::PairOrder::none;  // AB or BA
  std::string pair;                                 // the variant compared with the baseline, or "A/A"
  friend bool operator==(const PairPosition&, const PairPosition&) = default;
};

// What the kernel accounted to one invocation, measured where the benchmark ran.
struct Accounting {
  // The benchmark's process tree, from the wait4 of the probe that started it: on the host, or
  // inside an `image: auto` container (the container's lifecycle is not in it). nullopt: not
  // measured (a named image has no probe; a run that was stopped has no account).
  std::optional<model::Usage> usage;
  MeasuredBy measured_by = MeasuredBy::none;
  std::optional<model::CgroupCpu> cgroup;  // `image: auto` containers: the cgroup's CPU and CFS throttling
  // The benchmark's threads: on a CPU and waiting for one (where the probe ran it).
  std::optional<model::RunQueue> run_queue;
  // The kernel's counters over the benchmark's tree (where the probe ran it); nullopt: an older
  // probe, or a named image without one.
  std::optional<model::Counters> counters;
  // `format: command`: no-ops started exactly as the benchmark is, by the same probe, in the
  // same condition, just before it.
  std::vector<double> launcher_noop_seconds;
  std::string launcher_unknown;  // why no-ops could not be timed
  friend bool operator==(const Accounting&, const Accounting&) = default;
};

// The probe's account of an invocation as the record keeps it, measured `by` the probe on the host
// or in a container (whose account carries its cgroup's CPU and throttling too).
Accounting accounting_of(const probe::ProbeRun& run, MeasuredBy by);

struct InvocationRecord {
  int invocation = 0;  // 0-based within the run
  std::vector<std::string> argv;
  int exit_code = 0;
  // The invocation as noisefloor saw it, around the probe: on the host the probe's own start
  // and exit too; for a container the whole lifecycle (create, start, logs, wait, inspect, remove).
  double wall_seconds = 0;
  InvocationDetails details;
  Accounting accounting;
  std::optional<PairPosition> pair;
  // noisefloor's own CPU time (all its threads, CLOCK_PROCESS_CPUTIME_ID) over the invocation:
  // starting it, reading its output, recording its samples. nullopt when not measured.
  std::optional<double> harness_cpu_seconds;
  friend bool operator==(const InvocationRecord&, const InvocationRecord&) = default;
};

// How much CPU one background spinner really got while the benchmark ran: its CPU time over the
// condition's invocations (from /proc/<pid>/schedstat) against their wall time.
struct SpinnerLoad {
  int pid = 0;
  std::optional<double> cpu_seconds;  // nullopt: could not be read
  double wall_seconds = 0;
  double expected_share = 1;  // min(1, CPUs it may run on / spinners sharing them)
  bool alive = true;          // still running when the condition ended
  std::string container;      // id12 of its container, when it ran as one (pid: on that machine)
  std::optional<double> share() const {
    if (!cpu_seconds || wall_seconds <= 0) return std::nullopt;
    return *cpu_seconds / wall_seconds;
  }
  // Starved: it got less than a tenth of its expected share over at least 0.2 s of benchmark
  // time (shorter windows are too coarse to judge). A starved spinner is no load at all.
  bool starved() const {
    const auto s = share();
    return s && wall_seconds >= 0.2 && *s < 0.1 * expected_share;
  }
  friend bool operator==(const SpinnerLoad&, const SpinnerLoad&) = default;
};

// One block of a condition in force: entered, settled, its invocations, left. An interrupted or
// failed block has no finished time and no load after.
struct ConditionRecord {
  std::string condition;
  int block = 0;
  int session = 0;  // which session of the run entered it (run --resume adds sessions)
  std::string started_utc, finished_utc;
  fingerprint::LoadReading load_before;
  double settle_seconds = 0;  // waited after the condition was in force, before the first sample
  std::optional<fingerprint::LoadReading> load_settled;  // read after the settle time
  std::optional<fingerprint::LoadReading> load_after;
  ConditionSetup setup;
  std::vector<SpinnerLoad> spinner_load;
  std::vector<InvocationRecord> runs;
  friend bool operator==(const ConditionRecord&, const ConditionRecord&) = default;
};

// One session of a run: the first `noisefloor run`, then each `noisefloor run --resume`.
struct SessionRecord {
  std::string started_utc, finished_utc, command_line;
  RunStatus status = RunStatus::complete;
  std::optional<std::string> error;
  std::vector<std::string>
      host_differences;  // fields that move benchmarks, accepted with --allow-different-hosts
  friend bool operator==(const SessionRecord&, const SessionRecord&) = default;
};

// `run --supersedes RUN`: the earlier run whose figures this run replaces (a measurement found
// wrong: unpaired on a busy host, a different room). Readers of that run say so, by scanning the
// runs beside it; nothing of the earlier run is changed.
struct Supersedes {
  std::string run_id;      // its run id (the result directory's name)
  std::string experiment;  // its experiment's name
  std::string path;        // its directory, absolute, as it was when this run started
  friend bool operator==(const Supersedes&, const Supersedes&) = default;
};

struct RunRecord {
  std::string experiment;  // the experiment's name
  std::string description;
  std::string experiment_file;  // the experiment file as it was given on the command line
  std::string run_id;           // the result directory's name
  RunStatus status = RunStatus::complete;
  std::optional<std::string> error;
  std::string started_utc, finished_utc, command_line;
  std::vector<std::string> conditions;      // in the experiment's order
  std::vector<std::string> summary_header;  // the header lines of cv-summary.txt
  std::vector<ConditionRecord> condition_records;
  std::vector<RunWarning> warnings;
  std::optional<ComparisonSettings> comparison;     // paired experiments
  std::map<std::string, AdaptiveOutcome> adaptive;  // samples: auto, per condition
  std::map<std::string, model::SweepPoint> sweeps;  // the conditions that are a sweep's points
  // Every session of a resumed run, the first one included; empty for a run never resumed
  // (its one session is the fields above).
  std::vector<SessionRecord> sessions;
  // The host of a run on several (README: Many machines): as the experiment or --host named it;
  // "" for a run on this machine alone.
  std::string host;
  // What the experiment claims (`claims:`, as written) and the seed of the bootstrap that judges
  // them; the published table it replays (`reference:`), as read when the run started.
  std::vector<std::string> claims;
  std::uint64_t claims_seed = 1;
  std::optional<model::PublishedTable> reference;
  // `Unit` metadata lines the benchmark printed (which way a unit is better, assume=exact).
  model::UnitMetadata units;
  std::optional<Supersedes> supersedes;  // run --supersedes
  friend bool operator==(const RunRecord&, const RunRecord&) = default;
};

// JSON (nlohmann ADL). run.json is {"schema_version": 1, "experiment", "description",
// "run_id", "status", "error" (null when none), "started_utc", "finished_utc", "command_line",
// "conditions", "summary_header", "condition_records": [...], "warnings": [{"kind", and the
// fields it uses: "condition", "variant", "invocation", "invocations", "benchmark", "unit",
// "detail"}] (older files hold a sentence each: read as kind "other", the sentence its detail),
// "experiment_file", "comparison" (paired experiments), "adaptive" (samples: auto), "sweeps" (experiments
// with sweeps: per condition {"group", "index", "settings": [{"parameter", "value", "number" (null: a
// category)}]}), "host" (runs on several hosts), "claims", "claims_seed", "reference" (experiments that have
// them), "units" (when the benchmark printed `Unit` lines), "supersedes" ({"run_id", "experiment", "path"}:
// run
// --supersedes)}. CPU lists are written as text ("0-3", spinners "unpinned"). from_json
// accepts every schema 1 file written since 0.1 (fields added later default) and throws ParseError for a
// wrong type or a newer schema_version.
void to_json(nlohmann::json& j, const ComparisonSettings& v);
void from_json(const nlohmann::json& j, ComparisonSettings& v);
void to_json(nlohmann::json& j, const AdaptiveOutcome& v);
void from_json(const nlohmann::json& j, AdaptiveOutcome& v);
void to_json(nlohmann::json& j, const ConditionSetup& v);
void from_json(const nlohmann::json& j, ConditionSetup& v);
void to_json(nlohmann::json& j, const InvocationDetails& v);
void from_json(const nlohmann::json& j, InvocationDetails& v);
void to_json(nlohmann::json& j, const Accounting& v);
void from_json(const nlohmann::json& j, Accounting& v);
void to_json(nlohmann::json& j, const SpinnerLoad& v);
void from_json(const nlohmann::json& j, SpinnerLoad& v);
void to_json(nlohmann::json& j, const InvocationRecord& v);
void from_json(const nlohmann::json& j, InvocationRecord& v);
void to_json(nlohmann::json& j, const ConditionRecord& v);
void from_json(const nlohmann::json& j, ConditionRecord& v);
void to_json(nlohmann::json& j, const SessionRecord& v);
void from_json(const nlohmann::json& j, SessionRecord& v);
void to_json(nlohmann::json& j, const RunWarning& v);
void from_json(const nlohmann::json& j, RunWarning& v);
void to_json(nlohmann::json& j, const RunRecord& v);
void from_json(const nlohmann::json& j, RunRecord& v);

}  // namespace noisefloor::records

namespace noisefloor::model {
// {"source", "file", "format", "unit", "header", "rows": [{"condition", "benchmark", "n", "mean",
// "stddev", "cv_pct", "median", "min", "max"}]}, unknown figures null.
void to_json(nlohmann::json& j, const PublishedRow& v);
void from_json(const nlohmann::json& j, PublishedRow& v);
void to_json(nlohmann::json& j, const PublishedTable& v);
void from_json(const nlohmann::json& j, PublishedTable& v);
void to_json(nlohmann::json& j, const SweepPoint& v);
void from_json(const nlohmann::json& j, SweepPoint& v);
// {"wall_s", "user_s", "sys_s", "max_rss_kib", "voluntary_switches", "involuntary_switches"}
void to_json(nlohmann::json& j, const Usage& v);
void from_json(const nlohmann::json& j, Usage& v);
// {"usage_s", "periods", "throttled_periods", "throttled_s"} (null when unknown), "unknown"
void to_json(nlohmann::json& j, const CgroupCpu& v);
void from_json(const nlohmann::json& j, CgroupCpu& v);
// {"run_s", "wait_s"} (null when unknown), "tasks", "reads", "unknown"
void to_json(nlohmann::json& j, const RunQueue& v);
void from_json(const nlohmann::json& j, RunQueue& v);
// {"counts": {key: n}, "missing": {key: why}, "multiplexed", "user_only"} (the last three when set)
void to_json(nlohmann::json& j, const Counters& v);
void from_json(const nlohmann::json& j, Counters& v);
}  // namespace noisefloor::model

namespace noisefloor::probe {
// The limits in effect, every field by name; nullopt → null.
void to_json(nlohmann::json& j, const Effective& v);
void from_json(const nlohmann::json& j, Effective& v);
// {"mismatches": [...], "warnings": [...]}
void to_json(nlohmann::json& j, const Verification& v);
void from_json(const nlohmann::json& j, Verification& v);
}  // namespace noisefloor::probe
