// What a run prints when it ends and saves as table.md: the condition table, the paired
// comparison, how adaptive stopping went; and the anchor's lines. Pure.
#pragma once

#include <string>

#include "analysis/analysis.hpp"
#include "analysis/anchor.hpp"

namespace noisefloor::render {

// The table (text in `width` columns when `terminal`, else markdown), then the paired comparison
// and the adaptive stopping outcomes when the run has them.
std::string run_tables(const analysis::Analysis& analysis, bool terminal, std::size_t width = 80);

// Above the table: the counters the run could not read, each reason once ("not counted in
// pinned: no counter: the container's seccomp profile ..."); "" when every counter was read.
std::string counters_missing(const analysis::Diagnosis& diagnosis, bool terminal, std::size_t width = 80);
// Under the table: "Why the numbers moved", the diagnosis's contrasts and within-condition lines.
std::string diagnosis_text(const analysis::Diagnosis& diagnosis, bool terminal, std::size_t width = 80);

// table.md: "# <experiment>", the description, "<host> · run <id> · <status>", run_tables.
std::string table_md(const analysis::Analysis& analysis);

// "anchor: <dir> (condition 'clean', its baseline 'once')", a warning per fingerprint field that
// moves benchmarks and differs, then "  <condition> / <benchmark>: baseline / anchor 1.60–1.90×
// (median 1.75×): slower than the anchor in every sample" per row (a word only when every sample
// agrees), or one line saying that no benchmark matched.
std::string anchor_text(const analysis::Anchor& anchor);

}  // namespace noisefloor::render
