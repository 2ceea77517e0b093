#include "docker/image_config.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "model/errors.hpp"

namespace noisefloor::docker {
namespace {

[[noreturn]] void recipe_error(const std::string& message) {
  throw RunError(fmt::format("image recipe (containers/auto/image.json): {}", message));
}

nlohmann::json parsed_recipe(std::string_view text) {
  nlohmann::json recipe;
  try {
    recipe = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // a parse error, or a number out of range
    recipe_error(fmt::format("not valid JSON: {}", e.what()));
  }
  if (!recipe.is_object()) recipe_error("expected a JSON object");
  for (const auto& [key, value] : recipe.items()) {
    if (key != "schema_version" && key != "description" && key != "config") {
      recipe_error(fmt::format("unknown key '{}' (expected schema_version, description, config)", key));
    }
  }
  if (recipe.value("schema_version", nlohmann::json()) != 1) recipe_error("expected \"schema_version\": 1");
  if (!recipe.contains("config") || !recipe["config"].is_object())
    recipe_error("expected a \"config\" object");
  for (const auto& [key, value] : recipe["config"].items()) {
    if (key == "Cmd") recipe_error("config must not set Cmd (the runner passes the benchmark argv)");
    if (key != "Entrypoint" && key != "WorkingDir" && key != "User" && key != "Env" && key != "Labels" &&
        key != "StopSignal") {
      recipe_error(fmt::format(
          "unknown config key '{}' (expected Entrypoint, WorkingDir, User, Env, Labels, StopSignal)", key));
    }
  }
  return recipe;
}

std::vector<std::string> entrypoint_of(const nlohmann::json& config, std::string_view first) {
  const auto& entrypoint = config.value("Entrypoint", nlohmann::json());
  if (!entrypoint.is_array() || entrypoint.empty() || entrypoint[0] != first) {
    recipe_error(fmt::format("config.Entrypoint must be an array starting with \"{}\"", first));
  }
  std::vector<std::string> out;
  for (const auto& arg : entrypoint) {
    if (!arg.is_string()) recipe_error("config.Entrypoint must hold strings only");
    out.push_back(arg.get<std::string>());
  }
  return out;
}

std::vector<std::string> env_of(const nlohmann::json& env) {
  if (!env.is_array()) recipe_error("config.Env must be an array of \"NAME=value\" strings");
  std::vector<std::string> out;
  for (const auto& item : env) {
    if (!item.is_string() || item.get<std::string>().find('=') == std::string::npos) {
      recipe_error("config.Env must be an array of \"NAME=value\" strings");
    }
    if (item.get<std::string>().starts_with("LD_LIBRARY_PATH=")) {
      recipe_error("config.Env must not set LD_LIBRARY_PATH (noisefloor derives it from the libraries)");
    }
    out.push_back(item.get<std::string>());
  }
  return out;
}

std::map<std::string, std::string> labels_of(const nlohmann::json& labels) {
  if (!labels.is_object()) recipe_error("config.Labels must be an object of strings");
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : labels.items()) {
    if (!value.is_string()) recipe_error(fmt::format("config.Labels.{} must be a string", key));
    out[key] = value.get<std::string>();
  }
  return out;
}

std::optional<std::string> string_of(const nlohmann::json& config, const char* key) {
  if (!config.contains(key)) return std::nullopt;
  if (!config[key].is_string()) recipe_error(fmt::format("config.{} must be a string", key));
  return config[key].get<std::string>();
}

}  // namespace

void to_json(nlohmann::json& j, const ImageConfig& c) {
  j = nlohmann::json{{"Entrypoint", c.entrypoint}};
  if (c.working_dir) j["WorkingDir"] = *c.working_dir;
  if (c.user) j["User"] = *c.user;
  if (c.stop_signal) j["StopSignal"] = *c.stop_signal;
  if (c.env) j["Env"] = *c.env;
  if (!c.labels.empty()) j["Labels"] = c.labels;
}

std::string config_text(const ImageConfig& config) { return nlohmann::json(config).dump(); }

ImageRecipe read_image_recipe(std::string_view text, std::string_view entrypoint) {
  const nlohmann::json recipe = parsed_recipe(text);
  const nlohmann::json& config = recipe["config"];
  ImageRecipe out;
  out.config.entrypoint = entrypoint_of(config, entrypoint);
  if (config.contains("Env")) out.config.env = env_of(config["Env"]);
  if (config.contains("Labels")) out.config.labels = labels_of(config["Labels"]);
  out.config.working_dir = string_of(config, "WorkingDir");
  out.config.user = string_of(config, "User");
  out.config.stop_signal = string_of(config, "StopSignal");
  out.canonical = recipe.dump();
  return out;
}

}  // namespace noisefloor::docker
