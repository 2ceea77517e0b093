// stats/association: mid-ranks, Spearman's ρ and its permutation p, against values worked by hand.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "stats/association.hpp"

using namespace noisefloor::stats;

TEST_CASE("association: mid-ranks share the mean rank of their ties") {
  const std::vector<double> x = {10, 20, 20, 5, 20};
  CHECK(mid_ranks(x) == std::vector<double>{2, 4, 4, 1, 4});
}

TEST_CASE("association: Spearman's rho by hand, 1 - 6 sum d^2 / (n (n^2 - 1)) without ties") {
  const std::vector<double> x = {1, 2, 3, 4, 5};
  const std::vector<double> y = {2, 1, 4, 3, 5};  // d² sums to 4: ρ = 1 − 24/120 = 0.8
  CHECK(spearman_rho(x, y) == doctest::Approx(0.8).epsilon(1e-12));
  const std::vector<double> reversed = {50, 40, 30, 20, 10};
  CHECK(spearman_rho(x, reversed) == doctest::Approx(-1.0).epsilon(1e-12));
  // Ties: x's ranks 1, 2.5, 2.5, 4, centred −1.5 0 0 1.5; y's centred −1.5 −0.5 0.5 1.5.
  // Σab = 4.5, Σa² = 4.5, Σb² = 5: ρ = 4.5 / sqrt(4.5 · 5).
  CHECK(spearman_rho(std::vector<double>{1, 2, 2, 3}, std::vector<double>{1, 2, 3, 4}) ==
        doctest::Approx(4.5 / std::sqrt(4.5 * 5.0)).epsilon(1e-12));
}

TEST_CASE("association: undefined for a constant side or fewer than 3 pairs") {
  CHECK(std::isnan(spearman_rho(std::vector<double>{1, 2, 3}, std::vector<double>{7, 7, 7})));
  CHECK(std::isnan(spearman_rho(std::vector<double>{1, 2}, std::vector<double>{1, 2})));
  const Association a = rank_association(std::vector<double>{1, 2, 3, 4}, std::vector<double>{0, 0, 0, 0});
  CHECK(std::isnan(a.rho));
  CHECK(a.p == 1);
}

TEST_CASE("association: the exact permutation p counts the orderings at least as extreme") {
  // n = 5, a perfect order: only the identity and the reversal reach |ρ| = 1: p = 2/120.
  const std::vector<double> x = {1, 2, 3, 4, 5};
  const Association perfect = rank_association(x, std::vector<double>{10, 20, 30, 40, 50});
  CHECK(perfect.exact);
  CHECK(perfect.rho == doctest::Approx(1.0));
  CHECK(perfect.p == doctest::Approx(2.0 / 120));
  // ρ = 0.8 (Σd² = 4): orderings with Σd² ≤ 4 or ≥ 36 (|ρ| ≥ 0.8): 1 + 4 + 3 at Σd² = 0, 2, 4
  // (the identity, one adjacent swap, two disjoint ones) and as many mirrored: 16 of 120.
  const Association strong = rank_association(x, std::vector<double>{2, 1, 4, 3, 5});
  CHECK(strong.p == doctest::Approx(16.0 / 120));
}

TEST_CASE("association: above 8 pairs, Monte Carlo with a fixed seed: the same data, the same p") {
  std::vector<double> x, y;
  for (int i = 0; i < 20; ++i) {
    x.push_back(i);
    y.push_back(i % 5 == 0 ? 20 - i : i);  // mostly increasing
  }
  const Association a = rank_association(x, y, 7), b = rank_association(x, y, 7);
  CHECK_FALSE(a.exact);
  CHECK(a.p == b.p);
  CHECK(a.rho == doctest::Approx(0.5639097744360902));
  // The permutation p of this ρ is 0.0109 (200,000 shuffles, an independent Python count, ±0.0002):
  // 9999 draws put it within 4 standard errors (±0.0042) whatever the seed.
  CHECK(a.p > 0.0109 - 0.0042);
  CHECK(a.p < 0.0109 + 0.0042);
  CHECK(a.p >= 1.0 / (kPermutations + 1));  // never 0: the observed ordering counts
  // Independent-looking data: a large p.
  const std::vector<double> z = {3, 9, 1, 14, 7, 18, 2, 11, 16, 5, 12, 0, 19, 8, 4, 15, 10, 6, 17, 13};
  CHECK(rank_association(x, z, 7).p > 0.2);
}
