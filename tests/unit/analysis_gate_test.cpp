// analysis/gate: the A/B gate's table from quads (§3.13). Every figure asserted here is printed by
// tests/data/gate/verify.py, which computes it from the same lists independently.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "analysis/gate.hpp"
#include "analysis/labels.hpp"
#include "records/sample.hpp"
#include "render/gate.hpp"
#include "test_support.hpp"

using namespace noisefloor;

namespace {

using testing::kClosed;
using testing::kT;
using testing::rel;

// One block's quads: base, head, head', base' per kept repeat.
struct GateQuads {
  std::vector<double> b, h, h2, b2;
};
// A metric every run of a side reports with one value (B/op, allocs/op).
struct Constant {
  std::string unit;
  double base, head;
};

const GateQuads kSlowed{{100.0, 101.2, 99.1, 100.6, 99.7, 100.9, 100.3, 99.5},
                        {150.9, 149.2, 150.4, 151.1, 149.6, 150.2, 149.9, 150.7},
                        {150.1, 150.8, 149.5, 150.3, 150.6, 149.4, 151.0, 149.8},
                        {100.4, 100.1, 99.8, 101.0, 100.2, 99.6, 100.8, 99.9}};
const GateQuads kSlowedAgain{{100.2, 99.6, 100.7, 99.9, 100.4, 100.1},
                             {150.3, 150.9, 149.7, 150.2, 150.8, 149.6},
                             {149.9, 150.4, 150.6, 149.8, 150.1, 150.5},
                             {99.8, 100.5, 100.0, 100.6, 99.7, 100.3}};
const GateQuads kSlowedNotAgain{{100.2, 99.6, 100.7, 99.9, 100.4, 100.1},
                                {100.1, 99.9, 100.4, 100.0, 100.3, 99.8},
                                {100.2, 100.1, 99.7, 100.5, 99.9, 100.0},
                                {99.8, 100.5, 100.0, 100.6, 99.7, 100.3}};
const GateQuads kSteady{{200.0, 200.4, 199.6, 200.2, 199.8, 200.3, 199.9, 200.1},
                        {200.2, 199.7, 200.3, 199.9, 200.1, 200.4, 199.8, 200.0},
                        {199.9, 200.1, 200.2, 199.6, 200.3, 199.9, 200.2, 199.8},
                        {200.1, 199.8, 200.0, 200.3, 199.7, 200.2, 200.0, 199.9}};
const GateQuads kBusySlowed{{101.0, 99.2, 100.8, 98.9, 100.5, 99.6, 101.3, 99.0},
                            {181.5, 178.9, 180.7, 179.4, 181.9, 178.6, 180.2, 179.9},
                            {179.6, 181.2, 178.8, 181.0, 179.3, 180.9, 179.1, 180.6},
                            {99.5, 100.9, 99.3, 101.1, 99.8, 100.4, 98.8, 100.7}};
const GateQuads kBusySteady{{200.5, 199.4, 200.6, 199.7, 200.3, 199.5, 200.4, 199.8},
                            {200.3, 199.6, 200.7, 199.5, 200.2, 199.9, 200.6, 199.4},
                            {199.8, 200.4, 199.6, 200.5, 199.7, 200.3, 199.5, 200.6},
                            {199.6, 200.5, 199.8, 200.4, 199.9, 200.2, 199.7, 200.3}};
// Head/base moves from quad to quad while each side repeats itself: inconclusive, and more
// spread than the floors explain.
const GateQuads kFlaky{{100.0, 100.1, 99.9, 100.0, 100.1, 99.9},
                       {103.0, 101.0, 105.0, 102.0, 104.5, 100.8},
                       {103.1, 100.9, 105.1, 101.9, 104.4, 100.9},
                       {100.1, 100.0, 100.0, 99.9, 100.0, 100.1}};
// base' wanders ±5%: the A/A floor fails although d alone would say 1.5× slower.
const GateQuads kNoisy{{100.0, 100.2, 99.9, 100.1, 100.0, 99.8, 100.2, 100.0},
                       {150.2, 149.8, 150.1, 150.0, 149.9, 150.3, 150.0, 150.1},
                       {150.0, 150.1, 149.9, 150.2, 150.1, 149.8, 150.2, 149.9},
                       {104.0, 95.5, 103.2, 96.1, 105.0, 94.8, 103.5, 96.5}};
// A throughput that drops by a fifth.
const GateQuads kCodec{{500.0, 501.0, 499.0, 500.5, 499.5, 500.2},
                       {400.1, 399.7, 400.4, 399.9, 400.2, 399.8},
                       {399.8, 400.3, 399.6, 400.1, 399.9, 400.2},
                       {500.3, 499.6, 500.8, 499.8, 500.1, 499.7}};

// The four runs of `name`'s kept repeats in run order, as the plan orders them (kept repeat k:
// b h h' b' for k % 4 ∈ {0, 3}, h b b' h' otherwise), after one warm-up quad whose absurd values
// would show if it were counted.
void add_quads(std::vector<records::Sample>& out, const std::string& condition, const std::string& name,
               const GateQuads& q, int block = 1, const std::string& unit = "sec/op",
               const std::vector<Constant>& constants = {}) {
  const auto run = [&](int repeat, bool warmup, bool abba, const std::string& variant, double value) {
    records::Sample s;
    s.condition = condition;
    s.name = name;
    s.benchmark = name.substr(0, name.rfind('-'));
    s.procs = 2;
    s.pair = std::string(records::kGatePair);
    s.variant = variant;
    s.order = abba ? model::PairOrder::abba : model::PairOrder::baab;
    s.repeat = repeat;
    s.warmup = warmup;
    s.block = block;
    s.metrics = {{value, unit}};
    const bool base = variant.starts_with("base");
    for (const auto& c : constants) s.metrics.push_back({base ? c.base : c.head, c.unit});
    out.push_back(s);
  };
  const auto quad = [&](int repeat, bool warmup, double b, double h, double h2, double b2) {
    const bool abba = repeat % 4 == 0 || repeat % 4 == 3;
    if (abba) {
      run(repeat, warmup, abba, "base", b), run(repeat, warmup, abba, "head", h);
      run(repeat, warmup, abba, "head'", h2), run(repeat, warmup, abba, "base'", b2);
    } else {
      run(repeat, warmup, abba, "head", h), run(repeat, warmup, abba, "base", b);
      run(repeat, warmup, abba, "base'", b2), run(repeat, warmup, abba, "head'", h2);
    }
  };
  quad(0, true, 1e9, 1.0, 1.0, 1e9);
  for (std::size_t k = 0; k < q.b.size(); ++k)
    quad(static_cast<int>(k), false, q.b[k], q.h[k], q.h2[k], q.b2[k]);
}

// Exact multiplicative drift: the run at position p (of the block's 4n) takes c·e^{a·p}, the head
// r times that.
GateQuads drifting(std::size_t n, double ratio, double a) {
  GateQuads q;
  const double c = 1000.0;
  for (std::size_t k = 0; k < n; ++k) {
    const bool abba = k % 4 == 0 || k % 4 == 3;
    const double p = 4.0 * static_cast<double>(k);
    const auto at = [&](double pos, double scale) { return scale * c * std::exp(a * (p + pos)); };
    q.b.push_back(at(abba ? 0 : 1, 1.0));
    q.h.push_back(at(abba ? 1 : 0, ratio));
    q.h2.push_back(at(abba ? 2 : 3, ratio));
    q.b2.push_back(at(abba ? 3 : 2, 1.0));
  }
  return q;
}

const std::map<std::string, analysis::Label> kIdle{{"idle", analysis::Label::measured_clean}};

const analysis::GateRow& row_of(const analysis::GateTable& t, const std::string& condition,
                                const std::string& benchmark, const std::string& unit) {
  const auto it = std::find_if(t.rows.begin(), t.rows.end(), [&](const analysis::GateRow& r) {
    return r.condition == condition && r.benchmark == benchmark && r.unit == unit;
  });
  REQUIRE_MESSAGE(it != t.rows.end(), "no row " << condition << " / " << benchmark << " / " << unit);
  return *it;
}

// Among the notes the gate prints (render::gate_notes: the blocks' caveats, then the table's own).
bool noted(const analysis::GateTable& t, const std::string& part) {
  const std::vector<std::string> notes = render::gate_notes(t);
  return std::any_of(notes.begin(), notes.end(),
                     [&](const auto& n) { return n.find(part) != std::string::npos; });
}

using Confirm = std::map<std::string, std::vector<std::string>>;

// One look after all n quads, at α/2 = 2.5% a side (samples: 2n), confirmation as the rows decide.
model::GateSettings fixed(int quads) {
  model::GateSettings s;
  s.sequential = false;
  s.max_repeats = s.first_repeats = quads;
  return s;
}

}  // namespace

