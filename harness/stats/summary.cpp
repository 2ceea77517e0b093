#include "stats/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <initializer_list>
#include <map>
#include <numeric>
#include <utility>

#include "model/errors.hpp"
#include "stats/compare.hpp"

namespace noisefloor::stats {
namespace {

// Scale of the mean absolute deviation around the median for the normal distribution
// (sqrt(pi/2) to the spec's 8 digits, §3.4): the MeanAD fallback when MAD = 0.
constexpr double kMeanAdToSigma = 1.2533141;
constexpr double kOutlierZ = 3.5;   // Iglewicz-Hoaglin
constexpr double kExtremeZ = 10.0;  // hyperfine's 14.826 on the raw MAD, rescaled to sigma_MAD
// Up to this n, C(n, j) and the binomial sums fit in 64 bits and are added exactly.
constexpr std::size_t kExactBinomialMaxN = 62;

__extension__ typedef unsigned __int128 U128;  // __extension__: -Wpedantic knows no __int128

void check_finite(std::span<const double> values) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      throw Error(fmt::format("stats: sample {} is not a finite number ('{}')", i + 1, values[i]));
    }
  }
}

long double log_add_exp(long double a, long double b) {
  if (a == -INFINITY) return b;
  if (b == -INFINITY) return a;
  const long double hi = std::max(a, b);
  return hi + std::log1p(std::exp(std::min(a, b) - hi));
}

double median_of_sorted(std::span<const double> sorted) {
  const std::size_t n = sorted.size();
  if (n == 0) return kNaN;
  if (n % 2 == 1) return sorted[n / 2];
  return 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

}  // namespace

std::optional<Knee> knee_of(std::span<const Summary* const> points) {
  if (points.size() < 2) return std::nullopt;
  const Summary& ref = *points.front();
  for (std::size_t i = 1; i < points.size(); ++i) {
    const Summary& p = *points[i];
    Knee k{i, false, false};
    k.median_left = ref.median_ci && std::isfinite(p.median) &&
                    (p.median < ref.median_ci->lo || p.median > ref.median_ci->hi);
    // Band's order is insufficient, excellent, acceptable, noisy, do not trust.
    k.band_worse = ref.band != Band::insufficient && p.band != Band::insufficient &&
                   static_cast<int>(p.band) > static_cast<int>(ref.band);
    if (k.median_left || k.band_worse) return k;
  }
  return std::nullopt;
}

Band band_for_cv(std::optional<double> cv_pct) {
  if (!cv_pct) return Band::insufficient;
  if (*cv_pct <= 2.0) return Band::excellent;
  if (*cv_pct <= 5.0) return Band::acceptable;
  if (*cv_pct <= 10.0) return Band::noisy;
  return Band::do_not_trust;
}

std::string_view to_string(Band band) { return model::name_of(band); }

std::string_view to_string(Outlier outlier) { return model::name_of(outlier); }

double t_quantile(double p, double df) {
  if (!(p > 0.0 && p < 1.0) || !(df > 0.0) || !std::isfinite(df)) {
    throw Error(fmt::format("stats: t quantile needs 0 < p < 1 and finite df > 0, got p={} df={}", p, df));
  }
  // A suite's rows ask the same few (p, df) again and again: the last answers are kept.
  thread_local std::map<std::pair<double, double>, double> kept;
  if (const auto it = kept.find({p, df}); it != kept.end()) return it->second;
  const double q = boost::math::quantile(boost::math::students_t_distribution<double>(df), p);
  if (kept.size() >= 256) kept.clear();
  kept.emplace(std::pair{p, df}, q);
  return q;
}

double median(std::span<const double> values) {
  std::vector<double> copy(values.begin(), values.end());
  return median_in_place(copy);
}

double median_in_place(std::span<double> v) {
  const std::size_t n = v.size();
  if (n == 0) return kNaN;
  // The upper middle by nth_element, the lower one the largest below it: no sort (a claim's
  // median is recomputed in every bootstrap resample).
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (n % 2 == 1) return *mid;
  return 0.5 * (*std::max_element(v.begin(), mid) + *mid);
}

