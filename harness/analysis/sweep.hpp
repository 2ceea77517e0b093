// Sweeps as curves: the points of one swept condition (model/sweep.hpp) put back in order, one
// curve per benchmark (and per value of the other swept settings), each point with its median
// and 95% CI and its CV with a bootstrap interval, and the knee (harness/stats/README.md §3.16).
// Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/table.hpp"
#include "model/sweep.hpp"
#include "stats/summary.hpp"

namespace noisefloor::analysis {

struct CurvePoint {
  std::string condition;
  std::string value;        // the axis setting's value as shown ("2", "0.5", "all")
  std::optional<double> x;  // on a numeric axis
  std::size_t n = 0;
  double median = stats::kNaN;
  std::optional<stats::Interval> median_ci;  // benchstat's 95% median CI (Summary::median_ci)
  std::optional<double> cv_pct;              // nullopt: n < 2 or a mean that is not positive
  std::optional<stats::Interval> cv_ci;      // percent; the seeded percentile bootstrap (§3.11)
  stats::Band band = stats::Band::insufficient;
  Label room = Label::unknown;  // the condition's room label
};

struct Curve {
  std::string group;      // the condition the file wrote with {sweep: ...}
  std::string parameter;  // the axis: the group's first swept setting
  std::string series;     // the other settings of its points ("affinity=none"), "" for one sweep
  std::string benchmark;  // the row's name without its -N suffix (with it when a point has several)
  std::string unit;
  bool numeric = false;            // every point has a number: the axis is to scale
  std::vector<CurvePoint> points;  // in the file's order; the first is the reference
  // The first point past the reference whose median leaves the reference's 95% median CI, or
  // whose CV band is worse than the reference's (index into `points`, and which of the two);
  // nullopt: none, or it cannot be placed. render::knee_text says it in words, or why there is none.
  std::optional<stats::Knee> knee;
};

// One curve per (group, other settings, benchmark) of the table's primary rows whose condition
// is a sweep's point (table.sweeps), in the order the rows come. `seed`: of the CV intervals.
std::vector<Curve> sweep_curves(const Table& table, std::uint64_t seed = 1, int resamples = 2000);

// The swept parameters of the table, in first-seen order (the columns exports add).
std::vector<std::string> sweep_parameters(const Table& table);

}  // namespace noisefloor::analysis