TEST_CASE("gate: exact linear drift cancels in every quad: the effect is the true ratio, both floors GM 1") {
  std::vector<records::Sample> s;
  add_quads(s, "idle", "BenchmarkDrift-2", drifting(8, 1.25, 0.002));
  const auto t = analysis::build_gate(s, fixed(8), kIdle, {});
  REQUIRE(t.rows.size() == 1);
  const auto& b = t.rows[0].first;
  CHECK(b.n == 8);
  CHECK(b.shift.n == 16);
  // The pairs are ln 1.25 ± a (b h then h' b': +a, −a; h b then b' h': −a, +a): the median of their
  // Walsh averages is ln 1.25 exactly, and the interval spans the drift's ±a.
  CHECK(b.effect() == rel(1.25, kClosed));
  CHECK(b.lo() == rel(1.2475024983341665, kT));
  CHECK(b.hi() == rel(1.2525025016675004, kT));
  CHECK(b.ratio.gm == rel(1.25, kClosed));  // the quads' geometric mean: exact too
  CHECK(b.aa.gm == rel(1.0, kClosed));      // the signs cancel +3a, +a, −a, −3a
  CHECK(b.bb.gm == rel(1.0, kClosed));      // and +a, +3a, −3a, −a
  CHECK(b.aa.outcome == stats::AaOutcome::pass);
  CHECK(b.verdict == stats::Verdict::slower);
  CHECK(t.rows[0].verdict_word() == analysis::Word::slower);

  // Ten times the drift: d still cancels it exactly, the floors' spread does not hide it.
  std::vector<records::Sample> strong;
  add_quads(strong, "idle", "BenchmarkDrift-2", drifting(8, 1.25, 0.02));
  const auto u = analysis::build_gate(strong, fixed(8), kIdle, {});
  REQUIRE(u.rows.size() == 1);
  CHECK(u.rows[0].first.effect() == rel(1.25, kClosed));
  CHECK(u.rows[0].first.lo() == rel(1.225248341633444, kT));
  CHECK(u.rows[0].first.hi() == rel(1.2752516750334446, kT));
  CHECK(u.rows[0].first.aa.gm == rel(1.0, kClosed));
  CHECK(u.rows[0].first.aa.outcome == stats::AaOutcome::fail_imprecise);
  // The floor failed; the verdict rests on the row's own interval, which holds the drift: slower.
  CHECK(u.rows[0].first.floor_failed);
  CHECK(u.rows[0].first.verdict == stats::Verdict::slower);
}

