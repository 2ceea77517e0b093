// A suite on a terminal: one line per benchmark, the conditions side by side with their labels
// (analysis/suite.hpp), one table per configuration and unit, values scaled as benchstat scales
// them. Pure.
#pragma once

#include <cstddef>
#include <string>

#include "analysis/table.hpp"

namespace noisefloor::render {

// Every condition with its label and the reading it rests on, one per line under "conditions:";
// "" when the table has no labels (a go test file).
std::string conditions_legend(const analysis::Table& table, std::size_t width);

// How many benchmarks (lines of the primary metric) the suite view has.
std::size_t suite_benchmarks(const analysis::Table& table);

// The suite view in `width` columns: conditions that do not fit beside each other go into a
// table of their own under the first, the names repeated.
std::string suite_text(const analysis::Table& table, std::size_t width);

}  // namespace noisefloor::render
