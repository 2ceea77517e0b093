// A warning of a reading command, with the source it came from.
#pragma once

#include <string>

#include "records/run.hpp"

namespace noisefloor::analysis {

// A warning in the order it arose: a source's (loading it, or recorded by its run,
// records::RunWarning) or the analysis's own (kind other, its sentence the detail).
// render::warning_text says it, "<source>: " first when there is one.
struct Warning {
  // The source's label when merged (a unit conflict: always), a run's id in a history, else "".
  std::string source{};
  records::RunWarning what{};
  friend bool operator==(const Warning&, const Warning&) = default;
};

}  // namespace noisefloor::analysis
