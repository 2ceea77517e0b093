// git/: refs, the working tree's snapshot and the build cache against real git in a temporary
// directory. What git says is the reference: the snapshot's tree is what `git add -A && git
// write-tree` gives in a copy of the checkout, and the user's index, status and worktrees are
// compared byte for byte before and after.
#include "git/git.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

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
