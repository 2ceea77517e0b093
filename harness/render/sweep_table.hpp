// A sweep's curves as tables: one row per point (the swept value, n, the median with its 95% CI,
// the CV with its interval, the band, the room), the knee marked and said in words. Pure.
#pragma once

#include <string>
#include <vector>

#include "analysis/sweep.hpp"

namespace noisefloor::render {

// For terminals when `terminal` (in `width` columns), else GitHub markdown; "" without curves.
std::string sweep_tables(const std::vector<analysis::Curve>& curves, bool terminal, std::size_t width = 80);

}  // namespace noisefloor::render
