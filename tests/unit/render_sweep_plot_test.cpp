// render/sweep_plot: a sweep's curves as a standalone SVG figure, from a Curve built by hand:
// the knee on both panels, one marker per measured point per panel, no error bar where there is
// no interval, nothing drawn for a missing figure, and the same bytes every time.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <string>

#include "render/sweep_plot.hpp"

using namespace noisefloor;

namespace {

std::size_t occurrences(const std::string& haystack, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = haystack.find(needle); pos != std::string::npos;
       pos = haystack.find(needle, pos + needle.size()))
    ++n;
  return n;
}

analysis::CurvePoint point(std::string value, double x, std::size_t n, double median, bool with_ci,
                           std::optional<double> cv, analysis::Label room) {
  analysis::CurvePoint p;
  p.condition = "noisy[spinners=" + value + "]";
  p.value = value;
  p.x = x;
  p.n = n;
  p.median = median;
  if (with_ci) p.median_ci = stats::Interval{median * 0.99, median * 1.01, 0.95};
  p.cv_pct = cv;
  if (cv) p.cv_ci = stats::Interval{*cv * 0.5, *cv * 1.8, 0.95};
  p.band = stats::Band::excellent;
  p.room = room;
  return p;
}

// spinners 0, 1, 2, 4: the knee at 2; the point at 4 has no median CI and no CV (n = 1).
analysis::Curve curve() {
  analysis::Curve c;
  c.group = "noisy";
  c.parameter = "spinners";
  c.benchmark = "BenchmarkSort<int>";
  c.unit = "ns/op";
  c.numeric = true;
  c.points = {point("0", 0, 10, 1000, true, 0.8, analysis::Label::measured_clean),
              point("1", 1, 10, 1004, true, 1.1, analysis::Label::contended),
              point("2", 2, 10, 1300, true, 6.5, analysis::Label::contended),
              point("4", 4, 1, 1500, false, std::nullopt, analysis::Label::contended)};
  c.knee = stats::Knee{.index = 2, .median_left = true};
  return c;
}

}  // namespace

TEST_CASE("sweep plot: a standalone SVG 1.1 document with a title, a description and a white background") {
  const std::string svg = render::sweep_plot({curve()}, "noisy", {.host = "host: box (8 CPUs)"});
  CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"1280\" height=\"720\" "
                  "viewBox=\"0 0 1280 720\"",
                  0) == 0);
  CHECK(occurrences(svg, "<title id=\"sweep-t\">") == 1);
  CHECK(occurrences(svg, "<desc id=\"sweep-d\">") == 1);
  CHECK(svg.find("<rect x=\"0\" y=\"0\" width=\"1280\" height=\"720\" fill=\"#fff\"/>") != std::string::npos);
  CHECK(svg.size() > 0);
  CHECK(svg.substr(svg.size() - 7) == "</svg>\n");
  // Every text escaped: the benchmark's '<' never opens a tag.
  CHECK(svg.find("BenchmarkSort<int>") == std::string::npos);
  CHECK(svg.find("BenchmarkSort&lt;int&gt;") != std::string::npos);
  // The axis labels with their units, n and the room and host in the caption.
  CHECK(svg.find(">median (µs/op)</text>") != std::string::npos);
  CHECK(svg.find(">CV (%)</text>") != std::string::npos);
  CHECK(occurrences(svg, ">spinners</text>") == 2);
  CHECK(svg.find("n = 1 to 10 per point") != std::string::npos);
  CHECK(svg.find("room: spinners=0 MEASURED-clean · spinners=1 CONTENDED") != std::string::npos);
  CHECK(svg.find("host: host: box (8 CPUs)") != std::string::npos);
  // Its size, for a converter's window, is the one it draws.
  const render::SweepFigure figure = render::sweep_figure({curve()}, "noisy", {.host = "host: box (8 CPUs)"});
  CHECK(figure.svg == svg);
  CHECK(figure.width == 1280);
  CHECK(figure.height == 720);
  std::vector<analysis::Curve> many(9, curve());  // a long caption and legend: taller
  for (std::size_t i = 0; i < many.size(); ++i) many[i].benchmark += std::to_string(i);
  const render::SweepFigure tall = render::sweep_figure(many, "noisy");
  CHECK(tall.height > 720);
  CHECK(tall.svg.find(fmt::format("viewBox=\"0 0 1280 {:.0f}\"", tall.height)) != std::string::npos);
  // Inline: no width, height or version (the page sizes it).
  const std::string inline_svg =
      render::sweep_plot({curve()}, "noisy", {.host = "", .standalone = false, .id = "s0"});
  CHECK(inline_svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1280 720\"", 0) == 0);
  CHECK(inline_svg.find("<title id=\"s0-t\">") != std::string::npos);
}

