#include "stats/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <utility>

#include "model/errors.hpp"

namespace noisefloor::stats {
namespace {

__extension__ typedef unsigned __int128 U128;  // __extension__: -Wpedantic knows no __int128
__extension__ typedef __int128 I128;

constexpr double kInf = std::numeric_limits<double>::infinity();
// Exact Mann-Whitney / signed-rank limits of §3.5.1 and §3.6.
constexpr std::size_t kExactMaxNoTies = 50;
constexpr std::size_t kExactMaxTies = 25;
constexpr std::size_t kExactSignedRankMax = 50;

void check_values(std::span<const double> values, std::string_view what, bool positive) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    if (!std::isfinite(v) || (positive && !(v > 0.0))) {
      throw Error(fmt::format("stats: {} value {} must be a finite number{}, got '{}'", what, i + 1,
                              positive ? " > 0" : "", v));
    }
  }
}

// Two-sided p of |t| with df degrees of freedom.
double t_two_sided(double t, double df) {
  const boost::math::students_t_distribution<double> dist(df);
  return 2.0 * boost::math::cdf(boost::math::complement(dist, std::fabs(t)));
}

double normal_two_sided(double z) {
  const boost::math::normal_distribution<double> dist;
  return std::min(1.0, 2.0 * boost::math::cdf(boost::math::complement(dist, std::fabs(z))));
}

U128 gcd128(U128 a, U128 b) {
  while (b != 0) {
    const U128 r = a % b;
    a = b;
    b = r;
  }
  return a;
}

// num/den correctly rounded when the reduced fraction fits in 53 bits (so the exact p-values
// of small samples equal the double of their rationals), long double otherwise.
double ratio_of(U128 num, U128 den) {
  const U128 g = gcd128(num, den);
  if (g > 1) {
    num /= g;
    den /= g;
  }
  constexpr U128 k53 = static_cast<U128>(1) << 53;
  if (num <= k53 && den <= k53) return static_cast<double>(num) / static_cast<double>(den);
  return static_cast<double>(static_cast<long double>(num) / static_cast<long double>(den));
}

// Doubled mid-ranks (1-based) of the values, in input order: integers even with ties.
// tie_sizes gets the size of every tie group of more than one value.
std::vector<std::int64_t> doubled_midranks(std::span<const double> values,
                                           std::vector<std::size_t>& tie_sizes) {
  const std::size_t n = values.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t i, std::size_t j) { return values[i] < values[j]; });
  std::vector<std::int64_t> ranks(n);
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j + 1 < n && values[order[j + 1]] == values[order[i]]) ++j;
    // positions i+1 .. j+1 share the mid-rank (i+1 + j+1)/2, doubled: i + j + 2.
    for (std::size_t p = i; p <= j; ++p) ranks[order[p]] = static_cast<std::int64_t>(i + j + 2);
    if (j > i) tie_sizes.push_back(j - i + 1);
    i = j + 1;
  }
  return ranks;
}

double tie_term(const std::vector<std::size_t>& tie_sizes) {
  double sum = 0.0;
  for (std::size_t t : tie_sizes) {
    const double td = static_cast<double>(t);
    sum += td * td * td - td;
  }
  return sum;
}

double binomial_coefficient(std::size_t n, std::size_t k) {
  k = std::min(k, n - k);
  double c = 1.0;
  for (std::size_t i = 1; i <= k; ++i) {
    c = c * static_cast<double>(n - k + i) / static_cast<double>(i);
  }
  return c;
}

double min_attainable_p(std::size_t n_a, std::size_t n_b) {
  if (n_a == 0 || n_b == 0) return 1.0;
  return std::min(1.0, 2.0 / binomial_coefficient(n_a + n_b, n_a));
}

