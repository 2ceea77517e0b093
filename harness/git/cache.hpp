// The build cache of the gate's sides: one git worktree per build key (git.hpp build_key: the
// tree, the build argv and env, the toolchain), built once and kept, so that a second gate at the
// same commits builds nothing.
//
// Under the root, for an entry whose key begins with the 16 hex digits K:
//   K/       the worktree (`git worktree add --detach`, then `git worktree lock`: a kept entry
//            shows in `git worktree list` as locked, and `git worktree prune` leaves it alone)
//   K.lock   flock(2)ed for as long as an Entry is open: one build of one key at a time
//   K.json   the marker, written once the build succeeded; an entry without one (an interrupted
//            build) is removed and made again by the next open
// Nothing outside the root is followed or deleted. I/O edge.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "git/git.hpp"
#include "model/callbacks.hpp"
#include "model/gate.hpp"
#include "records/build_marker.hpp"

namespace noisefloor::git {

// ${XDG_CACHE_HOME:-$HOME/.cache}/noisefloor/builds, absolute (a relative XDG_CACHE_HOME is ignored,
// as the XDG specification says). Neither set: ConfigError saying to set XDG_CACHE_HOME.
std::filesystem::path default_cache_root();

// What a built entry holds (<key16>.json).
using BuildMarker = records::BuildMarker;

class BuildCache {
 public:
  explicit BuildCache(std::filesystem::path root);  // created (mode 0700) on first use

  // One entry, held (flocked) for as long as the Entry lives. Movable, not copyable.
  class Entry {
   public:
    Entry(Entry&& other) noexcept;
    Entry& operator=(Entry&& other) noexcept;
    Entry(const Entry&) = delete;
    Entry& operator=(const Entry&) = delete;
    ~Entry();  // releases the lock

    const std::filesystem::path& dir() const { return dir_; }  // the worktree: build here
    bool built() const { return marker_.has_value(); }
    std::optional<BuildMarker> marker() const { return marker_; }
    // Records a successful build (m.key is set to the entry's key): the marker is written
    // atomically, so an interrupted build never looks built.
    void mark_built(BuildMarker m);

   private:
    friend class BuildCache;
    Entry(int lock_fd, std::filesystem::path dir, std::filesystem::path marker_file, std::string key);
    int lock_fd_ = -1;
    std::filesystem::path dir_;
    std::filesystem::path marker_file_;
    std::string key_;
    std::optional<BuildMarker> marker_;
  };

  // The entry of `key` (64 hex, git.hpp build_key) for `side`'s commit, locked: when another
  // process (or thread) holds it, calls waiting() once and waits, polling every 100 ms (Interrupted
  // once `cancelled`). An entry built with this key is returned as it is (built() true); anything
  // else under its name is removed and the commit checked out afresh (built() false).
  Entry open(const Repo& repo, const model::GateSide& side, const std::string& key,
             const model::Cancelled& cancelled, const std::function<void()>& waiting = {});

  // Removes, except entries another process holds: entries beyond the newest `keep_per_repo` of
  // their repository (by the marker's utc), entries without a marker, and entries whose repository
  // is gone; each worktree is unlocked and removed from its repository (worktree unlock, remove
  // --force, prune) and its files deleted. Returns the entry directories removed.
  std::vector<std::filesystem::path> prune(std::size_t keep_per_repo = 8);

  const std::filesystem::path& root() const { return root_; }

 private:
  std::filesystem::path root_;
};

}  // namespace noisefloor::git
