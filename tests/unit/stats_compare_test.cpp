// stats/compare: unpaired and paired comparisons, verdicts, A/A, Holm, SplitMix64 and the sample
// plan, against the public vectors (tests/data/stats/stats-vectors.json) and brute-force
// enumerations.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "model/errors.hpp"
#include "render/warnings.hpp"
#include "stats/compare.hpp"
#include "test_support.hpp"

namespace noisefloor::stats {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

using testing::contains;
using testing::kClosed;
using testing::kT;
using testing::rel;
using testing::values;
using testing::vectors;

// The sentences render/ writes for a result's typed warnings.
std::vector<std::string> texts(const std::vector<TestWarning>& warnings) {
  std::vector<std::string> out;
  for (const TestWarning& w : warnings) out.push_back(render::test_warning_text(w));
  return out;
}

// Doubled mid-rank of v among all: 2·#{< v} + #{== v} + 1.
std::int64_t doubled_rank(const std::vector<double>& all, double v) {
  std::int64_t less = 0, equal = 0;
  for (double w : all) {
    less += w < v ? 1 : 0;
    equal += w == v ? 1 : 0;
  }
  return 2 * less + equal + 1;
}

struct BruteMwu {
  std::uint64_t absdev = 0, le = 0, ge = 0, total = 0;
  std::int64_t u2 = 0;                    // 2·U of a
  std::vector<std::int64_t> u2_of_split;  // 2·U of a for every split
};

// Every assignment of n_a of the pooled values to group a (N <= 20), conditional on the ties.
BruteMwu brute_mann_whitney(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> all = a;
  all.insert(all.end(), b.begin(), b.end());
  const std::size_t n = all.size();
  std::vector<std::int64_t> ranks(n);
  for (std::size_t i = 0; i < n; ++i) ranks[i] = doubled_rank(all, all[i]);
  std::int64_t observed = 0;
  for (std::size_t i = 0; i < a.size(); ++i) observed += ranks[i];
  const auto center = static_cast<std::int64_t>(a.size() * (n + 1));
  BruteMwu r;
  for (std::uint32_t mask = 0; mask < (1u << n); ++mask) {
    if (static_cast<std::size_t>(__builtin_popcount(mask)) != a.size()) continue;
    std::int64_t sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (mask & (1u << i)) sum += ranks[i];
    }
    ++r.total;
    r.absdev += std::llabs(sum - center) >= std::llabs(observed - center) ? 1 : 0;
    r.le += sum <= observed ? 1 : 0;
    r.ge += sum >= observed ? 1 : 0;
    r.u2_of_split.push_back(sum - static_cast<std::int64_t>(a.size() * (a.size() + 1)));
  }
  r.u2 = observed - static_cast<std::int64_t>(a.size() * (a.size() + 1));
  return r;
}

// benchstat's exact p (§3.5.1) from the enumeration: 2·#{splits with U_a <= min(u, n_a n_b − u)}
// over all splits (1 when u = n_a n_b / 2); with two distinct values, the split with all of a on
// the lower value also counts when the threshold is less than N/2 below its U.
double brute_benchstat_p(const std::vector<double>& a, const std::vector<double>& b, const BruteMwu& brute) {
  const auto uu2 = static_cast<std::int64_t>(2 * a.size() * b.size());
  if (2 * brute.u2 == uu2) return 1.0;
  const std::int64_t threshold = std::min(brute.u2, uu2 - brute.u2);
  std::uint64_t count = 0;
  for (std::int64_t u2 : brute.u2_of_split) count += u2 <= threshold ? 1 : 0;
  std::vector<double> all = a;
  all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end());
  const auto t = static_cast<std::int64_t>(std::count(all.begin(), all.end(), all.front()));
  const auto na = static_cast<std::int64_t>(a.size()), n = static_cast<std::int64_t>(all.size());
  const bool two_values = std::count(all.begin(), all.end(), all.back()) == n - t;
  if (two_values && na <= t && count == 0) {
    const std::int64_t lowest = na * (t - na);  // 2·U with all of a on the lower value
    if (threshold > lowest - n) {
      std::uint64_t c = 1;  // C(t, n_a) splits put all of a there
      for (std::int64_t i = 1; i <= na; ++i) {
        c = c * static_cast<std::uint64_t>(t - na + i) / static_cast<std::uint64_t>(i);
      }
      count += c;
    }
  }
  return static_cast<double>(2 * count) / static_cast<double>(brute.total);
}

double fraction(std::uint64_t num, std::uint64_t den) {
  return static_cast<double>(num) / static_cast<double>(den);
}

}  // namespace

