// JSON that noisefloor did not necessarily write (a result directory, an engine's answer, a
// benchmark's output), parsed with a bound on its nesting: nlohmann's parser is iterative, but
// copying, converting and printing a document recurse once per level, and a 300 KB file of
// 150 000 nested arrays overflows the stack there. Nothing noisefloor reads nests deeper than a
// few dozen levels.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "model/errors.hpp"

namespace noisefloor::jsonread {

inline constexpr std::size_t kJsonDepthLimit = 256;

// The deepest nesting of arrays and objects in `text`, outside strings (a scan, no parse).
inline std::size_t json_depth(std::string_view text) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

// `text` parsed; throws ParseError "<what> is nested deeper than 256 levels …" beyond the bound
// (checked by a scan before the parse: no cost per value), and nlohmann's own parse_error on what
// is not JSON (as json::parse does).
inline nlohmann::json parse_json(std::string_view text, std::string_view what) {
  if (json_depth(text) > kJsonDepthLimit)
    throw ParseError(fmt::format("{} is nested deeper than {} levels (not something noisefloor wrote)", what,
                                 kJsonDepthLimit));
  return nlohmann::json::parse(text);
}

// Whether `text` is JSON: "" when it parses, else why not (the nesting bound included).
inline std::string json_problem(std::string_view text) {
  try {
    (void)parse_json(text, "the document");
    return "";
  } catch (const std::exception& err) {
    return err.what();
  }
}

// The same without exceptions: a discarded value when `text` is not JSON or nests too deep.
inline nlohmann::json parse_json_or_discarded(std::string_view text) {
  try {
    return parse_json(text, "JSON");
  } catch (const std::exception&) {
    return nlohmann::json(nlohmann::json::value_t::discarded);
  }
}

// A value from outside, as a message shows it: compact JSON, bytes that are not UTF-8 replaced
// (dump() would throw on them), cut at `most` bytes with "…".
inline std::string json_shown(const nlohmann::json& value, std::size_t most = 40) {
  std::string shown = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (shown.size() > most) shown = shown.substr(0, most) + "…";
  return shown;
}

// Reading JSON from outside (an engine's answer, another program's record): a member that is
// missing, or of another type than documented, reads as absent. nlohmann's value() would throw for
// a string where a boolean belongs, and the user would read "internal error" instead of a line
// about the data.
// The member `key` of `j`: a null value unless `j` is an object that has it.
inline const nlohmann::json& member(const nlohmann::json& j, std::string_view key) {
  static const nlohmann::json absent;
  if (!j.is_object()) return absent;
  const auto it = j.find(key);
  return it == j.end() ? absent : *it;
}
// Its string; `fallback` unless it is one.
inline std::string member_string(const nlohmann::json& j, std::string_view key,
                                 std::string_view fallback = "") {
  const nlohmann::json& m = member(j, key);
  return m.is_string() ? m.get<std::string>() : std::string(fallback);
}
// Whether it is the boolean true.
inline bool member_true(const nlohmann::json& j, std::string_view key) {
  const nlohmann::json& m = member(j, key);
  return m.is_boolean() && m.get<bool>();
}
// Its whole number; nullopt unless it is one that fits in 64 signed bits.
inline std::optional<std::int64_t> member_int(const nlohmann::json& j, std::string_view key) {
  const nlohmann::json& m = member(j, key);
  if (m.is_number_unsigned() && m.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
    return std::nullopt;
  if (m.is_number_integer()) return m.get<std::int64_t>();
  return std::nullopt;
}

}  // namespace noisefloor::jsonread
