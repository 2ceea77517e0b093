// The experiment model: what a YAML experiment file says, after validation. Plain values only.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/gate.hpp"
#include "model/names.hpp"
#include "model/published.hpp"
#include "model/simulation.hpp"
#include "model/sweep.hpp"

namespace noisefloor::model {

using Seconds = std::chrono::duration<double>;

// Where a value came from in the experiment file, 1-based; line 0 means "not from the file".
struct SourceMark {
  int line = 0;
  int column = 0;
  friend bool operator==(const SourceMark&, const SourceMark&) = default;
};

enum class OutputFormat { gotest, gbench_json, command };
enum class Schedule { sequential, interleaved };

// The experiment file's words for them (benchmark.format, schedule).
constexpr std::array<std::pair<OutputFormat, std::string_view>, 3> names(OutputFormat) {
  return {{{OutputFormat::gotest, "gotest"},
           {OutputFormat::gbench_json, "gbench-json"},
           {OutputFormat::command, "command"}}};
}
constexpr std::array<std::pair<Schedule, std::string_view>, 2> names(Schedule) {
  return {{{Schedule::sequential, "sequential"}, {Schedule::interleaved, "interleaved"}}};
}
// The order a schedule runs the work in, in words (fingerprint.json's "order").
constexpr std::string_view order_words(Schedule s) {
  constexpr std::array<std::pair<Schedule, std::string_view>, 2> kWords{{
      {Schedule::sequential, "each condition's samples together, conditions in file order"},
      {Schedule::interleaved, "round-robin over conditions in file order (deterministic: no random seed)"},
  }};
  return word_of(s, kWords, "");
}

// Background CPU load: `count` busy-loop processes, optionally placed on `cpus`.
struct SpinnerSpec {
  int count = 0;          // resolved: `all` becomes the number of logical CPUs
  bool all = false;       // the file said `all`
  std::vector<int> cpus;  // empty: unpinned (the scheduler places them)
  std::optional<int> nice;
  friend bool operator==(const SpinnerSpec&, const SpinnerSpec&) = default;
};

// The benchmark inside a container, started through the Docker Engine API.
struct ContainerSpec {
  std::string image = "auto";               // "auto": built offline from the benchmark executable
  std::optional<std::string> cpuset;        // e.g. "0" or "0-1,3"; validated against the engine's CPUs
  std::optional<double> cpus;               // CFS quota in CPUs (NanoCpus)
  std::optional<std::int64_t> memory;       // bytes
  std::optional<std::int64_t> memory_swap;  // bytes, memory + swap; -1 unlimited
  std::map<std::string, std::string> env;
  std::string network = "none";
  std::optional<std::string> user;
  bool read_only = true;
  std::int64_t pids_limit = 1024;
  bool pids_limit_given =
      false;  // the file set it (the default is a safety net, dropped where no engine applies it)
  // CAP_PERFMON for the container, so that the probe may open performance counters (the default
  // seccomp profile refuses perf_event_open without it). Off by default.
  bool perf_events = false;
  SourceMark mark;  // the `container:` key, for errors found later (engine CPUs)
  friend bool operator==(const ContainerSpec&, const ContainerSpec&) = default;
};

// The limits an engine reports it set on a container (HostConfig of `GET /containers/{id}/json`), in
// its own words: 0 where it set none. docker/ reads them; probe/ says what they mean.
struct EngineLimits {
  std::optional<std::string> cpuset;  // CpusetCpus; nullopt when "" or absent
  std::int64_t nano_cpus = 0, cpu_quota = 0, cpu_period = 0;
  std::int64_t memory = 0, memory_swap = 0;
  std::int64_t pids_limit = 0;
  friend bool operator==(const EngineLimits&, const EngineLimits&) = default;
};

struct Condition {
  std::string name;
  std::optional<SpinnerSpec> spinners;
  std::vector<int> affinity;  // CPUs for the benchmark process on the host; empty: inherit
  std::optional<int> nice;    // nice value for the benchmark process on the host
  std::optional<ContainerSpec> container;
  // Arguments added after the benchmark's command in this condition (`args: [-test.cpu=2]`), and
  // environment variables set for it (over benchmark.env), on the host and in a container.
  std::vector<std::string> args;
  std::map<std::string, std::string> env;
  SourceMark mark;
  // A point of a sweep (`spinners: {sweep: [0, 1, 2]}`): its name was generated from the group's
  // ("noisy.spinners-2"). nullopt: a condition the file wrote out.
  std::optional<SweepPoint> sweep;
  bool is_idle() const { return !spinners && affinity.empty() && !nice && !container; }
  friend bool operator==(const Condition&, const Condition&) = default;
};

struct BenchmarkSpec {
  std::vector<std::string> build;    // argv run once before anything else; empty: no build step
  std::vector<std::string> command;  // argv of one invocation; never interpreted by a shell
  OutputFormat format = OutputFormat::gotest;
  int samples = 10;  // kept samples per condition and benchmark
  int warmup = 0;    // samples discarded first, per condition and benchmark
  // How many samples one invocation delivers (gotest: -test.count). 0 means all of a condition's
  // samples (plus warm-up) in one invocation, which is only valid with the sequential schedule.
  int samples_per_run = 0;
  Seconds timeout{600};  // per invocation
  std::map<std::string, std::string> env;
  std::optional<std::string> workdir;  // relative paths are relative to the experiment file
  // The unit of the metric the statistics use (e.g. "cpu-ns/op", "B/op"); empty: the first one
  // the benchmark prints (ns/op for Go benchmarks).
  std::string metric;
  // `metric: instructions` (or cycles, branch-misses, cache-misses, task-clock): the samples are that
  // kernel counter (model::kCounterKeys: "instructions", …, "task_clock_ns") over each whole
  // invocation, divided by the iterations its one result line covers (1 for a command); `metric`
  // is then its unit ("instructions/op"). "" for a printed metric.
  std::string counter;
  // `metric: simulated-instructions` (or simulated-cycles, -l1-misses, -ll-misses): each invocation
  // runs under valgrind with a fixed cache geometry (model/simulation.hpp) and its samples are
  // those counts per op; `metric` is then its unit ("simulated-instructions/op").
  std::optional<SimulatedMetric> simulated;
  // What the counts cover: a command's whole run, a Google Benchmark's timed loops.
  std::optional<SimulationScope> simulation_scope() const {
    if (!simulated) return std::nullopt;
    return format == OutputFormat::gbench_json ? SimulationScope::timed_loop : SimulationScope::whole_run;
  }
  // Files and directories the benchmark reads, relative to workdir: on the host they are where
  // they are; in a container (image: auto) they are put into the image, read-only, at the same
  // place relative to its working directory (/work).
  std::vector<std::string> inputs;
  SourceMark mark;  // the `benchmark:` key (a gate's annotations point at it)
  friend bool operator==(const BenchmarkSpec&, const BenchmarkSpec&) = default;
};

// One side of a paired comparison: its own command (or the benchmark command with extra args).
struct Variant {
  std::string name;
  std::vector<std::string> command;  // resolved: the full argv
  SourceMark mark;
  // The gate: the side's checkout, where it is built and run (nullopt: benchmark.workdir).
  std::optional<std::string> workdir;
  // The gate in the experiment file: the git ref this side is (`ref: main`), or "" for the working
  // tree (`worktree: true`); nullopt: a variant with a command of its own.
  std::optional<std::string> git;
  friend bool operator==(const Variant&, const Variant&) = default;
};

// How variants are compared: paired back to back, with an A/A check (harness/stats/README.md §3.6–3.7).
struct Comparison {
  std::string baseline;  // a variant name; the first variant when not given
  bool aa = true;        // also pair the baseline with itself
  // paired: baseline and variant back to back in every repeat (the honest way); blocks: each
  // variant's repeats in a separate sequential block (how ratios go wrong on a busy host).
  bool blocks = false;
  double threshold = 0.01;  // noise threshold θ (fraction) for verdicts and the A/A band
  friend bool operator==(const Comparison&, const Comparison&) = default;
};

// `samples: auto`: stop when the 99% CI is narrow enough (harness/stats/README.md §3.8).
struct Adaptive {
  double precision = 0.01;       // target relative half-width (fraction)
  int min_samples = 10;          // n0
  int max_samples = 200;         // cap
  bool max_samples_set = false;  // the file said max_samples (the gate's default cap is its own)
  Seconds budget{3600};          // wall-clock cap for the whole run
  friend bool operator==(const Adaptive&, const Adaptive&) = default;
};

// Where the experiment runs (`hosts:`): a Docker context name or an engine endpoint.
struct HostEntry {
  std::string name;  // as written: "default", "quiet-box", "ssh://bench@10.0.0.7"
  SourceMark mark;
  friend bool operator==(const HostEntry&, const HostEntry&) = default;
};

// A claim the experiment makes (`claims:`), as written; claims/claim.hpp parses it.
struct ClaimSpec {
  std::string text;
  SourceMark mark;
  friend bool operator==(const ClaimSpec&, const ClaimSpec&) = default;
};

// `reference:` as the experiment file says it; the pipeline reads the table before anything runs.
struct ReferenceSpec {
  std::string file;   // resolved against the experiment's directory ("" when `table:` is inline)
  std::string table;  // inline text (cv-summary or markdown)
  std::string source;
  SourceMark mark;                          // of `reference:`, for errors in reading it
  std::optional<PublishedTable> published;  // what it holds, read by the pipeline before anything runs
  friend bool operator==(const ReferenceSpec&, const ReferenceSpec&) = default;
};

struct Experiment {
  std::string name;
  std::string description;
  BenchmarkSpec benchmark;
  std::vector<Condition> conditions;
  Schedule schedule = Schedule::sequential;
  Seconds cooldown{0};  // between condition blocks, before the next condition is entered
  // After a condition is in force (spinners spinning, container ready), before its first sample:
  // lets the previous condition's disturbance die down and the new one's load build up.
  Seconds settle{1};
  // The room's noise profile (fingerprint/noise.hpp), measured before the first condition is
  // entered; 0: none. When the first condition adds nothing to the room (no spinners, no
  // container), the profile's time counts towards that block's settle time.
  Seconds noise_profile{1};
  bool settle_set = false, noise_profile_set = false;  // the file gave them (a gate has defaults of its own)
  std::vector<Variant> variants;  // empty: no paired design; otherwise variants[0] is the baseline
  Comparison comparison;
  std::optional<Adaptive> adaptive;        // set by `samples: auto`
  std::vector<HostEntry> hosts;            // empty: this machine only (and DOCKER_HOST for containers)
  std::vector<ClaimSpec> claims;           // what it says it demonstrates (validated, in file order)
  std::optional<ReferenceSpec> reference;  // the published table it replays
  // The A/B gate at git refs (`run --base`): variants "base" and "head", each built in its own
  // checkout, measured in quads (harness/stats/README.md §3.13).
  std::optional<GateSettings> gate;
  bool paired() const { return !variants.empty(); }
  std::string source_file;  // the path as given
  std::string source_text;  // the file's bytes, copied into every result
  std::string base_dir;     // directory relative paths resolve against
  friend bool operator==(const Experiment&, const Experiment&) = default;
};

}  // namespace noisefloor::model