TEST_CASE("gate: a 1.5x change is slower, its CI holds 1.5; floors, σ̂₀ and MDE as computed independently") {
  std::vector<records::Sample> s;
  add_quads(s, "idle", "BenchmarkSlowed-2", kSlowed, 1, "sec/op", {{"B/op", 64, 64}, {"allocs/op", 0, 0}});
  const auto t = analysis::build_gate(s, fixed(8), kIdle, {});
  REQUIRE(t.rows.size() == 3);  // every unit the samples carry, in their order
  CHECK(t.rows[0].unit == "sec/op");
  CHECK(t.rows[1].unit == "B/op");
  CHECK(t.rows[2].unit == "allocs/op");
  const auto& r = t.rows[0];
  CHECK(r.benchmark == "BenchmarkSlowed-2");
  CHECK(r.name == "BenchmarkSlowed-2");
  CHECK(r.label == analysis::Label::measured_clean);
  CHECK(r.gating);
  const auto& b = r.first;
  CHECK(b.n == 8);
  CHECK(b.effect() == rel(1.4996246089661507, kClosed));
  CHECK(b.lo() == rel(1.4942973318997212, kClosed));
  CHECK(b.hi() == rel(1.5047447525447406, kClosed));
  CHECK(b.shift.tail == rel(0.025, kClosed));
  CHECK(b.shift.level == rel(0.9556884765625, kClosed));  // 16 pairs: k = 30 of the 136 Walsh averages
  CHECK(b.ratio.gm == rel(1.4992959833658632, kClosed));
  CHECK(b.aa.gm == rel(0.9956477481601693, kClosed));
  CHECK(b.aa.halfwidth == rel(0.005324996452869435, kT));
  CHECK(b.bb.halfwidth == rel(0.005789664511412829, kT));
  CHECK_FALSE(b.floor_failed);
  CHECK(b.sigma0 == rel(0.004691428754181214, kClosed));
  CHECK(b.nu0 == rel(13.903667551713207, kClosed));
  CHECK(b.mde_slower == rel(0.021517069404662054, kT));
  CHECK(b.mde_faster == rel(0.02145541181943761, kT));
  CHECK(b.verdict == stats::Verdict::slower);
  CHECK_FALSE(b.needs_more);
  CHECK_FALSE(b.excess_spread);
  CHECK(r.verdict == stats::Verdict::slower);
  CHECK(r.verdict_word() == analysis::Word::slower);
  // One gating row: one block keeps the gate's false alarms at α/2 (§3.13), nothing to confirm.
  CHECK_FALSE(t.confirm);
  CHECK(r.confirmed);
  CHECK(r.regression());
  CHECK(t.regression());
  CHECK(t.gating_rows == 1);
  CHECK(t.false_alarm_bound == rel(0.025, kClosed));
  CHECK(analysis::to_confirm(t).empty());
  // The same count on both sides, zero included: exact, ratio 1, no interval to estimate.
  for (const auto* exact : {&t.rows[1], &t.rows[2]}) {
    INFO(exact->unit);
    CHECK_FALSE(exact->gating);
    CHECK(exact->first.n == 8);
    CHECK(exact->first.effect() == 1.0);
    CHECK(exact->first.lo() == 1.0);
    CHECK(exact->first.hi() == 1.0);
    CHECK(exact->first.aa.outcome == stats::AaOutcome::pass);
    CHECK(exact->first.bb.outcome == stats::AaOutcome::pass);
    CHECK(exact->first.sigma0 == 0.0);
    CHECK(exact->first.mde_slower == rel(0.02, 1e-14));
    CHECK(exact->verdict == stats::Verdict::equivalent);
  }
  // Nothing to say about the exact rows (the alternating b̃ of this data trips the lag-1 check).
  CHECK_FALSE(noted(t, "B/op"));
  CHECK_FALSE(noted(t, "allocs/op"));
}

