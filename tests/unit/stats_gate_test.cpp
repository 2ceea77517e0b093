// stats/gate: the floors, the MDE, "needs about k more repeats", the false-alarm bounds, the
// interaction and the excess spread of §3.13, against tests/data/gate/verify.py (an independent
// Python computation: t and F from the incomplete beta function, the least N by a plain scan).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "model/errors.hpp"
#include "stats/compare.hpp"
#include "stats/gate.hpp"
#include "test_support.hpp"

namespace noisefloor::stats {
namespace {

using testing::kClosed;
using testing::kT;
using testing::rel;

// A Paired holding the log ratios of `ratios` (what interaction reads: mean, SD, n).
Paired of_ratios(const std::vector<double>& ratios) {
  return paired(std::vector<double>(ratios.size(), 1.0), ratios);
}

}  // namespace

TEST_CASE("gate: the floors combine as (s_e² + s_f²)/4 with Welch–Satterthwaite degrees of freedom") {
  const Floor f = combine_floors(0.02, 0.01, 10);
  CHECK(f.sigma0 == rel(0.011180339887498949, kClosed));
  CHECK(f.nu0 == rel(13.235294117647058, kClosed));
  // Equal spreads: twice the df of one; exact floors keep that limit.
  CHECK(combine_floors(0.01, 0.01, 10).nu0 == rel(18.0, kClosed));
  const Floor exact = combine_floors(0.0, 0.0, 6);
  CHECK(exact.sigma0 == 0.0);
  CHECK(exact.nu0 == 10.0);
  CHECK_THROWS_AS(combine_floors(0.01, 0.01, 1), Error);
  CHECK_THROWS_AS(combine_floors(-0.01, 0.01, 6), Error);
  CHECK_THROWS_AS(combine_floors(std::nan(""), 0.01, 6), Error);
}

TEST_CASE("gate: the MDE adds (t_{1−α/2} + t_π)·σ̂₀/√n to the threshold, π = √P when confirmed") {
  const Mde confirmed = mde(0.01, 6, 0.02, 0.8, true);
  CHECK(confirmed.slower == rel(0.036810823807619686, kT));
  CHECK(confirmed.faster == rel(0.03588969458378655, kT));
  const Mde single = mde(0.01, 6, 0.02, 0.8, false);
  CHECK(single.slower == rel(0.03463737753565277, kT));
  CHECK(single.slower < confirmed.slower);  // confirmation costs power at a fixed n
  // An exact floor: the threshold itself.
  const Mde exact = mde(0.0, 6, 0.02, 0.8, true);
  CHECK(exact.slower == rel(0.02, 1e-14));
  CHECK(exact.faster == rel(0.02, 1e-14));
  CHECK_THROWS_AS(mde(0.01, 6, 0.02, 1.0, true), Error);
  CHECK_THROWS_AS(mde(0.01, 1, 0.02, 0.8, true), Error);
}

TEST_CASE("gate: needs about k more repeats — the least N with t_{N−1}·s/√N below the gap") {
  // Past θ₊ = ln 1.02: the gap to "slower" is ln 1.03 − ln 1.02.
  CHECK(repeats_needed(std::log(1.03), 0.02, 6, 0.02, 0.95, 60) == std::optional<std::size_t>(13));
  // Below −θ₋ = ln 0.98: the gap to "faster" is ln 1.03 + ln 0.98, smaller than the one above
  // (θ₋ > θ₊), so more repeats.
  CHECK(repeats_needed(-std::log(1.03), 0.02, 6, 0.02, 0.95, 60) == std::optional<std::size_t>(15));
  // Within noise, already decided at n: nothing more.
  CHECK(repeats_needed(std::log(1.005), 0.01, 6, 0.02, 0.95, 60) == std::optional<std::size_t>(0));
  // s/g = ½ at n = 2: the fixed-point iteration N ← ⌈(t s/g)²⌉ would go 2 → 41 → 2; N* = 4.
  CHECK(repeats_needed(std::log(1.02) + 0.02, 0.01, 2, 0.02, 0.95, 60) == std::optional<std::size_t>(2));
  // No spread: two quads decide.
  CHECK(repeats_needed(std::log(1.1), 0.0, 2, 0.02, 0.95, 60) == std::optional<std::size_t>(0));
  // On the threshold: no number of repeats decides it; beyond 10× the cap: "more than".
  CHECK_FALSE(repeats_needed(std::log1p(0.02), 0.02, 6, 0.02, 0.95, 60));
  CHECK_FALSE(repeats_needed(std::log(1.0201), 0.02, 6, 0.02, 0.95, 60));
  CHECK_THROWS_AS(repeats_needed(0.0, 0.01, 1, 0.02, 0.95, 60), Error);
}

TEST_CASE("gate: the false-alarm bound per row and per gate (m = 2, 20, 80)") {
  // Per block α/2 at its last look plus α/2·kEarlySpend over its early looks: 2.75%.
  CHECK(false_alarm_row(0.95, true) == rel(0.00075625, kClosed));
  CHECK(false_alarm_row(0.95, false) == rel(0.0275, kClosed));
  CHECK(false_alarm_bound(2, 0.95, true) == rel(0.001511928085937475, 1e-12));   // 0.151%
  CHECK(false_alarm_bound(20, 0.95, true) == rel(0.015016827808634003, 1e-12));  // 1.50%
  CHECK(false_alarm_bound(80, 0.95, true) == rel(0.05872777516344696, 1e-12));   // 5.87%
  CHECK(false_alarm_bound(20, 0.95, false) == rel(0.4274779733469457, 1e-12));   // without confirmation
  CHECK(false_alarm_bound(0, 0.95, true) == 0.0);
}

namespace {
std::vector<double> logs(std::initializer_list<double> ratios) {
  std::vector<double> out;
  for (const double r : ratios) out.push_back(std::log(r));
  return out;
}
const std::vector<double> kEe{0.010, -0.020, 0.015, -0.005, 0.012, -0.018};
const std::vector<double> kEf{-0.011, 0.017, -0.009, 0.004, 0.021, -0.013};
const std::vector<double> kEw{0.06, -0.05, 0.04, -0.06, 0.05, -0.04};
}  // namespace

TEST_CASE("gate: the threshold at a look is θ or the floors' reach, whichever is wider") {
  CHECK(gate_threshold(kEe, kEf, 0.02) == rel(0.02, kClosed));
  CHECK(gate_threshold(kEw, kEf, 0.02) == rel(0.05997075102696381, kClosed));
  CHECK_THROWS_AS(gate_threshold(std::vector<double>{0.01}, kEf, 0.02), Error);
}

TEST_CASE("gate: an early look decides only at its stricter level, beyond the floors' reach") {
  // d̄ = ln 1.111; at 14 looks the interval's log half-width is 0.0829 (t at 1 − 0.025·0.1/14),
  // so its lower end ln 1.0227 clears θ₊ = ln 1.02; at 54 looks (0.1098) it does not.
  const auto d = logs({1.12, 1.09, 1.15, 1.10, 1.13, 1.08});
  CHECK(decided_early(d, kEe, kEf, 0.02, 14));
  CHECK_FALSE(decided_early(d, kEe, kEf, 0.02, 54));
  // A wide floor moves the threshold to its reach, 6.0%: not decided.
  CHECK_FALSE(decided_early(d, kEw, kEf, 0.02, 14));
  // Faster: the mirror image.
  const auto faster = logs({1 / 1.12, 1 / 1.09, 1 / 1.15, 1 / 1.10, 1 / 1.13, 1 / 1.08});
  CHECK(decided_early(faster, kEe, kEf, 0.02, 14));
  // Exact counts: no spread, decided as soon as beyond θ.
  CHECK(decided_early(logs({1.05, 1.05}), std::vector<double>{0, 0}, std::vector<double>{0, 0}, 0.02, 50));
  CHECK_THROWS_AS(decided_early(d, kEe, kEf, 0.02, 0), Error);
}

TEST_CASE("gate: a row is futile when, at the cap, its floors still fail and nothing is decided") {
  const auto flat = logs({1.01, 0.99, 1.00, 1.02, 0.98, 1.00});
  // Floors of SD 5.5%: at a cap of 20 they still reach 2.63% > θ; at 60, 1.44%: they could pass.
  CHECK(futile(flat, kEw, kEw, 0.02, 20));
  CHECK_FALSE(futile(flat, kEw, kEw, 0.02, 60));
  // Narrow floors: "within noise" stays in reach.
  CHECK_FALSE(futile(flat, kEe, kEf, 0.02, 20));
  // A 1.5x change beside the wide floors is decidable at the cap: not futile.
  CHECK_FALSE(futile(logs({1.52, 1.47, 1.55, 1.45, 1.50, 1.51}), kEw, kEw, 0.02, 20));
}

TEST_CASE("gate: the interaction is Welch's interval on two conditions' log ratios") {
  const Paired busy = of_ratios({1.21, 1.18, 1.23, 1.19, 1.20, 1.22});
  const Paired idle = of_ratios({1.01, 0.99, 1.00, 1.02, 0.98, 1.00, 1.01, 0.99});
  const Interaction i = interaction(busy, idle);
  CHECK(i.ratio == rel(1.2049693443853933, kClosed));
  CHECK(i.lo == rel(1.1840112733160923, kT));
  CHECK(i.hi == rel(1.2262983922797, kT));
  CHECK(i.df == rel(9.77075683234685, kClosed));
  // Exact on both sides: a point, no degrees of freedom to speak of.
  const Interaction exact = interaction(of_ratios({2.0, 2.0, 2.0}), of_ratios({1.0, 1.0}));
  CHECK(exact.lo == rel(2.0, kClosed));
  CHECK(exact.hi == rel(2.0, kClosed));
  CHECK(std::isinf(exact.df));
  CHECK_THROWS_AS(interaction(of_ratios({1.1}), idle), Error);
}

TEST_CASE("gate: the excess spread flags s_d/σ̂₀ beyond the 99% F quantile") {
  // F(0.99; 5, 12) = 5.0643: 3² is beyond it, 2² is not.
  const Floor floor{0.01, 12.0};
  const auto flagged = excess_spread(0.03, floor, 6);
  REQUIRE(flagged);
  CHECK(*flagged == rel(3.0, kClosed));
  CHECK_FALSE(excess_spread(0.02, floor, 6));
  CHECK_FALSE(excess_spread(0.0, Floor{0.0, 10.0}, 6));
  CHECK(std::isinf(*excess_spread(0.01, Floor{0.0, 10.0}, 6)));
}

}  // namespace noisefloor::stats
