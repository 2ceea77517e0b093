#include "render/sweep_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "render/svg.hpp"
#include "render/sweep_table.hpp"
#include "text/text.hpp"

namespace noisefloor::render {
namespace sweep_svg {
namespace {

using analysis::Curve;
using analysis::CurvePoint;

// The canvas: a 16:9 slide. Two panels side by side, the legend and the caption under them.
constexpr double kCanvasWidth = 1280;
constexpr double kCanvasHeight = 720;  // at least; a long caption makes it taller
constexpr double kPanelTop = 104;
constexpr double kPanelBottom = 424;
constexpr double kPanelLeft[2] = {120, 760};
constexpr double kPanelRight[2] = {600, 1240};
constexpr double kLegendTop = 524;
constexpr double kLineHeight = 26;
constexpr double kCharWidth = 11.5;           // of an 18 px sans-serif character, generously
constexpr std::size_t kCaptionColumns = 112;  // 1240 px of 18 px text
constexpr double kMarkerRadius = 7;
// Dash patterns by style, next to colour and shape: a line is told apart in grey too.
constexpr std::string_view kDashes[] = {"", "14 6", "4 5", "16 5 3 5", "2 7", "24 6"};

std::string esc(std::string_view s) { return text::html_escape(s); }

// Coordinates with at most one decimal, "-0" as "0".
std::string px(double v) {
  std::string s = fmt::format("{:.1f}", v);
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  if (s == "-0") s = "0";
  return s;
}

double text_width(std::string_view s, double char_width = kCharWidth) {
  return static_cast<double>(text::width(s)) * char_width;
}

std::string curve_label(const Curve& c) {
  return c.series.empty() ? c.benchmark : fmt::format("{} · {}", c.benchmark, c.series);
}

bool defined(const std::optional<stats::Interval>& ci) {
  return ci && std::isfinite(ci->lo) && std::isfinite(ci->hi);
}

// A unit of time shown in the prefix that suits its values: "ns/op" of 2e7 -> "ms/op" ×1e-6.
struct ShownUnit {
  std::string unit;
  double factor = 1;
};
ShownUnit time_unit(const std::string& unit, double largest) {
  double to_seconds = 0;
  std::string rest;
  for (const auto& [prefix, factor] : {std::pair{"ns", 1e-9}, std::pair{"sec", 1.0}, std::pair{"s", 1.0}}) {
    const std::string_view p = prefix;
    if (unit.compare(0, p.size(), p) == 0 && (unit.size() == p.size() || unit[p.size()] == '/')) {
      to_seconds = factor;
      rest = unit.substr(p.size());
      break;
    }
  }
  if (to_seconds == 0 || !std::isfinite(largest) || largest <= 0) return {unit, 1};
  const double seconds = largest * to_seconds;
  for (const auto& [scale, name] : {std::pair{1.0, "s"}, std::pair{1e3, "ms"}, std::pair{1e6, "µs"}})
    if (seconds * scale >= 1) return {name + rest, to_seconds * scale};
  return {"ns" + rest, to_seconds * 1e9};
}

// The x axis shared by both panels: to scale (numeric) or one slot per value (categorical).
struct XAxis {
  bool numeric = false;
  std::vector<std::string> values;  // categorical: the slots, in first-seen order
  svg::Ticks ticks;                 // numeric
  double position(const CurvePoint& p, double x0, double x1) const {
    const double inset = (x1 - x0) * 0.06;  // the first and last points stay off the frame
    if (numeric) {
      const double span = ticks.hi - ticks.lo;
      return x0 + inset + (*p.x - ticks.lo) / span * (x1 - x0 - 2 * inset);
    }
    const auto it = std::find(values.begin(), values.end(), p.value);
    const double slot = static_cast<double>(it - values.begin());
    const double slots = static_cast<double>(values.size());
    return x0 + (slot + 0.5) / slots * (x1 - x0);
  }
  double tick_position(double t, double x0, double x1) const {
    const double inset = (x1 - x0) * 0.06;
    return x0 + inset + (t - ticks.lo) / (ticks.hi - ticks.lo) * (x1 - x0 - 2 * inset);
  }
};

XAxis x_axis_of(const std::vector<const Curve*>& curves) {
  XAxis axis;
  axis.numeric = std::all_of(curves.begin(), curves.end(), [](const Curve* c) { return c->numeric; });
  std::vector<double> xs;
  for (const Curve* c : curves)
    for (const auto& p : c->points) {
      if (std::find(axis.values.begin(), axis.values.end(), p.value) == axis.values.end())
        axis.values.push_back(p.value);
      if (p.x) xs.push_back(*p.x);
    }
  if (axis.numeric) {
    const auto [lo, hi] = svg::range_of(xs);
    axis.ticks = svg::nice_ticks(lo, hi, 6);
    // Whole-number settings (spinners, CPUs) get whole-number ticks.
    const bool whole = std::all_of(xs.begin(), xs.end(), [](double x) { return x == std::floor(x); });
    if (whole && axis.ticks.step < 1) axis.ticks = svg::nice_ticks(lo, hi, std::max(1, int(hi - lo)));
  }
  return axis;
}

// One panel's y axis.
struct YAxis {
  svg::Ticks ticks;
  double y(double v) const {
    return kPanelBottom - (v - ticks.lo) / (ticks.hi - ticks.lo) * (kPanelBottom - kPanelTop);
  }
};

// What panel (a) plots of a point: its median and CI in the shown unit, or relative to the
// curve's first median when the curves have different units.
struct Figure {
  double value = svg::kNaN;
  std::optional<stats::Interval> ci;
};

struct Drawing {
  std::vector<const Curve*> curves;
  std::size_t total = 0;  // curves of the group, drawn or not
  XAxis x;
  ShownUnit unit;
  bool relative = false;  // each median over its curve's reference median: mixed units, or spread
  bool mixed_units = false;
  bool spread = false;                            // the curves' first medians are ten times apart or more
  std::vector<std::vector<Figure>> medians, cvs;  // per curve, per point
  YAxis median_axis, cv_axis;
};

Figure median_figure(const Drawing& d, const Curve& c, const CurvePoint& p) {
  double factor = d.unit.factor;
  if (d.relative) {
    const auto ref = std::find_if(c.points.begin(), c.points.end(), [](const CurvePoint& q) {
      return std::isfinite(q.median) && q.median > 0;
    });
    if (ref == c.points.end()) return {};
    factor = 1 / ref->median;
  }
  Figure f;
  if (std::isfinite(p.median)) f.value = p.median * factor;
  if (std::isfinite(f.value) && defined(p.median_ci))
    f.ci = stats::Interval{p.median_ci->lo * factor, p.median_ci->hi * factor, p.median_ci->level};
  return f;
}

Figure cv_figure(const CurvePoint& p) {
  Figure f;
  if (p.cv_pct && std::isfinite(*p.cv_pct)) f.value = *p.cv_pct;
  if (std::isfinite(f.value) && defined(p.cv_ci)) f.ci = p.cv_ci;
  return f;
}

Drawing drawing_of(const std::vector<analysis::Curve>& all, std::string_view group) {
  Drawing d;
  for (const auto& c : all)
    if (c.group == group) {
      ++d.total;
      if (d.curves.size() < kSweepPlotCurves) d.curves.push_back(&c);
    }
  if (d.curves.empty()) return d;
  d.x = x_axis_of(d.curves);
  d.mixed_units = std::any_of(d.curves.begin(), d.curves.end(),
                              [&](const Curve* c) { return c->unit != d.curves.front()->unit; });
  // Curves whose first medians are ten times apart or more (a suite's 4 B and 10 MB rows) would
  // flatten the small ones against the axis: each is shown relative to its first point too.
  double lo = 0, hi = 0;
  for (const Curve* c : d.curves) {
    const double m = c->points.empty() ? stats::kNaN : std::fabs(c->points.front().median);
    if (!std::isfinite(m) || m <= 0) continue;
    lo = lo > 0 ? std::min(lo, m) : m;
    hi = std::max(hi, m);
  }
  d.spread = lo > 0 && hi / lo >= 10;
  d.relative = d.mixed_units || d.spread;
  double largest = 0;
  for (const Curve* c : d.curves)
    for (const auto& p : c->points)
      if (std::isfinite(p.median)) largest = std::max(largest, std::fabs(p.median));
  d.unit = d.relative ? ShownUnit{"×", 1} : time_unit(d.curves.front()->unit, largest);
  std::vector<double> mv, cv = {0};
  for (const Curve* c : d.curves) {
    auto& m = d.medians.emplace_back();
    auto& v = d.cvs.emplace_back();
    for (const auto& p : c->points) {
      m.push_back(median_figure(d, *c, p));
      v.push_back(cv_figure(p));
      mv.push_back(m.back().value);
      if (m.back().ci) mv.push_back(m.back().ci->lo), mv.push_back(m.back().ci->hi);
      cv.push_back(v.back().value);
      if (v.back().ci) cv.push_back(v.back().ci->lo), cv.push_back(v.back().ci->hi);
    }
  }
  const auto [mlo, mhi] = svg::range_of(mv);
  d.median_axis.ticks = svg::nice_ticks(mlo, mhi, 5);
  const auto [clo, chi] = svg::range_of(cv);
  d.cv_axis.ticks = svg::nice_ticks(std::min(0.0, clo), chi, 5);
  return d;
}

std::string format_figure(double v) { return text::format_value(v); }

std::string interval_text(const stats::Interval& ci) {
  return text::interval(format_figure(ci.lo), format_figure(ci.hi));
}

// The frame, grid, ticks and labels of panel `k`.
std::string panel_axes(const Drawing& d, int k, const YAxis& y, const std::string& heading,
                       const std::string& y_label, const Curve& first) {
  const double x0 = kPanelLeft[k], x1 = kPanelRight[k];
  std::string out = fmt::format("<g data-panel=\"{}\">\n", k == 0 ? "median" : "cv");
  out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"20\" font-weight=\"bold\">{}</text>\n", px(x0),
                     px(kPanelTop - 18), esc(heading));
  out +=
      fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#fcfcfc\" stroke=\"#999\"/>\n",
                  px(x0), px(kPanelTop), px(x1 - x0), px(kPanelBottom - kPanelTop));
  out += "<g stroke=\"#e0e0e0\">";
  for (double t : y.ticks.values)
    out += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\"/>", px(x0), px(x1), px(y.y(t)));
  out += "</g>\n<g text-anchor=\"end\" fill=\"#222\">";
  for (double t : y.ticks.values)
    out += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>", px(x0 - 10), px(y.y(t) + 6),
                       svg::format_tick(t, y.ticks.decimals));
  out += "</g>\n";
  const double ly = (kPanelTop + kPanelBottom) / 2;
  out += fmt::format(
      "<text x=\"{0}\" y=\"{1}\" font-size=\"20\" text-anchor=\"middle\" transform=\"rotate(-90 {0} "
      "{1})\">{2}</text>\n",
      px(x0 - 82), px(ly), esc(y_label));
  // The x axis: the values of a categorical axis, nice ticks of a numeric one.
  out += "<g text-anchor=\"middle\" fill=\"#222\">";
  if (d.x.numeric) {
    for (double t : d.x.ticks.values)
      out += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>", px(d.x.tick_position(t, x0, x1)),
                         px(kPanelBottom + 28), svg::format_tick(t, d.x.ticks.decimals));
  } else {
    const double slot = (x1 - x0) / static_cast<double>(d.x.values.size());
    const auto columns = static_cast<std::size_t>(std::max(3.0, slot / kCharWidth));
    for (std::size_t i = 0; i < d.x.values.size(); ++i)
      out += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>", px(x0 + (static_cast<double>(i) + 0.5) * slot),
                         px(kPanelBottom + 28), esc(text::truncate(d.x.values[i], columns)));
  }
  out += fmt::format("</g>\n<text x=\"{}\" y=\"{}\" font-size=\"20\" text-anchor=\"middle\">{}</text>\n",
                     px((x0 + x1) / 2), px(kPanelBottom + 60), esc(first.parameter));
  return out;
}

