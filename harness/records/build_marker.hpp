// The marker of a built entry of the gate's build cache (git/cache.hpp: <key16>.json), a typed
// record with its JSON here, as every file noisefloor writes and reads back.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace noisefloor::records {

// What a built entry holds.
struct BuildMarker {
  std::string key = {};     // the whole build key
  std::string repo = {};    // Repo::top
  std::string commit = {};  // checked out in the worktree
  std::string tree = {};
  std::string toolchain = {};           // as given to build_key
  std::string utc = {};                 // when it was built (RFC 3339): prune keeps the newest
  std::vector<std::string> build = {};  // the build argv
  std::string binary_sha256 = {};       // of the benchmark executable, "" when it is no file
  friend bool operator==(const BuildMarker&, const BuildMarker&) = default;
};

// {"schema": "noisefloor.build/1", "key", "repo", "commit", "tree", "toolchain", "utc", "build",
// "binary_sha256"}, indented, with a final newline.
std::string marker_json(const BuildMarker& marker);
// The marker in `text`; nullopt when it is not one of ours (damaged, another schema).
std::optional<BuildMarker> parse_marker(std::string_view text);

}  // namespace noisefloor::records
