#include "records/store.hpp"

#include <nlohmann/json.hpp>

#include "model/errors.hpp"

namespace noisefloor::records {
using nlohmann::json;

std::string Machine::fact(const std::string& name) const {
  for (const auto& [n, v] : facts)
    if (n == name) return v;
  return "unknown";
}

void to_json(json& j, const RunListing& r) {
  j = {{"id", r.id},         {"experiment", r.experiment},      {"machine", r.machine},
       {"run_id", r.run_id}, {"started_utc", r.started_utc},    {"status", r.status},
       {"engine", r.engine}, {"published_utc", r.published_utc}};
}

void from_json(const json& j, RunListing& r) {
  j.at("id").get_to(r.id);
  j.at("experiment").get_to(r.experiment);
  j.at("machine").get_to(r.machine);
  j.at("run_id").get_to(r.run_id);
  j.at("started_utc").get_to(r.started_utc);
  j.at("status").get_to(r.status);
  j.at("engine").get_to(r.engine);
  j.at("published_utc").get_to(r.published_utc);
}

void to_json(json& j, const PublishAnswer& a) {
  j = {{"id", a.id},
       {"created", a.created},
       {"experiment", a.experiment},
       {"run_id", a.run_id},
       {"page", a.page}};
}

void from_json(const json& j, PublishAnswer& a) {
  j.at("id").get_to(a.id);
  j.at("created").get_to(a.created);
  a.experiment = j.value("experiment", "");
  a.run_id = j.value("run_id", "");
  a.page = j.value("page", "");
}

std::string runs_json(const std::vector<RunListing>& runs) { return json{{"runs", runs}}.dump(2) + "\n"; }

std::string publish_json(const PublishAnswer& answer) { return json(answer).dump(2) + "\n"; }

std::string error_json(const std::string& message) {
  return json{{"error", message}}.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

PublishAnswer parse_publish_answer(const std::string& body, std::string* error) {
  const json j = json::parse(body, nullptr, false);
  if (j.is_object() && j.contains("error") && j["error"].is_string()) {
    if (error) *error = j["error"].get<std::string>();
    return {};
  }
  try {
    return j.get<PublishAnswer>();
  } catch (const json::exception&) {
    throw ParseError("the server's answer is not noisefloor's: " + body.substr(0, 200));
  }
}

}  // namespace noisefloor::records
