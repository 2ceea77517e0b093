#include "records/build_marker.hpp"

#include <nlohmann/json.hpp>

namespace noisefloor::records {
namespace {

constexpr const char* kMarkerSchema = "noisefloor.build/1";

}  // namespace

std::string marker_json(const BuildMarker& m) {
  const nlohmann::json j = {{"schema", kMarkerSchema},
                            {"key", m.key},
                            {"repo", m.repo},
                            {"commit", m.commit},
                            {"tree", m.tree},
                            {"toolchain", m.toolchain},
                            {"utc", m.utc},
                            {"build", m.build},
                            {"binary_sha256", m.binary_sha256}};
  return j.dump(2) + "\n";
}

std::optional<BuildMarker> parse_marker(std::string_view text) {
  try {
    const auto j = nlohmann::json::parse(text);
    if (!j.is_object() || j.value("schema", "") != kMarkerSchema) return std::nullopt;
    return BuildMarker{j.at("key").get<std::string>(),
                       j.at("repo").get<std::string>(),
                       j.at("commit").get<std::string>(),
                       j.at("tree").get<std::string>(),
                       j.at("toolchain").get<std::string>(),
                       j.at("utc").get<std::string>(),
                       j.at("build").get<std::vector<std::string>>(),
                       j.at("binary_sha256").get<std::string>()};
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

}  // namespace noisefloor::records
