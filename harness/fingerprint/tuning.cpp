#include "fingerprint/tuning.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace noisefloor::fingerprint {

using nlohmann::json;

void to_json(json& j, const TuneChange& c) {
  j = {{"setting", c.setting}, {"file", c.file}, {"before", c.before}, {"after", c.after}};
}

void to_json(json& j, const TuneNote& n) { j = {{"setting", n.setting}, {"reason", n.reason}}; }

void from_json(const json& j, TuneChange& c) {
  c = {j.at("setting").get<std::string>(), j.at("file").get<std::string>(), j.at("before").get<std::string>(),
       j.at("after").get<std::string>()};
}

void to_json(json& j, const TuneState& s) {
  j = {{"schema_version", 1},
       {"applied_utc", s.applied_utc},
       {"complete", s.complete},
       {"experiment_cpus", s.experiment_cpus},
       {"changes", s.changes}};
}

void from_json(const json& j, TuneState& s) {
  s = {};
  s.applied_utc = j.value("applied_utc", std::string());
  s.complete = j.value("complete", false);
  s.experiment_cpus = j.value("experiment_cpus", std::string());
  s.changes = j.at("changes").get<std::vector<TuneChange>>();
}

void to_json(json& j, const TuningStatus& t) {
  if (t.state)
    j = *t.state;
  else if (!t.error.empty())
    j = {{"error", t.error}};
  else
    j = nullptr;
}

void from_json(const json& j, TuningStatus& t) {
  t = {};
  if (j.is_null()) return;
  if (j.is_object() && j.contains("error")) {
    t.error = j.value("error", std::string());
    return;
  }
  try {
    t.state = j.get<TuneState>();
  } catch (const json::exception& e) {
    t.error = fmt::format("unreadable tuning state: {}", e.what());
  }
}

}  // namespace noisefloor::fingerprint