// Order k of the Moses CI: max{k >= 1 : 2 P0(U <= k-1) <= alpha} for U of m vs n values
// without ties, with the achieved level. Exact while C(m+n, m) < 2^126 (the coefficients of the
// Gaussian binomial [m+n choose m]_q, truncated to U <= mn/2); normal with continuity
// correction beyond.
std::optional<OrderCi> moses_order(std::size_t m, std::size_t n, double alpha) {
  const std::size_t small = std::min(m, n), large = std::max(m, n);
  const double log_total = std::lgamma(static_cast<double>(m + n + 1)) -
                           std::lgamma(static_cast<double>(m + 1)) - std::lgamma(static_cast<double>(n + 1));
  if (log_total < 126.0 * std::log(2.0)) {
    const std::size_t len = small * large / 2 + 1;  // U = 0 .. floor(mn/2)
    std::vector<I128> c(len, 0);
    c[0] = 1;
    // [large+i choose i]_q = [large+i-1 choose i-1]_q * (1 - q^(large+i)) / (1 - q^i).
    for (std::size_t i = 1; i <= small; ++i) {
      const std::size_t up = large + i;
      for (std::size_t u = len; u-- > up;) c[u] -= c[u - up];
      for (std::size_t u = i; u < len; ++u) c[u] += c[u - i];
    }
    // C(m+n, small), exact. C(large+i, i) = C(large+i-1, i-1) * (large+i) / i is an integer, so
    // with g = gcd(previous, i), i/g divides large+i: dividing before multiplying keeps every
    // intermediate below the result (< 2^126), where multiplying first overflowed 127 bits.
    I128 total = 1;
    for (std::size_t i = 1; i <= small; ++i) {
      I128 g = total, r = static_cast<I128>(i);  // gcd(total, i)
      while (r != 0) g = std::exchange(r, g % r);
      total = (total / g) * (static_cast<I128>(large + i) / (static_cast<I128>(i) / g));
    }
    const long double total_ld = static_cast<long double>(total);
    std::size_t k = 0;
    I128 cum = 0, accepted = 0;
    for (std::size_t u = 0; u < len; ++u) {
      cum += c[u];
      if (2.0L * static_cast<long double>(cum) / total_ld > static_cast<long double>(alpha)) break;
      accepted = cum;
      k = u + 1;
    }
    if (k == 0) return std::nullopt;
    return OrderCi{k, static_cast<double>(1.0L - 2.0L * static_cast<long double>(accepted) / total_ld)};
  }
  const double mu = static_cast<double>(m) * static_cast<double>(n) / 2.0;
  const double sigma =
      std::sqrt(static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(m + n + 1) / 12.0);
  const boost::math::normal_distribution<double> normal;
  const double z = boost::math::quantile(normal, alpha / 2.0);  // negative
  const double k_real = std::floor(mu - 0.5 + z * sigma) + 1.0;
  if (k_real < 1.0) return std::nullopt;
  const double level = 1.0 - 2.0 * boost::math::cdf(normal, (k_real - 0.5 - mu) / sigma);
  return OrderCi{static_cast<std::size_t>(k_real), level};
}

// The k-th smallest (1-based) of the n·m sums a_i + c_j of two ascending arrays, without forming
// them (§3.5.2). The sums form a matrix sorted along rows and columns; row i's candidates still in
// play are the columns [lo_i, hi_i). Each round draws 16 384 candidates at random (SplitMix64,
// seeded: the same inputs always take the same path), sorts them and takes two pivots that
// bracket rank k with a margin of 2.5 standard deviations of a sample rank (Floyd and Rivest's
// choice). One walk over the rows, a pointer per bound moving down the columns (O(n + m)),
// counts the sums below and at each pivot and, for the usual case, writes the candidates
// strictly between them: they shrink by a factor of about √16384 / 5 ≈ 25 a round, so 10^12 sums
// take 4 or 5 rounds. When the bracket misses (rarely) the side that holds rank k is kept. Few
// candidates left are selected directly. Memory: four column indexes per row (32 bits each).
// The value returned is one of the sums, computed as a_i + c_j.
double select_sum(const std::vector<double>& a, const std::vector<double>& c, std::uint64_t k) {
  using Index = std::uint32_t;  // columns: m < 2^32
  const std::size_t n = a.size(), m = c.size();
  std::vector<Index> lo(n, 0), hi(n, static_cast<Index>(m)), next_lo(n), next_hi(n);
  SplitMix64 rng(k);
  constexpr std::uint64_t kSample = 16384;
  std::vector<std::uint64_t> picks;  // sized at the first draw: most selections never draw
  std::vector<double> drawn;
  std::uint64_t below = 0, candidates = static_cast<std::uint64_t>(n) * m;
  // Keeps, row by row, the candidates strictly above `low` and strictly below `high`.
  const auto keep_between = [&](double low, double high) {
    below = candidates = 0;
    std::size_t j_low = m, j_high = m;
    for (std::size_t i = 0; i < n; ++i) {
      while (j_low > 0 && a[i] + c[j_low - 1] > low) --j_low;
      while (j_high > 0 && a[i] + c[j_high - 1] >= high) --j_high;
      const auto l = static_cast<Index>(std::clamp<std::size_t>(j_low, lo[i], hi[i]));
      const auto h = static_cast<Index>(std::clamp<std::size_t>(j_high, lo[i], hi[i]));
      lo[i] = l;
      hi[i] = std::max(l, h);
      below += lo[i];
      candidates += hi[i] - lo[i];
    }
  };
  for (;;) {
    if (candidates <= std::max<std::uint64_t>(4 * kSample, (n + m) / 8)) {
      std::vector<double> rest;
      rest.reserve(static_cast<std::size_t>(candidates));
      for (std::size_t i = 0; i < n; ++i)
        for (Index j = lo[i]; j < hi[i]; ++j) rest.push_back(a[i] + c[j]);
      const auto nth = rest.begin() + static_cast<std::ptrdiff_t>(k - below - 1);
      std::nth_element(rest.begin(), nth, rest.end());
      return *nth;
    }
    // Candidates drawn uniformly (with replacement), found in one pass over the rows.
    picks.resize(kSample);
    for (auto& p : picks) p = rng.next() % candidates;
    std::sort(picks.begin(), picks.end());
    drawn.clear();
    std::uint64_t offset = 0;
    std::size_t next = 0;
    for (std::size_t i = 0; i < n && next < picks.size(); ++i) {
      const std::uint64_t width = hi[i] - lo[i];
      while (next < picks.size() && picks[next] < offset + width)
        drawn.push_back(a[i] + c[lo[i] + static_cast<Index>(picks[next++] - offset)]);
      offset += width;
    }
    std::sort(drawn.begin(), drawn.end());
    // Where rank k falls among the draws, and a bracket around it.
    const double at = static_cast<double>(k - below - 1) / static_cast<double>(candidates) * kSample;
    const double margin = 2.5 * std::sqrt(static_cast<double>(kSample));
    const auto clamp_draw = [&](double r) {
      return static_cast<std::size_t>(std::clamp(r, 0.0, static_cast<double>(drawn.size() - 1)));
    };
    const double p_lo = drawn[clamp_draw(std::floor(at - margin))];
    const double p_hi = drawn[clamp_draw(std::ceil(at + margin))];
    // Counts of sums < p_lo, <= p_lo, < p_hi, <= p_hi (a_i grows with i, so each bound moves
    // one way), and the rows' candidates strictly between the pivots, for the usual case.
    std::uint64_t lt_lo = 0, le_lo = 0, lt_hi = 0, le_hi = 0, between = 0;
    {
      std::size_t j1 = m, j2 = m, j3 = m, j4 = m;
      for (std::size_t i = 0; i < n; ++i) {
        while (j1 > 0 && a[i] + c[j1 - 1] >= p_lo) --j1;
        while (j2 > 0 && a[i] + c[j2 - 1] > p_lo) --j2;
        while (j3 > 0 && a[i] + c[j3 - 1] >= p_hi) --j3;
        while (j4 > 0 && a[i] + c[j4 - 1] > p_hi) --j4;
        const auto l = static_cast<Index>(std::clamp<std::size_t>(j2, lo[i], hi[i]));
        const auto h = static_cast<Index>(std::clamp<std::size_t>(j3, lo[i], hi[i]));
        lt_lo += std::clamp<std::size_t>(j1, lo[i], hi[i]);
        le_lo += l;
        lt_hi += h;
        le_hi += std::clamp<std::size_t>(j4, lo[i], hi[i]);
        next_lo[i] = l;
        next_hi[i] = std::max(l, h);
        between += next_hi[i] - l;
      }
    }
    if (k > le_lo && k <= lt_hi) {  // the usual case: strictly between the pivots
      lo.swap(next_lo);
      hi.swap(next_hi);
      below = le_lo;
      candidates = between;
    } else if (k <= lt_lo) {
      keep_between(-kInf, p_lo);  // below p_lo: the bracket missed
    } else if (k <= le_lo) {
      return p_lo;
    } else if (k <= le_hi) {
      return p_hi;
    } else {
      keep_between(p_hi, kInf);  // above p_hi: the bracket missed
    }
  }
}

