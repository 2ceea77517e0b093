// The paired design's tables as markdown: one table per label (numbers measured in different
// rooms are never put side by side), the A/A checks and the notes. Pure.
#pragma once

#include <string>

#include "analysis/paired.hpp"

namespace noisefloor::render {

std::string paired_markdown(const analysis::PairedTable& table);

}  // namespace noisefloor::render
