// A Docker engine's answers, or whatever answers on its socket (a lying or broken engine, a proxy
// that cuts the stream). The input is split at each NUL byte into answers, each read as JSON by
// every reader of an answer (/version, /info, the containers' list, create, wait, inspect, stats,
// the limits the engine applied, the engine's facts) and as raw bytes by the readers of heads,
// JSON streams (images/load, events) and error bodies. An answer of the wrong shape must end in a
// DockerError, a ParseError or a reading of "absent", never in nlohmann's exceptions, an overflow
// or a loop sized by the engine.
#include "fingerprint/engine.hpp"

#include <string>
#include <vector>

#include "docker/api.hpp"
#include "fuzz.hpp"
#include "jsonread/parse.hpp"
#include "probe/probe_report.hpp"

namespace {

using nlohmann::json;
using namespace noisefloor;

void read_as_answers(const json& version, const json& info, const json& other) {
  fuzz::survive([&] { docker::check_version_response("1.41", version); });
  fuzz::survive([&] { (void)docker::engine_cpus(info, "fuzz://engine"); });
  fuzz::survive([&] {
    const fingerprint::EngineFacts facts =
        fingerprint::engine_facts(version, info, "fuzz://engine", "1.41", &other);
    json j = facts;
    (void)j.get<fingerprint::EngineFacts>();
    model::ContainerSpec spec;
    spec.cpus = 0.5;
    spec.memory = 64 << 20;
    (void)fingerprint::unenforced_limit(facts, spec, "fuzz://engine");
  });
  (void)fingerprint::is_podman(version);
  if (other.is_array()) {
    std::vector<docker::RunContainer> listed;
    for (const json& item : other)
      if (auto c = docker::run_container_of(item)) listed.push_back(*c);
    (void)docker::plan_gc(listed, std::string("owner"));
  }
  fuzz::survive([&] { (void)docker::created_of(other); });
  fuzz::survive([&] { (void)docker::wait_status(other, "0123456789ab"); });
  const docker::ContainerState state = docker::container_state(other);
  if (state.pid < 0) __builtin_trap();  // a process id, or 0
  fuzz::survive([&] { (void)docker::parse_rfc3339_nano(state.started_at); });
  fuzz::survive([&] { (void)probe::effective_from_engine(docker::engine_limits(other)); });
  (void)docker::cpu_seconds_of(other);
}

void read_as_bytes(std::string_view bytes) {
  (void)docker::parse_answer_head(bytes);
  const docker::JsonStream stream = docker::scan_json_stream(bytes);
  (void)docker::loaded_image(stream.stream);
  (void)docker::oom_event_among(stream.objects, "0123456789ab");
  (void)docker::engine_error_message("GET", "/v1.41/info", 500, "application/json", bytes);
  (void)docker::engine_error_message("GET", "/v1.41/info", 404, "text/plain", bytes);
  (void)docker::name_in_use(500, bytes);
  (void)docker::kill_not_running(409, bytes);
  (void)docker::removal_under_way(500, bytes);
  (void)docker::parse_api_version(bytes);
  fuzz::survive([&] { (void)docker::negotiate_api_version(std::string(bytes)); });
}

}  // namespace

int noisefloor::fuzz::engine(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (parts.size() < 8) {
    const auto nul = text.find('\0', start);
    parts.push_back(text.substr(start, nul == std::string_view::npos ? std::string_view::npos : nul - start));
    if (nul == std::string_view::npos) break;
    start = nul + 1;
  }
  std::vector<json> answers;
  for (const std::string_view part : parts) {
    answers.push_back(jsonread::parse_json_or_discarded(part));
    read_as_bytes(part);
  }
  const auto answer = [&](std::size_t i) -> const json& { return answers[i % answers.size()]; };
  for (std::size_t i = 0; i < answers.size(); ++i) read_as_answers(answer(0), answer(1), answer(i));
  return 0;
}
