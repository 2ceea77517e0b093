#include "analysis/rooms.hpp"

#include <algorithm>
#include <set>

#include "fingerprint/facts.hpp"

namespace noisefloor::analysis {
namespace {

using fingerprint::is_fact;
using nlohmann::json;

bool matches(std::string_view field, std::string_view pattern) {
  if (pattern.ends_with(".*")) {
    const auto base = pattern.substr(0, pattern.size() - 2);
    return field == base ||
           (field.starts_with(base) && field.size() > base.size() && field[base.size()] == '.');
  }
  return field == pattern;
}

template <std::size_t N>
bool matches_any(std::string_view field, const std::string_view (&patterns)[N]) {
  return std::any_of(std::begin(patterns), std::end(patterns),
                     [&](std::string_view p) { return matches(field, p); });
}

// path or a benchmark-moving field below it (a whole group that changed shape).
bool moves_below(std::string_view path) {
  if (matches_any(path, kBenchmarkMovingFields)) return true;
  return std::any_of(std::begin(kBenchmarkMovingFields), std::end(kBenchmarkMovingFields),
                     [&](std::string_view p) {
                       return p.size() > path.size() && p.starts_with(path) && p[path.size()] == '.';
                     });
}

std::string show(const json* node) {
  if (node == nullptr) return "(absent)";
  if (is_fact(*node)) {
    if (node->at("value").is_null()) {
      const auto it = node->find("unknown");
      return it != node->end() && it->is_string() ? "unknown (" + it->get<std::string>() + ")" : "null";
    }
    return show(&node->at("value"));
  }
  if (node->is_string()) return node->get<std::string>();
  return node->dump();
}

// The comparable content of a leaf: a fact's value (or its unknown reason), else the node.
json content(const json* node) {
  if (node == nullptr) return json{{"absent", true}};
  if (is_fact(*node)) {
    if (node->at("value").is_null()) return json{{"unknown", node->value("unknown", "")}};
    return node->at("value");
  }
  return *node;
}

bool is_group(const json* node) { return node != nullptr && node->is_object() && !is_fact(*node); }

void walk(const json* a, const json* b, const std::string& path, std::vector<Difference>& out) {
  if (!path.empty() && matches_any(path, kVolatileFields)) return;
  if (is_group(a) || is_group(b)) {
    // A group on one side against a leaf (or nothing) on the other: compare key by key.
    std::set<std::string> keys;
    for (const json* side : {a, b}) {
      if (is_group(side)) {
        for (auto it = side->begin(); it != side->end(); ++it) keys.insert(it.key());
      }
    }
    if (!(is_group(a) && is_group(b)) && a != nullptr && b != nullptr) {
      // Shape changed (e.g. an unknown fact became a group): report the whole node.
      out.push_back({path, show(a), show(b), moves_below(path)});
      return;
    }
    for (const auto& key : keys) {
      const json* ca = is_group(a) && a->contains(key) ? &a->at(key) : nullptr;
      const json* cb = is_group(b) && b->contains(key) ? &b->at(key) : nullptr;
      walk(ca, cb, path.empty() ? key : path + "." + key, out);
    }
    return;
  }
  if (content(a) == content(b)) return;
  // An engine fact one run recorded and the other did not (a host-only run never asks the engine)
  // was not needed by one of them: listed, but it does not make the rooms differ. (An absent
  // environment variable is a value: unset.)
  const bool unneeded = (a == nullptr || b == nullptr) && path.starts_with("engine.");
  out.push_back({path, show(a), show(b), !unneeded && matches_any(path, kBenchmarkMovingFields)});
}

void collect(const json& node, const std::string& path,
             std::vector<std::pair<std::string, std::string>>& out) {
  if (!path.empty() && matches_any(path, kVolatileFields)) return;
  if (is_group(&node)) {
    for (auto it = node.begin(); it != node.end(); ++it)
      collect(it.value(), path.empty() ? it.key() : path + "." + it.key(), out);
    return;
  }
  if (matches_any(path, kBenchmarkMovingFields)) out.emplace_back(path, content(&node).dump());
}

}  // namespace

std::vector<std::pair<std::string, std::string>> benchmark_moving_facts(
    const records::Fingerprint& fingerprint) {
  const json j = fingerprint;
  std::vector<std::pair<std::string, std::string>> out;
  collect(j, "", out);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Difference> differences(const records::Fingerprint& fa, const records::Fingerprint& fb) {
  // The comparison is over the fingerprints as recorded, field by field (their JSON form).
  const json a = fa, b = fb;
  std::vector<Difference> out;
  walk(&a, &b, "", out);
  std::stable_partition(out.begin(), out.end(), [](const Difference& d) { return d.moves_benchmarks; });
  return out;
}

}  // namespace noisefloor::analysis
