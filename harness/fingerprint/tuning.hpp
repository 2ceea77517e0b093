// What the doctor's --apply changed, as recorded in the tuning state file and in every run's
// fingerprint: plain values and their JSON. Pure (tune.hpp reads and writes the file).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace noisefloor::fingerprint {

struct TuneChange {
  std::string setting;  // "governor", "turbo", "aslr", "thp", "smt"
  std::string file;     // the path on the real system
  std::string before, after;
  friend bool operator==(const TuneChange&, const TuneChange&) = default;
};

// A setting (or one file of it) left as it is, and why: "already performance", "missing ...",
// "write failed: ...".
struct TuneNote {
  std::string setting;
  std::string reason;
  friend bool operator==(const TuneNote&, const TuneNote&) = default;
};

// The state file's content.
struct TuneState {
  std::string applied_utc;      // RFC 3339 UTC
  bool complete = false;        // false: written before the first change, rewritten after
  std::string experiment_cpus;  // CPU list
  std::vector<TuneChange> changes;
  friend bool operator==(const TuneState&, const TuneState&) = default;
};

// What a run records as fingerprint["tuning"]: nothing applied (no state, no error), the state
// file, or why it could not be read.
struct TuningStatus {
  std::optional<TuneState> state;
  std::string error;
  friend bool operator==(const TuningStatus&, const TuningStatus&) = default;
};

void to_json(nlohmann::json& j, const TuneChange& change);  // {"setting", "file", "before", "after"}
void to_json(nlohmann::json& j, const TuneNote& note);      // {"setting", "reason"}
void from_json(const nlohmann::json& j, TuneChange& change);
void to_json(nlohmann::json& j, const TuneState& state);  // the state file shape above
void from_json(const nlohmann::json& j, TuneState& state);
// null (nothing applied), the state object, or {"error": "<reason>"}.
void to_json(nlohmann::json& j, const TuningStatus& status);
void from_json(const nlohmann::json& j, TuningStatus& status);

}  // namespace noisefloor::fingerprint