// The k-th and (k+1)-th smallest sums (1 <= k < n·m): the second from one more walk over the
// rows after the first, either a tie of it or the least sum above it.
std::pair<double, double> select_sum_pair(const std::vector<double>& a, const std::vector<double>& c,
                                          std::uint64_t k) {
  const double x = select_sum(a, c, k);
  const std::size_t n = a.size(), m = c.size();
  std::uint64_t at_most = 0;
  double above = kInf;
  std::size_t j = m;
  for (std::size_t i = 0; i < n; ++i) {
    while (j > 0 && a[i] + c[j - 1] > x) --j;  // columns [0, j) hold sums <= x
    at_most += j;
    if (j < m) above = std::min(above, a[i] + c[j]);
  }
  return {x, at_most >= k + 1 ? x : above};
}

// The permutation distribution of the doubled rank sum of m of the values whose doubled ranks are
// `ranks2`, conditional on their tie pattern: entry s counts the m-subsets with doubled sum s
// (0 .. n(n+1)). It depends only on m and the multiset of ranks, so the last few are kept: a suite's
// rows mostly share one (n values, no ties), and the count costs O(n·m·n²).
std::shared_ptr<const std::vector<U128>> rank_sum_counts(const std::vector<std::int64_t>& ranks2,
                                                         std::size_t m) {
  std::vector<std::int64_t> key(ranks2);
  std::sort(key.begin(), key.end());
  key.push_back(static_cast<std::int64_t>(m));
  thread_local std::map<std::vector<std::int64_t>, std::shared_ptr<const std::vector<U128>>> kept;
  if (const auto it = kept.find(key); it != kept.end()) return it->second;
  const std::size_t n = ranks2.size();
  const auto max_sum = static_cast<std::size_t>(n * (n + 1));
  const std::size_t width = max_sum + 1;
  // cnt[k][s] = #subsets of k ranks with doubled sum s
  std::vector<U128> cnt((m + 1) * width, 0);
  cnt[0] = 1;
  std::size_t reach = 0;  // largest sum reachable so far
  for (std::size_t i = 0; i < n; ++i) {
    const auto rank = static_cast<std::size_t>(key[i]);
    reach += rank;
    for (std::size_t k = std::min(i + 1, m); k >= 1; --k) {
      U128* row = &cnt[k * width];
      const U128* prev = &cnt[(k - 1) * width];
      for (std::size_t s = reach; s >= rank; --s) row[s] += prev[s - rank];
    }
  }
  auto counts =
      std::make_shared<const std::vector<U128>>(cnt.begin() + static_cast<std::ptrdiff_t>(m * width),
                                                cnt.begin() + static_cast<std::ptrdiff_t>((m + 1) * width));
  constexpr std::size_t kKept = 32;  // at most 32 · 165 KB (n = 100)
  if (kept.size() >= kKept) kept.clear();
  kept.emplace(std::move(key), counts);
  return counts;
}

