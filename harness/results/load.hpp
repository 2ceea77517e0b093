// Loading results from disk for every reading command. I/O edge (results/decode.hpp decodes).
#pragma once

#include <filesystem>

#include "records/result.hpp"

namespace noisefloor::results {

// `path` is a go test -bench output file (a regular file), a result directory, or an experiment
// directory (meaning its `latest`). Throws InputError naming the path and what was expected.
records::Result load(const std::filesystem::path& path);

// The directory a result path means: `path` itself, or `path/latest` for an experiment directory.
std::filesystem::path resolve(const std::filesystem::path& path);

}  // namespace noisefloor::results
