#include "analysis/anchor.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "analysis/table.hpp"
#include "model/go_config.hpp"
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
  std::set<std::string> keys = distinguishing_keys(anchor.samples);
  keys.merge(distinguishing_keys(run.samples));
  // A benchmark as matched and shown: its name, and the configuration that tells it apart.
  const auto shown = [&keys](const records::SampleRef& s) {
    return row_name(s.benchmark, model::config_label(model::config_only(s.config, keys)));
  };
  std::map<std::string, std::vector<double>> anchor_values;  // benchmark -> values
  std::map<std::string, std::string> units;                  // benchmark -> its primary unit
  for (const auto& s : anchor.samples)
    if (s.condition == a.condition && !s.warmup && s.variant == a.baseline && !s.metrics.empty()) {
      anchor_values[shown(s)].push_back(s.metrics.front().value);
      units.emplace(shown(s), s.metrics.front().unit);
    }
  for (auto& d : differences(anchor.fingerprint, run.fingerprint))
    if (d.moves_benchmarks) a.moving.push_back(std::move(d));
  for (const auto& c : run.conditions)
    for (const auto& [bench, values] : anchor_values) {
      const double ref = stats::median(values);
      std::vector<double> ratios;
      for (const auto& s : run.samples)
        if (s.condition == c && s.variant == a.baseline && !s.warmup && !s.metrics.empty() &&
            shown(s) == bench)
          ratios.push_back(s.metrics.front().value / ref);
      if (ratios.empty()) continue;
      std::sort(ratios.begin(), ratios.end());
      a.rows.push_back({c, bench, units[bench], ratios.front(), ratios.back(), stats::median(ratios)});
    }
  if (a.rows.empty()) {
    for (const auto& [bench, values] : anchor_values) a.anchor_benchmarks.push_back(bench);
    std::set<std::string> listed;
    for (const auto& s : run.samples)
      if (s.variant == a.baseline && !s.warmup && listed.insert(shown(s)).second)
        a.run_benchmarks.push_back(shown(s));
  }
  return a;
}

}  // namespace noisefloor::analysis
