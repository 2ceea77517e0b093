// A sweep's curves as tables: one row per point (the swept value, n, the median with its 95% CI,
// the CV with its interval, the band, the room), the knee marked and said in words. Pure.
#pragma once

#include <string>
#include <vector>

#include "analysis/sweep.hpp"

namespace noisefloor::render {

// The curve's knee in words ("knee at spinners=1: the median 1.3 ms is 30.0% above
// spinners=0's, outside its 95% CI [...]"), or why it has none (one point; no median CI at the
// first point; every median inside it).
std::string knee_text(const analysis::Curve& c);

// For terminals when `terminal` (in `width` columns), else GitHub markdown; "" without curves.
std::string sweep_tables(const std::vector<analysis::Curve>& curves, bool terminal, std::size_t width = 80);

}  // namespace noisefloor::render
