#include "render/diagnosis.hpp"

#include <fmt/format.h>

#include <cmath>

#include "text/text.hpp"

namespace noisefloor::render {

namespace {

using analysis::Factor;

// A factor's value as shown: a time in s or ms, a count (millions as M).
std::string amount(const Factor& f, double v) {
  if (f.time) {
    if (v >= 1) return fmt::format("{:.2f} s", v);
    const double ms = v * 1e3;
    return ms >= 100 ? fmt::format("{:.0f} ms", ms)
           : ms >= 1 ? fmt::format("{:.1f} ms", ms)
                     : fmt::format("{:.2f} ms", ms);
  }
  if (v >= 1e6) return fmt::format("{:.3g}M", v / 1e6);
  return fmt::format("{:.0f}", v);
}

// A time as a share of the benchmark's wall time too: "25.3 s (91% of its wall time)".
std::string shown(const Factor& f, double v, double wall, bool first) {
  if (!f.time || !(wall > 0)) return amount(f, v);
  const double percent = 100 * v / wall;
  const std::string p = percent >= 10  ? fmt::format("{:.0f}%", percent)
                        : percent >= 1 ? fmt::format("{:.1f}%", percent)
                                       : fmt::format("{:.2g}%", percent);
  return fmt::format("{} ({}{})", amount(f, v), p, first ? " of its wall time" : "");
}

std::string ratio_words(double slow, double fast) {
  if (fast > 0 && slow / fast >= 1.05) return fmt::format("{:.2g}× as much as", slow / fast);
  if (slow > 0 && fast / slow >= 1.05) return fmt::format("{:.2g}× less than", fast / slow);
  return "about as much as";
}

}  // namespace

std::string untested_text(const analysis::Untested& u) {
  if (u.invocations <= 1)
    return fmt::format(
        "its {} samples came from one invocation, which has one reading of each factor (samples_per_run: 1 "
        "gives every sample its own)",
        u.samples);
  return fmt::format("{} invocations (at least {} are needed to rank them)", u.invocations,
                     analysis::kMinInvocations);
}

std::string contrast_text(const analysis::Contrast& c) {
  if (c.changed.empty())
    return fmt::format("{}: no recorded factor differs from {} by 3× or more", text::line_label(c.condition),
                       text::line_label(c.base));
  std::string joined;
  for (const analysis::LevelChange& change : c.changed) {
    const Factor& f = analysis::factor_named(change.key);
    joined += joined.empty() ? "" : "; ";
    joined += change.base_level
                  ? fmt::format("{} {} against {}", f.words, shown(f, change.level, c.wall, true),
                                shown(f, *change.base_level, c.base_wall, false))
                  : fmt::format("{} {} (not recorded in {})", f.words, shown(f, change.level, c.wall, true),
                                c.base);
  }
  return fmt::format("{} against {}, per invocation (median): {}", text::line_label(c.condition),
                     text::line_label(c.base), joined);
}

std::string within_text(const analysis::ConditionDiagnosis& cd) {
  if (cd.tried == 0)
    return cd.untested ? fmt::format("{}: not ranked within: {}", text::line_label(cd.condition),
                                     untested_text(*cd.untested))
                       : "";
  const analysis::FactorLink* best = cd.telling();
  if (!best)
    return fmt::format(
        "{}: no recorded factor goes with the spread of its {} invocations ({} factor{} tried, none with "
        "adjusted p < {} and a difference past its floor)",
        text::line_label(cd.condition), cd.invocations, cd.tried, cd.tried == 1 ? "" : "s",
        analysis::kLinkAlpha);
  const Factor& f = analysis::factor_named(best->key);
  const double rho = best->association.rho;
  return fmt::format(
      "{} / {}: its slower invocations had {} {} (Spearman ρ = {:+.2f}, permutation p = {:.2g} adjusted for "
      "{} factor{}, n = {}): {} per invocation in the slowest quarter, {} the fastest quarter ({})",
      text::line_label(cd.condition), best->row, rho > 0 ? "more" : "less", f.words, rho, best->p_adjusted,
      cd.tried, cd.tried == 1 ? "" : "s", best->association.n, amount(f, best->slow_quarter),
      ratio_words(best->slow_quarter, best->fast_quarter), amount(f, best->fast_quarter));
}

std::vector<std::string> missing_lines(const analysis::CountersMissing& missing) {
  std::vector<std::string> out;
  for (const analysis::CounterGap& g : missing.gaps)
    out.push_back(fmt::format("not counted{}{}: {}: {}", g.conditions.empty() ? "" : " in ",
                              fmt::join(g.conditions, ", "),
                              g.all ? "no counter" : fmt::format("{}", fmt::join(g.counters, ", ")), g.why));
  for (const auto& [condition, note] : missing.multiplexed)
    out.push_back(fmt::format("condition '{}': {}", condition, note));
  if (missing.user_only)
    out.push_back(
        "counters count user space only: kernel.perf_event_paranoid allows no more without CAP_PERFMON "
        "(context switches and kernel time are not in them)");
  return out;
}

std::vector<std::string> diagnosis_lines(const analysis::Diagnosis& d) {
  std::vector<std::string> out;
  for (const analysis::Contrast& c : d.contrasts) out.push_back(contrast_text(c));
  for (const analysis::ConditionDiagnosis& cd : d.conditions)
    if (std::string line = within_text(cd); !line.empty()) out.push_back(std::move(line));
  return out;
}

}  // namespace noisefloor::render