double mad(std::span<const double> values, double median) {
  std::vector<double> dev(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) dev[i] = std::fabs(values[i] - median);
  return median_in_place(dev);
}

// Hyndman-Fan type 7: h = (n-1)p, linear interpolation between x_(floor h) and the next one.
double quantile_type7(std::span<const double> sorted, double p) {
  const double h = static_cast<double>(sorted.size() - 1) * p;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  if (lo + 1 >= sorted.size()) return sorted.back();
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[lo + 1] - sorted[lo]);
}

Interval percentile_interval(std::vector<double> values, double level) {
  std::sort(values.begin(), values.end());
  return {quantile_type7(values, (1 - level) / 2), quantile_type7(values, 1 - (1 - level) / 2), level};
}

// Where a log-space sum of Bin(n, 1/2) terms starts: 0, or for large n (kSkipFrom) 12 standard
// deviations (6√n) below n/2, below which every term, and their sum, is under e^-70 of the
// terms that count (the Chernoff bound exp(-2t²/n) at t = 6√n).
namespace {
constexpr std::size_t kSkipFrom = 10000;
std::size_t first_term(std::size_t n) {
  if (n < kSkipFrom) return 0;
  const double skip = 0.5 * static_cast<double>(n) - 6.0 * std::sqrt(static_cast<double>(n));
  return skip > 0 ? static_cast<std::size_t>(skip) : 0;
}
// ln(C(n, j) / 2^n).
long double log_half_binomial_term(std::size_t n, std::size_t j) {
  if (j == 0) return -static_cast<long double>(n) * std::log(2.0L);
  return std::lgamma(static_cast<long double>(n) + 1) - std::lgamma(static_cast<long double>(j) + 1) -
         std::lgamma(static_cast<long double>(n - j) + 1) - static_cast<long double>(n) * std::log(2.0L);
}
}  // namespace

void check_confidence(double confidence) {
  if (!(confidence > 0.0 && confidence < 1.0)) {
    throw Error(fmt::format("stats: confidence must be in (0, 1), got {}", confidence));
  }
}

std::optional<OrderCi> median_ci_order(std::size_t n, double confidence) {
  check_confidence(confidence);
  const long double alpha = 1.0L - static_cast<long double>(confidence);
  if (n == 0) return std::nullopt;
  std::size_t k = 0;
  long double tail = 0;  // P(Bin(n, 1/2) <= k-1) of the accepted k
  if (n <= kExactBinomialMaxN) {
    // Integers below 2^64 are exact in long double and the scaling by 2^(1-n) is exact too.
    std::uint64_t c = 1;    // C(n, j)
    std::uint64_t sum = 0;  // Σ_{i<k} C(n, i)
    for (std::size_t j = 0; j < n; ++j) {
      const std::uint64_t next = sum + c;
      if (std::ldexp(static_cast<long double>(next), 1 - static_cast<int>(n)) > alpha) break;
      sum = next;
      k = j + 1;
      c = static_cast<std::uint64_t>(static_cast<U128>(c) * (n - j) / (j + 1));
    }
    tail = std::ldexp(static_cast<long double>(sum), -static_cast<int>(n));
  } else {
    // 2^-n underflows even long double beyond n ~ 16000: sum the terms in log space. Beyond
    // kSkipFrom the sum starts 12 standard deviations below n/2, where the terms left out add up
    // to less than e^-70 of the first kept one: nothing at long double precision, and the loop
    // takes 12√n steps instead of n/2 (10^6 samples: 12 000, not 500 000).
    const long double log2 = std::log(2.0L);
    const std::size_t start = first_term(n);
    long double log_term = log_half_binomial_term(n, start);  // ln(C(n, j)/2^n)
    long double log_sum = -INFINITY;
    k = start;
    for (std::size_t j = start; j < n; ++j) {
      const long double next = log_add_exp(log_sum, log_term);
      if (std::exp(next + log2) > alpha) break;
      log_sum = next;
      k = j + 1;
      log_term += std::log(static_cast<long double>(n - j)) - std::log(static_cast<long double>(j + 1));
    }
    tail = std::exp(log_sum);
  }
  if (k == 0) return std::nullopt;
  return OrderCi{k, static_cast<double>(1.0L - 2.0L * tail)};
}

