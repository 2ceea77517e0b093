// Whole numbers out of JSON that noisefloor did not necessarily write (a hand-edited or damaged
// result). nlohmann's own conversion of a JSON float to an integer type is a static_cast, which is
// undefined behaviour when the value does not fit (found by fuzzing: "procs": 5.5e67); these
// accept only a JSON integer within the target type's range and say otherwise.
#pragma once

#include <fmt/format.h>

#include <concepts>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "model/errors.hpp"

namespace noisefloor::jsonread {

// `value` as Int; throws ParseError "<what>: expected a whole number …, got <value>".
template <std::integral Int>
Int whole_number(const nlohmann::json& value, std::string_view what) {
  if (value.is_number_unsigned()) {
    const auto u = value.get<std::uint64_t>();
    if (std::cmp_less_equal(u, std::numeric_limits<Int>::max())) return static_cast<Int>(u);
  } else if (value.is_number_integer()) {
    const auto i = value.get<std::int64_t>();
    if (std::in_range<Int>(i)) return static_cast<Int>(i);
  }
  throw ParseError(fmt::format("{}: expected a whole number from {} to {}, got {}", what,
                               std::numeric_limits<Int>::min(), std::numeric_limits<Int>::max(),
                               value.dump()));
}

// object[key] as Int, or `fallback` when the key is absent.
template <std::integral Int>
Int whole_number(const nlohmann::json& object, const char* key, std::type_identity_t<Int> fallback) {
  const auto it = object.find(key);
  return it == object.end() ? fallback : whole_number<Int>(*it, key);
}

// object[key] as a list of Int (empty when absent).
template <std::integral Int>
std::vector<Int> whole_numbers(const nlohmann::json& object, const char* key) {
  std::vector<Int> out;
  const auto it = object.find(key);
  if (it == object.end()) return out;
  if (!it->is_array())
    throw ParseError(fmt::format("{}: expected a list of whole numbers, got {}", key, it->dump()));
  for (const auto& v : *it) out.push_back(whole_number<Int>(v, key));
  return out;
}

// A record's "schema_version" (1 when absent), refused when newer than `newest` this build reads:
// ParseError "<prefix>schema_version 2 is newer than this noisefloor reads (1): upgrade noisefloor".
inline void check_schema_version(const nlohmann::json& j, int newest, std::string_view prefix = {}) {
  const int version = whole_number<int>(j, "schema_version", 1);
  if (version > newest)
    throw ParseError(
        fmt::format("{}schema_version {} is newer than this noisefloor reads ({}): upgrade noisefloor",
                    prefix, version, newest));
}

}  // namespace noisefloor::jsonread
