// E-Divisive means change points as Apache Otava computes them (§3.18). Ported from Apache Otava
// (incubating), apache/otava at 1ceb1537, Apache License 2.0; Copyright 2020-2025 The Apache
// Software Foundation. Changes: written in C++ from otava/analysis.py (compute_change_points, split,
// merge, TTestSignificanceTester) and otava/change_point_divisive/ (ChangePointDetector,
// PairDistanceCalculator), with the same order of floating-point operations as its numpy code.
#include "stats/change_points.hpp"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>

#include "model/errors.hpp"

namespace noisefloor::stats {
namespace {

// numpy's pairwise summation (what np.mean and np.std add with), so that means match it bit for bit.
double pairwise_sum(const double* a, std::size_t n) {
  if (n < 8) {
    double res = 0.0;
    for (std::size_t i = 0; i < n; ++i) res += a[i];
    return res;
  }
  if (n <= 128) {
    double r[8];
    for (std::size_t k = 0; k < 8; ++k) r[k] = a[k];
    std::size_t i = 8;
    for (; i < n - (n % 8); i += 8)
      for (std::size_t k = 0; k < 8; ++k) r[k] += a[i + k];
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  std::size_t n2 = n / 2;
  n2 -= n2 % 8;
  return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

double numpy_mean(std::span<const double> x) {
  return pairwise_sum(x.data(), x.size()) / static_cast<double>(x.size());
}

// np.std (ddof 0): 0 for one point, as Otava sets it.
double numpy_std(std::span<const double> x, double mean) {
  if (x.size() < 2) return 0.0;
  std::vector<double> sq(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) sq[i] = (x[i] - mean) * (x[i] - mean);
  return std::sqrt(pairwise_sum(sq.data(), sq.size()) / static_cast<double>(x.size()));
}

// Q̂ of every split of every interval of one window, from the pair distances |x_i − x_j|, in the
// order numpy sums them (otava/change_point_divisive/calculator.py): H[r][c] = Σ_{q=r+1..c+1} D[r][q]
// (row cumulative sums of the upper triangle) and V[c] = Σ_{r≤c} D[r][c+1] (its column sums).
class PairDistances {
 public:
  explicit PairDistances(std::span<const double> x) : x_(x), w_(x.size() > 1 ? x.size() - 1 : 0) {
    h_.assign(w_ * w_, 0.0);
    v_.assign(w_, 0.0);
    for (std::size_t r = 0; r < w_; ++r) {
      double acc = 0.0;
      for (std::size_t c = r; c < w_; ++c) h_[r * w_ + c] = acc += d(r, c + 1);
    }
    for (std::size_t c = 0; c < w_; ++c) {
      double acc = 0.0;
      for (std::size_t r = 0; r <= c; ++r) acc += d(r, c + 1);
      v_[c] = acc;
    }
  }

  // The first maximum of Q̂ over the splits of [s, e), rows τ = s+1+i, columns κ = s+2+j.
  DivisiveCandidate best(std::size_t s, std::size_t e) const {
    const std::size_t len = e - 1 - s;
    // The within-left sums: the columns of V less the rows above s, accumulated.
    std::vector<double> cv(len);
    double acc = 0.0;
    for (std::size_t k = 0; k < len; ++k) {
      double above = 0.0;
      for (std::size_t r = 0; r < s; ++r) above += d(r, s + 1 + k);
      acc += v_[s + k] - above;
      cv[k] = acc;
    }
    DivisiveCandidate best{s + 1, -std::numeric_limits<double>::infinity()};
    std::vector<double> ch(len), rev(len + 1);
    // Column by column: ch[i] = Σ_{a≤i} H[s+a][s+j]; rev[a] = Σ_{a'≥a} H[s+a'][s+j], from the bottom.
    std::vector<double> q(len * len, 0.0);
    for (std::size_t j = 0; j < len; ++j) {
      double down = 0.0;
      for (std::size_t i = 0; i < len; ++i) ch[i] = down += h(s + i, s + j);
      rev[len] = 0.0;
      double up = 0.0;
      for (std::size_t a = len; a-- > 0;) rev[a] = up += h(s + a, s + j);
      for (std::size_t i = 0; i <= j; ++i)
        q[i * len + j] = qhat(i, j, ch[i], cv, i + 1 < len ? rev[i + 1] : 0.0);
    }
    for (std::size_t i = 0; i < len; ++i)
      for (std::size_t j = i; j < len; ++j)
        if (q[i * len + j] > best.qhat) best = {s + 1 + i, q[i * len + j]};
    return best;
  }

 private:
  double d(std::size_t i, std::size_t j) const { return std::fabs(x_[i] - x_[j]); }
  double h(std::size_t r, std::size_t c) const { return c >= r ? h_[r * w_ + c] : 0.0; }

  // Q̂ = 2/(m+n)·cross − 2m/((m+n)(n−1))·within-left − 2n/((m+n)(m−1))·within-right, with
  // n = i+1, m = j−i+1, m+n = j+2 (a within term is 0 for a side of one point).
  static double qhat(std::size_t i, std::size_t j, double ch, const std::vector<double>& cv, double right) {
    const double jd = static_cast<double>(j + 2);
    const double left = i >= 1 ? cv[i - 1] : 0.0;
    const double a = (2.0 / jd) * (ch - left);
    const double b =
        i >= 1 ? (static_cast<double>(2 * (j - i + 1)) / static_cast<double>((j + 2) * i)) * left : 0.0;
    const double c =
        j > i ? (static_cast<double>(2 * (i + 1)) / static_cast<double>((j + 2) * (j - i))) * right : 0.0;
    return (a - b) - c;
  }

  std::span<const double> x_;
  std::size_t w_;
  std::vector<double> h_, v_;
};

// The t-test of the change point at position k of sorted points against its neighbours.
SegmentTest retest(std::span<const double> x, const std::vector<ChangePoint>& cps, std::size_t k) {
  const std::size_t from = k > 0 ? cps[k - 1].index : 0;
  const std::size_t to = k + 1 < cps.size() ? cps[k + 1].index : x.size();
  const std::size_t at = cps[k].index;
  return segment_test(x.subspan(from, at - from), x.subspan(at, to - at));
}

// The intervals cps cut [0, n) into.
std::vector<std::pair<std::size_t, std::size_t>> intervals(const std::vector<ChangePoint>& cps,
                                                           std::size_t n) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  std::size_t from = 0;
  for (const ChangePoint& c : cps) {
    if (c.index > from) out.emplace_back(from, c.index);
    from = c.index;
  }
  if (n > from) out.emplace_back(from, n);
  return out;
}

// Otava's split: E-Divisive in windows of `window` points stepping by half of it (or to the last
// point found), the points found in any window kept once, then each tested against its neighbours
// in the whole series.
std::vector<ChangePoint> split(std::span<const double> x, std::size_t window, double max_pvalue) {
  const std::size_t step = window / 2;
  std::vector<ChangePoint> found;
  for (std::size_t start = 0; start < x.size();) {
    const std::size_t end = std::min(start + window, x.size());
    std::vector<ChangePoint> here = divisive_detect(x.subspan(start, end - start), max_pvalue);
    const std::size_t last = here.empty() ? 0 : here.back().index + start;
    for (ChangePoint& c : here) {
      c.index += start;
      if (std::none_of(found.begin(), found.end(), [&](const ChangePoint& f) { return f.index == c.index; }))
        found.push_back(c);
    }
    start = std::max(last, start + step);
  }
  std::sort(found.begin(), found.end(),
            [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; });
  std::vector<ChangePoint> tested = found;
  for (std::size_t k = 0; k < found.size(); ++k) tested[k].test = retest(x, found, k);
  return tested;
}

// Otava's merge: while a point's p is at or above max_pvalue (the first of the highest), or, when
// none is, the first of the smallest magnitude is at most min_magnitude, that point goes, and the
// two that followed it are tested again. The one before it is not (Otava's own order since Hunter;
// its published vectors hold only so): its test keeps the right segment it had.
std::vector<ChangePoint> merge(std::vector<ChangePoint> cps, std::span<const double> x, double max_pvalue,
                               double min_magnitude) {
  while (!cps.empty()) {
    std::size_t weakest = 0;
    for (std::size_t k = 1; k < cps.size(); ++k)
      if (cps[k].test.pvalue > cps[weakest].test.pvalue) weakest = k;
    if (cps[weakest].test.pvalue < max_pvalue) {
      weakest = 0;
      for (std::size_t k = 1; k < cps.size(); ++k)
        if (cps[k].test.magnitude() < cps[weakest].test.magnitude()) weakest = k;
      if (cps[weakest].test.magnitude() > min_magnitude) return cps;
    }
    cps.erase(cps.begin() + static_cast<std::ptrdiff_t>(weakest));
    for (std::size_t k = weakest; k < std::min(weakest + 2, cps.size()); ++k) cps[k].test = retest(x, cps, k);
  }
  return cps;
}

}  // namespace

double SegmentTest::magnitude() const {
  const double forward = mean_before == 0.0 ? 0.0 : mean_after / mean_before - 1.0;
  const double backward = mean_after == 0.0 ? 0.0 : mean_before / mean_after - 1.0;
  return std::max(std::fabs(forward), std::fabs(backward));
}

SegmentTest segment_test(std::span<const double> left, std::span<const double> right) {
  if (left.empty() || right.empty()) throw Error("stats: segment_test needs a point on each side");
  SegmentTest t;
  t.mean_before = numpy_mean(left);
  t.mean_after = numpy_mean(right);
  t.std_before = numpy_std(left, t.mean_before);
  t.std_after = numpy_std(right, t.mean_after);
  const double n1 = static_cast<double>(left.size()), n2 = static_cast<double>(right.size());
  if (left.size() + right.size() == 2) return t;  // p = 1
  // scipy's ttest_ind_from_stats, equal variances, given Otava's population std.
  const double df = n1 + n2 - 2.0;
  const double svar = ((n1 - 1) * t.std_before * t.std_before + (n2 - 1) * t.std_after * t.std_after) / df;
  const double denom = std::sqrt(svar * (1.0 / n1 + 1.0 / n2));
  const double stat = (t.mean_before - t.mean_after) / denom;
  if (std::isnan(stat))
    t.pvalue = std::numeric_limits<double>::quiet_NaN();
  else if (std::isinf(stat))
    t.pvalue = 0.0;
  else
    t.pvalue = 2.0 * boost::math::cdf(boost::math::students_t(df), -std::fabs(stat));
  return t;
}

std::optional<DivisiveCandidate> divisive_candidate(std::span<const double> x, std::size_t start,
                                                    std::size_t end) {
  if (end > x.size() || start > end)
    throw Error("stats: divisive_candidate: the interval is outside the series");
  if (end - start < 2) return std::nullopt;
  return PairDistances(x).best(start, end);
}

std::vector<ChangePoint> divisive_detect(std::span<const double> x, double max_pvalue) {
  const PairDistances distances(x);
  std::vector<ChangePoint> cps;
  while (true) {
    // The best candidate of any interval of two points or more (the first on a tie).
    std::optional<DivisiveCandidate> best;
    std::pair<std::size_t, std::size_t> where;
    for (const auto& [from, to] : intervals(cps, x.size())) {
      if (to - from < 2) continue;
      const DivisiveCandidate c = distances.best(from, to);
      if (!best || c.qhat > best->qhat) best = c, where = {from, to};
    }
    if (!best) break;
    const SegmentTest t = segment_test(x.subspan(where.first, best->index - where.first),
                                       x.subspan(best->index, where.second - best->index));
    if (!(t.pvalue <= max_pvalue)) break;
    cps.push_back({best->index, t});
    std::sort(cps.begin(), cps.end(),
              [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; });
  }
  return cps;
}

std::vector<ChangePoint> change_points(std::span<const double> series, const ChangePointSettings& settings) {
  if (settings.window < 2) throw Error("stats: change points need a window of at least 2 points");
  const double p = settings.max_pvalue;
  // The first pass keeps weaker points (Otava's rule), which the merge then weighs.
  const double first_pass = p < 0.05 ? p * 10 : (p < 0.5 ? p * 2 : p);
  for (double v : series)
    if (!std::isfinite(v))
      throw Error("stats: change points need finite values (a NaN or an infinity was given)");
  std::vector<ChangePoint> cps =
      merge(split(series, settings.window, first_pass), series, p, settings.min_magnitude);
  // Otava's points, each with its test against its final neighbours: the merge leaves the one
  // before a removed point with the test of a segment that no longer ends there.
  std::vector<ChangePoint> shown = cps;
  for (std::size_t k = 0; k < cps.size(); ++k) shown[k].test = retest(series, cps, k);
  return shown;
}

}  // namespace noisefloor::stats
