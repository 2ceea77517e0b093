#include "records/result.hpp"

namespace noisefloor::records {

std::string Result::experiment() const { return run ? run->experiment : ""; }

std::string Result::description() const { return run ? run->description : ""; }

std::optional<ComparisonSettings> Result::comparison() const { return run ? run->comparison : std::nullopt; }

}  // namespace noisefloor::records