TEST_CASE("sweep plot: the knee on both panels, in words in the caption") {
  const std::string svg = render::sweep_plot({curve()}, "noisy");
  CHECK(occurrences(svg, ">knee: spinners=2</text>") == 2);
  CHECK(occurrences(svg, "data-knee=\"true\"") == 2);
  CHECK(occurrences(svg, "knee at spinners=2: the median 1300 ns/op is 30.0% above") == 2);  // desc, caption

  analysis::Curve flat = curve();
  flat.knee.reset();
  const std::string none = render::sweep_plot({flat}, "noisy");
  CHECK(none.find(">knee: ") == std::string::npos);
  CHECK(none.find("data-knee") == std::string::npos);
}

TEST_CASE("sweep plot: one marker per measured point per panel; no interval, no error bar; never a 0") {
  const std::string svg = render::sweep_plot({curve()}, "noisy");
  CHECK(occurrences(svg, "data-point=\"median\"") == 4);
  CHECK(occurrences(svg, "data-point=\"cv\"") == 3);  // n = 1 at spinners=4: no CV, not drawn
  CHECK(occurrences(svg, "data-point=\"cv\" data-x=\"4\"") == 0);
  CHECK(occurrences(svg, "data-ci=\"median\"") == 3);
  CHECK(occurrences(svg, "data-ci=\"median\" data-x=\"4\"") == 0);  // no median CI at n = 1
  CHECK(occurrences(svg, "data-ci=\"median\" data-x=\"2\"") == 1);
  CHECK(occurrences(svg, "data-ci=\"cv\"") == 3);
  // The tooltips carry n.
  CHECK(svg.find("BenchmarkSort&lt;int&gt; at spinners=4: median 1.500 µs/op, no 95% CI (n &lt; 6); n = 1") !=
        std::string::npos);
}

TEST_CASE("sweep plot: a point without a median is left out and breaks the line, never drawn at 0") {
  analysis::Curve c = curve();
  c.points[1].median = stats::kNaN;
  c.points[1].median_ci.reset();
  const std::string svg = render::sweep_plot({c}, "noisy");
  CHECK(occurrences(svg, "data-point=\"median\"") == 3);
  CHECK(occurrences(svg, "data-point=\"median\" data-x=\"1\"") == 0);
  CHECK(occurrences(svg, "data-point=\"cv\" data-x=\"1\"") == 1);  // its CV is still there
  // Panel (a): one polyline from spinners=2 to 4 (spinners=0 alone has no line); panel (b): one.
  CHECK(occurrences(svg, "<polyline") == 2);
}

TEST_CASE("sweep plot: deterministic; several curves apart by colour, shape and dash; groups and files") {
  analysis::Curve second = curve();
  second.benchmark = "BenchmarkMap";
  second.series = "cpus=2";
  analysis::Curve other = curve();
  other.group = "cpu/bound";
  const std::vector<analysis::Curve> curves = {curve(), second, other};
  const std::string a = render::sweep_plot(curves, "noisy");
  CHECK(a == render::sweep_plot(curves, "noisy"));
  CHECK(occurrences(a, "data-point=\"median\"") == 8);
  CHECK(occurrences(a, ">knee: spinners=2</text>") == 2);           // one label per distinct knee and panel
  CHECK(a.find("stroke-dasharray=\"14 6\"") != std::string::npos);  // the second curve's dash
  CHECK(a.find("BenchmarkMap · cpus=2") != std::string::npos);
  CHECK(render::sweep_plot(curves, "absent").empty());
  CHECK(render::sweep_groups(curves) == std::vector<std::string>{"noisy", "cpu/bound"});
  CHECK(render::sweep_file_name("cpu/bound") == "sweep-cpu_bound.svg");
  CHECK(render::sweep_file_name("noisy", "png") == "sweep-noisy.png");
}

TEST_CASE("sweep plot: a categorical axis is labelled with its values, equally spaced") {
  analysis::Curve c = curve();
  c.numeric = false;
  c.parameter = "affinity";
  for (auto& p : c.points) p.x.reset();
  c.points[0].value = "none";
  c.points[1].value = "0-3";
  c.points[2].value = "0,4";
  c.points[3].value = "all";
  const std::string svg = render::sweep_plot({c}, "noisy");
  for (const char* v : {">none</text>", ">0-3</text>", ">0,4</text>", ">all</text>"})
    CHECK(occurrences(svg, v) == 2);  // under each panel
  CHECK(occurrences(svg, ">knee: affinity=0,4</text>") == 2);
}

TEST_CASE("sweep plot: curves ten times apart are drawn relative to their first point, and say so") {
  analysis::Curve small = curve(), large = curve();
  large.benchmark = "BenchmarkSort<int>/10MB";
  for (auto& p : large.points) {
    p.median *= 1e4;
    if (p.median_ci) p.median_ci = stats::Interval{p.median_ci->lo * 1e4, p.median_ci->hi * 1e4, 0.95};
  }
  const std::string svg = render::sweep_plot({small, large}, "noisy", {});
  CHECK(svg.find(
            "the curves differ tenfold or more: each median is shown relative to its curve&#39;s first point "
            "(spinners=0)") != std::string::npos);
  CHECK(svg.find("median relative to spinners=0 (×)") != std::string::npos);
  // One curve, or curves of one scale, keep the unit.
  const std::string one = render::sweep_plot({small}, "noisy", {});
  CHECK(one.find("relative to") == std::string::npos);
}