TEST_CASE("stats compare: V3 unpaired, complete separation") {
  const auto& v = vectors()["V3_unpaired_separated"];
  const std::vector<double> base = values(v["base"]), variant = values(v["variant"]);
  const MannWhitney m = mann_whitney(base, variant);
  CHECK(m.u == v["U_base"].get<double>());
  CHECK(m.exact);
  CHECK(m.p_exact_absdev == 2.0 / 252);  // "2/252"
  CHECK(m.p_exact_absdev == v["p_exact"].get<double>());
  CHECK(m.p_exact_doubling == 2.0 / 252);  // no ties: identical
  CHECK(m.p == m.p_exact_absdev);
  CHECK(m.p_benchstat == 2.0 / 252);  // no ties: benchstat's p is the same
  CHECK_FALSE(m.p_benchstat_above_1);
  CHECK(m.sigma_u == rel(v["sigma_U"].get<double>(), kClosed));
  CHECK(m.z == rel(v["z"].get<double>(), kClosed));
  CHECK(m.p_normal == rel(v["p_normal_cc"].get<double>(), kClosed));
  CHECK(m.warnings.empty());
  // Swapping the sides mirrors U and keeps p.
  const MannWhitney swapped = mann_whitney(variant, base);
  CHECK(swapped.u == 25.0);
  CHECK(swapped.p == m.p);
  CHECK(swapped.z == -m.z);

  const RatioCI hl = hodges_lehmann_ratio(base, variant);
  CHECK(hl.bounded);
  CHECK(hl.estimate == rel(v["hl_ratio"][0].get<double>(), kClosed));
  CHECK(hl.lo == rel(v["hl_ratio"][1].get<double>(), kClosed));
  CHECK(hl.hi == rel(v["hl_ratio"][2].get<double>(), kClosed));
  CHECK(hl.level == rel(v["moses_achieved"].get<double>(), 1e-15));
  CHECK(hl.level == rel(1.0 - 2.0 * 4.0 / 252, 1e-15));  // moses_k = 3: 2·P0(U <= 2) = 8/252

  CHECK(ratio_of_medians(base, variant) == rel(v["ratio_of_medians"].get<double>(), kClosed));

  const RatioCI f = fieller_ratio_of_means(variant, base);
  CHECK(f.bounded);
  CHECK(f.level == 0.95);
  CHECK(f.estimate == rel(v["fieller_ratio_of_means"][0].get<double>(), kClosed));
  CHECK(f.lo == rel(v["fieller_ratio_of_means"][1].get<double>(), kT));
  CHECK(f.hi == rel(v["fieller_ratio_of_means"][2].get<double>(), kT));
}

TEST_CASE("stats compare: V4 unpaired with ties") {
  const auto& v = vectors()["V4_unpaired_ties"];
  const std::vector<double> x = values(v["x"]), y = values(v["y"]);
  const MannWhitney m = mann_whitney(x, y);
  CHECK(m.u == v["U_x"].get<double>());
  CHECK(m.exact);
  CHECK(m.p_exact_absdev == 3.0 / 14);  // "3/14"
  CHECK(m.p_exact_absdev == v["p_exact_conditional"].get<double>());
  CHECK(m.p == m.p_exact_absdev);
  CHECK(m.sigma_u == rel(v["sigma_U"].get<double>(), kClosed));
  CHECK(m.z == rel(v["z_cc"].get<double>(), kClosed));
  CHECK(m.p_normal == rel(v["p_normal_tie_cc"].get<double>(), kClosed));
  // Without the continuity correction (not exposed; recomputed from sigma_u).
  const double z_nocc = (m.u - 12.5) / m.sigma_u;
  CHECK(std::erfc(std::fabs(z_nocc) / std::sqrt(2.0)) == rel(v["p_normal_tie_nocc"].get<double>(), kClosed));
}

TEST_CASE("stats compare: asymmetric ties, absdev p differs from the doubled tail") {
  // Tie groups {1,1}, {2,2,2,2}, {3,3,3}: P(U <= u) and P(U >= u) are not mirror images.
  const std::vector<double> a{1, 1, 2, 2, 2}, b{2, 3, 3, 3};
  const MannWhitney m = mann_whitney(a, b);
  CHECK(m.exact);
  CHECK(m.p_exact_absdev == 2.0 / 63);    // significant at 5%
  CHECK(m.p_exact_doubling == 4.0 / 63);  // not significant: the doubling rule overstates p
  CHECK(m.p == m.p_exact_absdev);
  // And the other way: the absdev p can exceed the doubled tail too.
  const MannWhitney m2 = mann_whitney(std::vector<double>{1, 1, 1, 2, 3}, std::vector<double>{2, 2, 2, 3});
  CHECK(m2.p_exact_absdev == 19.0 / 63);
  CHECK(m2.p_exact_doubling == 2.0 / 9);
}

TEST_CASE("stats compare: exact Mann-Whitney equals brute-force enumeration") {
  SplitMix64 rng(7);
  const auto index = [&](std::uint64_t n) { return static_cast<std::size_t>(rng.next() % n); };
  for (int round = 0; round < 60; ++round) {
    const std::size_t na = 1 + index(8), nb = 1 + index(8);
    std::vector<double> a(na), b(nb);
    // Few distinct values: plenty of ties, often asymmetric.
    for (double& x : a) x = static_cast<double>(index(5));
    for (double& x : b) x = static_cast<double>(index(5)) + 0.5 * static_cast<double>(index(2));
    CAPTURE(round);
    const MannWhitney m = mann_whitney(a, b);
    bool all_equal = true;
    for (double x : a) all_equal = all_equal && x == a[0];
    for (double x : b) all_equal = all_equal && x == a[0];
    if (all_equal) {
      CHECK(m.p == 1.0);
      continue;
    }
    const BruteMwu brute = brute_mann_whitney(a, b);
    REQUIRE(m.exact);
    CHECK(m.p_exact_absdev == fraction(brute.absdev, brute.total));
    const std::uint64_t tail2 = 2 * std::min(brute.le, brute.ge);
    CHECK(m.p_exact_doubling == (tail2 >= brute.total ? 1.0 : fraction(tail2, brute.total)));
    CHECK(m.p_benchstat == doctest::Approx(brute_benchstat_p(a, b, brute)).epsilon(1e-15));
    CHECK(m.p_benchstat_above_1 == (m.p_benchstat > 1.0));
    // U from its definition: #{a > b} + 1/2 #{a = b}.
    double u = 0;
    for (double x : a) {
      for (double y : b) u += x > y ? 1.0 : (x == y ? 0.5 : 0.0);
    }
    CHECK(m.u == u);
  }
}

