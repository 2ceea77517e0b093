#include "render/history.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "model/first_seen.hpp"
#include "render/fingerprint.hpp"
#include "render/json.hpp"
#include "render/svg.hpp"
#include "render/warnings.hpp"
#include "text/text.hpp"

namespace noisefloor::render {
namespace {

using analysis::ChangeKind;
using analysis::History;
using analysis::HistoryCell;
using analysis::HistoryRun;
using text::kDash;

std::string pct(double ratio) { return fmt::format("{:+.1f}", 100 * (ratio - 1)); }

std::string or_dash(const std::string& s) { return s.empty() ? std::string(kDash) : s; }

std::string median_text(const HistoryCell& c) {
  std::string s = text::format_value(c.median);
  if (!c.unit.empty() && std::isfinite(c.median)) s += " " + c.unit;
  return s;
}
std::string median_ci_text(const HistoryCell& c) {
  return c.median_ci
             ? text::interval(text::format_value(c.median_ci->lo), text::format_value(c.median_ci->hi))
             : std::string(kDash);
}
std::string cv_text(const HistoryCell& c) {
  return c.cv_pct ? fmt::format("{:.2f}%", *c.cv_pct) : std::string(kDash);
}
std::string cv_ci_text(const HistoryCell& c) {
  return c.cv_ci ? text::interval(fmt::format("{:.2f}", c.cv_ci->lo), fmt::format("{:.2f}", c.cv_ci->hi))
                 : std::string(kDash);
}

// Why numbers are missing, and why a row was not compared.
std::vector<std::string> reasons(const HistoryCell& c) {
  std::vector<std::string> out = history_cell_notes(c);
  if (std::string why = change_reason(c.change); !why.empty()) out.push_back(std::move(why));
  return out;
}

// The run's claims with their verdicts: "REPRODUCED: cv(noisy) > 2 * cv(idle); NOT REPRODUCED: …".
std::string claims_text(const HistoryRun& r) {
  return fmt::format("{}", fmt::join(history_claim_lines(r), "; "));
}

bool any_claims(const History& h) {
  return std::any_of(h.runs.begin(), h.runs.end(), [](const HistoryRun& r) { return !r.claims.empty(); });
}

// The room's noise is shown once some run has a profile (measured or not).
bool any_noise(const History& h) {
  return std::any_of(h.runs.begin(), h.runs.end(), [](const HistoryRun& r) { return r.noise.has_value(); });
}

std::string noise_text(const HistoryRun& r) {
  return r.noise ? fingerprint::noise_line(*r.noise) : "not recorded (an older noisefloor)";
}

// For a table cell: "CV 1.21% · steal 0.00% · delay 0.01%", the change after it.
std::string noise_brief_text(const HistoryRun& r) {
  std::string out = r.noise ? fingerprint::noise_brief(*r.noise) : std::string(kDash);
  if (r.noise_change.changed()) out += " ◆ " + noise_change_text(r.noise_change);
  return out;
}

std::string summary_line(const History& h, std::string_view directory) {
  return fmt::format("history of {}: {} run{}, {} segment{} ({})", or_dash(h.experiment), h.runs.size(),
                     h.runs.size() == 1 ? "" : "s", h.segments.size(), h.segments.size() == 1 ? "" : "s",
                     directory);
}

std::string legend_line(const History& h) {
  return fmt::format(
      "change vs the previous run of the segment: ▲ higher / ▼ lower (slower or faster, worse or better, in "
      "the "
      "unit's direction) when Mann–Whitney p < {:g} and the Hodges–Lehmann ratio's 95% CI lies entirely "
      "outside "
      "±{:g}%; ~ otherwise; — not compared",
      h.alpha, 100 * h.threshold);
}

}  // namespace

std::string history_status(const analysis::HistoryRun& r) {
  std::string out(r.status ? records::to_string(*r.status) : "unknown");
  std::vector<std::string> by;
  for (const auto& s : r.superseded_by) by.push_back(s.experiment + "/" + s.run_id);
  if (!by.empty()) out += fmt::format(" · SUPERSEDED by {}", fmt::join(by, ", "));
  return out;
}

std::string change_text(const analysis::Change& c) {
  switch (c.kind) {
    case ChangeKind::first:
      return "";
    case ChangeKind::not_compared:
      return kDash;
    case ChangeKind::unchanged:
      return "~";
    case ChangeKind::higher:
    case ChangeKind::lower:
      return fmt::format("{} {}% {}{}", c.kind == ChangeKind::higher ? "▲" : "▼", pct(c.ratio.estimate),
                         text::interval(pct(c.ratio.lo), pct(c.ratio.hi)),
                         c.word ? " " + std::string(to_string(*c.word)) : "");
  }
  return "";
}

std::string level_text(const HistoryCell& c) {
  if (!c.level_change) return "";
  const stats::SegmentTest& t = *c.level_change;
  return fmt::format("new level{}: medians {} → {} (E-Divisive, p {})",
                     t.mean_before > 0 ? " " + pct(t.mean_after / t.mean_before) + "%" : "",
                     text::format_value(t.mean_before), text::format_value(t.mean_after),
                     fmt::format("{:.2g}", t.pvalue));
}

std::string change_reason(const analysis::Change& c) {
  using analysis::NotCompared;
  if (c.kind != ChangeKind::not_compared) return "";
  switch (c.why) {
    case NotCompared::no:
      return "";
    case NotCompared::too_few:
      return fmt::format("n={} vs {}: too few samples", c.n_before, c.n_now);
    case NotCompared::p_unreachable:
      return fmt::format("n={} vs {} cannot reach p < {:g}", c.n_before, c.n_now, c.alpha);
    case NotCompared::test_failed:
      return c.error;
    case NotCompared::not_in_previous:
      return "not in the previous run";
  }
  return "";
}

std::string segment_header(const analysis::HistorySegment& s) {
  std::string out = fmt::format("── segment {}", s.index);
  std::vector<std::string> parts;
  for (const auto& d : s.changed) parts.push_back(fmt::format("{} changed: {} → {}", d.field, d.a, d.b));
  if (s.no_fingerprint) parts.push_back(std::string(kNoFingerprint));
  if (!parts.empty()) out += fmt::format(": {}", fmt::join(parts, "; "));
  return out;
}

// ---- text ----

namespace {

// The text table's columns: the widest condition, median, its CI, CV and its CI of every run.
struct CellWidths {
  std::size_t condition = 0, median = 0, median_ci = 0, cv = 0, cv_ci = 0;
};
CellWidths cell_widths(const History& h) {
  CellWidths w;
  for (const auto& r : h.runs)
    for (const auto& c : r.cells) {
      w.condition = std::max(w.condition, text::width(c.condition));
      w.median = std::max(w.median, text::width(text::format_value(c.median)));
      w.median_ci = std::max(w.median_ci, text::width(median_ci_text(c)));
      w.cv = std::max(w.cv, text::width(cv_text(c)));
      w.cv_ci = std::max(w.cv_ci, text::width(cv_ci_text(c)));
    }
  return w;
}

// One condition's cell of a run: its line, the change beside it when it fits in `columns` (else on
// a line of its own), then the reasons it is not judged.
std::string cell_lines(const HistoryCell& c, const CellWidths& w, std::size_t columns) {
  std::string out;
  std::string line = fmt::format("    {}  median {} {}  CV {} {}", text::pad_right(c.condition, w.condition),
                                 text::pad_left(text::format_value(c.median), w.median),
                                 text::pad_right(median_ci_text(c), w.median_ci),
                                 text::pad_left(cv_text(c), w.cv), text::pad_right(cv_ci_text(c), w.cv_ci));
  line = text::rstrip(line);
  const std::string change = change_text(c.change);
  if (!change.empty()) {
    if (text::width(line) + 2 + text::width(change) <= columns) {
      line += "  " + change;
    } else {
      out += line + "\n";
      line = "      " + change;
    }
  }
  out += line + "\n";
  if (c.level_change) out += text::wrap("◀ " + level_text(c), columns, "      ", "        ");
  const auto why = reasons(c);
  if (!why.empty())
    out += text::wrap(fmt::format("({})", fmt::join(why, "; ")), columns, "      ", "       ");
  return out;
}

}  // namespace

std::vector<std::string> history_claim_lines(const HistoryRun& run) {
  std::vector<std::string> out;
  for (const auto& c : run.claims)
    out.push_back(fmt::format("{}: {}", claims::to_string(c.verdict), c.claim));
  return out;
}

std::vector<std::string> history_cell_notes(const HistoryCell& c) {
  std::vector<std::string> out;
  if (!c.median_ci) out.push_back(fmt::format("n={} < 6: no median CI", c.n));
  if (c.n < 2)
    out.push_back(fmt::format("n={} < 2: no CV", c.n));
  else if (!c.cv_pct)
    out.push_back("mean <= 0: no CV");
  else if (c.n < 6)
    out.push_back(fmt::format("n={} < 6: no CV interval", c.n));
  return out;
}

std::string history_text(const History& h, std::string_view directory) {
  // 80 columns: each run's cells under a heading per benchmark (its name and unit), one line per
  // condition; a change or a reason that does not fit goes on a line of its own.
  constexpr std::size_t kColumns = 80;
  std::string out = text::wrap(summary_line(h, directory), kColumns, "", "  ") +
                    text::wrap(legend_line(h), kColumns, "", "  ");
  const bool noise = any_noise(h);
  const CellWidths widths = cell_widths(h);
  for (const auto& r : h.runs) {
    const auto& seg = h.segments.at(r.segment - 1);
    if (&r == &h.runs[seg.first_run]) out += "\n" + segment_header(seg) + "\n";
    out += fmt::format("{}  commit {}  room {}  {}  {}\n", or_dash(r.started_utc), or_dash(r.commit),
                       or_dash(r.digest), history_status(r), r.run_id);
    if (noise) {
      out += text::wrap("room noise: " + noise_text(r), kColumns, "  ", "    ");
      if (r.noise_change.changed())
        out += text::wrap("◆ " + noise_change_text(r.noise_change), kColumns, "  ", "    ");
    }
    if (!r.claims.empty()) out += text::wrap("claims: " + claims_text(r), kColumns, "  ", "    ");
    model::FirstSeen<std::pair<std::string, std::string>> benchmarks;         // (name, unit)
    std::vector<std::vector<const decltype(r.cells)::value_type*>> cells_of;  // per benchmark
    for (const auto& c : r.cells) {
      const std::size_t b = benchmarks.add({c.name, c.unit});
      if (b == cells_of.size()) cells_of.emplace_back();
      cells_of[b].push_back(&c);
    }
    for (std::size_t b = 0; b < benchmarks.size(); ++b) {
      const auto& [name, unit] = benchmarks[b];
      out += text::wrap(text::line_label(name) + (unit.empty() ? "" : fmt::format(" ({})", unit)), kColumns,
                        "  ", "    ");
      for (const auto* cell : cells_of[b]) out += cell_lines(*cell, widths, kColumns);
    }
  }
  for (const auto& w : h.warnings) out += text::wrap("warning: " + warning_text(w), kColumns, "", "  ");
  return out;
}

// ---- markdown ----

std::string history_markdown(const History& h, std::string_view directory) {
  const bool claims = any_claims(h);
  const bool noise = any_noise(h);
  std::string out =
      fmt::format("# History of {}\n\n{}.\n\n{}.\n", text::markdown_cell(or_dash(h.experiment)),
                  text::markdown_cell(summary_line(h, directory)), text::markdown_cell(legend_line(h)));
  const std::string head = std::string(
                               "| time | commit | room | status | run | condition | benchmark | n | median | "
                               "95% CI | CV | CV 95% CI | change | notes |") +
                           (claims ? " claims |" : "") + (noise ? " room noise |" : "") +
                           "\n|---|---|---|---|---|---|---|--:|--:|---|--:|---|---|---|" +
                           (claims ? "---|" : "") + (noise ? "---|" : "") + "\n";
  for (const auto& r : h.runs) {
    const auto& seg = h.segments.at(r.segment - 1);
    if (&r == &h.runs[seg.first_run]) {
      std::string title = segment_header(seg);
      title.erase(0, std::string("── ").size());
      out += "\n## " + text::markdown_cell(title) + "\n\n" + head;
    }
    const std::string claims_cell = (claims ? " " + text::markdown_cell(claims_text(r)) + " |" : "") +
                                    (noise ? " " + text::markdown_cell(noise_brief_text(r)) + " |" : "");
    const auto row = [&](const std::string& cells) {
      out += fmt::format("| {} | {} | {} | {} | {} | {} |{}\n", text::markdown_cell(or_dash(r.started_utc)),
                         text::markdown_cell(or_dash(r.commit)), text::markdown_cell(or_dash(r.digest)),
                         text::markdown_cell(history_status(r)), text::markdown_cell(r.run_id), cells,
                         claims_cell);
    };
    if (r.cells.empty()) row(fmt::format("{0} | {0} | 0 | {0} | {0} | {0} | {0} | | no samples", kDash));
    for (const auto& c : r.cells)
      row(fmt::format("{} | {} | {} | {} | {} | {} | {} | {} | {}", text::markdown_cell(c.condition),
                      text::markdown_cell(c.name), c.n, text::markdown_cell(median_text(c)),
                      text::markdown_cell(median_ci_text(c)), cv_text(c), cv_ci_text(c),
                      text::markdown_cell(change_text(c.change) +
                                          (c.level_change ? " · " + level_text(c) : std::string())),
                      text::markdown_cell(fmt::format("{}", fmt::join(reasons(c), "; ")))));
  }
  if (!h.warnings.empty()) {
    out += "\n## Warnings\n\n";
    for (const auto& w : h.warnings) out += "- " + text::markdown_cell(warning_text(w)) + "\n";
  }
  return out;
}

// ---- CSV ----

std::string history_csv(const History& h) {
  // The header: the columns every history has, then the claims' and the room noise's when any run has them.
  const bool claims = any_claims(h);
  const bool noise = any_noise(h);
  std::string out(
      "segment,started_utc,run_id,commit,room,status,condition,benchmark,unit,n,median,median_ci_lo,"
      "median_ci_hi,cv_pct,cv_ci_lo,cv_ci_hi,change,change_pct,change_lo_pct,change_hi_pct,p,level_change_"
      "pct,"
      "level_p,notes");
  if (claims) out += ",claims";
  if (noise) out += ",noise_cv_pct,noise_steal_pct,noise_run_delay_pct,noise_change";
  out += '\n';
  const auto num = [](double v) { return text::shortest(v); };
  const auto opt = [&](const std::optional<double>& v) { return v ? num(*v) : std::string(); };
  const auto ratio_pct = [](double r) {
    return std::isfinite(r) ? text::shortest(100 * (r - 1)) : std::string();
  };
  for (const auto& r : h.runs) {
    for (const auto& c : r.cells) {
      const bool compared = c.change.kind != ChangeKind::first && c.change.kind != ChangeKind::not_compared;
      std::vector<std::string> f = {
          std::to_string(r.segment),
          r.started_utc,
          r.run_id,
          r.commit,
          r.digest,
          history_status(r),
          c.condition,
          c.name,
          c.unit,
          std::to_string(c.n),
          num(c.median),
          c.median_ci ? num(c.median_ci->lo) : "",
          c.median_ci ? num(c.median_ci->hi) : "",
          c.cv_pct ? num(*c.cv_pct) : "",
          c.cv_ci ? num(c.cv_ci->lo) : "",
          c.cv_ci ? num(c.cv_ci->hi) : "",
          std::string(analysis::to_string(c.change.kind)),
          compared ? ratio_pct(c.change.ratio.estimate) : "",
          compared ? ratio_pct(c.change.ratio.lo) : "",
          compared ? ratio_pct(c.change.ratio.hi) : "",
          compared ? num(c.change.p) : "",
          c.level_change ? ratio_pct(c.level_change->mean_after / c.level_change->mean_before) : "",
          c.level_change ? num(c.level_change->pvalue) : "",
          fmt::format("{}", fmt::join(reasons(c), "; "))};
      if (claims) f.push_back(claims_text(r));
      if (noise) {
        const bool measured = r.noise && r.noise->measured();
        f.push_back(measured ? opt(r.noise->block_cv_pct) : "");
        f.push_back(measured ? opt(r.noise->steal_pct) : "");
        f.push_back(measured ? opt(r.noise->run_delay_pct) : "");
        f.push_back(noise_change_text(r.noise_change));
      }
      for (std::size_t i = 0; i < f.size(); ++i) out += (i ? "," : "") + text::csv_field(f[i]);
      out += "\n";
    }
  }
  return out;
}

std::string history_json(const History& h) { return nlohmann::json(h).dump(2) + "\n"; }

// ---- HTML ----

namespace {

std::string esc(std::string_view s) { return text::html_escape(s); }

std::string num(double v) {
  std::string s = fmt::format("{:.1f}", v);
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  if (s == "-0") s = "0";
  return s;
}

constexpr const char* kHistoryStyle = R"(
:root{color-scheme:light}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;margin:0 auto;max-width:1180px;padding:1rem 1.5rem 3rem;color:#1a1a1a;line-height:1.45}
h1{font-size:1.7rem;margin:.2rem 0 .4rem}h2{font-size:1.3rem;margin-top:2.2rem;border-bottom:1px solid #ccc;padding-bottom:.2rem}h3{font-size:1.05rem;margin:1.4rem 0 .3rem}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;margin:.5rem 0}dl.facts dt{font-weight:600}dl.facts dd{margin:0}
table{border-collapse:collapse;font-size:.9rem;margin:.4rem 0}th,td{border:1px solid #c8c8c8;padding:.22rem .5rem;vertical-align:top}th{background:#f2f2f2;text-align:left}
.wide{overflow-x:auto}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.segment td{background:#eef3f8;font-weight:600}
.regression{color:#b34700;font-weight:600}.improvement{color:#00734f;font-weight:600}
.legend{font-size:.88rem;color:#333;max-width:95ch}
figure{margin:.6rem 0 1rem}figure svg{width:100%;height:auto;display:block}figcaption{font-size:.86rem;color:#333;margin-top:.2rem}
.warnings{border-left:4px solid #e69f00;padding:.2rem .8rem;background:#fff7e6}
footer{margin-top:3rem;font-size:.82rem;color:#555;border-top:1px solid #ddd;padding-top:.5rem}
@media print{h2{break-after:avoid}figure,table{break-inside:avoid}}
)";

// Plot geometry: a median panel over a CV panel, runs equally spaced left to right.
constexpr double kW = 960, kL = 80, kR = 30, kTop = 24, kMedH = 220, kGap = 46, kCvH = 110, kBottom = 40;
constexpr double kH = kTop + kMedH + kGap + kCvH + kBottom;

struct Point {
  std::size_t run = 0;  // index into History::runs
  const HistoryCell* cell = nullptr;
};

std::string y_axis(const svg::Ticks& t, double top, double height, const std::string& caption) {
  const auto y = [&](double v) { return top + height - (v - t.lo) / (t.hi - t.lo) * height; };
  std::string out = "<g stroke=\"#e0e0e0\">";
  for (double v : t.values)
    out +=
        fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\"/>", num(kL), num(kW - kR), num(y(v)));
  out += "</g>\n<g text-anchor=\"end\" fill=\"#333\">";
  for (double v : t.values)
    out += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>", num(kL - 6), num(y(v) + 4),
                       svg::format_tick(v, t.decimals));
  out += fmt::format("</g>\n<text x=\"{}\" y=\"{}\" fill=\"#333\">{}</text>\n", num(kL), num(top - 8),
                     esc(caption));
  out += fmt::format("<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#333\"/>\n", num(kL),
                     num(top), num(top + height));
  return out;
}

// Where a trend plot puts a run and a value: runs equally spaced, the median panel over the CV panel.
struct TrendFrame {
  double step = 0;
  svg::Ticks tm, tc;  // the medians' axis and the CVs'
  double cv_top = kTop + kMedH + kGap;
  double x(std::size_t run) const { return kL + (static_cast<double>(run) + 0.5) * step; }
  double ym(double v) const { return kTop + kMedH - (v - tm.lo) / (tm.hi - tm.lo) * kMedH; }
  double yc(double v) const { return cv_top + kCvH - (v - tc.lo) / (tc.hi - tc.lo) * kCvH; }
};

// The axes' ranges: of the medians and their CIs; of the CVs and their intervals, from zero.
TrendFrame trend_frame(std::size_t runs, const std::vector<Point>& points) {
  std::vector<double> med, cv;
  for (const auto& p : points) {
    med.push_back(p.cell->median);
    if (p.cell->median_ci) med.push_back(p.cell->median_ci->lo), med.push_back(p.cell->median_ci->hi);
    if (p.cell->cv_pct) cv.push_back(*p.cell->cv_pct);
    if (p.cell->cv_ci) cv.push_back(p.cell->cv_ci->lo), cv.push_back(p.cell->cv_ci->hi);
  }
  const auto range = [](const std::vector<double>& v, bool from_zero) {
    double lo = INFINITY, hi = -INFINITY;
    for (double d : v)
      if (std::isfinite(d)) lo = std::min(lo, d), hi = std::max(hi, d);
    if (!std::isfinite(lo)) return svg::nice_ticks(0, 1, 4);
    if (from_zero) lo = 0;
    if (lo == hi) lo -= std::max(std::fabs(lo) * 0.05, 1e-9), hi += std::max(std::fabs(hi) * 0.05, 1e-9);
    return svg::nice_ticks(lo, hi, 5);
  };
  TrendFrame f;
  f.step = (kW - kL - kR) / static_cast<double>(std::max<std::size_t>(runs, 1));
  f.tm = range(med, false);
  f.tc = range(cv, true);
  return f;
}

std::string segment_boundaries(const History& h, const TrendFrame& f) {
  std::string out;
  for (const auto& s : h.segments) {
    if (s.first_run == 0) continue;
    const double bx = kL + static_cast<double>(s.first_run) * f.step;
    out += fmt::format(
        "<g data-segment-boundary=\"{0}\"><line x1=\"{1}\" x2=\"{1}\" y1=\"{2}\" y2=\"{3}\" stroke=\"#555\" "
        "stroke-dasharray=\"5 4\"/><text x=\"{4}\" y=\"{5}\" fill=\"#555\">segment "
        "{0}</text><title>{6}</title></g>\n",
        s.index, num(bx), num(kTop - 4), num(f.cv_top + kCvH), num(bx + 4), num(kTop + 10),
        esc(segment_header(s)));
  }
  return out;
}

// CV: shaded interval per run, and the CV as a line within each segment; the medians' line too.
std::string trend_lines(const History& h, const std::vector<Point>& points, const TrendFrame& f) {
  std::string out;
  std::map<std::size_t, std::vector<std::string>> cv_lines, med_lines;
  for (const auto& p : points) {
    const HistoryCell& c = *p.cell;
    const double px = f.x(p.run);
    if (c.cv_ci)
      out += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#56B4E9\" fill-opacity=\"0.35\" "
          "data-cv-band=\"{}\"/>\n",
          num(px - f.step * 0.3), num(f.yc(c.cv_ci->hi)), num(f.step * 0.6),
          num(std::max(1.0, f.yc(c.cv_ci->lo) - f.yc(c.cv_ci->hi))), esc(h.runs[p.run].run_id));
    if (c.cv_pct) {
      cv_lines[h.runs[p.run].segment].push_back(num(px) + "," + num(f.yc(*c.cv_pct)));
      out += svg::marker(svg::Shape::square, svg::kPalette[0], px, f.yc(*c.cv_pct), 3.5, false,
                         fmt::format(" data-cv=\"{}\"", esc(h.runs[p.run].run_id)),
                         fmt::format("run {}: CV {} {}", h.runs[p.run].run_id, cv_text(c), cv_ci_text(c))) +
             "\n";
    }
    if (std::isfinite(c.median))
      med_lines[h.runs[p.run].segment].push_back(num(px) + "," + num(f.ym(c.median)));
  }
  for (const auto& [seg, pts] : cv_lines)
    if (pts.size() > 1)
      out += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"#56B4E9\" stroke-width=\"1.5\"/>\n",
                         fmt::join(pts, " "));
  for (const auto& [seg, pts] : med_lines)
    if (pts.size() > 1)
      out += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"#999\" stroke-width=\"1.2\"/>\n",
                         fmt::join(pts, " "));
  return out;
}

// Medians with their CI, and the steps.
std::string median_marks(const History& h, const std::vector<Point>& points, const TrendFrame& f) {
  std::string out;
  for (const auto& p : points) {
    const HistoryCell& c = *p.cell;
    const HistoryRun& r = h.runs[p.run];
    if (!std::isfinite(c.median)) continue;
    const double px = f.x(p.run), py = f.ym(c.median);
    if (c.median_ci)
      out += fmt::format(
          "<g stroke=\"#0072B2\" stroke-width=\"1.5\"><line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>"
          "<line x1=\"{3}\" x2=\"{4}\" y1=\"{1}\" y2=\"{1}\"/><line x1=\"{3}\" x2=\"{4}\" y1=\"{2}\" "
          "y2=\"{2}\"/></g>\n",
          num(px), num(f.ym(c.median_ci->lo)), num(f.ym(c.median_ci->hi)), num(px - 5), num(px + 5));
    if (c.level_change)  // where a new level starts: a line through both panels
      out += fmt::format(
          "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#CC79A7\" stroke-width=\"2\" "
          "data-level-change=\"{3}\"><title>{4}</title></line>\n",
          num(px - f.step / 2), num(kTop), num(f.cv_top + kCvH), esc(r.run_id), esc(level_text(c)));
    const std::string change = change_text(c.change);
    out += svg::marker(svg::Shape::circle, svg::kPalette[0], px, py, 4.5, false,
                       fmt::format(" data-run=\"{}\"", esc(r.run_id)),
                       fmt::format("run {} · {} · commit {} · median {} {}{}", r.run_id,
                                   or_dash(r.started_utc), or_dash(r.commit), median_text(c),
                                   median_ci_text(c), change.empty() ? "" : " · " + change)) +
           "\n";
    if (c.change.kind == ChangeKind::higher || c.change.kind == ChangeKind::lower) {
      const bool up = c.change.kind == ChangeKind::higher;
      const double top = c.median_ci ? f.ym(c.median_ci->hi) : py;
      // Orange for a regression, green for an improvement, grey when the unit has no direction.
      const char* colour = c.change.regression ? "#D55E00" : c.change.improvement ? "#009E73" : "#555555";
      out += fmt::format(
          "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"{}\" font-weight=\"bold\" "
          "data-step=\"{}\">{} {}%<title>{}</title></text>\n",
          num(px), num(std::max(kTop + 2, top - 8)), colour, up ? "higher" : "lower", up ? "▲" : "▼",
          pct(c.change.ratio.estimate), esc(change));
    }
  }
  return out;
}

// Run axis: every run, or every k-th when there are many.
std::string run_axis(std::size_t runs, const TrendFrame& f) {
  const std::size_t every = std::max<std::size_t>(1, (runs + 29) / 30);
  std::string out = fmt::format(
      "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#333\"/>\n<g text-anchor=\"middle\" "
      "fill=\"#333\">",
      num(kL), num(kW - kR), num(f.cv_top + kCvH));
  for (std::size_t i = 0; i < runs; i += every)
    out += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>", num(f.x(i)), num(f.cv_top + kCvH + 16), i + 1);
  out += fmt::format("<text x=\"{}\" y=\"{}\">run (in time order)</text></g>\n", num((kL + kW - kR) / 2),
                     num(f.cv_top + kCvH + 34));
  return out;
}

std::string trend_plot(const History& h, const std::string& id, const std::string& condition,
                       const std::string& name, const std::vector<Point>& points) {
  const TrendFrame f = trend_frame(h.runs.size(), points);
  const std::string unit = points.empty() ? "" : points.front().cell->unit;
  const std::string label = condition + " · " + name;
  std::size_t steps = 0;
  for (const auto& p : points)
    if (p.cell->change.kind == ChangeKind::higher || p.cell->change.kind == ChangeKind::lower) ++steps;
  const std::string desc = fmt::format(
      "Median {} of {} per run with its 95% CI as an error bar (top) and the CV with its bootstrap 95% "
      "interval shaded (bottom), over {} runs in {} segment(s); {} significant step(s) marked.",
      unit, label, points.size(), h.segments.size(), steps);
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" role=\"img\" aria-labelledby=\"{}-t "
      "{}-d\" data-plot=\"history\" data-condition=\"{}\" data-benchmark=\"{}\" font-family=\"sans-serif\" "
      "font-size=\"12\">\n<title id=\"{}-t\">{}</title>\n<desc id=\"{}-d\">{}</desc>\n",
      num(kW), num(kH), id, id, esc(condition), esc(name), id, esc("History of " + label), id, esc(desc));
  out += y_axis(f.tm, kTop, kMedH, "median " + unit + " (95% CI)");
  out += y_axis(f.tc, f.cv_top, kCvH, "CV % (bootstrap 95% interval shaded)");
  out += segment_boundaries(h, f);
  out += trend_lines(h, points, f);
  out += median_marks(h, points, f);
  out += run_axis(h.runs.size(), f);
  return out + "</svg>\n";
}

}  // namespace

std::string history_html(const History& h, std::string_view directory, std::string_view generated_by) {
  const bool claims = any_claims(h);
  const std::string title = "History of " + or_dash(h.experiment);
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out +=
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
      "img-src data:\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += fmt::format(
      "<meta name=\"generator\" content=\"{}\">\n<title>{} — noisefloor "
      "history</title>\n<style>{}</style>\n</head>\n<body>\n",
      esc(generated_by), esc(title), kHistoryStyle);
  out += fmt::format(
      "<header>\n<h1>{}</h1>\n<dl class=\"facts\">\n<dt>Directory</dt><dd><code>{}</code></dd>\n"
      "<dt>Runs</dt><dd>{} in {} segment(s)</dd>\n<dt>Change</dt><dd>{}</dd>\n"
      "<dt>History by</dt><dd>{}</dd>\n</dl>\n</header>\n",
      esc(title), esc(directory), h.runs.size(), h.segments.size(), esc(legend_line(h)), esc(generated_by));
  if (!h.warnings.empty()) {
    out += "<section class=\"warnings\" aria-label=\"warnings\">\n<h2>Warnings</h2>\n<ul>\n";
    for (const auto& w : h.warnings) out += "<li>" + esc(warning_text(w)) + "</li>\n";
    out += "</ul>\n</section>\n";
  }

