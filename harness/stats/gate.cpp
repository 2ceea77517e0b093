#include "stats/gate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/fisher_f.hpp>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <cstdint>
#include <limits>

#include "model/errors.hpp"

namespace noisefloor::stats {
namespace {

constexpr double kGateInfinity = std::numeric_limits<double>::infinity();
constexpr std::size_t kExactSignedRank = 50;  // 2^50 sign patterns still count in 64 bits

void check_gate_n(std::size_t n, const char* what) {
  if (n < 2) throw Error(fmt::format("stats: {} needs n >= 2 quads, got {}", what, n));
}

void check_spread(double s, const char* what) {
  if (!(s >= 0.0) || !std::isfinite(s))
    throw Error(fmt::format("stats: {} must be a finite spread >= 0, got {}", what, s));
}

void check_gate_theta(double theta) {
  if (!(theta >= 0.0 && theta < 1.0))
    throw Error(fmt::format("stats: noise threshold must be in [0, 1), got {}", theta));
}

void check_tail(double tail) {
  if (!(tail > 0.0 && tail < 0.5))
    throw Error(fmt::format("stats: a one-sided level must be in (0, 0.5), got {}", tail));
}

double normal_quantile(double p) {
  return boost::math::quantile(boost::math::normal_distribution<double>(), p);
}

// t_{1−α/2,n−1}·s/√n: the half-width of a block's log interval at n quads.
double log_halfwidth(double confidence, double s, std::size_t n) {
  const double nd = static_cast<double>(n);
  return t_quantile(0.5 * (1.0 + confidence), nd - 1.0) * s / std::sqrt(nd);
}

// The distance from d̄ to the nearest decision it can reach (§3.13): past θ₊ only "slower" is
// left, which needs the interval above 0; below −θ₋ only "faster", below 0; in between "within
// noise" needs the whole interval inside.
double decision_gap(double mean_log, double theta) {
  const double up = std::log1p(theta), down = -std::log1p(-theta);
  if (mean_log > up) return mean_log;
  if (mean_log < -down) return -mean_log;
  return std::min(up - mean_log, mean_log + down);
}

// The order k of the signed-rank interval of n values at one-sided level `tail` (the largest k
// with P₀(T⁺ ≤ k − 1) ≤ tail) and that probability; k = 0 when even T⁺ = 0 is too likely.
struct RankOrder {
  std::size_t k = 0;
  double tail = kNaN;
};

RankOrder signed_rank_order(std::size_t n, double tail) {
  RankOrder o;
  if (n == 0) return o;
  if (n <= kExactSignedRank) {
    // count[w]: the sign patterns of ranks 1..n whose positive ranks sum to w.
    const std::size_t top = n * (n + 1) / 2;
    std::vector<std::uint64_t> count(top + 1, 0);
    count[0] = 1;
    for (std::size_t r = 1, reach = 0; r <= n; ++r) {
      reach += r;
      for (std::size_t w = reach; w >= r; --w) count[w] += count[w - r];
    }
    const long double total = std::ldexp(1.0L, static_cast<int>(n));
    long double below = 0;  // P₀(T⁺ ≤ c) · 2ⁿ
    for (std::size_t c = 0; c <= top / 2; ++c) {
      below += static_cast<long double>(count[c]);
      if (below / total > static_cast<long double>(tail)) break;
      o.k = c + 1;
      o.tail = static_cast<double>(below / total);
    }
    return o;
  }
  const double nd = static_cast<double>(n);
  const double mu = nd * (nd + 1.0) / 4.0, sigma = std::sqrt(nd * (nd + 1.0) * (2.0 * nd + 1.0) / 24.0);
  const boost::math::normal_distribution<double> normal;
  const double c = std::floor(mu + sigma * normal_quantile(tail) - 0.5);
  if (c < 0) return o;
  o.k = static_cast<std::size_t>(c) + 1;
  o.tail = boost::math::cdf(normal, (c + 0.5 - mu) / sigma);
  return o;
}

}  // namespace

Shift signed_rank_shift(std::span<const double> x, double tail) {
  check_tail(tail);
  if (x.empty()) throw Error("stats: signed_rank_shift needs at least one value");
  for (const double v : x)
    if (!std::isfinite(v)) throw Error(fmt::format("stats: a log ratio must be finite, got {}", v));
  Shift s;
  s.n = x.size();
  s.tail = tail;
  std::vector<double> walsh;
  walsh.reserve(s.n * (s.n + 1) / 2);
  for (std::size_t i = 0; i < s.n; ++i)
    for (std::size_t j = i; j < s.n; ++j) walsh.push_back(0.5 * (x[i] + x[j]));
  const std::size_t m = walsh.size();
  const auto nth = [&](std::size_t i) {  // the (i+1)-th smallest
    std::nth_element(walsh.begin(), walsh.begin() + static_cast<std::ptrdiff_t>(i), walsh.end());
    return walsh[i];
  };
  s.estimate = m % 2 == 1 ? nth(m / 2) : 0.5 * (nth(m / 2 - 1) + nth(m / 2));
  const RankOrder o = signed_rank_order(s.n, tail);
  if (o.k == 0) {
    s.lo = -kGateInfinity;
    s.hi = kGateInfinity;
    return s;
  }
  s.lo = nth(o.k - 1);
  s.hi = nth(m - o.k);
  s.level = 1.0 - 2.0 * o.tail;
  return s;
}

Verdict shift_verdict(const Shift& s, double theta) {
  check_gate_theta(theta);
  const double up = std::log1p(theta), down = std::log1p(-theta);
  if (!(s.lo <= s.hi)) return Verdict::inconclusive;  // no interval (NaN)
  if (s.lo > 0.0 && s.estimate > up) return Verdict::slower;
  if (s.hi < 0.0 && s.estimate < down) return Verdict::faster;
  if (down <= s.lo && s.hi <= up) return Verdict::equivalent;
  return Verdict::inconclusive;
}

std::vector<Look> gate_looks(std::size_t first, std::size_t cap, double confidence, bool sequential) {
  check_confidence(confidence);
  if (first < 1 || cap < 1) throw Error("stats: gate_looks needs at least one quad");
  const double half = 0.5 * (1.0 - confidence);
  if (!sequential || first >= cap) return {Look{cap, half}};
  std::vector<Look> looks;
  for (std::size_t q = first; q < cap; q *= 2) looks.push_back(Look{q, 0.0});
  looks.push_back(Look{cap, 0.0});
  // Half of α/2 at the first look, where a clear change ends the block; the other half in equal
  // parts over the looks after it.
  looks.front().tail = 0.5 * half;
  for (std::size_t j = 1; j < looks.size(); ++j)
    looks[j].tail = 0.5 * half / static_cast<double>(looks.size() - 1);
  return looks;
}

bool futile(std::span<const double> x, double theta, std::size_t n_cap, double tail) {
  check_gate_theta(theta);
  check_tail(tail);
  const std::size_t n = x.size();
  if (n < 3) return false;  // too few to project a spread
  const double m = mean(x);
  const double sd = std::sqrt(sample_variance(x, m));
  const double spread = std::min(sd, kMadToSigma * mad(x, median(x)));
  const boost::math::chi_squared_distribution<double> chi(static_cast<double>(n - 1));
  const double optimistic = spread * std::sqrt(static_cast<double>(n - 1) /
                                               boost::math::quantile(boost::math::complement(chi, 0.10)));
  const double h =
      normal_quantile(1.0 - tail) * optimistic / std::sqrt(static_cast<double>(std::max(n_cap, n)));
  const double estimate = signed_rank_shift(x, tail).estimate;
  const double up = std::log1p(theta), down = std::log1p(-theta);
  const bool slower = estimate > up && estimate - h > 0.0;
  const bool faster = estimate < down && estimate + h < 0.0;
  const bool within = down <= estimate - h && estimate + h <= up;
  return !slower && !faster && !within;
}

Floor combine_floors(double s_e, double s_f, std::size_t n) {
  check_gate_n(n, "combine_floors");
  check_spread(s_e, "the A/A floor's SD");
  check_spread(s_f, "the B/B floor's SD");
  const double ve = s_e * s_e, vf = s_f * s_f;
  const double df = static_cast<double>(n - 1);
  Floor f;
  f.sigma0 = std::sqrt((ve + vf) / 4.0);
  // Exact floors carry no estimation error; 2(n − 1) keeps ν₀ continuous along s_e = s_f.
  f.nu0 = ve + vf > 0.0 ? (ve + vf) * (ve + vf) / ((ve * ve + vf * vf) / df) : 2.0 * df;
  return f;
}

std::optional<double> excess_spread(double s_d, const Floor& floor, std::size_t n, double level) {
  check_gate_n(n, "excess_spread");
  check_spread(s_d, "the SD of d");
  check_spread(floor.sigma0, "sigma0");
  check_confidence(level);
  if (floor.sigma0 == 0.0) {
    if (s_d == 0.0) return std::nullopt;
    return std::numeric_limits<double>::infinity();
  }
  const boost::math::fisher_f_distribution<double> f(static_cast<double>(n - 1), floor.nu0);
  const double ratio = s_d / floor.sigma0;
  if (ratio * ratio > boost::math::quantile(f, level)) return ratio;
  return std::nullopt;
}

Mde mde(double sigma0, std::size_t n, double theta, double power, bool confirm, double tail) {
  check_gate_n(n, "mde");
  check_spread(sigma0, "sigma0");
  check_gate_theta(theta);
  check_tail(tail);
  if (!(power > 0.0 && power < 1.0))
    throw Error(fmt::format("stats: power must be in (0, 1), got {}", power));
  // Both blocks must say "slower" for a confirmed regression: each needs √power.
  const double per_block = confirm ? std::sqrt(power) : power;
  const double nd = static_cast<double>(n);
  const double u = sigma0 / std::sqrt(nd);
  const double q = t_quantile(1.0 - tail, nd - 1.0) * u, push = t_quantile(per_block, nd - 1.0) * u;
  Mde m;
  m.slower = std::expm1(std::max(std::log1p(theta), q) + push);
  m.faster = -std::expm1(-(std::max(-std::log1p(-theta), q) + push));
  return m;
}

std::optional<std::size_t> repeats_needed(double mean_log, double sd_log, std::size_t n, double theta,
                                          double confidence, std::size_t cap) {
  check_gate_n(n, "repeats_needed");
  check_spread(sd_log, "the SD of d");
  check_gate_theta(theta);
  check_confidence(confidence);
  if (!std::isfinite(mean_log))
    throw Error(fmt::format("stats: mean log ratio must be finite, got {}", mean_log));
  const double g = decision_gap(mean_log, theta);
  if (!(g > 0.0)) return std::nullopt;
  const std::size_t limit = 10 * cap;
  // t/√N falls with N, so the least N is found scanning up from the normal-theory bound
  // (z s/g)², which no N below can meet. The design's iteration N ← ⌈(t_{N−1} s/g)²⌉ can
  // oscillate at small N (s/g = ½: 2 → 41 → 2), the scan cannot; it takes a few steps, since
  // (t/z)² − 1 is about (1 + z²)/(2N).
  const double z =
      boost::math::quantile(boost::math::normal_distribution<double>(), 0.5 * (1.0 + confidence));
  const double lower = std::ceil((z * sd_log / g) * (z * sd_log / g));
  if (lower > static_cast<double>(limit)) return std::nullopt;
  for (auto big_n = std::max<std::size_t>(2, static_cast<std::size_t>(lower)); big_n <= limit; ++big_n) {
    if (log_halfwidth(confidence, sd_log, big_n) < g) return big_n > n ? big_n - n : 0;
  }
  return std::nullopt;
}

bool confirmation_needed(std::size_t gating_rows, double confidence, std::optional<bool> confirm) {
  check_confidence(confidence);
  if (confirm) return *confirm;
  return static_cast<double>(gating_rows) * 0.5 * (1.0 - confidence) > 1.0 - confidence + 1e-12;
}

double false_alarm_row(double confidence, bool confirm) {
  check_confidence(confidence);
  // A false "slower" needs the interval above 0 at some look: by the union bound over the looks,
  // whose tails sum to α/2, at most α/2 per block (§3.13).
  const double one_block = 0.5 * (1.0 - confidence);
  return confirm ? one_block * one_block : one_block;
}

double false_alarm_bound(std::size_t rows, double confidence, bool confirm) {
  const double p = false_alarm_row(confidence, confirm);
  // 1 − (1 − p)^m without the cancellation of 1 − pow for a small p.
  return -std::expm1(static_cast<double>(rows) * std::log1p(-p));
}

Interaction interaction(const Paired& condition, const Paired& reference, double confidence) {
  check_confidence(confidence);
  const std::size_t nc = condition.ratios.size(), nr = reference.ratios.size();
  check_gate_n(std::min(nc, nr), "interaction");
  check_spread(condition.sd_log, "the contended condition's SD of d");
  check_spread(reference.sd_log, "the reference condition's SD of d");
  const double delta = condition.mean_log - reference.mean_log;
  const double vc = condition.sd_log * condition.sd_log / static_cast<double>(nc);
  const double vr = reference.sd_log * reference.sd_log / static_cast<double>(nr);
  Interaction r;
  r.ratio = std::exp(delta);
  if (vc + vr == 0.0) {  // both exact: nothing to estimate
    r.lo = r.hi = r.ratio;
    r.df = std::numeric_limits<double>::infinity();
    return r;
  }
  r.df =
      (vc + vr) * (vc + vr) / (vc * vc / static_cast<double>(nc - 1) + vr * vr / static_cast<double>(nr - 1));
  const double half = t_quantile(0.5 * (1.0 + confidence), r.df) * std::sqrt(vc + vr);
  r.lo = std::exp(delta - half);
  r.hi = std::exp(delta + half);
  return r;
}

}  // namespace noisefloor::stats
