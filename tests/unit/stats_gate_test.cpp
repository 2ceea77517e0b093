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

TEST_CASE("gate: the shift is the Hodges–Lehmann median of the Walsh averages, its ends signed-rank orders") {
  // Hollander & Wolfe's depression data (the example of R's wilcox.test): x − y of 9 patients.
  const std::vector<double> d{1.83 - 0.878, 0.50 - 0.647, 1.62 - 0.598, 2.48 - 2.05, 1.68 - 1.06,
                              1.88 - 1.29,  1.55 - 1.06,  3.06 - 3.14,  1.30 - 1.29};
  const Shift s = signed_rank_shift(d, 0.025);
  CHECK(s.n == 9);
  CHECK(s.estimate == rel(0.46, kClosed));  // R's (pseudo)median
  // k = 6: P0(T+ <= 5) = 10/512 <= 2.5% < P0(T+ <= 6) = 14/512, so [W_(6), W_(40)] of the 45.
  CHECK(s.lo == rel(0.01, kClosed));
  CHECK(s.hi == rel(0.786, kClosed));
  CHECK(s.level == rel(0.9609375, kClosed));  // 1 − 2·10/512
  // A stricter tail: k = 2 (P0(T+ <= 1) = 2/512), a wider interval.
  const Shift strict = signed_rank_shift(d, 0.005);
  CHECK(strict.lo == rel(-0.1135, kClosed));
  CHECK(strict.hi == rel(0.987, kClosed));
  CHECK(strict.level == rel(0.9921875, kClosed));
  // 6 values are the least with an interval at 2.5% a side (1/64); 5 have none (1/32).
  const Shift six = signed_rank_shift(std::span(d).first(6), 0.025);
  CHECK(six.lo == rel(-0.147, kClosed));
  CHECK(six.hi == rel(1.022, kClosed));
  const Shift five = signed_rank_shift(std::span(d).first(5), 0.025);
  CHECK(five.estimate == rel(0.62, kClosed));
  CHECK(std::isinf(five.lo));
  CHECK(std::isinf(five.hi));
  CHECK(std::isnan(five.level));
  CHECK_THROWS_AS(signed_rank_shift(std::vector<double>{}, 0.025), Error);
  CHECK_THROWS_AS(signed_rank_shift(d, 0.5), Error);
  CHECK_THROWS_AS(signed_rank_shift(std::vector<double>{0.1, std::nan("")}, 0.025), Error);
}

TEST_CASE("gate: the verdict needs a real change beyond θ; within noise needs the interval inside ±θ") {
  const auto at = [](double estimate, double lo, double hi) {
    Shift s;
    s.estimate = std::log(estimate), s.lo = std::log(lo), s.hi = std::log(hi);
    return shift_verdict(s, 0.02);
  };
  CHECK(at(1.40, 1.24, 1.54) == Verdict::slower);           // the 1.5x head: never inconclusive
  CHECK(at(1.129, 1.067, 1.195) == Verdict::slower);        // +12.9% [+6.7%, +19.5%]
  CHECK(at(1.05, 1.001, 1.10) == Verdict::slower);          // beyond θ and above 1, though not beyond 1 + θ
  CHECK(at(1.015, 1.005, 1.025) == Verdict::inconclusive);  // a change, under the threshold
  CHECK(at(1.01, 1.002, 1.018) == Verdict::equivalent);     // a change, inside ±2%
  CHECK(at(1.05, 0.99, 1.11) == Verdict::inconclusive);     // the interval holds 1
  CHECK(at(0.90, 0.85, 0.95) == Verdict::faster);
  CHECK(at(0.985, 0.981, 0.99) == Verdict::equivalent);
  Shift none;  // no interval (NaN)
  CHECK(shift_verdict(none, 0.02) == Verdict::inconclusive);
}

TEST_CASE("gate: the looks — one at α/2 for a fixed block; half at the first look, the rest shared") {
  const auto fixed = gate_looks(6, 6, 0.95, false);
  REQUIRE(fixed.size() == 1);
  CHECK(fixed[0].quads == 6);
  CHECK(fixed[0].tail == rel(0.025, kClosed));
  CHECK(gate_looks(6, 12, 0.95, false).front().quads == 12);
  const auto two = gate_looks(6, 10, 0.95, true);
  REQUIRE(two.size() == 2);
  CHECK(two[0].quads == 6);
  CHECK(two[0].tail == rel(0.0125, kClosed));
  CHECK(two[1].quads == 10);
  CHECK(two[1].tail == rel(0.0125, kClosed));
  const auto five = gate_looks(6, 60, 0.95, true);
  REQUIRE(five.size() == 5);
  const std::size_t at[] = {6, 12, 24, 48, 60};
  double spent = 0;
  for (std::size_t j = 0; j < five.size(); ++j) {
    CHECK(five[j].quads == at[j]);
    spent += five[j].tail;
  }
  CHECK(five[0].tail == rel(0.0125, kClosed));
  CHECK(five[4].tail == rel(0.003125, kClosed));
  CHECK(spent == rel(0.025, kClosed));  // the union bound: α/2 over all looks
  CHECK(gate_looks(6, 6, 0.95, true).size() == 1);
  CHECK_THROWS_AS(gate_looks(0, 6, 0.95, true), Error);
}

