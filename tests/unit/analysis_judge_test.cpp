// Claims judged on a table, and a published table beside it (analysis/judge.hpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "analysis/judge.hpp"
#include "claims/claim.hpp"
#include "render/judge.hpp"

using namespace noisefloor;
using claims::Verdict;

namespace {

analysis::Row row(const std::string& condition, std::vector<double> values) {
  analysis::Row r;
  r.condition = condition;
  r.name = "BenchmarkX-2";
  r.benchmark = "BenchmarkX";
  r.unit = "ns/op";
  r.values = std::move(values);
  r.summary = stats::summarize(r.values);
  return r;
}

// idle: CV about 1%; noisy: CV about 20% and twice as slow; pinned: CV about 2%.
analysis::Table demo() {
  analysis::Table t;
  t.conditions = {"idle", "noisy", "pinned"};
  std::vector<double> idle, noisy, pinned;
  for (int i = 0; i < 20; ++i) {
    const double wobble = (i % 5) - 2;  // -2..2
    idle.push_back(10 + 0.07 * wobble);
    noisy.push_back(20 + 2.8 * wobble);
    pinned.push_back(12 + 0.17 * wobble);
  }
  t.rows = {row("idle", idle), row("noisy", noisy), row("pinned", pinned)};
  return t;
}

model::PublishedTable published() {
  model::PublishedTable p;
  p.format = "markdown";
  p.rows = {{"idle", "", 20, 11.46, 0.54, 4.75, {}, {}, {}},
            {"noisy (16 spinners)", "", 20, 34.97, 6.60, 18.88, {}, {}, {}},
            {"pinned container, same spinners", "", 20, 16.28, 0.85, 5.25, {}, {}, {}},
            {"shielded", "", 20, 12.0, 0.5, 4.2, {}, {}, {}}};
  return p;
}

}  // namespace

TEST_CASE("judge: every claim with its verdict, agreement with the publication") {
  const auto j =
      analysis::judge(demo(), {},
                      {"cv(noisy) > 2 * cv(idle)", "cv(pinned) > cv(noisy)",
                       "median(noisy) > 1.5 * median(idle)", "median(pinned) < 1.5 * median(idle)"},
                      7, published());
  REQUIRE(j.claims.size() == 4);
  CHECK(j.claims[0].run.verdict == Verdict::reproduced);
  CHECK(j.claims[0].agreement == analysis::Agreement::agrees);
  CHECK(j.claims[1].run.verdict == Verdict::not_reproduced);
  CHECK(j.claims[1].agreement == analysis::Agreement::agrees);  // the publication does not show it either
  CHECK(j.claims[2].run.verdict == Verdict::reproduced);
  CHECK(j.claims[2].agreement == analysis::Agreement::not_published);  // no medians in the published table
  REQUIRE(j.claims[2].published);
  CHECK(render::undefined_text(j.claims[2].published->why) == "median(noisy) is not published");
  CHECK(j.count(Verdict::reproduced) == 3);
  CHECK(j.count(Verdict::not_reproduced) == 1);
}

TEST_CASE("judge: the published rows beside this run's, matched by the condition their name starts with") {
  const auto j = analysis::judge(demo(), {}, {}, 7, published());
  REQUIRE(j.beside.size() == 4);
  CHECK(j.beside[1].condition == "noisy");
  CHECK(j.beside[2].condition == "pinned");
  CHECK(j.beside[2].n == 20);
  CHECK(j.beside[2].published_band == stats::Band::noisy);
  REQUIRE(j.beside[0].cv.defined);
  CHECK(j.beside[0].cv.ci.lo < j.beside[0].cv.value);
  CHECK(j.beside[0].cv.value < j.beside[0].cv.ci.hi);
  CHECK(j.beside[3].condition.empty());
  REQUIRE(render::judgement_notes(j).size() == 1);
  CHECK(render::judgement_notes(j)[0] ==
        "published condition \"shielded\" matches none of this run's rows (idle, noisy, pinned)");
}

