// The sentences of the statistics' typed warnings, written here and nowhere else: a summary's
// (stats::SummaryWarning), a test's (stats::TestWarning), a
// comparison row's (analysis::CompareWarning), and the notes of the tables made of them. Pure.
#pragma once

#include <string>
#include <vector>

#include "analysis/analysis.hpp"
#include "analysis/compare.hpp"
#include "analysis/table.hpp"
#include "records/fleet.hpp"
#include "records/result.hpp"
#include "records/run.hpp"
#include "stats/compare.hpp"
#include "stats/summary.hpp"

namespace noisefloor::render {

// A lower-case sentence fragment: "n=5 < 6: no 95% median CI", "drift: lag-1 autocorrelation 0.70
// > 0.63", "1 of 7 samples are outliers (|modified z| > 3.5), 0 of them extreme (> 10)".
std::string summary_warning_text(const stats::SummaryWarning& warning);
// Every sentence of `warnings`, in order.
std::vector<std::string> summary_warning_texts(const std::vector<stats::SummaryWarning>& warnings);

// A comparison test's caveat (stats::TestWarning), a lower-case sentence fragment: "n=3 vs 3: the
// minimum attainable p is 0.1 > 0.05: no difference can ever be significant at these sizes (...)".
std::string test_warning_text(const stats::TestWarning& warning);

// A comparison row's caveat (analysis::CompareWarning), e.g. "ties: 4 of 20 values share a value;
// exact p conditional on the ties"; and every one of the row's, in order.
std::string compare_warning_text(const analysis::CompareRow& row, const analysis::CompareWarning& warning);
std::vector<std::string> compare_warning_texts(const analysis::CompareRow& row);

// A table's notes as every rendering shows them: each row's summary warnings, "<condition> /
// <name>: <sentence>" (analysis::note_where), but the missing median CI, which the row's cell
// shows ("± ∞ (n<6)"); then GOMAXPROCS differing between rows (Table::mixed_procs); then the
// table's own notes.
std::vector<std::string> table_notes(const analysis::Table& table);

// A run's warning (records::RunWarning) as the run prints it and run.json's readers show it:
// "condition 'busy', run 3 of 10: benchmark BenchmarkX failed", "container 'nf-…' was left: …".
std::string run_warning_text(const records::RunWarning& warning);

// That a later run replaced `run`'s figures: "SUPERSEDED: this run's figures were replaced by
// PATH (experiment E, run R, started T); `noisefloor errata --old RUN --new PATH` finds where they
// were quoted". As markdown, a quote that leads with the word: "> **SUPERSEDED**: this run's ...".
std::string superseded_text(const records::Result& run, const records::Superseder& by);
std::string superseded_markdown(const records::Result& run, const records::Superseder& by);

// A host of a run on several hosts that left no results (results::Fleet::missing), with how its
// run ended: "quiet-box: no results (failed: cannot reach the engine)".
std::string missing_host_text(const records::FleetHost& host);

// An analysis's warning (analysis::Warning): its source's label first when it has one; and every
// one of the analysis's, in order, after the sources' supersessions (superseded_text).
std::string warning_text(const analysis::Warning& warning);
std::vector<std::string> warning_texts(const analysis::Analysis& analysis);

}  // namespace noisefloor::render
