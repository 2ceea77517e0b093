// The A/B gate at git refs (harness/stats/README.md §3.13): which commits the two sides are and
// how the gate decides. Plain values only.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace noisefloor::model {

// One side of a gate as it was measured: the ref asked for, the commit and tree it resolved to,
// and, for the working tree, whether it held uncommitted changes and which paths.
struct GateSide {
  std::string ref;                   // as asked: "main", "HEAD", a commit; "" for the working tree
  std::string commit;                // 40 hex; for the working tree a commit object made for the snapshot
  std::string tree;                  // 40 hex
  bool worktree = false;             // the working tree with its uncommitted changes
  bool dirty = false;                // worktree: its tree differs from HEAD's
  std::vector<std::string> changed;  // worktree: the paths that differ from HEAD
  std::string build_key;             // the build cache entry (SHA-256 hex, see git/cache.hpp)
  bool cached = false;               // the build was found in the cache: nothing was built
  std::string binary_sha256;         // of the benchmark executable, when it is a file
  friend bool operator==(const GateSide&, const GateSide&) = default;
};

// How the gate decides (§3.13).
struct GateSettings {
  double threshold = 0.02;   // θ: a change smaller than this is "within noise"
  double confidence = 0.95;  // of each block's ratio CI
  double power = 0.8;        // asked of the whole rule (both blocks) for the MDE
  // A regression must be confirmed by a second block: always (true), never (false), or when the
  // gating rows are more than the one-block false-alarm bound allows (nullopt: m > 2, §3.13).
  std::optional<bool> confirm;
  int max_repeats = 60;    // quads per condition and block: the cap (samples: auto), or all of them
  int first_repeats = 6;   // the first look of a sequential block
  bool sequential = true;  // samples: auto looks at first, 2·first, … and the cap; else one look
  // Units that gate (a confirmed regression in one fails the gate); empty: the primary metric.
  std::vector<std::string> gating_units;
  friend bool operator==(const GateSettings&, const GateSettings&) = default;
};

}  // namespace noisefloor::model
