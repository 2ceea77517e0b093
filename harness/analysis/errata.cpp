#include "analysis/errata.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <string_view>
#include <utility>

#include "analysis/verdict.hpp"
#include "text/units.hpp"

namespace noisefloor::analysis {
namespace {

// "BenchmarkGet-8" → "BenchmarkGet"; "BenchmarkGet-8 (pkg: a)" → "BenchmarkGet (pkg: a)".
std::string without_procs(std::string name) {
  const std::size_t end = std::min(name.find(' '), name.size());
  std::size_t i = end;
  while (i > 0 && std::isdigit(static_cast<unsigned char>(name[i - 1]))) --i;
  if (i < end && i > 0 && name[i - 1] == '-') name.erase(i - 1, end - i + 1);
  return name;
}

std::string short_name(std::string_view benchmark) {
  std::string s(benchmark.substr(0, std::min(benchmark.find_first_of(" -["), benchmark.size())));
  if (s.rfind("Benchmark", 0) == 0 && s.size() > 9) s = s.substr(9);
  return s;
}

Figure figure_of(const Row& row, const Table& t) {
  Figure f;
  f.condition = row.condition;
  f.benchmark = row_name(row.benchmark, row.config_label, row.variant);
  f.label = t.label_of(row.condition);
  f.names = {row.condition, short_name(row.benchmark), row.benchmark};
  if (!row.variant.empty()) f.names.push_back(row.variant);
  return f;
}

void add_value(std::vector<Figure>& out, Figure f, Statistic statistic, std::string unit, double value,
               const std::optional<stats::Interval>& ci) {
  if (!std::isfinite(value)) return;
  f.statistic = statistic;
  f.unit = std::move(unit);
  f.kind = FigureKind::value;
  f.value = value;
  if (ci) f.lo = ci->lo, f.hi = ci->hi;
  out.push_back(std::move(f));
}

}  // namespace

namespace {

// Each condition against the first: the ratio of medians, as a row's "vs" reads.
void add_ratios_to_first(std::vector<Figure>& out, const Table& t) {
  if (t.conditions.empty()) return;
  const std::string& first = t.conditions.front();
  for (const Row& row : t.rows) {
    if (row.condition == first) continue;
    const auto base = std::find_if(t.rows.begin(), t.rows.end(), [&](const Row& r) {
      return r.condition == first && r.benchmark == row.benchmark && r.config == row.config &&
             r.variant == row.variant && r.unit == row.unit;
    });
    if (base == t.rows.end() || !(base->summary.median > 0) || !std::isfinite(row.summary.median)) continue;
    Figure f = figure_of(row, t);
    f.statistic = Statistic::ratio_to_first;
    f.to = first;
    f.unit = "×";
    f.kind = FigureKind::ratio;
    f.value = row.summary.median / base->summary.median;
    f.names.push_back(first);
    out.push_back(std::move(f));
  }
}

// A paired row's ratio of a variant to its baseline (A/A rows are no figure of the run's).
void add_paired(std::vector<Figure>& out, const PairedRow& p) {
  if (p.aa) return;
  Figure f;
  f.condition = p.condition;
  f.benchmark = without_procs(p.benchmark);
  f.statistic = Statistic::ratio_of_variants;
  f.of = p.variant;
  f.to = p.baseline;
  f.unit = "×";
  f.kind = FigureKind::ratio;
  f.value = p.unpaired ? p.hl.estimate : p.paired.gm;
  if (!std::isfinite(f.value)) return;
  const double lo = p.unpaired ? p.hl.lo : p.paired.gm_lo, hi = p.unpaired ? p.hl.hi : p.paired.gm_hi;
  if (std::isfinite(lo) && std::isfinite(hi) && lo > 0) f.lo = lo, f.hi = hi;
  f.label = p.label;
  f.verdict = p.verdict_word();
  f.untrustworthy = !p.trustworthy;
  f.names = {p.condition, short_name(p.benchmark), without_procs(p.benchmark), p.variant, p.baseline};
  out.push_back(std::move(f));
}

// A figure in percent of a row's (its median's ± or its CV), when it has one.
void add_percent(std::vector<Figure>& out, const Figure& base, Statistic statistic, FigureKind kind,
                 const std::optional<double>& value) {
  if (!value) return;
  Figure f = base;
  f.statistic = statistic;
  f.unit = "%";
  f.kind = kind;
  f.value = *value;
  out.push_back(std::move(f));
}

}  // namespace

std::vector<Figure> published_figures(const Analysis& a) {
  std::vector<Figure> out;
  const Table& t = a.table;
  for (const Row& row : t.rows) {
    const Figure base = figure_of(row, t);
    add_value(out, base, Statistic::median, row.unit, row.summary.median, row.summary.median_ci);
    const auto& hw = row.summary.median_rel_halfwidth;
    add_percent(out, base, Statistic::median_halfwidth, FigureKind::halfwidth,
                hw ? std::optional<double>(*hw * 100) : std::nullopt);
    add_value(out, base, Statistic::mean, row.unit, row.summary.mean, row.summary.mean_ci);
    add_percent(out, base, Statistic::cv, FigureKind::percent, row.summary.cv_pct);
  }
  for (const Row& row : t.other_metrics)
    add_value(out, figure_of(row, t), Statistic::other_median, row.unit, row.summary.median,
              row.summary.median_ci);
  add_ratios_to_first(out, t);
  for (const PairedRow& p : a.paired.rows) add_paired(out, p);
  return out;
}

std::vector<Correction> match_figures(const std::vector<Figure>& old_figures,
                                      const std::vector<Figure>& new_figures) {
  std::map<Figure::Key, const Figure*> by_key;
  for (const Figure& f : new_figures) by_key.emplace(f.key(), &f);
  std::vector<Correction> out;
  for (const Figure& f : old_figures)
    if (const auto it = by_key.find(f.key()); it != by_key.end()) out.push_back({f, *it->second});
  return out;
}

Syntax syntax_of(std::string_view path) {
  const std::size_t dot = path.rfind('.');
  const std::size_t slash = path.rfind('/');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) return Syntax::text;
  std::string ext(path.substr(dot + 1));
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  static constexpr std::pair<std::string_view, Syntax> kExtensions[] = {
      {"md", Syntax::markdown}, {"markdown", Syntax::markdown}, {"html", Syntax::html},
      {"htm", Syntax::html},    {"yaml", Syntax::yaml},         {"yml", Syntax::yaml},
      {"json", Syntax::json},   {"csv", Syntax::csv},           {"tsv", Syntax::csv}};
  for (const auto& [extension, syntax] : kExtensions)
    if (ext == extension) return syntax;
  static const std::vector<std::string> sources = {"go",  "c",  "h",  "cc", "cpp",   "hpp",
                                                   "cxx", "hh", "py", "sh", "rs",    "java",
                                                   "js",  "ts", "rb", "kt", "swift", "cmake"};
  if (std::find(sources.begin(), sources.end(), ext) != sources.end()) return Syntax::source;
  return Syntax::text;
}

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_word(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || (static_cast<unsigned char>(c) & 0x80);
}
bool starts(std::string_view text, std::size_t at, std::string_view what) {
  return at <= text.size() && text.substr(at, what.size()) == what;
}

