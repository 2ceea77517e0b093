// Loading results from disk for every reading command. I/O edge (results/decode.hpp decodes).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "records/fleet.hpp"
#include "records/result.hpp"

namespace noisefloor::results {

// `path` is a go test -bench output file (a regular file), a result directory, or an experiment
// directory (meaning its `latest`). Throws InputError naming the path and what was expected.
records::Result load(const std::filesystem::path& path);

// The directory a result path means: `path` itself, or `path/latest` for an experiment directory.
std::filesystem::path resolve(const std::filesystem::path& path);

// A run on several hosts (README: Many machines): its fleet.json, and a result per host that has
// one (labelled with the host's name, in fleet.json's order); `missing` says which hosts have none
// and why. nullopt when `path` (or its `latest`) is not such a run.
struct Fleet {
  records::FleetRecord record;
  std::vector<records::Result> hosts;
  std::vector<std::string> missing;
};
std::optional<Fleet> load_fleet(const std::filesystem::path& path);

}  // namespace noisefloor::results