// The exact p benchstat prints (§3.5.1), from the counts `row` of the doubled rank sum of the
// smaller group (a when g_is_a), indexed 0 .. width - 1, over `total` arrangements.
double benchstat_exact_p(const U128* row, std::size_t width, bool g_is_a, std::size_t na, std::size_t nb,
                         const std::vector<std::int64_t>& ranks2, std::int64_t rank_sum2_a, U128 total) {
  const auto na64 = static_cast<std::int64_t>(na), nb64 = static_cast<std::int64_t>(nb);
  const std::int64_t u2 = rank_sum2_a - na64 * (na64 + 1);  // 2·U of a
  const std::int64_t uu2 = 2 * na64 * nb64;                 // 2·n_a·n_b
  if (2 * u2 == uu2) return 1.0;
  const std::int64_t threshold = std::min(u2, uu2 - u2);  // 2·min(U_a, U_b)
  // Arrangements with 2·U_a <= threshold. U_a = R_a − n_a(n_a+1)/2, or n_a·n_b − U_b when the
  // counts are those of b's rank sum R_b.
  U128 at_most = 0;
  for (std::size_t s = 0; s < width; ++s) {
    if (row[s] == 0) continue;
    const auto sum = static_cast<std::int64_t>(s);
    const std::int64_t ua2 = g_is_a ? sum - na64 * (na64 + 1) : uu2 - (sum - nb64 * (nb64 + 1));
    if (ua2 <= threshold) at_most += row[s];
  }
  // Two distinct values, t of them on the lower one: with n_a <= t, the lowest 2·U_a is
  // n_a·(t − n_a) (all of a on the lower value). benchstat's count takes that arrangement in
  // whenever the threshold is below it by less than N = n_a + n_b (in doubled U), where nothing
  // is at or below the threshold: its count of how many of a sit on the upper value stops at
  // the quotient (threshold − n_a(t − n_a))/N rounded toward zero, 0 rather than −1.
  const auto [low, high] = std::minmax_element(ranks2.begin(), ranks2.end());
  const std::int64_t low_rank2 = *low, high_rank2 = *high;  // t + 1, and that of the top value
  const bool two_values = std::all_of(ranks2.begin(), ranks2.end(),
                                      [&](std::int64_t r) { return r == low_rank2 || r == high_rank2; });
  const std::int64_t t = low_rank2 - 1, n = na64 + nb64;
  if (two_values && t < n && na64 <= t) {
    const std::int64_t lowest2 = na64 * (t - na64);
    if (threshold < lowest2 && threshold > lowest2 - n) {
      U128 c = 1;  // C(t, n_a)
      for (std::int64_t i = 1; i <= na64; ++i) c = c * static_cast<U128>(t - na64 + i) / static_cast<U128>(i);
      at_most += c;
    }
  }
  return ratio_of(2 * at_most, total);
}

}  // namespace

