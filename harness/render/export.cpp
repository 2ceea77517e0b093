#include "render/export.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "model/errors.hpp"
#include "render/json.hpp"
#include "render/judge.hpp"
#include "render/sweep_table.hpp"
#include "render/table.hpp"
#include "render/warnings.hpp"
#include "text/text.hpp"

namespace noisefloor::render {
namespace {

using text::markdown_cell;

std::string paired_rows(const analysis::Analysis& a) {
  const bool blocks = a.comparison && a.comparison->blocks;
  std::string out =
      (blocks
           ? std::string(
                 "\n## Unpaired comparisons (design: blocks)\n\nEach variant's repeats ran in a block of its "
                 "own: no per-repeat ratios (gm —); the verdict comes from the Hodges–Lehmann ratio.\n\n")
           : std::string(
                 "\n## Paired comparisons\n\nratio = variant / baseline per repeat; gm = geometric mean "
                 "with its 95% CI.\n\n")) +
      "| condition | benchmark | baseline | variant | label | gm | gm 95% CI | median | verdict | "
      "trustworthy |\n"
      "|:--|:--|:--|:--|:--|--:|--:|--:|:--|:--|\n";
  for (const auto& r : a.paired.rows) {
    // Separate blocks have no per-repeat ratios: no geometric mean, no median ratio.
    const double gm = r.unpaired ? NAN : r.paired.gm;
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", markdown_cell(r.condition),
                       markdown_cell(r.benchmark), markdown_cell(r.baseline),
                       markdown_cell(r.aa ? "A/A" : r.variant),
                       markdown_cell(std::string(to_string(r.label))), text::fixed(gm, 4),
                       r.unpaired ? std::string(text::kDash) : text::interval(r.paired.gm_lo, r.paired.gm_hi),
                       text::fixed(r.unpaired ? NAN : r.paired.median, 4), to_string(r.verdict_word()),
                       r.trustworthy ? "yes" : "no");
  }
  return out;
}

std::string aa_rows(const analysis::Analysis& a) {
  std::string out =
      "\n## A/A checks\n\nThe baseline against itself: its ratios should stay within 1 ± θ.\n\n"
      "| condition | benchmark | outcome | gm 95% CI | median ratio | max abs dev | θ |\n"
      "|:--|:--|:--|--:|--:|--:|--:|\n";
  for (const auto& r : a.paired.aa)
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", markdown_cell(r.condition),
                       markdown_cell(r.benchmark), stats::to_string(r.check.outcome),
                       text::interval(r.check.gm_lo, r.check.gm_hi), text::fixed(r.check.median_ratio, 4),
                       text::fixed(r.check.max_abs_dev, 4), text::fixed(r.theta, 4));
  return out;
}

std::string differences(const analysis::Analysis& a) {
  std::string out = "\n## Fingerprint differences\n\n";
  if (a.differences.empty())
    out += "The fingerprints agree (volatile fields such as load aside).\n";
  else if (!a.comparable())
    out +=
        "**Not comparable**: the results come from hosts or toolchains that differ in fields that move "
        "benchmarks (marked ⚠). Pass --allow-different-hosts to compare them anyway.\n\n";
  else if (a.allow_different_hosts)
    out += "Compared anyway (--allow-different-hosts).\n\n";
  if (a.differences.empty()) return out;
  out += fmt::format("| field | {} | other | source | moves benchmarks |\n|:--|:--|:--|:--|:--|\n",
                     markdown_cell(a.sources.front().label));
  for (std::size_t i = 0; i < a.differences.size(); ++i) {
    const auto& x = a.differences[i];
    out += fmt::format("| {} | {} | {} | {} | {} |\n", markdown_cell(x.field), markdown_cell(x.a),
                       markdown_cell(x.b), markdown_cell(a.sources[a.difference_source[i]].label),
                       x.moves_benchmarks ? "⚠ yes" : "no");
  }
  return out;
}

std::string markdown(const analysis::Analysis& a) {
  std::string out = fmt::format("# {}\n\n", text::markdown_text(a.title()));
  const std::string description = a.sources.front().description();
  if (!description.empty()) out += text::markdown_text(description) + "\n\n";
  if (a.merged) {
    for (const auto& s : a.sources)
      out += fmt::format("- {}: {}\n", markdown_cell(s.label), markdown_cell(source_line(s)));
    out += "\n";
  } else {
    out += markdown_cell(source_line(a.sources.front())) + "\n\n";  // facts the machine gave
  }
  out += table_markdown(a.table);
  out += sweep_tables(a.curves, false);
  if (a.judgement)
    out += judgement_markdown(*a.judgement, a.table.rows.empty() ? "" : a.table.rows.front().unit);
  if (!a.paired.rows.empty()) out += paired_rows(a);
  if (!a.paired.aa.empty()) out += aa_rows(a);
  if (a.merged) out += differences(a);
  if (const auto warnings = warning_texts(a); !warnings.empty()) {
    out += "\n## Warnings\n\n";
    for (const auto& w : warnings) out += "- " + text::markdown_text(w) + "\n";
  }
  return out;
}

