// stats/summary: per-condition statistics against the public vectors
// (tests/data/stats/stats-vectors.json) and the edge cases of §3.2–3.4. Tolerances: 1e-12 relative for closed
// forms, 1e-9 with t quantiles.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <cmath>
#include <fstream>
#include <numeric>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "model/errors.hpp"
#include "render/json.hpp"
#include "render/warnings.hpp"
#include "stats/summary.hpp"
#include "test_support.hpp"

namespace noisefloor::stats {
namespace {

using testing::contains;
// A summary's warnings as render/ writes them (the sentences are the specification's).
std::vector<std::string> texts(const std::vector<SummaryWarning>& w) {
  return render::summary_warning_texts(w);
}
using testing::kClosed;
using testing::kT;
using testing::rel;
using testing::values;
using testing::vectors;

std::vector<double> iota_values(std::size_t n) {
  std::vector<double> x(n);
  std::iota(x.begin(), x.end(), 1.0);
  return x;
}

}  // namespace

TEST_CASE("stats summary: V1 descriptive, n = 5") {
  const auto& v = vectors()["V1_descriptive_small"];
  const Summary s = summarize(values(v["x"]));
  CHECK(s.n == 5);
  CHECK(s.mean == v["mean"].get<double>());
  CHECK(s.median == v["median"].get<double>());
  CHECK(s.min == 1.0);
  CHECK(s.max == 5.0);
  REQUIRE(s.stddev);
  CHECK(*s.stddev == rel(v["stddev"].get<double>(), kClosed));
  REQUIRE(s.cv_pct);
  CHECK(*s.cv_pct == rel(v["cv_pct"].get<double>(), kClosed));
  CHECK(s.mad == v["mad"].get<double>());
  CHECK(t_quantile(0.975, 4) == rel(v["t_0975_df4"].get<double>(), kT));
  CHECK(t_quantile(0.975, 4) == rel(2.7764451051977943, kT));  // mpmath, as in the vectors
  REQUIRE(s.mean_ci);
  CHECK(s.mean_ci->lo == rel(v["mean_ci95"][0].get<double>(), kT));
  CHECK(s.mean_ci->hi == rel(v["mean_ci95"][1].get<double>(), kT));
  CHECK(s.mean_ci->level == 0.95);
  // "(-inf,+inf): n=5 < 6": no median CI, and a warning that says so.
  CHECK_FALSE(s.median_ci);
  CHECK_FALSE(s.median_rel_halfwidth);
  CHECK(contains(texts(s.warnings), "n=5 < 6: no 95% median CI"));
  CHECK(s.band == Band::do_not_trust);
  CHECK_FALSE(s.lag1);  // n < 8
}

TEST_CASE("stats summary: V2 timing with one outlier") {
  const auto& v = vectors()["V2_outlier"];
  const std::vector<double> x = values(v["x"]);
  const Summary s = summarize(x);
  CHECK(s.n == 10);
  CHECK(s.mean == rel(v["mean"].get<double>(), kClosed));
  CHECK(s.median == v["median"].get<double>());
  REQUIRE(s.stddev);
  CHECK(*s.stddev == rel(v["stddev"].get<double>(), kClosed));
  REQUIRE(s.cv_pct);
  CHECK(*s.cv_pct == rel(v["cv_pct"].get<double>(), kClosed));
  CHECK(s.mad == v["mad"].get<double>());
  CHECK(s.sigma_mad == rel(v["sigma_mad"].get<double>(), kClosed));
  REQUIRE(s.rcv_pct);
  CHECK(*s.rcv_pct == rel(v["robust_cv_pct"].get<double>(), kClosed));
  CHECK(s.q1 == rel(v["q1_type7"].get<double>(), kClosed));
  CHECK(s.q3 == rel(v["q3_type7"].get<double>(), kClosed));
  CHECK(s.iqr == rel(v["iqr"].get<double>(), kClosed));
  CHECK(s.q1 - 1.5 * s.iqr == rel(v["tukey_mild"][0].get<double>(), kClosed));
  CHECK(s.q3 + 1.5 * s.iqr == rel(v["tukey_mild"][1].get<double>(), kClosed));
  CHECK(s.q1 - 3.0 * s.iqr == rel(v["tukey_severe"][0].get<double>(), kClosed));
  CHECK(s.q3 + 3.0 * s.iqr == rel(v["tukey_severe"][1].get<double>(), kClosed));
  CHECK(s.tukey_severe == 1);  // 150
  CHECK(s.tukey_mild == 0);
  CHECK(t_quantile(0.975, 9) == rel(v["t_0975_df9"].get<double>(), kT));
  REQUIRE(s.mean_ci);
  CHECK(s.mean_ci->lo == rel(v["mean_ci95"][0].get<double>(), kT));
  CHECK(s.mean_ci->hi == rel(v["mean_ci95"][1].get<double>(), kT));
  REQUIRE(s.median_ci);
  CHECK(s.median_ci->lo == v["median_ci95"][0].get<double>());
  CHECK(s.median_ci->hi == v["median_ci95"][1].get<double>());
  CHECK(s.median_ci->level == v["median_ci_achieved"].get<double>());
  const auto order = median_ci_order(10);
  REQUIRE(order);
  CHECK(order->k == v["median_ci_orders"][0].get<std::size_t>());
  CHECK(10 - order->k + 1 == v["median_ci_orders"][1].get<std::size_t>());
  REQUIRE(s.median_rel_halfwidth);
  CHECK(*s.median_rel_halfwidth == rel(0.03, kClosed));  // max(103/100 - 1, 1 - 98/100)

  REQUIRE(s.modified_z.size() == 10);
  REQUIRE(s.outliers.size() == 10);
  for (std::size_t i = 0; i < 10; ++i) {
    CAPTURE(i);
    const double expected = v["modified_z"][i].get<double>();
    if (expected == 0.0) {
      CHECK(s.modified_z[i] == 0.0);
    } else {
      CHECK(s.modified_z[i] == rel(expected, kClosed));
    }
    const bool flagged = v["outlier_flags_modz_gt_3_5"][i].get<bool>();
    // 150 has M = 22.5 > 10: extreme as well.
    CHECK(s.outliers[i] == (flagged ? Outlier::extreme : Outlier::none));
  }
  CHECK((150.0 - s.median) / s.mad == rel(v["hyperfine_score_of_150"].get<double>(), kClosed));

  // The vectors leave lag1 null; §3.2 defines it for n >= 8: Σ(dev_t dev_t+1)/Σdev² = -294/2278.
  REQUIRE(s.lag1);
  CHECK(*s.lag1 == rel(-294.0 / 2278.0, kClosed));
  CHECK_FALSE(s.drift);  // 0.129 < 2/sqrt(10)
  CHECK(s.shape);        // CV/rCV = 6.8
  CHECK(s.band == Band::do_not_trust);
  CHECK(texts(s.warnings) ==
        std::vector<std::string>{
            "heavy tail / outliers / multimodal (CV/rCV = 6.8)",
            "1 of 10 samples are outliers (|modified z| > 3.5), 1 of them extreme (> 10)"});

  std::vector<double> without;
  for (double value : x) {
    if (value != 150.0) without.push_back(value);
  }
  const Summary w = summarize(without);
  const auto& wv = v["without_150"];
  CHECK(w.mean == rel(wv["mean"].get<double>(), kClosed));
  CHECK(*w.stddev == rel(wv["stddev"].get<double>(), kClosed));
  CHECK(*w.cv_pct == rel(wv["cv_pct"].get<double>(), kClosed));
  CHECK(w.band == Band::excellent);
  CHECK_FALSE(w.shape);
}

TEST_CASE("stats summary: V9 stddev is two-pass, not the one-pass formula") {
  const auto& v = vectors()["V9_numerics"];
  const Summary s = summarize(values(v["x"]));
  REQUIRE(s.stddev);
  CHECK(*s.stddev == rel(v["stddev_two_pass"].get<double>(), kClosed));
  CHECK(s.mean == 1000000002.0);
}

TEST_CASE(
    "stats summary: the building blocks on exact values (median by selection, MAD, type 7, percentile)") {
  const auto& v = vectors()["V2_outlier"];
  const std::vector<double> x = values(v["x"]);
  CHECK(median(x) == v["median"].get<double>());
  std::vector<double> odd{5, 1, 4, 2, 3}, even{4, 1, 3, 2};
  CHECK(median_in_place(odd) == 3);
  CHECK(median_in_place(even) == 2.5);
  CHECK(std::isnan(median_in_place(std::span<double>{})));
  CHECK(mad(x, 100) == v["mad"].get<double>());
  CHECK(mad(std::vector<double>{1, 2, 3, 4, 5}, 3) == vectors()["V1_descriptive_small"]["mad"].get<double>());
  std::vector<double> sorted = x;
  std::sort(sorted.begin(), sorted.end());
  CHECK(quantile_type7(sorted, 0.25) == v["q1_type7"].get<double>());
  CHECK(quantile_type7(sorted, 0.75) == v["q3_type7"].get<double>());
  CHECK(quantile_type7(sorted, 0) == 97);
  CHECK(quantile_type7(sorted, 1) == 150);
  CHECK(quantile_type7(std::vector<double>{7}, 0.3) == 7);
  // 1…101 in any order: at 50% h = 25 and 75 exactly; at 95% h = 2.5 and 97.5 up to the rounding
  // of (1 − 0.95)/2, halfway between neighbours.
  std::vector<double> hundred(101);
  for (std::size_t i = 0; i < hundred.size(); ++i) hundred[i] = static_cast<double>((i * 37) % 101 + 1);
  const Interval half = percentile_interval(hundred, 0.5);
  CHECK(half.lo == 26);
  CHECK(half.hi == 76);
  CHECK(half.level == 0.5);
  const Interval p = percentile_interval(hundred, 0.95);
  CHECK(p.lo == rel(3.5, kClosed));
  CHECK(p.hi == rel(98.5, kClosed));
}

TEST_CASE("stats summary: V13 n = 2") {
  const auto& v = vectors()["V13_tiny_n2"];
  const Summary s = summarize(values(v["x"]));
  CHECK(s.mean == v["mean"].get<double>());
  CHECK(*s.stddev == rel(v["stddev"].get<double>(), kClosed));
  CHECK(*s.cv_pct == rel(v["cv_pct"].get<double>(), kClosed));
  CHECK(t_quantile(0.975, 1) == rel(v["t_0975_df1"].get<double>(), kT));
  REQUIRE(s.mean_ci);
  CHECK(s.mean_ci->lo == rel(v["mean_ci95"][0].get<double>(), kT));
  CHECK(s.mean_ci->hi == rel(v["mean_ci95"][1].get<double>(), kT));
  CHECK_FALSE(s.median_ci);  // "Median CI none"
  CHECK(texts(s.warnings) == std::vector<std::string>{"n=2 < 6: no 95% median CI"});
}

TEST_CASE("stats summary: n = 0 has no numbers at all") {
  const Summary s = summarize(std::vector<double>{});
  CHECK(s.n == 0);
  CHECK(std::isnan(s.mean));
  CHECK(std::isnan(s.median));
  CHECK(std::isnan(s.min));
  CHECK(std::isnan(s.max));
  CHECK_FALSE(s.stddev);
  CHECK_FALSE(s.cv_pct);
  CHECK_FALSE(s.rcv_pct);
  CHECK_FALSE(s.mean_ci);
  CHECK_FALSE(s.median_ci);
  CHECK(s.outliers.empty());
  CHECK(s.modified_z.empty());
  CHECK(s.band == Band::insufficient);
  CHECK(texts(s.warnings) == std::vector<std::string>{"no samples"});
}

TEST_CASE("stats summary: n = 1 has a location but no spread") {
  const Summary s = summarize(std::vector<double>{42.5});
  CHECK(s.n == 1);
  CHECK(s.mean == 42.5);
  CHECK(s.median == 42.5);
  CHECK(s.min == 42.5);
  CHECK(s.max == 42.5);
  CHECK_FALSE(s.stddev);
  CHECK_FALSE(s.cv_pct);
  CHECK_FALSE(s.rcv_pct);
  CHECK(std::isnan(s.mad));
  CHECK(std::isnan(s.iqr));
  CHECK_FALSE(s.mean_ci);
  CHECK_FALSE(s.median_ci);
  CHECK(s.outliers == std::vector<Outlier>{Outlier::none});
  CHECK(s.modified_z.empty());
  CHECK(s.band == Band::insufficient);
  CHECK(texts(s.warnings) ==
        std::vector<std::string>{"n=1 < 2: no stddev, CV or mean CI", "n=1 < 6: no 95% median CI"});
}

TEST_CASE("stats summary: MAD = 0 falls back to the MeanAD") {
  const Summary s = summarize(std::vector<double>{10, 10, 10, 11, 10, 10, 10});
  CHECK(s.mad == 0.0);
  CHECK(s.sigma_mad == 0.0);
  REQUIRE(s.rcv_pct);
  CHECK(*s.rcv_pct == 0.0);
  // MeanAD = 1/7, so M(11) = 1 / (1.2533141 / 7): an outlier, not extreme (hyperfine's epsilon
  // division would call it extreme).
  REQUIRE(s.modified_z.size() == 7);
  CHECK(s.modified_z[3] == rel(7.0 / 1.2533141, kClosed));
  CHECK(s.modified_z[0] == 0.0);
  CHECK(s.outliers == std::vector<Outlier>{Outlier::none, Outlier::none, Outlier::none, Outlier::outlier,
                                           Outlier::none, Outlier::none, Outlier::none});
  CHECK(s.shape);              // all the CV comes from one value; rCV = 0
  CHECK(s.tukey_severe == 1);  // IQR = 0: any differing value is outside the fences
  CHECK(contains(texts(s.warnings), "heavy tail / outliers / multimodal (CV = 3.73% with rCV = 0)"));
  CHECK(contains(texts(s.warnings),
                 "1 of 7 samples are outliers (|modified z| > 3.5), 0 of them extreme (> 10)"));
}

TEST_CASE("stats summary: all-equal samples have zero spread and no outliers") {
  const Summary s = summarize(std::vector<double>(8, 3.25));
  CHECK(*s.stddev == 0.0);
  CHECK(*s.cv_pct == 0.0);
  CHECK(*s.rcv_pct == 0.0);
  CHECK(s.modified_z.empty());  // MAD = MeanAD = 0: undefined scores, no flags
  CHECK(s.outliers == std::vector<Outlier>(8, Outlier::none));
  CHECK_FALSE(s.lag1);  // no variance
  CHECK_FALSE(s.shape);
  CHECK(s.band == Band::excellent);
  REQUIRE(s.median_ci);
  CHECK(s.median_ci->lo == 3.25);
  CHECK(*s.median_rel_halfwidth == 0.0);
  CHECK(s.warnings.empty());
}

TEST_CASE("stats summary: median CI order statistics") {
  struct Row {
    std::size_t n, k;
    double level;
  };
  // Exact rationals (Python fractions) for the equal-tailed rule; 8 and 11 are where benchstat's
  // greedy rule differs.
  const Row rows[] = {{6, 1, 0.96875},
                      {8, 1, 0.9921875},
                      {11, 2, 0.98828125},
                      {30, 10, 0.9572260547429323},
                      {31, 10, 0.9705506265163422},
                      {50, 18, 0.9671608624357315},
                      {60, 22, 0.972659866131922},
                      {61, 23, 0.9603829851015003},   // exact integer sums end at n = 62
                      {100, 40, 0.9647997997822951},  // log-space sums
                      {1000, 469, 0.9537088026395019},
                      {100000, 49690, 0.9504442853304751}};
  for (const Row& row : rows) {
    CAPTURE(row.n);
    const auto order = median_ci_order(row.n);
    REQUIRE(order);
    CHECK(order->k == row.k);
    CHECK(order->level == rel(row.level, kClosed));
  }
  for (std::size_t n = 1; n <= 5; ++n) CHECK_FALSE(median_ci_order(n));
  CHECK_FALSE(median_ci_order(0));
  // 90%: n = 5 is enough ([min, max] has level 15/16).
  const auto ninety = median_ci_order(5, 0.90);
  REQUIRE(ninety);
  CHECK(ninety->k == 1);
  CHECK(ninety->level == 0.9375);

  // Summary's median CI is no longer this rule but benchstat's (it held the equal-tailed interval
  // here before): at 8 and 11 they differ, at 6 and 1000 they agree.
  for (std::size_t n : {6u, 8u, 11u, 1000u}) {
    CAPTURE(n);
    // Values in reverse run order: the CI is taken from the sorted copy.
    std::vector<double> x = iota_values(n);
    std::reverse(x.begin(), x.end());
    const Summary s = summarize(x);
    const auto orders = benchstat_median_ci_orders(n);
    REQUIRE(orders);
    REQUIRE(s.median_ci);
    CHECK(s.median_ci->lo == static_cast<double>(orders->lo));
    CHECK(s.median_ci->hi == static_cast<double>(orders->hi));
    CHECK(s.median_ci->level == orders->level);
    const auto equal_tailed = median_ci_order(n);
    CHECK((orders->lo == equal_tailed->k && orders->hi == n - equal_tailed->k + 1) == (n == 6 || n == 1000));
  }
}

TEST_CASE("stats summary: binomial tails") {
  CHECK(binomial_half_cdf(8, 0) == 1.0 / 256);
  CHECK(binomial_half_cdf(10, 1) == 11.0 / 1024);
  CHECK(binomial_half_cdf(10, 10) == 1.0);
  CHECK(binomial_half_cdf(62, 30) == rel(boost::math::cdf(boost::math::binomial(62, 0.5), 30.0), 1e-13));
  for (std::size_t k : {20u, 40u, 50u, 60u, 90u}) {
    CAPTURE(k);
    const double expected = boost::math::cdf(boost::math::binomial(100, 0.5), static_cast<double>(k));
    CHECK(binomial_half_cdf(100, k) == rel(expected, 1e-12));
  }
}

TEST_CASE("stats summary: drift from the lag-1 autocorrelation") {
  // 1..10: r1 = 57.75/82.5 = 0.7 > 2/sqrt(10) = 0.632.
  const Summary s = summarize(iota_values(10));
  REQUIRE(s.lag1);
  CHECK(*s.lag1 == rel(0.7, kClosed));
  CHECK(s.drift);
  CHECK(texts(s.warnings) == std::vector<std::string>{"drift: lag-1 autocorrelation 0.70 > 0.63"});
  // Alternating values: strongly negative r1.
  const Summary alt = summarize(std::vector<double>{1, 3, 1, 3, 1, 3, 1, 3});
  CHECK(*alt.lag1 == rel(-7.0 / 8.0, kClosed));
  CHECK(alt.drift);
  CHECK(contains(texts(alt.warnings), "drift: lag-1 autocorrelation -0.88 < -0.71"));
  CHECK_FALSE(summarize(iota_values(7)).lag1);  // n < 8
}

TEST_CASE("stats summary: CV bands") {
  CHECK(band_for_cv(std::nullopt) == Band::insufficient);
  CHECK(band_for_cv(0.0) == Band::excellent);
  CHECK(band_for_cv(2.0) == Band::excellent);
  CHECK(band_for_cv(std::nextafter(2.0, 3.0)) == Band::acceptable);
  CHECK(band_for_cv(5.0) == Band::acceptable);
  CHECK(band_for_cv(5.01) == Band::noisy);
  CHECK(band_for_cv(10.0) == Band::noisy);
  CHECK(band_for_cv(std::nextafter(10.0, 11.0)) == Band::do_not_trust);
  CHECK(to_string(Band::excellent) == "excellent");
  CHECK(to_string(Band::acceptable) == "acceptable");
  CHECK(to_string(Band::noisy) == "noisy");
  CHECK(to_string(Band::do_not_trust) == "do not trust");
  CHECK(to_string(Band::insufficient) == "insufficient");
  // mean <= 0: no CV, so no band.
  const Summary s = summarize(std::vector<double>{-1, 1, -2, 2});
  CHECK_FALSE(s.cv_pct);
  CHECK(s.band == Band::insufficient);
  CHECK(contains(texts(s.warnings), "mean <= 0: no CV"));
  CHECK(contains(texts(s.warnings), "median <= 0: no rCV"));
}

TEST_CASE("stats summary: confidence level is a parameter") {
  const Summary s = summarize(iota_values(5), 0.90);
  REQUIRE(s.median_ci);
  CHECK(s.median_ci->lo == 1.0);
  CHECK(s.median_ci->hi == 5.0);
  CHECK(s.median_ci->level == 0.9375);
  REQUIRE(s.mean_ci);
  CHECK(s.mean_ci->level == 0.90);
  CHECK(s.mean_ci->hi - 3.0 == rel(t_quantile(0.95, 4) * std::sqrt(2.5) / std::sqrt(5.0), kT));
  CHECK_THROWS_AS(summarize(iota_values(5), 1.0), Error);
  CHECK_THROWS_AS(summarize(iota_values(5), 0.0), Error);
}

TEST_CASE("stats summary: non-finite samples are rejected") {
  CHECK_THROWS_WITH_AS(summarize(std::vector<double>{1.0, NAN}),
                       "stats: sample 2 is not a finite number ('nan')", Error);
  CHECK_THROWS_AS(summarize(std::vector<double>{INFINITY}), Error);
}

TEST_CASE("stats summary: to_json writes every field, undefined values as null") {
  const Summary s = summarize(values(vectors()["V2_outlier"]["x"]));
  const nlohmann::json j = s;
  CHECK(j["n"] == 10);
  CHECK(j["mean"] == 105.0);
  CHECK(j["stddev"].get<double>() == rel(15.909466085042299, 1e-12));
  CHECK(j["band"] == "do not trust");
  CHECK(j["median_ci"] == nlohmann::json{{"lo", 98.0}, {"hi", 103.0}, {"level", 0.978515625}});
  CHECK(j["outliers"][8] == "extreme");
  CHECK(j["outliers"][0] == "none");
  CHECK(j["tukey_severe"] == 1);
  CHECK(j["shape"] == true);
  CHECK(j["drift"] == false);
  CHECK(j["warnings"].size() == 2);
  CHECK(j.size() == 25);  // every field of Summary

  const nlohmann::json j1 = summarize(std::vector<double>{7.0});
  CHECK(j1["stddev"].is_null());
  CHECK(j1["cv_pct"].is_null());
  CHECK(j1["mad"].is_null());
  CHECK(j1["mean_ci"].is_null());
  CHECK(j1["lag1"].is_null());
  CHECK(j1["band"] == "insufficient");
  const nlohmann::json j0 = summarize(std::vector<double>{});
  CHECK(j0["mean"].is_null());
  CHECK(j0["n"] == 0);
}

TEST_CASE("stats summary: the stopping rule's half-widths (§3.8)") {
  // n = 3 is too small for a 99% median CI (it needs n >= 8).
  CHECK_FALSE(median_ci_halfwidth({1, 2, 3}, 0.99).has_value());
  CHECK(median_ci_halfwidth(std::vector<double>(10, 5.0), 0.99) == 0.0);
  // V2 at 95%: [98, 103] around the median 100: max(103/100 - 1, 1 - 98/100) = 0.03.
  CHECK(*median_ci_halfwidth(values(vectors()["V2_outlier"]["x"]), 0.95) == rel(0.03, 1e-12));
  CHECK_FALSE(median_ci_halfwidth({-1, -2, -3, -4, -5, -6, -7, -8}, 0.95).has_value());
  // It keeps the equal-tailed interval where Summary's (benchstat's) differs. The squares 1..64
  // (n = 8, median 20.5) at 95%: [x_(1), x_(8)] = [1, 64], not benchstat's [1, 49]; the squares
  // 1..121 (n = 11, median 36) at 99%: [1, 121], not [1, 100].
  const auto squares = [](std::size_t n) {
    std::vector<double> x = iota_values(n);
    for (double& v : x) v *= v;
    return x;
  };
  CHECK(*median_ci_halfwidth(squares(8), 0.95) == rel(64.0 / 20.5 - 1.0, kClosed));
  CHECK(*summarize(squares(8)).median_rel_halfwidth == rel(49.0 / 20.5 - 1.0, kClosed));
  CHECK(*median_ci_halfwidth(squares(11), 0.99) == rel(121.0 / 36.0 - 1.0, kClosed));
  CHECK(*summarize(squares(11), 0.99).median_rel_halfwidth == rel(100.0 / 36.0 - 1.0, kClosed));
  CHECK_THROWS_AS(median_ci_halfwidth({1, NAN, 3}, 0.95), Error);
  // Paired: no spread of the log ratios, no width; V6 at 95% is the GM CI's upper half-width.
  CHECK(paired_gm_halfwidth(std::vector<double>{100, 100, 100}, std::vector<double>{300, 300, 300}, 0.99) ==
        0.0);
  const auto& v6 = vectors()["V6_paired"];
  const double gm = 0.972863164938934, hi = 0.9782470689771752;
  CHECK(*paired_gm_halfwidth(values(v6["base"]), values(v6["variant"]), 0.95) == rel(hi / gm - 1, 1e-9));
  CHECK_FALSE(paired_gm_halfwidth(std::vector<double>{1, 2}, std::vector<double>{1, 2}, 0.99).has_value());
  CHECK_FALSE(
      paired_gm_halfwidth(std::vector<double>{1, 0, 2}, std::vector<double>{1, 2, 2}, 0.99).has_value());
}

}  // namespace noisefloor::stats