  // The runs, segment by segment.
  out +=
      "<section id=\"runs\">\n<h2>Runs</h2>\n<div class=\"wide\"><table "
      "class=\"runs\">\n<thead><tr><th>#</th><th>time "
      "(UTC)</th><th>commit</th><th>room</th><th>status</th><th>run</th>";
  const bool noise = any_noise(h);
  out += claims ? "<th>claims</th>" : "";
  out += noise ? "<th>room noise</th></tr></thead>\n<tbody>\n" : "</tr></thead>\n<tbody>\n";
  for (std::size_t i = 0; i < h.runs.size(); ++i) {
    const HistoryRun& r = h.runs[i];
    const auto& seg = h.segments.at(r.segment - 1);
    if (seg.first_run == i)
      out += fmt::format("<tr class=\"segment\" data-segment=\"{}\"><td colspan=\"{}\">{}</td></tr>\n",
                         seg.index, 6 + (claims ? 1 : 0) + (noise ? 1 : 0), esc(segment_header(seg)));
    out += fmt::format(
        "<tr data-run=\"{}\"><td "
        "class=\"num\">{}</td><td>{}</td><td><code>{}</code></td><td><code>{}</code></td><td>{}</td><td>{}</"
        "td>",
        esc(r.run_id), i + 1, esc(or_dash(r.started_utc)), esc(or_dash(r.commit)), esc(or_dash(r.digest)),
        esc(history_status(r)), esc(r.run_id));
    if (claims) out += "<td>" + esc(claims_text(r)) + "</td>";
    if (noise) out += fmt::format("<td title=\"{}\">{}</td>", esc(noise_text(r)), esc(noise_brief_text(r)));
    out += "</tr>\n";
  }
  out += "</tbody>\n</table></div>\n</section>\n";