MannWhitney mann_whitney(std::span<const double> a, std::span<const double> b) {
  if (a.empty() || b.empty()) {
    throw Error(fmt::format("stats: mann-whitney needs at least one value per side, got {} and {}", a.size(),
                            b.size()));
  }
  check_values(a, "mann-whitney sample a", false);
  check_values(b, "mann-whitney sample b", false);
  MannWhitney r;
  const std::size_t na = a.size(), nb = b.size(), n = na + nb;
  // The doubled rank sum of a and the tie groups. Where the exact distribution may be needed
  // (both sides small), every value's rank is kept; beyond, the two sides are sorted apart and
  // walked together, tie group by tie group: the same sums in the same order, in O(n) memory
  // instead of four arrays of n.
  std::vector<std::int64_t> ranks2;
  std::vector<std::size_t> ties;  // tie group sizes (> 1), ascending by value
  std::int64_t rank_sum2_a = 0;
  if (std::max(na, nb) <= kExactMaxNoTies) {
    std::vector<double> all(a.begin(), a.end());
    all.insert(all.end(), b.begin(), b.end());
    ranks2 = doubled_midranks(all, ties);
    for (std::size_t i = 0; i < na; ++i) rank_sum2_a += ranks2[i];
  } else {
    // Sides given in ascending order are walked as they are; others are sorted first.
    std::vector<double> copy_a, copy_b;
    std::span<const double> sa = a, sb = b;
    if (!std::is_sorted(a.begin(), a.end())) {
      copy_a.assign(a.begin(), a.end());
      std::sort(copy_a.begin(), copy_a.end());
      sa = copy_a;
    }
    if (!std::is_sorted(b.begin(), b.end())) {
      copy_b.assign(b.begin(), b.end());
      std::sort(copy_b.begin(), copy_b.end());
      sb = copy_b;
    }
    std::size_t i = 0, j = 0, position = 0;  // values ranked so far
    while (i < na || j < nb) {
      const double v = j == nb || (i < na && sa[i] <= sb[j]) ? sa[i] : sb[j];
      std::size_t ca = 0, cb = 0;
      while (i < na && sa[i] == v) ++i, ++ca;
      while (j < nb && sb[j] == v) ++j, ++cb;
      const std::size_t t = ca + cb;
      // positions position+1 .. position+t share the doubled mid-rank 2·position + t + 1.
      rank_sum2_a += static_cast<std::int64_t>(ca) * static_cast<std::int64_t>(2 * position + t + 1);
      if (t > 1) ties.push_back(t);
      position += t;
    }
  }
  const auto na64 = static_cast<std::int64_t>(na);
  r.u = static_cast<double>(rank_sum2_a - na64 * (na64 + 1)) / 2.0;  // U_A = R_A - nA(nA+1)/2
  const double nad = static_cast<double>(na), nbd = static_cast<double>(nb);
  const double nd = static_cast<double>(n);
  const double mu = nad * nbd / 2.0;
  const bool has_ties = !ties.empty();
  r.exact = std::max(na, nb) <= (has_ties ? kExactMaxTies : kExactMaxNoTies);

  if (min_attainable_p_exceeds(na, nb)) {
    r.warnings.push_back(
        {.kind = TestWarningKind::min_p_unattainable, .n = na, .n_b = nb, .value = min_attainable_p(na, nb)});
  }
  if (ties.size() == 1 && ties.front() == n) {
    r.warnings.push_back({.kind = TestWarningKind::all_equal});
    r.z = 0.0;
    r.sigma_u = 0.0;
    r.p_normal = 1.0;
    if (r.exact) {
      r.p_exact_absdev = 1.0;
      r.p_exact_doubling = 1.0;
    }
    r.p = 1.0;
    r.p_benchstat = 1.0;
    return r;
  }

  // Normal approximation with tie correction and continuity correction (benchstat, scipy).
  r.sigma_u = std::sqrt(nad * nbd / 12.0 * ((nd + 1.0) - tie_term(ties) / (nd * (nd - 1.0))));
  const double diff = r.u - mu;
  const double cc = diff > 0 ? 0.5 : (diff < 0 ? -0.5 : 0.0);
  r.z = (diff - cc) / r.sigma_u;
  r.p_normal = normal_two_sided(r.z);

  if (r.exact) {
    // Permutation distribution of the doubled rank sum of the smaller group G, conditional on
    // the observed tie pattern.
    const bool g_is_a = na <= nb;
    const std::size_t m = g_is_a ? na : nb;
    std::int64_t t2 = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if ((i < na) == g_is_a) t2 += ranks2[i];
    }
    const std::shared_ptr<const std::vector<U128>> counts = rank_sum_counts(ranks2, m);
    const std::size_t width = counts->size();
    const auto center = static_cast<std::int64_t>(m * (n + 1));  // doubled E[rank sum]
    const std::int64_t dev = std::llabs(t2 - center);
    U128 total = 0, extreme = 0, le = 0, ge = 0;
    const U128* row = counts->data();
    for (std::size_t s = 0; s < width; ++s) {
      if (row[s] == 0) continue;
      const auto si = static_cast<std::int64_t>(s);
      total += row[s];
      if (std::llabs(si - center) >= dev) extreme += row[s];
      if (si <= t2) le += row[s];
      if (si >= t2) ge += row[s];
    }
    r.p_exact_absdev = ratio_of(extreme, total);
    const U128 tail2 = 2 * std::min(le, ge);
    r.p_exact_doubling = tail2 >= total ? 1.0 : ratio_of(tail2, total);
    r.p = r.p_exact_absdev;
    r.p_benchstat = benchstat_exact_p(row, width, g_is_a, na, nb, ranks2, rank_sum2_a, total);
  } else {
    r.p = r.p_normal;
    r.p_benchstat = r.p_normal;
  }
  r.p_benchstat_above_1 = r.p_benchstat > 1.0;
  return r;
}

namespace {

// The estimate and the Moses interval from the two ascending log arrays (§3.5.2).
RatioCI hodges_lehmann_from_logs(const std::vector<double>& neg_log_base,
                                 const std::vector<double>& log_variant, double confidence) {
  const std::uint64_t total = static_cast<std::uint64_t>(neg_log_base.size()) * log_variant.size();
  const auto d = [&](std::uint64_t rank) { return select_sum(log_variant, neg_log_base, rank); };  // 1-based
  RatioCI r;
  if (total % 2 == 1) {
    r.estimate = std::exp(d(total / 2 + 1));
  } else {
    const auto [below, above] = select_sum_pair(log_variant, neg_log_base, total / 2);
    r.estimate = std::exp(0.5 * (below + above));
  }
  const auto order = moses_order(neg_log_base.size(), log_variant.size(), 1.0 - confidence);
  if (!order) {
    r.lo = 0.0;
    r.hi = kInf;
    r.level = 1.0;
    r.bounded = false;
    return r;
  }
  r.lo = std::exp(d(order->k));
  r.hi = std::exp(d(total - order->k + 1));
  r.level = order->level;
  return r;
}

}  // namespace

namespace {
void check_hodges_lehmann(std::span<const double> base, std::span<const double> variant, double confidence) {
  check_confidence(confidence);
  if (base.empty() || variant.empty()) {
    throw Error(fmt::format("stats: hodges-lehmann needs at least one value per side, got {} and {}",
                            base.size(), variant.size()));
  }
  check_values(base, "hodges-lehmann base", true);
  check_values(variant, "hodges-lehmann variant", true);
}
}  // namespace

