#include "model/sweep.hpp"

#include <fmt/format.h>

namespace noisefloor::model {

namespace {
std::string joined(const SweepPoint& point, std::string_view separator) {
  std::string out;
  for (const auto& s : point.settings) {
    if (!out.empty()) out += separator;
    out += fmt::format("{}={}", s.parameter, s.value);
  }
  return out;
}
}  // namespace

std::string settings_text(const SweepPoint& point) { return joined(point, ", "); }

std::string claim_name(const SweepPoint& point) {
  return fmt::format("{}[{}]", point.group, joined(point, ","));
}

}  // namespace noisefloor::model