  // One trend plot per condition × benchmark, in first-seen order.
  // Keyed as rows are matched (condition, full name, configuration, variant), named as first shown.
  std::vector<analysis::RowKey> keys;
  std::map<analysis::RowKey, std::vector<Point>> points;
  std::map<analysis::RowKey, std::string> names;
  for (std::size_t i = 0; i < h.runs.size(); ++i)
    for (const auto& c : h.runs[i].cells) {
      if (!points.count(c.key)) keys.push_back(c.key), names[c.key] = c.name;
      points[c.key].push_back(Point{i, &c});
    }
  out +=
      "<section id=\"trends\">\n<h2>Trends</h2>\n<p class=\"legend\">Per run: the median with its 95% CI "
      "(error bar), and below it the CV with a seeded percentile-bootstrap 95% interval (shaded). Dashed "
      "vertical lines start a new segment (the room changed): runs are never compared across one. ▲/▼ mark "
      "significant steps against the previous run.</p>\n";
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const std::string& condition = keys[k].condition;
    const std::string& name = names[keys[k]];
    const auto& pts = points[keys[k]];
    out += fmt::format("<h3>{} · {}</h3>\n<figure>\n{}", esc(condition), esc(name),
                       trend_plot(h, fmt::format("h{}", k), condition, name, pts));
    std::string table;
    for (const auto& p : pts) {
      const HistoryCell& c = *p.cell;
      const std::string change =
          change_text(c.change) + (c.level_change ? " · " + level_text(c) : std::string());
      const std::string cls = c.change.regression    ? " class=\"regression\""
                              : c.change.improvement ? " class=\"improvement\""
                                                     : "";
      table += fmt::format(
          "<tr><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{} {}</td><td "
          "class=\"num\">{} {}</td><td{}>{}</td><td>{}</td></tr>\n",
          p.run + 1, esc(h.runs[p.run].run_id), c.n, esc(median_text(c)), esc(median_ci_text(c)),
          esc(cv_text(c)), esc(cv_ci_text(c)), cls, esc(change),
          esc(fmt::format("{}", fmt::join(reasons(c), "; "))));
    }
    out +=
        "<figcaption><details><summary>Values</summary><table><thead><tr><th>#</th><th>run</th><th>n</"
        "th><th>median "
        "[95% CI]</th><th>CV [95%]</th><th>change</th><th>notes</th></tr></thead><tbody>\n" +
        table + "</tbody></table></details></figcaption>\n</figure>\n";
  }
  out += "</section>\n";
  out += fmt::format(
      "<footer>Generated by {}. Self-contained: no script, no web font, nothing fetched.</footer>\n",
      esc(generated_by));
  return out + "</body>\n</html>\n";
}

}  // namespace noisefloor::render