// A polyline per run of consecutive defined points (a missing figure breaks the line).
std::string lines_of(const std::vector<std::pair<double, double>>& xy_or_nan, std::size_t style) {
  std::string out;
  const std::string_view dash = kDashes[style % std::size(kDashes)];
  std::vector<std::pair<double, double>> run;
  const auto flush = [&] {
    if (run.size() > 1) {
      out += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"3\"{} points=\"",
                         svg::colour_for(style),
                         dash.empty() ? std::string() : fmt::format(" stroke-dasharray=\"{}\"", dash));
      for (std::size_t i = 0; i < run.size(); ++i)
        out += fmt::format("{}{},{}", i ? " " : "", px(run[i].first), px(run[i].second));
      out += "\"/>\n";
    }
    run.clear();
  };
  for (const auto& xy : xy_or_nan) {
    if (std::isfinite(xy.second))
      run.push_back(xy);
    else
      flush();
  }
  flush();
  return out;
}

// A point's tooltip in panel `k` (0: median, 1: CV); `where` is "<curve> at <setting>".
std::string point_tip(const Drawing& d, int k, const std::string& where, const Figure& f,
                      const CurvePoint& p) {
  if (k == 0)
    return fmt::format(
        "{}: median {} {}{}; n = {}; room {}", where, format_figure(f.value), d.unit.unit,
        f.ci ? fmt::format(", 95% CI {}", interval_text(*f.ci)) : std::string(", no 95% CI (n < 6)"), p.n,
        to_string(p.room));
  return fmt::format("{}: CV {}%{}; band {}; n = {}", where, text::fixed(f.value, 2),
                     f.ci ? fmt::format(", 95% interval {}%", interval_text(*f.ci)) : std::string(),
                     stats::to_string(p.band), p.n);
}