TEST_CASE("stats compare: all-equal values have no test") {
  const MannWhitney m = mann_whitney(std::vector<double>{5, 5, 5, 5}, std::vector<double>{5, 5, 5, 5});
  CHECK(m.p == 1.0);
  CHECK(m.p_exact_absdev == 1.0);
  CHECK(m.p_exact_doubling == 1.0);
  CHECK(m.p_normal == 1.0);
  CHECK(m.p_benchstat == 1.0);  // benchstat: "all samples are equal", p=1.000
  CHECK(m.u == 8.0);
  REQUIRE(m.warnings.size() == 1);
  CHECK(m.warnings[0].kind == TestWarningKind::all_equal);
  CHECK(texts(m.warnings) == std::vector<std::string>{"all values are equal: no test (p = 1)"});
}

TEST_CASE("stats compare: minimum attainable p") {
  CHECK(min_attainable_p_exceeds(3, 3));
  CHECK_FALSE(min_attainable_p_exceeds(4, 4));
  CHECK(min_attainable_p_exceeds(1, 38));
  CHECK_FALSE(min_attainable_p_exceeds(1, 39));
  CHECK(min_attainable_p_exceeds(38, 1));
  CHECK(min_attainable_p_exceeds(2, 7));
  CHECK_FALSE(min_attainable_p_exceeds(2, 8));
  CHECK(min_attainable_p_exceeds(3, 4));
  CHECK_FALSE(min_attainable_p_exceeds(3, 5));
  CHECK(min_attainable_p_exceeds(0, 10));
  CHECK(min_attainable_p_exceeds(4, 4, 0.01));  // 2/70 > 0.01
  const MannWhitney m = mann_whitney(std::vector<double>{1, 2, 3}, std::vector<double>{4, 5, 6});
  CHECK(m.p == 0.1);  // 2/20: the smallest possible
  REQUIRE(m.warnings.size() == 1);
  CHECK(m.warnings[0].kind == TestWarningKind::min_p_unattainable);
  CHECK(m.warnings[0].value == 0.1);
  CHECK(
      texts(m.warnings) ==
      std::vector<std::string>{"n=3 vs 3: the minimum attainable p is 0.1 > 0.05: no difference can ever be "
                               "significant at these sizes (4 vs 4 is the least; 10 per side is the floor)"});
  CHECK_THROWS_AS(mann_whitney(std::vector<double>{}, std::vector<double>{1.0}), Error);
}

TEST_CASE("stats compare: exact and normal regimes of Mann-Whitney") {
  // 50 vs 50, complete separation, no ties: still exact, p = 2/C(100, 50) (128-bit counts).
  std::vector<double> a(50), b(50);
  for (std::size_t i = 0; i < 50; ++i) {
    a[i] = static_cast<double>(i);
    b[i] = 100.0 + static_cast<double>(i);
  }
  const MannWhitney m = mann_whitney(a, b);
  CHECK(m.exact);
  CHECK(m.u == 0.0);
  CHECK(m.p == rel(2.0 / 100891344545564193334812497256.0, 1e-15));
  // 51 vs 50: normal approximation, exact p-values undefined.
  a.push_back(-1.0);
  const MannWhitney n = mann_whitney(a, b);
  CHECK_FALSE(n.exact);
  CHECK(std::isnan(n.p_exact_absdev));
  CHECK(std::isnan(n.p_exact_doubling));
  CHECK(n.p == n.p_normal);
  CHECK(n.p_benchstat == n.p_normal);
  CHECK(n.z == rel((0.0 - 51.0 * 50.0 / 2.0 + 0.5) / std::sqrt(51.0 * 50.0 * 102.0 / 12.0), kClosed));
  // With ties the exact limit is 25 per side.
  std::vector<double> c(26, 1.0), d(26, 2.0);
  c[0] = 2.0;
  CHECK_FALSE(mann_whitney(c, d).exact);
  c.pop_back();
  d.pop_back();
  CHECK(mann_whitney(c, d).exact);
}

