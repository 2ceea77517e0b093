#include "render/paired.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "render/warnings.hpp"
#include "text/text.hpp"

namespace noisefloor::render {
namespace {

std::string ratio(double r) { return std::isfinite(r) ? fmt::format("{:.4f}", r) : "∞"; }
std::string cell(std::string_view s) { return text::markdown_cell(s); }

// Each row's paired-test caveats, "<condition> / <benchmark> / <variant>: <sentence>", then the
// table's own notes.
std::vector<std::string> notes(const analysis::PairedTable& t) {
  std::vector<std::string> out;
  for (const auto& r : t.rows)
    for (const auto& w : r.paired.warnings)
      out.push_back(fmt::format("{} / {} / {}: {}", text::line_label(r.condition),
                                text::line_label(r.benchmark), r.variant, test_warning_text(w)));
  for (const auto& s : t.skipped)
    out.push_back(fmt::format("{} / {} / {}: not compared: {}", text::line_label(s.condition),
                              text::line_label(s.benchmark), s.variant, s.error));
  std::set<std::string> failed;  // conditions whose A/A check did not pass
  for (const auto& a : t.aa)
    if (a.check.outcome != stats::AaOutcome::pass) failed.insert(a.condition);
  for (const auto& c : failed)
    out.push_back(fmt::format("{}: the A/A check failed, so every verdict in this condition is untrustworthy",
                              text::line_label(c)));
  return out;
}

}  // namespace

std::string paired_markdown(const analysis::PairedTable& t) {
  std::string out;
  // One table per label: numbers measured in different rooms are never put side by side.
  std::vector<analysis::Label> labels;
  for (const auto& r : t.rows)
    if (std::find(labels.begin(), labels.end(), r.label) == labels.end()) labels.push_back(r.label);
  for (const auto& label : labels) {
    out += fmt::format("**{}**\n\n", to_string(label));
    out +=
        "| condition | benchmark | variant / baseline | n | median ratio (min–max) | GM ratio [95% CI] | "
        "p (Wilcoxon) | order | verdict |\n";
    out += "|:--|:--|:--|--:|--:|--:|--:|:--|:--|\n";
    for (const auto& r : t.rows) {
      if (r.label != label) continue;
      if (r.unpaired) {
        out += fmt::format(
            "| {} | {} | {} / {} | {}+{} | {} (ratio of medians) | {} {} (Hodges–Lehmann) | {:.3g} "
            "(Mann–Whitney) | separate blocks | {} |\n",
            cell(r.condition), cell(r.benchmark), cell(r.variant), cell(r.baseline), r.n_variant, r.n_base,
            ratio(r.median_ratio), ratio(r.hl.estimate), text::interval(ratio(r.hl.lo), ratio(r.hl.hi)),
            r.p_mann_whitney, to_string(r.verdict_word()));
        continue;
      }
      const auto& p = r.paired;
      std::string verdict = std::string(to_string(r.verdict_word()));
      if (r.aa) {
        for (const auto& a : t.aa)
          if (a.condition == r.condition && a.benchmark == r.benchmark)
            verdict = std::string(stats::to_string(a.check.outcome));
      } else if (!r.trustworthy) {
        verdict += " (untrustworthy: A/A failed)";
      }
      const int ab = static_cast<int>(std::count(r.order.begin(), r.order.end(), model::PairOrder::ab));
      out += fmt::format("| {} | {} | {} / {} | {} | {} ({}–{}) | {} {} | {} | {}×AB {}×BA{} | {} |\n",
                         cell(r.condition), cell(r.benchmark), cell(r.variant), cell(r.baseline),
                         p.ratios.size(), ratio(p.median), ratio(p.min), ratio(p.max), ratio(p.gm),
                         text::interval(ratio(p.gm_lo), ratio(p.gm_hi)),
                         std::isfinite(p.p_wilcoxon) ? fmt::format("{:.3g}", p.p_wilcoxon) : "—", ab,
                         static_cast<int>(r.order.size()) - ab,
                         p.order_effect_p ? fmt::format(", p={:.2f}", *p.order_effect_p) : "", verdict);
    }
    out += "\n";
  }
  if (!t.aa.empty()) {
    out += "A/A: the baseline against itself in the same protocol; PASS needs its 95% CI inside ±θ.\n";
    for (const auto& a : t.aa)
      out +=
          fmt::format("- {} / {}: {} — GM {} {}, band ±{:.1f}%, noise floor ±{:.2f}% (max |r−1| {:.2f}%)\n",
                      a.condition, a.benchmark, stats::to_string(a.check.outcome), ratio(a.check.gm),
                      text::interval(ratio(a.check.gm_lo), ratio(a.check.gm_hi)), 100 * a.theta,
                      100 * a.check.halfwidth, 100 * a.check.max_abs_dev);
  }
  for (const auto& n : notes(t)) out += "- " + text::markdown_text(n) + "\n";
  return out;
}

}  // namespace noisefloor::render
