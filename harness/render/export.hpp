// `noisefloor report --format ...`: the analysis as text for pasting elsewhere. Pure.
#pragma once

#include <string>
#include <string_view>

#include "analysis/analysis.hpp"
#include "model/names.hpp"

namespace noisefloor::render {

// Formats:
//   markdown  GitHub-flavoured: "# title", description, one line per source (host · run · status),
//             then the table as markdown — for one result exactly its table.md's table — the
//             claims' verdicts and the published reference beside (a run that has them), and,
//             when present, the paired comparisons, the A/A checks and the fingerprint differences.
//   csv       the table as CSV.
//   json      summary.json (render/json.hpp), recomputed; merged results add "sources".
//   gotest    one Go benchmark stream (benchstat reads it): the `key: value` lines every
//             condition shares, once; then per condition `condition: <name>`, what sets it apart
//             as `# key: value` comments (benchstat ignores them: a key that differs would split
//             its tables), and its kept result lines. `benchstat -col condition FILE` prints the
//             conditions side by side in one table (the stream's first line says so, and how to
//             join rows whose GOMAXPROCS differ).
//   summary   the demo's cv-summary blocks, under the run's recorded header.
// Throws ConfigError for text (not an export).
std::string export_as(const analysis::Analysis& analysis, model::PrintFormat format);

// One line per source: "<host> · run <id> · <status>".
std::string source_line(const records::Result& source);

}  // namespace noisefloor::render
