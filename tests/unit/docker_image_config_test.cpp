// The image recipe (containers/auto/image.json) as docker/image_config.hpp reads it, and the
// config's JSON an image id is hashed from.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "docker/image_config.hpp"
#include "model/errors.hpp"

using namespace noisefloor::docker;
using noisefloor::RunError;

namespace {

std::string repo_recipe() {
  std::ifstream in(NF_TEST_DATA_DIR "/../../containers/auto/image.json");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string recipe_with(const std::string& config) {
  return R"({"schema_version": 1, "config": )" + config + "}";
}

}  // namespace

TEST_CASE("image recipe: the repository's recipe, typed and back to the same JSON") {
  const ImageRecipe r = read_image_recipe(repo_recipe(), "/noisefloor/probe");
  CHECK(r.config.entrypoint == std::vector<std::string>{"/noisefloor/probe", "--"});
  CHECK(r.config.working_dir == "/tmp");
  CHECK(r.config.user == "65534:65534");
  CHECK(r.config.env == std::vector<std::string>{});  // present, empty: "Env": [] stays
  CHECK(r.config.labels == std::map<std::string, std::string>{{"noisefloor.image", "auto"}});
  CHECK_FALSE(r.config.stop_signal);
  const nlohmann::json recipe = nlohmann::json::parse(repo_recipe());
  CHECK(config_text(r.config) == recipe["config"].dump());  // the bytes an image's hash covers
  CHECK(r.canonical == recipe.dump());
}

TEST_CASE("image recipe: what is wrong, said with the file") {
  const auto wrong = [](const std::string& text) {
    try {
      (void)read_image_recipe(text, "/noisefloor/probe");
    } catch (const RunError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const std::string at = "image recipe (containers/auto/image.json): ";
  CHECK(wrong("{").starts_with(at + "not valid JSON: "));
  CHECK(wrong("[]") == at + "expected a JSON object");
  CHECK(wrong(R"({"schema_version": 2, "config": {}})") == at + "expected \"schema_version\": 1");
  CHECK(wrong(R"({"schema_version": 1, "config": {}, "x": 1})") ==
        at + "unknown key 'x' (expected schema_version, description, config)");
  CHECK(wrong(R"({"schema_version": 1})") == at + "expected a \"config\" object");
  const std::string probe = R"("Entrypoint": ["/noisefloor/probe"])";
  CHECK(wrong(recipe_with(R"({"Entrypoint": ["/noisefloor/probe"], "Cmd": ["x"]})")) ==
        at + "config must not set Cmd (the runner passes the benchmark argv)");
  CHECK(wrong(recipe_with(R"({"Entrypoint": ["/bin/sh"]})")) ==
        at + "config.Entrypoint must be an array starting with \"/noisefloor/probe\"");
  CHECK(wrong(recipe_with(R"({"Entrypoint": ["/noisefloor/probe", 1]})")) ==
        at + "config.Entrypoint must hold strings only");
  CHECK(wrong(recipe_with("{" + probe + R"(, "Env": ["NOEQUALS"]})")) ==
        at + "config.Env must be an array of \"NAME=value\" strings");
  CHECK(wrong(recipe_with("{" + probe + R"(, "Env": ["LD_LIBRARY_PATH=/x"]})")) ==
        at + "config.Env must not set LD_LIBRARY_PATH (noisefloor derives it from the libraries)");
  CHECK(wrong(recipe_with("{" + probe + R"(, "Labels": {"a": 1}})")) ==
        at + "config.Labels.a must be a string");
  CHECK(wrong(recipe_with("{" + probe + R"(, "User": 0})")) == at + "config.User must be a string");
  CHECK(wrong(recipe_with("{" + probe + R"(, "Healthcheck": {}})")) ==
        at + "unknown config key 'Healthcheck' (expected Entrypoint, WorkingDir, User, Env, Labels, "
             "StopSignal)");
  CHECK(wrong(recipe_with("{" + probe + "}")) == "accepted");
}

TEST_CASE("image config: unset fields are absent from its JSON") {
  CHECK(config_text(ImageConfig{.entrypoint = {"/p"}}) == R"({"Entrypoint":["/p"]})");
  CHECK(config_text(ImageConfig{
            .entrypoint = {"/p"}, .stop_signal = "SIGINT", .env = std::vector<std::string>{"A=1"}}) ==
        R"({"Entrypoint":["/p"],"Env":["A=1"],"StopSignal":"SIGINT"})");
}