TEST_CASE("gate: a second block confirms a slower row; one that does not leaves it unconfirmed") {
  std::vector<records::Sample> s;
  add_quads(s, "idle", "BenchmarkSlowed-2", kSlowed);
  std::vector<records::Sample> confirmed = s, refuted = s;
  add_quads(confirmed, "idle", "BenchmarkSlowed-2", kSlowedAgain, 2);
  add_quads(refuted, "idle", "BenchmarkSlowed-2", kSlowedNotAgain, 2);
  model::GateSettings confirm = fixed(8);
  confirm.confirm = true;  // --confirm: one gating row, confirmed all the same

  const auto t = analysis::build_gate(confirmed, confirm, kIdle, {});
  CHECK(t.confirm);
  REQUIRE(t.rows.size() == 1);
  REQUIRE(t.rows[0].second);
  CHECK(t.rows[0].second->block == 2);
  CHECK(t.rows[0].second->n == 6);
  CHECK(t.rows[0].second->verdict == stats::Verdict::slower);
  CHECK(t.rows[0].confirmed);
  CHECK(t.rows[0].regression());
  CHECK(t.regression());
  CHECK(analysis::to_confirm(t).empty());  // already confirmed: nothing left to run

  const auto u = analysis::build_gate(refuted, confirm, kIdle, {});
  REQUIRE(u.rows[0].second);
  CHECK(u.rows[0].second->verdict == stats::Verdict::equivalent);
  CHECK(u.rows[0].verdict == stats::Verdict::slower);  // the first block's, unconfirmed
  CHECK_FALSE(u.rows[0].confirmed);
  CHECK_FALSE(u.regression());
  CHECK(noted(u, "slower in block 1, not confirmed by block 2 (equivalent)"));

  CHECK(t.false_alarm_bound == rel(0.000625, kClosed));  // (2.5%)²

  // Without confirmation the first block alone decides.
  model::GateSettings alone = fixed(8);
  alone.confirm = false;
  const auto v = analysis::build_gate(s, alone, kIdle, {});
  CHECK(v.rows[0].confirmed);
  CHECK(v.regression());
  CHECK(v.false_alarm_bound == rel(0.025, kClosed));
  CHECK(v.rows[0].first.mde_slower < t.rows[0].first.mde_slower);
}

