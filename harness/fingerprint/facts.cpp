#include "fingerprint/facts.hpp"

#include <algorithm>
#include <vector>

#include "jsonread/number.hpp"
#include "model/cpulist.hpp"

namespace noisefloor::fingerprint {

using nlohmann::json;

namespace {

// The node at a '.'-separated path, or nullptr.
const json* node_at(const json& root, std::string_view path) {
  const json* node = &root;
  while (!path.empty()) {
    const auto dot = path.find('.');
    const std::string part(path.substr(0, dot));
    if (!node->is_object()) return nullptr;
    const auto it = node->find(part);
    if (it == node->end()) return nullptr;
    node = &*it;
    path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
  }
  return node;
}

}  // namespace

json known(json value) { return json{{"value", std::move(value)}}; }

json unknown(std::string reason) { return json{{"value", nullptr}, {"unknown", std::move(reason)}}; }

bool is_fact(const json& j) { return j.is_object() && j.contains("value"); }

bool is_known(const json& j) { return is_fact(j) && !j.at("value").is_null(); }

json collapse_per_cpu(const std::map<int, json>& per_cpu) {
  if (per_cpu.empty()) return nullptr;
  const json& first = per_cpu.begin()->second;
  const bool all_same =
      std::all_of(per_cpu.begin(), per_cpu.end(), [&](const auto& kv) { return kv.second == first; });
  if (all_same) return first;
  // Group CPUs by value, keyed by the group's canonical CPU list.
  std::vector<std::pair<json, std::vector<int>>> groups;
  for (const auto& [cpu, value] : per_cpu) {
    const json& v = value;  // (clang 14 cannot capture a structured binding)
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == v; });
    if (it == groups.end()) {
      groups.push_back({value, {cpu}});
    } else {
      it->second.push_back(cpu);
    }
  }
  json out = json::object();
  for (const auto& [value, cpus] : groups) out[model::format_cpu_list(cpus)] = value;
  return out;
}

const json* known_value(const json& root, std::string_view path) {
  const json* node = node_at(root, path);
  return node != nullptr && is_known(*node) ? &node->at("value") : nullptr;
}

std::string unknown_reason(const json& root, std::string_view path) {
  const json* node = node_at(root, path);
  if (node == nullptr) return "missing";
  if (node->is_object() && node->contains("unknown") && node->at("unknown").is_string())
    return node->at("unknown").get<std::string>();
  return is_known(*node) ? "" : "missing";
}

FactTree::FactTree() : document_(json::object()) {}
FactTree::FactTree(json document) : document_(document.is_object() ? std::move(document) : json::object()) {}

std::optional<std::string> FactTree::text(std::string_view path) const {
  const json* v = known_value(document_, path);
  return v != nullptr && v->is_string() ? std::optional(v->get<std::string>()) : std::nullopt;
}

std::optional<double> FactTree::number(std::string_view path) const {
  const json* v = known_value(document_, path);
  return v != nullptr && v->is_number() ? std::optional(v->get<double>()) : std::nullopt;
}

std::optional<bool> FactTree::flag(std::string_view path) const {
  const json* v = known_value(document_, path);
  return v != nullptr && v->is_boolean() ? std::optional(v->get<bool>()) : std::nullopt;
}

std::string FactTree::show(std::string_view path) const {
  const json* node = node_at(document_, path);
  if (node == nullptr) return "unknown";
  const json& v = is_fact(*node) ? node->at("value") : *node;
  if (v.is_null()) return "unknown";
  return v.is_string() ? v.get<std::string>() : v.dump();
}

std::string FactTree::reason(std::string_view path) const { return unknown_reason(document_, path); }

bool FactTree::empty() const { return document_.empty(); }

void to_json(json& j, const FactTree& tree) { j = tree.document(); }
void from_json(const json& j, FactTree& tree) { tree = FactTree(j); }

void to_json(json& j, const LoadReading& load) {
  if (!load.value) {
    j = unknown(load.unknown);
    return;
  }
  const LoadAverage& l = *load.value;
  j = known(
      {{"one", l.one}, {"five", l.five}, {"fifteen", l.fifteen}, {"running", l.running}, {"total", l.total}});
}

void from_json(const json& j, LoadReading& load) {
  load = {};
  if (j.is_object() && j.contains("load1")) {  // the flat shape of the first 0.1 results
    load.value = LoadAverage{j.value("load1", 0.0), j.value("load5", 0.0), j.value("load15", 0.0),
                             jsonread::whole_number<int>(j, "runnable", 0),
                             jsonread::whole_number<int>(j, "tasks", 0)};
    return;
  }
  if (!is_known(j)) {
    load.unknown =
        j.is_object() ? j.value("unknown", std::string("not recorded")) : std::string("not recorded");
    return;
  }
  const json& v = j.at("value");
  load.value =
      LoadAverage{v.value("one", 0.0), v.value("five", 0.0), v.value("fifteen", 0.0),
                  jsonread::whole_number<int>(v, "running", 0), jsonread::whole_number<int>(v, "total", 0)};
}

}  // namespace noisefloor::fingerprint
