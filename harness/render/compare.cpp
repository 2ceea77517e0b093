#include "render/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "model/first_seen.hpp"
#include "model/go_config.hpp"
#include "render/fingerprint.hpp"
#include "render/table.hpp"
#include "render/warnings.hpp"
#include "text/text.hpp"
#include "text/units.hpp"

namespace noisefloor::render {

std::string labels_text(const analysis::CompareRow& r) {
  const auto why = [](const analysis::LabelReason& reason) {
    const std::string said = label_reason_text(reason);
    return said.empty() ? said : " (" + said + ")";
  };
  const analysis::RowLabels& l = r.labels;
  return fmt::format("old '{}' is {}{}, new '{}' is {}{}", r.old_side.condition, to_string(l.old_label),
                     why(l.old_reason), r.new_side.condition, to_string(l.new_label), why(l.new_reason));
}

std::string not_compared_reason(const analysis::CompareRow& r) {
  return r.compared ? "" : "labels differ: " + labels_text(r);
}

std::string label_reason(const analysis::CompareRow& r) {
  if (!r.compared) return "";
  if (r.labels.differ()) return labels_text(r) + "; compared because of --allow-different-labels";
  const std::string old_reason = label_reason_text(r.labels.old_reason),
                    new_reason = label_reason_text(r.labels.new_reason);
  if (old_reason == new_reason) return old_reason;
  std::vector<std::string> parts;
  if (!old_reason.empty()) parts.push_back("old: " + old_reason);
  if (!new_reason.empty()) parts.push_back("new: " + new_reason);
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::string compare_note_text(const analysis::CompareNote& n) {
  using Kind = analysis::CompareNote::Kind;
  switch (n.kind) {
    case Kind::loaded:
      break;  // a loading's warning, said below
    case Kind::no_fingerprint:
      return fmt::format(
          "{} is a go test file with no host fingerprint: the two hosts cannot be checked for "
          "comparability",
          n.side);
    case Kind::configs_differ: {
      std::vector<std::string> changes;
      for (const auto& c : n.changes)
        changes.push_back(fmt::format("{}: {} → {}", c.key, c.old_value, c.new_value));
      return fmt::format(
          "the sides were printed under different configurations ({}): a key with one value on "
          "each side describes the side, so rows are matched without it",
          fmt::join(changes, "; "));
    }
    case Kind::holm: {
      std::vector<std::string> units;
      for (const auto& [unit, rows] : n.adjusted) units.push_back(fmt::format("{} over {} rows", unit, rows));
      return fmt::format(
          "\"p=\" and \"~\" are benchstat's, row by row; \"Holm p\" beside each effect is that p "
          "Holm-Bonferroni adjusted within its unit ({}); verdicts are per-row {:.0f}% CIs, not "
          "adjusted",
          fmt::join(units, ", "), 100 * n.confidence);
    }
    case Kind::no_geomean:
      return fmt::format("{} → {}, {}{}: no geomean of the centres (a centre is <= 0)", n.old_condition,
                         n.new_condition, n.config.empty() ? "" : n.config + ", ", n.unit);
    case Kind::unknown_label:
      return "UNKNOWN label: a side records no load (a go test file has no spinner or load record), so "
             "MEASURED-clean cannot be told from CONTENDED";
    case Kind::sets_differ:
      return "the benchmark sets differ: geomeans cover the benchmarks present on both sides only";
    case Kind::not_numbers:
      return fmt::format("{}: {} / {} {}: {} value(s) not a number, left out", n.side, n.old_condition, n.row,
                         n.unit, n.count);
  }
  return run_warning_text(n.loaded);
}

std::string one_sided_text(const analysis::OneSided& s) {
  using Kind = analysis::OneSided::Kind;
  const std::string where = text::line_label(s.condition);
  switch (s.kind) {
    case Kind::condition:
      return fmt::format("condition '{}' (all benchmarks)", s.condition);
    case Kind::row:
      return fmt::format("{}: {}", where, s.row);
    case Kind::row_unit:
      return fmt::format("{}: {} ({})", where, s.row, s.unit);
    case Kind::unit:
      return fmt::format("{}: unit {}", where, s.unit);
  }
  return where;
}

std::vector<std::string> label_differences(const analysis::CompareTable& t) {
  model::FirstSeen<std::string> out;
  for (const auto& r : t.rows)
    if (!r.compared) out.add(labels_text(r));
  return out.values();
}

namespace {

using analysis::CompareRow;
using analysis::CompareSide;
using analysis::CompareTable;
using analysis::Difference;
using analysis::Label;
using text::pad_left;
using text::pad_right;

constexpr std::size_t kWidth = 80;
constexpr std::string_view kBenchmarkPrefix = "Benchmark";

template <typename T>
void add_unique(std::vector<T>& v, const T& x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

// One logical line word-wrapped to kWidth columns, keeping its leading spaces; continuation lines
// get `indent` spaces.
std::string wrap(const std::string& s, std::size_t indent) {
  const std::size_t lead = std::min(s.find_first_not_of(' '), s.size());
  return text::wrap(std::string_view(s).substr(lead), kWidth, std::string(lead, ' '),
                    std::string(indent, ' '));
}

// As benchstat prints it: the full name (with its -N suffix) without the "Benchmark" prefix, and
// the variant of a paired result; where it starts a row (text::row_label), or in wrapped prose
// (text::line_label: never broken).
std::string display_name(const CompareRow& r, bool prose = false) {
  std::string_view name = r.name;
  if (name.starts_with(kBenchmarkPrefix) && name.size() > kBenchmarkPrefix.size())
    name.remove_prefix(kBenchmarkPrefix.size());
  return (prose ? text::line_label(name) : text::row_label(name)) +
         (r.variant.empty() ? "" : " [" + r.variant + "]");
}

// The same with the configuration that tells it apart, for lists outside its table.
std::string full_display_name(const CompareRow& r) {
  std::string name = display_name(r, true);
  if (!r.config_label.empty()) name += " (" + r.config_label + ")";
  return name;
}

// A ratio as a signed percent change, precise enough to read against θ near zero.
std::string change_pct(double ratio) {
  if (!std::isfinite(ratio)) return ratio > 0 ? "+∞" : "?";
  const double v = (ratio - 1) * 100;
  const double a = std::fabs(v);
  const int decimals = a < 10 ? 2 : (a < 100 ? 1 : 0);
  return fmt::format("{:+.{}f}%", v, decimals);
}

std::string hl_text(const CompareRow& r) {
  if (r.exact) return "exact values: " + change_pct(r.ratio_of_medians);
  if (!r.hl) return "no ratio (values <= 0)";
  const auto& h = *r.hl;
  if (!h.bounded) return change_pct(h.estimate) + " [CI unbounded]";
  return change_pct(h.estimate) + " " + text::interval(change_pct(h.lo), change_pct(h.hi));
}

struct TextRow {
  std::string name;
  std::string old_center, old_pct, new_center, new_pct;  // pct empty: geomean (no ±)
  std::string delta, p, verdict;
  std::string effect;
};

std::string render_one_table(const std::string& old_name, const std::string& new_name,
                             const std::string& unit_label, const std::vector<TextRow>& rows) {
  std::size_t wn = 0, woc = 0, wop = 0, wnc = 0, wnp = 0, wd = 0, wp = 0, wv = 0;
  for (const auto& r : rows) {
    wn = std::max(wn, text::width(r.name));
    woc = std::max(woc, text::width(r.old_center));
    wop = std::max(wop, text::width(r.old_pct));
    wnc = std::max(wnc, text::width(r.new_center));
    wnp = std::max(wnp, text::width(r.new_pct));
    wd = std::max(wd, text::width(r.delta));
    wp = std::max(wp, r.p.empty() ? 0 : text::width(r.p) + 2);
    wv = std::max(wv, text::width(r.verdict));
  }
  wv = std::max<std::size_t>(wv, text::width("verdict"));
  // A source name wider than its column is shown as "old"/"new" (the full names head the output).
  const std::string old_head =
      text::width(old_name) <= std::max<std::size_t>(woc + 3 + wop, 16) ? old_name : "old";
  const std::string new_head =
      text::width(new_name) <= std::max<std::size_t>(wnc + 3 + wnp, 16) ? new_name : "new";
  const std::size_t wo = std::max(woc + 3 + wop, text::width(old_head));
  const std::size_t wnw = std::max(wnc + 3 + wnp, text::width(new_head));
  const std::size_t wdelta = std::max(wd + 1 + wp, text::width("vs base"));
  const std::size_t rest = 2 + wo + 2 + wnw + 2 + wdelta + 2 + wv;
  const bool wrapped = wn + rest > kWidth;
  const std::size_t name_col = wrapped ? 0 : wn;

  auto cell = [](const std::string& c, std::size_t wc, const std::string& pct, std::size_t wpct,
                 std::size_t w) {
    std::string s = pad_left(c, wc);
    s += pct.empty() ? std::string(3 + wpct, ' ') : " ± " + pad_left(pct, wpct);
    return pad_left(s, w);
  };
  std::string out;
  out += text::rstrip(pad_right("", name_col) + "  " + text::center(old_head, wo) + "  " +
                      text::center(new_head, wnw)) +
         "\n";
  out +=
      text::rstrip(pad_right("", name_col) + "  " + text::center(unit_label, wo) + "  " +
                   text::center(unit_label, wnw) + "  " + pad_right("vs base", wdelta) + "  " + "verdict") +
      "\n";
  for (const auto& r : rows) {
    std::string line;
    if (wrapped) out += r.name + "\n";
    line = pad_right(wrapped ? "" : r.name, name_col) + "  " + cell(r.old_center, woc, r.old_pct, wop, wo) +
           "  " + cell(r.new_center, wnc, r.new_pct, wnp, wnw) + "  ";
    std::string d = pad_left(r.delta, wd);
    if (!r.p.empty()) d += " (" + r.p + ")";
    line += pad_right(d, wdelta) + "  " + r.verdict;
    out += text::rstrip(line) + "\n";
  }
  return out;
}

// A comparison's sections: (label, old condition, new condition) of the compared rows, in order.
using CompareSections = std::vector<std::tuple<Label, std::string, std::string>>;

std::string pair_name(const std::string& oc, const std::string& nc) {
  return oc == nc ? oc : oc + " → " + nc;
}

// Each section's label above the tables, with the reason it rests on.
std::string section_labels(const CompareTable& t, const CompareSections& sections) {
  const bool several = sections.size() > 1;
  std::string out;
  for (const auto& [label, oc, nc] : sections) {
    std::string reason;
    for (const auto& r : t.rows)
      if (r.compared && r.label == label && r.old_side.condition == oc && r.new_side.condition == nc)
        reason = label_reason(r);
    out += wrap((several    ? ""
                 : oc == nc ? "condition: "
                            : "") +
                    pair_name(oc, nc) + (several ? ": " : " · ") + std::string(to_string(label)) +
                    (reason.empty() ? "" : " (" + reason + ")"),
                4);
  }
  return out;
}

// Effects: the Hodges-Lehmann ratio new/old with its CI, behind the verdict; (name, text) per row.
std::string effects_block(const CompareTable& t,
                          const std::vector<std::pair<std::string, std::string>>& effects) {
  std::string out = fmt::format("new/old, Hodges-Lehmann [{:.0f}% CI], verdict at θ = {:g}%:\n",
                                100 * t.confidence, 100 * t.threshold);
  std::size_t wn = 0;
  for (const auto& [name, text] : effects) wn = std::max(wn, text::width(name));
  std::size_t wt = 0;
  for (const auto& [name, text] : effects) wt = std::max(wt, text::width(text));
  const bool wrapped = 2 + wn + 2 + wt > kWidth;
  for (const auto& [name, text] : effects) {
    if (wrapped)
      out += "  " + name + "\n    " + text + "\n";
    else
      out += text::rstrip("  " + pad_right(name, wn) + "  " + text) + "\n";
  }
  return out;
}

// A compared row of a unit table, and its effect line.
TextRow row_of(const CompareRow& r, const std::string& prefix,
               std::vector<std::pair<std::string, std::string>>& effects) {
  const auto scaled = text::scale_values({r.old_side.center, r.new_side.center}, r.unit);
  TextRow tr;
  tr.name = prefix + display_name(r);
  tr.old_center = scaled[0];
  tr.old_pct = benchstat_pct_range(r.old_side);
  tr.new_center = scaled[1];
  tr.new_pct = benchstat_pct_range(r.new_side);
  tr.delta = benchstat_delta(r);
  tr.p = benchstat_p_text(r);
  tr.verdict = std::string(to_string(r.verdict_word()));
  std::string effect = hl_text(r) + "  " + tr.verdict;
  if (!r.exact && std::isfinite(r.p_adjusted) && r.p_adjusted != r.p_slot)
    effect += fmt::format("  (Holm p={:.3f})", r.p_adjusted);
  effects.emplace_back(tr.name, effect);
  return tr;
}

TextRow geomean_row(const analysis::CompareGeomean& g, const std::string& prefix) {
  TextRow tr;
  tr.name = prefix + "geomean";
  if (std::isfinite(g.old_value)) {
    tr.old_center = text::scale_values({g.old_value}, g.unit)[0];
    tr.new_center = text::scale_values({g.new_value}, g.unit)[0];
  }
  tr.delta = std::isfinite(g.ratio) ? fmt::format("{:+.2f}%", (g.ratio - 1) * 100) : "?";
  return tr;
}

// The compared rows and geomeans of one configuration and unit, in table order.
struct UnitRows {
  std::vector<const CompareRow*> rows;
  std::vector<const analysis::CompareGeomean*> geomeans;
};

// One table of one configuration and unit: every section's rows and geomean, then the effects.
std::string unit_comparison(const CompareTable& t, const CompareSections& sections, const std::string& unit,
                            const UnitRows& of) {
  const bool several = sections.size() > 1;
  std::vector<TextRow> rows;
  std::vector<std::pair<std::string, std::string>> effects;
  for (const auto& [label, oc, nc] : sections) {
    const std::string prefix = several ? pair_name(oc, nc) + ": " : "";
    for (const CompareRow* r : of.rows)
      if (r->label == label && r->old_side.condition == oc && r->new_side.condition == nc)
        rows.push_back(row_of(*r, prefix, effects));
    for (const auto* g : of.geomeans)
      if (g->label == label && g->old_condition == oc && g->new_condition == nc)
        rows.push_back(geomean_row(*g, prefix));
  }
  return render_one_table(t.old_name, t.new_name, unit, rows) + effects_block(t, effects);
}

// One table per configuration and unit, as benchstat prints one table per unit under each
// distinct configuration ("pkg: a" above them): every condition pair's rows in it
// ("<condition>: <benchmark>" when there are several), its label said above.
std::string compared_tables(const CompareTable& t) {
  model::FirstSeen<std::tuple<Label, std::string, std::string>> found_sections;
  model::FirstSeen<std::string> configs;
  std::vector<model::FirstSeen<std::string>> units;            // per configuration
  std::map<std::pair<std::size_t, std::string>, UnitRows> of;  // (configuration, unit)
  for (const auto& r : t.rows)
    if (r.compared) {
      found_sections.add({r.label, r.old_side.condition, r.new_side.condition});
      const std::size_t c = configs.add(r.config);
      if (c == units.size()) units.emplace_back();
      units[c].add(r.unit);
      of[{c, r.unit}].rows.push_back(&r);
    }
  for (const auto& g : t.geomeans)
    if (const auto c = configs.find(g.config)) of[{*c, g.unit}].geomeans.push_back(&g);
  const CompareSections& sections = found_sections.values();
  const bool several = sections.size() > 1;
  std::string out = section_labels(t, sections);
  bool first_table = true;
  for (std::size_t c = 0; c < configs.size(); ++c) {
    if (!configs[c].empty()) {
      out += "\n";
      for (const auto& [key, value] : model::config_entries(configs[c])) out += wrap(key + ": " + value, 4);
      first_table = true;
    }
    for (const auto& unit : units[c]) {
      out += first_table && !several ? "" : "\n";
      first_table = false;
      out += unit_comparison(t, sections, unit, of.at({c, unit}));
    }
  }
  if (sections.empty()) out += "no benchmark compared\n";
  return out;
}

// Rows not compared, and what one side has alone.
std::string uncompared(const CompareTable& t) {
  std::string out;
  std::vector<const CompareRow*> refused;
  for (const auto& r : t.rows)
    if (!r.compared) refused.push_back(&r);
  if (!refused.empty()) {
    out += "\nnot compared (different labels are never put in one comparison):\n";
    for (const auto* r : refused)
      out += wrap(fmt::format("  {} ({}): {}", full_display_name(*r), r->unit, not_compared_reason(*r)), 4);
  }
  if (!t.only_old.empty()) {
    out += "\n" + wrap(fmt::format("only in old ({}):", t.old_name), 2);
    for (const auto& s : t.only_old) out += wrap("  " + one_sided_text(s), 4);
  }
  if (!t.only_new.empty()) {
    out += "\n" + wrap(fmt::format("only in new ({}):", t.new_name), 2);
    for (const auto& s : t.only_new) out += wrap("  " + one_sided_text(s), 4);
  }
  return out;
}

// Row warnings: one line per (benchmark, conditions, text), naming the units it applies to
// unless it applies to every unit of that benchmark; then the table's notes.
std::string warnings_block(const CompareTable& t) {
  model::FirstSeen<std::pair<std::string, std::string>> keys;  // (row prefix, text)
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> units_of;
  std::map<std::string, std::vector<std::string>> all_units;
  for (const auto& r : t.rows) {
    if (!r.compared) continue;
    const std::string prefix = fmt::format(
        "{} ({}{})", full_display_name(r), text::line_label(r.old_side.condition),
        r.old_side.condition == r.new_side.condition ? "" : " → " + text::line_label(r.new_side.condition));
    add_unique(all_units[prefix], r.unit);
    for (const std::string& w : compare_warning_texts(r)) {
      keys.add({prefix, w});
      add_unique(units_of[{prefix, w}], r.unit);
    }
  }
  model::FirstSeen<std::string> unique;
  for (const auto& k : keys) {
    const auto& u = units_of[k];
    const bool every = u.size() == all_units[k.first].size();
    unique.add(
        fmt::format("{}{}: {}", k.first, every ? "" : fmt::format(" {}", fmt::join(u, ", ")), k.second));
  }
  for (const auto& n : t.notes) unique.add(compare_note_text(n));
  if (unique.empty()) return "";
  std::string out = "\nwarnings:\n";
  for (const auto& w : unique) out += wrap("- " + w, 4);
  return out;
}

// Fields that move benchmarks and differ are said once, on stderr, by the command (pipeline);
// the others close the output.
std::string other_differences(const CompareTable& t) {
  std::string out;
  for (const auto& d : t.differences) {
    if (d.moves_benchmarks) continue;
    const std::size_t room = kWidth > text::width(d.field) + 9 ? (kWidth - text::width(d.field) - 9) / 2 : 8;
    out += fmt::format("  {}: {} → {}\n", d.field, text::truncate(d.a, std::max<std::size_t>(room, 8)),
                       text::truncate(d.b, std::max<std::size_t>(room, 8)));
  }
  return out.empty() ? "" : "\nother fingerprint differences (not known to move benchmarks):\n" + out;
}

}  // namespace

std::string compare_text(const CompareTable& t) {
  std::string out;
  out += wrap("old: " + (t.old_source.empty() ? t.old_name : t.old_source), 4);
  out += wrap("new: " + (t.new_source.empty() ? t.new_name : t.new_source), 4);
  if (t.old_noise || t.new_noise) {
    // The rooms' noise, so that "the machine got noisier" is seen apart from "the code got slower".
    const auto line = [](const std::optional<fingerprint::NoiseProfile>& p) {
      return p ? fingerprint::noise_line(*p) : std::string("not recorded (an older noisefloor)");
    };
    out += wrap("room noise, old: " + line(t.old_noise), 4);
    out += wrap("room noise, new: " + line(t.new_noise), 4);
    if (t.noise_change.changed())
      out += wrap("◆ " + noise_change_text(t.noise_change) + ": part of a change below may be the room's", 4);
  }
  if (!out.empty()) out += "\n";
  return out + compared_tables(t) + uncompared(t) + warnings_block(t) + other_differences(t);
}

std::string compare_csv(const CompareTable& t) {
  std::string out =
      "old_condition,new_condition,benchmark,config,unit,better,exact_unit,label,compared,"
      "old_n,old_center,old_pct,old_median,old_ci_lo,old_ci_hi,new_n,new_center,new_pct,new_median,new_ci_lo,"
      "new_ci_hi,ratio_of_medians,delta_pct,delta,p_slot,significant,u,p,p_exact_doubling,p_normal,exact,"
      "p_adjusted,significant_adjusted,hl_ratio,hl_lo,hl_hi,hl_level,verdict,note\n";
  for (const auto& r : t.rows) {
    std::vector<std::string> f = {r.old_side.condition,
                                  r.new_side.condition,
                                  r.benchmark,
                                  r.config_label,
                                  r.unit,
                                  std::string(model::to_string(r.better)),
                                  r.exact ? "true" : "false",
                                  r.compared ? std::string(to_string(r.label)) : "",
                                  r.compared ? "true" : "false"};
    auto side = [&](const CompareSide& s) {
      f.push_back(std::to_string(s.summary.n));
      f.push_back(text::shortest(s.center));
      f.push_back(benchstat_pct_range(s));
      f.push_back(text::shortest(s.summary.median));
      f.push_back(s.summary.median_ci ? text::shortest(s.summary.median_ci->lo) : "");
      f.push_back(s.summary.median_ci ? text::shortest(s.summary.median_ci->hi) : "");
    };
    side(r.old_side);
    side(r.new_side);
    const auto opt = [](double v) { return std::isfinite(v) ? text::shortest(v) : std::string(); };
    if (r.compared) {
      f.push_back(text::shortest(r.ratio_of_medians));
      f.push_back(text::shortest((r.ratio_of_medians - 1) * 100));
      f.push_back(benchstat_delta(r));
      f.push_back(opt(r.p_slot));
      f.push_back(r.significant ? "true" : "false");
      f.push_back(opt(r.test.u));
      f.push_back(opt(r.test.p));
      f.push_back(opt(r.test.p_exact_doubling));
      f.push_back(opt(r.test.p_normal));
      f.push_back(r.test.exact ? "true" : "false");
      f.push_back(opt(r.p_adjusted));
      f.push_back(r.significant_adjusted ? "true" : "false");
      f.push_back(r.hl ? text::shortest(r.hl->estimate) : "");
      f.push_back(r.hl && r.hl->bounded ? text::shortest(r.hl->lo) : "");
      f.push_back(r.hl && r.hl->bounded ? text::shortest(r.hl->hi) : "");
      f.push_back(r.hl ? text::shortest(r.hl->level) : "");
      f.push_back(std::string(to_string(r.verdict_word())));
      f.push_back("");
    } else {
      for (int i = 0; i < 17; ++i) f.push_back("");
      f.push_back(not_compared_reason(r));
    }
    std::vector<std::string> q;
    for (const auto& x : f) q.push_back(text::csv_field(x));
    out += fmt::format("{}\n", fmt::join(q, ","));
  }
  return out;
}

std::string benchstat_pct_range(const CompareSide& s) {
  if (std::isinf(s.lo) || std::isinf(s.hi) || std::isnan(s.lo) || std::isnan(s.hi)) return "∞";
  const auto sign = [](double x) { return (x > 0) - (x < 0); };
  if (sign(s.center) != sign(s.lo) || sign(s.center) != sign(s.hi)) return "?";
  if (s.center == 0) return "0%";
  return fmt::format("{:.0f}%", 100 * std::max(s.hi / s.center - 1, 1 - s.lo / s.center));
}

std::string benchstat_delta(const CompareRow& r) {
  if (!r.significant) return "~";
  const double o = r.old_side.center, n = r.new_side.center;
  if (o == n) return "0.00%";
  if (o == 0) return "?";
  return fmt::format("{:+.2f}%", (n / o - 1) * 100);
}

std::string benchstat_p_text(const CompareRow& r) {
  std::string s;
  const double p = r.exact ? 0.0 : r.p_slot;
  if (p != 0) s = fmt::format("p={:.3f} ", p);
  const std::size_t n1 = r.old_side.summary.n, n2 = r.new_side.summary.n;
  return s + (n1 == n2 ? fmt::format("n={}", n1) : fmt::format("n={}+{}", n1, n2));
}

}  // namespace noisefloor::render
