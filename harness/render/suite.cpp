#include "render/suite.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>

#include "analysis/suite.hpp"
#include "model/first_seen.hpp"
#include "model/go_config.hpp"
#include "model/names.hpp"
#include "render/accounting.hpp"
#include "render/table.hpp"
#include "render/warnings.hpp"
#include "text/text.hpp"
#include "text/units.hpp"

namespace noisefloor::render {

using analysis::Row;
using analysis::SuiteLine;
using analysis::Table;

namespace {

// A condition's room label, as its column head shows it.
std::string label_word(const analysis::Table& t, const std::string& condition) {
  return std::string(to_string(t.label_of(condition)));
}

constexpr std::size_t kNameMax = 44;       // a longer benchmark name takes a line of its own
constexpr std::size_t kNameMin = 8;        // the name column is never narrower to fit conditions
constexpr std::size_t kConditionMax = 28;  // in the legend, a longer condition name is shortened with "…"

// The "±" of a cell: benchstat's relative half-width of the median's interval.
std::string pct_text(const Row& r) {
  const stats::Summary& s = r.summary;
  if (r.exact) {
    if (r.mode == 0) return s.min == 0 && s.max == 0 ? "0%" : "?";
    if ((r.mode > 0) != (s.min > 0) || (r.mode > 0) != (s.max > 0)) return "?";
    return fmt::format("{:.0f}%", 100 * std::max(s.max / r.mode - 1, 1 - s.min / r.mode));
  }
  if (!s.median_ci) return "∞";
  if (s.median == 0 && s.median_ci->lo == 0 && s.median_ci->hi == 0) return "0%";
  if (!s.median_rel_halfwidth) return "?";
  const double pct = 100 * *s.median_rel_halfwidth;
  return pct < 10 ? fmt::format("{:.1f}%", pct) : fmt::format("{:.0f}%", pct);
}

struct Cell {
  std::string center, cv, band;
};

// A line's name where it starts a row: text::row_label, then its variant.
std::string row_name(const SuiteLine& l) {
  return text::row_label(l.name) + (l.variant.empty() ? "" : fmt::format(" [{}]", l.variant));
}

// The cells of one line, its values scaled together (one SI prefix for the line, as benchstat
// scales a row) in the tidied unit.
std::vector<Cell> cells_of(const SuiteLine& line, const std::string& unit_factor_unit, double factor) {
  std::vector<double> values;
  for (const Row* r : line.cells)
    if (r != nullptr && r->summary.n > 0) values.push_back((r->exact ? r->mode : r->summary.median) * factor);
  const std::vector<std::string> scaled = text::scale_values(values, unit_factor_unit);
  std::vector<Cell> out;
  std::size_t k = 0;
  for (const Row* r : line.cells) {
    if (r == nullptr) {
      out.push_back({"", "", ""});
    } else if (r->summary.n == 0) {
      out.push_back({text::kDash, "", ""});
    } else {
      out.push_back({scaled[k++] + " ± " + pct_text(*r), text::fixed(r->summary.cv_pct, 1),
                     std::string(stats::to_string(r->summary.band))});
    }
  }
  return out;
}

// A condition's name in `columns`: a long one keeps its end ("…benchmem_count3"), where merged
// results and files differ.
std::string fit_name(const std::string& name, std::size_t columns) {
  if (text::width(name) <= columns) return name;
  std::size_t cut = 0, w = text::width(name);
  while (cut < name.size() && w + 1 > columns) {  // drop code points from the front, "…" takes one
    ++cut;
    while (cut < name.size() && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) ++cut;
    w = text::width(std::string_view(name).substr(cut));
  }
  return "…" + name.substr(cut);
}

// One table: the lines of one configuration and unit, its conditions in chunks that fit `width`.
// Without `with_cv` a condition's columns are the centre and the band only (the band says the CV's
// range). `chunks`: how many tables the conditions took.
// Conditions [first, last) side by side, and the name column beside them.
struct Chunk {
  std::size_t first, last, name_w;
};

// Chunks of conditions (their column groups `gw`) that fit `width` beside the narrowest name column
// allowed (`least_w`, up to `natural_w` when there is room) and `fixed` columns more.
std::vector<Chunk> chunks_of(const std::vector<std::size_t>& gw, std::size_t width, std::size_t fixed,
                             std::size_t least_w, std::size_t natural_w) {
  std::vector<Chunk> chunks;
  std::size_t first = 0, used = fixed + least_w;
  const auto close = [&](std::size_t last) {
    std::size_t groups = fixed;
    for (std::size_t c = first; c < last; ++c) groups += 3 + gw[c];
    chunks.push_back(
        {first, last, width > groups ? std::clamp(width - groups, least_w, natural_w) : least_w});
  };
  for (std::size_t c = 0; c < gw.size(); ++c) {
    const std::size_t need = 3 + gw[c];
    if (c > first && used + need > width) {
      close(c);
      first = c;
      used = fixed + least_w;
    }
    used += need;
  }
  close(gw.size());
  return chunks;
}

std::string unit_table(const Table& t, const std::vector<const SuiteLine*>& lines, std::size_t width,
                       bool with_cv, const std::string& procs_word, bool* procs_shown,
                       std::size_t* chunk_count) {
  const auto [tidied, factor] = text::tidy_unit(std::string(lines.front()->unit));
  std::vector<std::vector<Cell>> cells;
  for (const SuiteLine* l : lines) cells.push_back(cells_of(*l, tidied, factor));
  const std::size_t conditions = t.conditions.size();
  // Each condition's columns: centre, CV%, band.
  std::vector<std::size_t> cw(conditions, 0), vw(conditions, 3), bw(conditions, 4), gw(conditions, 0);
  const std::size_t cv_cols = with_cv ? 2 : 0;  // the CV column's separator; its width is vw
  for (std::size_t c = 0; c < conditions; ++c) {
    cw[c] = text::width("median ± CI");
    for (const auto& row : cells) {
      cw[c] = std::max(cw[c], text::width(row[c].center));
      vw[c] = std::max(vw[c], text::width(row[c].cv));
      bw[c] = std::max(bw[c], text::width(row[c].band));
    }
    if (!with_cv) vw[c] = 0;
    // The heading: the label whole, the name shortened from the front past 16 columns when the
    // numbers are narrower.
    const std::size_t label_w = t.labels.empty() ? 0 : text::width(label_word(t, t.conditions[c]));
    gw[c] = std::max({cw[c] + cv_cols + vw[c] + 2 + bw[c], label_w,
                      std::min<std::size_t>(text::width(t.conditions[c]), 16)});
    bw[c] = gw[c] - cw[c] - cv_cols - vw[c] - 2;  // the band column takes what the heading needs more
  }
  std::size_t natural_w = text::width(tidied);  // the name column when there is room for it
  for (const SuiteLine* l : lines) {
    const std::string shown = row_name(*l);
    natural_w = std::max(natural_w, std::min(text::width(shown), kNameMax));
  }
  // The widest procs column a chunk can have: none when no line runs at more than 1.
  std::size_t procs_max = 0;
  bool some_procs = false;
  for (const SuiteLine* l : lines) {
    const std::string p = l->procs_text();
    procs_max = std::max(procs_max, text::width(p));
    some_procs = some_procs || (!p.empty() && p != "1");
  }
  procs_max = some_procs ? std::max(procs_max, text::width(procs_word)) + 2 : 0;
  // Chunks of conditions that fit beside the narrowest name column allowed (kNameMin; a longer
  // name then takes a line of its own above its numbers): procs, the closing " │", then
  // " │ group" each.
  const std::size_t least_w = std::min(natural_w, std::max(kNameMin, text::width(tidied)));
  const std::vector<Chunk> chunks = chunks_of(gw, width, procs_max + 2, least_w, natural_w);
  *chunk_count = chunks.size();
  std::string out;
  for (const auto& [first, last, name_w] : chunks) {
    // The chunk's parallelism column: shown when some line runs at more than 1.
    std::vector<std::string> procs;
    bool any_procs = false;
    for (const SuiteLine* l : lines) {
      SuiteLine part = *l;
      part.cells.assign(l->cells.begin() + static_cast<std::ptrdiff_t>(first),
                        l->cells.begin() + static_cast<std::ptrdiff_t>(last));
      procs.push_back(part.procs_text());
      any_procs = any_procs || (!procs.back().empty() && procs.back() != "1");
    }
    std::size_t procs_w = 0;
    if (any_procs) {
      procs_w = text::width(procs_word);
      for (const auto& p : procs) procs_w = std::max(procs_w, text::width(p));
      *procs_shown = true;
    }
    // Lines of this chunk with anything in it.
    std::vector<std::size_t> shown;
    for (std::size_t i = 0; i < lines.size(); ++i)
      for (std::size_t c = first; c < last; ++c)
        if (lines[i]->cells[c] != nullptr) {
          shown.push_back(i);
          break;
        }
    if (shown.empty()) continue;
    const std::size_t lead = name_w + (any_procs ? 2 + procs_w : 0);
    // "idle · MEASURED-clean" when every condition's fits its columns, else the label under the name.
    bool labelled = !t.labels.empty(), one_line = labelled;
    for (std::size_t c = first; c < last && one_line; ++c)
      one_line = text::width(t.conditions[c] + " · " + label_word(t, t.conditions[c])) <= gw[c];
    std::string head1 = std::string(lead, ' '), head_label = head1, head2 = text::pad_right(tidied, name_w);
    if (any_procs) head2 += "  " + text::pad_left(procs_word, procs_w);
    for (std::size_t c = first; c < last; ++c) {
      head1 += " │ " + text::pad_right(one_line ? t.conditions[c] + " · " + label_word(t, t.conditions[c])
                                                : fit_name(t.conditions[c], gw[c]),
                                       gw[c]);
      head_label += " │ " + text::pad_right(label_word(t, t.conditions[c]), gw[c]);
      head2 += " │ " + text::pad_left("median ± CI", cw[c]) +
               (with_cv ? "  " + text::pad_left("CV%", vw[c]) : "") + "  " + text::pad_right("band", bw[c]);
    }
    out += text::rstrip(head1 + " │") + "\n";
    if (labelled && !one_line) out += text::rstrip(head_label + " │") + "\n";
    out += text::rstrip(head2 + " │") + "\n";
    for (const std::size_t i : shown) {
      const SuiteLine& l = *lines[i];
      std::string name = row_name(l);
      if (text::width(name) > name_w) {
        out += name + "\n";
        name.clear();
      }
      std::string row = text::pad_right(name, name_w);
      if (any_procs) row += "  " + text::pad_left(procs[i], procs_w);
      for (std::size_t c = first; c < last; ++c) {
        const Cell& cell = cells[i][c];
        row += "   " + text::pad_left(cell.center, cw[c]) +
               (with_cv ? "  " + text::pad_left(cell.cv, vw[c]) : "") + "  " +
               text::pad_right(cell.band, bw[c]);
      }
      out += text::rstrip(row) + "\n";
    }
    out += "\n";
  }
  return out;
}

}  // namespace

std::string conditions_legend(const Table& t, std::size_t width) {
  if (t.labels.empty()) return "";
  std::size_t name_w = 0, label_w = 0;
  for (const auto& c : t.conditions) {
    name_w = std::max(name_w, std::min(text::width(text::row_label(c)), kConditionMax));
    label_w = std::max(label_w, text::width(label_word(t, c)));
  }
  std::string out = "conditions:\n";
  for (const auto& c : t.conditions) {
    const auto it = t.labels.find(c);
    const std::string reason =
        it == t.labels.end() ? "nothing recorded about it" : label_reason_text(it->second.reason);
    const std::string lead = "  " +
                             text::pad_right(text::truncate(text::row_label(c), kConditionMax), name_w) +
                             "  " + text::pad_right(label_word(t, c), label_w) + "  ";
    out += text::wrap(reason, width, lead, std::string(text::width(lead), ' '));
  }
  return out + "\n";
}

std::size_t suite_benchmarks(const Table& t) {
  std::size_t n = 0;
  for (const SuiteLine& l : analysis::suite_lines(t)) n += l.metric == 0;
  return n;
}

namespace {

std::string suite_body(const Table& t, const std::vector<SuiteLine>& lines, std::size_t width, bool with_cv,
                       bool* procs_shown, std::size_t* most_chunks) {
  // The parallelism column's heading, asked of every row once, not once per table.
  const std::string procs_word = analysis::threads_not_procs(t) ? "threads" : "procs";
  std::string out;
  // The configurations that tell rows apart head their tables ("pkg: a"), as benchstat heads its.
  // Each configuration's (metric, unit)s and each one's lines, all in the order first seen.
  model::FirstSeen<std::string> configs;
  std::vector<model::FirstSeen<std::pair<std::size_t, std::string_view>>> units;  // per configuration
  std::map<std::pair<std::size_t, std::size_t>, std::vector<const SuiteLine*>> groups;
  for (const auto& l : lines) {
    const std::size_t c = configs.add(model::config_only(l.config, t.config_keys));
    if (c == units.size()) units.emplace_back();
    groups[{c, units[c].add({l.metric, l.unit})}].push_back(&l);
  }
  model::FirstSeen<std::string> constant;  // "B/op: 0"
  for (std::size_t c = 0; c < configs.size(); ++c) {
    if (!configs[c].empty())
      for (const auto& [key, value] : model::config_entries(configs[c])) out += key + ": " + value + "\n";
    for (std::size_t u = 0; u < units[c].size(); ++u) {
      const auto& [metric, unit] = units[c][u];
      const std::vector<const SuiteLine*>& group = groups.at({c, u});
      // Another metric with one value in every sample of every benchmark (B/op and allocs/op of
      // most Go benchmarks) is one line, not a table.
      if (metric != 0) {
        const auto v = group.front()->cells;
        const bool all_constant =
            std::all_of(group.begin(), group.end(), [](const SuiteLine* l) { return l->constant(); });
        if (all_constant) {
          double value = 0;
          for (const Row* r : v)
            if (r != nullptr) value = r->summary.min;
          const bool same = std::all_of(group.begin(), group.end(), [&](const SuiteLine* l) {
            return std::all_of(l->cells.begin(), l->cells.end(),
                               [&](const Row* r) { return r == nullptr || r->summary.min == value; });
          });
          if (same) {
            const std::string item = fmt::format("{} {}", text::format_value(value), unit);
            constant.add(item);
            continue;
          }
        }
      }
      std::size_t chunks = 1;
      out += unit_table(t, group, width, with_cv, procs_word, procs_shown, &chunks);
      *most_chunks = std::max(*most_chunks, chunks);
    }
  }
  if (!constant.empty())
    out += text::wrap(fmt::format("{}: in every sample of every benchmark and condition",
                                  fmt::join(constant.values(), ", ")),
                      width, "", "  ");
  return out;
}

}  // namespace

std::string suite_text(const Table& t, std::size_t width) {
  const std::vector<SuiteLine> lines = analysis::suite_lines(t);
  std::string out = conditions_legend(t, width);
  // With the CV column, unless leaving it out (the band says the CV's range) keeps more
  // conditions side by side, or as many in fewer lines (names beside their numbers, not above).
  bool procs_shown = false, with_cv = true;
  std::size_t chunks = 1;
  std::string body = suite_body(t, lines, width, true, &procs_shown, &chunks);
  {
    bool procs = false;
    std::size_t fewer = 1;
    std::string narrow = suite_body(t, lines, width, false, &procs, &fewer);
    const auto count = [](const std::string& s) { return std::count(s.begin(), s.end(), '\n'); };
    if (fewer < chunks || (fewer == chunks && count(narrow) < count(body))) {
      body = std::move(narrow);
      procs_shown = procs;
      with_cv = false;
    }
  }
  out += body;
  std::string legend =
      "median ± CI: the median and the relative half-width of its 95% interval (as benchstat; ∞: fewer than "
      "6 "
      "samples). " +
      std::string(with_cv ? "CV = stddev (n−1) / mean; bands"
                          : "Bands of the CV (stddev (n−1) / mean; `noisefloor cv "
                            "--format markdown` shows it):") +
      " ≤2% excellent, ≤5% acceptable, ≤10% noisy, >10% do not trust.";
  if (procs_shown)
    legend += analysis::threads_not_procs(t)
                  ? " threads: Google Benchmark's thread count, one per condition where they differ."
                  : " procs: GOMAXPROCS (the -N of a Go name), one per condition where they differ.";
  out += text::wrap(legend, width, "", "");
  // A row's own notes (outliers, a heavy tail, drift), said per kind with the rows they concern,
  // not one note per row; a kind without words of its own here is said as its sentence.
  using Kind = stats::SummaryWarningKind;
  constexpr std::array<std::pair<Kind, std::string_view>, 4> kKindWords = {{
      {Kind::shape, "shape (CV more than twice the robust rCV: a heavy tail, outliers or several modes)"},
      {Kind::outliers, "outliers (|modified z| > 3.5)"},
      {Kind::drift, "drift (lag-1 autocorrelation above 2/√n: successive samples depend on each other)"},
      {Kind::one_sample, "one sample (no stddev, CV or mean CI)"},
  }};
  std::vector<std::pair<std::string, std::map<std::string, model::FirstSeen<std::string>>>> kinds;
  for (const Row& r : t.rows)
    for (const stats::SummaryWarning& w : r.summary.warnings) {
      if (w.kind == Kind::no_median_ci) continue;  // the cell says it
      std::string kind(model::word_of(w.kind, kKindWords, ""));
      if (kind.empty()) kind = summary_warning_text(w);
      auto it = std::find_if(kinds.begin(), kinds.end(), [&](const auto& k) { return k.first == kind; });
      if (it == kinds.end()) it = kinds.insert(kinds.end(), {kind, {}});
      std::string name =
          text::line_label(r.name.starts_with("Benchmark") && r.name.size() > 9 ? r.name.substr(9) : r.name);
      if (!r.variant.empty()) name += " [" + r.variant + "]";
      it->second[r.condition].add(name);
    }
  for (const auto& [kind, by_condition] : kinds) {
    std::vector<std::string> parts;
    for (const auto& c : t.conditions)
      if (const auto it = by_condition.find(c); it != by_condition.end())
        parts.push_back(fmt::format("{}: {}", text::line_label(c), fmt::join(it->second.values(), ", ")));
    out += text::wrap(fmt::format("{}: {}", kind, fmt::join(parts, "; ")), width, "- ", "  ");
  }
  for (const std::string& n : accounting_notes(t.accounting)) out += text::wrap(n, width, "- ", "  ");
  return out;
}

}  // namespace noisefloor::render
