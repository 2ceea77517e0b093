// Plots as inline SVG, generated here (no charting library). Pure and deterministic: the same
// input gives the same bytes (jitter comes from a fixed hash of the sample's position, never
// from a random generator), so the page can be diffed and tested.
//
// Every plot is an <svg role="img"> with a <title> and a <desc> (aria-labelledby), a viewBox
// (it scales with the page) and one element per sample carrying data-sample="<id>" and a
// <title> tooltip with the value as text. Conditions are told apart by colour (Okabe–Ito, safe
// for colour blindness) AND marker shape (survives printing in grey).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/pair_order.hpp"

namespace noisefloor::render::svg {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Okabe & Ito (2008), "Color Universal Design": blue, orange, bluish green, vermillion, reddish
// purple, sky blue, black, yellow (last: it is hard to see on white).
inline constexpr std::string_view kPalette[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                                "#CC79A7", "#56B4E9", "#000000", "#F0E442"};
enum class Shape { circle, square, triangle, diamond, triangle_down, star };
inline constexpr std::size_t kShapes = 6;

// Style i: colour kPalette[i % 8], shape i % 6 (24 distinct pairs before one repeats).
std::string_view colour_for(std::size_t style);
Shape shape_for(std::size_t style);

// Deterministic jitter in [-0.5, 0.5) from one SplitMix64 draw seeded by (series, index).
double jitter(std::uint64_t series, std::uint64_t index);

// Axis ticks: about `target` "nice" values (1, 2, 5 × 10^k) covering [lo, hi].
struct Ticks {
  double lo = 0, hi = 1, step = 1;  // the axis range is [lo, hi], a multiple of step on both ends
  std::vector<double> values;
  int decimals = 0;  // enough to tell the ticks apart
};
Ticks nice_ticks(double lo, double hi, int target = 6);
// [lo, hi] of the finite values, widened when empty or degenerate (5% around a single value).
std::pair<double, double> range_of(const std::vector<double>& values);
// `decimals` fixed decimals; from 10^4 up, a k/M/G suffix and at most 2 decimals ("250M", "1.75G").
std::string format_tick(double value, int decimals);

// One marker: a filled shape of `style` centred at (x, y); hollow draws a white fill (warm-up).
// `attributes` is appended verbatim inside the tag (e.g. ` data-sample="idle/3"`), `tooltip`
// becomes a <title> child.
std::string marker(Shape shape, std::string_view colour, double x, double y, double radius, bool hollow,
                   std::string_view attributes = {}, std::string_view tooltip = {});

// One sample of a series, in run order.
struct Mark {
  double value = kNaN;
  int index = 0;         // position in run order (warm-up included), the run-order plot's x
  bool warmup = false;   // drawn hollow; not part of the statistics
  bool outlier = false;  // drawn with a ring (|modified z| > 3.5)
  std::string id;        // data-sample value, unique within the page
  std::string tooltip;   // "idle #3: 15.54 ns/op"
};

// One condition of one benchmark. Statistics are of the kept (non-warm-up) samples; NaN = none.
struct Series {
  std::string label;      // condition name (paired designs: "condition · variant")
  std::size_t style = 0;  // colour_for(style); the shape too unless `shape` is set
  int shape = -1;         // paired designs: one shape per variant, colour per condition
  std::vector<Mark> marks;
  double median = kNaN, ci_lo = kNaN, ci_hi = kNaN, q1 = kNaN, q3 = kNaN;
  std::string note;  // shown at the right of the strip, e.g. "16.11 ± 4.3%"
};

struct SeriesPlot {
  std::string id;         // unique in the page, used for the title/desc ids
  std::string title;      // <title>
  std::string desc;       // <desc>: the plot in words
  std::string unit;       // axis label, e.g. "ns/op"
  std::string kind;       // data-plot value, e.g. "strip" / "run-order"
  std::string benchmark;  // data-benchmark value
  std::vector<Series> series;
};

// Every sample per condition side by side on a shared horizontal value axis, one row per
// condition: jittered markers over the interquartile box, the median as a vertical bar and the
// 95% CI of the median as a thick line under the strip.
std::string strip_plot(const SeriesPlot& plot);

// Samples in run order, one panel per condition (shared axes): markers joined by a thin line,
// warm-up samples hollow over a shaded "warm-up" span, the median of kept samples dashed.
std::string run_order_plot(const SeriesPlot& plot);

// Paired ratios (variant/baseline) of one benchmark, one row per comparison.
struct RatioRow {
  std::string label;                             // "noisy: new / old" or "A/A: old"
  std::vector<double> ratios;                    // per repeat
  std::vector<model::PairOrder> order;           // per repeat, AB or BA (shape); may be empty
  double gm = kNaN, gm_lo = kNaN, gm_hi = kNaN;  // geometric mean and its CI
  double theta = kNaN;                           // A/A band ±theta around 1; NaN = no band
  std::string note;                              // right-hand text
  std::string id_prefix;                         // data-sample = id_prefix + "/" + repeat index
};
struct RatioPlot {
  std::string id, title, desc, benchmark;
  std::vector<RatioRow> rows;
};
std::string ratio_plot(const RatioPlot& plot);

}  // namespace noisefloor::render::svg
