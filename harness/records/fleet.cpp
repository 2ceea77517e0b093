#include "records/fleet.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "jsonread/number.hpp"
#include "model/errors.hpp"
#include "model/names.hpp"

namespace noisefloor::records {
using nlohmann::json;

void to_json(json& j, const FleetRecord& v) {
  json hosts = json::array();
  for (const auto& h : v.hosts) {
    json e = {{"name", h.name},
              {"given", h.given},
              {"endpoint", h.endpoint},
              {"origin", h.origin},
              {"local", h.local},
              {"status", std::string(to_string(h.status))},
              {"error", h.error ? json(*h.error) : json(nullptr)},
              {"containers", h.containers},
              {"wall_s", h.wall_seconds}};
    hosts.push_back(std::move(e));
  }
  j = {{"schema_version", kFleetSchemaVersion}, {"experiment", v.experiment},
       {"experiment_file", v.experiment_file},  {"run_id", v.run_id},
       {"started_utc", v.started_utc},          {"finished_utc", v.finished_utc},
       {"command_line", v.command_line},        {"hosts", hosts}};
}

void from_json(const json& j, FleetRecord& v) {
  try {
    if (!j.is_object()) throw ParseError("fleet.json: expected a JSON object");
    jsonread::check_schema_version(j, kFleetSchemaVersion);
    v = {};
    const std::pair<const char*, std::string*> texts[] = {{"experiment", &v.experiment},
                                                          {"experiment_file", &v.experiment_file},
                                                          {"run_id", &v.run_id},
                                                          {"started_utc", &v.started_utc},
                                                          {"finished_utc", &v.finished_utc},
                                                          {"command_line", &v.command_line}};
    for (const auto& [key, field] : texts) *field = j.value(key, "");
    const auto hosts = j.value("hosts", json::array());
    if (!hosts.is_array()) throw ParseError("hosts: expected a list");
    for (const auto& h : hosts) {
      if (!h.is_object()) throw ParseError("hosts: expected a list of objects");
      FleetHost e;
      e.name = h.value("name", "");
      e.given = h.value("given", "");
      e.endpoint = h.value("endpoint", "");
      e.origin = h.value("origin", "");
      e.local = h.value("local", false);
      // a status this version does not know is a host that did not complete
      e.status = model::from_name<RunStatus>(h.value("status", "failed")).value_or(RunStatus::failed);
      if (const auto it = h.find("error"); it != h.end() && it->is_string()) e.error = it->get<std::string>();
      e.containers = h.value("containers", std::vector<std::string>{});
      e.wall_seconds = h.value("wall_s", 0.0);
      if (e.name.empty()) throw ParseError("hosts: a host without a name");
      v.hosts.push_back(std::move(e));
    }
  } catch (const json::exception& e) {
    throw ParseError(fmt::format("a field has the wrong type ({})", e.what()));
  }
}

}  // namespace noisefloor::records