enum class Suffix { none, times, percent, unit };

// A number as written: [sign] digits [. digits] [space] [suffix].
struct Token {
  std::size_t begin = 0, end = 0;
  std::string sign;  // "", "+", "-", "−", "±"
  double number = 0;
  int decimals = 0;
  int significant = 0;
  Suffix suffix = Suffix::none;
  std::string gap;      // the space between number and suffix, as written
  std::string written;  // the suffix as written
  double seconds = 0;   // a time unit: its value in seconds; 0 for any other unit
};

struct TimeUnit {
  std::string_view text;
  double seconds;
  bool needs_adjacent;  // a bare SI prefix (benchstat's "11.32n") only right after the number
};
constexpr TimeUnit kTimeUnits[] = {
    {"ns/op", 1e-9, false}, {"µs/op", 1e-6, false}, {"us/op", 1e-6, false}, {"ms/op", 1e-3, false},
    {"sec/op", 1, false},   {"s/op", 1, false},     {"ns", 1e-9, false},    {"µs", 1e-6, false},
    {"us", 1e-6, false},    {"ms", 1e-3, false},    {"sec", 1, false},      {"s", 1, false},
    {"n", 1e-9, true},      {"µ", 1e-6, true},      {"u", 1e-6, true},      {"m", 1e-3, true},
};

