// The sentences of the statistics' typed warnings, written here and nowhere else: a summary's
// (stats::SummaryWarning) and a table's row notes made of them. Pure.
#pragma once

#include <string>
#include <vector>

#include "analysis/table.hpp"
#include "stats/summary.hpp"

namespace noisefloor::render {

// A lower-case sentence fragment: "n=5 < 6: no 95% median CI", "drift: lag-1 autocorrelation 0.70
// > 0.63", "1 of 7 samples are outliers (|modified z| > 3.5), 0 of them extreme (> 10)".
std::string summary_warning_text(const stats::SummaryWarning& warning);
// Every sentence of `warnings`, in order.
std::vector<std::string> summary_warning_texts(const std::vector<stats::SummaryWarning>& warnings);

// A table's notes as every rendering shows them: each row's summary warnings, "<condition> /
// <name>: <sentence>" (analysis::note_where), but the missing median CI, which the row's cell
// shows ("± ∞ (n<6)"); then the table's own notes.
std::vector<std::string> table_notes(const analysis::Table& table);

}  // namespace noisefloor::render