TEST_CASE("judge: a run that does not show what the publication shows disagrees") {
  // The publication's noisy CV is 4x its idle one; make this run's noisy as calm as idle.
  analysis::Table t = demo();
  t.rows[1] = row("noisy", t.rows[0].values);
  const auto j =
      analysis::judge(t, {}, {"cv(noisy) > 2 * cv(idle)", "cv(noisy) < 4 * cv(idle)"}, 7, published());
  CHECK(j.claims[0].run.verdict == Verdict::not_reproduced);
  CHECK(j.claims[0].agreement == analysis::Agreement::disagrees);
  CHECK(j.claims[1].run.verdict == Verdict::reproduced);
  CHECK(j.claims[1].agreement == analysis::Agreement::agrees);  // 18.88 < 4 × 4.75 at the published figures
}

TEST_CASE("judge: a published row of one sample has no CV to agree with (issue 42)") {
  // The table printed "CV 0.00": a figure n = 1 cannot have. It showed "excellent" and "agrees".
  model::PublishedTable p = published();
  p.rows[0] = {"idle", "", 1, 11.46, 0.0, 0.0, {}, {}, {}};
  const auto j = analysis::judge(demo(), {}, {"cv(idle) < 5%"}, 7, p);
  CHECK(j.claims[0].run.verdict == Verdict::reproduced);
  CHECK(j.claims[0].agreement == analysis::Agreement::not_published);
  CHECK_FALSE(j.beside[0].published.cv_pct);
  CHECK_FALSE(j.beside[0].published.stddev);
  CHECK(j.beside[0].published_band == stats::Band::insufficient);
  CHECK(j.beside[0].spread_dropped);
  const auto notes = render::judgement_notes(j);
  CHECK(std::find(notes.begin(), notes.end(),
                  "published idle: n=1, so its stddev and CV are no figures (shown —)") != notes.end());
}

TEST_CASE("judge: a claim that names what the table lacks is a ClaimError") {
  CHECK_THROWS_AS(analysis::judge(demo(), {}, {"cv(busy) > cv(idle)"}, 7, std::nullopt), claims::ClaimError);
}

TEST_CASE("judge: the same seed gives the same intervals") {
  const auto a = analysis::judge(demo(), {}, {"cv(noisy) > 2 * cv(idle)"}, 11, std::nullopt);
  const auto b = analysis::judge(demo(), {}, {"cv(noisy) > 2 * cv(idle)"}, 11, std::nullopt);
  CHECK(a.claims[0].run.decision_ci.lo == b.claims[0].run.decision_ci.lo);
  CHECK(a.claims[0].run.decision_ci.hi == b.claims[0].run.decision_ci.hi);
}

TEST_CASE(
    "judge: a published benchmark matches this run's whatever their GOMAXPROCS suffixes; several rows need a "
    "name") {
  analysis::Table t = demo();  // rows named BenchmarkX-2
  model::PublishedTable p;
  p.rows = {{"idle", "BenchmarkX-16", 20, 11.46, 0.54, 4.75, {}, {}, {}}};
  auto j = analysis::judge(t, {}, {"cv(idle, BenchmarkX-2) < 10%"}, 7, p);
  CHECK(j.beside[0].name == "BenchmarkX-2");
  REQUIRE(j.claims[0].published);
  CHECK(j.claims[0].published->holds == true);  // 4.75% < 10%: BenchmarkX-16 is BenchmarkX-2's row
  // A condition with two benchmarks and a published row naming neither: no guess.
  analysis::Row other = t.rows[0];
  other.name = "BenchmarkY-2";
  other.benchmark = "BenchmarkY";
  t.rows.insert(t.rows.begin() + 1, other);
  p.rows[0].benchmark = "BenchmarkZ";
  j = analysis::judge(t, {}, {}, 7, p);
  CHECK(j.beside[0].condition.empty());
  REQUIRE(render::judgement_notes(j).size() == 1);
  CHECK(render::judgement_notes(j)[0] ==
        "published condition \"idle\" / BenchmarkZ matches none of this run's rows (idle, noisy, pinned)");
}
