// git/: refs, the working tree's snapshot and the build cache against real git in a temporary
// directory. What git says is the reference: the snapshot's tree is what `git add -A && git
// write-tree` gives in a copy of the checkout, and the user's index, status and worktrees are
// compared byte for byte before and after.
#include "git/git.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "git/cache.hpp"
#include "model/errors.hpp"
#include "process/process.hpp"
#include "temp_root.hpp"
#include "text/text.hpp"

using namespace noisefloor;
namespace fs = std::filesystem;
using testing::TempRoot;

namespace {

// `argv` in `dir`, which must succeed: its stdout.
std::string must_run(const fs::path& dir, std::vector<std::string> argv) {
  process::Spec spec;
  spec.argv = std::move(argv);
  spec.workdir = dir.string();
  spec.env = {{"LC_ALL", "C"}, {"GIT_TERMINAL_PROMPT", "0"}};
  const process::Result r = process::run(spec, nullptr, nullptr);
  INFO(fmt::format("{}: {}{}", fmt::join(spec.argv, " "), r.out, r.err));
  REQUIRE(r.exit_code == 0);
  return r.out;
}

std::string git_line(const fs::path& dir, std::vector<std::string> args) {
  args.insert(args.begin(), "git");
  return std::string(text::trim(must_run(dir, std::move(args))));
}

// A repository with two commits on `main`: a.txt, b.txt, sub/c.txt and a .gitignore of *.log.
class GitRepo {
 public:
  GitRepo() : top_(root_.path() / "repo") {
    fs::create_directories(top_);
    git_line(top_, {"init", "-q", "-b", "main"});
    for (const auto& [key, value] :
         {std::pair{"user.name", "Test"}, std::pair{"user.email", "test@example.com"},
          std::pair{"commit.gpgSign", "false"}})
      git_line(top_, {"config", key, value});
    write("a.txt", "a1\n");
    write("b.txt", "b1\n");
    write("sub/c.txt", "c1\n");
    write(".gitignore", "*.log\n");
    commit("first");
    write("a.txt", "a2\n");
    commit("second");
  }
  void write(const std::string& rel, const std::string& content) const {
    fs::create_directories((top_ / rel).parent_path());
    std::ofstream(top_ / rel, std::ios::binary) << content;
  }
  void commit(const std::string& message) const {
    git_line(top_, {"add", "-A"});
    git_line(top_, {"commit", "-q", "-m", message});
  }
  std::string rev(const std::string& rev) const { return git_line(top_, {"rev-parse", rev}); }
  const fs::path& top() const { return top_; }
  const fs::path& temp() const { return root_.path(); }
  git::Repo repo() const { return git::find_repo(top_.string()); }

 private:
  TempRoot root_;
  fs::path top_;
};

// Everything of the user's checkout that noisefloor must leave as it found it.
struct UserState {
  std::string index, status, worktrees, head, refs;
  bool operator==(const UserState&) const = default;
};

UserState user_state(const fs::path& top) {
  return {TempRoot::slurp(top / ".git/index"), must_run(top, {"git", "status", "--porcelain=v1", "-uall"}),
          must_run(top, {"git", "worktree", "list", "--porcelain"}), TempRoot::slurp(top / ".git/HEAD"),
          must_run(top, {"git", "for-each-ref"})};
}

// A build key of its own for each `n`.
std::string key_for(const git::Repo& repo, const model::GateSide& side, int n) {
  return git::build_key(repo, side.tree, "", {"make"}, {}, "gcc " + std::to_string(n));
}

git::BuildMarker marker_at(const git::Repo& repo, const std::string& utc) {
  return {.repo = repo.top, .utc = utc, .build = {"make"}};
}

}  // namespace

TEST_CASE("git: find_repo gives the checkout's top and its .git from any directory inside it") {
  const GitRepo r;
  const git::Repo repo = git::find_repo((r.top() / "sub").string());
  CHECK(repo.top == fs::canonical(r.top()).string());
  CHECK(repo.common_dir == (fs::canonical(r.top()) / ".git").string());
}

TEST_CASE("git: a directory outside any repository is a ConfigError that says what --base needs") {
  const TempRoot outside;
  const std::string dir = outside.path().string();
  CHECK_THROWS_WITH_AS(git::find_repo(dir),
                       (dir + " is not in a git repository: --base and --head need the experiment inside a "
                              "git checkout")
                           .c_str(),
                       ConfigError);
}

