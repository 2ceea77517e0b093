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

// The words of every verdict: render/ says them (to_string, one table of names in verdict.cpp),
// nothing reads one back. faster/slower: a time or a rate; better/worse: another quantity with a
// direction; lower/higher: no direction (and how any value moved, unjudged); equivalent;
// inconclusive. Each is written as its name.
enum class Word { faster, slower, better, worse, lower, higher, equivalent, inconclusive };

std::string_view to_string(Word word);

// How the value moved, without judging it: lower, higher, equivalent, inconclusive.
Word movement(stats::Verdict ratio_class);

// The verdict in the unit's direction.
Word verdict_word(stats::Verdict ratio_class, model::Better better, model::Quantity quantity);
Word verdict_word(stats::Verdict ratio_class, std::string_view unit, const model::UnitMetadata& units = {});

// Whether the move is an improvement or a regression in the unit's direction (both false for
// equivalent, inconclusive, or a unit of unknown direction).
bool improved(stats::Verdict ratio_class, model::Better better);
bool regressed(stats::Verdict ratio_class, model::Better better);

}  // namespace noisefloor::analysis
