// Per-condition summary statistics (spec: harness/stats/README.md §3.2–3.4, §3.9). Pure: no I/O.
//
// Inputs are the per-repeat values of one condition, in run order (never raw inner
// iterations). Every value must be finite; summarize() throws noisefloor::Error otherwise.
// Undefined values are never faked: they are std::nullopt, or NaN for plain doubles, and
// summary.json writes both as null (render/json.hpp: stats knows no JSON).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/names.hpp"

namespace noisefloor::stats {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Consistency constant of the MAD for the normal distribution: 1/Φ⁻¹(3/4).
inline constexpr double kMadToSigma = 1.482602218505602;

// CV trust bands of the product (finer than the spec's stable/noisy/unstable):
// cv <= 2 excellent, <= 5 acceptable, <= 10 noisy, > 10 do_not_trust; nullopt -> insufficient.
enum class Band { insufficient, excellent, acceptable, noisy, do_not_trust };

constexpr std::array<std::pair<Band, std::string_view>, 5> names(Band) {
  return {{
      {Band::insufficient, "insufficient"},
      {Band::excellent, "excellent"},
      {Band::acceptable, "acceptable"},
      {Band::noisy, "noisy"},
      {Band::do_not_trust, "do not trust"},
  }};
}

Band band_for_cv(std::optional<double> cv_pct);
// "excellent", "acceptable", "noisy", "do not trust", "insufficient".
std::string_view to_string(Band band);

// A confidence interval; level is the confidence actually achieved (order-statistic intervals
// are conservative, so it can exceed the requested one).
struct Interval {
  double lo = kNaN;
  double hi = kNaN;
  double level = kNaN;
};

// Robust outlier class of one sample (§3.4): |M| > 3.5 outlier, |M| > 10 extreme.
enum class Outlier : std::uint8_t { none, outlier, extreme };

constexpr std::array<std::pair<Outlier, std::string_view>, 3> names(Outlier) {
  return {{
      {Outlier::none, "none"},
      {Outlier::outlier, "outlier"},
      {Outlier::extreme, "extreme"},
  }};
}

std::string_view to_string(Outlier outlier);  // "none", "outlier", "extreme"

// What a summary could not give, or gives with a caveat (§3.2–3.4): a kind and the figures its
// sentence quotes. render/warnings.hpp writes the sentence (stats knows no prose); a reader that
// acts on a warning asks its kind.
enum class SummaryWarningKind : std::uint8_t {
  no_samples,
  one_sample,           // no stddev, CV or mean CI
  no_median_ci,         // too few samples for the median CI at the confidence asked
  mean_not_positive,    // no CV
  median_not_positive,  // no rCV
  shape,                // CV more than twice rCV: a heavy tail, outliers or several modes
  outliers,             // |modified z| > 3.5
  drift,                // lag-1 autocorrelation beyond 2/√n
};

constexpr std::array<std::pair<SummaryWarningKind, std::string_view>, 8> names(SummaryWarningKind) {
  return {{
      {SummaryWarningKind::no_samples, "no-samples"},
      {SummaryWarningKind::one_sample, "one-sample"},
      {SummaryWarningKind::no_median_ci, "no-median-ci"},
      {SummaryWarningKind::mean_not_positive, "mean-not-positive"},
      {SummaryWarningKind::median_not_positive, "median-not-positive"},
      {SummaryWarningKind::shape, "shape"},
      {SummaryWarningKind::outliers, "outliers"},
      {SummaryWarningKind::drift, "drift"},
  }};
}

struct SummaryWarning {
  SummaryWarningKind kind = SummaryWarningKind::no_samples;
  std::size_t n = 0;        // the samples (no_median_ci, outliers)
  std::size_t count = 0;    // no_median_ci: the least n with a median CI; outliers: how many
  std::size_t extreme = 0;  // outliers: how many of them beyond |modified z| > 10
  // no_median_ci: the confidence; shape: CV/rCV, or the CV in % when rCV is 0; drift: lag-1.
  double value = kNaN;
  double limit = kNaN;       // drift: 2/√n
  bool robust_zero = false;  // shape: rCV is 0 (value is then the CV in %)
};

struct Summary {
  std::size_t n = 0;
  double mean = kNaN, median = kNaN, min = kNaN, max = kNaN;  // NaN only when n == 0
  std::optional<double> stddev;                               // sample (n-1), two-pass; nullopt when n < 2
  std::optional<double> cv_pct;                               // 100*s/mean; nullopt when n < 2 or mean <= 0
  // Dispersion needs two values: mad, sigma_mad, q1, q3 and iqr are NaN when n < 2.
  double mad = kNaN, sigma_mad = kNaN;      // raw MAD and 1.482602218505602*MAD
  std::optional<double> rcv_pct;            // 100*sigma_mad/median; nullopt when n < 2 or median <= 0
  double q1 = kNaN, q3 = kNaN, iqr = kNaN;  // Hyndman-Fan type 7
  std::optional<Interval> mean_ci;          // t interval; nullopt when n < 2
  // benchstat's median CI [x_(lo), x_(hi)] (benchstat_median_ci_orders) with its exact binomial
  // level; nullopt when an end is infinite (n < 6 at 95%, n < 8 at 99%).
  std::optional<Interval> median_ci;
  // max(hi/med - 1, 1 - lo/med), benchstat's "±"; nullopt without median_ci or when median <= 0
  std::optional<double> median_rel_halfwidth;
  std::vector<Outlier> outliers;   // one per input sample, in input order
  std::vector<double> modified_z;  // one per input sample; empty when MAD = MeanAD = 0 or n < 2
  int tukey_mild = 0;              // outside the 1.5*IQR fences but inside the 3*IQR fences
  int tukey_severe = 0;            // outside the 3*IQR fences
  std::optional<double> lag1;      // lag-1 autocorrelation in run order; nullopt when n < 8 or no variance
  bool drift = false;              // |lag1| > 2/sqrt(n)
  bool shape = false;              // cv/rcv > 2 (or rcv = 0 < cv): heavy tail, outliers or multimodal
  Band band = Band::insufficient;
  std::vector<SummaryWarning> warnings;  // from the most basic (sample size) to the diagnostics
};

// The per-condition summary of §3.2. confidence must be in (0, 1).
Summary summarize(std::span<const double> samples_in_run_order, double confidence = 0.95);
// The modified z-score of each of `x` (§3.4) as summarize gives them for `s`, the summary of `x`:
// empty when n < 2 or MAD = MeanAD = 0. For a reader of a summary whose scores were let go (a
// table keeps none: analysis::Row).
std::vector<double> modified_z_scores(std::span<const double> x, const Summary& s);
// The same, given the samples also in ascending order (a caller that sorts them anyway).
Summary summarize(std::span<const double> samples_in_run_order, std::span<const double> ascending,
                  double confidence = 0.95);

// The knee of a curve of points, each summarized (§3.16): the first point after the first whose
// median lies outside the first point's median CI, or whose CV band is worse than the first's (an
// insufficient band says nothing). nullopt: no such point, or fewer than two points.
struct Knee {
  std::size_t index = 0;
  bool median_left = false;  // its median is outside the first point's CI
  bool band_worse = false;   // its band is worse than the first point's
};
std::optional<Knee> knee_of(std::span<const Summary* const> points);

// Throws Error unless 0 < confidence < 1 (every interval's level is checked by it).
void check_confidence(double confidence);

// Quantile p of Student's t with df degrees of freedom (Boost.Math).
double t_quantile(double p, double df);

// Median of the values (mean of the two middle ones for even n); NaN when empty.
double median(std::span<const double> values);
// Mean with one correction pass (the second pass removes most of the rounding of the first).
double mean(std::span<const double> values);
// Sample variance (n−1), corrected two-pass; needs at least 2 values (harness/stats/README.md §3.10).
double sample_variance(std::span<const double> values, double mean);
// Median of the values by selection (linear time, the value a sort gives), reordering them; NaN
// when empty.
double median_in_place(std::span<double> values);
// The raw MAD, median |x − median| (σ_MAD = kMadToSigma·MAD, §3.2); NaN when empty.
double mad(std::span<const double> values, double median);
// Hyndman–Fan type 7 quantile p of values in ascending order (not empty), p in [0, 1].
double quantile_type7(std::span<const double> ascending, double p);
// The percentile interval of bootstrap replicates (§3.11): the type-7 quantiles (1 − level)/2 and
// 1 − (1 − level)/2 of the values (not empty), with `level` as given.
Interval percentile_interval(std::vector<double> values, double level);

// Order statistic rank k (1-based) of the equal-tailed median CI [x_(k), x_(n-k+1)] (the paired
// design's median-ratio CI and the §3.8 stopping rule; Summary::median_ci is benchstat's):
// k = max{k >= 1 : 2*P(Bin(n, 1/2) <= k-1) <= 1 - confidence}, with the achieved level
// 1 - 2*P(Bin(n, 1/2) <= k-1). nullopt when no k exists (n < 6 at 95%). Exact integer sums for
// n <= 62, long double log-space sums beyond (any n, no overflow).
struct OrderCi {
  std::size_t k = 0;
  double level = kNaN;
};
std::optional<OrderCi> median_ci_order(std::size_t n, double confidence = 0.95);

// The median CI benchstat prints (golang.org/x/perf 712aea8: moremath QuantileCI(n, 0.5,
// confidence) as benchmath's AssumeNothing uses it), as 1-based orders: [x_(lo), x_(hi)].
// K ~ Bin(n, 1/2) counts the samples below the population median; the interval's coverage is
// P(lo <= K <= hi - 1).
// - n <= 30: start from the count floor(n/2) (the lower mode) and add one count at a time, the
//   more probable of the two neighbours of the counts taken so far, until the mass reaches
//   `confidence`. Equal neighbours (C(n, k) = C(n, n-k)) go to the left, except where
//   benchstat's floating-point terms break the tie to the right (n = 21..30, a table measured on
//   the benchstat binary; README §3.2).
// - n > 30: the normal approximation N(n/2, n/4) with continuity correction: lo = floor(l - 1/2)
//   + 1 and hi = ceil(n - l - 1/2) + 1 with l the α/2 quantile, α = 1 - confidence; then
//   hi - 1 instead when its approximate coverage still reaches `confidence`.
// `level` is the exact P(lo <= K <= hi - 1) of the orders chosen (not benchstat's approximate
// figure): exact integer sums for n <= 62, binomial_half_cdf beyond. A fixed number of steps
// for the orders at any n > 30; the level's sums take O(√n) terms from n = 10 000 (1 ms at
// n = 10^6). nullopt when n = 0 or an end is infinite
// (lo < 1 or hi > n: n < 6 at 95%, n < 8 at 99%).
struct OrderInterval {
  std::size_t lo = 0, hi = 0;
  double level = kNaN;
};
std::optional<OrderInterval> benchstat_median_ci_orders(std::size_t n, double confidence = 0.95);

// P(Bin(n, 1/2) <= k); exact (a dyadic rational correctly rounded) for n <= 62.
double binomial_half_cdf(std::size_t n, std::size_t k);

// r1 = Σ(x_t - x̄)(x_{t+1} - x̄) / Σ(x_t - x̄)²; nullopt when n < 8 or all values are equal.
std::optional<double> lag1_autocorrelation(std::span<const double> values_in_run_order);

// Relative half-width of the equal-tailed order-statistic median CI at `confidence`
// (median_ci_order, not Summary's benchstat interval), max(hi/median − 1, 1 − lo/median) (§3.8);
// nullopt while n is too small for that confidence or the median is not positive. Throws on a
// value that is not finite.
std::optional<double> median_ci_halfwidth(std::vector<double> values, double confidence);
// Relative half-width of the paired geometric-mean ratio CI at `confidence`,
// exp(t·s_d/√n) − 1 with d_i = ln(variant_i/base_i) (§3.6, §3.8); nullopt below 3 pairs or for a
// value that is not positive.
std::optional<double> paired_gm_halfwidth(std::span<const double> base, std::span<const double> variant,
                                          double confidence);

}  // namespace noisefloor::stats
