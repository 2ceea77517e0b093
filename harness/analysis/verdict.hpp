// The words of a verdict, by the unit's direction. stats::classify places a ratio's interval
// against the noise threshold — below 1 − θ (stats::Verdict::faster, "the value went down"), above
// 1 + θ (slower, "it went up"), inside (equivalent) or across (inconclusive) — without knowing what
// the value is. Whether "down" is good depends on the unit (model::better_of): a time per op going
// down is faster, a throughput (B/s, items_per_second) going down is slower, B/op or allocs/op going
// down is better, and a unit of unknown direction only goes lower or higher. Pure.
#pragma once

#include <string_view>

#include "model/units.hpp"
#include "stats/compare.hpp"

namespace noisefloor::analysis {

// How the value moved, without judging it: "lower", "higher", "equivalent", "inconclusive".
std::string_view movement(stats::Verdict ratio_class);

// The verdict as said: "faster"/"slower" (a time or a rate), "better"/"worse" (another quantity
// with a direction), "lower"/"higher" (no direction), "equivalent", "inconclusive".
std::string_view verdict_word(stats::Verdict ratio_class, model::Better better, model::Quantity quantity);
std::string_view verdict_word(stats::Verdict ratio_class, std::string_view unit,
                              const model::UnitMetadata& units = {});

// Whether the move is an improvement or a regression in the unit's direction (both false for
// equivalent, inconclusive, or a unit of unknown direction).
bool improved(stats::Verdict ratio_class, model::Better better);
bool regressed(stats::Verdict ratio_class, model::Better better);

}  // namespace noisefloor::analysis
