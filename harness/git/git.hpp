// The git repository of a gate's two sides: refs resolved to commits and trees, the working tree's
// snapshot, and the key of a side's build (the build cache itself is cache.hpp).
//
// Every call to git is an argv through process::run (never a shell), `git -C <top>`, with
// GIT_TERMINAL_PROMPT=0 (a ref never asks for a password), LC_ALL=C and GIT_OPTIONAL_LOCKS=0 (a
// read never refreshes the user's index). The user's checkout, index, refs and HEAD are never
// modified: the snapshot of the working tree goes through a temporary index, and its commit is an
// object nothing refers to. Bad input (not a repository, an unknown ref) is a ConfigError; a git
// command that fails unexpectedly a RunError quoting its output. I/O edge.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "model/callbacks.hpp"
#include "model/gate.hpp"

namespace noisefloor::git {

// A repository as found from a directory inside it: both absolute paths.
struct Repo {
  std::string top;         // the checkout's top directory (rev-parse --show-toplevel)
  std::string common_dir;  // the .git directory shared by all its worktrees (--git-common-dir)
  friend bool operator==(const Repo&, const Repo&) = default;
};

// The repository that holds `dir`. Not in a repository (or a bare one): ConfigError "<dir> is not
// in a git repository: --base and --head need the experiment inside a git checkout"; git not
// installed: ConfigError saying so.
Repo find_repo(const std::string& dir);

// `ref` (a branch, a tag, HEAD, a full or short commit id, main~2) as the commit and tree it names
// now: ref = as asked, worktree = false. Unknown: ConfigError "unknown git ref '<ref>' in <top>: ...".
model::GateSide resolve(const Repo& repo, const std::string& ref);

// The working tree with its uncommitted changes (tracked edits, deletions, untracked files that are
// not ignored) as a commit object nothing refers to, whose parent is HEAD: ref = "", worktree = true,
// dirty = its tree differs from HEAD's, changed = the paths that differ. The same tree on the same
// HEAD gives the same commit id (fixed author, committer and date). HEAD without a commit yet:
// ConfigError.
model::GateSide working_tree(const Repo& repo);

// The paths with uncommitted changes against HEAD (tracked, or untracked and not ignored), sorted;
// empty when the checkout is clean.
std::vector<std::string> uncommitted(const Repo& repo);

// Whether `tree` holds a submodule (a gitlink, mode 160000) anywhere.
bool has_submodules(const Repo& repo, const std::string& tree);

// The build cache's key of one side's build: SHA-256 hex over the length-prefixed fields (a version
// tag, repo.top, tree, workdir_rel, the build argv, the build env, the toolchain), each list
// preceded by its length, so that no two different inputs give one key. Pure.
std::string build_key(const Repo& repo, const std::string& tree, const std::string& workdir_rel,
                      const std::vector<std::string>& build, const std::map<std::string, std::string>& env,
                      const std::string& toolchain);

// ---- git commands (for cache.cpp; the pipeline needs none of these) ----

struct Command {
  std::vector<std::string> args = {};           // after `git -C <dir>`
  std::map<std::string, std::string> env = {};  // added to the fixed environment above
  std::chrono::duration<double> timeout = std::chrono::minutes(10);
};

struct Output {
  int exit_code = -1;  // -1: killed (a timeout)
  std::string out;
  std::string err;
};

// `git -C <dir> ARGS`; throws Interrupted once `cancelled`, RunError when git cannot be started.
Output run(const std::string& dir, const Command& command, const model::Cancelled& cancelled = {});
// The same, and a failure (exit code not 0) is a RunError "git <args> failed in <dir> (...)" quoting
// its output. Returns stdout.
std::string checked(const std::string& dir, const Command& command, const model::Cancelled& cancelled = {});

}  // namespace noisefloor::git