TEST_CASE("stats compare: Moses CI order statistics") {
  struct Row {
    std::size_t m, n;
    double level;  // 1 - 2 P0(U <= k-1), exact (Python fractions)
  };
  const Row rows[] = {{5, 5, 0.9682539682539683},   {10, 10, 0.9567429474550218},
                      {20, 30, 0.9518705366822952}, {50, 50, 0.9504522764011537},
                      {60, 60, 0.9502930274934018}, {3, 40, 0.9555951705696459}};
  for (const Row& row : rows) {
    CAPTURE(row.m);
    CAPTURE(row.n);
    std::vector<double> base(row.m), variant(row.n);
    for (std::size_t i = 0; i < row.m; ++i) base[i] = 1.0 + 0.01 * static_cast<double>(i);
    for (std::size_t i = 0; i < row.n; ++i) variant[i] = 1.005 + 0.01 * static_cast<double>(i);
    const RatioCI hl = hodges_lehmann_ratio(base, variant);
    CHECK(hl.bounded);
    CHECK(hl.level == rel(row.level, kClosed));
    CHECK(hl.lo <= hl.estimate);
    CHECK(hl.estimate <= hl.hi);
  }
  // The largest exact tables: C(128, 64) = 2^124.2 and C(130, 60) = 2^125.6. Their levels come
  // from Python's big integers (the same recurrence, k = 1637 and 1681); computing C(m+n, m) by
  // multiplying before dividing overflowed 127 bits here (UBSan, CI at 60f02fa).
  for (const auto& [m, n, level] :
       {std::tuple{64, 64, 0.950356025477866}, std::tuple{60, 70, 0.9501295461494724}}) {
    std::vector<double> b(static_cast<std::size_t>(m)), v(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = 10.0 + 0.1 * static_cast<double>(i);
    for (std::size_t j = 0; j < v.size(); ++j) v[j] = 10.2 + 0.1 * static_cast<double>(j);
    const RatioCI exact = hodges_lehmann_ratio(b, v);
    const auto captured_m = m;  // clang 14 cannot capture a structured binding
    CAPTURE(captured_m);
    CHECK(exact.level == rel(level, 1e-12));
  }
  // 70 vs 70: C(140, 70) > 2^126, normal approximation; conservative by construction.
  std::vector<double> base(70), variant(70);
  for (std::size_t i = 0; i < 70; ++i) {
    base[i] = 10.0 + 0.1 * static_cast<double>(i);
    variant[i] = 1.02 * base[i];  // a pure multiplicative shift
  }
  const RatioCI big = hodges_lehmann_ratio(base, variant);
  CHECK(big.level >= 0.95);
  CHECK(big.level < 0.9505);
  CHECK(big.estimate == rel(1.02, 1e-3));
  // 2 vs 2 cannot give 95%: unbounded, never clipped.
  const RatioCI none = hodges_lehmann_ratio(std::vector<double>{1, 2}, std::vector<double>{3, 4});
  CHECK_FALSE(none.bounded);
  CHECK(none.lo == 0.0);
  CHECK(none.hi == kInf);
  CHECK(none.estimate == rel(std::sqrt(6.0), kClosed));  // D = ln{1.5, 2, 3, 4}: exp((ln 2 + ln 3)/2)
  CHECK_THROWS_AS(hodges_lehmann_ratio(std::vector<double>{1, -2}, std::vector<double>{3, 4}), Error);
}

TEST_CASE("stats compare: Fieller unbounded cases") {
  // The denominator's mean is not clearly away from 0: g >= 1.
  const RatioCI f =
      fieller_ratio_of_means(std::vector<double>{10, 11, 12, 13}, std::vector<double>{1, -0.5, 2, 0.1});
  CHECK_FALSE(f.bounded);
  CHECK(f.lo == -kInf);
  CHECK(f.hi == kInf);
  CHECK(f.estimate == rel(11.5 / 0.65, kClosed));
  // One value on a side: no variance, no interval.
  const RatioCI one = fieller_ratio_of_means(std::vector<double>{2}, std::vector<double>{1, 1.1});
  CHECK_FALSE(one.bounded);
  // No spread at all: the ratio is known.
  const RatioCI exact = fieller_ratio_of_means(std::vector<double>{2, 2}, std::vector<double>{4, 4});
  CHECK(exact.bounded);
  CHECK(exact.lo == 0.5);
  CHECK(exact.hi == 0.5);
}

TEST_CASE("stats compare: V6 paired, 8 repeats") {
  const auto& v = vectors()["V6_paired"];
  const std::vector<double> base = values(v["base"]), variant = values(v["variant"]);
  const Paired p = paired(base, variant);
  REQUIRE(p.ratios.size() == 8);
  for (std::size_t i = 0; i < 8; ++i) CHECK(p.ratios[i] == v["ratios"][i].get<double>());
  CHECK(p.median == rel(v["median_ratio"].get<double>(), kClosed));
  CHECK(p.min == v["min_ratio"].get<double>());
  CHECK(p.max == v["max_ratio"].get<double>());
  CHECK(p.gm == rel(v["geomean_ratio"].get<double>(), kClosed));
  CHECK(p.mean_log == rel(v["mean_log_ratio"].get<double>(), kClosed));
  CHECK(p.sd_log == rel(v["sd_log_ratio"].get<double>(), kClosed));
  CHECK(t_quantile(0.975, 7) == rel(v["t_0975_df7"].get<double>(), kT));
  CHECK(p.gm_lo == rel(v["geomean_ci95"][0].get<double>(), kT));
  CHECK(p.gm_hi == rel(v["geomean_ci95"][1].get<double>(), kT));
  REQUIRE(p.median_ci);
  CHECK(p.median_ci->lo == v["median_ratio_ci95"][0].get<double>());
  CHECK(p.median_ci->hi == v["median_ratio_ci95"][1].get<double>());
  CHECK(p.median_ci->level == v["median_ratio_ci_achieved"].get<double>());
  CHECK(p.w_plus == v["wilcoxon_Wplus"].get<double>());
  CHECK(p.p_wilcoxon == 2.0 / 256);
  CHECK(p.p_wilcoxon == v["wilcoxon_p_exact"].get<double>());
  CHECK(p.p_sign == 2.0 / 256);
  CHECK(p.p_sign == v["sign_test_p"].get<double>());
  CHECK(p.p_t == rel(v["paired_t_p"].get<double>(), kT));
  CHECK_FALSE(p.order_effect_p);  // no orders recorded
  CHECK(p.warnings.empty());

  const RatioCI unpaired = fieller_ratio_of_means(variant, base);
  CHECK(unpaired.estimate == rel(v["unpaired_fieller_for_contrast"][0].get<double>(), kClosed));
  CHECK(unpaired.lo == rel(v["unpaired_fieller_for_contrast"][1].get<double>(), kT));
  CHECK(unpaired.hi == rel(v["unpaired_fieller_for_contrast"][2].get<double>(), kT));

  // "improved" in the vectors: hi < 1 - θ.
  CHECK(classify(p.gm_lo, p.gm_hi) == Verdict::faster);
}

TEST_CASE("stats compare: V7 A/A pass") {
  const auto& v = vectors()["V7_AA_pass"];
  const Paired p = paired(values(v["base"]), values(v["base2"]));
  CHECK(p.gm == rel(v["geomean_ratio"].get<double>(), kClosed));
  CHECK(p.gm_lo == rel(v["geomean_ci95"][0].get<double>(), kT));
  CHECK(p.gm_hi == rel(v["geomean_ci95"][1].get<double>(), kT));
  CHECK(p.median == rel(v["median_ratio"].get<double>(), kClosed));
  CHECK(p.min == rel(v["min_ratio"].get<double>(), kClosed));
  CHECK(p.max == rel(v["max_ratio"].get<double>(), kClosed));
  REQUIRE(p.median_ci);
  CHECK(p.median_ci->lo == rel(v["median_ratio_ci95"][0].get<double>(), kClosed));
  CHECK(p.median_ci->hi == rel(v["median_ratio_ci95"][1].get<double>(), kClosed));
  CHECK(p.p_wilcoxon == 0.6953125);  // V7 in the vectors: not the criterion, but exact
  CHECK(p.p_t == doctest::Approx(0.621).epsilon(1e-3));

  const AaCheck aa = aa_check(p);
  CHECK(aa.outcome == AaOutcome::pass);
  CHECK(to_string(aa.outcome) == "PASS");
  CHECK(aa.gm == p.gm);
  CHECK(aa.median_ratio == p.median);
  CHECK(aa.max_abs_dev == rel(v["max_ratio"].get<double>() - 1.0, kClosed));  // 1.00402 beats 0.99604
  CHECK(aa.halfwidth == rel(p.gm_hi / p.gm - 1.0, kClosed));                  // exp(h) - 1 > 1 - exp(-h)
  CHECK(aa.halfwidth < 0.01);
  CHECK(classify(p.gm_lo, p.gm_hi) == Verdict::equivalent);
}

TEST_CASE("stats compare: V7b A/A fail, biased") {
  const auto& v = vectors()["V7b_AA_fail"];
  const Paired p = paired(values(v["base"]), values(v["base2"]));
  CHECK(p.gm == rel(v["geomean_ratio"].get<double>(), kClosed));
  CHECK(p.gm_lo == rel(v["geomean_ci95"][0].get<double>(), kT));
  CHECK(p.gm_hi == rel(v["geomean_ci95"][1].get<double>(), kT));
  CHECK(p.median == rel(v["median_ratio"].get<double>(), kClosed));
  const AaCheck aa = aa_check(p);
  CHECK(aa.outcome == AaOutcome::fail_biased);
  CHECK(to_string(aa.outcome) == "FAIL biased");
}

TEST_CASE("stats compare: A/A fail, imprecise") {
  // Symmetric ±3% noise: the CI contains 1 but is far wider than ±1%.
  const Paired p = paired(std::vector<double>{100, 100, 100, 100, 100, 100},
                          std::vector<double>{97, 103, 98, 102, 96, 104});
  const AaCheck aa = aa_check(p);
  CHECK(aa.gm_lo < 1.0);
  CHECK(aa.gm_hi > 1.0);
  CHECK(aa.outcome == AaOutcome::fail_imprecise);
  CHECK(to_string(aa.outcome) == "FAIL imprecise");
  CHECK(aa.max_abs_dev == rel(0.04, kClosed));
  // Same data with a 5% threshold: passes.
  CHECK(aa_check(p, 0.05).outcome == AaOutcome::pass);
}

TEST_CASE("stats compare: signed-rank and sign tests drop zeros") {
  const Paired p =
      paired(std::vector<double>{1, 1, 1, 1, 1, 1, 1}, std::vector<double>{1, 1.1, 1.2, 0.9, 1.3, 1.4, 1.5});
  // |d| ranks: ln1.1 1, |ln0.9| 2 (negative), ln1.2 3, ln1.3 4, ln1.4 5, ln1.5 6.
  CHECK(p.w_plus == 19.0);
  CHECK(p.p_wilcoxon == 6.0 / 64);  // W+ >= 19 or <= 2: 3 + 3 of 64 sign patterns
  CHECK(p.p_sign == 14.0 / 64);     // 2·P(Bin(6, 1/2) <= 1)
  CHECK(contains(texts(p.warnings), "1 zero log ratios dropped from the signed-rank and sign tests"));
  CHECK(p.median_ci);  // n = 7 >= 6
}

TEST_CASE("stats compare: exact signed rank with ties equals enumeration") {
  // Ties inside the positive side (1.01 three times), different magnitudes on the negative side.
  const std::vector<double> base(9, 100.0);
  const std::vector<double> variant{101, 99, 102, 101, 103, 98.5, 104, 101, 97};
  const Paired p = paired(base, variant);
  std::vector<double> d;
  for (std::size_t i = 0; i < base.size(); ++i) d.push_back(std::log(variant[i] / base[i]));
  std::vector<double> abs_d;
  for (double x : d) abs_d.push_back(std::fabs(x));
  std::vector<std::int64_t> ranks;
  std::int64_t observed = 0, total_rank = 0;
  for (std::size_t i = 0; i < d.size(); ++i) {
    ranks.push_back(doubled_rank(abs_d, abs_d[i]));
    total_rank += ranks.back();
    if (d[i] > 0) observed += ranks.back();
  }
  std::uint64_t extreme = 0;
  const std::int64_t center = total_rank / 2;
  for (std::uint32_t mask = 0; mask < (1u << d.size()); ++mask) {
    std::int64_t w = 0;
    for (std::size_t i = 0; i < d.size(); ++i) {
      if (mask & (1u << i)) w += ranks[i];
    }
    extreme += std::llabs(w - center) >= std::llabs(observed - center) ? 1 : 0;
  }
  CHECK(p.w_plus == static_cast<double>(observed) / 2.0);
  CHECK(p.p_wilcoxon == fraction(extreme, 1u << d.size()));
}

TEST_CASE("stats compare: order effect, AB vs BA") {
  const std::vector<double> base(8, 100.0);
  // ABBA counterbalancing; the variant looks 2% faster when it runs second (AB) and 2% slower
  // when it runs first (BA): a carry-over effect, not a real difference.
  const bool order[] = {false, true, true, false, false, true, true, false};
  const std::vector<double> variant{98, 102, 102.1, 98.1, 97.9, 101.9, 102.05, 98.05};
  const Paired p = paired(base, variant, order);
  REQUIRE(p.order_effect_p);
  CHECK(*p.order_effect_p < 1e-6);
  REQUIRE(p.warnings.size() == 1);
  CHECK(p.warnings[0].kind == TestWarningKind::order_effect);
  CHECK(p.warnings[0].value == *p.order_effect_p);
  CHECK(texts(p.warnings)[0].rfind("order effect: log ratios of AB and BA repeats differ (Welch p = ", 0) ==
        0);
  // Fewer than 8 repeats, or a single order: no test.
  const bool all_ab[8] = {};
  CHECK_FALSE(paired(base, variant, all_ab).order_effect_p);
  const bool short_order[] = {false, true, true, false, false, true, true};
  CHECK_FALSE(paired(std::span(base).first(7), std::span(variant).first(7), short_order).order_effect_p);
  const bool wrong_size[] = {false, true};
  CHECK_THROWS_AS(paired(base, variant, wrong_size), Error);
}

TEST_CASE("stats compare: paired edge cases") {
  const Paired one = paired(std::vector<double>{100}, std::vector<double>{99});
  CHECK(one.gm == rel(0.99, kClosed));
  CHECK(one.gm_lo == 0.0);
  CHECK(one.gm_hi == kInf);
  CHECK(std::isnan(one.sd_log));
  CHECK(std::isnan(one.p_t));
  CHECK_FALSE(one.median_ci);
  CHECK(classify(one.gm_lo, one.gm_hi) == Verdict::inconclusive);
  CHECK(contains(texts(one.warnings), "n=1 < 2 pairs: no geometric-mean CI or paired t test"));
  CHECK(contains(texts(one.warnings), "n=1 pairs: too few for a 95% median-ratio CI"));
  CHECK(contains(texts(one.warnings),
                 "1 nonzero pairs: the signed-rank and sign tests cannot reach p <= 0.05"));
  const Paired same = paired(std::vector<double>{1, 2, 3}, std::vector<double>{1, 2, 3});
  CHECK(same.p_wilcoxon == 1.0);
  CHECK(same.p_sign == 1.0);
  CHECK(contains(texts(same.warnings), "all log ratios are 0: no signed-rank or sign test (p = 1)"));
  CHECK_THROWS_AS(paired(std::vector<double>{1, 2}, std::vector<double>{1}), Error);
  CHECK_THROWS_AS(paired(std::vector<double>{1, 0}, std::vector<double>{1, 1}), Error);
}

TEST_CASE("stats compare: classify at the boundaries") {
  const double lo_band = 1.0 - 0.01, hi_band = 1.0 + 0.01;
  CHECK(classify(0.95, std::nextafter(lo_band, 0.0)) == Verdict::faster);
  CHECK(classify(0.95, lo_band) == Verdict::inconclusive);  // hi = 1 - θ is not < 1 - θ
  CHECK(classify(std::nextafter(hi_band, 2.0), 1.05) == Verdict::slower);
  CHECK(classify(hi_band, 1.05) == Verdict::inconclusive);
  CHECK(classify(lo_band, hi_band) == Verdict::equivalent);  // both ends inclusive
  CHECK(classify(std::nextafter(lo_band, 0.0), hi_band) == Verdict::inconclusive);
  CHECK(classify(lo_band, std::nextafter(hi_band, 2.0)) == Verdict::inconclusive);
  CHECK(classify(0.995, 1.005) == Verdict::equivalent);
  CHECK(classify(0.98, 1.02) == Verdict::inconclusive);
  CHECK(classify(NAN, NAN) == Verdict::inconclusive);
  CHECK(classify(0.96, 0.97, 0.05) == Verdict::equivalent);  // inside ±5%
  CHECK(classify(0.96, 0.97, 0.0) == Verdict::faster);
  CHECK(to_string(Verdict::faster) == "faster");
  CHECK(to_string(Verdict::slower) == "slower");
  CHECK(to_string(Verdict::equivalent) == "equivalent");
  CHECK(to_string(Verdict::inconclusive) == "inconclusive");
}

TEST_CASE("stats compare: Holm-Bonferroni") {
  // R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") = 0.03 0.06 0.06 0.02
  const std::vector<double> adjusted = holm_bonferroni(std::vector<double>{0.01, 0.04, 0.03, 0.005});
  REQUIRE(adjusted.size() == 4);
  CHECK(adjusted[0] == rel(0.03, kClosed));
  CHECK(adjusted[1] == rel(0.06, kClosed));  // raised to the running max
  CHECK(adjusted[2] == rel(0.06, kClosed));
  CHECK(adjusted[3] == rel(0.02, kClosed));
  CHECK(holm_bonferroni(std::vector<double>{0.5, 0.6}) == std::vector<double>{1.0, 1.0});
  CHECK(holm_bonferroni(std::vector<double>{}).empty());
  CHECK_THROWS_AS(holm_bonferroni(std::vector<double>{0.1, 1.5}), Error);
  CHECK_THROWS_AS(holm_bonferroni(std::vector<double>{NAN}), Error);
}

TEST_CASE("stats compare: V15 SplitMix64") {
  const auto& v = vectors()["V15_splitmix64"];
  SplitMix64 zero(0);
  for (const auto& hex : v["seed0_first3"]) {
    CHECK(zero.next() == std::stoull(hex.get<std::string>(), nullptr, 16));
  }
  SplitMix64 indices(42);
  for (const auto& index : v["seed42_index10_first5"]) CHECK(indices.below(10) == index.get<std::size_t>());
  // A resample draws one index per element, in order: the same five indices.
  const std::vector<double> tens{0, 10, 20, 30, 40, 50, 60, 70, 80, 90};
  std::vector<double> drawn(5);
  SplitMix64 again(42);
  resample(tens, drawn, again);
  CHECK(drawn == std::vector<double>{70, 10, 20, 30, 0});
}

}  // namespace noisefloor::stats

