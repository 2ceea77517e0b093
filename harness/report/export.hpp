// `noisefloor report --format ...`: the report's content as text for pasting elsewhere. Pure.
#pragma once

#include <string>
#include <string_view>

#include "report/report_data.hpp"

namespace noisefloor::report {

// Formats:
//   markdown  GitHub-flavoured: "# title", description, one line per source (host · run · status),
//             then render_markdown(table) — for one result exactly its table.md — and, when
//             present, the paired comparisons, the A/A checks and the fingerprint differences.
//   csv       render_csv(table).
//   json      the summary.json schema (schema_version 1) with the table recomputed; merged
//             results add "sources" (labels) and concatenate "paired"/"aa".
//   gotest    one Go benchmark stream (benchstat reads it): per condition its `key: value`
//             lines ("condition: <name>" among them; a key an earlier block set and this one
//             lacks is cleared with "key:") then its kept result lines. Try
//             `benchstat -col condition FILE`.
//   summary   render_summary(table, run.json "summary_header"): the demo's cv-summary blocks.
// Throws ConfigError for any other format.
std::string render_export(const ReportData& data, std::string_view format);

}  // namespace noisefloor::report
