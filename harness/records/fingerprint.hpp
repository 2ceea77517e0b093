// The room a run measured in (fingerprint.json): the run's own facts, the host, the toolchain, the
// environment, the Docker engine, the tuning in force and the doctor's verdict.
#pragma once

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fingerprint/doctor.hpp"
#include "fingerprint/engine.hpp"
#include "fingerprint/facts.hpp"
#include "fingerprint/tuning.hpp"
#include "model/experiment.hpp"
#include "model/gate.hpp"
#include "model/pair_order.hpp"

namespace noisefloor::records {

inline constexpr int kFingerprintSchemaVersion = 1;

// How and when the run was made.
struct RunFacts {
  std::string started_utc, finished_utc, command_line, experiment_file, experiment_sha256;
  std::string noisefloor_version, noisefloor_commit;
  // How the work was ordered (absent in the first 0.1 results), and how the pairs were (absent
  // before 0.9). fingerprint.json says each in words too ("order", "paired_order"), never read.
  std::optional<model::Schedule> schedule;
  std::optional<model::Pairing> pairing;
  // The A/B gate (`run --base`): the two sides as measured, and how the gate decides.
  struct Gate {
    model::GateSide base, head;
    model::GateSettings settings;
    friend bool operator==(const Gate&, const Gate&) = default;
  };
  std::optional<Gate> gate;
  friend bool operator==(const RunFacts&, const RunFacts&) = default;
};

struct Fingerprint {
  std::optional<RunFacts> run;         // a run's fingerprint
  std::optional<std::string> version;  // `noisefloor fingerprint`: "<version> (<commit>)" of the prober
  fingerprint::FactTree host;          // probe_this_host()
  fingerprint::FactTree toolchain;     // probe_toolchain()
  std::optional<std::map<std::string, std::string>> env;            // probe_env()
  std::optional<std::map<std::string, std::string>> benchmark_env;  // benchmark.env of the experiment
  std::optional<fingerprint::EngineFacts> engine;                   // when an engine was used (or asked)
  std::string engine_unknown;  // why there is no engine when one was asked
  std::optional<fingerprint::TuningStatus> tuning;
  std::optional<fingerprint::DoctorReport> doctor;
  // The room's noise profile, measured just before the first condition (fingerprint/noise.hpp);
  // "not measured" with the reason when the run took none; absent in older results.
  std::optional<fingerprint::NoiseProfile> noise;
  std::map<std::string, std::string> gotest;  // the `key: value` header of a go test -bench file

  bool empty() const;
  // host.one_line, or "unknown host".
  std::string host_line() const;
  // host.load: the load when the run started, when it was read.
  std::optional<fingerprint::LoadAverage> host_load() const;
  friend bool operator==(const Fingerprint&, const Fingerprint&) = default;
};

// The facts as leaves of the fingerprint's JSON form, by dotted path ("host.cpu.model"): a leaf is
// a fact (a value or `unknown (<reason>)`) or a value with no fact below it. What the readers that
// walk every fact compare (analysis::differences); the tree stays open (fingerprint::FactTree).
struct FactChange {
  std::string path;
  std::string a, b;       // as shown: the value, "unknown (<reason>)", "(absent)", or a group's JSON
  bool shape = false;     // a group on one side, a leaf on the other: the whole node, once
  bool one_side = false;  // a leaf that one side lacks
};
// Every place the two differ, in path order (object keys sorted).
std::vector<FactChange> fact_changes(const Fingerprint& a, const Fingerprint& b);
// Every leaf: {path, what compares as compact JSON: a fact's value, or {"unknown": reason}}.
std::vector<std::pair<std::string, std::string>> fact_leaves(const Fingerprint& fingerprint);

// {"schema_version", "run", "host", "toolchain", "env", "benchmark_env", "engine" (an unknown fact
// when there is no engine), "tuning" (null: nothing applied), "doctor", "noise", "gotest", "noisefloor"}:
// absent parts are left out. from_json throws ParseError for a newer schema_version or a part
// of the wrong shape.
void to_json(nlohmann::json& j, const Fingerprint& fingerprint);
void from_json(const nlohmann::json& j, Fingerprint& fingerprint);
void to_json(nlohmann::json& j, const RunFacts& run);
void from_json(const nlohmann::json& j, RunFacts& run);
// {"base", "head" (each {"ref", "commit", "tree", "worktree", "dirty", "changed", "build_key",
// "cached", "binary_sha256"}), "threshold", "confidence", "power", "confirm", "max_repeats",
// "gating_units"}.
void to_json(nlohmann::json& j, const RunFacts::Gate& gate);
// One side: {"ref", "commit", "tree", "worktree", "dirty", "changed", "build_key", "cached",
// "binary_sha256"} (model::GateSide is plain, so its JSON lives here).
nlohmann::json gate_side_json(const model::GateSide& side);
void from_json(const nlohmann::json& j, RunFacts::Gate& gate);

}  // namespace noisefloor::records
