// The order a paired design ran its two sides in, one table of names (samples.jsonl's "order").
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <utility>

#include "model/names.hpp"

namespace noisefloor::model {

// none: no paired design. ab / ba: one pair, the baseline first or second. abba / baab: the gate's
// quad, b h h' b' or h b b' h' (plan/plan.hpp).
enum class PairOrder : std::uint8_t { none, ab, ba, abba, baab };

constexpr std::array<std::pair<PairOrder, std::string_view>, 5> names(PairOrder) {
  return {{{PairOrder::none, ""},
           {PairOrder::ab, "AB"},
           {PairOrder::ba, "BA"},
           {PairOrder::abba, "ABBA"},
           {PairOrder::baab, "BAAB"}}};
}

// How a run ordered the two sides of its pairs (fingerprint.json's "pairing"): not paired, pairs
// ABBA over the kept repeats (a paired experiment), or the gate's quads (plan/plan.hpp).
enum class Pairing : std::uint8_t { none, abba, quads };

constexpr std::array<std::pair<Pairing, std::string_view>, 3> names(Pairing) {
  return {{{Pairing::none, "none"}, {Pairing::abba, "abba"}, {Pairing::quads, "quads"}}};
}

// A pairing in words (fingerprint.json's "paired_order"; "" when not paired).
constexpr std::string_view order_words(Pairing p) {
  constexpr std::array<std::pair<Pairing, std::string_view>, 2> kWords{{
      {Pairing::abba, "ABBA counterbalanced over the kept repeats (deterministic)"},
      {Pairing::quads, "quads b h h' b' / h b b' h', ABBA over the kept repeats (deterministic)"},
  }};
  return word_of(p, kWords, "");
}

// The baseline (or base) ran first: AB, ABBA.
constexpr bool baseline_first(PairOrder order) { return order == PairOrder::ab || order == PairOrder::abba; }

}  // namespace noisefloor::model
