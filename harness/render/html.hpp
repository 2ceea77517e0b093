// `noisefloor report`: one self-contained HTML page (inline CSS and SVG, no script, no font, no
// network fetch; a Content-Security-Policy of default-src 'none' makes any fetch fail loudly).
// Pure: returns the page; the pipeline writes it.
//
// Sections, in order: header (title, description, date, host in one line, doctor grade, who
// generated it), warnings, the condition table (as table_markdown, bands coloured and labelled,
// flags explained), per benchmark a strip plot (every sample per condition on a shared axis,
// quartile box, median, 95% CI of the median) and a run-order plot (warm-up hollow and shaded),
// plus its samples as a table; the paired comparisons and A/A checks of paired experiments; the
// fingerprint differences when merged ("not comparable" unless allowed); the full fingerprint in
// <details>. Deterministic: the same data gives the same bytes.
#pragma once

#include <string>
#include <string_view>

#include "analysis/analysis.hpp"
#include "render/fleet.hpp"

namespace noisefloor::render {

// `generated_by` names the program in the page ("noisefloor 0.1.0 (2c95392c1134)").
std::string html(const analysis::Analysis& analysis, std::string_view generated_by);
// The same for a run on several hosts: a Hosts facet first, the hosts side by side (render/fleet.hpp).
std::string html(const analysis::Analysis& analysis, std::string_view generated_by,
                 const std::vector<HostColumn>& hosts);
// The report's style sheet (no external assets), for the other pages in its style (the store's).
std::string_view report_style();

}  // namespace noisefloor::render
