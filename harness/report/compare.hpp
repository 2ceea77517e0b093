// `noisefloor compare OLD NEW`: the unpaired, benchstat-style comparison of two sets of samples
// (docs: statistics.md §3.5, §5). Pure: the CLI loads the two sides and the fingerprints.
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
// reason); rows with different labels are rendered in separate tables.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "fingerprint/compare.hpp"
#include "model/sample.hpp"
#include "stats/compare.hpp"
#include "stats/summary.hpp"

namespace noisefloor::report {

enum class Label { measured_clean, contended_paired, contended, unknown };
// "MEASURED-clean", "CONTENDED-PAIRED", "CONTENDED", "UNKNOWN".
std::string_view to_string(Label label);

// The label of one condition of a saved run, for an unpaired comparison (never CONTENDED-PAIRED):
// CONTENDED when run.json's condition record has spinners (setup.spinners.count > 0), or the
// fingerprint shows load: a doctor finding {topic "load", level "BAD"} under "doctor", or the
// 1-minute host.load at or above host.cpu.logical (the doctor's BAD rule); MEASURED-clean when
// neither, and run.json records the condition or the fingerprint records host.load; UNKNOWN
// when nothing is recorded (a go test file). `reason` (optional) says why, e.g. "2 spinners".
Label condition_label(const nlohmann::json& run, const nlohmann::json& fingerprint,
                      const std::string& condition, std::string* reason = nullptr);

struct CompareSettings {
  std::string old_name = "old", new_name = "new";  // column headers, e.g. "old.txt"
  std::string old_source, new_source;              // full paths, shown above the table ("" = none)
  std::vector<std::string> old_conditions, new_conditions;  // display order; others first-seen
  std::map<std::string, Label> old_labels, new_labels;      // per condition; missing = UNKNOWN
  std::map<std::string, std::string> old_label_reasons, new_label_reasons;
  double threshold = 0.01;   // θ for the verdicts
  double alpha = 0.05;       // for "~" and the Holm-Bonferroni adjustment
  double confidence = 0.95;  // of the median CIs and the Hodges-Lehmann CI
  // Fingerprint fields that differ between the two sides (fingerprint::differences). Any with
  // moves_benchmarks makes the table "not comparable" unless allow_different_hosts.
  std::vector<fingerprint::Difference> differences;
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
  std::string benchmark;  // without the -N suffix
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
  std::vector<fingerprint::Difference> differences;  // as given (all of them)
  bool matched_by_condition_name = true;  // false: two single-condition sides, by benchmark
  std::vector<CompareRow> rows;           // by label, old condition order, unit, benchmark
  std::vector<CompareGeomean> geomeans;
  // Present on one side only: "condition: benchmark" (or "condition" for a whole condition).
  std::vector<std::string> only_old, only_new;
  std::vector<std::string> notes;  // table-wide warnings
};

// Throws ConfigError when the sides cannot be matched (see above) or a side has no samples.
CompareTable compare_samples(const std::vector<model::Sample>& old_samples,
                             const std::vector<model::Sample>& new_samples,
                             const CompareSettings& settings);

// benchstat's value scaling (golang.org/x/perf/benchunit): the unit tidied ("ns/op" -> "sec/op"
// with the value ×1e-9, "MB/s" -> "B/s" ×1e6), then SI prefixes (or IEC ones for bytes) with at
// least 4 significant digits chosen from the smallest non-zero |value| of the group:
// scale_values({11.32e-9, 37.40e-9}) -> {"11.32n", "37.40n"}. tidy_unit returns the factor.
std::pair<std::string, double> tidy_unit(const std::string& unit);
std::vector<std::string> scale_values(const std::vector<double>& tidied, const std::string& tidied_unit);

// Text readable side by side with benchstat (one table per label, condition pair and unit;
// lines <= 80 columns: a long name goes on its own line), then the effects (Hodges-Lehmann
// new/old with CI and verdict), the rows not compared and the warnings.
std::string render_compare_text(const CompareTable& table);
// One line per row (compared or not), RFC 4180 quoting, numbers in shortest round-trip form,
// empty for undefined values.
std::string render_compare_csv(const CompareTable& table);
// {"schema_version": 1, "old", "new", "settings", "comparable", "differences", "rows",
//  "geomeans", "only_old", "only_new", "notes"}; NaN -> null.
nlohmann::json render_compare_json(const CompareTable& table);

}  // namespace noisefloor::report
