// What the commands that read results share (read.cpp, errata.cpp): the paths loaded, and the one
// rule for results from different rooms. Internal to pipeline/.
#pragma once

#include <string>
#include <vector>

#include "analysis/analysis.hpp"
#include "records/result.hpp"
#include "results/load.hpp"

namespace noisefloor::pipeline {

// What the paths hold: a run on several hosts counts as one result per host (labelled with the
// host), which are never pooled: their conditions become "<host>:<condition>".
struct Loaded {
  std::vector<records::Result> results;
  std::vector<results::Fleet> fleets;
};

// Every path loaded: a result, an experiment's latest, a go test file; a run on several hosts as
// one result per host that has one (InputError when none has). Each result's supersessions found.
Loaded load_all(const std::vector<std::string>& paths);

// Merged results from different rooms: per later source, the fields that move benchmarks and
// differ from the first; "" when none. Said as a warning when `allowed` (--allow-different-hosts),
// else as the NOT COMPARABLE block a command stops with.
std::string rooms_verdict(const analysis::Analysis& a, bool allowed);

}  // namespace noisefloor::pipeline