namespace {

// benchstat's greedy widening (n <= 30) compares the binomial terms of the two neighbouring
// counts in double precision, and for n >= 21 those terms come from log-gamma functions: C(n, k)
// and C(n, n-k), equal in exact arithmetic, then differ by a rounding, and at some ties it widens
// to the right first. Bit k of kBenchstatRightTies[n - 21] is set where the tie
// between the counts k and n - k goes right. Measured on the benchstat binary (712aea8, amd64):
// for every tie of n = 21..30, a confidence between the mass before and after it makes that tie
// the last step, and the interval printed shows the side taken. Up to n = 20 its terms are exact
// integers and every tie goes left. Either side covers the same probability (mirror images).
constexpr std::uint32_t tie_bits(std::initializer_list<int> ks) {
  std::uint32_t bits = 0;
  for (int k : ks) bits |= std::uint32_t{1} << k;
  return bits;
}
constexpr std::size_t kFirstFloatTieN = 21, kLastGreedyN = 30;
constexpr std::uint32_t kBenchstatRightTies[] = {
    tie_bits({2, 4, 7}),                       // n = 21
    tie_bits({2, 4, 7, 10}),                   // 22
    tie_bits({2, 4, 7}),                       // 23
    tie_bits({2, 4, 7, 11}),                   // 24
    tie_bits({2, 4, 7, 10}),                   // 25
    tie_bits({2, 4, 7, 10}),                   // 26
    tie_bits({2, 4, 7, 10, 11}),               // 27
    tie_bits({2, 4, 7, 10, 12, 13}),           // 28
    tie_bits({2, 4, 5, 6, 7, 10, 13}),         // 29
    tie_bits({2, 4, 5, 6, 7, 8, 10, 13, 14}),  // 30
};

bool benchstat_tie_goes_right(std::size_t n, std::size_t left_count) {
  if (n < kFirstFloatTieN || n > kLastGreedyN) return false;
  return (kBenchstatRightTies[n - kFirstFloatTieN] >> left_count) & 1U;
}

// P(from <= Bin(n, 1/2) <= to) for 1 <= from <= to <= n - 1: an exact integer sum for n <= 62,
// else 1 minus the two tails (the upper one by symmetry).
double binomial_half_mass(std::size_t n, std::size_t from, std::size_t to) {
  if (n <= kExactBinomialMaxN) {
    std::uint64_t c = 1, sum = 0;  // C(n, j); Σ C(n, j) <= 2^62
    for (std::size_t j = 0; j <= to; ++j) {
      if (j >= from) sum += c;
      c = static_cast<std::uint64_t>(static_cast<U128>(c) * (n - j) / (j + 1));
    }
    return static_cast<double>(std::ldexp(static_cast<long double>(sum), -static_cast<int>(n)));
  }
  const long double below = binomial_half_cdf(n, from - 1), above = binomial_half_cdf(n, n - to - 1);
  return static_cast<double>(1.0L - below - above);
}

}  // namespace

