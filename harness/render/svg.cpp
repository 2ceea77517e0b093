#include "render/svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "model/names.hpp"
#include "stats/compare.hpp"
#include "text/text.hpp"

namespace noisefloor::render::svg {

// [lo, hi] of the finite values, widened when empty or degenerate.
std::pair<double, double> range_of(const std::vector<double>& values) {
  double lo = INFINITY, hi = -INFINITY;
  for (double v : values)
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  if (!std::isfinite(lo)) return {0, 1};
  if (lo == hi) {
    const double pad = lo == 0 ? 1 : std::fabs(lo) * 0.05;
    return {lo - pad, hi + pad};
  }
  return {lo, hi};
}

namespace {

std::string escape(std::string_view s) { return text::html_escape(s); }

// Canvas geometry shared by every plot, so the plots of one benchmark line up on the page.
constexpr double kWidth = 960;
constexpr double kLeft = 160;   // condition labels
constexpr double kRight = 200;  // per-row notes
constexpr double kTop = 10;
constexpr double kPlotWidth = kWidth - kLeft - kRight;
constexpr double kRadius = 4.5;
constexpr std::size_t kLabelChars = 18;

std::string num(double v) {
  std::string s = fmt::format("{:.1f}", v);
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  if (s == "-0") s = "0";
  return s;
}

using text::truncate;

struct Scale {
  double lo, hi, x0, x1;
  double operator()(double v) const { return x0 + (v - lo) / (hi - lo) * (x1 - x0); }
};

std::string open_svg(const std::string& id, double height, const std::string& title, const std::string& desc,
                     const std::string& kind, const std::string& benchmark) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" role=\"img\" "
      "aria-labelledby=\"{}-t {}-d\" data-plot=\"{}\" data-benchmark=\"{}\" font-family=\"sans-serif\" "
      "font-size=\"12\">\n<title id=\"{}-t\">{}</title>\n<desc id=\"{}-d\">{}</desc>\n",
      num(kWidth), num(height), id, id, escape(kind), escape(benchmark), id, escape(title), id, escape(desc));
}

Shape shape_of(const Series& s) {
  return s.shape >= 0 ? static_cast<Shape>(s.shape % static_cast<int>(kShapes)) : shape_for(s.style);
}

std::string label(const Series& s, const std::string& text, double y) {
  std::string out = marker(shape_of(s), colour_for(s.style), 14, y - 4, kRadius, false);
  out += fmt::format("<text x=\"26\" y=\"{}\">", num(y));
  const std::string shown = truncate(text, kLabelChars);
  if (shown != text) out += "<title>" + escape(text) + "</title>";
  return out + escape(shown) + "</text>\n";
}

std::string note(const std::string& text, double y) {
  if (text.empty()) return "";
  return fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", num(kWidth - kRight + 14), num(y), escape(text));
}

// A horizontal value axis under the plot area, with vertical grid lines from `top` down.
std::string x_axis(const Ticks& ticks, const Scale& sx, double top, double bottom,
                   const std::string& caption) {
  std::string out = "<g stroke=\"#d9d9d9\">";
  for (double t : ticks.values)
    out +=
        fmt::format("<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>", num(sx(t)), num(top), num(bottom));
  out += "</g>\n";
  out += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#333\"/>\n", num(sx.x0),
                     num(sx.x1), num(bottom));
  out += "<g text-anchor=\"middle\" fill=\"#333\">";
  for (double t : ticks.values)
    out += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>", num(sx(t)), num(bottom + 16),
                       format_tick(t, ticks.decimals));
  out += fmt::format("<text x=\"{}\" y=\"{}\">{}</text></g>\n", num((sx.x0 + sx.x1) / 2), num(bottom + 34),
                     escape(caption));
  return out;
}

std::string ring(double x, double y) {
  return fmt::format(
      "<circle cx=\"{}\" cy=\"{}\" r=\"8\" fill=\"none\" stroke=\"#000\" stroke-width=\"1.2\"/>", num(x),
      num(y));
}

std::string sample_attr(const std::string& id, bool warmup) {
  return fmt::format(" data-sample=\"{}\"{}", escape(id), warmup ? " data-warmup=\"true\"" : "");
}

}  // namespace

std::string_view colour_for(std::size_t style) { return kPalette[style % std::size(kPalette)]; }
Shape shape_for(std::size_t style) { return static_cast<Shape>(style % kShapes); }

