// The on-disk schema, summary side: summary.json, the table and comparisons as data. Written by
// every run and printed by `noisefloor report --format json`, from the same analysis. Pure.
#pragma once

#include <nlohmann/json.hpp>

#include "analysis/analysis.hpp"

namespace noisefloor::results {

inline constexpr int kSummarySchemaVersion = 1;

// {"schema_version": 1,
//  "experiment": {"name", "description", "file"}, "run": {"id", "status", "started_utc",
//  "finished_utc"}   (of the first source),
//  "table": analysis::Table, "warnings": [...],
//  "paired": [PairedRow...], "aa": [AaRow...], "comparison": {"baseline", "aa", "threshold"}
//                    (paired experiments only),
//  "adaptive": {condition: AdaptiveOutcome}  (samples: auto only),
//  "sources": [labels]  (merged results only)}
nlohmann::json summary_document(const analysis::Analysis& analysis);

}  // namespace noisefloor::results
