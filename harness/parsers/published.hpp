// Readers of published tables (`reference:`): text in, model::PublishedTable out. Pure.
//
//   cv-summary   the demo's cv-summary.txt (and noisefloor's): `#` header lines, then per
//                condition `## <condition>`, a column line starting with `benchmark`, and rows
//                `<name> <runs> <mean> <stddev> <CV%>` (whitespace-separated; the unit is read
//                from the column line's `mean <unit>`).
//   markdown     the first pipe table whose header names a condition column and a mean or CV
//                column; columns are found by their header (case-insensitive): condition,
//                benchmark|name, n|runs|count, mean [unit], stddev|sd, cv|cv%, median, min, max.
//                A cell's number is its first number ("24.92 ± 73.4%" is 24.92, "4.75%" is 4.75);
//                an empty cell or "—" is unknown. noisefloor's `cv --format markdown` and the
//                demo's published table both read.
//   summary.json a noisefloor summary.json: its table's rows and their summaries.
// parse_published() picks the format from the text: `{` opens JSON, a `## ` line a cv-summary,
// a `|` line a markdown table. Errors are ParseError with the line ("line 7: ...").
#pragma once

#include <string_view>

#include "model/published.hpp"

namespace noisefloor::parsers {

model::PublishedTable parse_cv_summary(std::string_view text);
model::PublishedTable parse_markdown_table(std::string_view text);
model::PublishedTable parse_summary_json(std::string_view text);
model::PublishedTable parse_published(std::string_view text);

}  // namespace noisefloor::parsers
