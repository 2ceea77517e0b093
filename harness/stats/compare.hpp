// Comparisons between conditions (spec: harness/stats/README.md §3.5–3.8, §3.10). Pure: no I/O.
//
// Inputs must be finite (ratios and logs need values > 0); violations throw noisefloor::Error.
// Ratios are always variant/base. Ties are exact `==` comparisons of doubles.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/names.hpp"
#include "stats/summary.hpp"

namespace noisefloor::stats {

// What a test could not give, or gives with a caveat (§3.5.1, §3.6): a kind and the figures its
// sentence quotes. render/warnings.hpp writes the sentence (stats knows no prose); a reader that
// acts on a warning asks its kind.
enum class TestWarningKind : std::uint8_t {
  min_p_unattainable,  // Mann-Whitney: no p can reach 0.05 at n vs n_b (value: the least p)
  all_equal,           // Mann-Whitney: every value equal, no test (p = 1)
  one_pair,            // paired: n = 1, no geometric-mean CI or paired t test
  no_log_variance,     // paired: the log ratios do not vary, no paired t test
  zeros_dropped,       // paired: `count` zero log ratios left out of the rank tests
  all_zero,            // paired: every log ratio is 0, no rank test (p = 1)
  rank_tests_weak,     // paired: `count` nonzero pairs cannot reach p <= value (alpha)
  order_effect,        // paired: AB and BA repeats differ (value: the Welch p)
  no_median_ratio_ci,  // paired: n pairs too few for the median-ratio CI (value: the confidence)
  baseline_drift,      // paired: the baseline's lag-1 autocorrelation (value) beyond limit (2/√n)
};

struct TestWarning {
  TestWarningKind kind = TestWarningKind::all_equal;
  std::size_t n = 0;      // the values of a (min_p_unattainable) or the pairs
  std::size_t n_b = 0;    // min_p_unattainable: the values of b
  std::size_t count = 0;  // zeros_dropped: the zeros; rank_tests_weak: the nonzero pairs
  double value = kNaN;    // see the kind
  double limit = kNaN;    // baseline_drift: 2/√n
};

// Two-sided Mann-Whitney U test of a against b (§3.5.1).
// u = #{a_i > b_j} + 1/2 #{a_i = b_j}. The exact null distribution is conditional on the tie
// pattern (DP over doubled mid-ranks) and is used when max(n_a, n_b) <= 50 without ties or
// <= 25 with ties; otherwise p is the normal approximation with tie correction and continuity
// correction. p_exact_* are NaN when not exact. All values equal: p = 1 with a warning.
struct MannWhitney {
  double u = kNaN;
  double p_exact_absdev = kNaN;    // P0(|U - mu| >= |u - mu|): never > 1, right with asymmetric ties
  double p_exact_doubling = kNaN;  // min(1, 2 min(P0(U <= u), P0(U >= u))): R/scipy
  double p_normal = kNaN;
  double z = kNaN;
  double sigma_u = kNaN;
  bool exact = false;
  double p = kNaN;  // the one to report: p_exact_absdev when exact, else p_normal
  // The p benchstat (golang.org/x/perf 712aea8) prints for a vs b, a its first file (§3.5.1).
  // Exact case: 2·P0(U <= min(u, n_a·n_b − u)), U the statistic of a under the null given the tie
  // pattern, or 1 when u = n_a·n_b/2; with exactly two distinct values, P0 also counts the
  // arrangement with every value of a on the lower value when the threshold lies less than
  // (n_a + n_b)/2 below it, as benchstat's count does. Normal case: p_normal. All values equal: 1.
  // Under asymmetric ties this is not a p-value: it can exceed 1 (1 vs {1, 2}: 4/3, printed
  // "p=1.333") or be 0 (benchstat then prints no p and calls the change significant). Kept as
  // benchstat prints it, uncapped: min(1, p_benchstat) for a display that must stay in [0, 1].
  double p_benchstat = kNaN;
  bool p_benchstat_above_1 = false;  // p_benchstat > 1: benchstat prints a "p" above 1
  std::vector<TestWarning> warnings;
};
// Throws when a or b is empty.
MannWhitney mann_whitney(std::span<const double> a, std::span<const double> b);

// A ratio estimate with its CI. bounded = false: the CI is unbounded (lo, hi are infinite, or
// lo = 0 for a ratio known to be positive); never clipped.
struct RatioCI {
  double estimate = kNaN, lo = kNaN, hi = kNaN, level = kNaN;
  bool bounded = true;
};

// Hodges-Lehmann ratio variant/base with the Moses distribution-free CI, on logs (§3.5.2):
// D = sorted{ln v_j - ln b_i}, estimate exp(median D), CI [exp D_(k), exp D_(mn+1-k)],
// k = max{k : 2 P0(U <= k-1) <= 1 - confidence} from the no-ties U distribution (exact while
// C(m+n, m) fits in 127 bits, else normal with continuity correction). No k: (0, +inf),
// bounded = false, level 1. The order statistics of D are selected without forming D
// (O((m + n) log(mn)) expected time, O(m + n) memory).
RatioCI hodges_lehmann_ratio(std::span<const double> base, std::span<const double> variant,
                             double confidence = 0.95);
// The same from two sides already in ascending order, given up to it: the logs are taken in
// place, so a million values per side cost no copy (throws Error when a side is not sorted).
RatioCI hodges_lehmann_ratio_sorted(std::vector<double> base, std::vector<double> variant,
                                    double confidence = 0.95);

// mean(num)/mean(den) with the Fieller CI for independent samples, Welch-Satterthwaite df
// (§3.5.3). g = t² v_den / mean(den)² >= 1, or fewer than 2 values on a side: bounded = false
// with lo = -inf, hi = +inf.
RatioCI fieller_ratio_of_means(std::span<const double> num, std::span<const double> den,
                               double confidence = 0.95);

// median(variant)/median(base): benchstat's delta.
double ratio_of_medians(std::span<const double> base, std::span<const double> variant);

// Paired design (§3.6): r_i = variant_i/base_i, d_i = ln r_i.
struct Paired {
  std::vector<double> ratios;
  double median = kNaN, min = kNaN, max = kNaN;  // of the ratios (min-max is spread, not a CI)
  double gm = kNaN, gm_lo = kNaN, gm_hi = kNaN;  // exp(mean d ± t s_d/√n); n < 2: [0, +inf)
  std::optional<Interval> median_ci;             // order-statistic CI of the ratios (n >= 6 at 95%)
  double mean_log = kNaN, sd_log = kNaN;         // sd_log NaN when n < 2
  double p_wilcoxon = kNaN;              // signed rank on d, zeros dropped; exact (absdev) for <= 50 nonzero
  double p_sign = kNaN;                  // 2 P(Bin(n', 1/2) <= min(#+, #-)), zeros dropped, capped at 1
  double p_t = kNaN;                     // paired t on d; NaN when n < 2 or sd_log = 0
  double w_plus = kNaN;                  // sum of the (mid-)ranks of |d| with d > 0
  std::optional<double> order_effect_p;  // Welch t of d, AB vs BA repeats
  std::vector<TestWarning> warnings;
};
// variant_first[i] says repeat i ran in order BA (variant first); empty when not recorded.
// The order effect needs n >= 8 and at least 2 repeats of each order.
Paired paired(std::span<const double> base, std::span<const double> variant,
              std::span<const bool> variant_first = {}, double confidence = 0.95);

// Decision on a ratio CI with noise threshold theta (§3.5.4): faster if hi < 1 - theta, slower
// if lo > 1 + theta, equivalent if 1 - theta <= lo and hi <= 1 + theta, else inconclusive.
enum class Verdict { faster, slower, equivalent, inconclusive };

constexpr std::array<std::pair<Verdict, std::string_view>, 4> names(Verdict) {
  return {{
      {Verdict::faster, "faster"},
      {Verdict::slower, "slower"},
      {Verdict::equivalent, "equivalent"},
      {Verdict::inconclusive, "inconclusive"},
  }};
}

std::string_view to_string(Verdict verdict);  // "faster", "slower", "equivalent", "inconclusive"
Verdict classify(double lo, double hi, double theta = 0.01);

// A/A acceptance (§3.7). pass: GM CI inside [1 - theta, 1 + theta] and |median ratio - 1| <=
// theta; otherwise fail_biased when the GM CI excludes 1, else fail_imprecise.
enum class AaOutcome { pass, fail_biased, fail_imprecise };

constexpr std::array<std::pair<AaOutcome, std::string_view>, 3> names(AaOutcome) {
  return {{
      {AaOutcome::pass, "PASS"},
      {AaOutcome::fail_biased, "FAIL biased"},
      {AaOutcome::fail_imprecise, "FAIL imprecise"},
  }};
}

std::string_view to_string(AaOutcome outcome);  // "PASS", "FAIL biased", "FAIL imprecise"
struct AaCheck {
  AaOutcome outcome = AaOutcome::fail_imprecise;
  double gm = kNaN, gm_lo = kNaN, gm_hi = kNaN, median_ratio = kNaN;
  double max_abs_dev = kNaN;  // max |r_i - 1|
  double halfwidth = kNaN;    // relative GM CI half-width max(hi/gm - 1, 1 - lo/gm): the noise floor
};
AaCheck aa_check(const Paired& aa, double theta = 0.01);

// Holm-Bonferroni adjusted p-values, in the input order. Throws on a p outside [0, 1] or NaN.
std::vector<double> holm_bonferroni(std::span<const double> p);

// True when no outcome of a two-sided exact Mann-Whitney test of n_a vs n_b values (no ties)
// can reach p <= alpha: 2/C(n_a + n_b, n_a) > alpha (e.g. 3 vs 3, 1 vs 38, 2 vs 7, 3 vs 4).
bool min_attainable_p_exceeds(std::size_t n_a, std::size_t n_b, double alpha = 0.05);

// SplitMix64 (Steele, Lea & Flood 2014): the deterministic generator of every pseudo-random
// choice (§3.10: the report's plot jitter, the Hodges–Lehmann selection's pivots, the claims'
// bootstrap).
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed);
  std::uint64_t next();
  // An index in [0, n) from one draw by Lemire's multiply-shift, the high word of next()·n (V15:
  // seed 42, n = 10 gives 7, 1, 2, 3, 0).
  std::size_t below(std::size_t n);

 private:
  std::uint64_t state_;
};

// One bootstrap resample (§3.11): every element of `into`, in order, drawn with replacement from
// `from` (one below(from.size()) each); `from` is not empty.
void resample(std::span<const double> from, std::span<double> into, SplitMix64& rng);

}  // namespace noisefloor::stats