TEST_CASE(
    "hodges-lehmann: the order statistics selected without forming D equal the sorted D's, value for value") {
  // Against the definition (§3.5.2): every ln v - ln b formed and sorted. Sizes from 1 to 90 per
  // side, values with and without ties (rounded to a coarse grid), 200 cases.
  noisefloor::stats::SplitMix64 rng(20261201);
  const auto uniform = [&] { return static_cast<double>(rng.next() >> 11) * 0x1.0p-53; };
  for (int c = 0; c < 200; ++c) {
    const std::size_t m = 1 + rng.next() % 90, n = 1 + rng.next() % 90;
    const bool ties = c % 2 == 0;
    std::vector<double> base(m), variant(n);
    for (auto& x : base) x = ties ? 10 + std::round(uniform() * 8) / 4 : 10 + uniform() * 2;
    for (auto& x : variant) x = ties ? 10.5 + std::round(uniform() * 8) / 4 : 10.4 + uniform() * 2;
    std::vector<double> d;
    for (double v : variant)
      for (double b : base) d.push_back(std::log(v) + -std::log(b));
    std::sort(d.begin(), d.end());
    const std::size_t total = d.size();
    const auto r = noisefloor::stats::hodges_lehmann_ratio(base, variant);
    const double median = total % 2 ? d[total / 2] : 0.5 * (d[total / 2 - 1] + d[total / 2]);
    CHECK(r.estimate == std::exp(median));
    if (r.bounded) {
      // The CI ends are D_(k) and D_(mn+1-k) for one k.
      bool found = false;
      for (std::size_t k = 1; k <= total && !found; ++k)
        found = std::exp(d[k - 1]) == r.lo && std::exp(d[total - k]) == r.hi;
      CHECK_MESSAGE(found, "the interval's ends are not D_(k) and D_(mn+1-k) (m=" << m << ", n=" << n << ")");
    }
  }
}

