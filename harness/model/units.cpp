#include "model/units.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <initializer_list>

#include "model/simulation.hpp"
#include "text/units.hpp"

namespace noisefloor::model {
namespace {

// `word` is one of `words`.
bool one_of(std::string_view word, std::initializer_list<std::string_view> words) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

bool is_time(std::string_view token) {
  return one_of(token, {"sec", "s", "ns", "us", "µs", "ms", "seconds"});
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::string_view next_field(std::string_view& rest) {
  while (!rest.empty() && is_space(rest.front())) rest.remove_prefix(1);
  std::size_t end = 0;
  while (end < rest.size() && !is_space(rest[end])) ++end;
  const std::string_view field = rest.substr(0, end);
  rest.remove_prefix(end);
  return field;
}

}  // namespace

std::string_view to_string(Better better) { return model::name_of(better); }

std::optional<std::string> UnitMetadata::set(const std::string& unit, const std::string& key,
                                             const std::string& value) {
  const std::string tidied = text::tidy_unit(unit).first;
  auto& keys = units[tidied];
  const auto [it, added] = keys.emplace(key, value);
  if (added || it->second == value) return std::nullopt;
  return fmt::format("metadata {} of unit {} already set to {}", key, unit, it->second);
}

std::string UnitMetadata::get(const std::string& unit, const std::string& key) const {
  const auto u = units.find(text::tidy_unit(unit).first);
  if (u == units.end()) return "";
  const auto k = u->second.find(key);
  return k == u->second.end() ? "" : k->second;
}

std::vector<std::string> UnitMetadata::merge(const UnitMetadata& other) {
  std::vector<std::string> conflicts;
  for (const auto& [unit, keys] : other.units)
    for (const auto& [key, value] : keys)
      if (auto c = set(unit, key, value)) conflicts.push_back(std::move(*c));
  return conflicts;
}

Quantity quantity_of(std::string_view unit) {
  const std::string tidied = text::tidy_unit(std::string(unit)).first;
  if (tidied.ends_with("_per_second")) return Quantity::rate;
  const auto tokens = text::unit_tokens(tidied);
  bool time_above = false, time_below = false;
  for (const auto& t : tokens) {
    if (!is_time(t.text)) continue;
    (t.denominator ? time_below : time_above) = true;
  }
  if (time_below && !time_above) return Quantity::rate;
  if (time_above && !time_below) return Quantity::time;
  return Quantity::other;
}

Better better_of(std::string_view unit, const UnitMetadata& metadata) {
  const std::string tidied = text::tidy_unit(std::string(unit)).first;
  const std::string said = metadata.get(tidied, "better");
  if (const auto stated = from_name<Better>(said); stated && *stated != Better::unknown) return *stated;
  // go test's own units, and the counters `metric: instructions` (and its kin) make: less work, or
  // fewer misses, is better.
  if (one_of(tidied, {"sec/op", "B/op", "allocs/op", "instructions/op", "cycles/op", "branch-misses/op",
                      "cache-misses/op", "task-clock-ns/op"}) ||
      is_simulated_unit(tidied))
    return Better::lower;
  if (tidied == "B/s") return Better::higher;
  switch (quantity_of(tidied)) {
    case Quantity::time:
      return Better::lower;
    case Quantity::rate:
      return Better::higher;
    case Quantity::other:
      break;
  }
  return Better::unknown;
}

bool assume_exact(std::string_view unit, const UnitMetadata& metadata) {
  return metadata.get(std::string(unit), "assume") == "exact";
}

bool exact_samples(std::string_view unit, const UnitMetadata& metadata,
                   std::initializer_list<std::span<const double>> sides) {
  if (assume_exact(unit, metadata)) return true;
  if (!is_simulated_unit(unit)) return false;
  for (const auto side : sides)
    if (std::adjacent_find(side.begin(), side.end(), std::not_equal_to<>()) != side.end()) return false;
  return true;
}

std::optional<UnitLine> parse_unit_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::string_view rest = line;
  if (!line.starts_with('U') || next_field(rest) != "Unit") return std::nullopt;
  UnitLine out;
  const std::string_view unit = next_field(rest);
  if (unit.empty()) {
    out.errors.push_back("missing unit");
    return out;
  }
  out.unit = std::string(unit);
  for (std::string_view field = next_field(rest); !field.empty(); field = next_field(rest)) {
    const std::size_t eq = field.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      out.errors.push_back("expected key=value");
      continue;
    }
    out.pairs.emplace_back(std::string(field.substr(0, eq)), std::string(field.substr(eq + 1)));
  }
  return out;
}

}  // namespace noisefloor::model
