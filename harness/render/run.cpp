#include "render/run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/verdict.hpp"
#include "render/diagnosis.hpp"
#include "render/export.hpp"
#include "render/judge.hpp"
#include "render/paired.hpp"
#include "render/sweep_table.hpp"
#include "render/table.hpp"
#include "text/text.hpp"

namespace noisefloor::render {

// Above the table: the counters this run could not read, each reason once.
std::string counters_missing(const analysis::Diagnosis& d, bool terminal, std::size_t width) {
  std::string out;
  // Markdown: the reasons quote run.json (a result's own words): no link, image or tag of theirs.
  for (const std::string& line : missing_lines(d.missing))
    out += text::wrap(terminal ? line : text::markdown_text(line), terminal ? width : 100000, "", "  ");
  return out.empty() ? out : out + "\n";
}

// Under the table: why the numbers moved.
std::string diagnosis_text(const analysis::Diagnosis& d, bool terminal, std::size_t width) {
  const std::vector<std::string> lines = diagnosis_lines(d);
  if (lines.empty()) return {};
  std::string out =
      terminal ? "\nWhy the numbers moved (this run's counters; association, not proof):\n"
               : "\n## Why the numbers moved\n\nFrom this run's own counters: association, not proof.\n\n";
  const std::size_t w = terminal ? width : 100000;
  const auto shown = [&](const std::string& line) { return terminal ? line : text::markdown_text(line); };
  for (const std::string& line : lines) out += text::wrap(shown(line), w, "- ", "  ");
  return out;
}

std::string run_tables(const analysis::Analysis& a, bool terminal, std::size_t width) {
  std::string out = counters_missing(a.diagnosis, terminal, width);
  out += terminal ? table_text(a.table, width) : table_markdown(a.table);
  out += sweep_tables(a.curves, terminal, width);
  out += diagnosis_text(a.diagnosis, terminal, width);
  if (a.comparison)
    out += (a.comparison->blocks
                ? "\n## Unpaired comparison (variant / baseline, each variant's repeats in a block "
                  "of its own: design: blocks)\n\n"
                : "\n## Paired comparison (variant / baseline, back to back in every repeat)\n\n") +
           paired_markdown(a.paired);
  if (!a.adaptive.empty()) {
    out += "\nsamples: auto (adaptive stopping; CIs after optional stopping are approximate):\n";
    for (const auto& [condition, o] : a.adaptive)
      out += fmt::format("- {}: {} after {} samples, 99% half-width {} (target {:.2f}%, stopped by {})\n",
                         condition, o.converged ? "converged" : "NOT converged", o.samples,
                         o.halfwidth ? fmt::format("{:.2f}%", 100 * *o.halfwidth) : "—", 100 * o.target,
                         model::name_of(o.stopped_by));
  }
  if (a.judgement) {
    const std::string unit = a.table.rows.empty() ? "" : a.table.rows.front().unit;
    out += terminal ? judgement_text(*a.judgement, unit) : judgement_markdown(*a.judgement, unit);
  }
  return out;
}

std::string table_md(const analysis::Analysis& a) {
  const records::Result& r = a.sources.front();
  // The experiment's name and description, read back from a result: no link, image or tag.
  std::string md = fmt::format("# {}\n\n", text::markdown_text(r.experiment()));
  if (!r.description().empty()) md += text::markdown_text(r.description()) + "\n\n";
  md += text::markdown_cell(source_line(r)) + "\n\n";  // the host's facts come from the machine
  return md + run_tables(a, false);
}

std::string anchor_text(const analysis::Anchor& a) {
  std::string out = fmt::format("anchor: {} (condition '{}', its baseline{})\n", a.source, a.condition,
                                a.baseline.empty() ? "" : " '" + a.baseline + "'");
  for (const auto& d : a.moving)
    out += fmt::format("  warning: not the same room: {} differs ({} vs {})\n", d.field, d.a, d.b);
  // Each sample of this run's baseline over the anchor's median: their range, and a word only when
  // every sample says it.
  for (const auto& r : a.rows) {
    // Two decimals, more (up to 4) when two would print a range that is wholly on one side of 1
    // as ending at 1.00 ("0.99–1.00×: faster in every sample").
    int decimals = 2;
    const auto touches_one = [&](double v) {
      return fmt::format("{:.{}f}", v, decimals) == fmt::format("{:.{}f}", 1.0, decimals);
    };
    while (decimals < 4 && ((r.hi < 1 && touches_one(r.hi)) || (r.lo > 1 && touches_one(r.lo)))) ++decimals;
    // The words follow the unit's direction: a throughput above the anchor is faster.
    const stats::Verdict above = stats::Verdict::slower, below = stats::Verdict::faster;
    const std::string up(to_string(analysis::verdict_word(above, r.unit))),
        down(to_string(analysis::verdict_word(below, r.unit)));
    out += fmt::format("  {} / {}: baseline / anchor {:.{}f}–{:.{}f}× (median {:.{}f}×): {}\n", r.condition,
                       r.benchmark, r.lo, decimals, r.hi, decimals, r.median, decimals,
                       r.lo > 1   ? up + " than the anchor in every sample"
                       : r.hi < 1 ? down + " than the anchor in every sample"
                                  : fmt::format("sometimes {}, sometimes {} than the anchor", down, up));
  }
  if (a.rows.empty())
    out += fmt::format(
        "  nothing compared: no benchmark of the anchor's '{}'{} is in this run (anchor: {}; this "
        "run: {}): give an anchor run of the same benchmark\n",
        a.condition, a.baseline.empty() ? "" : " baseline '" + a.baseline + "'",
        a.anchor_benchmarks.empty() ? "none" : fmt::format("{}", fmt::join(a.anchor_benchmarks, ", ")),
        a.run_benchmarks.empty() ? "none" : fmt::format("{}", fmt::join(a.run_benchmarks, ", ")));
  return out;
}

}  // namespace noisefloor::render
