// JSON that noisefloor did not necessarily write (a result directory, an engine's answer, a
// benchmark's output), parsed with a bound on its nesting: nlohmann's parser is iterative, but
// copying, converting and printing a document recurse once per level, and a 300 KB file of
// 150 000 nested arrays overflows the stack there. Nothing noisefloor reads nests deeper than a
// few dozen levels.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "model/errors.hpp"

namespace noisefloor::model {

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

}  // namespace noisefloor::model