double jitter(std::uint64_t series, std::uint64_t index) {
  // One SplitMix64 draw seeded by the position: the same sample always lands in the same place.
  const std::uint64_t z = stats::SplitMix64((series << 32) ^ index).next();
  return static_cast<double>(z >> 11) / 9007199254740992.0 - 0.5;  // 53 bits -> [0, 1) -> [-0.5, 0.5)
}

Ticks nice_ticks(double lo, double hi, int target) {
  Ticks t;
  if (!(hi > lo)) hi = lo + 1;
  const double raw = (hi - lo) / std::max(1, target);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / mag;
  const double step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * mag;
  t.step = step;
  t.lo = std::floor(lo / step + 1e-9) * step;
  t.hi = std::ceil(hi / step - 1e-9) * step;
  for (int i = 0;; ++i) {
    const double v = t.lo + i * step;
    if (v > t.hi + step * 1e-6) break;
    t.values.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
  }
  t.decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
  if (step / std::pow(10.0, -t.decimals) != std::floor(step / std::pow(10.0, -t.decimals)))
    ++t.decimals;  // 2.5
  return t;
}

std::string format_tick(double value, int decimals) {
  // Long numbers (ns/op of slow benchmarks) would run into the labels: 250000000 -> 250M.
  const double a = std::fabs(value);
  for (const auto& [scale, suffix] : {std::pair{1e9, "G"}, std::pair{1e6, "M"}, std::pair{1e3, "k"}})
    if (a >= scale && a >= 1e4) {
      std::string digits = fmt::format("{:.2f}", value / scale);
      while (digits.back() == '0') digits.pop_back();
      if (digits.back() == '.') digits.pop_back();
      return digits + suffix;
    }
  return fmt::format("{:.{}f}", value, decimals);
}

std::string marker(Shape shape, std::string_view colour, double x, double y, double r, bool hollow,
                   std::string_view attributes, std::string_view tooltip) {
  const std::string paint = hollow ? fmt::format("fill=\"#fff\" stroke=\"{}\" stroke-width=\"1.6\"", colour)
                                   : fmt::format("fill=\"{}\" stroke=\"#fff\" stroke-width=\"0.6\"", colour);
  std::string head;
  std::string tag;
  switch (shape) {
    case Shape::circle:
      tag = "circle";
      head = fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"{}\"", num(x), num(y), num(r));
      break;
    case Shape::square:
      tag = "rect";
      head = fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"", num(x - r * 0.9),
                         num(y - r * 0.9), num(r * 1.8), num(r * 1.8));
      break;
    case Shape::triangle:
      tag = "path";
      head = fmt::format("<path d=\"M{} {}L{} {}L{} {}Z\"", num(x), num(y - r * 1.15), num(x + r * 1.1),
                         num(y + r * 0.85), num(x - r * 1.1), num(y + r * 0.85));
      break;
    case Shape::diamond:
      tag = "path";
      head = fmt::format("<path d=\"M{} {}L{} {}L{} {}L{} {}Z\"", num(x), num(y - r * 1.25), num(x + r * 1.1),
                         num(y), num(x), num(y + r * 1.25), num(x - r * 1.1), num(y));
      break;
    case Shape::triangle_down:
      tag = "path";
      head = fmt::format("<path d=\"M{} {}L{} {}L{} {}Z\"", num(x), num(y + r * 1.15), num(x + r * 1.1),
                         num(y - r * 0.85), num(x - r * 1.1), num(y - r * 0.85));
      break;
    case Shape::star: {
      tag = "path";
      std::string d;
      for (int i = 0; i < 10; ++i) {
        const double a = -std::numbers::pi / 2 + i * std::numbers::pi / 5;
        const double rr = i % 2 == 0 ? r * 1.35 : r * 0.6;
        d += fmt::format("{}{} {}", i == 0 ? "M" : "L", num(x + rr * std::cos(a)), num(y + rr * std::sin(a)));
      }
      head = fmt::format("<path d=\"{}Z\"", d);
      break;
    }
  }
  head += " " + paint;
  head += attributes;
  if (tooltip.empty()) return head + "/>";
  return fmt::format("{}><title>{}</title></{}>", head, escape(tooltip), tag);
}

