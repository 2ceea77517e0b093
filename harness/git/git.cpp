#include "git/git.hpp"

#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "files/files.hpp"
#include "hash/sha256.hpp"
#include "model/errors.hpp"
#include "process/process.hpp"
#include "text/text.hpp"

namespace noisefloor::git {
namespace fs = std::filesystem;
namespace {

// Who made the working tree's snapshot, and when: fixed, so that the same tree on the same HEAD is
// the same commit id in every gate (the record and the build cache agree), and commit-tree works
// without a user.name in the user's configuration.
const std::map<std::string, std::string> kSnapshotIdentity = {
    {"GIT_AUTHOR_NAME", "noisefloor"},
    {"GIT_AUTHOR_EMAIL", "noisefloor@localhost"},
    {"GIT_AUTHOR_DATE", "2000-01-01T00:00:00+0000"},
    {"GIT_COMMITTER_NAME", "noisefloor"},
    {"GIT_COMMITTER_EMAIL", "noisefloor@localhost"},
    {"GIT_COMMITTER_DATE", "2000-01-01T00:00:00+0000"}};

// The fields of a NUL-separated listing (`-z`), without empty ones.
std::vector<std::string> nul_fields(const std::string& out) {
  std::vector<std::string> fields;
  std::size_t begin = 0;
  while (begin < out.size()) {
    std::size_t end = out.find('\0', begin);
    if (end == std::string::npos) end = out.size();
    if (end > begin) fields.push_back(out.substr(begin, end - begin));
    begin = end + 1;
  }
  return fields;
}

// The commit `rev` names, or "" when it names none.
std::string commit_of(const std::string& top, const std::string& rev) {
  const Output r =
      run(top, {.args = {"rev-parse", "--verify", "--quiet", "--end-of-options", rev + "^{commit}"}});
  return r.exit_code == 0 ? std::string(text::trim(r.out)) : std::string();
}

std::string tree_of(const std::string& top, const std::string& commit) {
  return std::string(text::trim(checked(top, {.args = {"rev-parse", "--verify", commit + "^{tree}"}})));
}

// The tree of the working tree as `git add -A` would stage it, written through an index of our
// own seeded from `head` (GIT_INDEX_FILE): the user's index stays as it is, byte for byte.
std::string snapshot_tree(const std::string& top, const std::string& head) {
  const files::TempDirectory temp("nf-git", "a git index of its own");
  const std::map<std::string, std::string> index = {{"GIT_INDEX_FILE", (temp.path() / "index").string()}};
  checked(top, {.args = {"read-tree", head}, .env = index});
  checked(top, {.args = {"add", "-A"}, .env = index, .timeout = std::chrono::minutes(30)});
  return std::string(text::trim(checked(top, {.args = {"write-tree"}, .env = index})));
}

void add_field(hash::Sha256& sha, std::string_view field) {
  sha.update(fmt::format("{}:", field.size()));
  sha.update(field);
  sha.update(std::string_view("\0", 1));
}

}  // namespace

Output run(const std::string& dir, const Command& command, const model::Cancelled& cancelled) {
  process::Spec spec;
  spec.argv = {"git", "-C", dir};
  spec.argv.insert(spec.argv.end(), command.args.begin(), command.args.end());
  spec.env = {{"GIT_TERMINAL_PROMPT", "0"}, {"LC_ALL", "C"}, {"GIT_OPTIONAL_LOCKS", "0"}};
  for (const auto& [name, value] : command.env) spec.env[name] = value;
  spec.timeout = command.timeout;
  const process::Result r = process::run(spec, nullptr, cancelled);
  return {r.timed_out || r.signal ? -1 : r.exit_code, r.out, r.err};
}

std::string checked(const std::string& dir, const Command& command, const model::Cancelled& cancelled) {
  Output r = run(dir, command, cancelled);
  if (r.exit_code != 0)
    throw RunError(
        fmt::format("git {} failed in {} ({})", fmt::join(command.args, " "), dir,
                    r.exit_code < 0 ? "killed or timed out" : fmt::format("exit code {}", r.exit_code)),
        text::last_lines(r.out + r.err, 15, "its output"));
  return std::move(r.out);
}

Repo find_repo(const std::string& dir) {
  Output r;
  try {
    r = run(dir, {.args = {"rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir"}});
  } catch (const RunError& e) {
    throw ConfigError(fmt::format("git cannot be run ({}): --base and --head need git installed", e.what()));
  }
  const auto lines = text::lines(r.out);
  if (r.exit_code != 0 || lines.size() != 2)
    throw ConfigError(fmt::format(
        "{} is not in a git repository: --base and --head need the experiment inside a git checkout", dir));
  return {std::string(lines[0]), std::string(lines[1])};
}

model::GateSide resolve(const Repo& repo, const std::string& ref) {
  const std::string commit = ref.empty() ? std::string() : commit_of(repo.top, ref);
  if (commit.empty())
    throw ConfigError(
        fmt::format("unknown git ref '{}' in {}: name a branch, a tag or a commit there (fetch it first if "
                    "it is a remote's)",
                    ref, repo.top));
  model::GateSide side;
  side.ref = ref;
  side.commit = commit;
  side.tree = tree_of(repo.top, commit);
  return side;
}

model::GateSide working_tree(const Repo& repo) {
  const std::string head = commit_of(repo.top, "HEAD");
  if (head.empty())
    throw ConfigError(fmt::format("{} has no commit yet: commit once, then gate the working tree", repo.top));
  const std::string head_tree = tree_of(repo.top, head);
  const std::string tree = snapshot_tree(repo.top, head);
  const std::string commit =
      std::string(text::trim(checked(repo.top, {.args = {"commit-tree", "--no-gpg-sign", tree, "-p", head,
                                                         "-m", "noisefloor: working tree snapshot"},
                                                .env = kSnapshotIdentity})));
  // The paths the snapshot changes, from the trees themselves: exactly what was measured.
  const std::string diff =
      checked(repo.top, {.args = {"diff-tree", "-r", "-z", "--no-renames", "--name-only", head_tree, tree}});
  model::GateSide side;
  side.commit = commit;
  side.tree = tree;
  side.worktree = true;
  side.dirty = tree != head_tree;
  side.changed = nul_fields(diff);
  return side;
}

std::vector<std::string> uncommitted(const Repo& repo) {
  const std::string out = checked(
      repo.top, {.args = {"status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"}});
  std::vector<std::string> paths;
  for (const std::string& entry : nul_fields(out))
    if (entry.size() > 3) paths.push_back(entry.substr(3));  // "XY path"
  std::sort(paths.begin(), paths.end());
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
  return paths;
}

bool has_submodules(const Repo& repo, const std::string& tree) {
  const std::string out = checked(repo.top, {.args = {"ls-tree", "-r", "-z", "--end-of-options", tree}});
  for (const std::string& entry : nul_fields(out))
    if (entry.starts_with("160000 ")) return true;  // "<mode> <type> <id>\t<path>"
  return false;
}

std::string build_key(const Repo& repo, const std::string& tree, const std::string& workdir_rel,
                      const std::vector<std::string>& build, const std::map<std::string, std::string>& env,
                      const std::string& toolchain) {
  hash::Sha256 sha;
  for (const std::string_view field : {std::string_view("noisefloor-build/1"), std::string_view(repo.top),
                                       std::string_view(tree), std::string_view(workdir_rel)})
    add_field(sha, field);
  add_field(sha, std::to_string(build.size()));
  for (const std::string& arg : build) add_field(sha, arg);
  add_field(sha, std::to_string(env.size()));
  for (const auto& [name, value] : env) {
    add_field(sha, name);
    add_field(sha, value);
  }
  add_field(sha, toolchain);
  return sha.hex();
}

}  // namespace noisefloor::git