RatioCI hodges_lehmann_ratio(std::span<const double> base, std::span<const double> variant,
                             double confidence) {
  check_hodges_lehmann(base, variant, confidence);
  // D = {ln v_j - ln b_i} as the sums of two ascending arrays: ln v ascending, -ln b ascending.
  std::vector<double> log_variant(variant.size()), neg_log_base(base.size());
  std::transform(variant.begin(), variant.end(), log_variant.begin(), [](double v) { return std::log(v); });
  std::transform(base.begin(), base.end(), neg_log_base.begin(), [](double v) { return -std::log(v); });
  std::sort(log_variant.begin(), log_variant.end());
  std::sort(neg_log_base.begin(), neg_log_base.end());
  return hodges_lehmann_from_logs(neg_log_base, log_variant, confidence);
}

RatioCI hodges_lehmann_ratio_sorted(std::vector<double> base, std::vector<double> variant,
                                    double confidence) {
  check_hodges_lehmann(base, variant, confidence);
  if (!std::is_sorted(base.begin(), base.end()) || !std::is_sorted(variant.begin(), variant.end()))
    throw Error("stats: hodges_lehmann_ratio_sorted needs both sides in ascending order");
  // The logs in place: ln of an ascending array ascends; -ln of it descends, so it is reversed.
  for (double& v : variant) v = std::log(v);
  for (double& b : base) b = -std::log(b);
  std::reverse(base.begin(), base.end());
  return hodges_lehmann_from_logs(base, variant, confidence);
}

RatioCI fieller_ratio_of_means(std::span<const double> num, std::span<const double> den, double confidence) {
  check_confidence(confidence);
  if (num.empty() || den.empty()) {
    throw Error(fmt::format("stats: fieller needs at least one value per side, got {} and {}", num.size(),
                            den.size()));
  }
  check_values(num, "fieller numerator", false);
  check_values(den, "fieller denominator", false);
  const double a = stats::mean(num), b = stats::mean(den);
  RatioCI r;
  r.estimate = a / b;
  r.level = confidence;
  if (num.size() < 2 || den.size() < 2 || b == 0.0) {
    r.lo = -kInf;
    r.hi = kInf;
    r.bounded = false;
    return r;
  }
  const double nn = static_cast<double>(num.size()), nd = static_cast<double>(den.size());
  const double va = stats::sample_variance(num, a) / nn, vb = stats::sample_variance(den, b) / nd;
  const double q = r.estimate;
  if (va + vb == 0.0) {  // no spread at all: the ratio is known exactly
    r.lo = r.hi = q;
    return r;
  }
  const double df = (va + vb) * (va + vb) / (va * va / (nn - 1.0) + vb * vb / (nd - 1.0));
  const double t = t_quantile(0.5 * (1.0 + confidence), df);
  const double g = t * t * vb / (b * b);
  if (g >= 1.0) {  // the denominator's CI contains 0: the confidence set is unbounded
    r.lo = -kInf;
    r.hi = kInf;
    r.bounded = false;
    return r;
  }
  const double half = t / std::fabs(b) * std::sqrt(va * (1.0 - g) + q * q * vb);
  r.lo = (q - half) / (1.0 - g);
  r.hi = (q + half) / (1.0 - g);
  return r;
}

double ratio_of_medians(std::span<const double> base, std::span<const double> variant) {
  if (base.empty() || variant.empty()) {
    throw Error(fmt::format("stats: ratio of medians needs values on both sides, got {} and {}", base.size(),
                            variant.size()));
  }
  check_values(base, "ratio-of-medians base", false);
  check_values(variant, "ratio-of-medians variant", false);
  return median(variant) / median(base);
}