std::string strip_plot(const SeriesPlot& p) {
  constexpr double kRow = 64;
  const double bottom = kTop + kRow * static_cast<double>(p.series.size());
  const double height = bottom + 44;
  std::vector<double> all;
  for (const auto& s : p.series) {
    for (const auto& m : s.marks) all.push_back(m.value);
    all.push_back(s.ci_lo);
    all.push_back(s.ci_hi);
  }
  const auto [lo, hi] = range_of(all);
  const Ticks ticks = nice_ticks(lo, hi);
  const Scale sx{ticks.lo, ticks.hi, kLeft, kLeft + kPlotWidth};

  std::string out = open_svg(p.id, height, p.title, p.desc, p.kind.empty() ? "strip" : p.kind, p.benchmark);
  out += x_axis(ticks, sx, kTop, bottom, p.unit);
  for (std::size_t i = 0; i < p.series.size(); ++i) {
    const Series& s = p.series[i];
    const double cy = kTop + kRow * static_cast<double>(i) + kRow / 2 - 4;
    if (i > 0)
      out += fmt::format("<line x1=\"0\" x2=\"{0}\" y1=\"{1}\" y2=\"{1}\" stroke=\"#eee\"/>\n", num(kWidth),
                         num(kTop + kRow * static_cast<double>(i)));
    out += label(s, s.label, cy + 4);
    if (std::isfinite(s.q1) && std::isfinite(s.q3))
      out += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"40\" fill=\"#efefef\" stroke=\"#8c8c8c\"><title>{}: "
          "quartiles {} to {}</title></rect>\n",
          num(sx(s.q1)), num(cy - 20), num(std::max(1.0, sx(s.q3) - sx(s.q1))), escape(s.label),
          format_tick(s.q1, ticks.decimals + 2), format_tick(s.q3, ticks.decimals + 2));
    if (std::isfinite(s.ci_lo) && std::isfinite(s.ci_hi))
      out += fmt::format(
          "<g stroke=\"#000\" data-ci=\"{0}\"><title>{0}: 95% CI of the median {1} to {2}</title>"
          "<line x1=\"{3}\" x2=\"{4}\" y1=\"{5}\" y2=\"{5}\" stroke-width=\"4\"/>"
          "<line x1=\"{3}\" x2=\"{3}\" y1=\"{6}\" y2=\"{7}\" stroke-width=\"1.5\"/>"
          "<line x1=\"{4}\" x2=\"{4}\" y1=\"{6}\" y2=\"{7}\" stroke-width=\"1.5\"/></g>\n",
          escape(s.label), format_tick(s.ci_lo, ticks.decimals + 2), format_tick(s.ci_hi, ticks.decimals + 2),
          num(sx(s.ci_lo)), num(sx(s.ci_hi)), num(cy + 26), num(cy + 21), num(cy + 31));
    for (std::size_t k = 0; k < s.marks.size(); ++k) {
      const Mark& m = s.marks[k];
      const double x = sx(m.value);
      const double y = cy + jitter(i, k) * 34;
      if (m.outlier) out += ring(x, y);
      out += marker(shape_of(s), colour_for(s.style), x, y, kRadius, m.warmup, sample_attr(m.id, m.warmup),
                    m.tooltip);
      out += "\n";
    }
    if (std::isfinite(s.median))
      out += fmt::format(
          "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#000\" stroke-width=\"3\" "
          "data-median=\"{3}\">"
          "<title>{3}: median {4}</title></line>\n",
          num(sx(s.median)), num(cy - 23), num(cy + 21), escape(s.label),
          format_tick(s.median, ticks.decimals + 2));
    out += note(s.note, cy + 4);
  }
  return out + "</svg>\n";
}