// The curves of panel `k` (0: median, 1: CV): lines, error bars, markers with tooltips.
std::string panel_curves(const Drawing& d, int k) {
  const double x0 = kPanelLeft[k], x1 = kPanelRight[k];
  const YAxis& y = k == 0 ? d.median_axis : d.cv_axis;
  const auto& figures = k == 0 ? d.medians : d.cvs;
  const std::string kind = k == 0 ? "median" : "cv";
  const double n_curves = static_cast<double>(d.curves.size());
  const double dodge = std::min(10.0, 48.0 / n_curves);
  std::string out;
  for (std::size_t ci = 0; ci < d.curves.size(); ++ci) {
    const Curve& c = *d.curves[ci];
    const double offset = (static_cast<double>(ci) - (n_curves - 1) / 2) * dodge;
    // The line joins the points along the axis (a numeric axis in the order of its values).
    std::vector<std::size_t> order(c.points.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    if (d.x.numeric)
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t a, std::size_t b) { return *c.points[a].x < *c.points[b].x; });
    std::vector<std::pair<double, double>> xy;
    for (std::size_t i : order) {
      const double v = figures[ci][i].value;
      xy.emplace_back(d.x.position(c.points[i], x0, x1) + offset, std::isfinite(v) ? y.y(v) : svg::kNaN);
    }
    out += fmt::format("<g data-curve=\"{}\">\n", ci);
    out += lines_of(xy, ci);
    const std::string label = curve_label(c);
    for (std::size_t i = 0; i < c.points.size(); ++i) {
      const CurvePoint& p = c.points[i];
      const Figure& f = figures[ci][i];
      if (!std::isfinite(f.value)) continue;  // not measured: nothing drawn, never a 0
      const double x = d.x.position(p, x0, x1) + offset;
      const std::string at = fmt::format("{}={}", c.parameter, p.value);
      if (f.ci) {
        const double top = y.y(f.ci->hi), bottom = y.y(f.ci->lo);
        out += fmt::format(
            "<g stroke=\"{0}\" stroke-width=\"2.5\" data-ci=\"{1}\" data-x=\"{2}\"><title>{3} at {4}: {10} "
            "{11}</title><line x1=\"{5}\" x2=\"{5}\" y1=\"{6}\" y2=\"{7}\"/><line x1=\"{8}\" x2=\"{9}\" "
            "y1=\"{6}\" y2=\"{6}\"/><line x1=\"{8}\" x2=\"{9}\" y1=\"{7}\" y2=\"{7}\"/></g>\n",
            svg::colour_for(ci), kind, esc(p.value), esc(label), esc(at), px(x), px(top), px(bottom),
            px(x - 7), px(x + 7), k == 0 ? "95% CI of the median" : "95% bootstrap interval of the CV %",
            esc(interval_text(*f.ci)));
      }
      const std::string tip = point_tip(d, k, label + " at " + at, f, p);
      out += svg::marker(
          svg::shape_for(ci), svg::colour_for(ci), x, y.y(f.value), kMarkerRadius, false,
          fmt::format(" data-point=\"{}\" data-x=\"{}\" data-n=\"{}\"", kind, esc(p.value), p.n), tip);
      out += "\n";
    }
    out += "</g>\n";
  }
  return out;
}

