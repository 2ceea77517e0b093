// Inside the pipeline: the pieces one run on one machine ("room") is made of, shared by `run` on
// this machine (run.cpp) and `run` across several engines (fleet.cpp). Not for other modules.
#pragma once

#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis.hpp"
#include "analysis/rooms.hpp"
#include "conditions/container.hpp"
#include "conditions/environment.hpp"
#include "config/experiment_file.hpp"
#include "docker/lease.hpp"
#include "pipeline/commands.hpp"
#include "records/fingerprint.hpp"
#include "records/result.hpp"
#include "render/fleet.hpp"
#include "results/load.hpp"
#include "results/directory.hpp"

namespace noisefloor::pipeline {

// getenv(3) as docker::GetEnv wants it (resolving hosts like the docker CLI).
std::optional<std::string> environment_variable(const std::string& name);

// What validation needs to know of this machine: the CPUs it can use.
config::HostFacts host_facts();

// The experiment's build step, on this machine (RunError quoting its output when it fails).
void build(const model::Experiment& e, RunEvents& events, const Cancelled& cancelled);

// Everything probed about the run, this host, the toolchain and the environment.
records::Fingerprint collect_fingerprint(const model::Experiment& e, const std::string& command_line,
                                         const std::string& started);

// --anchor, loaded before anything runs (ConfigError when it is not a result).
std::optional<records::Result> load_anchor(const RunOptions& o);

// Who takes an engine's lease: "user@host pid N", "<experiment>[/<run id>]", now.
docker::LeaseOwner lease_owner(const model::Experiment& e, const std::string& run_id);

// One room's run from a prepared environment on.
struct RoomRun {
  const model::Experiment& experiment;
  const RunOptions& options;
  results::RunDirectory& dir;
  conditions::Environment& environment;
  RunEvents& events;
  const Cancelled& cancelled;
  conditions::ContainerRuntime* containers;  // nullptr: no engine
  records::Fingerprint fingerprint;
  std::string started;
  const records::Result* earlier = nullptr;  // run --resume
  int session = 0;
  std::vector<std::string> host_differences;
  std::string label;  // the result's label ("" = the run id)
  std::string host;   // the host of a run on several, recorded in run.json ("" = none)
};

// How it ended, with everything written.
struct Finished {
  records::Result result;
  std::optional<analysis::Analysis> analysis;
  records::RunStatus status = records::RunStatus::complete;
  std::optional<std::string> error;
  std::exception_ptr failure;
  std::vector<std::string> cleanup;
  std::string page_problem, finish_problem;
  std::size_t kept = 0;  // kept (not warm-up) samples
};

// Runs the plan, then writes the raw files, run.json, summary.json, table.md, cv-summary.txt and
// report.html; never throws for the run's own failure (Finished says it).
Finished measure_and_write(const RoomRun& run);

// The run's failure as the error `run` throws ("... — the N sample(s) measured so far are kept
// in DIR"); nothing when it succeeded.
void throw_if_failed(const Finished& f, const std::filesystem::path& dir);

// A run on several hosts as columns: each host's own analysis (never pooled), its status, the
// conditions it ran as containers, and its fingerprint against the first host's that has one.
struct FleetColumns {
  std::vector<analysis::Analysis> per_host;
  std::vector<render::HostColumn> columns;  // in fleet.json's order; they point into per_host
  std::vector<std::string> names;           // the hosts with a fingerprint, the first the reference
  std::vector<std::vector<analysis::Difference>> differences;  // of names[k + 1] against names[0]
};
FleetColumns columns_of(const results::Fleet& fleet);

// A published table (`reference:`, `check --reference`): a noisefloor result directory, or a file
// parsers::parse_published reads. Throws InputError or ParseError saying what is wrong with it.
model::PublishedTable read_published(const std::string& path);

// run --check and check: status 3 and a one-line failure naming the claims NOT REPRODUCED, per
// label ("" for one machine); nothing when every claim held or could not be decided.
void fail_unreproduced(Output& out, const std::vector<std::pair<std::string, const analysis::Judgement*>>& judged);

// The hosts side by side, then how they differ: what `run` ends with and `cv` of such a run shows.
std::string side_by_side_text(const FleetColumns& f, bool terminal);

// `run` across the hosts of the experiment or of --host (fleet.cpp).
Output run_fleet(const RunOptions& options, RunEvents& events, const Cancelled& cancelled);

}  // namespace noisefloor::pipeline
