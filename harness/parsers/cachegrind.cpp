#include "parsers/cachegrind.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/errors.hpp"
#include "text/text.hpp"

namespace noisefloor::parsers {

namespace {

// What follows `key` on the last line that starts with it.
std::optional<std::string_view> cachegrind_line(std::string_view text, std::string_view key) {
  std::optional<std::string_view> found;
  for (const std::string_view line : text::lines(text))
    if (line.substr(0, key.size()) == key) found = line.substr(key.size());
  return found;
}

}  // namespace

model::CacheEvents parse_cachegrind_out(std::string_view text) {
  const auto events = cachegrind_line(text, "events:");
  const auto summary = cachegrind_line(text, "summary:");
  if (!events || !summary)
    throw ParseError(fmt::format("cachegrind output: no {} line (not a file cachegrind wrote whole)",
                                 events ? "summary:" : "events:"));
  const std::vector<std::string_view> names = text::fields(*events);
  const std::vector<std::string_view> counts = text::fields(*summary);
  if (names.size() != counts.size())
    throw ParseError(fmt::format("cachegrind output: {} events but {} counts in the summary", names.size(),
                                 counts.size()));
  model::CacheEvents e;
  const std::array<std::pair<const char*, std::int64_t*>, 9> wanted = {{{"Ir", &e.ir},
                                                                        {"I1mr", &e.i1mr},
                                                                        {"ILmr", &e.ilmr},
                                                                        {"Dr", &e.dr},
                                                                        {"D1mr", &e.d1mr},
                                                                        {"DLmr", &e.dlmr},
                                                                        {"Dw", &e.dw},
                                                                        {"D1mw", &e.d1mw},
                                                                        {"DLmw", &e.dlmw}}};
  for (const auto& [name, slot] : wanted) {
    std::size_t i = 0;
    while (i < names.size() && names[i] != name) ++i;
    if (i == names.size())
      throw ParseError(fmt::format("cachegrind output: no {} event (run with --cache-sim=yes)", name));
    const std::string_view c = counts[i];
    const auto [end, ec] = std::from_chars(c.data(), c.data() + c.size(), *slot);
    if (ec != std::errc() || end != c.data() + c.size() || *slot < 0)
      throw ParseError(fmt::format("cachegrind output: {} is '{}', not a count", name, c));
  }
  return e;
}

}  // namespace noisefloor::parsers
