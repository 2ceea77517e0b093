// Why the numbers moved: what the kernel recorded around each invocation (run-queue waits,
// migrations, context switches, page faults, CFS throttling, steal, hardware counters), set
// against the samples (spec: harness/stats/README.md §3.14). Within a condition: which factor goes
// with the spread of its invocations (Spearman's ρ with a permutation p, adjusted for the factors
// tried, and the size of the effect). Between conditions: which factor's level changed against
// the first condition. Association, never proof. Pure.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/table.hpp"
#include "records/run.hpp"
#include "records/samples.hpp"
#include "stats/association.hpp"

namespace noisefloor::analysis {

// A factor recorded per invocation: its key (JSON), what it measures in words, and whether its
// value is a time (shown in ms) or a count.
struct Factor {
  const char* key;
  const char* words;  // a noun phrase: "time waiting for a CPU"
  bool time;          // seconds (shown as ms), else a count
  double floor;       // the smallest difference between conditions worth a word (s or count)
  // Its value for one invocation, from what was accounted; nullopt when it was not recorded.
  std::optional<double> (*value)(const records::Accounting& accounting);
};
extern const std::vector<Factor> kFactors;

// The factor's value for one invocation; nullopt when it was not recorded.
inline std::optional<double> factor_value(const records::InvocationRecord& invocation, const Factor& factor) {
  return factor.value(invocation.accounting);
}

struct FactorLevel {
  std::string key;
  double median = 0;  // per invocation
  std::size_t invocations = 0;
};

struct FactorLink {
  std::string key;
  std::string row;  // the table row's display name
  stats::Association association;
  double p_adjusted = 1;                      // × the factors tried (Bonferroni), at most 1
  double slow_quarter = 0, fast_quarter = 0;  // the factor's mean over the slowest / fastest quarter
  std::vector<double> factor, times;          // per invocation: the factor and the mean sample (a plot)
  std::string unit;                           // of `times` (the row's)
};

// Why a condition's invocations were not ranked against the factors: too few of them for its
// first row (`invocations`, fewer than kMinInvocations; at most one: its `samples` all came from it).
struct Untested {
  std::size_t invocations = 0;
  std::size_t samples = 0;
};

struct ConditionDiagnosis {
  std::string condition;
  std::size_t invocations = 0;
  double wall_median = 0;            // the benchmark's wall time per invocation (the probe's)
  std::vector<FactorLevel> levels;   // every factor some invocation recorded
  std::vector<FactorLink> links;     // every factor tried, strongest first
  std::size_t tried = 0;             // factors tested within the condition
  std::optional<Untested> untested;  // why none was, when none was
  // The strongest link that passes: adjusted p under kLinkAlpha, and the slowest and fastest
  // quarters apart by the factor's floor at least; nullptr when none does.
  const FactorLink* telling() const;
};

// A factor whose median per invocation in a condition differs from the first condition's by 3×
// or more and by its floor, or that only the condition recorded (`base_level` none).
struct LevelChange {
  std::string key;
  double level = 0;
  std::optional<double> base_level;
};

// A condition's levels against the first condition's (each condition after the first).
struct Contrast {
  std::string condition, base;
  double wall = 0, base_wall = 0;  // their wall time per invocation (medians), to show times as shares
  std::vector<LevelChange> changed;
};

// Counters a run did not record, for one reason (the reason in run.json's words).
struct CounterGap {
  std::vector<std::string> counters{};    // their keys, in model::kCounterKeys order
  bool all = false;                       // every counter there is
  std::vector<std::string> conditions{};  // where, in run order; empty: every condition that counted
  std::string why{};
};

// What a run's counters lacked: each reason once, the conditions whose counters were multiplexed
// (run.json's note), and whether they counted user space only (kernel.perf_event_paranoid).
struct CountersMissing {
  std::vector<CounterGap> gaps;
  std::vector<std::pair<std::string, std::string>> multiplexed;  // condition, run.json's note
  bool user_only = false;
  bool empty() const { return gaps.empty() && multiplexed.empty() && !user_only; }
};

struct Diagnosis {
  std::vector<ConditionDiagnosis> conditions;
  std::vector<Contrast> contrasts;  // between conditions (render/diagnosis.hpp says them)
  CountersMissing missing;
  bool empty() const { return conditions.empty(); }
};

// Below this adjusted p a link is worded; below kMinInvocations invocations a condition is not
// tested within.
inline constexpr double kLinkAlpha = 0.05;
inline constexpr std::size_t kMinInvocations = 6;

// The diagnosis of one run's table: each condition's invocations (renamed by `rename`, as the
// table's conditions are) against its primary rows' samples.
Diagnosis diagnose(const records::RunRecord& run, const Table& table, const records::Samples& samples,
                   const std::function<std::string(const std::string&)>& rename);

// The factor of that key (a key of kFactors; Error for another).
const Factor& factor_named(const std::string& key);

// The counters that were not recorded and why, each reason once.
CountersMissing missing_counters(const records::RunRecord& run);

}  // namespace noisefloor::analysis
