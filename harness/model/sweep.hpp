// Sweeps: one condition of the experiment file written with `{sweep: [...]}` in place of a value
// becomes one condition per point (config/experiment_file.cpp expands them). A point remembers
// where it came from, so that tables, plots and claims can put the points back on a curve.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace noisefloor::model {

// One swept setting at one point: `spinners` = `2`.
struct SweepSetting {
  std::string parameter;         // as shown: the setting's key ("spinners", "cpus", "GOMAXPROCS")
  std::string value;             // as shown: "2", "0.5", "all", "none", a label the file gave
  std::optional<double> number;  // the value on a numeric axis (all: the CPUs it meant); nullopt: a category
  friend bool operator==(const SweepSetting&, const SweepSetting&) = default;
};

// Where a condition sits in its sweep: the condition the file wrote (`group`), its settings in
// the file's order (the first is the curve's axis, the others split it into lines), and its
// position among the group's points (0 is the reference point the knee is measured against).
struct SweepPoint {
  std::string group;
  std::vector<SweepSetting> settings;
  int index = 0;
  friend bool operator==(const SweepPoint&, const SweepPoint&) = default;
};

// "spinners=2, cpus=0.5"
std::string settings_text(const SweepPoint& point);
// How a claim names the point: "noisy[spinners=2,cpus=0.5]".
std::string claim_name(const SweepPoint& point);

}  // namespace noisefloor::model
