// Claims and the published reference as text, markdown and HTML (analysis/judge.hpp). Pure.
#pragma once

#include <string>
#include <vector>

#include "analysis/judge.hpp"

namespace noisefloor::render {

// One line: "claims: 3 reproduced, 1 not reproduced, 0 inconclusive (of 4)".
std::string judgement_headline(const analysis::Judgement& j);
// For terminals (at most 80 columns where the claims allow): the verdict of each claim with its
// estimates and intervals, then the published table beside this run's rows. `unit` of the rows.
std::string judgement_text(const analysis::Judgement& j, const std::string& unit);
// The same as markdown: a list of verdicts and a table beside the published one.
std::string judgement_markdown(const analysis::Judgement& j, const std::string& unit);
// An HTML section (no page around it) for the top of report.html.
std::string judgement_html(const analysis::Judgement& j, const std::string& unit);
// Why a claim or a statistic cannot be judged, in words: "cv(one) needs n ≥ 2 (it has 1)".
std::string undefined_text(const claims::Undefined& u);
// What the published table beside this run needs said: a published stddev or CV for n < 2
// (dropped), a published row that matches none of this run's.
std::vector<std::string> judgement_notes(const analysis::Judgement& j);

}  // namespace noisefloor::render
