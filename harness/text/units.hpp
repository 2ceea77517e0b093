// benchstat's unit scaling (golang.org/x/perf/benchunit), written once: a unit is tidied
// ("ns/op" -> "sec/op" with the value ×1e-9, "MB/s" -> "B/s" ×1e6), then a group of values is
// shown with one SI prefix (IEC for bytes) chosen from the smallest non-zero |value| so that it
// keeps at least 4 significant digits: scale_values({11.32e-9, 37.40e-9}, "sec/op") ->
// {"11.32n", "37.40n"}. Pure.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace noisefloor::text {

// The tidied unit and the factor that converts a value into it, as benchunit tidies: "ns/op" ->
// sec/op ×1e-9, "MB/s" -> B/s ×1e6, and in any other unit each "ns" or "MB" token of the numerator
// ("user-ns/op" -> "user-sec/op", "MB*ns/op" -> "B*sec/op"); tokens are separated by '*', '/',
// '-' and spaces, and a '/' starts the denominator until the next '*'.
std::pair<std::string, double> tidy_unit(const std::string& unit);

// The tokens of a unit by the rule above, each with whether it is in the denominator:
// "cpu-sec/op" -> {{"cpu", false}, {"sec", false}, {"op", true}}.
struct UnitToken {
  std::string text;
  bool denominator = false;
  std::size_t position = 0;  // byte offset in the unit
};
std::vector<UnitToken> unit_tokens(std::string_view unit);

// Values already in the tidied unit, formatted with one common prefix; NaN -> "?".
std::vector<std::string> scale_values(const std::vector<double>& tidied, const std::string& tidied_unit);

}  // namespace noisefloor::text
