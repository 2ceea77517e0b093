// fleet.json: the record of a run on several hosts (README: Many machines). Each host's samples,
// run.json and fingerprint are in hosts/<host>/, today's layout; this says which hosts there were,
// how each was reached and how its run ended. Pure.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "records/run.hpp"

namespace noisefloor::records {

inline constexpr int kFleetSchemaVersion = 1;

struct FleetHost {
  std::string name;      // its directory under hosts/, as the experiment or --host named it (made safe)
  std::string given;     // as written: "default", "ssh://bench@quiet-box"
  std::string endpoint;  // "unix:///var/run/docker.sock", "tcp://10.0.0.7:2376", "ssh://..."
  std::string origin;    // "context 'ci' (<meta.json>)", "endpoint", "DOCKER_HOST", ...
  bool local = false;    // this machine: host conditions as host processes
  RunStatus status = RunStatus::failed;
  std::optional<std::string> error;
  std::vector<std::string> containers;  // conditions that ran as containers there
  double wall_seconds = 0;              // from start to its results written
  friend bool operator==(const FleetHost&, const FleetHost&) = default;
};

struct FleetRecord {
  std::string experiment, experiment_file, run_id, started_utc, finished_utc, command_line;
  std::vector<FleetHost> hosts;
  friend bool operator==(const FleetRecord&, const FleetRecord&) = default;
};

// {"schema_version": 1, "experiment", "experiment_file", "run_id", "started_utc", "finished_utc",
//  "command_line", "hosts": [{"name", "given", "endpoint", "origin", "local", "status", "error",
//  "containers", "wall_s"}]}. from_json throws ParseError for a wrong type or a newer schema.
void to_json(nlohmann::json& j, const FleetRecord& v);
void from_json(const nlohmann::json& j, FleetRecord& v);

}  // namespace noisefloor::records
