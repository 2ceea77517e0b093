// What the kernel accounted to each condition's invocations, summed up per condition: the
// launcher overhead of a `command` benchmark, a container's CFS throttling and how much CPU the
// spinners really got. Read from run.json's invocation records; nothing here changes a sample.
// Pure.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "records/run.hpp"

namespace noisefloor::analysis {

// Below this many times the launcher overhead, starting the command is a visible part of every
// sample of a `command` benchmark (hyperfine warns in the same spirit).
inline constexpr double kLauncherWarnFactor = 20;

// Starved: the benchmark's threads waited for a CPU at least kStarvedWaitFraction of the time they
// were runnable, that wait was at least kStarvedWallFraction of its wall time (a benchmark that
// mostly sleeps is not slowed by a short wait), it used less than kStarvedCapacity of the CPUs it
// may use, and other work ran on those CPUs for at least kBesideFraction of its wall time beyond
// kBusyTolerance of its own CPU time (the last two: the wait was for someone else's work, not its
// own threads' for each other, which leave next to nothing beside it; /proc/stat's tick-counted
// busy time and the threads' own clocks disagree by up to 6% of the benchmark's CPU time here).
// harness/stats/README.md §3.12.
inline constexpr double kStarvedWaitFraction = 0.10;
inline constexpr double kStarvedWallFraction = 0.05;
inline constexpr double kStarvedCapacity = 0.9;
inline constexpr double kBesideFraction = 0.05;
inline constexpr double kBusyTolerance = 0.10;
// /proc/stat counts in ticks of 1/100 s (USER_HZ): each of the two reads of an invocation can be
// a tick off on every CPU summed, so b may read up to 2 ticks per CPU per invocation too high.
inline constexpr double kBusyTickSeconds = 0.01;
// Below starved but at least half of both fractions: a note, nothing capped.
inline constexpr double kWaitNoteFraction = 0.05;

// The run-queue evidence of a condition: its invocations' threads on a CPU and waiting for one
// (model::RunQueue), summed over the invocations that measured both.
struct RunQueueEvidence {
  std::size_t invocations = 0;
  double run_seconds = 0, wait_seconds = 0;
  double wall_seconds = 0;             // the benchmark's own wall time over those invocations
  std::optional<double> cpus_allowed;  // the fewest CPUs any of them could use (affinity, quota)
  std::string unknown;                 // why an invocation had no figures (the first reason)
  // Over the invocations that also read their CPUs' busy time (model::RunQueue::cpus_busy_seconds):
  // that time and the benchmark's own CPU time (the larger of its threads' and its tree's rusage).
  // Every invocation must have it for beside() to be known.
  std::size_t busy_invocations = 0;
  double busy_seconds = 0, busy_own_seconds = 0;
  double busy_ticks_seconds = 0;  // 2 ticks per CPU read, summed over those invocations
  std::string busy_unknown;       // why an invocation had no busy time (the first reason)
  // wait / (run + wait): the share of its runnable time the benchmark spent waiting.
  std::optional<double> waited() const;
  // run / wall: how many CPUs' worth it used.
  std::optional<double> used() const;
  // wait / wall: how much waiting there was for each second of the benchmark.
  std::optional<double> slowed() const;
  // The CPU time other work used on the benchmark's CPUs while it ran (busy less its own, never
  // below 0); nullopt unless every counted invocation read it.
  std::optional<double> beside() const;
  // Other work on its CPUs for at least kBesideFraction of its wall time plus kBusyTolerance of its
  // own CPU time plus the ticks the reads can be off by (or that is unknown).
  bool others_ran() const;
  // It used less than kStarvedCapacity of the CPUs it may use (or that is unknown): a wait was for
  // someone else's work, not for its own threads or its quota.
  bool below_capacity() const;
  // waited() ≥ kStarvedWaitFraction, slowed() ≥ kStarvedWallFraction, below_capacity() and
  // others_ran().
  bool starved() const;
  // Worth a note: half of both fractions, below capacity, others ran.
  bool noteworthy() const;
};

struct ConditionAccounting {
  std::string condition;
  std::size_t invocations = 0;
  // format: command: every no-op timed in the condition, and every invocation's wall time.
  std::vector<double> launcher_noop_seconds;
  std::string launcher_unknown;  // why no-ops could not be timed, if that happened
  std::vector<double> command_seconds;
  // Containers with the probe: CFS throttling summed over the invocations that reported it.
  std::size_t cgroup_invocations = 0, throttled_invocations = 0;
  std::int64_t periods = 0, throttled_periods = 0;
  double throttled_seconds = 0;
  // Spinners: the smallest share of a CPU any spinner got over a block, against what it could
  // expect (nullopt without spinners or when unreadable).
  std::optional<double> spinner_min_share;
  double spinner_expected_share = 0;
  // noisefloor's own CPU time over the invocations that measured it, and their wall time: the
  // harness's share of one CPU while it samples.
  std::size_t harness_invocations = 0;
  double harness_cpu_seconds = 0, harness_wall_seconds = 0;
  std::optional<double> harness_share() const;  // cpu / wall; nullopt without a measurement
  RunQueueEvidence run_queue;
  bool spinners = false;  // the condition's own load: its waits are the experiment's, not outside work
  // Starved by outside work: run_queue.starved() in a condition without spinners.
  bool starved() const { return !spinners && run_queue.starved(); }

  std::optional<double> launcher_median() const;  // of launcher_noop_seconds
  std::optional<double> command_median() const;   // of command_seconds
  // command median / launcher median; nullopt when either is missing.
  std::optional<double> command_to_launcher() const;
  bool throttled() const { return throttled_invocations > 0; }
};

// One entry per condition of the run that recorded anything accounted, in the run's order;
// `rename` maps a recorded condition name to the analysis's (merged results).
std::vector<ConditionAccounting> accounting_of(const records::RunRecord& run,
                                               const std::function<std::string(const std::string&)>& rename);

}  // namespace noisefloor::analysis