TEST_CASE("git: resolve gives a branch's, HEAD's and a short id's commit and tree") {
  const GitRepo r;
  const git::Repo repo = r.repo();
  const std::string head = r.rev("HEAD");
  for (const std::string& ref : std::vector<std::string>{"main", "HEAD", head.substr(0, 7), head}) {
    const model::GateSide side = git::resolve(repo, ref);
    CHECK(side.ref == ref);
    CHECK(side.commit == head);
    CHECK(side.tree == r.rev("HEAD^{tree}"));
    CHECK_FALSE(side.worktree);
    CHECK_FALSE(side.dirty);
  }
  const model::GateSide first = git::resolve(repo, "main~1");
  CHECK(first.commit == r.rev("HEAD~1"));
  CHECK(first.tree == r.rev("HEAD~1^{tree}"));
  CHECK(first.commit != head);
}

TEST_CASE("git: an unknown ref is a ConfigError naming it and the repository") {
  const GitRepo r;
  const git::Repo repo = r.repo();
  const std::string top = repo.top;
  for (const std::string ref : {"nosuch", "--output=x", "main~9", ""}) {
    CAPTURE(ref);
    CHECK_THROWS_WITH_AS(git::resolve(repo, ref),
                         ("unknown git ref '" + ref + "' in " + top +
                          ": name a branch, a tag or a commit there (fetch it first if it is a remote's)")
                             .c_str(),
                         ConfigError);
  }
  CHECK_FALSE(fs::exists(r.top() / "x"));  // "--output=x" was no option
}

TEST_CASE("git: working_tree snapshots edits, deletions and untracked files and leaves the user's state") {
  const GitRepo r;
  const git::Repo repo = r.repo();
  r.write("a.txt", "a3 staged\n");
  git_line(r.top(), {"add", "a.txt"});  // something staged, then edited again: the file counts
  r.write("a.txt", "a4 in the working tree\n");
  fs::remove(r.top() / "b.txt");
  r.write("new.txt", "new\n");
  r.write("debug.log", "ignored\n");
  const UserState before = user_state(r.top());

  const model::GateSide side = git::working_tree(repo);
  CHECK(user_state(r.top()) == before);

  // The reference: git add -A && git write-tree in a copy of the checkout.
  const fs::path copy = r.temp() / "copy";
  must_run(r.temp(), {"cp", "-a", r.top().string(), copy.string()});
  git_line(copy, {"add", "-A"});
  CHECK(side.tree == git_line(copy, {"write-tree"}));
  CHECK(side.ref.empty());
  CHECK(side.worktree);
  CHECK(side.dirty);
  CHECK(side.changed == std::vector<std::string>{"a.txt", "b.txt", "new.txt"});
  CHECK(git::uncommitted(repo) == std::vector<std::string>{"a.txt", "b.txt", "new.txt"});
  // A commit on HEAD that nothing refers to, the same commit each time for the same tree.
  CHECK(r.rev(side.commit + "^{tree}") == side.tree);
  CHECK(r.rev(side.commit + "^") == r.rev("HEAD"));
  CHECK(git_line(r.top(), {"for-each-ref", "--contains", side.commit}).empty());
  CHECK(git::working_tree(repo).commit == side.commit);
  CHECK(user_state(r.top()) == before);
}

TEST_CASE("git: a clean working tree is not dirty and its tree is HEAD's") {
  const GitRepo r;
  const git::Repo repo = r.repo();
  r.write("debug.log", "ignored\n");
  const model::GateSide side = git::working_tree(repo);
  CHECK(side.worktree);
  CHECK_FALSE(side.dirty);
  CHECK(side.tree == r.rev("HEAD^{tree}"));
  CHECK(side.changed.empty());
  CHECK(git::uncommitted(repo).empty());
}

