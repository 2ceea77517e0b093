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
  std::string anchor;  // an earlier clean result: how contended was this run?
};
// Runs an experiment end to end and prints the table. Returns the result directory.
std::string run_command(const RunOptions& options, const Cancelled& cancelled);

void validate_command(const std::vector<std::string>& files);

struct CvOptions {
  std::vector<std::string> paths;
  std::string format;  // text | markdown | json | csv | summary; "" = text on a terminal, else markdown
  bool allow_different_hosts = false;
};
void cv_command(const CvOptions& options);

// Removes containers that killed runs left behind (label noisefloor.run).
void gc_command();

// `noisefloor compare OLD NEW`: benchstat-style unpaired comparison (cli/compare_command.cpp).
struct CompareOptions {
  std::string old_path, new_path;    // result directories or go test -bench output files
  std::string format = "text";       // text | json | csv
  double threshold = 0.01;           // noise threshold θ for the verdicts
  bool allow_different_hosts = false;
};
void compare_command(const CompareOptions& options);

// `noisefloor report RESULTS`: HTML page and exports (cli/report_command.cpp).
struct ReportOptions {
  std::vector<std::string> paths;    // one or more result directories (several: merged)
  std::string html;                  // --html FILE ("" = none)
  std::string format;                // markdown | csv | json | gotest | summary ("" = none)
  bool allow_different_hosts = false;
};
void report_command(const ReportOptions& options);

// `noisefloor fingerprint [--json]` and `noisefloor doctor [EXPERIMENT] [--apply|--restore]`
// (cli/fingerprint_command.cpp).
void fingerprint_command(bool json);
struct DoctorOptions {
  std::string experiment;            // "" = none
  bool apply = false, restore = false, json = false;
};
// Returns the process exit status the grade implies (0 ready/limited, 1 not ready) — main decides.
int doctor_command(const DoctorOptions& options);

}  // namespace noisefloor::cli
