// `noisefloor compare OLD NEW`: the unpaired, benchstat-style comparison of two sets of samples
// (harness/stats/README.md §3.5). Pure: results/ loads the two sides; render/compare.hpp shows them.
//
// Per (condition, benchmark, unit) present on both sides: the median of each side with its 95%
// order-statistic CI (benchstat's "±"), the ratio of medians (benchstat's delta), the two-sided
// Mann-Whitney U test (exact and conditional on the tie pattern for small samples, so never
// benchstat's doubled tail; normal approximation with tie correction otherwise), the
// Hodges-Lehmann ratio new/old with its Moses CI, and the verdict of that CI against the noise
// threshold θ (faster / slower / equivalent / inconclusive). The delta shows "~" when the
// p-value (Holm-Bonferroni adjusted over the rows of one unit when there are several) is > α,
// as benchstat does; verdicts are per-row CI statements and are not adjusted.
//
// Matching: both sides single-condition (two go test files): by benchmark. Otherwise conditions
// are matched by name and rows by (condition, benchmark); conditions and benchmarks present on
// one side only are listed as such. No condition name in common (and not both single): ConfigError.
//
// Labels: every row carries the label of its conditions (MEASURED-clean or CONTENDED; an unpaired
// comparison is never CONTENDED-PAIRED; UNKNOWN for a source that records no load, e.g. a go test
// file). A row whose two sides carry different known labels is not compared (listed with the
// reason); the text names each condition's label above its one table per unit.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/labels.hpp"
#include "analysis/rooms.hpp"
#include "records/result.hpp"
#include "records/sample.hpp"
#include "stats/compare.hpp"
#include "stats/summary.hpp"

namespace noisefloor::analysis {

struct CompareSettings {
  std::string old_name = "old", new_name = "new";  // column headers, e.g. "old.txt"
  std::string old_source, new_source;              // full paths, shown above the table ("" = none)
  std::vector<std::string> old_conditions, new_conditions;  // display order; others first-seen
  std::map<std::string, Label> old_labels, new_labels;      // per condition; missing = UNKNOWN
  std::map<std::string, std::string> old_label_reasons, new_label_reasons;
  double threshold = 0.01;   // θ for the verdicts
  double alpha = 0.05;       // for "~" and the Holm-Bonferroni adjustment
  double confidence = 0.95;  // of the median CIs and the Hodges-Lehmann CI
  // Fingerprint fields that differ between the two sides (analysis::differences). Any with
  // moves_benchmarks makes the table "not comparable" unless allow_different_hosts.
  std::vector<Difference> differences;
  bool allow_different_hosts = false;
  std::vector<std::string> notes;  // extra lines for the warnings block (e.g. from loading)
};

// One side of a row.
struct CompareSide {
  std::string condition;
  std::vector<int> procs;      // distinct GOMAXPROCS values seen
  std::vector<double> values;  // run order, warm-up excluded
  stats::Summary summary;      // n, median, median_ci, median_rel_halfwidth
};

struct CompareRow {
  std::string benchmark;  // the full name, as benchstat keys rows ("BenchmarkX-2", "BenchmarkX-2 [fast]")
  std::string unit;       // as recorded, e.g. "ns/op"
  CompareSide old_side, new_side;
  Label label = Label::unknown;
  std::string label_reason;  // e.g. "2 spinners", "old: 2 spinners; new: 1-minute load 2.50 on 2 CPUs"
  bool compared = false;  // false: the labels differ (reason says so); nothing below is set
  std::string reason;
  double ratio_of_medians = stats::kNaN;  // new/old; NaN when old median is 0
  stats::MannWhitney test;                // u, p (exact |U-mu| or normal), p_exact_doubling...
  double p_adjusted = stats::kNaN;        // Holm-Bonferroni within the unit; = p when alone
  bool significant = false;               // p_adjusted <= alpha
  std::optional<stats::RatioCI> hl;       // nullopt when a value is <= 0
  std::optional<stats::RatioCI> ratio_of_means;  // new/old means, Fieller CI (§3.5.3)
  stats::Verdict verdict = stats::Verdict::inconclusive;
  std::vector<std::string> warnings;
};

// Geometric mean row of one table (>= 2 compared rows of one unit and condition pair).
struct CompareGeomean {
  Label label = Label::unknown;
  std::string old_condition, new_condition, unit;
  std::size_t rows = 0;
  double old_value = stats::kNaN, new_value = stats::kNaN;  // geomean of the medians
  double ratio = stats::kNaN;                               // geomean of the ratios of medians
};

struct CompareTable {
  std::string old_name, new_name, old_source, new_source;
  double threshold = 0.01, alpha = 0.05, confidence = 0.95;
  bool comparable = true;  // no benchmark-moving fingerprint difference
  bool allow_different_hosts = false;
  std::vector<Difference> differences;  // as given (all of them)
  bool matched_by_condition_name = true;  // false: two single-condition sides, by benchmark
  std::vector<CompareRow> rows;           // by label, old condition order, unit, benchmark
  std::vector<CompareGeomean> geomeans;
  // Present on one side only: "condition: benchmark" (or "condition" for a whole condition).
  std::vector<std::string> only_old, only_new;
  std::vector<std::string> notes;  // table-wide warnings
};

// Throws ConfigError when the sides cannot be matched (see above) or a side has no samples.
CompareTable compare_samples(records::Samples old_samples, records::Samples new_samples,
                             const CompareSettings& settings);

// The comparison of two loaded results, as `noisefloor compare OLD NEW` makes it: column names
// (a go test file's name, or <experiment>/<run id>), sources, each side's conditions and labels
// (condition_label), and the fingerprint differences when both sides have one (a go test file's
// cpu, goos and goarch headers move benchmarks).
CompareTable compare_results(records::Result old_result, records::Result new_result, double threshold,
                             bool allow_different_hosts);

inline constexpr int kCompareSchemaVersion = 1;
// {"schema_version": 1, "old", "new", "settings", "comparable", "allow_different_hosts",
//  "matched_by", "differences", "rows", "geomeans", "only_old", "only_new", "notes"}; NaN -> null.
// A compared row also has "ratio_of_means" with its Fieller CI (§3.5.3).
void to_json(nlohmann::json& j, const CompareTable& table);

}  // namespace noisefloor::analysis
