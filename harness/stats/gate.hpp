// The A/B gate's statistics (spec: harness/stats/README.md §3.13). Pure: no I/O.
//
// Everything here works on the log scale of one row's quads: d_i = ln(h̃_i/b̃_i) (the effect), and
// the signed floors e_i, f_i (base against base, head against head). θ is the noise threshold,
// θ₊ = ln(1 + θ), θ₋ = −ln(1 − θ); α = 1 − confidence. Contract violations (n < 2, a threshold
// outside (0, 1), a spread that is negative or not finite) throw noisefloor::Error.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

#include "stats/compare.hpp"
#include "stats/summary.hpp"

namespace noisefloor::stats {

// The floors' prediction of the null SD of d (§3.13 "Two floors"): s_e, s_f the SDs of the signed
// floors over n quads, σ̂₀² = (s_e² + s_f²)/4 and its Welch–Satterthwaite degrees of freedom
// ν₀ = (s_e² + s_f²)² / ((s_e⁴ + s_f⁴)/(n − 1)). Both spreads 0: σ̂₀ = 0 and ν₀ = 2(n − 1), the
// value for equal spreads (the limit along s_e = s_f).
struct Floor {
  double sigma0 = kNaN, nu0 = kNaN;
};
Floor combine_floors(double s_e, double s_f, std::size_t n);

// s_d/σ̂₀ when s_d²/σ̂₀² exceeds F(level; n − 1, ν₀) (§3.13 "Two floors"): head/base varies more
// than the floors explain (a bimodal or load-dependent change). nullopt otherwise; +∞ when the
// floors are exact (σ̂₀ = 0) and d is not.
std::optional<double> excess_spread(double s_d, const Floor& floor, std::size_t n, double level = 0.99);

// The minimum detectable effect of one block (§3.13 "MDE"): the smallest true change the rule
// calls with probability `power` at this n and floor. Per-block power π = √power when a second
// block must confirm, else power; with k = (t_{1−α/2,n−1} + t_{π,n−1}) σ̂₀/√n (the noncentral t
// approximated by a shifted central one: slightly optimistic for n < 10),
// slower = e^{θ₊ + k} − 1 and faster = 1 − e^{−(θ₋ + k)}, as fractions (0.05 = 5%).
struct Mde {
  double slower = kNaN, faster = kNaN;
};
Mde mde(double sigma0, std::size_t n, double theta, double power, bool confirm, double confidence = 0.95);

// About how many more quads would decide an inconclusive block (§3.13 "needs about k more
// repeats"), assuming d̄ = mean_log and s_d = sd_log stay: g the distance from d̄ to the nearest
// decision it can reach (θ₊ above it, −θ₋ below it, else the nearer of the two for "within
// noise"), N* the least N ≥ 2 with t_{1−α/2,N−1} s_d/√N < g, k = N* − n (0 when n already
// suffices). nullopt when g ≤ 0 (on the threshold: no number of repeats decides it) or
// N* > 10·cap.
std::optional<std::size_t> repeats_needed(double mean_log, double sd_log, std::size_t n, double theta,
                                          double confidence, std::size_t cap);

// When a gate's block stops (§3.13 "When a block stops"), per row, from the logs of its complete
// quads: d (the effect, ln h̃/b̃) and the signed floors e and f, n = their size ≥ 2.
// The share of α/2 that a block's early looks spend together: a tenth.
inline constexpr double kEarlySpend = 0.1;
// The threshold the verdict uses at this n: max(θ, the 95% floors' reach), the farthest end of
// either floor's interval exp(ē ± t·s_e/√n) from 1 (§3.13 "Verdict"); +∞ when a floor has no
// interval.
double gate_threshold(std::span<const double> e, std::span<const double> f, double theta,
                      double confidence = 0.95);
// Decided at an early look: with a = (α/2)·kEarlySpend/looks (`looks`: the looks a block may stop
// at before its cap, ≥ 1), the interval d̄ ± t_{1−a,n−1}·s_d/√n lies wholly above ln(1 + T) or
// wholly below ln(1 − T), T = gate_threshold(e, f, θ). The 95% verdict is then the same.
bool decided_early(std::span<const double> d, std::span<const double> e, std::span<const double> f,
                   double theta, std::size_t looks, double confidence = 0.95);
// Futile: projected to the cap (ē, s_e, d̄ and s_d as they are, n = cap), a floor still reaches
// beyond θ — so "within noise" cannot be said — and d's 95% interval still does not clear the
// projected threshold — so neither can "slower" or "faster". More quads would end inconclusive.
bool futile(std::span<const double> d, std::span<const double> e, std::span<const double> f, double theta,
            std::size_t cap, double confidence = 0.95);

// The probability that one row of a gate with no true change is called slower (§3.13
// "False-positive rate"): α/2·(1 + kEarlySpend) for one block (its final look and its early
// looks), the square of that when a second block must confirm.
double false_alarm_row(double confidence, bool confirm);
// The same over m gating rows: 1 − (1 − p_row)^m (m = 0: 0).
double false_alarm_bound(std::size_t rows, double confidence, bool confirm);

// The ratio of two conditions' head/base ratios (§3.13 "Contention sensitivity"): Δ = d̄_c − d̄_r,
// SE = √(s_c²/n_c + s_r²/n_r), Welch ν; estimate exp(Δ), CI exp(Δ ± t_{1−α/2,ν} SE). Both
// spreads 0: an exact ratio (lo = hi, df = +∞). Needs n ≥ 2 on each side.
struct Interaction {
  double ratio = kNaN, lo = kNaN, hi = kNaN, df = kNaN;
};
Interaction interaction(const Paired& condition, const Paired& reference, double confidence = 0.95);

}  // namespace noisefloor::stats
