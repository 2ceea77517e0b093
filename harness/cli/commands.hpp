// The subcommands. Each throws noisefloor::Error subclasses on failure; only main() prints errors
// and picks exit codes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "config/experiment_file.hpp"
#include "model/experiment.hpp"

namespace noisefloor::cli {

using Cancelled = std::function<bool()>;

// Reads and validates an experiment file against this host. Throws ConfigError.
model::Experiment load_experiment(const std::string& path);
config::HostFacts host_facts();

struct RunOptions {
  std::string experiment;
  std::string results_root = "results";
  bool quiet = false;
  std::string command_line;
};
// Runs an experiment end to end and prints the table. Returns the result directory.
std::string run_command(const RunOptions& options, const Cancelled& cancelled);

void validate_command(const std::vector<std::string>& files);

struct CvOptions {
  std::vector<std::string> paths;
  std::string format = "markdown";  // markdown | json | csv | summary
};
void cv_command(const CvOptions& options);

// Removes containers that killed runs left behind (label noisefloor.run).
void gc_command();

}  // namespace noisefloor::cli
