// A sweep's curves as a picture: one figure per sweep group, two panels side by side: (a) the
// median of each point with its 95% CI as error bars, (b) the CV with its bootstrap interval,
// both against the swept parameter (to scale when every value is a number, else equally spaced
// and labelled with the values); one line per benchmark (and per value of the other swept
// settings), told apart by Okabe–Ito colour AND marker shape AND dash pattern (it reads in grey);
// the knee as a dashed vertical line labelled "knee: spinners=2" on both panels and in words in
// the caption, with n per point, the rooms of the points and the host.
//
// Sized for a slide (viewBox 1280 wide, at least 720 high, text of 18 px and more). Standalone:
// an SVG 1.1 document of its own (`report --format svg`); inline: the same drawing for the HTML
// page. Missing figures (no CI, a CV undefined for n < 2) are not drawn, never drawn as 0.
// Pure and deterministic: the same curves give the same bytes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/sweep.hpp"

namespace noisefloor::render {

struct SweepPlotOptions {
  std::string host;          // the caption's host line ("" = none), e.g. the fingerprint's host_line()
  bool standalone = true;    // a file of its own (width and height set); false: inline in the HTML page
  std::string id = "sweep";  // unique in the page: the ids of the <title> and <desc>
};

// The sweep groups of `curves`, in first-seen order.
std::vector<std::string> sweep_groups(const std::vector<analysis::Curve>& curves);

// The figure of the curves of `group` ("" when it has none). At most kSweepPlotCurves curves are
// drawn (the first ones); the caption says how many were left out.
inline constexpr std::size_t kSweepPlotCurves = 8;
std::string sweep_plot(const std::vector<analysis::Curve>& curves, std::string_view group,
                       const SweepPlotOptions& options = {});
// The same figure with its size in px (its viewBox), for a converter's window.
struct SweepFigure {
  std::string svg;
  double width = 0, height = 0;
};
SweepFigure sweep_figure(const std::vector<analysis::Curve>& curves, std::string_view group,
                         const SweepPlotOptions& options = {});

// The file a group's figure is written to: "sweep-<group>.svg", every byte of the group outside
// [A-Za-z0-9._-] replaced by '_' ("sweep-<group>.png" with extension "png").
std::string sweep_file_name(std::string_view group, std::string_view extension = "svg");

}  // namespace noisefloor::render
