// The errata scanner (README: Corrections) on any text a repository may hold: the first byte picks
// the file's syntax, the rest is the file. Fixed corrections (a ratio, a median in ns/op, a CV, a
// CI's half-width) are searched for and the certain quotations rewritten. Beyond surviving, every
// hit must be the bytes it says it quotes, in order and apart, at a line and column that exist,
// and the rewrite must leave every byte outside the certain hits as it was.
#include "analysis/errata.hpp"

#include <string>
#include <vector>

#include "fuzz.hpp"

namespace {

using namespace noisefloor;
using analysis::Figure;
using analysis::FigureKind;

Figure figure(FigureKind kind, double value, analysis::Statistic statistic, std::string unit) {
  Figure f;
  f.condition = "idle";
  f.benchmark = "BenchmarkGet";
  f.statistic = statistic;
  if (statistic == analysis::Statistic::ratio_of_variants) f.of = "noisy", f.to = "idle";
  f.unit = std::move(unit);
  f.kind = kind;
  f.value = value;
  f.label = analysis::Label::measured_clean;
  f.names = {"idle", "Get", "BenchmarkGet"};
  return f;
}

const std::vector<analysis::Correction>& corrections() {
  static const std::vector<analysis::Correction> fixed{
      {figure(FigureKind::ratio, 1.6712, analysis::Statistic::ratio_of_variants, "×"),
       figure(FigureKind::ratio, 3.1706, analysis::Statistic::ratio_of_variants, "×")},
      {figure(FigureKind::value, 34.97, analysis::Statistic::median, "ns/op"),
       figure(FigureKind::value, 41.23, analysis::Statistic::median, "ns/op")},
      {figure(FigureKind::percent, 18.9, analysis::Statistic::cv, "%"),
       figure(FigureKind::percent, 4.2, analysis::Statistic::cv, "%")},
      {figure(FigureKind::halfwidth, 1.5, analysis::Statistic::median_halfwidth, "%"),
       figure(FigureKind::halfwidth, 0.7, analysis::Statistic::median_halfwidth, "%")}};
  return fixed;
}

void check_hits(std::string_view text, const std::vector<analysis::Hit>& hits) {
  std::size_t end = 0;
  for (const analysis::Hit& h : hits) {
    if (h.offset < end || h.length == 0 || h.offset + h.length > text.size()) __builtin_trap();
    if (text.substr(h.offset, h.length) != h.quoted) __builtin_trap();
    if (h.correction >= corrections().size() || h.line == 0 || h.column == 0) __builtin_trap();
    end = h.offset + h.length;
  }
}

// The rewrite keeps what lies before the first certain hit and after the last one as it was, and
// is the text itself when no hit is certain.
void check_rewrite(std::string_view text, const std::vector<analysis::Hit>& hits, std::string_view out) {
  const analysis::Hit* first = nullptr;
  const analysis::Hit* last = nullptr;
  for (const analysis::Hit& h : hits)
    if (h.certainty == analysis::Certainty::certain) {
      if (first == nullptr) first = &h;
      last = &h;
    }
  if (first == nullptr) {
    if (out != text) __builtin_trap();
    return;
  }
  const std::string_view before = text.substr(0, first->offset);
  const std::string_view after = text.substr(last->offset + last->length);
  if (out.size() < before.size() + after.size() || !out.starts_with(before) || !out.ends_with(after))
    __builtin_trap();
}

}  // namespace

int noisefloor::fuzz::errata(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static constexpr analysis::Syntax kSyntaxes[] = {
      analysis::Syntax::markdown, analysis::Syntax::html,   analysis::Syntax::yaml, analysis::Syntax::json,
      analysis::Syntax::csv,      analysis::Syntax::source, analysis::Syntax::text};
  const analysis::Syntax syntax = kSyntaxes[data[0] % 7];
  const std::string_view text = fuzz::as_text(data + 1, size - 1);
  fuzz::survive([&] {
    const std::vector<analysis::Hit> hits = analysis::find_quotations(text, corrections(), syntax);
    check_hits(text, hits);
    const std::string out = analysis::apply_corrections(text, hits, syntax, "2026-01-01", "results/x");
    check_rewrite(text, hits, out);
  });
  return 0;
}
