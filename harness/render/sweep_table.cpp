#include "render/sweep_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "render/table.hpp"
#include "text/text.hpp"

namespace noisefloor::render {

namespace {

std::string where(const analysis::Curve& c, const analysis::CurvePoint& p) {
  return fmt::format("{}={}", c.parameter, p.value);
}

// The point's 95% median CI, which it has.
std::string ci_text(const analysis::CurvePoint& p) {
  return text::interval(text::format_value(p.median_ci->lo), text::format_value(p.median_ci->hi));
}

std::string cv_interval(const analysis::CurvePoint& p) {
  if (!p.cv_ci) return std::string(text::kDash);
  return text::interval(text::fixed(p.cv_ci->lo, 2), text::fixed(p.cv_ci->hi, 2));
}

std::string median_cell(const analysis::CurvePoint& p) {
  stats::Summary s;
  s.n = p.n;
  s.median = p.median;
  s.median_ci = p.median_ci;
  if (p.median_ci && p.median > 0)
    s.median_rel_halfwidth = std::max(p.median_ci->hi / p.median - 1, 1 - p.median_ci->lo / p.median);
  return median_ci_text(s);
}

std::string heading(const analysis::Curve& c) {
  return fmt::format("{} over {}{}: {} ({})", c.group, c.parameter,
                     c.series.empty() ? "" : " (" + c.series + ")", c.benchmark, c.unit);
}

std::string terminal_table(const analysis::Curve& c, std::size_t width) {
  std::vector<std::array<std::string, 7>> cells;
  cells.push_back({c.parameter, "n", "median ± 95% CI", "CV%", "CV% 95% CI", "band", "room"});
  for (const auto& p : c.points)
    cells.push_back({p.value, std::to_string(p.n), median_cell(p), text::fixed(p.cv_pct, 2), cv_interval(p),
                     std::string(stats::to_string(p.band)), std::string(to_string(p.room))});
  std::array<std::size_t, 7> w{};
  for (const auto& row : cells)
    for (std::size_t k = 0; k < row.size(); ++k) w[k] = std::max(w[k], text::width(row[k]));
  std::string out = "\n" + text::terminal_safe(heading(c)) + "\n";
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const bool knee = i > 0 && c.knee && c.knee->index == i - 1;
    std::string line = knee ? "▶ " : "  ";
    for (std::size_t k = 0; k < cells[i].size(); ++k) {
      const bool right = k == 1 || k == 3;
      line += right ? text::pad_left(cells[i][k], w[k]) : text::pad_right(cells[i][k], w[k]);
      line += "  ";
    }
    out += text::terminal_safe(text::rstrip(line)) + "\n";
  }
  out += text::wrap(text::terminal_safe(knee_text(c)), width, "  ", "    ");
  return out;
}

std::string markdown_table(const analysis::Curve& c) {
  std::string out = fmt::format("\n### {}\n\n", text::markdown_cell(heading(c)));
  out += fmt::format("| {} | n | median | 95% CI | CV % | CV % 95% CI | band | room | knee |\n",
                     text::markdown_cell(c.parameter));
  out += "|:--|--:|--:|--:|--:|--:|:--|:--|:--|\n";
  for (std::size_t i = 0; i < c.points.size(); ++i) {
    const auto& p = c.points[i];
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", text::markdown_cell(p.value), p.n,
                       text::format_value(p.median), p.median_ci ? ci_text(p) : std::string(text::kDash),
                       text::fixed(p.cv_pct, 2), cv_interval(p), stats::to_string(p.band),
                       text::markdown_cell(std::string(to_string(p.room))),
                       c.knee && c.knee->index == i ? "◀ knee" : "");
  }
  out += "\n" + text::markdown_cell(knee_text(c)) + "\n";
  return out;
}

// Why the knee is at `p`: its median against the reference's CI, its CV band against the reference's.
std::string moved_text(const analysis::Curve& c, const analysis::CurvePoint& ref,
                       const analysis::CurvePoint& p) {
  std::vector<std::string> why;
  if (c.knee->median_left) {
    const double change = ref.median > 0 ? 100 * (p.median / ref.median - 1) : stats::kNaN;
    why.push_back(fmt::format(
        "the median {} {} is {} {}'s, outside its 95% CI {}", text::format_value(p.median), c.unit,
        std::isfinite(change) ? fmt::format("{:.1f}% {}", std::fabs(change), change >= 0 ? "above" : "below")
                              : std::string("away from"),
        where(c, ref), ref.median_ci ? ci_text(ref) : std::string(text::kDash)));
  }
  if (c.knee->band_worse)
    why.push_back(fmt::format("the CV band falls from {} ({}%) to {} ({}%)", stats::to_string(ref.band),
                              text::fixed(ref.cv_pct, 2), stats::to_string(p.band),
                              text::fixed(p.cv_pct, 2)));
  return fmt::format("knee at {}: {}", where(c, p), fmt::join(why, "; and "));
}

}  // namespace

std::string knee_text(const analysis::Curve& c) {
  if (c.points.size() < 2) return "one point: no curve to have a knee";
  const analysis::CurvePoint& ref = c.points.front();
  if (c.knee && c.knee->index < c.points.size()) return moved_text(c, ref, c.points[c.knee->index]);
  if (!ref.median_ci)
    return fmt::format(
        "no knee in the CV bands; the medians cannot place one: {} has n={} < 6, no 95% median CI",
        where(c, ref), ref.n);
  return fmt::format("no knee: every median is inside {}'s 95% CI {} and no CV band is worse", where(c, ref),
                     ci_text(ref));
}

std::string sweep_tables(const std::vector<analysis::Curve>& curves, bool terminal, std::size_t width) {
  if (curves.empty()) return {};
  std::string out = terminal
                        ? "\nSweeps (one row per point; ▶ the knee, against the first point):\n"
                        : "\n## Sweeps\n\nOne row per point; the knee is measured against the first point.\n";
  for (const auto& c : curves) out += terminal ? terminal_table(c, width) : markdown_table(c);
  return out;
}

}  // namespace noisefloor::render
