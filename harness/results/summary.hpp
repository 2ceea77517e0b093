// summary.json moved to render/json.hpp (render::summary_document, render::summary_json,
// render::published_table; issue 25). This declaration stays until pipeline/run.cpp calls those:
// it is defined in render/json.cpp, which forwards to render::summary_document.
#pragma once

#include <nlohmann/json.hpp>

#include "analysis/analysis.hpp"

namespace noisefloor::results {

// render::summary_document(analysis).
nlohmann::json summary_document(const analysis::Analysis& analysis);

}  // namespace noisefloor::results
