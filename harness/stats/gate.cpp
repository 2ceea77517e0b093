#include "stats/gate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/fisher_f.hpp>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <limits>

#include "model/errors.hpp"

namespace noisefloor::stats {
namespace {

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

// t_{1−α/2,n−1}·s/√n: the half-width of a block's log interval at n quads.
double log_halfwidth(double confidence, double s, std::size_t n) {
  const double nd = static_cast<double>(n);
  return t_quantile(0.5 * (1.0 + confidence), nd - 1.0) * s / std::sqrt(nd);
}

// The distance from d̄ to the nearest decision it can reach (§3.13): past θ₊ only "slower" is
// left, below −θ₋ only "faster", in between "within noise" needs the whole interval inside.
double decision_gap(double mean_log, double theta) {
  const double up = std::log1p(theta), down = -std::log1p(-theta);
  if (mean_log > up) return mean_log - up;
  if (mean_log < -down) return -down - mean_log;
  return std::min(up - mean_log, mean_log + down);
}

}  // namespace

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

Mde mde(double sigma0, std::size_t n, double theta, double power, bool confirm, double confidence) {
  check_gate_n(n, "mde");
  check_spread(sigma0, "sigma0");
  check_gate_theta(theta);
  check_confidence(confidence);
  if (!(power > 0.0 && power < 1.0))
    throw Error(fmt::format("stats: power must be in (0, 1), got {}", power));
  // Both blocks must say "slower" for a confirmed regression: each needs √power.
  const double per_block = confirm ? std::sqrt(power) : power;
  const double nd = static_cast<double>(n);
  const double k = (t_quantile(0.5 * (1.0 + confidence), nd - 1.0) + t_quantile(per_block, nd - 1.0)) *
                   sigma0 / std::sqrt(nd);
  Mde m;
  m.slower = std::expm1(std::log1p(theta) + k);
  m.faster = -std::expm1(-(-std::log1p(-theta) + k));
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

namespace {

struct LogMoments {
  double mean = 0, sd = 0;
  std::size_t n = 0;
};

LogMoments moments(std::span<const double> x, const char* what) {
  check_gate_n(x.size(), what);
  LogMoments m;
  m.n = x.size();
  for (const double v : x) m.mean += v;
  m.mean /= static_cast<double>(m.n);
  double ss = 0;
  for (const double v : x) ss += (v - m.mean) * (v - m.mean);
  m.sd = std::sqrt(ss / static_cast<double>(m.n - 1));
  return m;
}

// The relative reach of a floor's interval exp(ē ± h) from 1, h its half-width at n.
double reach_of(const LogMoments& m, double confidence, std::size_t n) {
  const double h = log_halfwidth(confidence, m.sd, n);
  return std::max(std::exp(m.mean + h) - 1.0, 1.0 - std::exp(m.mean - h));
}

// d's interval d̄ ± h against T: wholly beyond ln(1 + T) or ln(1 − T).
bool clears(double mean, double h, double threshold) {
  if (!std::isfinite(threshold)) return false;
  return mean - h > std::log1p(threshold) || (threshold < 1.0 && mean + h < std::log1p(-threshold));
}

}  // namespace

double gate_threshold(std::span<const double> e, std::span<const double> f, double theta, double confidence) {
  check_confidence(confidence);
  check_gate_theta(theta);
  const LogMoments me = moments(e, "gate_threshold"), mf = moments(f, "gate_threshold");
  return std::max({theta, reach_of(me, confidence, me.n), reach_of(mf, confidence, mf.n)});
}

bool decided_early(std::span<const double> d, std::span<const double> e, std::span<const double> f,
                   double theta, std::size_t looks, double confidence) {
  if (looks < 1) throw Error("stats: decided_early needs at least one look");
  const LogMoments md = moments(d, "decided_early");
  // One-sided tail a per look, so the two-sided level of the interval is 1 − 2a.
  const double a = 0.5 * (1.0 - confidence) * kEarlySpend / static_cast<double>(looks);
  return clears(md.mean, log_halfwidth(1.0 - 2.0 * a, md.sd, md.n), gate_threshold(e, f, theta, confidence));
}

bool futile(std::span<const double> d, std::span<const double> e, std::span<const double> f, double theta,
            std::size_t cap, double confidence) {
  check_confidence(confidence);
  check_gate_theta(theta);
  const LogMoments md = moments(d, "futile"), me = moments(e, "futile"), mf = moments(f, "futile");
  if (cap < md.n) cap = md.n;
  const double reach = std::max(reach_of(me, confidence, cap), reach_of(mf, confidence, cap));
  if (reach <= theta) return false;  // the floors could still pass: "within noise" is in reach
  return !clears(md.mean, log_halfwidth(confidence, md.sd, cap), reach);
}

double false_alarm_row(double confidence, bool confirm) {
  check_confidence(confidence);
  // A false "slower" needs the lower end above θ₊ with δ = 0: at most P(T > t_{1−α/2}) = α/2 at
  // the look that ends the block by width or cap, plus the early looks' α/2·kEarlySpend.
  const double one_block = 0.5 * (1.0 - confidence) * (1.0 + kEarlySpend);
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
