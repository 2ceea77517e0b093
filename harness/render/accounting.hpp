// What each condition's invocations cost and waited (analysis/accounting.hpp), as the notes under
// the table. Pure.
#pragma once

#include <string>
#include <vector>

#include "analysis/accounting.hpp"

namespace noisefloor::render {

// The launcher overhead (and a warning below kLauncherWarnFactor × it), throttled containers with
// the figures, a starved condition (or one whose benchmark waited kWaitNoteFraction of its time)
// with the figures, and noisefloor's own CPU while it sampled.
std::vector<std::string> accounting_notes(const std::vector<analysis::ConditionAccounting>& accounting);

}  // namespace noisefloor::render
