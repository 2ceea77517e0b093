#include "records/sample.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "jsonread/number.hpp"
#include "model/errors.hpp"
#include "model/go_config.hpp"
#include "model/names.hpp"
#include "text/text.hpp"

namespace noisefloor::records {

Sample sample_of(const std::string& condition, const model::Measurement& m) {
  Sample s;
  s.condition = condition;
  s.benchmark = m.benchmark;
  s.name = m.name;
  s.procs = m.procs;
  s.iterations = m.iterations;
  s.metrics = m.metrics;
  s.config = m.config;
  return s;
}

void to_json(nlohmann::json& j, const Sample& s) {
  nlohmann::json metrics = nlohmann::json::array();
  for (const auto& m : s.metrics)
    metrics.push_back({{"value", std::isfinite(m.value) ? nlohmann::json(m.value) : nlohmann::json(nullptr)},
                       {"unit", m.unit}});
  j = {{"condition", s.condition},
       {"benchmark", s.benchmark},
       {"name", s.name},
       {"procs", s.procs},
       {"index", s.index},
       {"warmup", s.warmup},
       {"invocation", s.invocation},
       {"iterations", s.iterations},
       {"metrics", metrics},
       {"elapsed_s", s.elapsed_seconds},
       {"utc", s.utc}};
  if (!s.variant.empty()) {
    j["variant"] = s.variant;
    j["repeat"] = s.repeat;
    j["pair"] = s.pair;
    j["order"] = model::name_of(s.order);
  }
  if (s.session != 0) j["session"] = s.session;
  if (s.block != 0) j["block"] = s.block;
  if (!s.config.empty()) {
    nlohmann::json config = nlohmann::json::object();
    for (const auto& [key, value] : model::config_entries(s.config)) config[key] = value;
    j["config"] = config;
  }
}

model::PairOrder order_of(const nlohmann::json& j) {
  const auto it = j.find("order");
  if (it == j.end() || it->is_null()) return model::PairOrder::none;
  const std::string word = it->get<std::string>();
  if (const auto order = model::from_name<model::PairOrder>(word)) return *order;
  throw ParseError(fmt::format("\"order\": expected AB, BA, ABBA or BAAB, got {}", text::quote(word)));
}

void from_json(const nlohmann::json& j, Sample& s) {
  try {
    s = {};
    // As the file has them: Samples keeps every string escaped when it takes the sample in.
    s.condition = j.at("condition").get<std::string>();
    s.benchmark = j.at("benchmark").get<std::string>();
    s.name = j.value("name", s.benchmark);
    s.procs = jsonread::whole_number<int>(j, "procs", 1);
    s.index = jsonread::whole_number<decltype(s.index)>(j, "index", 0);
    s.warmup = j.value("warmup", false);
    s.invocation = jsonread::whole_number<decltype(s.invocation)>(j, "invocation", 0);
    s.iterations = jsonread::whole_number<std::int64_t>(j, "iterations", 0);
    // A counter that was not a number is written as null (JSON has no NaN) and read back as NaN.
    for (const auto& m : j.at("metrics"))
      s.metrics.push_back(
          {m.at("value").is_null() ? std::numeric_limits<double>::quiet_NaN() : m.at("value").get<double>(),
           m.at("unit").get<std::string>()});
    if (s.metrics.empty()) throw ParseError("sample: no metrics");
    s.variant = j.value("variant", "");
    s.repeat = jsonread::whole_number<decltype(s.repeat)>(j, "repeat", -1);
    s.pair = j.value("pair", "");
    s.order = order_of(j);
    s.elapsed_seconds = j.value("elapsed_s", 0.0);
    s.utc = j.value("utc", "");
    s.session = jsonread::whole_number<decltype(s.session)>(j, "session", 0);
    s.block = jsonread::whole_number<decltype(s.block)>(j, "block", 0);
    if (const auto config = j.find("config"); config != j.end() && !config->is_null()) {
      std::map<std::string, std::string> entries;
      for (const auto& [key, value] : config->items()) entries[key] = value.get<std::string>();
      s.config = model::config_text(entries);
    }
  } catch (const nlohmann::json::exception& e) {
    throw ParseError(fmt::format("sample: {}", e.what()));
  }
}

}  // namespace noisefloor::records
