// stats/change_points: E-Divisive means as Apache Otava computes it, against Otava's own test
// vectors (tests/data/otava/README.md says where each comes from): exact indices, and Q̂ and
// p-values to the last bits Otava's numpy code printed.
#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

#include "stats/change_points.hpp"
#include "test_support.hpp"

namespace {

std::vector<double> otava_series(const std::string& name) {
  std::ifstream in(noisefloor::testing::kData + "/otava/" + name);
  REQUIRE(in);
  std::vector<double> out;
  for (double v; in >> v;) out.push_back(v);
  return out;
}

std::vector<std::size_t> cp_indices(const std::vector<noisefloor::stats::ChangePoint>& cps) {
  std::vector<std::size_t> out;
  for (const auto& c : cps) out.push_back(c.index);
  return out;
}

std::vector<std::size_t> otava(const std::string& name, std::size_t window, double p, double magnitude) {
  return cp_indices(noisefloor::stats::change_points(otava_series(name), {window, p, magnitude}));
}

}  // namespace

TEST_CASE("change points: Otava's 20-point step at window 10, p 0.0001") {
  CHECK(otava("single_series_20.txt", 10, 0.0001, 0.0) == std::vector<std::size_t>{10});
}

TEST_CASE("change points: Otava's 14-point sequence, its best split and the detector alone") {
  const std::vector<double> x = otava_series("sequence_14.txt");
  REQUIRE(x.size() == 14);
  const auto best = noisefloor::stats::divisive_candidate(x, 0, x.size());
  REQUIRE(best);
  CHECK(best->index == 5);
  CHECK(best->qhat == 761.2821428571428);  // numpy's double, bit for bit
  CHECK(cp_indices(noisefloor::stats::divisive_detect(x, 0.01)) == std::vector<std::size_t>{5, 8});
  CHECK_FALSE(noisefloor::stats::divisive_candidate(x, 3, 4));  // one point: nothing to split
}

TEST_CASE("change points: Otava's t-test vectors") {
  const std::vector<double> flat = otava_series("ttest_nochange_10.txt"),
                            step = otava_series("ttest_change_10.txt");
  const auto half = [](const std::vector<double>& v, bool right) {
    return std::span<const double>(v).subspan(right ? 5 : 0, 5);
  };
  CHECK(noisefloor::stats::segment_test(half(flat, false), half(flat, true)).pvalue == doctest::Approx(1.0));
  CHECK(noisefloor::stats::segment_test(half(step, false), half(step, true)).pvalue ==
        doctest::Approx(8.867907052957251e-06).epsilon(1e-12));
  // one point a side: no test (p = 1); flat and equal sides: no p at all
  const std::vector<double> two = {1.0, 5.0}, same = {2.0, 2.0, 2.0, 2.0};
  CHECK(noisefloor::stats::segment_test(std::span<const double>(two).first(1),
                                        std::span<const double>(two).subspan(1))
            .pvalue == 1.0);
  CHECK(std::isnan(noisefloor::stats::segment_test(std::span<const double>(same).first(2),
                                                   std::span<const double>(same).subspan(2))
                       .pvalue));
}

TEST_CASE("change points: the TigerBeetle series at window 30, ten settings") {
  using V = std::vector<std::size_t>;
  const std::string f = "tigerbeetle_365.txt";
  CHECK(otava(f, 30, 0.01, 0.05) == V{15, 71});
  CHECK(otava(f, 30, 0.05, 0.05) == V{15, 71});
  CHECK(otava(f, 30, 0.1, 0.05) == V{10, 11, 15, 71, 363});
  CHECK(otava(f, 30, 0.2, 0.05) == V{10, 11, 15, 71});
  CHECK(otava(f, 30, 0.2, 0.0) == V{3,   6,   7,   10,  11,  13,  15,  16,  28,  29,  35,  37,  39,  41,
                                    44,  48,  49,  56,  58,  61,  65,  66,  69,  71,  74,  76,  82,  95,
                                    108, 117, 125, 126, 129, 131, 136, 137, 142, 148, 165, 169, 187, 190,
                                    192, 197, 200, 212, 220, 241, 243, 246, 247, 249, 250, 260, 265, 266,
                                    268, 278, 282, 288, 305, 306, 325, 330, 337, 338, 340, 347, 349, 363});
  CHECK(otava(f, 30, 0.1, 0.0) == V{3,   6,   10,  11,  15,  16,  28,  29,  35,  37,  39,  41,
                                    44,  48,  49,  61,  71,  95,  117, 131, 142, 148, 165, 169,
                                    192, 206, 212, 260, 265, 268, 278, 282, 288, 305, 363});
  CHECK(otava(f, 30, 0.01, 0.0) == V{15, 26, 61, 71, 95, 117, 131, 142, 148, 165, 169, 192, 212, 260});
  CHECK(otava(f, 30, 0.001, 0.0) == V{15, 61, 71, 95, 117, 131, 142, 148, 192, 212, 260});
  CHECK(otava(f, 30, 0.0001, 0.0) == V{71, 95, 117, 131, 142, 148, 192, 212});
  CHECK(otava(f, 30, 0.00001, 0.0) == V{71, 95, 131, 192, 212});
  // each point's test against its final neighbours: 15 against [0, 15) and [15, 71), where Otava
  // leaves it with [15, 26)'s test (means 26000.67 → 23593.18, p 0.0084); 71 against [15, 71) and
  // [71, 365), where Otava's right segment ends at a point since merged away (mean 28431.75)
  const auto cps = noisefloor::stats::change_points(otava_series(f), {30, 0.01, 0.05});
  REQUIRE(cps.size() == 2);
  CHECK(cps[0].test.mean_before == doctest::Approx(26000.67).epsilon(1e-6));
  CHECK(cps[0].test.mean_after == doctest::Approx(23828.77).epsilon(1e-6));
  CHECK(cps[1].test.mean_before == doctest::Approx(23828.77).epsilon(1e-6));
  CHECK(cps[1].test.mean_after == doctest::Approx(28890.45238095238).epsilon(1e-12));
}

TEST_CASE("change points: Otava's series tests, defaults and a magnitude") {
  using V = std::vector<std::size_t>;
  CHECK(otava("series1_11.txt", 50, 0.001, 0.0) == V{6});
  CHECK(otava("series2_11.txt", 50, 0.001, 0.0) == V{4});
  CHECK(otava("series1_11.txt", 50, 0.001, 0.2) == V{6});
  CHECK(otava("series2_11.txt", 50, 0.001, 0.2) == V{});
  CHECK(otava("div_by_zero_11.txt", 50, 0.001, 0.0) == V{3, 6});
}

TEST_CASE("change points: short series and a bad window") {
  using noisefloor::stats::change_points;
  CHECK(change_points(std::vector<double>{}).empty());
  CHECK(change_points(std::vector<double>{1.0}).empty());
  CHECK(change_points(std::vector<double>{1.0, 9.0}).empty());  // one point a side: p = 1
  CHECK_THROWS(change_points(std::vector<double>{1.0, 2.0, 3.0}, {1, 0.001, 0.0}));
  CHECK_THROWS(change_points(std::vector<double>{1.0, std::nan(""), 3.0}));
}