// The knees of the drawn curves, one dashed line and one label per distinct point.
struct Box {
  double x0, y0, x1, y1;
  bool overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

// Where panel `k` draws its markers and error bars (as panel_curves places them).
std::vector<Box> occupied(const Drawing& d, int k) {
  const double x0 = kPanelLeft[k], x1 = kPanelRight[k];
  const YAxis& y = k == 0 ? d.median_axis : d.cv_axis;
  const auto& figures = k == 0 ? d.medians : d.cvs;
  const double n_curves = static_cast<double>(d.curves.size());
  const double dodge = std::min(10.0, 48.0 / n_curves);
  std::vector<Box> boxes;
  for (std::size_t ci = 0; ci < d.curves.size(); ++ci) {
    const double offset = (static_cast<double>(ci) - (n_curves - 1) / 2) * dodge;
    for (std::size_t i = 0; i < d.curves[ci]->points.size(); ++i) {
      const Figure& f = figures[ci][i];
      if (!std::isfinite(f.value)) continue;
      const double x = d.x.position(d.curves[ci]->points[i], x0, x1) + offset;
      boxes.push_back({x - 10, y.y(f.value) - 10, x + 10, y.y(f.value) + 10});
      if (f.ci) boxes.push_back({x - 8, y.y(f.ci->hi) - 2, x + 8, y.y(f.ci->lo) + 2});
    }
  }
  return boxes;
}

// The knees of the drawn curves, one dashed line and one label per distinct point; a label goes
// where it hides no marker and no error bar (top or bottom of the panel, right or left of its
// line), else at the top.
std::string panel_knees(const Drawing& d, int k) {
  const double x0 = kPanelLeft[k], x1 = kPanelRight[k];
  std::vector<std::pair<std::string, double>> knees;  // label, x
  for (const Curve* c : d.curves) {
    if (!c->knee || c->knee->index >= c->points.size()) continue;
    const CurvePoint& p = c->points[c->knee->index];
    const std::string label = fmt::format("knee: {}={}", c->parameter, p.value);
    if (std::none_of(knees.begin(), knees.end(), [&](const auto& kn) { return kn.first == label; }))
      knees.emplace_back(label, d.x.position(p, x0, x1));
  }
  std::string out;
  // The lines first, then the labels over them: a label's white box may hide another knee's line,
  // never the other way round.
  for (const auto& knee : knees)
    out += fmt::format(
        "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#222\" stroke-width=\"2\" "
        "stroke-dasharray=\"9 6\" data-knee=\"true\"/>\n",
        px(knee.second), px(kPanelTop), px(kPanelBottom));
  std::vector<Box> taken = occupied(d, k);
  for (std::size_t i = 0; i < knees.size(); ++i) {
    const auto& [label, x] = knees[i];
    const double w = text_width(label) + 10;
    std::vector<Box> lines;  // the other knees' lines
    for (std::size_t j = 0; j < knees.size(); ++j)
      if (j != i) lines.push_back({knees[j].second - 3, kPanelTop, knees[j].second + 3, kPanelBottom});
    const auto clear = [](const std::vector<Box>& boxes, const Box& b) {
      return std::none_of(boxes.begin(), boxes.end(), [&](const Box& t) { return t.overlaps(b); });
    };
    // The first place, from the top and bottom rows inwards, right then left of the line, that
    // hides no data and no other line; else one that hides no data; else the top.
    std::optional<Box> place;
    const double rows = std::floor((kPanelBottom - kPanelTop) / 28);
    for (const bool avoid_lines : {true, false})
      for (double r = 0; r < rows && !place; ++r)
        for (const bool bottom : {false, true})
          for (const bool left : {false, true}) {
            const double top = bottom ? kPanelBottom - 6 - 28 * (r + 1) : kPanelTop + 6 + 28 * r;
            const Box b{left ? x - 8 - w : x + 8, top, left ? x - 8 : x + 8 + w, top + 26};
            if (place || b.x0 < x0 + 2 || b.x1 > x1 - 2) continue;
            if (clear(taken, b) && (!avoid_lines || clear(lines, b))) place = b;
          }
    if (!place) {
      const double left = x + 8 + w > x1 ? x - 8 - w : x + 8;
      place = Box{left, kPanelTop + 6 + 28 * static_cast<double>(i), left + w,
                  kPanelTop + 32 + 28 * static_cast<double>(i)};
    }
    taken.push_back(*place);
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"26\" fill=\"#fff\" fill-opacity=\"0.9\"/>"
        "<text x=\"{}\" y=\"{}\" font-weight=\"bold\" fill=\"#222\">{}</text>\n",
        px(place->x0), px(place->y0), px(w), px(place->x0 + 5), px(place->y0 + 20), esc(label));
  }
  return out;
}