// The suffix at `at` (after an optional gap): sets the token's suffix fields, returns its end.
std::size_t read_suffix(std::string_view text, std::size_t at, Token& t,
                        const std::vector<std::string>& units) {
  std::size_t j = at;
  std::string gap;
  for (std::string_view space : {" ", "\u00a0", "\u2009", "\u202f"})
    if (starts(text, j, space)) {
      gap = std::string(space);
      j += space.size();
      break;
    }
  const auto boundary = [&](std::size_t k) { return k >= text.size() || !is_word(text[k]); };
  // Multiplication sign or an x that ends the word.
  if (starts(text, j, "×")) {
    t.suffix = Suffix::times, t.gap = gap, t.written = "×";
    return j + std::string_view("×").size();
  }
  if (j < text.size() && (text[j] == 'x' || text[j] == 'X') && boundary(j + 1)) {
    t.suffix = Suffix::times, t.gap = gap, t.written = std::string(1, text[j]);
    return j + 1;
  }
  if (j < text.size() && text[j] == '%') {
    t.suffix = Suffix::percent, t.gap = gap, t.written = "%";
    return j + 1;
  }
  // The figures' own units first (longest first), then the time units.
  for (const std::string& u : units)
    if (!u.empty() && starts(text, j, u) && boundary(j + u.size())) {
      t.suffix = Suffix::unit, t.gap = gap, t.written = u;
      return j + u.size();
    }
  for (const TimeUnit& u : kTimeUnits)
    if (starts(text, j, u.text) && boundary(j + u.text.size()) && !(u.needs_adjacent && !gap.empty())) {
      t.suffix = Suffix::unit, t.gap = gap, t.written = std::string(u.text), t.seconds = u.seconds;
      return j + u.text.size();
    }
  return at;
}

// The numbers of `text` that can be quotations, in order.
std::vector<Token> tokens(std::string_view text, const std::vector<std::string>& units) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (!is_digit(text[i])) {
      ++i;
      continue;
    }
    const std::size_t start = i;
    // Within a word (v1.67, x86), after a dot (.5, 1.2.3) or a date's or range's separator: skip the run.
    const char before = start > 0 ? text[start - 1] : ' ';
    const bool joined =
        (start >= 2 && (before == '-' || before == '/' || before == ':') && is_digit(text[start - 2]));
    const bool inside =
        (is_word(before) && !(static_cast<unsigned char>(before) & 0x80)) || before == '.' || joined;
    std::size_t j = i;
    while (j < text.size() && is_digit(text[j])) ++j;
    int decimals = 0;
    if (j + 1 < text.size() && text[j] == '.' && is_digit(text[j + 1])) {
      const std::size_t frac = ++j;
      while (j < text.size() && is_digit(text[j])) ++j;
      decimals = static_cast<int>(j - frac);
    }
    // A dotted run (1.67.0, 10.0.0.1), a date (2026-03-17, 3/17), a time (12:30): not a number.
    const bool dotted = j + 1 < text.size() &&
                        (text[j] == '.' || text[j] == '-' || text[j] == '/' || text[j] == ':') &&
                        is_digit(text[j + 1]);
    if (inside || dotted) {
      while (j < text.size() && (is_digit(text[j]) || text[j] == '.' || text[j] == '-' || text[j] == '/' ||
                                 text[j] == ':' || std::isalpha(static_cast<unsigned char>(text[j]))))
        ++j;
      i = j;
      continue;
    }
    Token t;
    t.begin = start;
    const std::string digits(text.substr(start, j - start));
    t.number = std::strtod(digits.c_str(), nullptr);
    t.decimals = decimals;
    {
      int sig = 0;
      bool leading = true;
      for (const char c : digits) {
        if (c == '.') continue;
        if (leading && c == '0') continue;
        leading = false;
        ++sig;
      }
      t.significant = sig;
    }
    // The sign just before, when it is not a word's hyphen.
    for (std::string_view s : {"+", "-", "−", "±"})
      if (start >= s.size() && text.substr(start - s.size(), s.size()) == s) {
        const std::size_t b = start - s.size();
        if (b > 0 && is_word(text[b - 1]) && !(static_cast<unsigned char>(text[b - 1]) & 0x80)) break;
        t.sign = std::string(s);
        t.begin = b;
        break;
      }
    // benchstat's "1.718µ ± 1%": a ± and a space.
    for (std::string_view s : {"± ", "±\u00a0"})
      if (t.sign.empty() && start >= s.size() && text.substr(start - s.size(), s.size()) == s) {
        t.sign = "± ";
        t.begin = start - s.size();
      }
    t.end = read_suffix(text, j, t, units);
    // A number run into a word (1st, 3rd, 0x1f, 5GB of an unknown unit): not a quotation.
    if (t.suffix == Suffix::none && j < text.size() && is_word(text[j]) &&
        !(static_cast<unsigned char>(text[j]) & 0x80)) {
      while (j < text.size() && is_word(text[j])) ++j;
      i = j;
      continue;
    }
    if (t.suffix == Suffix::none) t.end = j;
    out.push_back(t);
    i = std::max(t.end, j);
  }
  return out;
}

