// What a unit says about its values: which way is better, and whether its values are exact.
//
// A `Unit <unit> key=value...` line of the Go benchmark format (golang.org/x/perf/benchfmt) sets
// metadata of a unit, keyed by its tidied name (text::tidy_unit: `Unit ns/op` is sec/op's):
// `better=higher` or `better=lower`, and `assume=exact` (the values are exact counts, not
// measurements: no interval, no test). Without `better`, the direction comes from the unit
// itself (direction_of). Pure.
#pragma once

#include <initializer_list>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/names.hpp"

namespace noisefloor::model {

// Which way a value is better. unknown: no word that judges (faster, better) is ever said of it.
enum class Better { lower, higher, unknown };

constexpr std::array<std::pair<Better, std::string_view>, 3> names(Better) {
  return {{
      {Better::lower, "lower"},
      {Better::higher, "higher"},
      {Better::unknown, "unknown"},
  }};
}

std::string_view to_string(Better better);  // "lower", "higher", "unknown"

// What kind of quantity a unit measures, for the words of a verdict: a time (per operation, per
// frame, a latency) or a rate (per second) is faster or slower; another quantity with a direction
// (B/op, allocs/op, `better=` set by metadata) better or worse; without a direction, higher or lower.
enum class Quantity { time, rate, other };

struct UnitMetadata {
  // tidied unit -> key -> value, as the `Unit` lines set them.
  std::map<std::string, std::map<std::string, std::string>> units;

  // Sets `key=value` of `unit` (tidied here). Returns the conflict when the key already holds
  // another value (the first value stays, as benchfmt keeps it), nullopt otherwise.
  std::optional<std::string> set(const std::string& unit, const std::string& key, const std::string& value);
  // The value of `key` for `unit` (tidied here); "" when unset.
  std::string get(const std::string& unit, const std::string& key) const;
  // Every entry of `other` added (conflicts returned, the first value kept).
  std::vector<std::string> merge(const UnitMetadata& other);
  bool empty() const { return units.empty(); }
  friend bool operator==(const UnitMetadata&, const UnitMetadata&) = default;
};

// Which way `unit` (as recorded or tidied) is better: the metadata's `better=` when set; else
// benchfmt's own list (sec/op, B/op, allocs/op lower; B/s higher); else noisefloor's rule for the
// units it produces and the ones Go and Google Benchmark print: a time in the numerator with no
// time in the denominator ("cpu-sec/op", "us/op", "p50-sec") is lower-better; a per-second rate
// ("items/s", "frames/sec", Google Benchmark's "items_per_second", "bytes_per_second") is
// higher-better; anything else is unknown.
Better better_of(std::string_view unit, const UnitMetadata& metadata = {});
// The quantity `unit` measures (see Quantity).
Quantity quantity_of(std::string_view unit);
// Whether the metadata says `assume=exact` for `unit`.
bool assume_exact(std::string_view unit, const UnitMetadata& metadata);
// Whether samples of `unit` are exact: as the metadata says, or simulated counts that are the same
// in every sample of every side given (a loop that runs the same code each time; one fed other
// data each repetition, such as a random key, counts differently and gets the usual tests).
bool exact_samples(std::string_view unit, const UnitMetadata& metadata,
                   std::initializer_list<std::span<const double>> sides);

// The metadata of a `Unit` line ("Unit <unit> key=value ..."): nullopt when `line` is not one;
// else the unit and its pairs (a field without '=' is reported in `errors`).
struct UnitLine {
  std::string unit;
  std::vector<std::pair<std::string, std::string>> pairs;
  std::vector<std::string> errors;
};
std::optional<UnitLine> parse_unit_line(std::string_view line);

}  // namespace noisefloor::model