std::optional<OrderInterval> benchstat_median_ci_orders(std::size_t n, double confidence) {
  check_confidence(confidence);
  if (n == 0) return std::nullopt;
  // [lo, hi): the counts k of samples below the median that the interval covers; the CI is
  // [x_(lo), x_(hi)], lo = 0 meaning -inf and hi = n + 1 meaning +inf.
  std::int64_t lo = 0, hi = 0;
  const auto count = static_cast<std::int64_t>(n);
  if (n <= kLastGreedyN) {
    std::uint64_t c[kLastGreedyN + 1];  // C(n, k) < 2^30
    c[0] = 1;
    for (std::size_t k = 0; k < n; ++k) c[k + 1] = c[k] * (n - k) / (k + 1);
    const auto term = [&](std::int64_t k) { return k < 0 || k > count ? 0 : c[k]; };
    lo = count / 2;  // the lower of the modes
    hi = lo + 1;
    std::uint64_t mass = c[lo];  // Σ C(n, k) over [lo, hi), compared as mass/2^n (exact)
    const auto reached = [&] {
      const long double fraction = std::ldexp(static_cast<long double>(mass), -static_cast<int>(n));
      return fraction >= static_cast<long double>(confidence);
    };
    while (!reached() && (lo > 0 || hi <= count)) {
      const std::uint64_t left = term(lo - 1), right = term(hi);
      if (right > left || (right == left && benchstat_tie_goes_right(n, static_cast<std::size_t>(lo - 1)))) {
        mass += right;
        ++hi;
      } else {
        mass += left;
        --lo;
      }
    }
  } else {
    // K ≈ N(n/2, n/4); the count k stands for [k - 1/2, k + 1/2). The band [l, n - l] of the
    // central `confidence` is rounded out to half-integers, then the right end is pulled in by
    // one when the approximate coverage still reaches `confidence`.
    const double nd = static_cast<double>(n);
    const double mu = nd * 0.5, sigma = std::sqrt(nd * 0.5 * 0.5);
    const boost::math::normal_distribution<double> standard;
    const double l = boost::math::quantile(standard, (1.0 - confidence) / 2.0) * sigma + mu;
    const double r = 2.0 * mu - l;
    lo = static_cast<std::int64_t>(std::floor(l - 0.5)) + 1;
    hi = static_cast<std::int64_t>(std::ceil(r - 0.5)) + 1;
    const auto cdf = [&](double x) { return std::erfc(-(x - mu) / (sigma * std::sqrt(2.0))) / 2.0; };
    const auto coverage = [&](std::int64_t a, std::int64_t b) {
      return cdf(static_cast<double>(b) - 0.5) - cdf(static_cast<double>(a) - 0.5);
    };
    const double shorter = coverage(lo, hi - 1);
    if (shorter >= confidence && shorter < coverage(lo, hi)) --hi;
  }
  if (lo < 1 || hi > count) return std::nullopt;
  const auto first = static_cast<std::size_t>(lo), last = static_cast<std::size_t>(hi);
  return OrderInterval{first, last, binomial_half_mass(n, first, last - 1)};
}

double binomial_half_cdf(std::size_t n, std::size_t k) {
  if (k >= n) return 1.0;
  if (n <= kExactBinomialMaxN) {
    std::uint64_t c = 1, sum = 0;
    for (std::size_t j = 0; j <= k; ++j) {
      sum += c;
      c = static_cast<std::uint64_t>(static_cast<U128>(c) * (n - j) / (j + 1));
    }
    return static_cast<double>(std::ldexp(static_cast<long double>(sum), -static_cast<int>(n)));
  }
  // Sum the smaller tail (fewer terms, no cancellation), then complement if needed.
  const bool upper = 2 * k > n;
  const std::size_t last = upper ? n - k - 1 : k;  // P(X >= k+1) = P(X <= n-k-1) by symmetry
  const std::size_t start = std::min(first_term(n), last);
  long double log_term = log_half_binomial_term(n, start);
  long double log_sum = -INFINITY;
  for (std::size_t j = start; j <= last; ++j) {
    log_sum = log_add_exp(log_sum, log_term);
    log_term += std::log(static_cast<long double>(n - j)) - std::log(static_cast<long double>(j + 1));
  }
  const long double tail = std::exp(log_sum);
  return static_cast<double>(upper ? 1.0L - tail : tail);
}

std::optional<double> lag1_autocorrelation(std::span<const double> x) {
  if (x.size() < 8) return std::nullopt;
  const double mean = stats::mean(x);
  double num = 0.0, den = 0.0;
  for (std::size_t t = 0; t < x.size(); ++t) {
    den += (x[t] - mean) * (x[t] - mean);
    if (t + 1 < x.size()) num += (x[t] - mean) * (x[t + 1] - mean);
  }
  if (den == 0.0) return std::nullopt;
  return num / den;
}

Summary summarize(std::span<const double> x, double confidence) {
  std::vector<double> sorted(x.begin(), x.end());
  std::sort(sorted.begin(), sorted.end());
  return summarize(x, sorted, confidence);
}

