// History: every run of one experiment in time order, split into segments by room, with the
// changes between consecutive runs of a segment (`noisefloor history`). Pure: typed results in,
// a typed History out; no I/O (pipeline/history.cpp loads, render/history.hpp renders).
//
// Per run: its time (run.json started_utc, else the fingerprint's), the room's noise profile and
// how it moved against the previous profiled run (HistoryRun::noise_change), the source commit the
// fingerprint records (toolchain.source.commit, "+dirty" when toolchain.source.dirty), the room
// digest, the status, and per condition × benchmark row (analysis::build_table) the median with
// its 95% order-statistic CI (stats::Summary::median_ci) and the CV with a 95% interval.
//
// The room: the fingerprint's leaves that move benchmarks (analysis::benchmark_moving_facts, i.e.
// rooms.hpp's kBenchmarkMovingFields) EXCEPT the code under test (HistoryOptions::code_fields,
// by default toolchain.binary.sha256 and engine.images (the images made from the binary): the
// benchmark binary changes with every commit, and that change is what a history is for, so it must
// not split the series). The digest is the first 8
// hex digits of the SHA-256 of those "field=content" lines. A run whose room differs from the
// previous run's starts a new segment, named by the fields that changed; a run with no
// fingerprint (or after one without) starts a new segment too: its room cannot be compared.
// Runs are never compared across segments.
//
// The CV interval is the claims' seeded percentile bootstrap of the sample CV
// (claims::estimate: B resamples with replacement, seeded with HistoryOptions::seed); it needs
// n >= 6 (below that it is absent, with the reason). The CV itself needs n >= 2. A run that
// recorded claims has them judged on its own samples, with its own seed (analysis/judge.hpp).
//
// A change between consecutive runs of a segment, per row: significant when the two-sided
// Mann–Whitney p < alpha AND the Hodges–Lehmann ratio (new/old) 95% CI lies entirely outside
// [1 - threshold, 1 + threshold]: `higher` (▲, the value went up) or `lower` (▼), each said in the
// unit's direction (slower for a time per op, faster for a throughput; Change::word); otherwise
// `unchanged` (~). Rows are matched by their key (condition, full name, configuration, variant).
// `not_compared` says why (n < 2, a sample size that cannot reach p < alpha, a row the previous run did not
// have).
//
// Over a whole segment, each row's medians (one a run, in time order) get change points by
// E-Divisive means as Apache Otava computes them (stats::change_points, HistoryOptions::change_points,
// Otava's defaults): HistoryCell::level_change marks the run where a new level starts, a judgement
// over the whole segment where Change judges two neighbouring runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/rooms.hpp"
#include "analysis/table.hpp"
#include "analysis/verdict.hpp"
#include "analysis/warning.hpp"
#include "claims/evaluate.hpp"
#include "fingerprint/noise.hpp"
#include "model/names.hpp"
#include "model/units.hpp"
#include "records/result.hpp"
#include "stats/change_points.hpp"
#include "stats/compare.hpp"
#include "stats/summary.hpp"

