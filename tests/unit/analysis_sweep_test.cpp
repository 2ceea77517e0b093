// Sweeps as curves: points in order, the knee where the median leaves the first point's CI or the
// CV band gets worse, and the words that say so.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "analysis/sweep.hpp"
#include "analysis/table.hpp"
#include "render/sweep_table.hpp"

using namespace noisefloor;

namespace {

void add(std::vector<records::Sample>& out, const std::string& condition, const std::vector<double>& values) {
  int i = 0;
  for (double v : values) {
    records::Sample s;
    s.condition = condition;
    s.benchmark = s.name = "BenchmarkX";
    s.index = i++;
    s.metrics = {{v, "ns/op"}};
    out.push_back(s);
  }
}

model::SweepPoint point(const std::string& value, std::optional<double> x, int index) {
  return {"noisy", {{"spinners", value, x}}, index};
}

const std::vector<double> kBase = {10.0, 10.1, 10.2, 10.3, 10.4, 10.5, 10.6, 10.7};

std::vector<double> plus(std::vector<double> v, double d) {
  for (double& x : v) x += d;
  return v;
}

}  // namespace

TEST_CASE("sweep: the knee is the first point whose median leaves the first point's CI") {
  std::vector<records::Sample> samples;
  add(samples, "idle", kBase);  // not a sweep's point: no curve
  add(samples, "noisy.spinners-0", kBase);
  add(samples, "noisy.spinners-1", plus(kBase, 0.2));  // median 10.55: inside [10.0, 10.6]
  add(samples, "noisy.spinners-2", plus(kBase, 5.0));  // median 15.35: outside
  add(samples, "noisy.spinners-3", plus(kBase, 0.0));  // back inside: the knee stays the first
  analysis::Table t = analysis::build_table(
      samples, {"idle", "noisy.spinners-0", "noisy.spinners-1", "noisy.spinners-2", "noisy.spinners-3"});
  for (int i = 0; i < 4; ++i)
    t.sweeps["noisy.spinners-" + std::to_string(i)] = point(std::to_string(i), i, i);
  const auto curves = analysis::sweep_curves(t);
  REQUIRE(curves.size() == 1);
  const analysis::Curve& c = curves.front();
  CHECK(c.group == "noisy");
  CHECK(c.parameter == "spinners");
  CHECK(c.series.empty());
  CHECK(c.benchmark == "BenchmarkX");
  CHECK(c.unit == "ns/op");
  CHECK(c.numeric);
  REQUIRE(c.points.size() == 4);
  CHECK(c.points[0].median == doctest::Approx(10.35));
  // n = 8: benchstat's 95% median CI is [x(1), x(7)].
  REQUIRE(c.points[0].median_ci);
  CHECK(c.points[0].median_ci->lo == 10.0);
  CHECK(c.points[0].median_ci->hi == 10.6);
  CHECK(c.points[2].median == doctest::Approx(15.35));
  // CV of 10.0..10.7: s = 0.244949, mean 10.35: 2.3667%; the bootstrap interval holds it.
  REQUIRE(c.points[0].cv_pct);
  CHECK(*c.points[0].cv_pct == doctest::Approx(2.36666).epsilon(1e-5));
  REQUIRE(c.points[0].cv_ci);
  CHECK(c.points[0].cv_ci->lo < *c.points[0].cv_pct);
  CHECK(c.points[0].cv_ci->hi >= c.points[0].cv_ci->lo);
  REQUIRE(c.knee);
  CHECK(c.knee->index == 2);
  CHECK(c.knee->median_left);
  CHECK(render::knee_text(c) ==
        "knee at spinners=2: the median 15.35 ns/op is 48.3% above spinners=0's, outside its 95% CI [10.00, "
        "10.60]");

  const std::string md = render::sweep_tables(curves, false);
  CHECK(md.find("| 2 | 8 | 15.35 | [15.00, 15.60] | 1.60 |") != std::string::npos);
  CHECK(md.find("| ◀ knee |") != std::string::npos);
  const std::string text = render::sweep_tables(curves, true, 80);
  CHECK(text.find("▶ 2 ") != std::string::npos);
  CHECK(text.find("noisy over spinners: BenchmarkX (ns/op)") != std::string::npos);
  CHECK(analysis::sweep_parameters(t) == std::vector<std::string>{"spinners"});
}

TEST_CASE("sweep: a worse CV band is a knee too; no CI at the first point places none by the median") {
  std::vector<records::Sample> samples;
  add(samples, "noisy.spinners-0", kBase);  // CV 2.37%: acceptable
  // Median 10.35, inside [10.0, 10.6], but spread: CV 9.58%, noisy.
  add(samples, "noisy.spinners-1", {9.0, 9.5, 10.0, 10.3, 10.4, 11.0, 11.5, 12.0});
  analysis::Table t = analysis::build_table(samples, {"noisy.spinners-0", "noisy.spinners-1"});
  t.sweeps["noisy.spinners-0"] = point("0", 0, 0);
  t.sweeps["noisy.spinners-1"] = point("1", 1, 1);
  auto c = analysis::sweep_curves(t).front();
  REQUIRE(c.knee);
  CHECK(c.knee->index == 1);
  CHECK(c.knee->band_worse);
  CHECK_FALSE(c.knee->median_left);
  CHECK(render::knee_text(c).starts_with(
      "knee at spinners=1: the CV band falls from acceptable (2.37%) to noisy ("));

  // Four samples: no 95% median CI (n < 6), and the same bands: no knee, and why.
  samples.clear();
  add(samples, "noisy.spinners-0", {10.0, 10.1, 10.2, 10.3});
  add(samples, "noisy.spinners-1", {20.0, 20.1, 20.2, 20.3});
  t = analysis::build_table(samples, {"noisy.spinners-0", "noisy.spinners-1"});
  t.sweeps["noisy.spinners-0"] = point("0", 0, 0);
  t.sweeps["noisy.spinners-1"] = point("1", 1, 1);
  c = analysis::sweep_curves(t).front();
  CHECK_FALSE(c.knee);
  CHECK_FALSE(c.points.front().median_ci);  // why the medians cannot place one
  CHECK(render::knee_text(c) ==
        "no knee in the CV bands; the medians cannot place one: spinners=0 has n=4 < 6, no 95% median CI");
}