// The legend under the panels: a line sample with the curve's dash, its marker and its name.
// Returns the y under its last row.
double legend(const Drawing& d, std::string& out) {
  double x = kPanelLeft[0] - 80, y = kLegendTop;
  out += "<g data-legend=\"true\">\n";
  for (std::size_t ci = 0; ci < d.curves.size(); ++ci) {
    const std::string label = text::truncate(curve_label(*d.curves[ci]), 56);
    const double w = 64 + text_width(label) + 28;
    if (x + w > kCanvasWidth - 20 && x > kPanelLeft[0] - 80) x = kPanelLeft[0] - 80, y += 32;
    const std::string_view dash = kDashes[ci % std::size(kDashes)];
    out += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"{3}\" stroke-width=\"3\"{4}/>", px(x),
        px(x + 52), px(y - 6), svg::colour_for(ci),
        dash.empty() ? std::string() : fmt::format(" stroke-dasharray=\"{}\"", dash));
    out += svg::marker(svg::shape_for(ci), svg::colour_for(ci), x + 26, y - 6, kMarkerRadius, false);
    out += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", px(x + 62), px(y), esc(label));
    x += w;
  }
  out += "</g>\n";
  return y + 16;
}

std::string n_text(const Drawing& d) {
  std::size_t lo = SIZE_MAX, hi = 0;
  for (const Curve* c : d.curves)
    for (const auto& p : c->points) lo = std::min(lo, p.n), hi = std::max(hi, p.n);
  if (hi == 0) return "n = 0 per point";
  return lo == hi ? fmt::format("n = {} per point", lo) : fmt::format("n = {} to {} per point", lo, hi);
}

