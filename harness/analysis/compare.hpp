// `noisefloor compare OLD NEW`: the unpaired, benchstat-style comparison of two sets of samples
// (harness/stats/README.md §3.5). Pure: results/ loads the two sides; render/compare.hpp shows them.
//
// Per (condition, benchmark, configuration, variant, unit) present on both sides, what benchstat
// prints — the centre of each side (the median, or the mode of an `assume=exact` unit) with its
// "±" (harness/stats/README.md §3.2), the delta of the centres, benchstat's Mann-Whitney p
// (stats::MannWhitney::p_benchstat) and its decision ("~" when p > α; an exact unit has no test
// and always shows its delta) — and beside it noisefloor's own figures: the Hodges-Lehmann ratio
// new/old with its Moses CI, the verdict of that CI against the noise threshold θ in the unit's
// direction (analysis/verdict.hpp: faster / slower, better / worse, or lower / higher for a unit of
// unknown direction; equivalent; inconclusive), and the Holm-Bonferroni adjusted p over the rows
// of one unit, labelled as such. Verdicts are per-row CI statements and are not adjusted.
//
// Units are tidied as benchstat tidies them (text::tidy_unit: ns/op → sec/op, MB/s → B/s, any
// "ns"/"MB" token of a numerator): ns/op on one side meets sec/op on the other, and values are
// held in the tidied unit.
//
// Matching: both sides single-condition (two go test files): by benchmark. Otherwise conditions
// are matched by name and rows by (condition, benchmark); conditions and benchmarks present on
// one side only are listed as such. No condition name in common (and not both single): ConfigError.
// Rows are matched by full name, variant and the configuration keys that tell rows apart on
// either side (analysis::distinguishing_keys: a `go test ./...` file's pkg). A key with one value
// on each side describes the side, not a row: it is no part of the match, and when both sides
// have it with different values (not goos, goarch or cpu, which are the rooms' business) a note
// says so.
//
// Labels: every row carries the label of its conditions (MEASURED-clean or CONTENDED; an unpaired
// comparison is never CONTENDED-PAIRED; UNKNOWN for a source that records no load, e.g. a go test
// file). A row whose two sides carry different known labels is not compared (listed with the
// reason); the text names each condition's label above its one table per unit.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/labels.hpp"
#include "analysis/rooms.hpp"
#include "analysis/verdict.hpp"
#include "fingerprint/noise.hpp"
#include "model/units.hpp"
#include "records/result.hpp"
#include "records/sample.hpp"
#include "stats/compare.hpp"
#include "stats/summary.hpp"