TEST_CASE("git: has_submodules finds a gitlink anywhere in a tree") {
  const GitRepo r;
  const git::Repo repo = r.repo();
  CHECK_FALSE(git::has_submodules(repo, r.rev("HEAD^{tree}")));
  // A tree with a gitlink at sub/module, made through an index of the test's own.
  process::Spec spec;
  spec.argv = {"git",
               "-C",
               r.top().string(),
               "update-index",
               "--add",
               "--cacheinfo",
               "160000," + r.rev("HEAD") + ",sub/module"};
  spec.env = {{"GIT_INDEX_FILE", (r.temp() / "index").string()}};
  REQUIRE(process::run(spec, nullptr, nullptr).exit_code == 0);
  spec.argv = {"git", "-C", r.top().string(), "write-tree"};
  const std::string tree(text::trim(process::run(spec, nullptr, nullptr).out));
  CHECK(git::has_submodules(repo, tree));
}

TEST_CASE("git: build_key is a SHA-256 that changes with every field") {
  const git::Repo repo{"/src/a", "/src/a/.git"};
  const std::string tree(40, 'e');
  const std::string base =
      git::build_key(repo, tree, "bench", {"go", "test", "-c"}, {{"CGO", "0"}}, "go1.22");
  CHECK(base.size() == 64);
  CHECK(base == git::build_key(repo, tree, "bench", {"go", "test", "-c"}, {{"CGO", "0"}}, "go1.22"));
  const std::vector<std::string> keys = {
      base,
      git::build_key({"/src/b", "/src/b/.git"}, tree, "bench", {"go", "test", "-c"}, {{"CGO", "0"}},
                     "go1.22"),
      git::build_key(repo, std::string(40, 'f'), "bench", {"go", "test", "-c"}, {{"CGO", "0"}}, "go1.22"),
      git::build_key(repo, tree, "", {"go", "test", "-c"}, {{"CGO", "0"}}, "go1.22"),
      git::build_key(repo, tree, "bench", {"go", "test"}, {{"CGO", "0"}}, "go1.22"),
      git::build_key(repo, tree, "bench", {"go", "test -c"}, {{"CGO", "0"}}, "go1.22"),
      git::build_key(repo, tree, "bench", {"go", "test", "-c"}, {{"CGO", "1"}}, "go1.22"),
      git::build_key(repo, tree, "bench", {"go", "test", "-c"}, {}, "go1.22"),
      git::build_key(repo, tree, "bench", {"go", "test", "-c"}, {{"CGO", "0"}}, "go1.23"),
      // Where one list ends and the next begins is part of the key.
      git::build_key(repo, tree, "bench", {"go", "test", "-c", "CGO", "0"}, {}, "go1.22"),
  };
  std::vector<std::string> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
}

TEST_CASE("git: default_cache_root follows XDG_CACHE_HOME, else HOME") {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  const std::optional<std::string> saved_xdg = xdg ? std::optional<std::string>(xdg) : std::nullopt;
  const std::optional<std::string> saved_home = home ? std::optional<std::string>(home) : std::nullopt;
  ::setenv("XDG_CACHE_HOME", "/x/cache", 1);
  ::setenv("HOME", "/x/home", 1);
  CHECK(git::default_cache_root() == fs::path("/x/cache/noisefloor/builds"));
  ::setenv("XDG_CACHE_HOME", "relative", 1);
  CHECK(git::default_cache_root() == fs::path("/x/home/.cache/noisefloor/builds"));
  ::unsetenv("XDG_CACHE_HOME");
  CHECK(git::default_cache_root() == fs::path("/x/home/.cache/noisefloor/builds"));
  ::unsetenv("HOME");
  CHECK_THROWS_AS(git::default_cache_root(), ConfigError);
  saved_xdg ? (void)::setenv("XDG_CACHE_HOME", saved_xdg->c_str(), 1) : (void)::unsetenv("XDG_CACHE_HOME");
  saved_home ? (void)::setenv("HOME", saved_home->c_str(), 1) : (void)::unsetenv("HOME");
}

