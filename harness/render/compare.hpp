// `noisefloor compare` as text and CSV (the JSON is analysis::to_json(CompareTable)). Pure.
#pragma once

#include <string>

#include "analysis/compare.hpp"

namespace noisefloor::render {

// Text readable side by side with benchstat (one table per unit, the rows of every condition in
// it, "<condition>: <benchmark>" when there are several, each condition's label listed above;
// lines <= 80 columns: a long name goes on its own line), then the effects (Hodges-Lehmann
// new/old with CI and verdict), the rows not compared and the warnings.
std::string compare_text(const analysis::CompareTable& table);
// One line per row (compared or not), RFC 4180 quoting, numbers in shortest round-trip form,
// empty for undefined values.
std::string compare_csv(const analysis::CompareTable& table);

}  // namespace noisefloor::render