std::string room_text(const Drawing& d) {
  const Curve& c = *d.curves.front();
  std::set<analysis::Label> rooms;
  for (const auto& p : c.points) rooms.insert(p.room);
  if (rooms.size() == 1) return fmt::format("room: {} at every point", to_string(c.points.front().room));
  std::string out = "room:";
  for (std::size_t i = 0; i < c.points.size(); ++i)
    out += fmt::format("{} {}={} {}", i ? " ·" : "", c.parameter, c.points[i].value,
                       to_string(c.points[i].room));
  return out;
}

std::vector<std::string> caption_lines(const Drawing& d, const SweepPlotOptions& o) {
  std::vector<std::string> paragraphs;
  for (const Curve* c : d.curves)
    paragraphs.push_back(d.curves.size() > 1 ? fmt::format("{}: {}", curve_label(*c), knee_text(*c))
                                             : knee_text(*c));
  paragraphs.push_back(n_text(d) +
                       " · error bars: the median's 95% CI and the CV's 95% bootstrap interval, not drawn "
                       "where undefined (a median CI needs n ≥ 6, a CV n ≥ 2)");
  if (d.relative)
    paragraphs.push_back(
        fmt::format("the curves {}: each median is shown relative to its curve's first "
                    "point ({}={})",
                    d.mixed_units ? "have different units" : "differ tenfold or more",
                    d.curves.front()->parameter, d.curves.front()->points.front().value));
  paragraphs.push_back(room_text(d));
  if (!o.host.empty()) paragraphs.push_back("host: " + o.host);
  if (d.total > d.curves.size())
    paragraphs.push_back(fmt::format("{} of {} curves drawn (the first ones); every curve is in the tables",
                                     d.curves.size(), d.total));
  std::vector<std::string> lines;
  for (const auto& para : paragraphs) {
    const std::string wrapped = text::wrap(para, kCaptionColumns, "", "  ");
    for (const auto line : text::lines(wrapped))
      if (!line.empty()) lines.emplace_back(line);
  }
  return lines;
}

std::string safe_id(std::string_view id) {
  std::string out;
  for (const char c : id)
    out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
  return out.empty() ? "sweep" : out;
}

