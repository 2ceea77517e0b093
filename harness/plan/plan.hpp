// The plan: an experiment turned into the ordered steps a run executes, as plain values. Pure.
//
// A step is one condition's turn: the invocations to make back to back, each a unit (one variant's
// command). Designs:
//   sequential   each condition's invocations together, conditions in file order (the demo)
//   interleaved  round-robin over the conditions, one invocation per turn
//   paired       with variants: every repeat runs the baseline and each variant back to back
//                (and the baseline against itself, the A/A pair), counterbalanced ABBA over the
//                kept repeats
//   blocks       with variants and comparison.design: blocks: each variant's repeats in a block
//                of their own (unpaired, how ratios go wrong on a busy host)
//   gate         `run --base`: every repeat is a quad of base and head, b h h' b' or h b b' h'
//                (§3.13), adaptive, and a second block for the benchmarks the first calls slower
//   adaptive     samples: auto: one repeat at a time until the condition's 99% interval is
//                narrow enough (statistics: harness/stats/README.md §3.8); the Scheduler decides
//                from the samples measured so far
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/experiment.hpp"
#include "model/pair_order.hpp"
#include "records/run.hpp"
#include "records/sample.hpp"

namespace noisefloor::plan {

// One invocation of one variant.
struct Unit {
  std::string variant;  // "" without variants; "<baseline>'" is the A/A copy of the baseline
  std::vector<std::string> command;
  std::string pair;  // paired design: the variant compared with the baseline, or "A/A"
  model::PairOrder order = model::PairOrder::none;  // paired design: AB or BA; the gate: ABBA or BAAB
  std::optional<std::string> workdir;  // the gate: the side's checkout (nullopt: benchmark.workdir)
  int block = 0;                       // the gate: 1, or 2 for the confirmation block
  friend bool operator==(const Unit&, const Unit&) = default;
};

struct Step {
  std::size_t condition = 0;  // index into experiment.conditions
  int repeat = 0;             // paired and adaptive: the repeat; otherwise the invocation's chunk
  int samples = 1;            // samples each unit's invocation delivers per benchmark
  std::vector<Unit> units;    // run back to back, in this order
  friend bool operator==(const Step&, const Step&) = default;
};

struct Plan {
  std::vector<Step> steps;  // every step in execution order; empty when adaptive
  bool adaptive = false;
  // Progress: the kept samples (repeats) per condition the run aims at (the cap when adaptive),
  // and how many invocations one repeat of a condition makes (its units).
  std::size_t per_condition = 0;
  std::size_t units_per_repeat = 1;
  std::size_t invocations() const;  // of a fixed plan; 0 when adaptive
};

Plan plan(const model::Experiment& experiment);

// What a run of the experiment means, known before it runs (`validate` prints it).
struct Estimate {
  std::size_t conditions = 0;
  std::size_t samples =
      0;  // kept samples (warm-up included) of every benchmark's first row; caps when adaptive
  std::size_t invocations = 0;  // of a fixed plan; adaptive: at most
  std::size_t blocks = 0;       // times a condition is entered (each waits its settle time)
  bool adaptive = false;
  // The time that does not depend on the benchmark: the noise profile, every block's settle
  // time and the cooldowns between blocks.
  double fixed_seconds = 0;
  // One sample's time as the benchmark's own flags state it (-test.benchtime=2s,
  // --benchmark_min_time=0.5s): a lower bound; nullopt when they do not say.
  std::optional<double> sample_seconds;
  std::string sample_basis;  // the flag it comes from, or why it is unknown
};
Estimate estimate(const model::Experiment& experiment);

// What is left of `full` once `done` (the samples earlier sessions of the run measured, for
// `run --resume`) are counted. Unpaired: per condition, the samples of the first benchmark it
// printed fill its steps in order; a step they fill is dropped, a step they fill in part keeps
// only the samples still missing. Paired: a step (a repeat) whose every unit delivered is
// dropped, one that did not runs again whole. samples: auto: nothing to drop (the Scheduler
// resumes from the samples themselves, Scheduler::resume).
Plan remaining(const model::Experiment& experiment, const Plan& full, std::span<const records::Sample> done);

// The units of one paired repeat: each variant paired with the baseline, then the A/A pair,
// each pair AB on kept repeats 0, 3, 4, 7, 8, ... (counted from the first kept repeat) and BA
// on the others.
std::vector<Unit> paired_units(const model::Experiment& experiment, int repeat);

// The gate's repeat (§3.13): one quad of the variants base and head and their second runs base'
// and head', counted from the first kept repeat k: b h h' b' ("ABBA") when k % 4 is 0 or 3,
// h b b' h' ("BAAB") otherwise, so a linear drift cancels in every quad and the floors' signs
// balance over four. `benchmarks`: the confirmation block runs only these (filtered_command).
std::vector<Unit> quad_units(const model::Experiment& experiment, int repeat, int block = 1,
                             const std::vector<std::string>& benchmarks = {});

// `command` narrowed to `benchmarks` (names as printed): go test gets -test.bench=^(A|B)$ over
// their top-level names (a sub-benchmark's whole family runs again), Google Benchmark
// --benchmark_filter=^(A|B)$; a command is one benchmark and stays as it is. Empty: unchanged.
std::vector<std::string> filtered_command(const model::BenchmarkSpec& spec,
                                          const std::vector<std::string>& command,
                                          const std::vector<std::string>& benchmarks);

// The argv of one invocation: the command plus the format's repetition flag
// (gotest: -test.count=N; gbench-json: --benchmark_repetitions=N --benchmark_format=json).
std::vector<std::string> invocation_argv(const model::BenchmarkSpec& spec,
                                         const std::vector<std::string>& command, int samples);

// Hands out the steps of a plan in order. A fixed plan is known up front; samples: auto looks at
// the samples measured so far: sequential keeps a condition until it stops, interleaved rotates
// over the conditions that have not. A condition stops when the worst relative 99% half-width
// over its benchmarks (or pairs) is within the precision, or at max_samples, or once the whole
// run is past its time budget; how it stopped is in outcomes().
class Scheduler {
 public:
  Scheduler(const model::Experiment& experiment, const Plan& plan);