std::string run_order_plot(const SeriesPlot& p) {
  constexpr double kPanel = 92;
  constexpr double kGap = 16;
  const double n = static_cast<double>(p.series.size());
  const double bottom = kTop + n * kPanel + std::max(0.0, n - 1) * kGap;
  const double height = bottom + 44;
  std::vector<double> all;
  int max_index = 0;
  for (const auto& s : p.series)
    for (const auto& m : s.marks) {
      all.push_back(m.value);
      max_index = std::max(max_index, m.index);
    }
  const auto [lo, hi] = range_of(all);
  const Ticks yt = nice_ticks(lo, hi, 3);
  // Sample slots: index i is centred in slot i, so the first and last marks are not on the frame.
  const double slots = max_index + 1;
  auto sx = [&](double i) { return kLeft + (i + 0.5) / slots * kPlotWidth; };
  Ticks xt = nice_ticks(0, std::max(1, max_index), 8);
  if (xt.step < 1) xt = nice_ticks(0, std::max(1, max_index), std::max(1, max_index));
  std::erase_if(xt.values, [&](double v) { return v > max_index || v != std::floor(v); });

  std::string out =
      open_svg(p.id, height, p.title, p.desc, p.kind.empty() ? "run-order" : p.kind, p.benchmark);
  for (std::size_t i = 0; i < p.series.size(); ++i) {
    const Series& s = p.series[i];
    const double top = kTop + static_cast<double>(i) * (kPanel + kGap);
    const Scale sy{yt.lo, yt.hi, top + kPanel, top};
    out +=
        fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#fcfcfc\" stroke=\"#bbb\"/>\n",
                    num(kLeft), num(top), num(kPlotWidth), num(kPanel));
    out += "<g stroke=\"#e3e3e3\">";
    for (double t : yt.values)
      out += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\"/>", num(kLeft),
                         num(kLeft + kPlotWidth), num(sy(t)));
    out += "</g>\n<g text-anchor=\"end\" font-size=\"10\" fill=\"#333\">";
    for (double t : yt.values)
      out += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>", num(kLeft - 5), num(sy(t) + 3.5),
                         format_tick(t, yt.decimals));
    out += "</g>\n";
    out += label(s, s.label, top + kPanel / 2 + 4);
    // The warm-up span: samples the statistics leave out.
    int w_lo = INT32_MAX, w_hi = -1;
    for (const auto& m : s.marks)
      if (m.warmup) w_lo = std::min(w_lo, m.index), w_hi = std::max(w_hi, m.index);
    if (w_hi >= 0)
      out += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#e4e4e4\"/><text x=\"{}\" y=\"{}\" "
          "font-size=\"10\" fill=\"#444\">warm-up</text>\n",
          num(sx(w_lo - 0.5)), num(top + 1), num(sx(w_hi + 0.5) - sx(w_lo - 0.5)), num(kPanel - 2),
          num(sx(w_lo - 0.5) + 3), num(top + 12));
    std::vector<const Mark*> ordered;
    for (const auto& m : s.marks) ordered.push_back(&m);
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const Mark* a, const Mark* b) { return a->index < b->index; });
    if (ordered.size() > 1) {
      out += fmt::format(
          "<polyline fill=\"none\" stroke=\"{}\" stroke-opacity=\"0.55\" stroke-width=\"1.2\" points=\"",
          colour_for(s.style));
      for (std::size_t k = 0; k < ordered.size(); ++k)
        out += fmt::format("{}{},{}", k ? " " : "", num(sx(ordered[k]->index)), num(sy(ordered[k]->value)));
      out += "\"/>\n";
    }
    if (std::isfinite(s.median))
      out += fmt::format(
          "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#000\" stroke-dasharray=\"6 4\" "
          "data-median=\"{3}\"><title>{3}: median of kept samples {4}</title></line>\n",
          num(kLeft), num(kLeft + kPlotWidth), num(sy(s.median)), escape(s.label),
          format_tick(s.median, yt.decimals + 2));
    for (const Mark* m : ordered) {
      const double x = sx(m->index), y = sy(m->value);
      if (m->outlier) out += ring(x, y);
      out += marker(shape_of(s), colour_for(s.style), x, y, kRadius, m->warmup, sample_attr(m->id, m->warmup),
                    m->tooltip);
      out += "\n";
    }
    out += note(s.note, top + kPanel / 2 + 4);
  }
  // Index axis under the last panel.
  out += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#333\"/>\n", num(kLeft),
                     num(kLeft + kPlotWidth), num(bottom));
  out += "<g text-anchor=\"middle\" fill=\"#333\">";
  for (double t : xt.values)
    out += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>", num(sx(t)), num(bottom + 16), format_tick(t, 0));
  out += fmt::format("<text x=\"{}\" y=\"{}\">sample in run order (0 = first); y: {}</text></g>\n",
                     num(kLeft + kPlotWidth / 2), num(bottom + 34), escape(p.unit));
  return out + "</svg>\n";
}

