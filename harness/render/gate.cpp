#include "render/gate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/verdict.hpp"
#include "model/names.hpp"
#include "render/warnings.hpp"
#include "text/text.hpp"

// The helpers live in a namespace of their own: the unity build puts this file in a batch with
// other renderers that have their own pct(), cell() and rows().
namespace noisefloor::render::gate_parts {
namespace {

using analysis::GateBlock;
using analysis::GateContention;
using analysis::GateRow;
using analysis::GateTable;
using stats::Verdict;

// How a name is written into the output: as it is (terminal, annotations) or escaped (markdown).
using Escape = std::string (*)(std::string_view);
std::string plain(std::string_view s) { return std::string(s); }

// ---- numbers (one style, see gate.hpp) ----

// Decimals of a percentage: one, or two where one would show a change that is not 0 as 0.0%.
int decimals(double percent) { return percent != 0 && std::fabs(percent) < 0.05 ? 2 : 1; }

std::string signed_pct(double percent) { return fmt::format("{:+.{}f}%", percent, decimals(percent)); }

// A ratio as the change it is: 1.5 -> "+50.0%", 0.8 -> "-20.0%"; ∞ (an unbounded CI) -> "+∞".
std::string pct(double ratio) {
  if (std::isnan(ratio)) return text::kDash;
  if (std::isinf(ratio)) return ratio > 0 ? "+∞" : "-∞";
  return signed_pct(100 * (ratio - 1));
}

// The effect of a block and its interval (§3.13: the Hodges–Lehmann shift, signed-rank ends).
std::string ci(const GateBlock& b) { return text::interval(pct(b.lo()), pct(b.hi())); }
std::string figures(const GateBlock& b) { return pct(b.effect()) + " " + ci(b); }

// A floor: the relative half-width of a binary against itself, "±0.6%".
std::string halfwidth(double fraction) {
  if (!std::isfinite(fraction)) return text::kDash;
  const double percent = 100 * fraction;
  return fmt::format("±{:.{}f}%", percent, decimals(percent));
}

// The minimum detectable effect in the direction that would be a regression: up for a time,
// down for a rate; both for a unit of unknown direction.
std::string mde(const GateRow& r) {
  const GateBlock& b = r.first;
  const auto up = [&] { return std::isfinite(b.mde_slower) ? signed_pct(100 * b.mde_slower) : text::kDash; };
  const auto down = [&] {
    return std::isfinite(b.mde_faster) ? signed_pct(-100 * b.mde_faster) : text::kDash;
  };
  switch (r.better) {
    case model::Better::lower:
      return up();
    case model::Better::higher:
      return down();
    case model::Better::unknown:
      break;
  }
  return up() + " / " + down();
}

std::string factor(double r) { return std::isfinite(r) ? fmt::format("×{:.2f}", r) : text::kDash; }

// A probability in percent with two significant digits ("0.13%", "4.9%").
std::string probability(double p) {
  if (p < 1e-4) return "<0.01%";
  return fmt::format("{:.2g}%", 100 * p);
}

std::string plural(std::size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// ---- words ----

bool regressed(const GateRow& r) { return analysis::regressed(r.verdict, r.better); }
std::string word(const GateRow& r) { return gate_verdict_word(r); }
bool failing(const GateRow& r) { return r.regression(); }

// The row's place in the heading and in the order of the comment: what fails the gate first.
struct Category {
  int rank = 0;
  std::string key;  // "slower (confirmed)", "faster", "within noise", ...
};

Category category(const GateRow& r, bool confirm) {
  if (failing(r)) return {0, word(r) + (confirm ? " (confirmed)" : "")};
  if (regressed(r))
    return r.gating ? Category{1, word(r) + " (not confirmed)"} : Category{2, word(r) + " (not gating)"};
  if (r.verdict == Verdict::inconclusive) return {3, "inconclusive"};
  if (analysis::improved(r.verdict, r.better)) return {4, word(r)};
  if (r.verdict == Verdict::equivalent) return {6, word(r)};
  return {5, word(r)};  // lower or higher: a unit of unknown direction moved
}

// "1 slower (confirmed) · 0 faster · 1 within noise", then the other kinds present.
std::string counts(const GateTable& t) {
  struct Count {
    Category c;
    std::size_t n = 0;
  };
  std::vector<Count> all = {
      {{0, t.confirm ? "slower (confirmed)" : "slower"}}, {{4, "faster"}}, {{6, "within noise"}}};
  for (const GateRow& r : t.rows) {
    Category c = category(r, t.confirm);
    auto it = std::find_if(all.begin(), all.end(), [&](const Count& x) { return x.c.key == c.key; });
    if (it == all.end()) it = all.insert(all.end(), Count{std::move(c)});
    ++it->n;
  }
  // The three the heading always says first, then the other kinds by rank.
  std::stable_sort(all.begin() + 3, all.end(),
                   [](const Count& a, const Count& b) { return a.c.rank < b.c.rank; });
  std::string out;
  for (const Count& x : all) out += (out.empty() ? "" : " · ") + fmt::format("{} {}", x.n, x.c.key);
  return out;
}

// The floors that did not pass in a block: "B/B FAIL biased ±4.1%".
std::vector<std::string> failed_floors(const GateBlock& b) {
  std::vector<std::string> out;
  for (const auto& [name, check] : {std::pair{"A/A", &b.aa}, std::pair{"B/B", &b.bb}})
    if (check->outcome != stats::AaOutcome::pass)
      out.push_back(
          fmt::format("{} {} {}", name, stats::to_string(check->outcome), halfwidth(check->halfwidth)));
  return out;
}

// Why an inconclusive row is undecided, and what would decide it.
std::string why_inconclusive(const GateRow& r, const model::GateSettings& s) {
  const GateBlock& b = r.first;
  if (!std::isfinite(b.shift.lo)) return "too few pairs for an interval";
  // A real change (the interval clears 1) that is smaller than the threshold.
  if (b.shift.lo > 0 || b.shift.hi < 0)
    return fmt::format("a change, but under the ±{:g}% threshold", 100 * s.threshold);
  if (b.needs_more) return "needs about " + plural(*b.needs_more, "more repeat", "more repeats");
  if (b.undecidable)
    return fmt::format("no number of repeats in reach decides it (on the threshold, or more than {})",
                       plural(10 * static_cast<std::size_t>(s.max_repeats), "repeat", "repeats"));
  return "";
}

// The verdict as said: the word (bold in markdown when it fails the gate) and what follows it.
struct VerdictText {
  std::string word, rest;
  std::string joined() const { return word + rest; }
};

VerdictText verdict_text(const GateRow& r, const model::GateSettings& s, bool confirm) {
  const std::string second = r.second ? " (block 2: " + figures(*r.second) + ")" : "";
  if (r.verdict == Verdict::inconclusive) {
    const std::string why = why_inconclusive(r, s);
    return {"inconclusive", why.empty() ? "" : ": " + why};
  }
  if (failing(r)) return {word(r), confirm ? ", confirmed" + second : ""};
  if (regressed(r)) return {word(r), r.gating ? ", not confirmed" + second : " (not gating)"};
  return {word(r), ""};
}

// "BenchmarkSlowed sec/op in idle".
std::string row_name(const GateRow& r, Escape esc) {
  return esc(r.benchmark) + " " + esc(r.unit) + " in " + esc(r.condition);
}

// Rows in the order that matters: regressions first, within noise last (stable otherwise).
std::vector<const GateRow*> by_importance(const GateTable& t) {
  std::vector<const GateRow*> rows;
  for (const GateRow& r : t.rows) rows.push_back(&r);
  std::stable_sort(rows.begin(), rows.end(), [&](const GateRow* a, const GateRow* b) {
    return category(*a, t.confirm).rank < category(*b, t.confirm).rank;
  });
  return rows;
}

std::vector<std::string> conditions(const GateTable& t) {
  std::vector<std::string> out;
  for (const GateRow& r : t.rows)
    if (std::find(out.begin(), out.end(), r.condition) == out.end()) out.push_back(r.condition);
  return out;
}

// ---- the decision lines, shared by the terminal and the comment ----

// Per condition, over its gating rows: the widest floors of block 1 and whether all passed (the
// room's noise, measured in the same run; it decides no verdict); then every failed floor of the
// confirmation block. Rows that do not gate (sys-sec/op) are in gate.json, not here.
std::vector<std::string> floor_lines(const GateTable& t, Escape esc) {
  std::vector<std::string> out;
  for (const std::string& c : conditions(t)) {
    double aa = 0, bb = 0;
    std::size_t rows = 0, failed = 0;
    analysis::Label label = analysis::Label::unknown;
    for (const GateRow& r : t.rows) {
      if (r.condition != c || !r.gating) continue;
      ++rows;
      label = r.label;
      if (std::isfinite(r.first.aa.halfwidth)) aa = std::max(aa, r.first.aa.halfwidth);
      if (std::isfinite(r.first.bb.halfwidth)) bb = std::max(bb, r.first.bb.halfwidth);
      failed += r.first.floor_failed || (r.second && r.second->floor_failed);
    }
    if (rows == 0) continue;
    const std::string widest = rows > 1 ? "up to " : "";
    out.push_back(fmt::format(
        "{}{}: A/A (base vs base) {}{}, B/B (head vs head) {}{}: {}", esc(c),
        " (" + esc(std::string(to_string(label))) + ")", widest, halfwidth(aa), widest, halfwidth(bb),
        failed == 0
            ? (rows > 1 ? "all PASS" : "PASS")
            : fmt::format("{} of {} FAIL (the room moved by more than ±{:g}%; each verdict rests on its "
                          "own interval, which carries that noise)",
                          failed, plural(rows, "gating row", "gating rows"), 100 * t.settings.threshold)));
  }
  for (const GateRow& r : t.rows)
    if (r.gating && r.second && r.second->floor_failed)
      out.push_back(fmt::format("{} {} {}: block 2: {}", esc(r.condition), esc(r.benchmark), esc(r.unit),
                                fmt::join(failed_floors(*r.second), ", ")));
  return out;
}

std::string_view finding(GateContention::Finding f) {
  using enum GateContention::Finding;
  static constexpr std::array<std::pair<GateContention::Finding, std::string_view>, 2> kWords{
      {{differs, "behaves differently under load"}, {same, "the same under load"}}};
  return model::word_of(f, kWords, "cannot tell");
}

const GateRow* find_row(const GateTable& t, std::string_view condition, const GateContention& c) {
  for (const GateRow& r : t.rows)
    if (r.condition == condition && r.benchmark == c.benchmark && r.unit == c.unit) return &r;
  return nullptr;
}

// "BenchmarkSlowed sec/op: +2.0% [+1.0%, +3.0%] in idle, +19.0% [+15.0%, +23.0%] in spinners:
// ×1.17 [1.12, 1.21] under load, behaves differently under load".
std::vector<std::string> contention_lines(const GateTable& t, Escape esc) {
  std::vector<std::string> out;
  for (const GateContention& c : t.contention) {
    // The gating units only: MB/s beside ns/op says the same thing inverted (gate.json has all).
    const GateRow* reference = find_row(t, c.reference, c);
    if (reference != nullptr && !reference->gating) continue;
    const auto side = [&](const std::string& condition) {
      const GateRow* r = find_row(t, condition, c);
      return (r != nullptr ? figures(r->first) : std::string(text::kDash)) + " in " + esc(condition);
    };
    const auto end = [](double v) { return std::isfinite(v) ? fmt::format("{:.2f}", v) : "∞"; };
    out.push_back(fmt::format("{} {}: {}, {}: {} {} under load, {}", esc(c.benchmark), esc(c.unit),
                              side(c.reference), side(c.condition), factor(c.ratio),
                              text::interval(end(c.lo), end(c.hi)), finding(c.finding)));
  }
  return out;
}

// What a block of a row could not give, or gives with a caveat, from its figures: quads left out,
// too few for an interval, the paired test's caveats, a spread the floors do not explain.
void block_notes(const GateRow& r, const GateBlock& g, Escape esc, std::vector<std::string>& out) {
  const std::string where = row_name(r, esc) + (r.second ? fmt::format(", block {}", g.block) : "");
  if (const std::size_t skipped = g.incomplete + g.unusable; skipped > 0)
    out.push_back(
        fmt::format("{}: {} of {} quads skipped ({} incomplete, {} with a value <= 0 or not finite)", where,
                    skipped, skipped + g.n, g.incomplete, g.unusable));
  if (g.n < 2)
    out.push_back(
        fmt::format("{}: {} complete quad{}: no interval, no verdict", where, g.n, g.n == 1 ? "" : "s"));
  else if (g.shift.n >= 1 && !std::isfinite(g.shift.lo))
    out.push_back(
        fmt::format("{}: {} pairs: too few for a signed-rank interval at {:g}% a side (6 pairs, 3 quads, are "
                    "the least at "
                    "2.5%): no verdict",
                    where, g.shift.n, 100 * g.shift.tail));
  for (const stats::TestWarning& w : g.ratio.warnings)
    out.push_back(where + ": " + esc(test_warning_text(w)));
  if (g.excess_spread)
    out.push_back(
        fmt::format("{}: head/base varies {:.1f}× more than the floors explain: the change may make the "
                    "benchmark bimodal "
                    "or load-dependent",
                    where, *g.excess_spread));
}

std::vector<std::string> note_lines(const GateTable& t, Escape esc) {
  std::vector<std::string> out;
  for (const GateRow& r : t.rows) {
    block_notes(r, r.first, esc, out);
    if (!r.second) continue;
    block_notes(r, *r.second, esc, out);
    if (analysis::regressed(r.first.verdict, r.better) && !r.confirmed)
      out.push_back(fmt::format("{}: {} in block 1, not confirmed by block 2 ({})", row_name(r, esc),
                                to_string(r.verdict_word()),
                                to_string(analysis::verdict_word(r.second->verdict, r.better, r.quantity))));
  }
  return out;
}

std::string short_hash(const std::string& h) { return h.substr(0, 7); }

// "main at a1b2c3d (tree 0f1e2d3), build cached"; the working tree with its changed paths.
std::string side_text(const model::GateSide& s, Escape code) {
  std::string out;
  if (s.worktree) {
    out = "working tree";
    if (s.dirty) {
      constexpr std::size_t kShown = 5;  // the comment stays short; the run's files list them all
      std::vector<std::string> shown;
      for (std::size_t i = 0; i < s.changed.size() && i < kShown; ++i) shown.push_back(code(s.changed[i]));
      out += fmt::format(" with uncommitted changes: {}", fmt::join(shown, ", "));
      if (s.changed.size() > kShown) out += fmt::format(" and {} more", s.changed.size() - kShown);
    }
    out += fmt::format(" (snapshot {}, tree {})", code(short_hash(s.commit)), code(short_hash(s.tree)));
  } else {
    const bool named = !s.ref.empty() && s.ref != s.commit && s.ref != short_hash(s.commit);
    out = (named ? code(s.ref) + " at " : "") + code(short_hash(s.commit)) +
          fmt::format(" (tree {})", code(short_hash(s.tree)));
  }
  if (s.cached) out += ", build cached";
  return out;
}

bool identical_binaries(const GateContext& c) {
  return !c.base.binary_sha256.empty() && c.base.binary_sha256 == c.head.binary_sha256;
}

std::vector<std::string> side_lines(const GateContext& c, Escape code) {
  std::vector<std::string> out = {"base: " + side_text(c.base, code), "head: " + side_text(c.head, code)};
  if (identical_binaries(c))
    out.push_back(fmt::format(
        "identical binaries (SHA-256 {}…): the code and its layout are the same, so any difference is noise",
        code(c.base.binary_sha256.substr(0, 12))));
  return out;
}

std::string false_positive_sentence(const GateTable& t) {
  if (!std::isfinite(t.false_alarm_bound)) return "";
  return fmt::format(
      "At most {} chance that this gate reports a {}regression when nothing changed ({}; §3.13).",
      probability(t.false_alarm_bound), t.confirm ? "confirmed " : "",
      plural(t.gating_rows, "gating row", "gating rows"));
}

std::vector<const GateRow*> regressions(const GateTable& t) {
  std::vector<const GateRow*> out;
  for (const GateRow& r : t.rows)
    if (failing(r)) out.push_back(&r);
  return out;
}

std::string settings_line(const model::GateSettings& s) {
  return fmt::format(
      "head vs base: the median ratio of the back-to-back pairs (Hodges–Lehmann) and its signed-rank CI, "
      "{:g}% a side{}; slower or faster when the CI clears 0 and the change is beyond ±{:g}%; MDE: the "
      "smallest regression called with {:.0f}% power",
      50 * (1 - s.confidence), s.sequential ? " over all looks" : "", 100 * s.threshold, 100 * s.power);
}

// ---- markdown ----

// Data in markdown: flattened to one line, written out as names are (text::name_safe), and every
// inline special escaped once ('_' or '*' in a benchmark name is no emphasis, '[' no link, '|' no
// cell, '<' no tag).
std::string md(std::string_view s) {
  std::string out;
  for (char c : text::flat_name(s)) {
    if (std::string_view("\\`*_[]~&|<>").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

// The longest run of `c` in `s`.
std::size_t longest_run(std::string_view s, char c) {
  std::size_t longest = 0, run = 0;
  for (char x : s) longest = std::max(longest, run = x == c ? run + 1 : 0);
  return longest;
}

// A code span that holds any text: more backticks than it contains, spaced when it starts or
// ends with one (CommonMark); '|' escaped, which GitHub needs even inside a span in a table.
std::string code_span(std::string_view s) {
  const std::string ticks(longest_run(s, '`') + 1, '`');
  const bool pad = !s.empty() && (s.front() == '`' || s.back() == '`');
  std::string body;
  for (char c : s) body += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
  return ticks + (pad ? " " : "") + body + (pad ? " " : "") + ticks;
}

std::string table_head() {
  return "| benchmark | metric | condition | head vs base | CI | MDE | verdict |\n"
         "|:--|:--|:--|--:|--:|--:|:--|\n";
}

std::string table_line(const GateRow& r, const GateTable& t) {
  const VerdictText v = verdict_text(r, t.settings, t.confirm);
  const std::string said = (failing(r) ? "**" + v.word + "**" : v.word) + v.rest;
  return fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", md(r.benchmark), md(r.unit), md(r.condition),
                     pct(r.first.effect()), ci(r.first), mde(r), said);
}

std::string bullets(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += "- " + l + "\n";
  return out;
}

std::string fenced(std::string_view code, std::string_view info) {
  const std::string fence(std::max<std::size_t>(3, longest_run(code, '`') + 1), '`');
  return fence + std::string(info) + "\n" + std::string(code) + "\n" + fence + "\n";
}

// ", but N of M gating rows are inconclusive: ..." when a pass rests on rows nothing decided.
std::string undecided_clause(const GateTable& t) {
  std::size_t gating = 0, undecided = 0;
  for (const GateRow& r : t.rows)
    if (r.gating) {
      ++gating;
      if (r.verdict == Verdict::inconclusive) ++undecided;
    }
  if (undecided == 0) return "";
  return fmt::format(", but {} of {} gating {} inconclusive: this run could not resolve ±{:g}%", undecided,
                     gating, gating == 1 ? "row is" : "rows are", 100 * t.settings.threshold);
}

std::string decision_markdown(const GateTable& t) {
  const auto failed = regressions(t);
  if (failed.empty()) return "The gate passes: no confirmed regression" + undecided_clause(t) + ".\n";
  std::vector<std::string> names;
  for (const GateRow* r : failed) names.push_back(row_name(*r, md));
  return fmt::format("**The gate fails**: {} ({}).\n",
                     plural(failed.size(), "confirmed regression", "confirmed regressions"),
                     fmt::join(names, "; "));
}

// ---- terminal ----

struct TextLine {
  std::string condition, benchmark, unit, change, interval, mde, verdict;
};

TextLine text_line(const GateRow& r, const GateTable& t) {
  return {r.condition,
          r.benchmark,
          r.unit,
          pct(r.first.effect()),
          ci(r.first),
          mde(r),
          verdict_text(r, t.settings, t.confirm).joined()};
}

// Columns when every line fits `width`; otherwise each row's name on a line of its own and its
// figures wrapped under it.
std::string text_table(const std::vector<TextLine>& lines, std::size_t width) {
  const TextLine head = {"condition", "benchmark", "unit", "head vs base", "CI", "MDE", "verdict"};
  std::vector<std::size_t> w(6, 0);
  std::size_t longest = 0;
  const auto measure = [&](const TextLine& l) {
    const std::string_view cols[] = {l.condition, l.benchmark, l.unit, l.change, l.interval, l.mde};
    for (std::size_t i = 0; i < 6; ++i) w[i] = std::max(w[i], text::width(cols[i]));
  };
  measure(head);
  for (const TextLine& l : lines) measure(l);
  std::size_t fixed = 0;
  for (std::size_t c : w) fixed += c + 2;
  for (const TextLine& l : lines) longest = std::max(longest, fixed + text::width(l.verdict));
  std::string out;
  if (longest <= width) {
    const auto row = [&](const TextLine& l) {
      return text::rstrip(text::pad_right(l.condition, w[0]) + "  " + text::pad_right(l.benchmark, w[1]) +
                          "  " + text::pad_right(l.unit, w[2]) + "  " + text::pad_left(l.change, w[3]) +
                          "  " + text::pad_left(l.interval, w[4]) + "  " + text::pad_left(l.mde, w[5]) +
                          "  " + l.verdict) +
             "\n";
    };
    out += row(head);
    for (const TextLine& l : lines) out += row(l);
    return out;
  }
  for (const TextLine& l : lines) {
    out += l.condition + "  " + l.benchmark + "  " + l.unit + "\n";
    out += text::wrap(l.change + " " + l.interval + " · MDE " + l.mde + " · " + l.verdict, width, "    ",
                      "      ");
  }
  return out;
}

std::string wrapped(const std::vector<std::string>& lines, std::size_t width, std::string_view first) {
  std::string out;
  for (const std::string& l : lines) out += text::wrap(l, width, first, "    ");
  return out;
}

// ---- annotations ----

// actions/toolkit's escapeData: what a workflow command's message may not hold as it is.
std::string escape_data(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '%')
      out += "%25";
    else if (c == '\r')
      out += "%0D";
    else if (c == '\n')
      out += "%0A";
    else
      out += c;
  }
  return out;
}

// actions/toolkit's escapeProperty: escapeData, and ':' and ',' that would end a property.
std::string escape_property(std::string_view s) {
  std::string out;
  for (char c : escape_data(s)) {
    if (c == ':')
      out += "%3A";
    else if (c == ',')
      out += "%2C";
    else
      out += c;
  }
  return out;
}

std::string workflow_command(std::string_view kind, const GateContext& c, const std::string& title,
                             const std::string& message) {
  std::vector<std::string> properties;
  if (!c.experiment_file.empty()) {
    properties.push_back("file=" + escape_property(c.experiment_file));
    if (c.benchmark_line > 0) properties.push_back(fmt::format("line={}", c.benchmark_line));
  }
  properties.push_back("title=" + escape_property(title));
  return fmt::format("::{} {}::{}\n", kind, fmt::join(properties, ","), escape_data(message));
}

// "A/A ±0.6%, B/B ±0.7%".
std::string floors(const GateBlock& b) {
  return fmt::format("A/A {}, B/B {}", halfwidth(b.aa.halfwidth), halfwidth(b.bb.halfwidth));
}

std::string error_annotation(const GateRow& r, const GateContext& c, bool confirm) {
  const std::string how = !confirm   ? "one block"
                          : r.second ? "confirmed by a second block (" + figures(*r.second) + ")"
                                     : "confirmed";
  return workflow_command(
      "error", c, r.benchmark + " " + word(r) + " (noisefloor)",
      fmt::format("{} {} in {}, {}; floor {}", r.unit, figures(r.first), r.condition, how, floors(r.first)));
}

// The warnings of one row: slower but not confirmed, or undecided, and every failed floor.
std::string row_warnings(const GateRow& r, const GateContext& c, const model::GateSettings& s) {
  std::string out;
  if (r.gating && !failing(r) && regressed(r))
    out += workflow_command(
        "warning", c, r.benchmark + " " + word(r) + ", not confirmed (noisefloor)",
        fmt::format("{} {} in {}; {}", r.unit, figures(r.first), r.condition,
                    r.second ? "block 2 did not confirm it: " + figures(*r.second) : "not confirmed"));
  if (r.gating && r.verdict == Verdict::inconclusive) {
    const std::string why = why_inconclusive(r, s);
    out += workflow_command(
        "warning", c, r.benchmark + " inconclusive (noisefloor)",
        fmt::format("{} {} in {}{}", r.unit, figures(r.first), r.condition, why.empty() ? "" : ": " + why));
  }
  for (const GateBlock* b : {&r.first, r.second ? &*r.second : nullptr})
    if (r.gating && b != nullptr && b->floor_failed)
      out += workflow_command(
          "warning", c, r.benchmark + " floor failed (noisefloor)",
          fmt::format("{} in {}, block {}: {}: a binary against itself moved by more than the threshold; "
                      "the verdict rests on the row's own interval, which carries that noise",
                      r.unit, r.condition, b->block, fmt::join(failed_floors(*b), ", ")));
  return out;
}

// ---- JUnit ----

// Text for XML 1.0 element content and attributes: the five specials as entities; tab and
// newline kept (as references in an attribute, which a parser would otherwise turn into
// spaces); every other control character dropped.
std::string xml(std::string_view s, bool attribute) {
  std::string kept;  // XML 1.0 cannot hold the other control characters
  for (const char c : s)
    if (static_cast<unsigned char>(c) >= 0x20 || c == '\n' || c == '\t') kept += c;
  const std::string escaped = text::html_escape(kept);  // & < > " ' as references: XML's too
  if (!attribute) return escaped;
  std::string out;
  for (const char c : escaped) out += c == '\n' ? "&#10;" : c == '\t' ? "&#9;" : std::string(1, c);
  return out;
}
std::string attr(std::string_view s) { return xml(s, true); }

// The figures behind a row's verdict: each block, its floors, the MDE.
std::string junit_details(const GateRow& r) {
  std::string out;
  for (const GateBlock* b : {&r.first, r.second ? &*r.second : nullptr})
    if (b != nullptr)
      out += fmt::format("block {}: {}, n = {}; floor A/A {} {}, B/B {} {}\n", b->block, figures(*b), b->n,
                         halfwidth(b->aa.halfwidth), stats::to_string(b->aa.outcome),
                         halfwidth(b->bb.halfwidth), stats::to_string(b->bb.outcome));
  return out + "MDE " + mde(r) + "\n";
}

std::string junit_case(const GateRow& r, const GateTable& t) {
  std::string out = fmt::format("    <testcase classname=\"{}\" name=\"{}\">\n",
                                attr("noisefloor.gate." + r.condition), attr(r.benchmark + " " + r.unit));
  const VerdictText v = verdict_text(r, t.settings, t.confirm);
  if (failing(r))
    out += fmt::format("      <failure type=\"regression\" message=\"{}\">{}</failure>\n",
                       attr(v.word + ": " + figures(r.first) + (t.confirm ? ", confirmed" : "")),
                       xml(junit_details(r), false));
  else if (r.verdict == Verdict::inconclusive)
    out += fmt::format("      <skipped message=\"{}\"/>\n", attr(v.joined()));
  else
    out +=
        fmt::format("      <system-out>{}</system-out>\n", xml(v.joined() + "\n" + junit_details(r), false));
  return out + "    </testcase>\n";
}

struct Tally {
  std::size_t tests = 0, failures = 0, skipped = 0;
  void add(const GateRow& r) {
    ++tests;
    failures += failing(r) ? 1 : 0;
    skipped += !failing(r) && r.verdict == Verdict::inconclusive ? 1 : 0;
  }
  std::string attributes() const {
    return fmt::format("tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\"", tests, failures, skipped);
  }
};

// ---- the step summary ----

// What a cut must close so the rest renders: an open code fence, open <details>.
std::string closers(std::string_view kept) {
  std::size_t fences = 0, details = 0;
  for (std::string_view line : text::lines(kept)) {
    const std::string_view t = text::trim(line);
    if (t.starts_with("```")) ++fences;
    if (t.starts_with("<details>")) ++details;
    if (t.starts_with("</details>") && details > 0) --details;
  }
  std::string out = fences % 2 == 1 ? "```\n" : "";
  for (std::size_t i = 0; i < details; ++i) out += "</details>\n";
  return out;
}

}  // namespace
}  // namespace noisefloor::render::gate_parts

namespace noisefloor::render {

std::string gate_room_line(const analysis::GateTable& t, const GateContext& c) {
  std::vector<std::string_view> labels;
  for (const auto& row : t.rows)
    if (std::find(labels.begin(), labels.end(), to_string(row.label)) == labels.end())
      labels.push_back(to_string(row.label));
  std::string line = fmt::format("{}", fmt::join(labels, ", "));
  if (c.doctor) line += fmt::format(" · doctor: {}", model::name_of(*c.doctor));
  if (!c.host.empty()) line += " · " + c.host;
  return line;
}

std::string gate_verdict_word(const analysis::GateRow& r) {
  if (r.verdict == stats::Verdict::equivalent) return "within noise";
  return std::string(to_string(r.verdict_word()));
}

std::vector<std::string> gate_notes(const analysis::GateTable& t) {
  return gate_parts::note_lines(t, gate_parts::plain);
}

std::string gate_text(const analysis::GateTable& t, const GateContext& c, int width) {
  using namespace gate_parts;
  const std::size_t w = static_cast<std::size_t>(std::max(width, 80));
  std::string out = text::wrap("noisefloor gate: " + counts(t), w, "", "  ");
  out += text::wrap(settings_line(t.settings), w, "", "  ") + "\n";
  std::vector<TextLine> lines;
  for (const analysis::GateRow* r : by_importance(t)) lines.push_back(text_line(*r, t));
  out += lines.empty() ? "no rows: nothing was measured\n" : text_table(lines, w);
  out += "\n" + wrapped(floor_lines(t, plain), w, "floor: ");
  out += wrapped(contention_lines(t, plain), w, "under load: ");
  out += wrapped(note_lines(t, plain), w, "note: ");
  out += wrapped(side_lines(c, plain), w, "");
  if (const std::string room = gate_room_line(t, c); !room.empty())
    out += text::wrap("room: " + room, w, "", "    ");
  if (const std::string fp = false_positive_sentence(t); !fp.empty()) out += text::wrap(fp, w, "", "");
  if (!c.reproduce.empty()) out += "reproduce: " + c.reproduce + "\n";
  const auto failed = regressions(t);
  std::vector<std::string> names;
  for (const analysis::GateRow* r : failed) names.push_back(row_name(*r, plain));
  const std::string took = c.seconds > 0 ? " (" + text::clock(c.seconds) + ")" : "";
  out += text::wrap(failed.empty()
                        ? "gate: PASS, no confirmed regression" + undecided_clause(t) + took
                        : fmt::format("gate: FAIL, {}: {}{}",
                                      plural(failed.size(), "confirmed regression", "confirmed regressions"),
                                      fmt::join(names, "; "), took),
                    w, "", "  ");
  return out;
}

std::string gate_markdown(const analysis::GateTable& t, const GateContext& c) {
  using namespace gate_parts;
  std::string out = "### noisefloor: " + counts(t) + "\n\n" + decision_markdown(t) + "\n";
  std::string shown, folded;
  std::size_t within = 0;
  for (const analysis::GateRow* r : by_importance(t)) {
    if (r->verdict == stats::Verdict::equivalent) {
      folded += table_line(*r, t);
      ++within;
    } else {
      shown += table_line(*r, t);
    }
  }
  out += shown.empty() ? fmt::format("No row moved beyond ±{:g}%.\n", 100 * t.settings.threshold)
                       : table_head() + shown;
  if (within > 0)
    out += fmt::format("\n<details><summary>{} within noise (±{:g}%)</summary>\n\n{}{}\n</details>\n",
                       plural(within, "row", "rows"), 100 * t.settings.threshold, table_head(), folded);
  out += "\n" + settings_line(t.settings) + ".\n\n";
  out += "**Floor** (each side against itself in the same run; PASS: its 95% CI inside the threshold):\n" +
         bullets(floor_lines(t, md));
  if (const auto load = contention_lines(t, md); !load.empty())
    out += "\n**Under load** (head/base in a loaded condition against the idle one):\n" + bullets(load);
  if (const auto notes = note_lines(t, md); !notes.empty()) out += "\n**Notes**\n" + bullets(notes);
  out += "\n" + bullets(side_lines(c, code_span));
  if (const std::string room = gate_room_line(t, c); !room.empty()) out += "- room: " + md(room) + "\n";
  if (const std::string fp = false_positive_sentence(t); !fp.empty()) out += "\n" + fp + "\n";
  if (!c.reproduce.empty()) out += "\nReproduce:\n\n" + fenced(c.reproduce, "sh");
  return out;
}

std::string gate_annotations(const analysis::GateTable& t, const GateContext& c) {
  using namespace gate_parts;
  std::string errors, warnings;
  for (const analysis::GateRow& r : t.rows) {
    if (failing(r)) errors += error_annotation(r, c, t.confirm);
    warnings += row_warnings(r, c, t.settings);
  }
  // Errors first: GitHub shows only the first few annotations of a step.
  return errors + warnings;
}

std::string gate_junit(const analysis::GateTable& t, const GateContext& c) {
  using namespace gate_parts;
  Tally all;
  std::string suites;
  for (const std::string& condition : conditions(t)) {
    Tally suite;
    std::string cases;
    for (const analysis::GateRow& r : t.rows)
      if (r.condition == condition) {
        suite.add(r);
        all.add(r);
        cases += junit_case(r, t);
      }
    suites += fmt::format("  <testsuite name=\"{}\" {}>\n{}  </testsuite>\n", attr(condition),
                          suite.attributes(), cases);
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"noisefloor gate\" {} "
      "time=\"{:.1f}\">\n{}"
      "</testsuites>\n",
      all.attributes(), c.seconds, suites);
}

std::string step_summary(std::string markdown, std::size_t limit) {
  using namespace gate_parts;
  if (markdown.size() <= limit) return markdown;
  const std::string pointer = fmt::format(
      "\n_Cut here: GitHub keeps at most {} bytes of a step summary. The whole comment is gate.md in the run "
      "directory._\n",
      limit);
  // Cut after a line end, stepping back while the closers and the pointer do not fit.
  std::size_t cut = limit;
  while (cut > 0) {
    const std::size_t newline = markdown.rfind('\n', cut - 1);
    if (newline == std::string::npos) break;
    cut = newline + 1;
    const std::string close = closers(std::string_view(markdown).substr(0, cut));
    if (cut + close.size() + pointer.size() <= limit) return markdown.substr(0, cut) + close + pointer;
    cut = newline;
  }
  return pointer.size() <= limit ? pointer : pointer.substr(0, limit);
}

}  // namespace noisefloor::render