TEST_CASE("git: a build cache entry holds its commit's files and is found built the second time") {
  const GitRepo r;
  const git::Repo repo = r.repo();
  r.write("new.txt", "untracked\n");
  const model::GateSide side = git::working_tree(repo);
  const std::string key = key_for(repo, side, 1);
  git::BuildCache cache(r.temp() / "cache");
  fs::path dir;
  {
    git::BuildCache::Entry entry = cache.open(repo, side, key, nullptr);
    CHECK_FALSE(entry.built());
    CHECK_FALSE(entry.marker());
    dir = entry.dir();
    CHECK(dir == r.temp() / "cache" / key.substr(0, 16));
    CHECK(TempRoot::slurp(dir / "a.txt") == "a2\n");
    CHECK(TempRoot::slurp(dir / "new.txt") == "untracked\n");
    CHECK(git_line(dir, {"rev-parse", "HEAD"}) == side.commit);
    CHECK(git_line(dir, {"status", "--porcelain"}).empty());
    const std::string list = must_run(r.top(), {"git", "worktree", "list", "--porcelain"});
    CHECK(list.find("worktree " + fs::canonical(dir).string()) != std::string::npos);
    CHECK(list.find("locked noisefloor build cache") != std::string::npos);
    entry.mark_built({.repo = repo.top,
                      .commit = side.commit,
                      .tree = side.tree,
                      .utc = "2026-01-01T00:00:00.000Z",
                      .build = {"make"},
                      .binary_sha256 = std::string(64, '0')});
    CHECK(entry.built());
    const git::BuildCache::Entry moved = std::move(entry);  // an Entry moves, lock and all
    CHECK(moved.built());
  }
  fs::create_directories(dir / "out");
  const git::BuildCache::Entry again = cache.open(repo, side, key, nullptr);
  CHECK(again.dir() == dir);
  REQUIRE(again.built());
  CHECK(again.marker()->key == key);
  CHECK(again.marker()->commit == side.commit);
  CHECK(again.marker()->binary_sha256 == std::string(64, '0'));
  CHECK(fs::exists(dir / "out"));  // the build's output is kept
  CHECK((fs::status(r.temp() / "cache").permissions() & fs::perms::all) == fs::perms::owner_all);
}

TEST_CASE("git: a build cache entry without its marker, or with another key's, is made again") {
  const GitRepo r;
  const git::Repo repo = r.repo();
  const model::GateSide side = git::resolve(repo, "HEAD");
  const std::string key = key_for(repo, side, 1);
  git::BuildCache cache(r.temp() / "cache");
  fs::path dir;
  {
    const git::BuildCache::Entry entry = cache.open(repo, side, key, nullptr);
    dir = entry.dir();
    std::ofstream(dir / "half-built.o") << "x";  // an interrupted build: no mark_built
  }
  {
    git::BuildCache::Entry entry = cache.open(repo, side, key, nullptr);
    CHECK_FALSE(entry.built());
    CHECK_FALSE(fs::exists(dir / "half-built.o"));
    CHECK(TempRoot::slurp(dir / "a.txt") == "a2\n");
    std::ofstream(dir / "built.o") << "x";
    entry.mark_built(marker_at(repo, "2026-01-01T00:00:00.000Z"));
  }
  // Same 16 hex digits, another key: not this build.
  std::string other = key;
  other.back() = other.back() == '0' ? '1' : '0';
  {
    git::BuildCache::Entry entry = cache.open(repo, side, other, nullptr);
    CHECK_FALSE(entry.built());
    CHECK_FALSE(fs::exists(dir / "built.o"));
    CHECK(git_line(dir, {"rev-parse", "HEAD"}) == side.commit);
    entry.mark_built(marker_at(repo, "2026-01-01T00:00:00.000Z"));
  }
  // Its files deleted behind noisefloor's back (the worktree still registered and locked in the
  // repository): checked out again.
  fs::remove_all(dir);
  const git::BuildCache::Entry entry = cache.open(repo, side, other, nullptr);
  CHECK_FALSE(entry.built());
  CHECK(TempRoot::slurp(dir / "a.txt") == "a2\n");
  const std::string list = must_run(r.top(), {"git", "worktree", "list", "--porcelain"});
  CHECK(list.find("locked noisefloor build cache") != std::string::npos);
}

