// The experiment's build step (benchmark.build), run on this machine: the run's, a fleet's and each
// side of a gate's. I/O edge.
#pragma once

#include "model/experiment.hpp"
#include "pipeline/commands.hpp"

namespace noisefloor::pipeline {

// Runs e.benchmark.build (nothing when it is empty) in the benchmark's workdir and environment,
// saying so through `events`; RunError quoting the last lines of its output when it fails.
void build(const model::Experiment& e, RunEvents& events, const Cancelled& cancelled);

}  // namespace noisefloor::pipeline
