// The order a paired design ran its two sides in, one table of names (samples.jsonl's "order").
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <utility>

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

// The baseline (or base) ran first: AB, ABBA.
constexpr bool baseline_first(PairOrder order) { return order == PairOrder::ab || order == PairOrder::abba; }

}  // namespace noisefloor::model