// Whether each byte of a source file is inside a comment (//, /* */, #), strings skipped.
std::vector<bool> comment_mask(std::string_view text) {
  std::vector<bool> mask(text.size(), false);
  enum { code, line, block, string } state = code;
  char quote = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    switch (state) {
      case code:
        if (c == '/' && i + 1 < text.size() && text[i + 1] == '/')
          state = line;
        else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*')
          state = block;
        else if (c == '#')
          state = line;
        else if (c == '"' || c == '\'' || c == '`')
          state = string, quote = c;
        break;
      case line:
        if (c == '\n') state = code;
        break;
      case block:
        if (c == '*' && i + 1 < text.size() && text[i + 1] == '/') {
          mask[i] = mask[i + 1] = true;
          ++i;
          state = code;
          continue;
        }
        break;
      case string:
        if (c == '\\')
          ++i;
        else if (c == quote || (c == '\n' && quote != '`'))
          state = code;
        break;
    }
    if (state == line || state == block) mask[i] = true;
  }
  return mask;
}

// The token's number with its sign (± is no sign: a half-width).
double signed_number(const Token& t) { return t.sign == "-" || t.sign == "−" ? -t.number : t.number; }

// Whether `written`, with `decimals` decimals, is `value` rounded (a half-way value, 3.0655 written
// 3.066 or 3.065, matches either way).
bool close_at(double written, int decimals, double value) {
  return std::fabs(written - value) <=
         0.5 * std::pow(10.0, -decimals) * (1 + 1e-6) + 1e-12 * std::fabs(value);
}

// How a token spells a figure of its kind: the spelling picked by the old figure is the one its
// new figure is read and written in.
enum class Spelling { times, change, share, unsigned_change, percent, scaled_time, unit, bare };

// The figure in a spelling: what the token's number should read.
double spelled(Spelling s, const Token& t, const Figure& f) {
  switch (s) {
    case Spelling::change:
      return (f.value - 1) * 100;
    case Spelling::share:
      return f.value * 100;
    case Spelling::unsigned_change:
      return std::fabs(f.value - 1) * 100;
    case Spelling::scaled_time:
      return f.value * text::tidy_unit(f.unit).second / t.seconds;
    default:
      return f.value;
  }
}

// The spelling in which the token can quote a figure of this kind, or nullopt when it cannot.
std::optional<Spelling> spelling(const Token& t, const Figure& f) {
  const bool negative = t.sign == "-" || t.sign == "−";
  const bool has_sign = negative || t.sign == "+";
  switch (f.kind) {
    case FigureKind::ratio:
      if (t.suffix == Suffix::times && !has_sign) return Spelling::times;
      if (t.suffix == Suffix::percent && has_sign) return Spelling::change;
      if (t.suffix == Suffix::percent && t.sign.empty())
        return close_at(t.number, t.decimals, f.value * 100) ? Spelling::share : Spelling::unsigned_change;
      if (t.suffix == Suffix::none && t.sign.empty()) return Spelling::bare;
      return std::nullopt;
    case FigureKind::percent:
      if (t.suffix == Suffix::percent && t.sign.empty()) return Spelling::percent;
      if (t.suffix == Suffix::none && t.sign.empty()) return Spelling::bare;
      return std::nullopt;
    case FigureKind::halfwidth:
      if (t.suffix == Suffix::percent && (t.sign == "±" || t.sign == "± ")) return Spelling::percent;
      return std::nullopt;
    case FigureKind::value:
      if (negative) return std::nullopt;
      if (t.suffix == Suffix::unit && t.seconds > 0)
        return text::tidy_unit(f.unit).first.find("sec") == std::string::npos
                   ? std::nullopt
                   : std::optional(Spelling::scaled_time);
      if (t.suffix == Suffix::unit)
        return t.written == f.unit || (f.unit.size() > 3 && f.unit.ends_with("/op") &&
                                       t.written == f.unit.substr(0, f.unit.size() - 3))
                   ? std::optional(Spelling::unit)
                   : std::nullopt;
      if (t.suffix == Suffix::none && t.sign.empty()) return Spelling::bare;
      return std::nullopt;
  }
  return std::nullopt;
}

