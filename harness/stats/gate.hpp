// The A/B gate's statistics (spec: harness/stats/README.md §3.13). Pure: no I/O.
//
// The effect is read off the pair log ratios x_i = ln(head_i/base_i) of a block (two pairs a
// quad: b h and h' b', or h b and b' h'): its one-sample Hodges–Lehmann estimate and the
// signed-rank interval around it. The floors (base against base, head against head, the signed
// e_i and f_i of each quad) are the room's measured noise: they size the MDE and are reported, and
// never decide a verdict. θ is the noise threshold, θ₊ = ln(1 + θ), θ₋ = −ln(1 − θ); α = 1 −
// confidence. Contract violations (too few values, a threshold outside [0, 1), a spread that is
// negative or not finite) throw noisefloor::Error.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "stats/compare.hpp"
#include "stats/summary.hpp"

namespace noisefloor::stats {

// The shift of pair log ratios x (§3.13 "Effect"): the median of the n(n+1)/2 Walsh averages
// (x_i + x_j)/2, i ≤ j (Hodges & Lehmann 1963), and the interval [W_(k), W_(M+1−k)] between
// two of them, k the largest order with P₀(T⁺ ≤ k − 1) ≤ tail for Wilcoxon's signed-rank
// statistic T⁺ of n values (exact for n ≤ 50, normal with continuity beyond). Each end is a
// one-sided test at `tail`: lo > 0 exactly when the signed-rank test of x against 0 rejects at
// that level. With fewer pairs than the tail needs (n < 6 at 2.5%), lo = −∞ and hi = +∞. Logs.
struct Shift {
  std::size_t n = 0;
  double estimate = kNaN;
  double lo = kNaN, hi = kNaN;
  double tail = kNaN;   // asked of each end
  double level = kNaN;  // achieved: 1 − 2·P₀(T⁺ ≤ k − 1) (NaN without an interval)
};
Shift signed_rank_shift(std::span<const double> x, double tail);

// The verdict on a shift (§3.13 "Verdict"): slower when the interval lies above 0 and the estimate
// beyond θ₊ (a real change, larger than the threshold) — so always when the whole interval is
// beyond θ₊; faster the mirror image below 0 and −θ₋; within noise (equivalent) when the interval
// lies inside [−θ₋, θ₊]; else inconclusive.
Verdict shift_verdict(const Shift& s, double theta);

// One look of a block (§3.13 "When a block stops"): after `quads` complete quads, at one-sided
// level `tail` for each end of the interval.
struct Look {
  std::size_t quads = 0;
  double tail = kNaN;
};
// A fixed block (samples: N) has one look, at its quads, with tail α/2. A sequential one
// (samples: auto) looks at `first`, 2·first, 4·first, … below `cap`, and at `cap`: half of α/2 at
// the first look, the other half in equal parts over the rest (an error-spending design: Lan &
// DeMets 1983, with Bonferroni's split of the spent error). The tails sum to α/2, so by the union
// bound the block calls a false "slower" with probability at most α/2 however its looks are
// correlated, and however small n is (the exact signed-rank test has no normal joint law to lean on).
std::vector<Look> gate_looks(std::size_t first, std::size_t cap, double confidence, bool sequential);

// Futile (§3.13): projected to the cap (n_cap pairs) with the spread at its optimistic bound — the
// lower 90% confidence bound of the smaller of the SD and 1.4826·MAD of x — and the estimate where
// it is, the normal-theory interval at `tail` could say none of slower, faster or within noise.
bool futile(std::span<const double> x, double theta, std::size_t n_cap, double tail);

// The floors' prediction of the null SD of the quad effect d = ½(x₁ + x₂) (§3.13 "Two floors"):
// s_e, s_f the SDs of the signed floors over n quads, σ̂₀² = (s_e² + s_f²)/4 and its
// Welch–Satterthwaite degrees of freedom ν₀ = (s_e² + s_f²)² / ((s_e⁴ + s_f⁴)/(n − 1)). Both
// spreads 0: σ̂₀ = 0 and ν₀ = 2(n − 1), the value for equal spreads (the limit along s_e = s_f).
struct Floor {
  double sigma0 = kNaN, nu0 = kNaN;
};
Floor combine_floors(double s_e, double s_f, std::size_t n);

// s_d/σ̂₀ when s_d²/σ̂₀² exceeds F(level; n − 1, ν₀) (§3.13 "Two floors"): head/base varies more
// than the floors explain (a bimodal or load-dependent change). nullopt otherwise; +∞ when the
// floors are exact (σ̂₀ = 0) and d is not.
std::optional<double> excess_spread(double s_d, const Floor& floor, std::size_t n, double level = 0.99);

// The minimum detectable effect of one block (§3.13 "MDE"): the smallest true change the rule
// calls with probability π (`power`; √power per block when a second block must confirm), at n
// quads whose effect d has SD σ̂₀ (the floors) and a last look at `tail`. The rule calls slower
// when the estimate is beyond θ₊ and the interval above 0; with the estimate ~ N(δ, σ̂₀²/n) that
// is about δ > max(θ₊, q·σ̂₀/√n) + t_{π,n−1}·σ̂₀/√n, q = t_{1−tail,n−1}: slower = e^{that} − 1,
// faster = 1 − e^{−(max(θ₋, q·σ̂₀/√n) + t_{π,n−1}·σ̂₀/√n)}, as fractions (0.05 = 5%).
struct Mde {
  double slower = kNaN, faster = kNaN;
};
Mde mde(double sigma0, std::size_t n, double theta, double power, bool confirm, double tail);

// About how many more quads would decide an inconclusive block (§3.13 "needs about k more
// repeats"), assuming d̄ = mean_log and s_d = sd_log stay: g the distance from d̄ to the nearest
// decision it can reach (slower needs the interval above 0 when d̄ > θ₊, faster below 0 when
// d̄ < −θ₋; in between "within noise" needs the whole interval inside), N* the least N ≥ 2 with
// t_{1−α/2,N−1} s_d/√N < g, k = N* − n (0 when n already suffices). nullopt when g ≤ 0 (on the
// threshold: no number of repeats decides it) or N* > 10·cap.
std::optional<std::size_t> repeats_needed(double mean_log, double sd_log, std::size_t n, double theta,
                                          double confidence, std::size_t cap);

// Whether flagged rows must be confirmed by a second block (§3.13 "Several rows"): when the gate's
// false-alarm bound with one block, m·α/2, would exceed α (m > 2 gating rows), unless the user
// said (`confirm`).
bool confirmation_needed(std::size_t gating_rows, double confidence, std::optional<bool> confirm);
// The probability that one row of a gate with no true change is called slower (§3.13
// "False-positive rate"): α/2 for one block (whatever its looks), (α/2)² with a confirming block.
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
