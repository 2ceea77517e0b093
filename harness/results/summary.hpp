// The on-disk schema, summary side: summary.json, the table and comparisons as data. Written by
// every run and printed by `noisefloor report --format json`, from the same analysis. Pure.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/analysis.hpp"

namespace noisefloor::results {

inline constexpr int kSummarySchemaVersion = 1;
inline constexpr int kCvSchemaVersion = 1;

// {"schema_version": 1,
//  "experiment": {"name", "description", "file"}, "run": {"id", "status", "started_utc",
//  "finished_utc"}   (of the first source),
//  "table": analysis::Table, "warnings": [...],
//  "paired": [PairedRow...], "aa": [AaRow...], "comparison": {"baseline", "aa", "threshold"}
//                    (paired experiments only),
//  "adaptive": {condition: AdaptiveOutcome}  (samples: auto only),
//  "accounting": [analysis::ConditionAccounting...]  (runs that recorded launcher overhead,
//                    container throttling or spinner shares),
//  "claims": analysis::Judgement  (a run that recorded claims or a reference: verdicts, the
//                    published table beside this run),
//  "sources": [labels]  (merged results only)}
nlohmann::json summary_document(const analysis::Analysis& analysis);

// What `noisefloor cv --format json` prints: {"schema_version": 1, "sources": [the paths as
// given], "table": analysis::Table, "comparable": Analysis::comparable(), "differences" (merged
// results whose fingerprints differ: [{"sources": [the first, the other], "field", "values":
// [the first's, the other's], "moves_benchmarks"}], as compare's JSON has them), "accounting" and
// "claims" (as summary.json's)}. Its table is summary.json's table.
nlohmann::json cv_document(const analysis::Analysis& analysis, const std::vector<std::string>& given_paths);

}  // namespace noisefloor::results