TEST_CASE("git: prune keeps the newest entries of a repository and the ones in use") {
  const GitRepo r;
  const git::Repo repo = r.repo();
  const model::GateSide side = git::resolve(repo, "HEAD");
  git::BuildCache cache(r.temp() / "cache");
  std::vector<fs::path> dirs;
  for (int i = 0; i < 3; ++i) {
    git::BuildCache::Entry entry = cache.open(repo, side, key_for(repo, side, i), nullptr);
    entry.mark_built(marker_at(repo, fmt::format("2026-01-0{}T00:00:00.000Z", i + 1)));
    dirs.push_back(entry.dir());
  }
  dirs.push_back(cache.open(repo, side, key_for(repo, side, 3), nullptr).dir());  // never built
  std::optional<git::BuildCache::Entry> in_use = cache.open(repo, side, key_for(repo, side, 4), nullptr);

  std::vector<fs::path> removed = cache.prune(2);
  std::sort(removed.begin(), removed.end());
  std::vector<fs::path> expected = {dirs[0], dirs[3]};  // the oldest and the unbuilt one
  std::sort(expected.begin(), expected.end());
  CHECK(removed == expected);
  CHECK_FALSE(fs::exists(dirs[0]));
  CHECK_FALSE(fs::exists(dirs[3]));
  CHECK(fs::exists(dirs[1] / "a.txt"));
  CHECK(fs::exists(dirs[2] / "a.txt"));
  CHECK(fs::exists(in_use->dir() / "a.txt"));
  const std::string list = must_run(r.top(), {"git", "worktree", "list", "--porcelain"});
  CHECK(list.find(dirs[0].filename().string()) == std::string::npos);
  CHECK(list.find(dirs[1].filename().string()) != std::string::npos);

  // Once let go, the unbuilt entry goes too; the two newest stay.
  const fs::path in_use_dir = in_use->dir();
  in_use.reset();
  CHECK(cache.prune(2) == std::vector<fs::path>{in_use_dir});
  CHECK(cache.prune(2).empty());
  CHECK(fs::exists(dirs[1] / "a.txt"));
}

TEST_CASE("git: prune removes the entries of a repository that is gone") {
  const GitRepo r;
  const git::Repo repo = r.repo();
  const model::GateSide side = git::resolve(repo, "HEAD");
  git::BuildCache cache(r.temp() / "cache");
  fs::path dir;
  {
    git::BuildCache::Entry entry = cache.open(repo, side, key_for(repo, side, 1), nullptr);
    entry.mark_built({.repo = repo.top, .utc = "2026-01-01T00:00:00.000Z"});
    dir = entry.dir();
  }
  CHECK(cache.prune(8).empty());
  fs::remove_all(r.top());
  CHECK(cache.prune(8) == std::vector<fs::path>{dir});
  CHECK_FALSE(fs::exists(dir));
  CHECK(fs::is_empty(r.temp() / "cache"));
}

TEST_CASE("git: a second opener of a build cache entry waits until the first lets go") {
  const GitRepo r;
  const git::Repo repo = r.repo();
  const model::GateSide side = git::resolve(repo, "HEAD");
  const std::string key = key_for(repo, side, 1);
  git::BuildCache cache(r.temp() / "cache");
  std::optional<git::BuildCache::Entry> first = cache.open(repo, side, key, nullptr);
  std::atomic<bool> waiting{false};
  std::atomic<bool> opened{false};
  bool saw_built = false;
  std::thread second([&] {
    const git::BuildCache::Entry entry = cache.open(repo, side, key, nullptr, [&] { waiting = true; });
    saw_built = entry.built();
    opened = true;
  });
  // No duration is asserted: the second opener must say it waits, and must not get in before the
  // first lets go, however long that takes.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  while (!waiting && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(waiting);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK_FALSE(opened);
  first->mark_built(marker_at(repo, "2026-01-01T00:00:00.000Z"));
  first.reset();
  second.join();
  CHECK(opened);
  CHECK(saw_built);  // the second found the first's build
}

TEST_CASE("git: waiting for a build cache entry ends in Interrupted once cancelled") {
  const GitRepo r;
  const git::Repo repo = r.repo();
  const model::GateSide side = git::resolve(repo, "HEAD");
  const std::string key = key_for(repo, side, 1);
  git::BuildCache cache(r.temp() / "cache");
  const git::BuildCache::Entry first = cache.open(repo, side, key, nullptr);
  bool stop = false;
  int polls = 0;  // a bound, so that a waiting() never called fails the test instead of hanging it
  CHECK_THROWS_AS(cache.open(
                      repo, side, key, [&] { return stop || ++polls > 100; }, [&] { stop = true; }),
                  Interrupted);
  CHECK(stop);
  CHECK(fs::exists(first.dir() / "a.txt"));
}
