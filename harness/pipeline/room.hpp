// Inside the pipeline: the pieces one run on one machine ("room") is made of, shared by `run` on
// this machine (run.cpp) and `run` across several engines (fleet.cpp). Not for other modules.
#pragma once

#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis.hpp"
#include "analysis/rooms.hpp"
#include "conditions/container.hpp"
#include "conditions/environment.hpp"
#include "config/experiment_file.hpp"
#include "docker/context.hpp"
#include "docker/lease.hpp"
#include "pipeline/commands.hpp"
#include "records/fingerprint.hpp"
#include "records/result.hpp"
#include "render/fleet.hpp"
#include "results/directory.hpp"
#include "results/load.hpp"

namespace noisefloor::pipeline {

// getenv(3) as docker::GetEnv wants it (resolving hosts like the docker CLI).
std::optional<std::string> environment_variable(const std::string& name);

// True when a condition of `e` runs the benchmark in a container (this machine then needs its engine).
bool has_container_condition(const model::Experiment& e);

// What validation needs to know of this machine: the CPUs it can use.
config::HostFacts host_facts();

// --anchor, loaded before anything runs (ConfigError when it is not a result).
std::optional<records::Result> load_anchor(const RunOptions& o);

// How a room's run ended, with everything written.
struct Finished {
  records::Result result;
  std::optional<analysis::Analysis> analysis;
  records::RunStatus status = records::RunStatus::complete;
  std::optional<std::string> error;
  std::exception_ptr failure;
  std::vector<records::RunWarning> cleanup;
  std::string finished_utc;
  std::string page_problem, finish_problem;
  std::size_t kept = 0;  // kept (not warm-up) samples
};

// The run's failure as the error `run` throws ("... — the N sample(s) measured so far are kept
// in DIR"); nothing when it succeeded.
void throw_if_failed(const Finished& f, const std::filesystem::path& dir);

// One machine ("room") from its engine on, as `run` on this machine and each host of a run on
// several go through it: the engine's lease → (another machine) its facts, read in a container →
// the images → the fingerprint, the engine's facts and the doctor → the run directory → its first
// files (experiment.yaml and fingerprint.json, or a resumed session's fingerprint) → the key facts
// as notes → the environment → measure_and_write.
struct RoomSetup {
  const model::Experiment& experiment;
  const RunOptions& options;
  RunEvents& events;
  const Cancelled& cancelled;
  std::string started;
  std::unique_ptr<conditions::ContainerRuntime> containers{};  // nullptr: no engine
  // Another machine: its facts are read in a container and every condition runs as containers
  // on its engine (shown as `endpoint`).
  bool remote = false;
  std::string endpoint{};
  std::string lease_run{};  // the run id the lease names ("" on one machine)
  std::string host{};       // the host of a run on several: the result's label ("" = one machine)
  const records::Result* earlier = nullptr;       // run --resume
  std::optional<records::RunFacts::Gate> gate{};  // run --base: the sides, for the fingerprint
};

// The run directory, chosen once the room's fingerprint is known (a resumed run first holds it
// against the fingerprint it started with).
struct RoomDirectory {
  results::RunDirectory dir;
  int session = 0;                            // a resumed run's session number (0: the first)
  std::vector<std::string> host_differences;  // accepted with --allow-different-hosts
};
using OpenDirectory = std::function<RoomDirectory(const records::Fingerprint&)>;

struct RoomOutcome {
  results::RunDirectory dir;
  Finished finished;
};
RoomOutcome run_room(RoomSetup setup, const OpenDirectory& open);

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
// label ("" for one machine); status 3 too when every claim is UNDEFINED (nothing was checked);
// nothing when no claim failed and at least one was decided.
void fail_unreproduced(Output& out,
                       const std::vector<std::pair<std::string, const analysis::Judgement*>>& judged);

// The hosts side by side, then how they differ: what `run` ends with and `cv` of such a run shows.
std::string side_by_side_text(const FleetColumns& f, bool terminal);

// A gate (run --base) on the one engine its --host or hosts: names (fleet.cpp). gate_host resolves
// it and checks that its engine answers, before anything is built (ConfigError when several hosts
// are named or one is unknown); gate_room, once the sides are built, gives the prepared experiment
// as it reads on that machine (the gate's sides and settings kept) and a client of that engine
// (none: this machine without a container condition), for a ContainerRuntime on that experiment
// where it stays (the runtime keeps a reference to it).
struct GateHost {
  docker::NamedEndpoint where;
  bool local = false;  // this machine (an engine on a unix socket): host conditions stay host processes
};
GateHost gate_host(const model::Experiment& e, const RunOptions& options);
struct GateRoom {
  model::Experiment experiment;
  std::optional<docker::Client> client;
  bool remote = false;   // every condition runs as containers there
  std::string endpoint;  // as shown
};
GateRoom gate_room(const GateHost& host, const model::Experiment& prepared, RunEvents& events);

// `run` across the hosts of the experiment or of --host (fleet.cpp).
Output run_fleet(const RunOptions& options, RunEvents& events, const Cancelled& cancelled);

}  // namespace noisefloor::pipeline