namespace {

void check_paired_input(std::span<const double> base, std::span<const double> variant,
                        std::span<const bool> variant_first) {
  if (base.empty() || base.size() != variant.size()) {
    throw Error(
        fmt::format("stats: paired needs as many variant values as base values (at least 1), got {} and {}",
                    base.size(), variant.size()));
  }
  if (!variant_first.empty() && variant_first.size() != base.size()) {
    throw Error(fmt::format("stats: paired needs one order flag per repeat, got {} for {} repeats",
                            variant_first.size(), base.size()));
  }
  check_values(base, "paired base", true);
  check_values(variant, "paired variant", true);
}

// The geometric mean's t interval and the paired t test on the log ratios d.
void paired_t_interval(Paired& p, const std::vector<double>& d, double confidence) {
  const std::size_t n = d.size();
  const double nd = static_cast<double>(n);
  if (n < 2) {
    // (-inf, +inf) on the log scale: the t interval is undefined with one pair.
    p.gm_lo = 0.0;
    p.gm_hi = kInf;
    p.warnings.push_back({.kind = TestWarningKind::one_pair, .n = n});
    return;
  }
  p.sd_log = std::sqrt(stats::sample_variance(d, p.mean_log));
  const double half = t_quantile(0.5 * (1.0 + confidence), nd - 1.0) * p.sd_log / std::sqrt(nd);
  p.gm_lo = std::exp(p.mean_log - half);
  p.gm_hi = std::exp(p.mean_log + half);
  if (p.sd_log > 0.0) {
    p.p_t = t_two_sided(p.mean_log / (p.sd_log / std::sqrt(nd)), nd - 1.0);
  } else {
    p.warnings.push_back({.kind = TestWarningKind::no_log_variance, .n = n});
  }
}

// The exact two-sided signed-rank p of doubled W+ = w2 over nz nonzero pairs with these doubled
// midranks. Null: each rank's sign is a fair coin; cnt[s] = #sign patterns with doubled W+ = s.
double exact_signed_rank_p(const std::vector<std::int64_t>& ranks2, std::int64_t w2, std::size_t nz) {
  const std::size_t max_sum = nz * (nz + 1);
  std::vector<std::uint64_t> cnt(max_sum + 1, 0);
  cnt[0] = 1;
  std::size_t reach = 0;
  for (std::int64_t r : ranks2) {
    const auto rank = static_cast<std::size_t>(r);
    reach += rank;
    for (std::size_t s = reach; s >= rank; --s) cnt[s] += cnt[s - rank];
  }
  const auto center = static_cast<std::int64_t>(max_sum / 2);  // doubled n'(n'+1)/4
  const std::int64_t dev = std::llabs(w2 - center);
  std::uint64_t extreme = 0;
  for (std::size_t s = 0; s <= max_sum; ++s) {
    if (std::llabs(static_cast<std::int64_t>(s) - center) >= dev) extreme += cnt[s];
  }
  return static_cast<double>(std::ldexp(static_cast<long double>(extreme), -static_cast<int>(nz)));
}

// Wilcoxon signed rank and the sign test on d, zeros dropped (Wilcoxon's convention, not Pratt's).
void paired_rank_tests(Paired& p, const std::vector<double>& d, double alpha) {
  std::vector<double> abs_nonzero;
  std::vector<bool> positive;
  for (double v : d) {
    if (v != 0.0) {
      abs_nonzero.push_back(std::fabs(v));
      positive.push_back(v > 0.0);
    }
  }
  const std::size_t n = d.size(), nz = abs_nonzero.size();
  if (nz < n) {
    p.warnings.push_back({.kind = TestWarningKind::zeros_dropped, .n = n, .count = n - nz});
  }
  if (nz == 0) {
    p.w_plus = 0.0;
    p.p_wilcoxon = 1.0;
    p.p_sign = 1.0;
    p.warnings.push_back({.kind = TestWarningKind::all_zero, .n = n});
    return;
  }
  const auto n_pos = static_cast<std::size_t>(std::count(positive.begin(), positive.end(), true));
  std::vector<std::size_t> ties;
  const std::vector<std::int64_t> ranks2 = doubled_midranks(abs_nonzero, ties);
  std::int64_t w2 = 0;
  for (std::size_t i = 0; i < nz; ++i) {
    if (positive[i]) w2 += ranks2[i];
  }
  p.w_plus = static_cast<double>(w2) / 2.0;
  if (nz <= kExactSignedRankMax) {
    p.p_wilcoxon = exact_signed_rank_p(ranks2, w2, nz);
  } else {
    const double nzd = static_cast<double>(nz);
    const double mu = nzd * (nzd + 1.0) / 4.0;
    const double var = nzd * (nzd + 1.0) * (2.0 * nzd + 1.0) / 24.0 - tie_term(ties) / 48.0;
    const double diff = p.w_plus - mu;
    const double cc = diff > 0 ? 0.5 : (diff < 0 ? -0.5 : 0.0);
    p.p_wilcoxon = normal_two_sided((diff - cc) / std::sqrt(var));
  }
  p.p_sign = std::min(1.0, 2.0 * binomial_half_cdf(nz, std::min(n_pos, nz - n_pos)));
  if (nz < 64 && std::ldexp(1.0, 1 - static_cast<int>(nz)) > alpha) {  // min p = 2/2^n'
    p.warnings.push_back({.kind = TestWarningKind::rank_tests_weak, .n = n, .count = nz, .value = alpha});
  }
}

// Order effect (§3.6): log ratios of the AB repeats vs the BA repeats, Welch t test.
void paired_order_effect(Paired& p, const std::vector<double>& d, std::span<const bool> variant_first,
                         double alpha) {
  const std::size_t n = d.size();
  if (variant_first.empty() || n < 8) return;
  std::vector<double> ab, ba;
  for (std::size_t i = 0; i < n; ++i) (variant_first[i] ? ba : ab).push_back(d[i]);
  if (ab.size() < 2 || ba.size() < 2) return;
  const double m1 = stats::mean(ab), m2 = stats::mean(ba);
  const double n1 = static_cast<double>(ab.size()), n2 = static_cast<double>(ba.size());
  const double v1 = stats::sample_variance(ab, m1) / n1, v2 = stats::sample_variance(ba, m2) / n2;
  if (!(v1 + v2 > 0.0)) return;  // no spread (or not a number): no test
  const double df = (v1 + v2) * (v1 + v2) / (v1 * v1 / (n1 - 1.0) + v2 * v2 / (n2 - 1.0));
  p.order_effect_p = t_two_sided((m1 - m2) / std::sqrt(v1 + v2), df);
  if (*p.order_effect_p < alpha) {
    p.warnings.push_back({.kind = TestWarningKind::order_effect, .n = n, .value = *p.order_effect_p});
  }
}

}  // namespace

