// The one analysis path: every command that shows numbers (`run` when it ends, `cv`, `report`,
// the exports) computes them here, from the samples of one or more loaded results. The same
// result gives the same numbers in every output. Pure.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/accounting.hpp"
#include "analysis/diagnosis.hpp"
#include "analysis/gate.hpp"
#include "analysis/judge.hpp"
#include "analysis/paired.hpp"
#include "analysis/rooms.hpp"
#include "analysis/sweep.hpp"
#include "analysis/table.hpp"
#include "analysis/warning.hpp"
#include "records/result.hpp"

namespace noisefloor::analysis {

struct Analysis {
  std::vector<records::Result> sources;  // as given
  bool merged = false;                   // more than one source
  bool allow_different_hosts = false;
  // Every source's samples; a condition name that occurs in several sources becomes
  // "<label>:<condition>" so they stay apart (labels made unique with "#2", "#3", ...).
  records::Samples samples;
  std::vector<std::string> conditions;                         // display order, renamed
  std::map<std::string, records::GoTestConfig> gotest_config;  // per (renamed) condition
  model::UnitMetadata units;  // every source's `Unit` metadata (the first value of a key wins)
  Table table;
  // Each sweep as curves (table.sweeps: the conditions that are a sweep's points).
  std::vector<Curve> curves;
  PairedTable paired;  // every source's paired comparisons and A/A checks, renamed
  // The A/B gate of the first source that is one (`run --base`), with the sides it measured.
  std::optional<GateTable> gate;
  std::optional<records::RunFacts::Gate> gate_sides;
  std::optional<records::ComparisonSettings> comparison;     // the first paired source's
  std::map<std::string, records::AdaptiveOutcome> adaptive;  // samples: auto, per renamed condition
  std::vector<ConditionAccounting> accounting;  // launcher overhead, throttling, spinner shares (run.json)
  // Why the numbers moved, from one run's own counters (a single source with a run.json).
  Diagnosis diagnosis;
  // Fingerprint of source k (k >= 1) against source 0, for every k whose fingerprints both
  // exist; difference_source[i] is the k of differences[i].
  std::vector<Difference> differences;
  std::vector<std::size_t> difference_source;
  std::vector<Warning> warnings;  // from loading, recorded by the runs, and the analysis's own
  // One result whose run recorded claims or a reference: the claims judged, the reference beside
  // (analysis/judge.hpp). `check --claim` judges others through judge() itself.
  std::optional<Judgement> judgement;

  // False when merged sources differ in a field that moves benchmarks and the user did not pass
  // --allow-different-hosts.
  bool comparable() const;
  // The sources' experiment names joined with " + " (or their labels), "noisefloor results" when
  // none.
  std::string title() const;
};

// Analyzes one or more results (throws noisefloor::Error when there are none).
Analysis analyze(std::vector<records::Result> sources, bool allow_different_hosts = false);

// A condition of a merged source, named apart from the same name in another: "<label>:<condition>".
std::string merged_condition(std::string_view label, std::string_view condition);

}  // namespace noisefloor::analysis