std::vector<double> modified_z_scores(std::span<const double> x, const Summary& s) {
  if (x.size() < 2 || x.size() != s.n) return {};
  // Robust scores (§3.4); with MAD = 0 fall back to the MeanAD so that a single differing
  // value is not flagged by a division by epsilon (hyperfine's behaviour).
  double scale = s.sigma_mad;
  if (scale == 0.0) {
    std::vector<double> dev(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) dev[i] = std::fabs(x[i] - s.median);
    std::sort(dev.begin(), dev.end());  // summed in ascending order, as it always was
    const double mean_ad = std::accumulate(dev.begin(), dev.end(), 0.0) / static_cast<double>(x.size());
    scale = kMeanAdToSigma * mean_ad;
  }
  std::vector<double> z;
  if (scale > 0.0) {
    z.reserve(x.size());
    for (const double v : x) z.push_back((v - s.median) / scale);
  }
  return z;
}

Summary summarize(std::span<const double> x, std::span<const double> sorted, double confidence) {
  check_confidence(confidence);
  check_finite(x);
  if (sorted.size() != x.size()) throw Error("stats: summarize: the sorted copy differs in size");
  Summary s;
  s.n = x.size();
  s.outliers.assign(s.n, Outlier::none);
  if (s.n == 0) {
    s.warnings.push_back({.kind = SummaryWarningKind::no_samples});
    return s;
  }
  const std::size_t n = s.n;
  const double nd = static_cast<double>(n);

  s.mean = stats::mean(x);
  s.median = median_of_sorted(sorted);
  s.min = sorted.front();
  s.max = sorted.back();

  if (n >= 2) {
    // Corrected two-pass sum of squares (Chan, Golub & LeVeque), never the one-pass Σx² form:
    // it cancels to 0 for values around 1e9 with unit spread (V9).
    s.stddev = std::sqrt(sample_variance(x, s.mean));
    if (s.mean > 0.0) s.cv_pct = 100.0 * *s.stddev / s.mean;

    std::vector<double> dev(n);
    for (std::size_t i = 0; i < n; ++i) dev[i] = std::fabs(x[i] - s.median);
    s.mad = median_in_place(dev);
    s.sigma_mad = kMadToSigma * s.mad;
    if (s.median > 0.0) s.rcv_pct = 100.0 * s.sigma_mad / s.median;

    s.q1 = quantile_type7(sorted, 0.25);
    s.q3 = quantile_type7(sorted, 0.75);
    s.iqr = s.q3 - s.q1;

    const double half = t_quantile(0.5 * (1.0 + confidence), nd - 1.0) * *s.stddev / std::sqrt(nd);
    s.mean_ci = Interval{s.mean - half, s.mean + half, confidence};

    s.modified_z = modified_z_scores(x, s);
    for (std::size_t i = 0; i < s.modified_z.size(); ++i) {
      const double m = s.modified_z[i];
      if (std::fabs(m) > kExtremeZ) {
        s.outliers[i] = Outlier::extreme;
      } else if (std::fabs(m) > kOutlierZ) {
        s.outliers[i] = Outlier::outlier;
      }
    }

    const double mild_lo = s.q1 - 1.5 * s.iqr, mild_hi = s.q3 + 1.5 * s.iqr;
    const double severe_lo = s.q1 - 3.0 * s.iqr, severe_hi = s.q3 + 3.0 * s.iqr;
    for (double v : x) {
      if (v < severe_lo || v > severe_hi) {
        ++s.tukey_severe;
      } else if (v < mild_lo || v > mild_hi) {
        ++s.tukey_mild;
      }
    }
  }

  // benchstat's interval (§3.2), so that its "±" and ours agree on the same samples.
  if (const auto orders = benchstat_median_ci_orders(n, confidence)) {
    const double lo = sorted[orders->lo - 1], hi = sorted[orders->hi - 1];
    s.median_ci = Interval{lo, hi, orders->level};
    if (s.median > 0.0) s.median_rel_halfwidth = std::max(hi / s.median - 1.0, 1.0 - lo / s.median);
  }

  s.lag1 = lag1_autocorrelation(x);
  const double drift_limit = 2.0 / std::sqrt(nd);
  s.drift = s.lag1 && std::fabs(*s.lag1) > drift_limit;

  if (s.cv_pct && s.rcv_pct) {
    s.shape = *s.rcv_pct > 0.0 ? *s.cv_pct / *s.rcv_pct > 2.0 : *s.cv_pct > 0.0;
  }
  s.band = band_for_cv(s.cv_pct);

  // Warnings, from the most basic (sample size) to the diagnostics.
  using Kind = SummaryWarningKind;
  if (n < 2) s.warnings.push_back({.kind = Kind::one_sample});
  if (!s.median_ci) {
    std::size_t needed = n + 1;
    while (!benchstat_median_ci_orders(needed, confidence)) ++needed;
    s.warnings.push_back({.kind = Kind::no_median_ci, .n = n, .count = needed, .value = confidence});
  }
  if (n >= 2 && s.mean <= 0.0) s.warnings.push_back({.kind = Kind::mean_not_positive});
  if (n >= 2 && s.median <= 0.0) s.warnings.push_back({.kind = Kind::median_not_positive});
  if (s.shape) {
    const bool robust_zero = !(*s.rcv_pct > 0.0);
    s.warnings.push_back({.kind = Kind::shape,
                          .value = robust_zero ? *s.cv_pct : *s.cv_pct / *s.rcv_pct,
                          .robust_zero = robust_zero});
  }
  const auto n_extreme =
      static_cast<std::size_t>(std::count(s.outliers.begin(), s.outliers.end(), Outlier::extreme));
  const auto n_outlier =
      static_cast<std::size_t>(std::count(s.outliers.begin(), s.outliers.end(), Outlier::outlier));
  if (n_extreme + n_outlier > 0)
    s.warnings.push_back(
        {.kind = Kind::outliers, .n = n, .count = n_extreme + n_outlier, .extreme = n_extreme});
  if (s.drift) s.warnings.push_back({.kind = Kind::drift, .value = *s.lag1, .limit = drift_limit});
  return s;
}