SweepFigure draw(const std::vector<analysis::Curve>& curves, std::string_view group,
                 const SweepPlotOptions& options) {
  const Drawing d = drawing_of(curves, group);
  if (d.curves.empty()) return {};
  const Curve& first = *d.curves.front();

  std::string body;
  // Panels: the axes first, the knee lines over the grid, the curves on top.
  const std::string median_label =
      d.relative ? fmt::format("median relative to {}={} (×)", first.parameter, first.points.front().value)
                 : fmt::format("median ({})", d.unit.unit.empty() ? "value" : d.unit.unit);
  body += panel_axes(d, 0, d.median_axis, "(a) median and its 95% CI", median_label, first);
  body += panel_knees(d, 0) + panel_curves(d, 0) + "</g>\n";
  body += panel_axes(d, 1, d.cv_axis, "(b) CV and its 95% interval", "CV (%)", first);
  body += panel_knees(d, 1) + panel_curves(d, 1) + "</g>\n";
  double y = legend(d, body);
  body += "<g data-caption=\"true\" fill=\"#222\">\n";
  for (const auto& line : caption_lines(d, options)) {
    y += kLineHeight;
    body += fmt::format("<text x=\"{}\" y=\"{}\" xml:space=\"preserve\">{}</text>\n", px(kPanelLeft[0] - 80),
                        px(y), esc(line));
  }
  body += "</g>\n";
  const double height = std::max(kCanvasHeight, std::ceil(y + 24));

  const std::string title =
      d.curves.size() == 1 && d.total == 1
          ? fmt::format("Sweep {} over {}: {}", first.group, first.parameter, curve_label(first))
          : fmt::format("Sweep {} over {}: {} curves", first.group, first.parameter, d.total);
  std::string desc =
      fmt::format("The median (with its 95% CI) and the CV (with its 95% interval) of {} at {}={}",
                  d.total == 1 ? curve_label(first) : fmt::format("{} curves", d.total), first.parameter,
                  first.points.front().value);
  for (std::size_t i = 1; i < first.points.size(); ++i)
    desc += fmt::format("{}{}", i + 1 == first.points.size() ? " and " : ", ", first.points[i].value);
  desc += ". ";
  for (const Curve* c : d.curves) desc += knee_text(*c) + ". ";
  desc += n_text(d) + ".";

  const std::string id = safe_id(options.id);
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\"{} viewBox=\"0 0 {} {}\" role=\"img\" "
      "aria-labelledby=\"{}-t {}-d\" data-plot=\"sweep\" data-group=\"{}\" "
      "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"18\">\n"
      "<title id=\"{}-t\">{}</title>\n<desc id=\"{}-d\">{}</desc>\n",
      options.standalone
          ? fmt::format(" version=\"1.1\" width=\"{}\" height=\"{}\"", px(kCanvasWidth), px(height))
          : std::string(),
      px(kCanvasWidth), px(height), id, id, esc(first.group), id, esc(title), id, esc(desc));
  out += fmt::format("<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#fff\"/>\n", px(kCanvasWidth),
                     px(height));
  out += fmt::format("<text x=\"{}\" y=\"44\" font-size=\"28\" font-weight=\"bold\">{}</text>\n",
                     px(kPanelLeft[0] - 80), esc(text::truncate(title, 84)));
  return {.svg = out + body + "</svg>\n", .width = kCanvasWidth, .height = height};
}

}  // namespace
}  // namespace sweep_svg

std::vector<std::string> sweep_groups(const std::vector<analysis::Curve>& curves) {
  std::vector<std::string> groups;
  for (const auto& c : curves)
    if (std::find(groups.begin(), groups.end(), c.group) == groups.end()) groups.push_back(c.group);
  return groups;
}

std::string sweep_plot(const std::vector<analysis::Curve>& curves, std::string_view group,
                       const SweepPlotOptions& options) {
  return sweep_svg::draw(curves, group, options).svg;
}

SweepFigure sweep_figure(const std::vector<analysis::Curve>& curves, std::string_view group,
                         const SweepPlotOptions& options) {
  return sweep_svg::draw(curves, group, options);
}

std::string sweep_file_name(std::string_view group, std::string_view extension) {
  std::string name = "sweep-";
  for (const char c : group)
    name += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ? c : '_';
  return name + "." + std::string(extension);
}

}  // namespace noisefloor::render