namespace noisefloor::analysis {

// A table-wide caveat of a comparison: a kind and the figures its sentence quotes
// (render::compare_note_text writes it).
struct CompareNote {
  enum class Kind : std::uint8_t {
    loaded,          // a warning the loading gave (a result's, a unit metadata conflict): loaded
    no_fingerprint,  // `side` is a go test file with no host fingerprint: hosts not checked
    configs_differ,  // keys with one value on each side, and not the same one (changes)
    holm,            // benchstat's p Holm-Bonferroni adjusted within each unit (adjusted), confidence
    no_geomean,     // old_condition → new_condition, config, unit: a centre <= 0, no geomean of the centres
    unknown_label,  // a side records no load: MEASURED-clean cannot be told from CONTENDED
    sets_differ,    // the benchmark sets differ: geomeans cover the common benchmarks only
    not_numbers,    // side: condition / row, unit: count values not a number, left out
  };
  struct ConfigChange {
    std::string key{}, old_value{}, new_value{};
  };
  Kind kind = Kind::loaded;
  records::RunWarning loaded{};  // loaded
  std::string side{};            // no_fingerprint, not_numbers: the side's column name
  // no_geomean: both conditions, the configuration as shown and the unit; not_numbers: the
  // condition (old_condition), the row as shown and the unit.
  std::string old_condition{}, new_condition{}, config{}, row{}, unit{};
  std::vector<ConfigChange> changes{};                          // configs_differ
  std::vector<std::pair<std::string, std::size_t>> adjusted{};  // holm: unit, rows
  double confidence = 0;                                        // holm
  std::size_t count = 0;                                        // not_numbers
};

struct CompareSettings {
  std::string old_name = "old", new_name = "new";           // column headers, e.g. "old.txt"
  std::string old_source, new_source;                       // full paths, shown above the table ("" = none)
  std::vector<std::string> old_conditions, new_conditions;  // display order; others first-seen
  std::map<std::string, Label> old_labels, new_labels;      // per condition; missing = UNKNOWN
  std::map<std::string, LabelReason> old_label_reasons, new_label_reasons;
  model::UnitMetadata units;  // both sides' `Unit` metadata (direction, assume=exact)
  double threshold = 0.01;    // θ for the verdicts
  double alpha = 0.05;        // for "~" and the Holm-Bonferroni adjustment
  double confidence = 0.95;   // of the median CIs and the Hodges-Lehmann CI
  // Fingerprint fields that differ between the two sides (analysis::differences). Any with
  // moves_benchmarks makes the table "not comparable" unless allow_different_hosts.
  std::vector<Difference> differences;
  bool allow_different_hosts = false;
  // Rows whose two sides carry different known labels are compared anyway (their label UNKNOWN,
  // the reason saying both); otherwise they are listed as not compared.
  bool allow_different_labels = false;
  std::vector<CompareNote> notes;  // for the warnings block, before the comparison's own (e.g. from loading)
};

// What a row's comparison rests on, or could not give: a kind and the figures its sentence quotes.
// render/warnings.hpp writes the sentence (analysis keeps the figures); a reader that acts on a
// warning asks its kind.
enum class CompareWarningKind : std::uint8_t {
  test,                  // the Mann-Whitney test's own (`test`)
  few_values,            // a side has fewer than 6 values: no 95% median CI
  low_n,                 // a side has fewer than 10 values
  ties_exact,            // `count` of `total` values tied; the exact p is conditional on the ties
  ties_normal,           // `count` of `total` values tied; normal approximation with tie correction
  normal_approximation,  // no ties, more than 50 values a side
  inexact_values,        // the unit says assume=exact, but the values range from lo to hi
  hl_unbounded,          // the Hodges-Lehmann CI is unbounded (value: its confidence)
  not_positive,          // a value <= 0: no ratio
};

// ties_exact: what its parenthesis adds. benchstat's count is no probability here (the doubled
// tail is shown instead), or benchstat's doubled lower tail and the |U − μ| tail differ.
enum class TiesDetail : std::uint8_t { none, not_probability, tails_differ };

struct CompareWarning {
  CompareWarningKind kind = CompareWarningKind::test;
  stats::TestWarning test{};     // kind test
  std::size_t n_a = 0, n_b = 0;  // the two sides' values
  std::size_t count = 0;         // ties: the tied values
  TiesDetail detail = TiesDetail::none;
  // ties_exact: benchstat's p, the p in its slot and the |U − μ| tail p; inexact_values: lo, hi.
  double p_benchstat = stats::kNaN, p_slot = stats::kNaN, p_absdev = stats::kNaN;
  double lo = stats::kNaN, hi = stats::kNaN;
  double value = stats::kNaN;  // hl_unbounded: the confidence
};

// The labels of a row's two conditions, each with the reading it rests on (condition_label's
// reason, "" for none). render/compare.hpp says them ("old 'idle' is MEASURED-clean, new 'idle'
// is CONTENDED (2 spinners)").
struct RowLabels {
  Label old_label = Label::unknown, new_label = Label::unknown;
  LabelReason old_reason, new_reason;
  // Both known and not the same: the row is compared only under --allow-different-labels.
  bool differ() const {
    return old_label != Label::unknown && new_label != Label::unknown && old_label != new_label;
  }
};

// One side of a row.
struct CompareSide {
  std::string condition;
  std::vector<int> procs;      // distinct GOMAXPROCS values seen
  std::vector<double> values;  // run order, warm-up excluded, in the row's (tidied) unit
  stats::Summary summary;      // n, median, median_ci, median_rel_halfwidth
  // benchstat's centre and the interval its "±" is read from: the median and its CI (±∞ when
  // there is none), or for an exact unit the mode and [min, max].
  double center = stats::kNaN, lo = stats::kNaN, hi = stats::kNaN;
};

struct CompareRow {
  std::string benchmark;     // the full name, as benchstat keys rows ("BenchmarkX-2", "BenchmarkX-2 [fast]")
  std::string name;          // the full name alone ("BenchmarkX-2")
  std::string variant;       // paired results: the variant ("" otherwise)
  std::string config;        // the configuration that tells the row apart (canonical text, "" for none)
  std::string config_label;  // as shown: "pkg: a"
  std::string unit;          // tidied, e.g. "sec/op" (text::tidy_unit)
  std::vector<std::string> recorded_units;        // as the sides recorded it, e.g. {"ns/op"}
  model::Better better = model::Better::unknown;  // which way is better (model::better_of)
  model::Quantity quantity = model::Quantity::other;
  bool exact = false;  // the unit's metadata says assume=exact: centres are modes, no test
  CompareSide old_side, new_side;
  Label label = Label::unknown;           // the sides' label; UNKNOWN when one is, or they differ
  RowLabels labels;                       // each side's, with its reason
  bool compared = false;                  // false: labels.differ(), not allowed; nothing below is set
  double ratio_of_medians = stats::kNaN;  // new/old centres (benchstat's delta); NaN when old is 0
  stats::MannWhitney test;                // u, p (exact |U-mu| or normal), p_benchstat, ...
  // The p in benchstat's slot: test.p_benchstat, except where benchstat's tie-conditional count is
  // no probability (above 1, or 0 under ties: benchstat then prints "p=1.323", or no p at all) —
  // there the doubled tail it means, test.p_exact_doubling (harness/stats/README.md §3.5.1).
  double p_slot = stats::kNaN;
  // benchstat's decision: p_slot <= alpha (an exact unit: always; it has no test). The delta
  // shows "~" otherwise.
  bool significant = false;
  double p_adjusted = stats::kNaN;               // Holm-Bonferroni of p_slot within the unit; = it when alone
  bool significant_adjusted = false;             // p_adjusted <= alpha
  std::optional<stats::RatioCI> hl;              // nullopt when a value is <= 0
  std::optional<stats::RatioCI> ratio_of_means;  // new/old means, Fieller CI (§3.5.3)
  stats::Verdict verdict = stats::Verdict::inconclusive;  // the ratio's place against θ
  // No p can reach 0.05 at these two sample sizes (stats::min_attainable_p_exceeds): the test's
  // warning about it says so, and why no difference can then be significant.
  bool min_p_above_alpha = false;
  std::vector<CompareWarning> warnings;
  // "faster", "worse", "higher", "equivalent", ... (analysis/verdict.hpp)
  Word verdict_word() const;
};

// Geometric mean row of one table (>= 2 compared rows of one unit and condition pair).
struct CompareGeomean {
  Label label = Label::unknown;
  std::string old_condition, new_condition, config, unit;
  std::size_t rows = 0;
  // geomean of the centres (NaN when one is <= 0), and of the ratios of the centres (a ratio of
  // equal centres is 1; NaN when a ratio is not > 0), as benchstat computes them.
  double old_value = stats::kNaN, new_value = stats::kNaN;
  double ratio = stats::kNaN;
};

// What one side has and the other lacks: a whole condition, a row (benchmark, configuration and
// variant, as analysis::row_name shows it), a row in one unit, or a unit of a condition.
struct OneSided {
  enum class Kind : std::uint8_t { condition, row, row_unit, unit };
  Kind kind = Kind::condition;
  std::string condition, row, unit;
  bool operator==(const OneSided&) const = default;
};

struct CompareTable {
  std::string old_name, new_name, old_source, new_source;
  double threshold = 0.01, alpha = 0.05, confidence = 0.95;
  bool comparable = true;  // no benchmark-moving fingerprint difference
  bool allow_different_hosts = false;
  std::vector<Difference> differences;    // as given (all of them)
  bool matched_by_condition_name = true;  // false: two single-condition sides, by benchmark
  std::vector<CompareRow> rows;           // by label, old condition order, unit, benchmark
  std::set<std::string> config_keys;      // the configuration keys that tell rows apart
  std::vector<CompareGeomean> geomeans;
  // Present on one side only (render::one_sided_text says each).
  std::vector<OneSided> only_old, only_new;
  std::vector<CompareNote> notes;  // table-wide warnings
  // The rooms' noise profiles (fingerprint/noise.hpp) when the results recorded them, and
  // fingerprint::noise_change between them (none when the noise did not clearly change).
  std::optional<fingerprint::NoiseProfile> old_noise, new_noise;
  fingerprint::NoiseChange noise_change;
};

// Throws ConfigError when the sides cannot be matched (see above) or a side has no samples.
CompareTable compare_samples(records::Samples old_samples, records::Samples new_samples,
                             const CompareSettings& settings);

// The comparison of two loaded results, as `noisefloor compare OLD NEW` makes it: column names
// (a go test file's name, or <experiment>/<run id>), sources, each side's conditions and labels
// (condition_label), and the fingerprint differences when both sides have one (a go test file's
// cpu, goos and goarch headers move benchmarks).
CompareTable compare_results(records::Result old_result, records::Result new_result, double threshold,
                             bool allow_different_hosts, bool allow_different_labels = false);

}  // namespace noisefloor::analysis
