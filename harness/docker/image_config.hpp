// The runtime config of the images noisefloor builds (the "config" object of a Docker image
// config), typed, and the recipe it comes from (containers/auto/image.json). Pure.
#pragma once

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace noisefloor::docker {

// What an image runs and how: never Cmd (the runner passes the benchmark's argv as the
// container's). A field unset is absent from its JSON.
struct ImageConfig {
  std::vector<std::string> entrypoint{};
  std::optional<std::string> working_dir{}, user{}, stop_signal{};
  std::optional<std::vector<std::string>> env{};  // "NAME=value"
  std::map<std::string, std::string> labels{};    // absent when empty
  friend bool operator==(const ImageConfig&, const ImageConfig&) = default;
};

// {"Entrypoint": [..], "WorkingDir", "User", "StopSignal", "Env": [..], "Labels": {..}}: Docker's
// keys, an object's keys sorted (the bytes an image id is hashed from).
void to_json(nlohmann::json& j, const ImageConfig& config);
// The JSON text of `config`, as it is hashed and stored.
std::string config_text(const ImageConfig& config);

// A recipe: {"schema_version": 1, "description": "...", "config": {...}}.
struct ImageRecipe {
  ImageConfig config;
  std::string canonical;  // the whole recipe as JSON text with sorted keys: what an image's hash covers
};

// Reads a recipe whose Entrypoint must start with `entrypoint`. Throws RunError "image recipe
// (containers/auto/image.json): <what is wrong>" on anything else: not JSON, an unknown key, Cmd,
// an Env entry without '=' or setting LD_LIBRARY_PATH, a label or a string field that is no string.
ImageRecipe read_image_recipe(std::string_view text, std::string_view entrypoint);

}  // namespace noisefloor::docker