Paired paired(std::span<const double> base, std::span<const double> variant,
              std::span<const bool> variant_first, double confidence) {
  check_confidence(confidence);
  check_paired_input(base, variant, variant_first);
  const double alpha = 1.0 - confidence;
  const std::size_t n = base.size();
  Paired p;
  p.ratios.resize(n);
  std::vector<double> d(n);
  for (std::size_t i = 0; i < n; ++i) {
    p.ratios[i] = variant[i] / base[i];
    d[i] = std::log(p.ratios[i]);
  }
  std::vector<double> sorted = p.ratios;
  std::sort(sorted.begin(), sorted.end());
  p.median = median(sorted);
  p.min = sorted.front();
  p.max = sorted.back();
  p.mean_log = stats::mean(d);
  p.gm = std::exp(p.mean_log);
  paired_t_interval(p, d, confidence);
  if (const auto order = median_ci_order(n, confidence)) {
    p.median_ci = Interval{sorted[order->k - 1], sorted[n - order->k], order->level};
  } else {
    p.warnings.push_back({.kind = TestWarningKind::no_median_ratio_ci, .n = n, .value = confidence});
  }
  paired_rank_tests(p, d, alpha);
  paired_order_effect(p, d, variant_first, alpha);
  if (const auto r1 = lag1_autocorrelation(base)) {
    const double limit = 2.0 / std::sqrt(static_cast<double>(n));
    if (std::fabs(*r1) > limit) {
      p.warnings.push_back({.kind = TestWarningKind::baseline_drift, .n = n, .value = *r1, .limit = limit});
    }
  }
  return p;
}

std::string_view to_string(Verdict verdict) { return model::name_of(verdict); }

Verdict classify(double lo, double hi, double theta) {
  if (!(theta >= 0.0 && theta < 1.0)) {
    throw Error(fmt::format("stats: noise threshold must be in [0, 1), got {}", theta));
  }
  // NaN bounds fail every comparison and end up inconclusive.
  if (hi < 1.0 - theta) return Verdict::faster;
  if (lo > 1.0 + theta) return Verdict::slower;
  if (1.0 - theta <= lo && hi <= 1.0 + theta) return Verdict::equivalent;
  return Verdict::inconclusive;
}

std::string_view to_string(AaOutcome outcome) { return model::name_of(outcome); }

AaCheck aa_check(const Paired& aa, double theta) {
  if (!(theta >= 0.0 && theta < 1.0)) {
    throw Error(fmt::format("stats: noise threshold must be in [0, 1), got {}", theta));
  }
  AaCheck c;
  c.gm = aa.gm;
  c.gm_lo = aa.gm_lo;
  c.gm_hi = aa.gm_hi;
  c.median_ratio = aa.median;
  c.max_abs_dev = 0.0;
  for (double r : aa.ratios) c.max_abs_dev = std::max(c.max_abs_dev, std::fabs(r - 1.0));
  c.halfwidth = std::max(aa.gm_hi / aa.gm - 1.0, 1.0 - aa.gm_lo / aa.gm);
  if (1.0 - theta <= aa.gm_lo && aa.gm_hi <= 1.0 + theta && std::fabs(aa.median - 1.0) <= theta) {
    c.outcome = AaOutcome::pass;
  } else if (aa.gm_lo > 1.0 || aa.gm_hi < 1.0) {
    c.outcome = AaOutcome::fail_biased;  // an order or position effect: fix the protocol
  } else {
    c.outcome = AaOutcome::fail_imprecise;  // more repeats (§3.8)
  }
  return c;
}

std::vector<double> holm_bonferroni(std::span<const double> p) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (!(p[i] >= 0.0 && p[i] <= 1.0)) {
      throw Error(fmt::format("stats: holm-bonferroni: p-value {} must be in [0, 1], got '{}'", i + 1, p[i]));
    }
  }
  const std::size_t m = p.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) { return p[i] < p[j]; });
  std::vector<double> adjusted(m);
  double running = 0.0;  // step-down: adjusted p-values never decrease along the sorted order
  for (std::size_t rank = 0; rank < m; ++rank) {
    const double v = std::min(1.0, static_cast<double>(m - rank) * p[order[rank]]);
    running = std::max(running, v);
    adjusted[order[rank]] = running;
  }
  return adjusted;
}

bool min_attainable_p_exceeds(std::size_t n_a, std::size_t n_b, double alpha) {
  return min_attainable_p(n_a, n_b) > alpha;
}

SplitMix64::SplitMix64(std::uint64_t seed) : state_(seed) {}

std::uint64_t SplitMix64::next() {
  std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::size_t SplitMix64::below(std::size_t n) {
  return static_cast<std::size_t>((static_cast<U128>(next()) * n) >> 64);
}

void resample(std::span<const double> from, std::span<double> into, SplitMix64& rng) {
  for (double& x : into) x = from[rng.below(from.size())];
}

}  // namespace noisefloor::stats
