// Rank association between two measurements of the same invocations (spec: harness/stats/README.md
// §3.14): Spearman's ρ with a permutation p-value. Pure: no I/O, deterministic.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace noisefloor::stats {

// Mid-ranks (1-based; ties share the mean of the ranks they span), in the input's order.
std::vector<double> mid_ranks(std::span<const double> x);

// Spearman's ρ: Pearson's correlation of the mid-ranks. NaN when n < 3 or either side is constant.
double spearman_rho(std::span<const double> x, std::span<const double> y);

struct Association {
  double rho = 0;      // Spearman's ρ
  double p = 1;        // two-sided permutation p of |ρ| under exchangeability
  bool exact = false;  // every permutation enumerated (n ≤ kExactPermutationN)
  std::size_t n = 0;
};

inline constexpr std::size_t kExactPermutationN = 8;  // 8! = 40320 orderings
inline constexpr int kPermutations = 9999;            // Monte Carlo draws above it

// ρ of x and y, and how often a reordering of y gives |ρ| at least as large: exactly for
// n ≤ kExactPermutationN, else (count + 1) / (kPermutations + 1) over draws from a fixed-seed
// generator (`seed`), so the same data give the same p. nullopt-like: rho NaN, p 1 when
// spearman_rho is undefined.
Association rank_association(std::span<const double> x, std::span<const double> y, std::uint64_t seed = 1);

}  // namespace noisefloor::stats