TEST_CASE("gate: futile only when an optimistic spread at the cap still decides nothing") {
  const auto logs = [](std::initializer_list<double> ratios) {
    std::vector<double> out;
    for (const double r : ratios) out.push_back(std::log(r));
    return out;
  };
  // Centred on 1 with a 1.5% spread: "within noise" is in reach at the cap.
  const auto flat = logs({1.01, 0.99, 1.00, 1.02, 0.98, 1.00, 1.01, 0.99, 1.00, 1.02, 0.98, 1.00});
  CHECK_FALSE(futile(flat, 0.02, 24, 0.025));
  // An estimate of +1.7%, just under θ: slower cannot be said (the estimate is under it), and at 24
  // pairs even an optimistic spread leaves "within noise" out of reach (1.7% + 0.71% > ln 1.02);
  // at 2000 pairs it is in reach.
  const auto edge = logs({1.05, 0.99, 1.04, 1.00, 1.03, 0.995, 1.045, 1.005, 1.02, 1.01, 1.035, 0.985});
  CHECK(futile(edge, 0.02, 24, 0.025));
  CHECK_FALSE(futile(edge, 0.02, 2000, 0.025));
  // A 1.5x change is decided: not futile.
  CHECK_FALSE(futile(logs({1.52, 1.47, 1.55, 1.45, 1.50, 1.51}), 0.02, 24, 0.025));
  // Too few to project a spread: never futile.
  CHECK_FALSE(futile(logs({1.01, 1.03}), 0.02, 24, 0.025));
}

TEST_CASE("gate: the MDE adds t_π·σ̂₀/√n to the larger of θ and the interval's reach, π = √P when confirmed") {
  const Mde single = mde(0.01, 6, 0.02, 0.8, false, 0.025);
  CHECK(single.slower == rel(0.023836298466815356, kT));
  CHECK(single.faster == rel(0.02367204454765764, kT));
  const Mde confirmed = mde(0.01, 6, 0.02, 0.8, true, 0.025);
  CHECK(confirmed.slower == rel(0.025987055083889356, kT));
  CHECK(single.slower < confirmed.slower);  // confirmation costs power at a fixed n
  // A wide spread: the interval's reach, not θ, is the larger.
  CHECK(mde(0.03, 6, 0.02, 0.8, false, 0.025).slower == rel(0.0436718649843777, kT));
  // An exact floor: the threshold itself.
  const Mde exact = mde(0.0, 6, 0.02, 0.8, false, 0.025);
  CHECK(exact.slower == rel(0.02, 1e-14));
  CHECK(exact.faster == rel(0.02, 1e-14));
  CHECK_THROWS_AS(mde(0.01, 6, 0.02, 1.0, true, 0.025), Error);
  CHECK_THROWS_AS(mde(0.01, 1, 0.02, 0.8, true, 0.025), Error);
}

TEST_CASE("gate: needs about k more repeats — the least N with t_{N−1}·s/√N below the gap") {
  // Past θ₊: slower needs the interval above 0, a gap of d̄ itself.
  CHECK(repeats_needed(std::log(1.03), 0.05, 6, 0.02, 0.95, 60) == std::optional<std::size_t>(8));
  CHECK(repeats_needed(-std::log(1.03), 0.05, 6, 0.02, 0.95, 60) == std::optional<std::size_t>(8));
  // Inside: within noise needs the whole interval inside ±θ.
  CHECK(repeats_needed(std::log(1.01), 0.02, 6, 0.02, 0.95, 60) == std::optional<std::size_t>(13));
  // Past θ₊ the gap is d̄ itself (0.0398 against s = 0.01): N* = 3.
  CHECK(repeats_needed(std::log(1.02) + 0.02, 0.01, 2, 0.02, 0.95, 60) == std::optional<std::size_t>(1));
  // No spread: two quads decide.
  CHECK(repeats_needed(std::log(1.1), 0.0, 2, 0.02, 0.95, 60) == std::optional<std::size_t>(0));
  // On the threshold: no number of repeats decides it.
  CHECK_FALSE(repeats_needed(std::log1p(0.02), 0.02, 6, 0.02, 0.95, 60));
  CHECK_THROWS_AS(repeats_needed(0.0, 0.01, 1, 0.02, 0.95, 60), Error);
}

TEST_CASE("gate: the false-alarm bound per row and per gate; confirmation once m·α/2 > α") {
  CHECK(false_alarm_row(0.95, false) == rel(0.025, kClosed));
  CHECK(false_alarm_row(0.95, true) == rel(0.000625, kClosed));
  CHECK(false_alarm_bound(1, 0.95, false) == rel(0.025, kClosed));
  CHECK(false_alarm_bound(2, 0.95, false) == rel(0.049375, 1e-12));              // 4.9%: one block
  CHECK(false_alarm_bound(3, 0.95, true) == rel(0.0018738283691406255, 1e-12));  // confirmed
  CHECK(false_alarm_bound(20, 0.95, true) == rel(0.012426058832500442, 1e-12));
  CHECK(false_alarm_bound(80, 0.95, true) == rel(0.048785444538635, 1e-12));
  CHECK(false_alarm_bound(0, 0.95, true) == 0.0);
  CHECK_FALSE(confirmation_needed(1, 0.95, std::nullopt));
  CHECK_FALSE(confirmation_needed(2, 0.95, std::nullopt));
  CHECK(confirmation_needed(3, 0.95, std::nullopt));
  CHECK(confirmation_needed(1, 0.95, true));
  CHECK_FALSE(confirmation_needed(20, 0.95, false));
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