std::optional<double> median_ci_halfwidth(std::vector<double> x, double confidence) {
  // The equal-tailed interval (median_ci_order), not the benchstat interval summarize() reports:
  // the stopping rule of §3.8 was tuned and checked on it.
  check_confidence(confidence);
  check_finite(x);
  if (x.empty()) return std::nullopt;
  std::sort(x.begin(), x.end());
  const double med = median_of_sorted(x);
  const auto order = median_ci_order(x.size(), confidence);
  if (!order || !(med > 0.0)) return std::nullopt;
  const double lo = x[order->k - 1], hi = x[x.size() - order->k];
  return std::max(hi / med - 1.0, 1.0 - lo / med);
}

std::optional<double> paired_gm_halfwidth(std::span<const double> base, std::span<const double> variant,
                                          double confidence) {
  const std::size_t n = std::min(base.size(), variant.size());
  if (n < 3) return std::nullopt;
  for (std::size_t i = 0; i < n; ++i)
    if (!(base[i] > 0) || !(variant[i] > 0) || !std::isfinite(base[i]) || !std::isfinite(variant[i]))
      return std::nullopt;
  // The GM interval of the paired comparison itself (§3.6): exp(t·s_d/√n) − 1 = gm_hi/gm − 1.
  const Paired p = paired(base.first(n), variant.first(n), {}, confidence);
  return p.gm_hi / p.gm - 1;
}

double mean(std::span<const double> x) {
  const double n = static_cast<double>(x.size());
  double m = std::accumulate(x.begin(), x.end(), 0.0) / n;
  double correction = 0.0;
  for (double v : x) correction += v - m;
  return m + correction / n;
}

double sample_variance(std::span<const double> x, double m) {
  double ss = 0.0, sum_dev = 0.0;
  for (double v : x) {
    ss += (v - m) * (v - m);
    sum_dev += v - m;
  }
  const double n = static_cast<double>(x.size());
  return std::max(ss - sum_dev * sum_dev / n, 0.0) / (n - 1.0);
}

}  // namespace noisefloor::stats