// Less than certain whatever else holds: "" for a spelling only the figure's kind uses.
std::optional<Doubt> weak(Spelling s, const Token& t) {
  if (s == Spelling::bare) return Doubt::bare_number;
  if (s == Spelling::unsigned_change) return Doubt::unsigned_percentage;
  if (s == Spelling::share && t.number < 100) return Doubt::share_under_100;
  return std::nullopt;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// Whether `name` occurs as a word in `haystack` (both lower case).
bool has_word(std::string_view haystack, std::string_view name) {
  if (name.size() < 3) return false;
  for (std::size_t at = haystack.find(name); at != std::string_view::npos; at = haystack.find(name, at + 1)) {
    const bool left = at == 0 || !std::isalnum(static_cast<unsigned char>(haystack[at - 1]));
    const std::size_t end = at + name.size();
    const bool right = end >= haystack.size() || !std::isalnum(static_cast<unsigned char>(haystack[end]));
    if (left && right) return true;
  }
  return false;
}

// The token's number for a new value, in its spelling: same sign style, decimals and suffix.
std::string respell(const Token& t, double value) {
  std::string sign = t.sign;
  if (sign == "+" || sign == "-" || sign == "−") {
    if (value < 0)
      sign = sign == "−" ? "−" : "-";
    else
      sign = "+";
    value = std::fabs(value);
  }
  return fmt::format("{}{:.{}f}{}{}", sign, value, t.decimals, t.gap, t.written);
}

// Whether the line holding `at` is a Go benchmark result line (its name, its iteration count,
// then its values: "BenchmarkX-8   1000   1723 ns/op"), quoted whole in a comment or a code block:
// its numbers are samples, not figures.
bool result_line(std::string_view text, std::size_t at) {
  const std::size_t newline = at == 0 ? std::string_view::npos : text.rfind('\n', at - 1);
  std::size_t i = newline == std::string_view::npos ? 0 : newline + 1;
  while (i < text.size() &&
         (text[i] == ' ' || text[i] == '\t' || text[i] == '/' || text[i] == '#' || text[i] == '*'))
    ++i;
  if (!text.substr(i).starts_with("Benchmark")) return false;
  while (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != '\n') ++i;  // the name
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  const std::size_t digits = i;
  while (i < text.size() && is_digit(text[i])) ++i;
  return i > digits && i < text.size() && (text[i] == ' ' || text[i] == '\t') && i < at;
}

// Whether the token is the old figure of a correction mark apply_corrections wrote: ~~1.67×~~,
// <del>1.67×</del>, "(corrected from 1.67× on".
bool in_correction_mark(std::string_view text, const Token& t) {
  const std::string_view before = text.substr(0, t.begin), after = text.substr(t.end);
  return (before.ends_with("~~") && after.starts_with("~~")) ||
         (before.ends_with("<del>") && after.starts_with("</del>")) || before.ends_with("(corrected from ");
}

}  // namespace

