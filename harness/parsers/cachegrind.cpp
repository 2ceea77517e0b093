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

// The events the counts need, found by name in `events:` and read from `summary:`; `short_ok`
// reads counts left out at the end as 0 (callgrind's files), `tool` names the file in errors.
model::CacheEvents summary_events(std::string_view text, std::string_view tool, bool short_ok) {
  const auto events = cachegrind_line(text, "events:");
  const auto summary = cachegrind_line(text, "summary:");
  if (!events || !summary)
    throw ParseError(fmt::format("{} output: no {} line (not a file {} wrote whole)", tool,
                                 events ? "summary:" : "events:", tool));
  const std::vector<std::string_view> names = text::fields(*events);
  const std::vector<std::string_view> counts = text::fields(*summary);
  if (counts.size() > names.size() || (!short_ok && counts.size() != names.size()))
    throw ParseError(
        fmt::format("{} output: {} events but {} counts in the summary", tool, names.size(), counts.size()));
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
      throw ParseError(fmt::format("{} output: no {} event (run with --cache-sim=yes)", tool, name));
    if (i >= counts.size()) continue;  // left out: 0
    const std::string_view c = counts[i];
    const auto [end, ec] = std::from_chars(c.data(), c.data() + c.size(), *slot);
    if (ec != std::errc() || end != c.data() + c.size() || *slot < 0)
      throw ParseError(fmt::format("{} output: {} is '{}', not a count", tool, name, c));
  }
  return e;
}

}  // namespace

model::CacheEvents parse_cachegrind_out(std::string_view text) {
  return summary_events(text, "cachegrind", false);
}

CallgrindDump parse_callgrind_dump(std::string_view text) {
  const auto trigger = cachegrind_line(text, "desc: Trigger:");
  if (!trigger) throw ParseError("callgrind output: no `desc: Trigger:` line (not a dump callgrind wrote)");
  return CallgrindDump{std::string(text::trim(*trigger)), summary_events(text, "callgrind", true)};
}

}  // namespace noisefloor::parsers
