// The typed values of a YAML node, each error with file:line:col (config/reader.hpp).
#include "config/reader.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/cpulist.hpp"
#include "model/errors.hpp"

namespace noisefloor::config::detail {
namespace {

constexpr std::int64_t kMinContainerMemory = 6 * 1024 * 1024;  // the engine's own minimum

}  // namespace

void Reader::fail(const YAML::Mark& mark_in, const std::string& message) const {
  // A value a sweep's range generated has no place of its own: the sweep's is given.
  const YAML::Mark mark = mark_in.is_null() && fallback_mark_ ? *fallback_mark_ : mark_in;
  if (mark.is_null()) throw ConfigError(fmt::format("{}: {}", file_, message));
  throw ConfigError(fmt::format("{}:{}:{}: {}", file_, mark.line + 1, mark.column + 1, message));
}

void Reader::fail(const YAML::Node& node, const std::string& message) const { fail(node.Mark(), message); }

SourceMark Reader::mark_of(const YAML::Node& node) {
  const auto m = node.Mark();
  if (m.is_null()) return {};
  return {m.line + 1, m.column + 1};
}

SourceMark Reader::key_mark(const YAML::Node& node, std::string_view key) {
  for (const auto& kv : node)
    if (kv.first.IsScalar() && kv.first.Scalar() == key) return mark_of(kv.first);
  return {};
}

void Reader::check_keys(const YAML::Node& map, const std::vector<std::string>& valid,
                        std::string_view context) const {
  std::set<std::string> seen;
  for (const auto& kv : map) {
    const YAML::Node& key = kv.first;
    if (!key.IsScalar())
      fail(key, fmt::format("{}keys must be plain names, got {}",
                            context.empty() ? "" : fmt::format("{}: ", context), describe(key)));
    const std::string& k = key.Scalar();
    if (std::find(valid.begin(), valid.end(), k) == valid.end()) {
      const std::string near = closest_key(k, valid);
      const std::string where = context.empty() ? "" : fmt::format(" in {}", context);
      if (!near.empty())
        fail(key, fmt::format("unknown key {}{} (did you mean {}?)", quote(k), where, quote(near)));
      fail(key,
           fmt::format("unknown key {}{} (expected one of: {})", quote(k), where, fmt::join(valid, ", ")));
    }
    if (!seen.insert(k).second) fail(key, fmt::format("duplicate key {}", quote(k)));
  }
}

void Reader::require_map(const YAML::Node& node, std::string_view path) const {
  if (!node.IsMap()) fail(node, fmt::format("{}: expected a mapping of keys to values", path));
}

std::string Reader::get_string(const YAML::Node& node, std::string_view path) const {
  if (!node.IsScalar()) fail(node, fmt::format("{}: expected a string", path));
  return node.Scalar();
}

std::int64_t Reader::get_int(const YAML::Node& node, std::string_view path, std::int64_t min,
                             std::string_view expectation, std::int64_t max) const {
  const std::string text = node.IsScalar() ? node.Scalar() : std::string();
  std::int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (!node.IsScalar() || text.empty() || ec != std::errc{} || ptr != text.data() + text.size())
    fail(node, fmt::format("{}: expected {}, got {}", path, expectation, describe(node)));
  if (value < min) fail(node, fmt::format("{}: expected {}, got {}", path, expectation, value));
  if (value > max) fail(node, fmt::format("{}: {} is too large (at most {})", path, value, max));
  return value;
}

double Reader::get_number(const YAML::Node& node, std::string_view path) const {
  const std::string text = node.IsScalar() ? node.Scalar() : std::string();
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (!node.IsScalar() || text.empty() || ec != std::errc{} || ptr != text.data() + text.size() ||
      !std::isfinite(value))
    fail(node, fmt::format("{}: expected a number, got {}", path, describe(node)));
  return value;
}

bool Reader::get_bool(const YAML::Node& node, std::string_view path) const {
  static constexpr std::pair<std::string_view, bool> kWords[] = {
      {"true", true}, {"yes", true}, {"on", true}, {"false", false}, {"no", false}, {"off", false}};
  const std::string text = node.IsScalar() ? node.Scalar() : std::string();
  for (const auto& [word, value] : kWords)
    if (text == word) return value;
  fail(node, fmt::format("{}: expected true or false, got {}", path, describe(node)));
}

int Reader::get_nice(const YAML::Node& node, std::string_view path) const {
  const std::int64_t n = get_int(node, path, -20, "a nice value from -20 to 19");
  if (n > 19) fail(node, fmt::format("{}: expected a nice value from -20 to 19, got {}", path, n));
  return static_cast<int>(n);
}

std::vector<std::string> Reader::get_argv(const YAML::Node& node, std::string_view path) const {
  if (!node.IsSequence() || node.size() == 0)
    fail(node, fmt::format("{}: expected a non-empty list of arguments such as [go, test, -bench, .] "
                           "(an argv vector: it is never run through a shell)",
                           path));
  std::vector<std::string> argv;
  for (const auto& item : node) {
    if (!item.IsScalar())
      fail(item, fmt::format("{}: each argument must be a string, got {}", path, describe(item)));
    argv.push_back(item.Scalar());
  }
  if (argv.front().empty()) fail(node, fmt::format("{}: the program name is empty", path));
  return argv;
}

std::map<std::string, std::string> Reader::get_env(const YAML::Node& node, std::string_view path) const {
  require_map(node, path);
  std::map<std::string, std::string> env;
  for (const auto& kv : node) {
    const std::string key = get_string(kv.first, path);
    const bool valid_name = !key.empty() && !std::isdigit(static_cast<unsigned char>(key[0])) &&
                            std::all_of(key.begin(), key.end(), [](char c) {
                              return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                            });
    if (!valid_name)
      fail(kv.first, fmt::format("{}: {} is not a valid environment variable name", path, quote(key)));
    if (!kv.second.IsScalar()) fail(kv.second, fmt::format("{}.{}: expected a string value", path, key));
    if (!env.emplace(key, kv.second.Scalar()).second)
      fail(kv.first, fmt::format("duplicate key {}", quote(key)));
  }
  return env;
}

std::vector<int> Reader::get_cpus(const YAML::Node& node, std::string_view path) const {
  std::optional<std::vector<int>> cpus;
  if (node.IsSequence()) {
    cpus.emplace();
    for (const auto& item : node)
      cpus->push_back(static_cast<int>(get_int(item, path, 0, "a CPU number", 8191)));
    std::sort(cpus->begin(), cpus->end());
    cpus->erase(std::unique(cpus->begin(), cpus->end()), cpus->end());
  } else if (node.IsScalar()) {
    cpus = model::parse_cpu_list(node.Scalar());
  }
  if (!cpus || cpus->empty())
    fail(node, fmt::format("{}: expected a CPU list such as \"0\", \"0-3\" or \"1,3\", got {}", path,
                           describe(node)));
  check_cpus_online(node, path, *cpus);
  return *cpus;
}

void Reader::check_cpus_online(const YAML::Node& node, std::string_view path,
                               const std::vector<int>& cpus) const {
  if (host_.online_cpus.empty()) return;  // unknown host: the runner checks again
  for (int cpu : cpus) {
    if (!std::binary_search(host_.online_cpus.begin(), host_.online_cpus.end(), cpu))
      fail(node, fmt::format("{}: CPU {} is not available on this host (online CPUs: {})", path, cpu,
                             model::format_cpu_list(host_.online_cpus)));
  }
}

model::Seconds Reader::get_duration(const YAML::Node& node, std::string_view path, model::Seconds min) const {
  const auto d = node.IsScalar() ? parse_duration(node.Scalar()) : std::nullopt;
  if (!d)
    fail(node, fmt::format("{}: expected a duration such as 30s, 10m or 1.5s, got {}", path, describe(node)));
  if (d->count() > 1e6) fail(node, fmt::format("{}: at most 1000000s (11.6 days)", path));
  if (*d < min)
    fail(node, fmt::format("{}: expected at least {}ms, got {}", path, min.count() * 1000, describe(node)));
  return *d;
}

std::string Reader::describe(const YAML::Node& node) const {
  if (node.IsScalar()) return quote(node.Scalar());
  if (node.IsSequence()) return "a list";
  if (node.IsMap()) return "a mapping";
  return "nothing";
}

double Reader::get_percent(const YAML::Node& node, std::string_view path) const {
  const auto fraction = text::parse_percent(node.IsScalar() ? node.Scalar() : std::string());
  if (!fraction)
    fail(node, fmt::format("{}: expected a percentage such as 1% or 0.5%, got {}", path, describe(node)));
  return *fraction;
}

std::int64_t Reader::get_memory(const YAML::Node& node, const std::string& path, bool allow_unlimited) const {
  if (allow_unlimited && node.IsScalar() && node.Scalar() == "-1") return -1;
  const auto v = node.IsScalar() ? parse_size(node.Scalar()) : std::nullopt;
  if (!v) fail(node, fmt::format("{}: expected a size such as 512m or 1g, got {}", path, describe(node)));
  if (*v < kMinContainerMemory)
    fail(node, fmt::format("{}: {} bytes is below the engine's minimum of 6m", path, *v));
  return *v;
}

}  // namespace noisefloor::config::detail
