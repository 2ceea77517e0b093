// Errata (README: Corrections): when a measurement supersedes an earlier one, the figures the
// earlier one published (medians, means, CVs, each condition's ratio to the first, a comparison's
// ratios) are matched to the new ones by condition, benchmark and statistic, and every place that
// quoted an old figure is found in text, in the spellings people write (1.67x, 1.67×, 1.7×, +67%,
// 167%, 34.97 ns/op, 34.97ns, 18.9 %), with how sure the match is. The certain ones can be
// rewritten with a visible correction mark in the file's own syntax. Pure.
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/analysis.hpp"

namespace noisefloor::analysis {

// What a figure is: a value in its row's unit, a percentage (a CV), the relative half-width of a
// median's CI (benchstat's "± 1%") or a ratio (×).
enum class FigureKind { value, percent, halfwidth, ratio };

// Which of its row's or comparison's figures a figure is: the row's median (of its primary metric,
// or of another metric: other_median), the relative half-width of that median's CI, its mean, its
// CV, the ratio of its median to the first condition's, or a comparison's ratio of a variant to
// its baseline.
enum class Statistic { median, median_halfwidth, mean, cv, other_median, ratio_to_first, ratio_of_variants };

// One number a result publishes.
struct Figure {
  std::string condition;
  std::string benchmark;  // the row's name as shown, without the -N suffix, with [variant] / (config)
  Statistic statistic = Statistic::median;
  // A ratio's sides: ratio_of_variants, the variant and its baseline; ratio_to_first, the first
  // condition (in `to`). Empty otherwise.
  std::string of, to;
  std::string unit;  // value: the row's unit; percent: "%"; ratio: "×"
  FigureKind kind = FigureKind::value;
  double value = 0;
  std::optional<double> lo, hi;  // its 95% CI when it has one
  Label label = Label::unknown;  // how clean the room was
  std::optional<Word> verdict;   // a comparison's verdict (none otherwise)
  bool untrustworthy = false;    // that comparison's A/A check failed
  // Words that place a quotation near this figure: the condition, the benchmark's short name
  // (without "Benchmark"), the variants.
  std::vector<std::string> names;

  // What matches an old figure to the new one: the same condition, benchmark, statistic, sides
  // and unit.
  struct Key {
    std::string condition, benchmark;
    Statistic statistic;
    std::string of, to, unit;
    auto operator<=>(const Key&) const = default;
  };
  Key key() const { return {condition, benchmark, statistic, of, to, unit}; }
};

// Every figure the analysis publishes, in table order: per row of the primary metric its median
// (and the relative half-width of its 95% CI), mean and CV (and per other metric its median), each non-first
// condition's ratio of medians to the first condition's, and every paired or unpaired comparison's ratio with
// its CI and verdict.
std::vector<Figure> published_figures(const Analysis& a);

// An old figure and the new one of the same key.
struct Correction {
  Figure old_figure, new_figure;
};
// The old figures that new has too (matched by key, in old's order); those without one are left out.
std::vector<Correction> match_figures(const std::vector<Figure>& old_figures,
                                      const std::vector<Figure>& new_figures);

// How a file writes, for quotations and their correction marks.
enum class Syntax { markdown, html, yaml, json, csv, source, text };
constexpr std::array<std::pair<Syntax, std::string_view>, 7> names(Syntax) {
  return {{{Syntax::markdown, "markdown"},
           {Syntax::html, "HTML"},
           {Syntax::yaml, "YAML"},
           {Syntax::json, "JSON"},
           {Syntax::csv, "CSV"},
           {Syntax::source, "source"},
           {Syntax::text, "text"}}};
}
// By the file name's extension: .md → markdown, .go/.cpp/.py/... → source, anything else → text.
Syntax syntax_of(std::string_view path);

enum class Certainty { certain, likely };

// What makes a quotation less than certain.
enum class Doubt {
  bare_number,          // no suffix: it may mean something else
  unsigned_percentage,  // +N% or N%: a change, or a CV
  share_under_100,      // under 100%: a share, or a CV
  one_digit,            // one significant digit
  two_digits_unnamed,   // two significant digits and no name of the figure nearby
  several_figures,      // it matches more than one figure (Hit::also)
  in_code,              // in a source file, outside a comment
};

// One place that quotes an old figure.
struct Hit {
  std::size_t offset = 0, length = 0;  // the quotation's bytes in the text (sign, number, suffix)
  std::size_t line = 0, column = 0;    // 1-based; the column counts characters (UTF-8)
  std::string quoted;                  // as written: "1.67×", "+67%"
  std::size_t correction = 0;          // index into the corrections searched for
  Certainty certainty = Certainty::likely;
  std::vector<Doubt> doubts;      // likely: what makes it less than certain
  std::vector<std::size_t> also;  // several_figures: every correction it matches, `correction` first
  std::string replacement;        // the new figure in the quotation's own spelling and precision: "3.17×"
};

// The quotations of `corrections`' old figures in `text`. A number is read with its sign and its
// suffix (×, x, %, a unit); it matches a figure when it equals the figure rounded to the number's
// own precision, in a spelling of the figure's kind (a ratio r as r×, +(r−1)·100% or r·100%; a CV
// as c%; a median's CI half-width as ±h%; a value in its unit or a scaled one: 34.97 ns/op,
// 34.97ns, 0.035 µs). Certain: a spelling of the kind, three significant digits (or two and a name
// of the figure on the line or the two before it), one figure only, and (in source files) inside
// a comment. Likely: a bare number of at
// least three significant digits, or a spelling of the kind that misses one of those. A number
// that already equals the new figure, part of a version (1.67.0, v1.67), a date or an identifier
// is no quotation.
std::vector<Hit> find_quotations(std::string_view text, const std::vector<Correction>& corrections,
                                 Syntax syntax);

// `text` with every certain hit replaced by its correction mark, in the file's own syntax:
// markdown `~~1.67×~~ 3.17× (corrected DATE; see SEE)`, HTML `<del>…</del> <ins>…</ins>`, and
// elsewhere `3.17× (corrected from 1.67× on DATE; see SEE)` (no comma, colon or quote, so a YAML
// plain scalar, a JSON string or a CSV cell stays one). Likely hits are left as they are.
std::string apply_corrections(std::string_view text, const std::vector<Hit>& hits, Syntax syntax,
                              std::string_view date, std::string_view see);

}  // namespace noisefloor::analysis
