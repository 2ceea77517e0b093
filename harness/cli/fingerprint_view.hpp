// The fingerprint a run records (fingerprint.json) and the few facts shown above the progress.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/experiment.hpp"

namespace noisefloor::cli {

// Everything probed about the run, host, toolchain and environment. Never throws for a probe
// that cannot be read: the fact says "unknown" with the reason.
nlohmann::json collect_fingerprint(const model::Experiment& experiment, const std::string& command_line,
                                   const std::string& started_utc);

// The value of the fact at a JSON pointer ("/host/cpu/model_name") as text, or "unknown".
std::string fact(const nlohmann::json& fingerprint, std::string_view pointer);

// (raw-file key, JSON pointer) of the facts written as `key: value` lines in every raw file.
const std::vector<std::pair<std::string, std::string>>& key_facts();

// A few lines for the terminal: host, CPU, kernel, Go, noisefloor.
std::string render_key_facts(const nlohmann::json& fingerprint);

}  // namespace noisefloor::cli