TEST_CASE("sweep: a second swept setting splits the curve into lines; a category axis is not to scale") {
  std::vector<records::Sample> samples;
  std::vector<std::string> order;
  analysis::Table t;
  int index = 0;
  for (const std::string count : {"0", "1"})
    for (const std::string placement : {"other", "same"}) {
      const std::string condition = "grid.count-" + count + ".cpus-" + placement;
      add(samples, condition, plus(kBase, placement == "same" && count == "1" ? 10.0 : 0.0));
      order.push_back(condition);
      t.sweeps[condition] = {
          "grid", {{"count", count, std::stod(count)}, {"cpus", placement, std::nullopt}}, index++};
    }
  auto sweeps = t.sweeps;
  t = analysis::build_table(samples, order);
  t.sweeps = sweeps;
  const auto curves = analysis::sweep_curves(t);
  REQUIRE(curves.size() == 2);
  CHECK(curves[0].series == "cpus=other");
  CHECK(curves[1].series == "cpus=same");
  CHECK_FALSE(curves[0].knee);
  REQUIRE(curves[1].knee);
  CHECK(curves[1].knee->index == 1);
  CHECK(curves[0].numeric);
  CHECK(analysis::sweep_parameters(t) == std::vector<std::string>{"count", "cpus"});
}

TEST_CASE("sweep: a GOMAXPROCS sweep is one curve, whatever -N each point's name has") {
  std::vector<records::Sample> samples;
  const auto add_named = [&](const std::string& condition, const std::string& name, int procs) {
    for (int i = 0; i < 6; ++i) {
      records::Sample s;
      s.condition = condition;
      s.benchmark = "BenchmarkX";
      s.name = name;
      s.procs = procs;
      s.index = i;
      s.metrics = {{10.0 + i, "ns/op"}};
      samples.push_back(s);
    }
  };
  add_named("p.GOMAXPROCS-1", "BenchmarkX", 1);
  add_named("p.GOMAXPROCS-2", "BenchmarkX-2", 2);
  // -test.cpu=1,2 at one point: two rows of one benchmark stay two curves.
  add_named("c.args-both", "BenchmarkX", 1);
  add_named("c.args-both", "BenchmarkX-2", 2);
  add_named("c.args-two", "BenchmarkX-2", 2);
  analysis::Table t =
      analysis::build_table(samples, {"p.GOMAXPROCS-1", "p.GOMAXPROCS-2", "c.args-both", "c.args-two"});
  t.sweeps["p.GOMAXPROCS-1"] = {"p", {{"GOMAXPROCS", "1", 1.0}}, 0};
  t.sweeps["p.GOMAXPROCS-2"] = {"p", {{"GOMAXPROCS", "2", 2.0}}, 1};
  t.sweeps["c.args-both"] = {"c", {{"args", "both", std::nullopt}}, 0};
  t.sweeps["c.args-two"] = {"c", {{"args", "two", std::nullopt}}, 1};
  const auto curves = analysis::sweep_curves(t);
  REQUIRE(curves.size() == 3);
  CHECK(curves[0].benchmark == "BenchmarkX");
  CHECK(curves[0].points.size() == 2);
  CHECK(curves[1].benchmark == "BenchmarkX");
  CHECK(curves[1].points.size() == 1);
  CHECK(curves[2].benchmark == "BenchmarkX-2");
  CHECK(curves[2].points.size() == 2);
}

TEST_CASE("knee_text: each reason said from the curve's own figures") {
  analysis::Curve c;
  c.parameter = "cpus";
  c.unit = "ns/op";
  analysis::CurvePoint ref, capped;
  ref.value = "1.0";
  ref.n = 8;
  ref.median = 100;
  ref.median_ci = stats::Interval{98, 103, 0.95};
  ref.cv_pct = 1.5;
  ref.band = stats::Band::excellent;
  capped.value = "0.3";
  capped.median = 80;
  capped.cv_pct = 12;
  capped.band = stats::Band::noisy;
  c.points = {ref};
  CHECK(render::knee_text(c) == "one point: no curve to have a knee");
  c.points = {ref, capped};
  CHECK(render::knee_text(c) ==
        "no knee: every median is inside cpus=1.0's 95% CI [98.00, 103.0] and no CV band is worse");
  c.knee = stats::Knee{.index = 1, .median_left = true, .band_worse = true};
  CHECK(render::knee_text(c) ==
        "knee at cpus=0.3: the median 80.00 ns/op is 20.0% below cpus=1.0's, outside its 95% CI [98.00, "
        "103.0]; "
        "and the CV band falls from excellent (1.50%) to noisy (12.00%)");
}
