#include "analysis/verdict.hpp"

#include <array>

namespace noisefloor::analysis {

std::string_view to_string(Word word) {
  static constexpr std::array<std::string_view, 8> kNames{"faster", "slower", "better",     "worse",
                                                          "lower",  "higher", "equivalent", "inconclusive"};
  const auto i = static_cast<std::size_t>(word);  // the enum's order
  return i < kNames.size() ? kNames[i] : "unknown";
}

Word movement(stats::Verdict v) {
  switch (v) {
    case stats::Verdict::faster:
      return Word::lower;
    case stats::Verdict::slower:
      return Word::higher;
    case stats::Verdict::equivalent:
      return Word::equivalent;
    case stats::Verdict::inconclusive:
      break;
  }
  return Word::inconclusive;
}

bool improved(stats::Verdict v, model::Better better) {
  return (v == stats::Verdict::faster && better == model::Better::lower) ||
         (v == stats::Verdict::slower && better == model::Better::higher);
}

bool regressed(stats::Verdict v, model::Better better) {
  return (v == stats::Verdict::slower && better == model::Better::lower) ||
         (v == stats::Verdict::faster && better == model::Better::higher);
}

Word verdict_word(stats::Verdict v, model::Better better, model::Quantity quantity) {
  if (v == stats::Verdict::equivalent || v == stats::Verdict::inconclusive) return movement(v);
  if (better == model::Better::unknown) return movement(v);
  const bool speed = quantity == model::Quantity::time || quantity == model::Quantity::rate;
  if (improved(v, better)) return speed ? Word::faster : Word::better;
  return speed ? Word::slower : Word::worse;
}

Word verdict_word(stats::Verdict v, std::string_view unit, const model::UnitMetadata& units) {
  return verdict_word(v, model::better_of(unit, units), model::quantity_of(unit));
}

}  // namespace noisefloor::analysis
