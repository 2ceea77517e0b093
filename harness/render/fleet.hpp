// A run on several hosts, shown together: one column group per host, one line per condition ×
// benchmark, never a sample pooled across hosts; which conditions ran as containers; how the
// hosts differ. Pure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis.hpp"
#include "analysis/rooms.hpp"
#include "records/run.hpp"

namespace noisefloor::render {

struct HostColumn {
  std::string name;
  records::RunStatus status = records::RunStatus::complete;
  std::optional<std::string> error;     // why it did not complete, as the host's record says
  const analysis::Analysis* analysis;   // nullptr: the host measured nothing
  std::vector<std::string> containers;  // conditions that ran as containers there
};

// The side-by-side table as cells: a header (condition, then the hosts), one row per condition
// (× benchmark, when a condition has several), the legend, and a line per host that did not
// complete.
struct SideBySide {
  std::vector<std::string> head;
  std::vector<std::vector<std::string>> rows;
  std::string legend;
  std::vector<std::string> problems;
};
SideBySide side_by_side(const std::vector<HostColumn>& hosts);

// The side-by-side table: per host "median unit  CV%" for every condition × benchmark any host
// has; "—" where a host has no such row or CV is undefined (n < 2). Markdown unless `terminal`.
std::string hosts_side_by_side(const std::vector<HostColumn>& hosts, bool terminal);

// "hosts differ in:" then "  <field>: <host0> <a> · <hostk> <b>" per field that moves benchmarks
// (all fields with `all`); "" when no two hosts differ.
std::string host_differences(const std::vector<std::string>& names,
                             const std::vector<std::vector<analysis::Difference>>& against_first, bool all);

}  // namespace noisefloor::render