TEST_CASE("gate: a failed floor is said, and never turns a clear change into anything else") {
  std::vector<records::Sample> s;
  add_quads(s, "idle", "BenchmarkNoisy-2", kNoisy);
  const auto t = analysis::build_gate(s, fixed(8), kIdle, {});
  REQUIRE(t.rows.size() == 1);
  const auto& b = t.rows[0].first;
  CHECK(b.effect() == rel(1.5006255687391257, kClosed));
  CHECK(b.lo() == rel(1.474594930599161, kClosed));
  CHECK(b.hi() == rel(1.5316644011235276, kClosed));
  CHECK(b.aa.outcome == stats::AaOutcome::fail_imprecise);
  CHECK(b.aa.halfwidth == rel(0.03796676077739414, kT));
  CHECK(b.bb.outcome == stats::AaOutcome::pass);
  CHECK(b.floor_failed);
  CHECK(b.verdict == stats::Verdict::slower);  // its own interval is far beyond θ
  CHECK(t.rows[0].regression());

  // The same noisy base' around no change: head ran exactly as base in every pair, so the pairs
  // say "no change", whatever base' did two runs later.
  std::vector<records::Sample> flat;
  GateQuads same = kNoisy;
  same.h = same.b;
  same.h2 = same.b2;
  add_quads(flat, "idle", "BenchmarkNoisy-2", same);
  const auto f = analysis::build_gate(flat, fixed(8), kIdle, {});
  CHECK(f.rows[0].first.floor_failed);
  CHECK(f.rows[0].first.effect() == 1.0);
  CHECK(f.rows[0].first.verdict == stats::Verdict::equivalent);
}

TEST_CASE("gate: an inconclusive row says how many more quads; a spread beyond the floors is flagged") {
  // head moves from quad to quad (±2%) while each side repeats itself (±0.1%).
  const GateQuads unsure{{100.0, 100.1, 99.9, 100.0, 100.1, 99.9},
                         {101.5, 99.0, 103.0, 100.2, 102.4, 98.9},
                         {101.4, 99.2, 102.8, 100.1, 102.6, 99.1},
                         {100.1, 100.0, 100.0, 99.9, 100.0, 100.1}};
  std::vector<records::Sample> s;
  add_quads(s, "idle", "BenchmarkFlaky-2", unsure);
  const auto t = analysis::build_gate(s, fixed(6), kIdle, {});
  REQUIRE(t.rows.size() == 1);
  const auto& b = t.rows[0].first;
  CHECK(b.effect() == rel(1.0083980539603734, kClosed));
  CHECK(b.lo() == rel(0.9959778872705517, kClosed));
  CHECK(b.hi() == rel(1.0204851787262763, kClosed));
  CHECK(b.aa.halfwidth == rel(0.0013957496140959424, kT));
  CHECK(b.bb.halfwidth == rel(0.001258767813974604, kT));
  CHECK_FALSE(b.floor_failed);
  CHECK(b.verdict == stats::Verdict::inconclusive);
  CHECK(b.needs_more == std::optional<std::size_t>(5));
  REQUIRE(b.excess_spread);
  CHECK(*b.excess_spread == rel(18.769958737351075, kClosed));
  CHECK(noted(t, "BenchmarkFlaky-2 sec/op in idle: head/base varies 18.8× more than the floors explain"));

  // The old flaky head, +2.7% with every pair above 1: a real change beyond θ, slower.
  std::vector<records::Sample> f;
  add_quads(f, "idle", "BenchmarkFlaky-2", kFlaky);
  const auto u = analysis::build_gate(f, fixed(6), kIdle, {});
  CHECK(u.rows[0].first.effect() == rel(1.0263485308036697, kClosed));
  CHECK(u.rows[0].first.lo() == rel(1.0144850910683705, kClosed));
  CHECK(u.rows[0].first.verdict == stats::Verdict::slower);
}

