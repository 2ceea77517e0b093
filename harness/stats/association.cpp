#include "stats/association.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "model/errors.hpp"
#include "stats/compare.hpp"

namespace noisefloor::stats {

std::vector<double> mid_ranks(std::span<const double> x) {
  std::vector<std::size_t> order(x.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
  std::vector<double> ranks(x.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && x[order[j + 1]] == x[order[i]]) ++j;
    const double rank = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
    for (std::size_t k = i; k <= j; ++k) ranks[order[k]] = rank;
    i = j + 1;
  }
  return ranks;
}

namespace {

// Pearson's r of two equally long vectors, from their centred forms: Σ a·b / sqrt(Σa² Σb²).
double centred_correlation(std::span<const double> a, std::span<const double> b, double norm) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s / norm;
}

std::vector<double> centred(std::vector<double> v) {
  double mean = 0;
  for (const double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  for (double& x : v) x -= mean;
  return v;
}

double sum_of_squares(std::span<const double> v) {
  double s = 0;
  for (const double x : v) s += x * x;
  return s;
}

}  // namespace

double spearman_rho(std::span<const double> x, std::span<const double> y) {
  if (x.size() != y.size()) throw Error("spearman_rho: the two sides differ in length");
  if (x.size() < 3) return std::nan("");
  const auto a = centred(mid_ranks(x));
  const auto b = centred(mid_ranks(y));
  const double norm = std::sqrt(sum_of_squares(a) * sum_of_squares(b));
  if (!(norm > 0)) return std::nan("");
  return centred_correlation(a, b, norm);
}

Association rank_association(std::span<const double> x, std::span<const double> y, std::uint64_t seed) {
  Association out;
  out.n = x.size();
  out.rho = spearman_rho(x, y);
  if (std::isnan(out.rho)) return out;
  const auto a = centred(mid_ranks(x));
  auto b = centred(mid_ranks(y));
  const double norm = std::sqrt(sum_of_squares(a) * sum_of_squares(b));
  // A tolerance for ρ's that equal the observed one but for rounding (ties make such orderings
  // common): they count as "at least as large".
  const double observed = std::fabs(out.rho) - 1e-12;
  std::size_t at_least = 0, total = 0;
  if (x.size() <= kExactPermutationN) {
    std::vector<std::size_t> order(b.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::vector<double> shuffled(b.size());
    do {
      for (std::size_t i = 0; i < order.size(); ++i) shuffled[i] = b[order[i]];
      ++total;
      if (std::fabs(centred_correlation(a, shuffled, norm)) >= observed) ++at_least;
    } while (std::next_permutation(order.begin(), order.end()));
    out.exact = true;
    out.p = static_cast<double>(at_least) / static_cast<double>(total);
    return out;
  }
  SplitMix64 generator(seed);  // the one generator of §3.10: the same draws with every library
  for (int k = 0; k < kPermutations; ++k) {
    // Fisher–Yates with Lemire's multiply-shift for the index (no modulo bias).
    for (std::size_t i = b.size() - 1; i > 0; --i) std::swap(b[i], b[generator.below(i + 1)]);
    if (std::fabs(centred_correlation(a, b, norm)) >= observed) ++at_least;
  }
  out.p = static_cast<double>(at_least + 1) / static_cast<double>(kPermutations + 1);
  return out;
}

}  // namespace noisefloor::stats