namespace noisefloor::analysis {

struct HistoryOptions {
  double threshold = 0.02;                  // noise threshold θ, a fraction (--threshold 2%)
  double alpha = 0.05;                      // Mann–Whitney significance level
  std::size_t bootstrap = 2000;             // resamples of the CV interval
  std::uint64_t seed = 0x6e6f697365666c72;  // of the CV bootstrap ("noisefl r")
  // Benchmark-moving fields that describe the code under test, not the room: never a segment.
  // The benchmark binary, and the container images made from it (`image: auto` holds the binary
  // and its libraries, so its id changes with every build of the benchmark).
  std::vector<std::string> code_fields = {"toolchain.binary.sha256", "engine.images"};
  // Change points of each row's medians over the runs of a segment (stats/change_points.hpp).
  stats::ChangePointSettings change_points;
};

enum class ChangeKind { first, not_compared, unchanged, higher, lower };

constexpr std::array<std::pair<ChangeKind, std::string_view>, 5> names(ChangeKind) {
  return {{
      {ChangeKind::first, "first"},
      {ChangeKind::not_compared, "not compared"},
      {ChangeKind::unchanged, "unchanged"},
      {ChangeKind::higher, "higher"},
      {ChangeKind::lower, "lower"},
  }};
}

// "first", "not compared", "unchanged", "higher", "lower"
std::string_view to_string(ChangeKind kind);

// Why a row was not compared with the same row of the previous run (render::change_reason says it).
enum class NotCompared : std::uint8_t {
  no,               // compared, or the first of its segment
  too_few,          // a side has fewer than 2 samples (n_before, n_now)
  p_unreachable,    // no p can reach alpha at these sizes (n_before, n_now, alpha)
  test_failed,      // the test stopped (error)
  not_in_previous,  // the previous run of its segment has no such row
};

// One row of one run against the same row of the previous run of its segment.
struct Change {
  ChangeKind kind = ChangeKind::first;
  double p = stats::kNaN;             // Mann–Whitney, two-sided
  stats::RatioCI ratio;               // Hodges–Lehmann new/old with its 95% CI
  NotCompared why = NotCompared::no;  // not_compared: why
  std::size_t n_before = 0, n_now = 0;
  double alpha = stats::kNaN;
  std::string error;  // test_failed: the test's own message
  // higher or lower, said in the unit's direction (analysis/verdict.hpp): slower, faster, worse,
  // better, or none for a unit of unknown direction; and whether that is a regression or an
  // improvement (both false when the direction is unknown).
  std::optional<Word> word;
  bool regression = false, improvement = false;
};

// One condition × benchmark (× variant) row of one run.
struct HistoryCell {
  RowKey key;  // what a later run's row is matched by
  std::string condition;
  std::string name;  // analysis::display_name of the row
  std::string unit;
  model::Better better = model::Better::unknown;  // which way the unit is better
  model::Quantity quantity = model::Quantity::other;
  std::size_t n = 0;
  double median = stats::kNaN;
  std::optional<stats::Interval> median_ci;
  std::optional<double> cv_pct;
  std::optional<stats::Interval> cv_ci;  // in percent, percentile bootstrap
  Change change;
  // Set on the run where the row's medians over its segment take a new level (E-Divisive means as
  // Apache Otava computes it, §3.18): the t-test of the medians since the previous new level (or the
  // segment's start) against those up to the next.
  std::optional<stats::SegmentTest> level_change;
  std::vector<double> values;  // the kept samples, in run order (not in the JSON)
};

// A claim the run recorded and its verdict.
struct HistoryClaim {
  claims::Verdict verdict = claims::Verdict::undefined;
  std::string claim;  // as written: "cv(noisy) > 2 * cv(idle)"
};

struct HistoryRun {
  std::string run_id;                        // the result directory's name
  std::string source;                        // its path
  std::string started_utc;                   // "" when unknown
  std::string commit;                        // "" when the fingerprint records none
  std::string digest;                        // the room digest; "" without a fingerprint
  std::optional<records::RunStatus> status;  // nullopt: unknown (no run.json)
  // The runs that recorded superseding it (run --supersedes), oldest first: its status says so.
  std::vector<records::Superseder> superseded_by;
  std::size_t segment = 1;  // 1-based
  std::vector<HistoryCell> cells;
  // The claims the run recorded, each with its verdict on the run's own samples; rendered only
  // when some run has them.
  std::vector<HistoryClaim> claims;
  std::vector<records::RunWarning> warnings;  // the result's own
  // The room's noise profile the run measured before its first condition (fingerprint/noise.hpp);
  // nullopt when its fingerprint has none (an older noisefloor, an imported result).
  std::optional<fingerprint::NoiseProfile> noise;
  // Against the previous run with a measured profile: fingerprint::noise_change (render says it:
  // "room noisier: loop CV 0.30% → 1.71%"), none when the room's noise did not clearly change.
  fingerprint::NoiseChange noise_change;
};

struct HistorySegment {
  std::size_t index = 1;      // 1-based
  std::size_t first_run = 0;  // index into History::runs
  std::size_t runs = 0;
  // Against the last run of the previous segment: the room fields that changed (empty for the first).
  std::vector<Difference> changed;
  bool no_fingerprint = false;  // it starts because a run recorded no fingerprint: rooms not compared
};

struct History {
  std::string experiment;  // the runs' experiment name ("" when unknown)
  double threshold = 0.02, alpha = 0.05;
  std::vector<HistoryRun> runs;  // in time order
  std::vector<HistorySegment> segments;
  std::vector<Warning> warnings;  // each run's own, its id the source
};

// The history of these results (any order; sorted by start time, then run id). Empty input gives
// an empty History.
History history(const std::vector<records::Result>& results, const HistoryOptions& options = {});

// The room digest of a fingerprint (8 hex digits; "" for an empty fingerprint).
std::string room_digest(const records::Fingerprint& fingerprint, const std::vector<std::string>& code_fields);

// The percentile bootstrap interval of the CV (percent) of `values`; nullopt when n < 6 or the
// mean is not positive.
std::optional<stats::Interval> bootstrap_cv(const std::vector<double>& values, std::size_t resamples,
                                            std::uint64_t seed, double confidence = 0.95);

}  // namespace noisefloor::analysis