  // The next step, or nullopt when the run is done; `elapsed` is the run's time so far.
  std::optional<Step> next(std::span<const records::Sample> measured, model::Seconds elapsed);

  // samples: auto, per condition that has stopped.
  const std::map<std::string, records::AdaptiveOutcome>& outcomes() const { return outcomes_; }

  // samples: auto after `run --resume`: each condition goes on from the repeats `done` holds.
  void resume(std::span<const records::Sample> done);

  // The gate: once every condition has stopped, `flagged` is asked which benchmarks (names as
  // printed, per condition name) block 1 calls slower; those run again in block 2, a fresh
  // adaptive block of their own, and only those. Not set, or nothing flagged: one block.
  using Flagged =
      std::function<std::map<std::string, std::vector<std::string>>(std::span<const records::Sample>)>;
  void confirm_with(Flagged flagged) { flagged_ = std::move(flagged); }

 private:
  std::optional<Step> next_adaptive(std::span<const records::Sample> measured, model::Seconds elapsed);
  Step adaptive_step(std::size_t condition);
  bool stopped(std::size_t condition, std::span<const records::Sample> measured, model::Seconds elapsed);
  // The widest of the intervals the stop rule looks at (a plain or paired condition).
  std::optional<double> worst_halfwidth(std::size_t condition, std::span<const records::Sample> measured,
                                        bool& undefined) const;
  // The gate after `kept` quads (§3.13 "When a block stops"): at one of its looks, whether every
  // row is decided or futile (and whether some is futile); the widest head/base interval so far.
  struct GateLook {
    bool done = false, futile = false;
    std::optional<double> worst;
  };
  GateLook gate_look(std::size_t condition, std::span<const records::Sample> measured, int kept) const;
  bool start_second_block(std::span<const records::Sample> measured);

  const model::Experiment& experiment_;
  const Plan& plan_;
  std::size_t next_ = 0;
  std::vector<int> repeats_;
  std::vector<bool> done_;
  std::size_t current_ = 0;
  std::map<std::string, records::AdaptiveOutcome> outcomes_;
  Flagged flagged_;
  int block_ = 1;                                  // the gate's block
  std::vector<std::vector<std::string>> confirm_;  // block 2: per condition, its benchmarks
};

}  // namespace noisefloor::plan
