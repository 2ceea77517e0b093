#include "analysis/sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "claims/evaluate.hpp"

namespace noisefloor::analysis {

namespace {

std::string other_settings(const model::SweepPoint& p) {
  std::string out;
  for (std::size_t i = 1; i < p.settings.size(); ++i)
    out += fmt::format("{}{}={}", out.empty() ? "" : ", ", p.settings[i].parameter, p.settings[i].value);
  return out;
}

CurvePoint point_of(const Row& row, const model::SweepPoint& p, const Table& table, std::uint64_t seed,
                    int resamples) {
  CurvePoint c;
  c.condition = row.condition;
  c.value = p.settings.front().value;
  c.x = p.settings.front().number;
  c.n = row.summary.n;
  c.median = row.summary.median;
  c.median_ci = row.summary.median_ci;
  c.cv_pct = row.summary.cv_pct;
  c.band = row.summary.band;
  c.room = table.label_of(row.condition);
  if (c.cv_pct) {
    const claims::Estimate e = claims::estimate(claims::Function::cv, row.values, seed, resamples);
    if (e.defined) c.cv_ci = stats::Interval{100 * e.ci.lo, 100 * e.ci.hi, 0.95};
  }
  return c;
}

void place_knee(Curve& c, const std::vector<const Row*>& rows) {
  std::vector<const stats::Summary*> summaries;
  for (const Row* r : rows) summaries.push_back(&r->summary);
  c.knee = stats::knee_of(summaries);
}

}  // namespace

std::vector<Curve> sweep_curves(const Table& table, std::uint64_t seed, int resamples) {
  std::vector<Curve> curves;
  std::map<std::tuple<std::string, std::string, std::string>, std::size_t> at;
  std::vector<std::vector<const Row*>> rows_of;  // each curve's rows, as its points
  // A row is named without its -N suffix on a curve when every point of its group has one row of
  // that name: a GOMAXPROCS sweep prints BenchmarkX at 1 and BenchmarkX-2 at 2, one benchmark. A
  // group with a point that ran it under several (-test.cpu=1,2) keeps the full names apart.
  const auto base_name = [](const Row& row) {
    return row_name(row.benchmark, row.config_label, row.variant);
  };
  std::map<std::pair<std::string, std::string>, int> per_point;  // (condition, base name) -> rows
  std::set<std::pair<std::string, std::string>> several;         // (group, base name)
  for (const Row& row : table.rows)
    if (const auto it = table.sweeps.find(row.condition); it != table.sweeps.end())
      if (++per_point[{row.condition, base_name(row)}] > 1)
        several.insert({it->second.group, base_name(row)});
  for (const Row& row : table.rows) {
    const auto it = table.sweeps.find(row.condition);
    if (it == table.sweeps.end() || it->second.settings.empty()) continue;
    const model::SweepPoint& p = it->second;
    const std::string series = other_settings(p);
    const std::string name = several.count({p.group, base_name(row)}) ? display_name(row) : base_name(row);
    const auto key = std::make_tuple(p.group, series, name);
    auto found = at.find(key);
    if (found == at.end()) {
      Curve c;
      c.group = p.group;
      c.parameter = p.settings.front().parameter;
      c.series = series;
      c.benchmark = name;
      c.unit = row.unit;
      found = at.emplace(key, curves.size()).first;
      curves.push_back(std::move(c));
      rows_of.emplace_back();
    }
    curves[found->second].points.push_back(point_of(row, p, table, seed, resamples));
    rows_of[found->second].push_back(&row);
  }
  for (std::size_t i = 0; i < curves.size(); ++i) {
    Curve& c = curves[i];
    c.numeric =
        std::all_of(c.points.begin(), c.points.end(), [](const CurvePoint& p) { return p.x.has_value(); });
    place_knee(c, rows_of[i]);
  }
  return curves;
}

std::vector<std::string> sweep_parameters(const Table& table) {
  std::vector<std::string> out;
  for (const auto& condition : table.conditions) {
    const auto it = table.sweeps.find(condition);
    if (it == table.sweeps.end()) continue;
    for (const auto& s : it->second.settings)
      if (std::find(out.begin(), out.end(), s.parameter) == out.end()) out.push_back(s.parameter);
  }
  return out;
}

}  // namespace noisefloor::analysis
