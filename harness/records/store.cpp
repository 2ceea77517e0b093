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

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RunListing, id, experiment, machine, run_id, started_utc, status, engine,
                                   published_utc)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PublishAnswer, id, created, experiment, run_id, page)

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
  PublishAnswer answer;
  try {
    answer = j.get<PublishAnswer>();
  } catch (const json::exception&) {
  }
  if (answer.id.empty()) throw ParseError("the server's answer is not noisefloor's: " + body.substr(0, 200));
  return answer;
}

}  // namespace noisefloor::records