TEST_CASE("gate: under load the change differs (Slowed) or behaves the same (Steady)") {
  std::vector<records::Sample> s;
  // The contended condition ran first: the reference is still the first without load.
  add_quads(s, "busy", "BenchmarkSlowed-2", kBusySlowed);
  add_quads(s, "busy", "BenchmarkSteady-2", kBusySteady);
  add_quads(s, "idle", "BenchmarkSlowed-2", kSlowed);
  add_quads(s, "idle", "BenchmarkSteady-2", kSteady);
  const std::map<std::string, analysis::Label> labels{{"idle", analysis::Label::measured_clean},
                                                      {"busy", analysis::Label::contended_paired}};
  const auto t = analysis::build_gate(s, fixed(8), labels, {"busy"});
  REQUIRE(t.rows.size() == 4);
  CHECK(t.rows[0].condition == "busy");
  CHECK(t.rows[0].label == analysis::Label::contended_paired);
  CHECK(row_of(t, "idle", "BenchmarkSteady-2", "sec/op").first.lo() == rel(0.9990002483754031, kClosed));
  CHECK(row_of(t, "idle", "BenchmarkSteady-2", "sec/op").verdict == stats::Verdict::equivalent);
  REQUIRE(t.contention.size() == 2);
  const auto& slowed = t.contention[0];
  CHECK(slowed.benchmark == "BenchmarkSlowed-2");
  CHECK(slowed.unit == "sec/op");
  CHECK(slowed.condition == "busy");
  CHECK(slowed.reference == "idle");
  CHECK(slowed.ratio == rel(1.2006542150704769, kClosed));
  CHECK(slowed.lo == rel(1.1962886925201677, kT));
  CHECK(slowed.hi == rel(1.205035668380022, kT));
  CHECK(slowed.df == rel(9.678076104328374, kClosed));
  CHECK(slowed.finding == analysis::GateContention::Finding::differs);
  const auto& steady = t.contention[1];
  CHECK(steady.benchmark == "BenchmarkSteady-2");
  CHECK(steady.ratio == rel(0.9999682276080313, kClosed));
  CHECK(steady.lo == rel(0.9986026707704109, kT));
  CHECK(steady.hi == rel(1.001335651800438, kT));
  CHECK(steady.finding == analysis::GateContention::Finding::same);
  // Nothing contended: nothing compared.
  CHECK(analysis::build_gate(s, fixed(8), labels, {}).contention.empty());
}

TEST_CASE("gate: to_confirm lists the gating rows block 1 calls worse, and only those") {
  std::vector<records::Sample> s;
  add_quads(s, "idle", "BenchmarkSlowed-2", kSlowed, 1, "sec/op", {{"B/op", 64, 64}, {"allocs/op", 0, 0}});
  add_quads(s, "idle", "BenchmarkSteady-2", kSteady, 1, "sec/op", {{"B/op", 64, 128}, {"allocs/op", 0, 1}});
  // Two gating rows: one block's bound, 1 − (1 − 2.5%)², is within α = 5%: no second block.
  const auto alone = analysis::build_gate(s, fixed(8), kIdle, {});
  CHECK(alone.gating_rows == 2);
  CHECK_FALSE(alone.confirm);
  CHECK(alone.false_alarm_bound == rel(0.049375, 1e-12));
  CHECK(analysis::to_confirm(alone).empty());
  CHECK(alone.regression());
  model::GateSettings confirm = fixed(8);
  confirm.confirm = true;
  const auto t = analysis::build_gate(s, confirm, kIdle, {});
  REQUIRE(t.rows.size() == 6);
  CHECK(t.gating_rows == 2);
  CHECK(t.false_alarm_bound == rel(0.0012496093750000003, 1e-12));
  // Steady's memory got worse, exactly (twice the bytes; an allocation where there was none),
  // but memory does not gate by default.
  const auto& bytes = row_of(t, "idle", "BenchmarkSteady-2", "B/op");
  CHECK(bytes.first.effect() == 2.0);
  CHECK(bytes.verdict_word() == analysis::Word::worse);
  const auto& allocs = row_of(t, "idle", "BenchmarkSteady-2", "allocs/op");
  CHECK(std::isinf(allocs.first.lo()));
  CHECK(allocs.verdict_word() == analysis::Word::worse);
  CHECK(analysis::to_confirm(t) == Confirm{{"idle", {"BenchmarkSlowed-2"}}});

  model::GateSettings memory = confirm;
  memory.gating_units = {"B/op"};
  const auto u = analysis::build_gate(s, memory, kIdle, {});
  CHECK(u.gating_rows == 2);
  CHECK(analysis::to_confirm(u) == Confirm{{"idle", {"BenchmarkSteady-2"}}});

  model::GateSettings both = fixed(8);
  both.gating_units = {"ns/op", "allocs/op"};  // units meet tidied: ns/op is sec/op
  const auto v = analysis::build_gate(s, both, kIdle, {});
  CHECK(v.gating_rows == 4);
  CHECK(v.confirm);  // four rows: one block's bound would be 9.6%
  CHECK(analysis::to_confirm(v) == Confirm{{"idle", {"BenchmarkSlowed-2", "BenchmarkSteady-2"}}});
}

