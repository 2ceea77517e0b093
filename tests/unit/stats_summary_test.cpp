// stats/summary: per-condition statistics against the public vectors
// (tests/data/stats/stats-vectors.json) and the edge cases of §3.2–3.4. Tolerances: 1e-12 relative for closed forms, 1e-9 with t quantiles.
#include <doctest/doctest.h>

#include <boost/math/distributions/binomial.hpp>
#include <cmath>
#include <fstream>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "model/errors.hpp"
#include "stats/summary.hpp"
#include "test_support.hpp"

namespace noisefloor::stats {
namespace {


using testing::contains;
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
  CHECK(contains(s.warnings, "n=5 < 6: no 95% median CI"));
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
  CHECK(s.warnings ==
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
  CHECK(s.warnings == std::vector<std::string>{"n=2 < 6: no 95% median CI"});
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
  CHECK(s.warnings == std::vector<std::string>{"no samples"});
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
  CHECK(s.warnings ==
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
  CHECK(s.outliers == std::vector<Outlier>{Outlier::none, Outlier::none, Outlier::none,
                                           Outlier::outlier, Outlier::none, Outlier::none,
                                           Outlier::none});
  CHECK(s.shape);              // all the CV comes from one value; rCV = 0
  CHECK(s.tukey_severe == 1);  // IQR = 0: any differing value is outside the fences
  CHECK(contains(s.warnings, "heavy tail / outliers / multimodal (CV = 3.73% with rCV = 0)"));
  CHECK(contains(s.warnings,
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

  for (std::size_t n : {6u, 8u, 11u, 1000u}) {
    CAPTURE(n);
    // Values in reverse run order: the CI is taken from the sorted copy.
    std::vector<double> x = iota_values(n);
    std::reverse(x.begin(), x.end());
    const Summary s = summarize(x);
    const auto order = median_ci_order(n);
    REQUIRE(s.median_ci);
    CHECK(s.median_ci->lo == static_cast<double>(order->k));
    CHECK(s.median_ci->hi == static_cast<double>(n - order->k + 1));
    CHECK(s.median_ci->level == order->level);
  }
}

TEST_CASE("stats summary: binomial tails") {
  CHECK(binomial_half_cdf(8, 0) == 1.0 / 256);
  CHECK(binomial_half_cdf(10, 1) == 11.0 / 1024);
  CHECK(binomial_half_cdf(10, 10) == 1.0);
  CHECK(binomial_half_cdf(62, 30) ==
        rel(boost::math::cdf(boost::math::binomial(62, 0.5), 30.0), 1e-13));
  for (std::size_t k : {20u, 40u, 50u, 60u, 90u}) {
    CAPTURE(k);
    const double expected =
        boost::math::cdf(boost::math::binomial(100, 0.5), static_cast<double>(k));
    CHECK(binomial_half_cdf(100, k) == rel(expected, 1e-12));
  }
}

TEST_CASE("stats summary: drift from the lag-1 autocorrelation") {
  // 1..10: r1 = 57.75/82.5 = 0.7 > 2/sqrt(10) = 0.632.
  const Summary s = summarize(iota_values(10));
  REQUIRE(s.lag1);
  CHECK(*s.lag1 == rel(0.7, kClosed));
  CHECK(s.drift);
  CHECK(s.warnings == std::vector<std::string>{"drift: lag-1 autocorrelation 0.70 > 0.63"});
  // Alternating values: strongly negative r1.
  const Summary alt = summarize(std::vector<double>{1, 3, 1, 3, 1, 3, 1, 3});
  CHECK(*alt.lag1 == rel(-7.0 / 8.0, kClosed));
  CHECK(alt.drift);
  CHECK(contains(alt.warnings, "drift: lag-1 autocorrelation -0.88 < -0.71"));
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
  CHECK(contains(s.warnings, "mean <= 0: no CV"));
  CHECK(contains(s.warnings, "median <= 0: no rCV"));
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
  // Paired: no spread of the log ratios, no width; V6 at 95% is the GM CI's upper half-width.
  CHECK(paired_gm_halfwidth(std::vector<double>{100, 100, 100}, std::vector<double>{300, 300, 300}, 0.99) == 0.0);
  const auto& v6 = vectors()["V6_paired"];
  const double gm = 0.972863164938934, hi = 0.9782470689771752;
  CHECK(*paired_gm_halfwidth(values(v6["base"]), values(v6["variant"]), 0.95) == rel(hi / gm - 1, 1e-9));
  CHECK_FALSE(paired_gm_halfwidth(std::vector<double>{1, 2}, std::vector<double>{1, 2}, 0.99).has_value());
  CHECK_FALSE(paired_gm_halfwidth(std::vector<double>{1, 0, 2}, std::vector<double>{1, 2, 2}, 0.99).has_value());
}

}  // namespace noisefloor::stats

TEST_CASE("stats summary: the median CI order for large n starts its sum 12 sd below n/2 and loses nothing") {
  // Exact orders and levels from Python's integers (Σ C(n, j) / 2^n with Fractions, 5 minutes):
  // n = 10 000 is below the skip, 20 001 and 100 000 above it.
  for (const auto& [n, k, level] : {std::tuple<std::size_t, std::size_t, double>{10000, 4902, 0.9511670501036181},
                                    {20001, 9862, 0.9506703274081423},
                                    {100000, 49690, 0.9504442853304751}}) {
    CAPTURE(n);
    const auto order = noisefloor::stats::median_ci_order(n);
    REQUIRE(order);
    CHECK(order->k == k);
    CHECK(order->level == doctest::Approx(level).epsilon(1e-12));
  }
}
