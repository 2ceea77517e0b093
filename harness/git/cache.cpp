#include "git/cache.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <system_error>
#include <utility>

#include "files/files.hpp"
#include "model/errors.hpp"
#include "process/process.hpp"
#include "records/build_marker.hpp"
#include "text/text.hpp"

namespace noisefloor::git {
namespace fs = std::filesystem;
namespace {

constexpr auto kCacheLockPoll = std::chrono::milliseconds(100);
constexpr const char* kWorktreeLockReason = "noisefloor build cache";
constexpr std::size_t kEntryNameSize = 16;

// An entry's name: the first 16 hex digits of its key. Only such names are ever removed.
bool is_entry_name(std::string_view name) {
  return name.size() == kEntryNameSize && std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

void ensure_cache_root(const fs::path& root) {
  if (fs::is_directory(root)) return;
  std::error_code ec;
  fs::create_directories(root.parent_path(), ec);
  // 0700: the builds hold the user's sources, uncommitted changes included.
  if (::mkdir(root.c_str(), 0700) != 0 && errno != EEXIST)
    throw RunError(fmt::format("cannot create the build cache {}: {}", root.string(), std::strerror(errno)));
}

// The lock file at `path`, flocked: its descriptor, or -1 when another holds it.
int try_lock_entry(const fs::path& path) {
  for (;;) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
      throw RunError(fmt::format("cannot open the lock {}: {}", path.string(), std::strerror(errno)));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      ::close(fd);
      if (error == EWOULDBLOCK || error == EINTR) return -1;
      throw RunError(fmt::format("cannot lock {}: {}", path.string(), std::strerror(error)));
    }
    // prune deletes the lock files of the entries it removes, holding them: a lock taken on a file
    // that is no longer at `path` locks nothing, so take the new one.
    struct stat held {};
    struct stat now {};
    if (::fstat(fd, &held) == 0 && ::stat(path.c_str(), &now) == 0 && held.st_dev == now.st_dev &&
        held.st_ino == now.st_ino)
      return fd;
    ::close(fd);
  }
}

// The marker at `path`; nullopt when there is none or it is not one of ours (damaged, another schema).
std::optional<BuildMarker> read_marker(const fs::path& path) {
  const auto text = files::try_read(path);
  return text ? records::parse_marker(*text) : std::nullopt;
}

// A checked-out worktree: its `.git` is the file git worktree add writes (never a directory or
// a link: anything else is not ours to trust).
bool is_worktree(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(fs::symlink_status(dir, ec)) &&
         fs::is_regular_file(fs::symlink_status(dir / ".git", ec));
}

// The repository of a marker is still there (an absolute path with a .git in it).
bool repo_exists(const std::string& top) {
  std::error_code ec;
  return fs::path(top).is_absolute() && fs::exists(fs::path(top) / ".git", ec);
}

// Best effort, for removal: a step that fails (not locked, never registered) changes nothing.
void git_quietly(const std::string& dir, std::vector<std::string> args) {
  try {
    run(dir, {.args = std::move(args), .timeout = std::chrono::minutes(5)});
  } catch (const Error&) {
  }
}

// Whether the repository at `repo` still lists `dir` among its worktrees.
bool registered(const std::string& repo, const fs::path& dir) {
  std::error_code ec;
  const std::string canonical = fs::weakly_canonical(dir, ec).string();
  try {
    const Output r = run(repo, {.args = {"worktree", "list", "--porcelain"}});
    for (const std::string_view line : text::lines(r.out))
      if (line == "worktree " + dir.string() || line == "worktree " + canonical) return true;
  } catch (const Error&) {
  }
  return false;
}

// Removes the worktree `dir` from the repository at `repo` (a top or a common dir; "" when it is
// unknown or gone) and deletes its files: remove_all deletes a link, never what it points to.
void discard_worktree(const fs::path& dir, const std::string& repo) {
  if (!repo.empty() && is_worktree(dir)) {
    git_quietly(repo, {"worktree", "unlock", dir.string()});
    git_quietly(repo, {"worktree", "remove", "--force", dir.string()});
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (ec) throw RunError(fmt::format("cannot remove {}: {}", dir.string(), ec.message()));
  // Still registered (its files were gone, or remove failed): only prune forgets it. prune also
  // forgets every other missing worktree that is not locked, so it runs only when ours needs it.
  if (!repo.empty() && registered(repo, dir)) {
    git_quietly(repo, {"worktree", "unlock", dir.string()});
    git_quietly(repo, {"worktree", "prune"});
  }
}

// The repository an entry's worktree belongs to: the marker's when it still exists, else what
// the worktree's own `.git` file says; "" when neither is known.
std::string owner_of(const fs::path& dir, const std::optional<BuildMarker>& marker) {
  if (marker && repo_exists(marker->repo)) return marker->repo;
  if (!is_worktree(dir)) return "";
  try {
    const Output r = run(dir.string(), {.args = {"rev-parse", "--path-format=absolute", "--git-common-dir"}});
    return r.exit_code == 0 ? std::string(text::trim(r.out)) : std::string();
  } catch (const Error&) {
    return "";
  }
}

}  // namespace

fs::path default_cache_root() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && fs::path(xdg).is_absolute())
    return (fs::path(xdg) / "noisefloor/builds").lexically_normal();
  const char* home = std::getenv("HOME");
  if (home != nullptr && fs::path(home).is_absolute())
    return (fs::path(home) / ".cache/noisefloor/builds").lexically_normal();
  throw ConfigError(
      "neither XDG_CACHE_HOME nor HOME is set to an absolute path: set XDG_CACHE_HOME to a directory for "
      "noisefloor's build cache");
}