TEST_CASE("stats summary: the median CI order for large n starts its sum 12 sd below n/2 and loses nothing") {
  // Exact orders and levels from Python's integers (Σ C(n, j) / 2^n with Fractions, 5 minutes):
  // n = 10 000 is below the skip, 20 001 and 100 000 above it.
  for (const auto& [n, k, level] :
       {std::tuple<std::size_t, std::size_t, double>{10000, 4902, 0.9511670501036181},
        {20001, 9862, 0.9506703274081423},
        {100000, 49690, 0.9504442853304751}}) {
    const auto captured_n = n;  // clang 14 cannot capture a structured binding
    CAPTURE(captured_n);
    const auto order = noisefloor::stats::median_ci_order(n);
    REQUIRE(order);
    CHECK(order->k == k);
    CHECK(order->level == doctest::Approx(level).epsilon(1e-12));
  }
}

namespace noisefloor::stats {

namespace {

// benchstat's median CI orders [lo, hi] for n = 2..70, printed by benchstat 712aea8 (golang.org/x/perf,
// amd64) at each confidence; {n, 0, 0} where it prints "±∞". Obtained by running
// `benchstat -format csv -confidence C` on samples whose printed "±" reveals the order statistics:
// x_(i) = 1000 up to the (upper) middle and 1000·(1 + j/100) for the j-th order above it gives
// "±j%" (the upper end), and the mirror image below the (lower) middle gives the lower end.
struct BenchstatOrders {
  std::size_t n, lo, hi;
};
constexpr BenchstatOrders kBenchstat95[] = {
    {2, 0, 0},    {3, 0, 0},    {4, 0, 0},    {5, 0, 0},    {6, 1, 6},    {7, 1, 7},    {8, 1, 7},
    {9, 2, 8},    {10, 2, 9},   {11, 2, 9},   {12, 3, 10},  {13, 3, 11},  {14, 3, 11},  {15, 4, 12},
    {16, 4, 12},  {17, 5, 13},  {18, 5, 14},  {19, 5, 14},  {20, 6, 15},  {21, 6, 16},  {22, 6, 16},
    {23, 7, 17},  {24, 8, 18},  {25, 8, 18},  {26, 8, 19},  {27, 8, 19},  {28, 9, 20},  {29, 9, 20},
    {30, 10, 21}, {31, 10, 22}, {32, 10, 22}, {33, 11, 23}, {34, 11, 23}, {35, 12, 24}, {36, 12, 24},
    {37, 13, 25}, {38, 13, 26}, {39, 13, 26}, {40, 14, 27}, {41, 14, 27}, {42, 15, 28}, {43, 15, 29},
    {44, 15, 29}, {45, 16, 30}, {46, 16, 30}, {47, 17, 31}, {48, 17, 31}, {49, 18, 32}, {50, 18, 32},
    {51, 19, 33}, {52, 19, 34}, {53, 19, 34}, {54, 20, 35}, {55, 20, 35}, {56, 21, 36}, {57, 21, 36},
    {58, 22, 37}, {59, 22, 38}, {60, 22, 38}, {61, 23, 39}, {62, 23, 39}, {63, 24, 40}, {64, 24, 40},
    {65, 25, 41}, {66, 25, 42}, {67, 25, 42}, {68, 26, 43}, {69, 26, 43}, {70, 27, 44}};
constexpr BenchstatOrders kBenchstat99[] = {
    {2, 0, 0},    {3, 0, 0},    {4, 0, 0},    {5, 0, 0},    {6, 0, 0},    {7, 0, 0},    {8, 1, 8},
    {9, 1, 9},    {10, 1, 10},  {11, 1, 10},  {12, 2, 11},  {13, 2, 12},  {14, 2, 12},  {15, 3, 13},
    {16, 3, 14},  {17, 3, 14},  {18, 4, 15},  {19, 4, 16},  {20, 4, 16},  {21, 5, 17},  {22, 5, 18},
    {23, 5, 18},  {24, 6, 19},  {25, 6, 19},  {26, 7, 20},  {27, 7, 21},  {28, 8, 22},  {29, 8, 22},
    {30, 8, 23},  {31, 8, 23},  {32, 9, 24},  {33, 9, 25},  {34, 9, 25},  {35, 10, 26}, {36, 10, 26},
    {37, 11, 27}, {38, 11, 28}, {39, 11, 28}, {40, 12, 29}, {41, 12, 29}, {42, 13, 30}, {43, 13, 31},
    {44, 13, 31}, {45, 14, 32}, {46, 14, 32}, {47, 15, 33}, {48, 15, 34}, {49, 15, 34}, {50, 16, 35},
    {51, 16, 35}, {52, 17, 36}, {53, 17, 36}, {54, 18, 37}, {55, 18, 38}, {56, 18, 38}, {57, 19, 39},
    {58, 19, 39}, {59, 20, 40}, {60, 20, 41}, {61, 20, 41}, {62, 21, 42}, {63, 21, 42}, {64, 22, 43},
    {65, 22, 43}, {66, 23, 44}, {67, 23, 45}, {68, 23, 45}, {69, 24, 46}, {70, 24, 46}};
constexpr BenchstatOrders kBenchstat90[] = {
    {2, 0, 0},    {3, 0, 0},    {4, 0, 0},    {5, 1, 5},    {6, 1, 6},    {7, 1, 6},    {8, 2, 7},
    {9, 2, 8},    {10, 2, 8},   {11, 3, 9},   {12, 3, 9},   {13, 4, 10},  {14, 4, 11},  {15, 4, 11},
    {16, 5, 12},  {17, 5, 12},  {18, 6, 13},  {19, 6, 14},  {20, 6, 14},  {21, 7, 15},  {22, 8, 16},
    {23, 8, 16},  {24, 8, 17},  {25, 8, 17},  {26, 9, 18},  {27, 9, 18},  {28, 10, 19}, {29, 11, 20},
    {30, 11, 20}, {31, 11, 21}, {32, 11, 21}, {33, 12, 22}, {34, 12, 22}, {35, 13, 23}, {36, 13, 24},
    {37, 13, 24}, {38, 14, 25}, {39, 14, 25}, {40, 15, 26}, {41, 15, 26}, {42, 16, 27}, {43, 16, 27},
    {44, 17, 28}, {45, 17, 29}, {46, 17, 29}, {47, 18, 30}, {48, 18, 30}, {49, 19, 31}, {50, 19, 31},
    {51, 20, 32}, {52, 20, 32}, {53, 21, 33}, {54, 21, 34}, {55, 21, 34}, {56, 22, 35}, {57, 22, 35},
    {58, 23, 36}, {59, 23, 36}, {60, 24, 37}, {61, 24, 37}, {62, 25, 38}, {63, 25, 39}, {64, 25, 39},
    {65, 26, 40}, {66, 26, 40}, {67, 27, 41}, {68, 27, 41}, {69, 28, 42}, {70, 28, 42}};

void check_benchstat_orders(std::span<const BenchstatOrders> table, double confidence) {
  CAPTURE(confidence);
  for (const BenchstatOrders& want : table) {
    CAPTURE(want.n);
    const auto got = noisefloor::stats::benchstat_median_ci_orders(want.n, confidence);
    if (want.lo == 0) {
      CHECK_FALSE(got);
      continue;
    }
    REQUIRE(got);
    CHECK(got->lo == want.lo);
    CHECK(got->hi == want.hi);
    CHECK(got->level >= confidence - 0.02);  // sanity; the exact levels are checked below
    // The same orders through summarize, on 1..n given in reverse.
    std::vector<double> x(want.n);
    for (std::size_t i = 0; i < want.n; ++i) x[i] = static_cast<double>(want.n - i);
    const auto s = noisefloor::stats::summarize(x, confidence);
    REQUIRE(s.median_ci);
    CHECK(s.median_ci->lo == static_cast<double>(want.lo));
    CHECK(s.median_ci->hi == static_cast<double>(want.hi));
    CHECK(s.median_ci->level == got->level);
  }
}

}  // namespace

TEST_CASE("stats summary: benchstat's median CI orders for n = 2..70 are those benchstat prints") {
  check_benchstat_orders(kBenchstat95, 0.95);
  check_benchstat_orders(kBenchstat99, 0.99);
  check_benchstat_orders(kBenchstat90, 0.90);
  // n <= 5 has no 95% interval (benchstat: "±∞", "need >= 6 samples"); n = 6 has [min, max].
  const auto s5 = noisefloor::stats::summarize(iota_values(5));
  CHECK_FALSE(s5.median_ci);
  CHECK(texts(s5.warnings) == std::vector<std::string>{"n=5 < 6: no 95% median CI"});
  const auto s6 = noisefloor::stats::summarize(iota_values(6));
  REQUIRE(s6.median_ci);
  CHECK(s6.median_ci->lo == 1.0);
  CHECK(s6.median_ci->hi == 6.0);
  CHECK(noisefloor::testing::contains(texts(noisefloor::stats::summarize(iota_values(7), 0.99).warnings),
                                      "n=7 < 8: no 99% median CI"));
  // Typed: a reader asks the kind, whatever the confidence said in the sentence.
  const auto w99 = noisefloor::stats::summarize(iota_values(7), 0.99).warnings;
  REQUIRE(w99.size() == 1);
  CHECK(w99[0].kind == noisefloor::stats::SummaryWarningKind::no_median_ci);
  CHECK(w99[0].n == 7);
  CHECK(w99[0].count == 8);
  CHECK_FALSE(noisefloor::stats::benchstat_median_ci_orders(0));
  CHECK_THROWS_AS(noisefloor::stats::benchstat_median_ci_orders(10, 1.0), noisefloor::Error);
}

TEST_CASE("stats summary: benchstat's floating-point ties (n = 24 at 95%, 28 at 99%, 22 and 29 at 90%)") {
  // In exact arithmetic the last step of these widenings is a tie, and "left when equal" would
  // give the mirror image one order lower ([7, 17] at n = 24); benchstat's rounded terms take
  // the right one. Both cover the same probability.
  const auto o24 = noisefloor::stats::benchstat_median_ci_orders(24, 0.95);
  REQUIRE(o24);
  CHECK(o24->lo == 8);
  CHECK(o24->hi == 18);
  CHECK(o24->level == rel(0.9567147493362427, kClosed));  // = P(7 <= K <= 16) by symmetry
  // A tie that benchstat breaks to the left at the same n: counts 8 and 16, the last step
  // between masses 0.8484 and 0.8922 (benchstat -confidence 0.87: [8, 16]).
  const auto left = noisefloor::stats::benchstat_median_ci_orders(24, 0.87);
  REQUIRE(left);
  CHECK(left->lo == 8);
  CHECK(left->hi == 16);
  // n = 20: exact terms, every tie goes left (-confidence 0.95: [6, 15]).
  const auto o20 = noisefloor::stats::benchstat_median_ci_orders(20, 0.95);
  CHECK(o20->lo == 6);
  CHECK(o20->hi == 15);
}

TEST_CASE("stats summary: benchstat's median CI orders for large n (normal approximation)") {
  // benchstat 712aea8 on generated data, as for n <= 70.
  for (const auto& [n, confidence, lo, hi] :
       {std::tuple<std::size_t, double, std::size_t, std::size_t>{100, 0.95, 40, 60},
        {1000, 0.95, 469, 532},
        {10001, 0.95, 4902, 5099},
        {1000000, 0.95, 499020, 500980},
        {100, 0.99, 37, 63},
        {1000, 0.99, 459, 541},
        {10001, 0.99, 4872, 5130},
        {1000000, 0.99, 498712, 501288}}) {
    const auto captured_n = n;  // clang 14 cannot capture a structured binding
    CAPTURE(captured_n);
    const auto captured_confidence = confidence;  // clang 14 cannot capture a structured binding
    CAPTURE(captured_confidence);
    const auto got = noisefloor::stats::benchstat_median_ci_orders(n, confidence);
    REQUIRE(got);
    CHECK(got->lo == lo);
    CHECK(got->hi == hi);
  }
  // Any n, in about constant time: 10^9 and 10^12 samples (the orders only; no data).
  const auto billion = noisefloor::stats::benchstat_median_ci_orders(1000000000);
  REQUIRE(billion);
  CHECK(billion->lo < 500000000);
  CHECK(billion->hi > 500000000);
  CHECK(billion->level == doctest::Approx(0.95).epsilon(1e-4));
}

TEST_CASE("stats summary: benchstat's median CI level is the exact binomial mass of its orders") {
  // Σ_{k=lo}^{hi-1} C(n, k) / 2^n with Python's fractions (31/32, 123/128, 501/512, 1969/2048 for
  // the first four), not benchstat's own (normal-approximation) figure for n > 30.
  for (const auto& [n, lo, hi, level] :
       {std::tuple<std::size_t, std::size_t, std::size_t, double>{6, 1, 6, 0.96875},
        {8, 1, 7, 0.9609375},
        {10, 2, 9, 0.978515625},
        {11, 2, 9, 0.96142578125},
        {24, 8, 18, 0.9567147493362427},
        {29, 9, 20, 0.9572260547429323},
        {30, 10, 21, 0.9572260547429323},
        {31, 10, 22, 0.9705506265163422},
        {50, 18, 32, 0.9511261076817297},
        {62, 23, 39, 0.9570434544756108},  // the last exact integer sum
        {63, 24, 40, 0.9570434544756108},  // the first through binomial_half_cdf
        {70, 27, 44, 0.9586085713260846},
        {100, 40, 60, 0.9539559330706572},
        {1000, 469, 532, 0.9537088026395019},
        {10001, 4902, 5099, 0.9511444704334981},
        {1000000, 499020, 500980, 0.9500041494074228}}) {
    const auto captured_n = n;  // clang 14 cannot capture a structured binding
    CAPTURE(captured_n);
    const auto got = noisefloor::stats::benchstat_median_ci_orders(n);
    REQUIRE(got);
    CHECK(got->lo == lo);
    CHECK(got->hi == hi);
    if (n <= 62) {
      CHECK(got->level == level);  // a dyadic rational, correctly rounded
    } else {
      CHECK(got->level == doctest::Approx(level).epsilon(1e-13));
    }
  }
}

TEST_CASE("stats summary: the \"±\" of summarize is benchstat's on the same samples") {
  // Log-normal samples (σ = 0.25, one decimal); benchstat 712aea8 prints, in CSV, the median and
  // the CI column "±": 50%, 32%, 23%, 10%, 12%, 12%, 11%, 7%. The equal-tailed interval
  // would give 34% at n = 8 and 14% at n = 50.
  const std::vector<std::tuple<std::vector<double>, double, std::string>> cases = {
      {{83.6, 73.3, 76.4, 112.6, 65.3, 72.1}, 74.85, "50%"},
      {{125.7, 98.1, 79.3, 113.1, 71.7, 141.6, 115.7, 85.2}, 105.6, "32%"},
      {{97.2, 114.3, 118.1, 80.9, 74.5, 88.7, 120.1, 51.1, 93.6, 96.2, 101.8}, 96.2, "23%"},
      {{128.1, 78.0, 110.2, 98.7, 97.3,  195.9, 91.2, 96.1, 96.1, 139.1, 94.7,  97.1,
        67.9,  76.2, 95.0,  86.7, 135.2, 106.2, 80.6, 66.6, 95.5, 125.5, 100.9, 102.7},
       96.6,
       "10%"},
      {{96.0, 123.9, 137.5, 98.4,  114.2, 151.1, 71.5,  99.4, 114.3, 110.8, 115.3, 134.3, 97.4, 152.6, 62.3,
        88.0, 110.4, 123.4, 132.1, 102.7, 113.8, 109.0, 80.9, 74.6,  100.0, 79.3,  114.2, 75.5, 119.4},
       110.4,
       "12%"},
      {{82.4,  89.7,  98.1, 67.8,  70.7,  83.6,  88.1, 94.9, 68.8, 107.9, 72.0,
        161.8, 118.9, 78.6, 100.9, 113.7, 104.3, 81.0, 88.5, 96.5, 134.3, 126.6,
        99.7,  95.6,  97.7, 96.9,  93.5,  123.1, 70.6, 78.1, 90.8},
       94.9,
       "12%"},
      {{60.7,  141.9, 113.3, 120.4, 84.6,  102.5, 131.6, 58.3,  87.5,  89.2,  101.2, 123.6, 69.5,
        142.0, 52.0,  119.3, 97.2,  133.0, 76.2,  72.6,  81.0,  91.9,  91.0,  89.6,  162.5, 128.2,
        109.1, 73.9,  98.8,  123.3, 121.2, 76.1,  113.1, 116.5, 72.2,  85.3,  129.6, 64.4,  104.9,
        89.9,  103.5, 64.0,  112.0, 91.4,  88.2,  97.0,  93.1,  119.9, 109.1, 165.2},
       98.0,
       "11%"},
      {{94.6,  148.2, 122.3, 90.5,  101.0, 103.8, 103.5, 101.4, 112.9, 65.7,  86.6,  119.4, 84.2,
        108.5, 100.5, 73.1,  76.8,  116.4, 155.5, 115.3, 96.5,  63.9,  95.5,  120.7, 110.9, 141.3,
        117.2, 111.1, 93.6,  118.4, 174.4, 79.7,  67.4,  82.5,  79.7,  109.5, 102.4, 89.5,  95.0,
        104.5, 73.9,  111.3, 48.8,  87.7,  138.8, 83.4,  142.8, 153.6, 67.4,  101.2, 77.4,  91.8,
        71.6,  143.5, 136.7, 128.2, 109.4, 146.6, 100.6, 83.3,  123.4, 83.5,  114.9, 108.1, 97.7,
        119.6, 78.4,  109.9, 73.6,  112.1, 120.1, 110.5, 157.9, 74.1,  84.9,  100.5, 108.6, 110.7,
        125.9, 70.9,  94.6,  118.7, 90.3,  104.3, 156.4, 84.4,  88.5,  93.4,  146.0, 95.3,  157.3,
        116.1, 93.1,  71.8,  105.5, 64.1,  108.7, 115.6, 129.3, 69.5},
       102.95,
       "7%"}};
  for (const auto& [x, median, plus_minus] : cases) {
    const auto captured_x_size = x.size();  // clang 14 cannot capture a structured binding
    CAPTURE(captured_x_size);
    const auto s = noisefloor::stats::summarize(x);
    // benchstat's centre is its R8 quantile at 1/2, the same median (here to the last bit but
    // one: x + (y - x)/2 against (x + y)/2 for an even n).
    CHECK(s.median == doctest::Approx(median).epsilon(1e-15));
    REQUIRE(s.median_rel_halfwidth);
    CHECK(fmt::format("{:.0f}%", 100 * *s.median_rel_halfwidth) == plus_minus);
  }
}

}  // namespace noisefloor::stats