TEST_CASE("hodges-lehmann: 200 000 values per side in linear memory") {
  // 4·10¹⁰ pairwise differences: forming them would take 320 GB. A shift of exactly +10% on a
  // grid of distinct values: the estimate is 1.1 to the last digit of the logs' arithmetic.
  std::vector<double> base, variant;
  for (int i = 0; i < 200000; ++i) {
    base.push_back(100 + i * 0.001);
    variant.push_back((100 + i * 0.001) * 1.1);
  }
  const auto r = noisefloor::stats::hodges_lehmann_ratio(base, variant);
  CHECK(r.estimate == doctest::Approx(1.1).epsilon(1e-12));
  REQUIRE(r.bounded);
  CHECK(r.lo < r.estimate);
  CHECK(r.estimate < r.hi);
}

TEST_CASE("stats compare: Mann-Whitney beyond the exact sizes walks the two sorted sides, ties included") {
  // 60 vs 70 with many ties (values 0..6 and 0..8.5): U, the tie-corrected z and p as Python
  // computes them from the mid-ranks of the pooled values.
  std::vector<double> a(60), b(70);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<double>(i % 7);
  for (std::size_t i = 0; i < b.size(); ++i)
    b[i] = static_cast<double>(i % 9) + 0.5 * static_cast<double>(i % 2);
  const auto m = noisefloor::stats::mann_whitney(a, b);
  CHECK_FALSE(m.exact);
  CHECK(m.u == 1512.0);
  CHECK(m.z == doctest::Approx(-2.7527920322515813).epsilon(1e-12));
  CHECK(m.p == doctest::Approx(0.005908941941143212).epsilon(1e-12));
  // benchstat 712aea8 on the same ranks (every value + 1: benchstat puts 0 ns/op in a table of
  // its own): p = 0.005908941941143213.
  CHECK(m.p_benchstat == doctest::Approx(0.005908941941143213).epsilon(1e-12));
  // The sides' order does not matter: U is the other side's, z flips, p stays.
  const auto swapped = noisefloor::stats::mann_whitney(b, a);
  CHECK(swapped.u == 60.0 * 70.0 - 1512.0);
  CHECK(swapped.p == doctest::Approx(m.p).epsilon(1e-12));
}

