#include "model/names.hpp"

#include <fmt/format.h>

namespace noisefloor::model {

std::string format_problem(std::string_view given, std::span<const PrintFormat> accepted) {
  return fmt::format("expected {}, got \"{}\"", names_list(accepted), given);
}

}  // namespace noisefloor::model