std::vector<Hit> find_quotations(std::string_view text, const std::vector<Correction>& corrections,
                                 Syntax syntax) {
  std::vector<std::string> units;
  for (const Correction& c : corrections)
    if (c.old_figure.kind == FigureKind::value) {
      units.push_back(c.old_figure.unit);
      if (c.old_figure.unit.ends_with("/op") && c.old_figure.unit.size() > 3)
        units.push_back(c.old_figure.unit.substr(0, c.old_figure.unit.size() - 3));
    }
  std::sort(units.begin(), units.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  units.erase(std::unique(units.begin(), units.end()), units.end());
  std::vector<std::vector<std::string>> names(corrections.size());
  for (std::size_t k = 0; k < corrections.size(); ++k) {
    for (const std::string& n : corrections[k].old_figure.names) names[k].push_back(lower(n));
    names[k].push_back(lower(std::string(to_string(corrections[k].old_figure.label))));
  }
  const std::vector<bool> comments = syntax == Syntax::source ? comment_mask(text) : std::vector<bool>{};
  std::vector<std::size_t> line_starts = {0};
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') line_starts.push_back(i + 1);

  std::vector<Hit> out;
  for (const Token& t : tokens(text, units)) {
    if (in_correction_mark(text, t)) continue;  // corrected before: the old figure stays visible
    if (result_line(text, t.begin)) continue;   // raw data, not a quotation of a figure
    const std::size_t line = static_cast<std::size_t>(
        std::upper_bound(line_starts.begin(), line_starts.end(), t.begin) - line_starts.begin());
    const std::size_t context_begin = line_starts[line >= 3 ? line - 3 : 0];
    const std::size_t context_end = line < line_starts.size() ? line_starts[line] : text.size();
    const std::string context = lower(text.substr(context_begin, context_end - context_begin));
    struct Candidate {
      std::size_t k;
      Spelling spelling;
      bool named;
    };
    std::vector<Candidate> found;
    for (std::size_t k = 0; k < corrections.size(); ++k) {
      const auto how = spelling(t, corrections[k].old_figure);
      if (!how || !close_at(signed_number(t), t.decimals, spelled(*how, t, corrections[k].old_figure)))
        continue;
      // Already the new figure (or the same at this precision): nothing to correct.
      if (close_at(signed_number(t), t.decimals, spelled(*how, t, corrections[k].new_figure))) continue;
      const bool named = std::any_of(names[k].begin(), names[k].end(),
                                     [&](const std::string& n) { return has_word(context, n); });
      found.push_back({k, *how, named});
    }
    if (found.empty()) continue;
    // Prefer the figures named nearby; several left: the quotation is ambiguous.
    if (std::any_of(found.begin(), found.end(), [](const Candidate& c) { return c.named; }))
      std::erase_if(found, [](const Candidate& c) { return !c.named; });
    const Candidate& best = found.front();
    if (best.spelling == Spelling::bare && t.significant < 3) continue;  // "1.7" alone means too many things
    Hit h;
    h.offset = t.begin;
    h.length = t.end - t.begin;
    h.line = line;
    const std::string_view before = text.substr(line_starts[line - 1], t.begin - line_starts[line - 1]);
    h.column = 1 + static_cast<std::size_t>(std::count_if(before.begin(), before.end(), [](char c) {
                 return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
               }));
    h.quoted = std::string(text.substr(t.begin, t.end - t.begin));
    h.correction = best.k;
    h.replacement = respell(t, spelled(best.spelling, t, corrections[best.k].new_figure));
    if (const auto w = weak(best.spelling, t))
      h.doubts.push_back(*w);
    else if (t.significant < 2 || (t.significant < 3 && !best.named))
      h.doubts.push_back(t.significant < 2 ? Doubt::one_digit : Doubt::two_digits_unnamed);
    if (found.size() > 1) {
      h.doubts.push_back(Doubt::several_figures);
      for (const Candidate& c : found) h.also.push_back(c.k);
    }
    if (syntax == Syntax::source && !(t.begin < comments.size() && comments[t.begin]))
      h.doubts.push_back(Doubt::in_code);
    h.certainty = h.doubts.empty() ? Certainty::certain : Certainty::likely;
    out.push_back(std::move(h));
  }
  return out;
}

std::string apply_corrections(std::string_view text, const std::vector<Hit>& hits, Syntax syntax,
                              std::string_view date, std::string_view see) {
  std::string ref;
  for (const char c : see)
    if (c != '"' && c != '\\' && c != '\n' && c != '\r' && c != ',' && c != '|' && c != '<' && c != '>' &&
        c != '#')
      ref += c;
  const std::string tail = ref.empty() ? "" : "; see " + ref;
  std::vector<const Hit*> certain;
  for (const Hit& h : hits)
    if (h.certainty == Certainty::certain) certain.push_back(&h);
  std::sort(certain.begin(), certain.end(), [](const Hit* a, const Hit* b) { return a->offset < b->offset; });
  std::string out;
  std::size_t at = 0;
  for (const Hit* h : certain) {
    if (h->offset < at) continue;  // overlapping: the first wins
    out.append(text.substr(at, h->offset - at));
    switch (syntax) {
      case Syntax::markdown:
        out += fmt::format("~~{}~~ {} (corrected {}{})", h->quoted, h->replacement, date, tail);
        break;
      case Syntax::html:
        out += fmt::format("<del>{}</del> <ins>{}</ins> (corrected {}{})", h->quoted, h->replacement, date,
                           tail);
        break;
      default:
        out += fmt::format("{} (corrected from {} on {}{})", h->replacement, h->quoted, date, tail);
    }
    at = h->offset + h->length;
  }
  out.append(text.substr(at));
  return out;
}

}  // namespace noisefloor::analysis