std::string ratio_plot(const RatioPlot& p) {
  constexpr double kRow = 62;
  const double bottom = kTop + kRow * static_cast<double>(p.rows.size());
  const double height = bottom + 44;
  std::vector<double> all = {1.0};
  for (const auto& r : p.rows) {
    all.insert(all.end(), r.ratios.begin(), r.ratios.end());
    all.push_back(r.gm_lo);
    all.push_back(r.gm_hi);
    if (std::isfinite(r.theta)) all.push_back(1 - r.theta), all.push_back(1 + r.theta);
  }
  const auto [lo, hi] = range_of(all);
  const Ticks ticks = nice_ticks(lo, hi);
  const Scale sx{ticks.lo, ticks.hi, kLeft, kLeft + kPlotWidth};

  std::string out = open_svg(p.id, height, p.title, p.desc, "ratio", p.benchmark);
  out += x_axis(ticks, sx, kTop, bottom, "ratio variant / baseline (1 = no difference)");
  for (std::size_t i = 0; i < p.rows.size(); ++i) {
    const RatioRow& r = p.rows[i];
    const double top = kTop + kRow * static_cast<double>(i);
    const double cy = top + kRow / 2 - 8;
    if (i > 0)
      out += fmt::format("<line x1=\"0\" x2=\"{0}\" y1=\"{1}\" y2=\"{1}\" stroke=\"#eee\"/>\n", num(kWidth),
                         num(top));
    if (std::isfinite(r.theta))
      out += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#dcdcdc\" "
          "data-aa-band=\"{}\"><title>A/A band: "
          "1 ± {} (differences inside it are noise)</title></rect>\n",
          num(sx(1 - r.theta)), num(top + 3), num(sx(1 + r.theta) - sx(1 - r.theta)), num(kRow - 6),
          format_tick(r.theta, 4), format_tick(r.theta, 4));
    out += fmt::format(
        "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#555\" stroke-dasharray=\"3 3\"/>\n",
        num(sx(1)), num(top + 2), num(top + kRow - 2));
    // Two-line label: "condition" then "variant / baseline".
    const auto nl = r.label.find('\n');
    const std::string first = r.label.substr(0, nl);
    out += fmt::format("<text x=\"8\" y=\"{}\">{}</text>\n", num(cy + 2),
                       escape(truncate(first, kLabelChars + 2)));
    if (nl != std::string::npos)
      out += fmt::format("<text x=\"8\" y=\"{}\" font-size=\"11\" fill=\"#444\">{}</text>\n", num(cy + 17),
                         escape(truncate(r.label.substr(nl + 1), kLabelChars + 4)));
    for (std::size_t k = 0; k < r.ratios.size(); ++k) {
      const std::string order(model::name_of(k < r.order.size() ? r.order[k] : model::PairOrder::none));
      const std::size_t style = k < r.order.size() && r.order[k] == model::PairOrder::ba ? 1 : 0;
      const double x = sx(r.ratios[k]), y = cy + jitter(i + 1000, k) * 20;
      const std::string tip =
          fmt::format("{} repeat {}{}: ratio {}", first, k + 1, order.empty() ? "" : " (" + order + ")",
                      format_tick(r.ratios[k], 4));
      out += marker(style == 1 ? Shape::triangle : Shape::circle, colour_for(style), x, y, kRadius, false,
                    sample_attr(fmt::format("{}/{}", r.id_prefix, k), false), tip);
      out += "\n";
    }
    if (std::isfinite(r.gm_lo) && std::isfinite(r.gm_hi))
      out += fmt::format(
          "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#000\" "
          "stroke-width=\"4\"><title>geometric-mean "
          "CI {3} to {4}</title></line>\n",
          num(sx(r.gm_lo)), num(sx(r.gm_hi)), num(cy + 19), format_tick(r.gm_lo, 4), format_tick(r.gm_hi, 4));
    if (std::isfinite(r.gm))
      out += marker(Shape::diamond, "#000", sx(r.gm), cy + 19, 5.5, false, " data-gm=\"true\"",
                    fmt::format("geometric mean {}", format_tick(r.gm, 4))) +
             "\n";
    out += note(r.note, cy + 8);
  }
  return out + "</svg>\n";
}

}  // namespace noisefloor::render::svg