namespace noisefloor::stats {

TEST_CASE("stats compare: p_benchstat is the p benchstat prints, asymmetric ties included") {
  // Values from benchstat 712aea8 (`benchstat -format csv old.txt new.txt`, old = a): its printed
  // "p=" and, where p <= 1, the exact double found by bisecting -alpha (the delta turns from "~"
  // to a percentage when p <= alpha). Our p (|U − μ|) beside it.
  using V = std::vector<double>;
  struct Case {
    const char* what;
    V a, b;
    double benchstat;  // the value benchstat computes
    const char* printed;
    double p;  // ours
  };
  const Case cases[] = {
      // The doubled tail above 1: benchstat prints it as it is.
      {"1 vs {1, 2}", V{1}, V{1, 2}, 4.0 / 3, "p=1.333", 1.0},
      {"two levels, above 1", V{1, 1, 2, 2}, V{1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2}, 86.0 / 65, "p=1.323", 1.0},
      // Asymmetric ties (the cases of the tests above and of tests/data/compare/verify.py).
      {"asymmetric a", V{1, 1, 2, 2, 2}, V{2, 3, 3, 3}, 0.06349206349206349, "p=0.063", 2.0 / 63},
      {"asymmetric b", V{1, 1, 1, 2, 3}, V{2, 2, 2, 3}, 0.2222222222222222, "p=0.222", 19.0 / 63},
      {"asymmetric c", V{10, 10, 10, 10}, V{10, 10, 11, 12, 12, 12}, 0.14285714285714285, "p=0.143",
       11.0 / 105},
      // The bug report: 4 vs 11 with heavy ties, benchstat p=0.051 where ours is 0.037 (10/273).
      // It takes three values (old all on the lowest); two values give 0.051 beside 1/39 or 3/39.
      {"4 vs 11, the bug report", V{10, 10, 10, 10}, V{10, 10, 10, 11, 11, 12, 12, 12, 12, 12, 12},
       0.05128205128205128, "p=0.051", 10.0 / 273},
      {"4 vs 11, two levels", V{10, 10, 10, 10}, V{10, 10, 10, 11, 11, 11, 11, 11, 11, 11, 11},
       0.05128205128205128, "p=0.051", 1.0 / 39},
      // Two values: benchstat's count takes in the lowest arrangement below the threshold
      // (2·330/1365 where nothing is at or below it) ...
      {"4 vs 11, two levels, counted", V{1, 2, 2, 2}, V{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2}, 0.4835164835164835,
       "p=0.484", 3.0 / 91},
      // ... or not, farther below: p = 0, and benchstat prints no p at all ("n=4+11").
      {"4 vs 11, two levels, zero", V{2, 2, 2, 2}, V{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2}, 0.0, "", 1.0 / 273},
      {"U at its mean", V{1, 4}, V{2, 3}, 1.0, "p=1.000", 1.0},
      {"all equal", V{5, 5, 5, 5}, V{5, 5, 5, 5}, 1.0, "p=1.000", 1.0},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    const MannWhitney m = mann_whitney(c.a, c.b);
    CHECK(m.exact);
    if (c.benchstat == 0.0) {
      CHECK(m.p_benchstat == 0.0);
    } else {
      CHECK(m.p_benchstat == rel(c.benchstat, 1e-14));
    }
    if (*c.printed) CHECK(fmt::format("p={:.3f}", m.p_benchstat) == c.printed);
    CHECK(m.p_benchstat_above_1 == (c.benchstat > 1.0));
    CHECK(m.p == rel(c.p, 1e-14));
  }
  // The normal approximation: benchstat's p is ours.
  std::vector<double> a(13, 1.0), b(5, 1.0);  // 26 vs 26 with ties: beyond the exact sizes
  a.resize(26, 2.0);
  b.resize(15, 2.0);
  b.resize(26, 3.0);
  const MannWhitney n = mann_whitney(a, b);
  CHECK_FALSE(n.exact);
  CHECK(n.p_benchstat == rel(0.0005650228013784453, 1e-12));
  CHECK(n.p_benchstat == n.p);
  std::vector<double> c(51), d(50);  // 51 vs 50 without ties
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = 1.0 + static_cast<double>(i);
  for (std::size_t j = 0; j < 25; ++j) {
    d[j] = 100.0 + static_cast<double>(j);
    d[25 + j] = 20.5 + static_cast<double>(j);
  }
  const MannWhitney nn = mann_whitney(c, d);
  CHECK_FALSE(nn.exact);
  CHECK(nn.p_benchstat == rel(5.6199935471655754e-08, 1e-10));
}

}  // namespace noisefloor::stats