TEST_CASE("gate: a throughput that goes down is slower") {
  std::vector<records::Sample> s;
  add_quads(s, "idle", "BenchmarkCodec-2", kCodec, 1, "MB/s");
  const auto t = analysis::build_gate(s, fixed(6), kIdle, {});
  REQUIRE(t.rows.size() == 1);
  CHECK(t.rows[0].better == model::Better::higher);
  CHECK(t.rows[0].verdict == stats::Verdict::faster);         // the value went down ...
  CHECK(t.rows[0].verdict_word() == analysis::Word::slower);  // ... which for a throughput is slower
  CHECK(t.regression());
  model::GateSettings confirm = fixed(6);
  confirm.confirm = true;
  CHECK(analysis::to_confirm(analysis::build_gate(s, confirm, kIdle, {})) ==
        Confirm{{"idle", {"BenchmarkCodec-2"}}});
}

TEST_CASE("gate: incomplete quads and values <= 0 are skipped and said; one quad gives no verdict") {
  std::vector<records::Sample> s;
  add_quads(s, "idle", "BenchmarkSlowed-2", kSlowed);
  // Repeat 2 lost its head' (an interrupted run); repeat 5's base read 0.
  s.erase(std::remove_if(
              s.begin(), s.end(),
              [](const records::Sample& x) { return !x.warmup && x.repeat == 2 && x.variant == "head'"; }),
          s.end());
  for (auto& x : s)
    if (!x.warmup && x.repeat == 5 && x.variant == "base") x.metrics[0].value = 0.0;
  GateQuads one{{100.0}, {150.0}, {151.0}, {101.0}};
  add_quads(s, "idle", "BenchmarkOnce-2", one);
  const auto t = analysis::build_gate(s, {}, kIdle, {});
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[0].first.n == 6);
  CHECK(t.rows[0].first.verdict == stats::Verdict::slower);
  CHECK(noted(t, "BenchmarkSlowed-2 sec/op in idle: 2 of 8 quads skipped (1 incomplete, 1 with a value"));
  CHECK(t.rows[1].first.n == 1);
  CHECK(t.rows[1].first.verdict == stats::Verdict::inconclusive);
  CHECK_FALSE(t.rows[1].first.needs_more);
  CHECK(noted(t, "BenchmarkOnce-2 sec/op in idle: 1 complete quad: no interval, no verdict"));
}

TEST_CASE(
    "gate: the two answers issue 39 replayed — a clear change beside failed floors is slower, never PASS") {
  // 6 quads whose base and base' wander ±20% (A/A and B/B fail, as they did: ±21.4%, ±17.1%) while
  // each pair, run back to back, says +9% to +17%; then the same beside a +50% head.
  const std::vector<double> b{100, 130, 90, 120, 80, 110}, b2{125, 95, 118, 85, 112, 100};
  const auto head = [](const std::vector<double>& base, const std::vector<double>& r, double scale) {
    std::vector<double> out;
    for (std::size_t i = 0; i < base.size(); ++i) out.push_back(base[i] * r[i] * scale);
    return out;
  };
  const std::vector<double> r1{1.10, 1.16, 1.12, 1.14, 1.09, 1.17}, r2{1.15, 1.11, 1.13, 1.10, 1.16, 1.12};
  for (const double scale : {1.0, 1.5 / 1.13}) {
    INFO("head at " << scale << "x the +13% head");
    std::vector<records::Sample> s;
    add_quads(s, "idle", "burn", GateQuads{b, head(b, r1, scale), head(b2, r2, scale), b2}, 1, "cpu-sec/op");
    const auto t = analysis::build_gate(s, fixed(6), kIdle, {});
    REQUIRE(t.rows.size() == 1);
    const auto& r = t.rows[0];
    CHECK(r.first.floor_failed);
    CHECK(r.first.aa.outcome != stats::AaOutcome::pass);
    CHECK(r.first.lo() > 1.0 + t.settings.threshold);  // the whole interval beyond the margin ...
    CHECK(r.verdict == stats::Verdict::slower);        // ... so slower, whatever the floors say
    CHECK(r.regression());
    CHECK(t.regression());
  }
}
