#include "analysis/verdict.hpp"

#include <array>
#include <utility>

#include "model/names.hpp"

namespace noisefloor::analysis {

std::string_view movement(stats::Verdict v) {
  using enum stats::Verdict;
  static constexpr std::array<std::pair<stats::Verdict, std::string_view>, 3> kWords{
      {{faster, "lower"}, {slower, "higher"}, {equivalent, "equivalent"}}};
  return model::word_of(v, kWords, "inconclusive");
}

bool improved(stats::Verdict v, model::Better better) {
  return (v == stats::Verdict::faster && better == model::Better::lower) ||
         (v == stats::Verdict::slower && better == model::Better::higher);
}

bool regressed(stats::Verdict v, model::Better better) {
  return (v == stats::Verdict::slower && better == model::Better::lower) ||
         (v == stats::Verdict::faster && better == model::Better::higher);
}

std::string_view verdict_word(stats::Verdict v, model::Better better, model::Quantity quantity) {
  if (v == stats::Verdict::equivalent || v == stats::Verdict::inconclusive) return movement(v);
  if (better == model::Better::unknown) return movement(v);
  const bool speed = quantity == model::Quantity::time || quantity == model::Quantity::rate;
  if (improved(v, better)) return speed ? "faster" : "better";
  return speed ? "slower" : "worse";
}

std::string_view verdict_word(stats::Verdict v, std::string_view unit, const model::UnitMetadata& units) {
  return verdict_word(v, model::better_of(unit, units), model::quantity_of(unit));
}

}  // namespace noisefloor::analysis