// ---- Entry ----

BuildCache::Entry::Entry(int lock_fd, fs::path dir, fs::path marker_file, std::string key)
    : lock_fd_(lock_fd), dir_(std::move(dir)), marker_file_(std::move(marker_file)), key_(std::move(key)) {}

BuildCache::Entry::Entry(Entry&& other) noexcept
    : lock_fd_(std::exchange(other.lock_fd_, -1)),
      dir_(std::move(other.dir_)),
      marker_file_(std::move(other.marker_file_)),
      key_(std::move(other.key_)),
      marker_(std::move(other.marker_)) {}

BuildCache::Entry& BuildCache::Entry::operator=(Entry&& other) noexcept {
  if (this != &other) {
    if (lock_fd_ >= 0) ::close(lock_fd_);
    lock_fd_ = std::exchange(other.lock_fd_, -1);
    dir_ = std::move(other.dir_);
    marker_file_ = std::move(other.marker_file_);
    key_ = std::move(other.key_);
    marker_ = std::move(other.marker_);
  }
  return *this;
}

BuildCache::Entry::~Entry() {
  if (lock_fd_ >= 0) ::close(lock_fd_);  // closing the last descriptor releases the flock
}

void BuildCache::Entry::mark_built(BuildMarker m) {
  m.key = key_;
  files::write_atomic(marker_file_, records::marker_json(m));
  marker_ = std::move(m);
}

// ---- BuildCache ----

BuildCache::BuildCache(fs::path root) : root_(std::move(root)) {}

BuildCache::Entry BuildCache::open(const Repo& repo, const model::GateSide& side, const std::string& key,
                                   const model::Cancelled& cancelled, const std::function<void()>& waiting) {
  const std::string name = key.substr(0, kEntryNameSize);
  if (key.size() < 64 || !is_entry_name(name))
    throw std::logic_error("BuildCache::open: not a build key: " + key);
  ensure_cache_root(root_);
  int fd = try_lock_entry(root_ / (name + ".lock"));
  for (bool told = false; fd < 0; fd = try_lock_entry(root_ / (name + ".lock"))) {
    if (cancelled && cancelled()) throw Interrupted();
    if (!told && waiting) waiting();
    told = true;
    process::sleep_unless_stopped(kCacheLockPoll, cancelled);
    if (cancelled && cancelled()) throw Interrupted();
  }
  Entry entry(fd, root_ / name, root_ / (name + ".json"), key);
  const auto marker = read_marker(entry.marker_file_);
  if (marker && marker->key == key && is_worktree(entry.dir_)) {
    entry.marker_ = marker;
    return entry;
  }
  // Not built with this key (an interrupted build, a damaged entry): start again from the commit.
  std::error_code ec;
  fs::remove(entry.marker_file_, ec);
  const std::string owner = owner_of(entry.dir_, std::nullopt);
  discard_worktree(entry.dir_, owner.empty() ? repo.top : owner);
  checked(repo.top,
          {.args = {"-c", "core.hooksPath=/dev/null", "worktree", "add", "--detach", "--quiet",
                    entry.dir_.string(), side.commit},
           .timeout = std::chrono::minutes(30)},
          cancelled);
  checked(repo.top, {.args = {"worktree", "lock", "--reason", kWorktreeLockReason, entry.dir_.string()}});
  return entry;
}

std::vector<fs::path> BuildCache::prune(std::size_t keep_per_repo) {
  std::error_code ec;
  if (!fs::is_directory(root_, ec)) return {};
  std::set<std::string> names;
  for (const auto& file : fs::directory_iterator(root_, ec)) {
    std::string name = file.path().filename().string();
    if (name.ends_with(".json") || name.ends_with(".lock")) name.resize(name.size() - 5);
    if (is_entry_name(name)) names.insert(name);
  }
  // What to remove, from the markers as they are now; each is checked again under its lock.
  std::map<std::string, std::optional<BuildMarker>> doomed;
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> by_repo;  // repo → (utc, name)
  for (const std::string& name : names) {
    auto marker = read_marker(root_ / (name + ".json"));
    if (!marker || !marker->key.starts_with(name) || !repo_exists(marker->repo))
      doomed[name] = std::move(marker);
    else
      by_repo[marker->repo].emplace_back(marker->utc, name);
  }
  for (auto& [repo, entries] : by_repo) {
    std::sort(entries.begin(), entries.end(), std::greater<>());  // newest first
    for (std::size_t i = keep_per_repo; i < entries.size(); ++i)
      doomed[entries[i].second] = read_marker(root_ / (entries[i].second + ".json"));
  }
  std::vector<fs::path> removed;
  for (const auto& [name, marker] : doomed) {
    const fs::path lock = root_ / (name + ".lock");
    const int fd = try_lock_entry(lock);
    if (fd < 0) continue;  // in use: never removed from under its holder
    Entry held(fd, root_ / name, root_ / (name + ".json"), name);
    if (read_marker(held.marker_file_) != marker) continue;  // built or rebuilt meanwhile
    if (marker || fs::exists(fs::symlink_status(held.dir_, ec))) removed.push_back(held.dir_);
    discard_worktree(held.dir_, owner_of(held.dir_, marker));
    fs::remove(held.marker_file_, ec);
    fs::remove(lock, ec);  // still held: an opener that has it open takes the next one (try_lock_entry)
  }
  return removed;
}

}  // namespace noisefloor::git
