// Loading results from disk for every reading command. I/O edge (results/decode.hpp decodes).
#pragma once

#include <filesystem>
#include <map>
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
// one (labelled with the host's name, in fleet.json's order); `missing` holds the hosts that have
// none, with how their run ended (render::missing_host_text says it). nullopt when `path` (or its
// `latest`) is not such a run.
struct Fleet {
  records::FleetRecord record;
  std::vector<records::Result> hosts;
  std::vector<records::FleetHost> missing;
};
std::optional<Fleet> load_fleet(const std::filesystem::path& path);

// `run --supersedes PATH`: the run PATH names (a run directory, or an experiment directory's
// `latest`), as the new run records it. Throws InputError when PATH is no run of noisefloor's.
records::Supersedes superseded_run(const std::filesystem::path& path);

// The runs that recorded `--supersedes` of the run in `run_dir`: every run directory beside it
// (<results>/<experiment>/<run>, any experiment) whose run.json names it, oldest first. Runs that
// do not load are passed over.
using records::Superseder;
std::vector<Superseder> superseders(const std::filesystem::path& run_dir);
// The same for every run under a results root at once (<root>/<experiment>/<run>): by the
// superseded run's canonical directory.
std::map<std::string, std::vector<Superseder>> supersessions(const std::filesystem::path& root);

}  // namespace noisefloor::results