std::string gotest(const analysis::Analysis& a) {
  // benchstat groups results into tables by every file-level key (.config): keys whose value is
  // the same for every condition stay keys (written once, they hold for the whole stream),
  // `condition` is the one key that changes, and what sets a condition apart (spinners,
  // container-*, ...) is written as `# key: value` comments, which benchstat ignores. So
  // `benchstat -col condition FILE` prints one table, the conditions side by side.
  std::vector<records::GoTestConfig> configs;
  for (const auto& c : a.table.conditions) {
    const auto it = a.gotest_config.find(c);
    records::GoTestConfig config;
    if (it != a.gotest_config.end())
      for (const auto& kv : it->second)
        if (kv.first != "condition") config.push_back(kv);
    configs.push_back(std::move(config));
  }
  const auto shared = [&](const std::pair<std::string, std::string>& kv) {
    return std::all_of(configs.begin(), configs.end(), [&](const records::GoTestConfig& other) {
      return std::find(other.begin(), other.end(), kv) != other.end();
    });
  };
  std::set<int> procs;
  for (const auto& row : a.table.rows) procs.insert(row.procs.begin(), row.procs.end());
  std::string out = "# The conditions side by side: benchstat -col condition FILE\n";
  if (procs.size() > 1)
    out += fmt::format(
        "# GOMAXPROCS differs between conditions ({}): the rows differ by their -N suffix; one row "
        "each: benchstat -col condition -ignore /gomaxprocs FILE (then compare CVs, not means)\n",
        fmt::join(procs, ", "));
  if (!configs.empty())
    for (const auto& kv : configs.front())
      if (shared(kv)) out += fmt::format("{}: {}\n", kv.first, kv.second);
  // The units' metadata, as the inputs said it (benchstat reads `Unit` lines too).
  for (const auto& [unit, keys] : a.units.units) {
    out += "Unit " + unit;
    for (const auto& [key, value] : keys) out += " " + key + "=" + value;
    out += "\n";
  }
  std::map<std::string, std::string> in_force;  // the samples' configuration, across conditions
  for (std::size_t i = 0; i < a.table.conditions.size(); ++i) {
    const std::string& c = a.table.conditions[i];
    records::GoTestConfig setup;
    for (const auto& kv : configs[i])
      if (!shared(kv)) setup.push_back(kv);
    out += fmt::format("\n# condition {}{}\n", c, setup.empty() ? "" : ":");
    for (const auto& [k, v] : setup) out += fmt::format("#   {}: {}\n", k, v);
    out += gotest_raw(a.samples, c, {{"condition", c}}, false, {}, &in_force);
  }
  return out;
}

std::string summary(const analysis::Analysis& a) {
  std::vector<std::string> header;
  if (a.merged) {
    std::vector<std::string> labels;
    for (const auto& s : a.sources) labels.push_back(s.label);
    header.push_back(
        fmt::format("# CV comparison — merged by noisefloor report: {}", fmt::join(labels, ", ")));
  } else if (a.sources.front().run) {
    header = a.sources.front().run->summary_header;
  } else {
    header.push_back("# CV comparison — recomputed by noisefloor report");
  }
  return summary_blocks(a.table, header);
}

}  // namespace

std::string source_line(const records::Result& s) {
  return fmt::format("{} · run {} · {}", s.fingerprint.host_line(), s.run ? s.run->run_id : s.label,
                     s.run ? std::string(records::to_string(s.run->status)) : "unknown");
}

std::string export_as(const analysis::Analysis& a, model::PrintFormat format) {
  switch (format) {
    case model::PrintFormat::markdown:
      return markdown(a);
    case model::PrintFormat::csv:
      return table_csv(a.table);
    case model::PrintFormat::json:
      return summary_json(a);
    case model::PrintFormat::gotest:
      return gotest(a);
    case model::PrintFormat::summary:
      return summary(a);
    case model::PrintFormat::text:
    case model::PrintFormat::svg:  // files of their own: pipeline's report writes the figures
    case model::PrintFormat::png:
      break;
  }
  throw ConfigError(fmt::format("--format: {} is not an export format", model::name_of(format)));
}

}  // namespace noisefloor::render
