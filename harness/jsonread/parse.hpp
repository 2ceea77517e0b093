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
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

// The members of a top-level JSON object, each key as written (between its quotes) beside its
// value's text, found by a scan that builds nothing; nullopt where `text` is not an object of that
// shape (the scan checks strings and nesting only: a value is checked when it is parsed).
inline std::optional<std::vector<std::pair<std::string_view, std::string_view>>> member_texts(
    std::string_view text) {
  std::size_t at = 0;
  const auto space = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
  const auto skip_space = [&] {
    while (at < text.size() && space(text[at])) ++at;
  };
  const auto end_of_string = [&](std::size_t quote) -> std::size_t {  // the closing quote's index
    for (std::size_t i = quote + 1; i < text.size(); ++i)
      if (text[i] == '\\')
        ++i;
      else if (text[i] == '"')
        return i;
    return std::string_view::npos;
  };
  std::vector<std::pair<std::string_view, std::string_view>> members;
  skip_space();
  if (at == text.size() || text[at++] != '{') return std::nullopt;
  skip_space();
  if (at < text.size() && text[at] == '}') return members;
  while (true) {
    skip_space();
    if (at == text.size() || text[at] != '"') return std::nullopt;
    const std::size_t close = end_of_string(at);
    if (close == std::string_view::npos) return std::nullopt;
    const std::string_view key = text.substr(at + 1, close - at - 1);
    at = close + 1;
    skip_space();
    if (at == text.size() || text[at++] != ':') return std::nullopt;
    skip_space();
    const std::size_t value = at;
    std::size_t depth = 0;
    for (; at < text.size(); ++at) {
      const char c = text[at];
      if (c == '"') {
        if ((at = end_of_string(at)) == std::string_view::npos) return std::nullopt;
      } else if (c == '[' || c == '{') {
        ++depth;
      } else if (c == ']' || c == '}') {
        if (depth == 0) break;
        --depth;
      } else if (c == ',' && depth == 0) {
        break;
      }
    }
    if (at == text.size()) return std::nullopt;
    std::string_view shown = text.substr(value, at - value);
    while (!shown.empty() && space(shown.back())) shown.remove_suffix(1);
    members.emplace_back(key, shown);
    if (text[at++] == '}') break;
  }
  skip_space();
  return at == text.size() ? std::optional(members) : std::nullopt;
}

// `text` as parse_json reads it, of a top-level object only the members named in `keep` (a large
// document read for a few of its members: the others are passed over by member_texts, never
// parsed). Where `text` is not an object, the whole of it is parsed (and its error thrown).
inline nlohmann::json parse_json_members(std::string_view text, std::string_view what,
                                         std::initializer_list<std::string_view> keep) {
  const auto members = member_texts(text);
  if (!members) return parse_json(text, what);
  std::string kept = "{";
  for (const auto& [key, value] : *members)
    if (std::find(keep.begin(), keep.end(), key) != keep.end())
      kept += fmt::format("{}\"{}\":{}", kept.size() > 1 ? "," : "", key, value);
  return parse_json(kept + "}", what);
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
