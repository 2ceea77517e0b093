#include "analysis/anchor.hpp"

#include <algorithm>
#include <map>

#include "stats/summary.hpp"

namespace noisefloor::analysis {

Anchor compare_with_anchor(const records::Result& run, const records::Result& anchor) {
  Anchor a;
  a.source = anchor.source;
  const auto comparison = run.comparison();
  a.baseline = comparison ? comparison->baseline : "";
  if (anchor.run)
    for (const auto& rec : anchor.run->condition_records)
      if (!rec.setup.spinners) {
        a.condition = rec.condition;
        break;
      }
  if (a.condition.empty() && !anchor.conditions.empty()) a.condition = anchor.conditions.front();
  std::map<std::string, std::vector<double>> anchor_values;  // benchmark -> values
  for (const auto& s : anchor.samples)
    if (s.condition == a.condition && !s.warmup && s.variant == a.baseline && !s.metrics.empty())
      anchor_values[s.benchmark].push_back(s.metrics.front().value);
  for (auto& d : differences(anchor.fingerprint, run.fingerprint))
    if (d.moves_benchmarks) a.moving.push_back(std::move(d));
  for (const auto& c : run.conditions)
    for (const auto& [bench, values] : anchor_values) {
      const double ref = stats::median(values);
      std::vector<double> ratios;
      for (const auto& s : run.samples)
        if (s.condition == c && s.benchmark == bench && s.variant == a.baseline && !s.warmup && !s.metrics.empty())
          ratios.push_back(s.metrics.front().value / ref);
      if (ratios.empty()) continue;
      std::sort(ratios.begin(), ratios.end());
      a.rows.push_back({c, bench, ratios.front(), ratios.back(), stats::median(ratios)});
    }
  if (a.rows.empty()) {
    for (const auto& [bench, values] : anchor_values) a.anchor_benchmarks.push_back(bench);
    for (const auto& s : run.samples)
      if (s.variant == a.baseline && !s.warmup &&
          std::find(a.run_benchmarks.begin(), a.run_benchmarks.end(), s.benchmark) == a.run_benchmarks.end())
        a.run_benchmarks.push_back(s.benchmark);
  }
  return a;
}

}  // namespace noisefloor::analysis
