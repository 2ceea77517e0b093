// `run --resume DIR`: the earlier sessions of a run, loaded before anything runs.
#pragma once

#include <optional>
#include <string>

#include "pipeline/commands.hpp"
#include "records/result.hpp"

namespace noisefloor::pipeline {

// The earlier sessions of the run (nullopt without --resume), and the experiment file it was
// started with in `experiment_file` when not given. Throws ConfigError for a directory that is no
// run, a complete run or a host of a run on several hosts, and, until the user names the
// experiment file, with what resuming would run: a result directory is not trusted. (Whether the
// room is the one the run started in is checked when the run directory opens, in run.cpp.)
std::optional<records::Result> resumed(const RunOptions& o, std::string& experiment_file);

}  // namespace noisefloor::pipeline
