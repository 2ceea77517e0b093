#include "results/directory.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "files/files.hpp"
#include "model/errors.hpp"
#include "records/documents.hpp"
#include "text/text.hpp"

namespace noisefloor::results {
namespace fs = std::filesystem;

RunDirectory::RunDirectory(const fs::path& root, const std::string& experiment) {
  make_unique_dir(root, experiment);
  open_samples();
}

void RunDirectory::make_unique_dir(const fs::path& root, const std::string& experiment) {
  const fs::path parent = root / experiment;
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) throw RunError(fmt::format("cannot create {}: {}", parent.string(), ec.message()));
  const std::string base = text::utc_compact(std::chrono::system_clock::now());
  for (int n = 1;; ++n) {
    id_ = n == 1 ? base : fmt::format("{}-{}", base, n);
    dir_ = parent / id_;
    if (::mkdir(dir_.c_str(), 0755) == 0) break;
    if (errno != EEXIST)
      throw RunError(fmt::format("cannot create {}: {}", dir_.string(), std::strerror(errno)));
  }
}

void RunDirectory::open_samples() {
  const fs::path samples = dir_ / "samples.jsonl";
  samples_fd_ = ::open(samples.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (samples_fd_ < 0)
    throw RunError(fmt::format("cannot create {}: {}", samples.string(), std::strerror(errno)));
  lock();
}

RunDirectory RunDirectory::fleet(const fs::path& root, const std::string& experiment) {
  RunDirectory d;
  d.make_unique_dir(root, experiment);
  std::error_code ec;
  fs::create_directories(d.dir_ / "hosts", ec);
  if (ec) throw RunError(fmt::format("cannot create {}: {}", (d.dir_ / "hosts").string(), ec.message()));
  return d;
}

RunDirectory RunDirectory::for_host(const RunDirectory& fleet, const std::string& host) {
  RunDirectory d;
  d.id_ = fleet.id_;
  d.dir_ = fleet.dir_ / "hosts" / host;
  if (::mkdir(d.dir_.c_str(), 0755) != 0)
    throw RunError(fmt::format("cannot create {}: {}", d.dir_.string(), std::strerror(errno)));
  d.open_samples();
  return d;
}

RunDirectory RunDirectory::reopen(const fs::path& dir, bool* torn) {
  RunDirectory d;
  d.dir_ = fs::weakly_canonical(dir);
  d.id_ = d.dir_.filename().string();
  const fs::path samples = d.dir_ / "samples.jsonl";
  // The directory is not trusted: samples.jsonl must be this run's own file, not a link to
  // another (O_NOFOLLOW; a hard link shows as a second name) nor a device or a FIFO (O_NONBLOCK
  // opens one without waiting; fstat refuses it). Nothing is written before these checks.
  d.samples_fd_ = ::open(samples.c_str(), O_RDWR | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  if (d.samples_fd_ < 0) {
    const int err = errno;
    throw InputError(
        err == ELOOP ? fmt::format("{}: a symbolic link: a run's samples.jsonl is its own file; refusing to "
                                   "resume through it",
                                   samples.string())
                     : fmt::format("cannot open {}: {}", samples.string(), std::strerror(err)));
  }
  struct stat st {};
  if (::fstat(d.samples_fd_, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
    const bool linked = S_ISREG(st.st_mode) && st.st_nlink > 1;
    ::close(d.samples_fd_);
    d.samples_fd_ = -1;
    throw InputError(
        linked ? fmt::format("{}: has {} names (hard links): a run's samples.jsonl is its own file; "
                             "refusing to resume through it",
                             samples.string(), st.st_nlink)
               : fmt::format("{}: not a regular file: a run's samples.jsonl is its own file; refusing to "
                             "resume through it",
                             samples.string()));
  }
  if (::fcntl(d.samples_fd_, F_SETFL, O_APPEND) != 0)  // blocking again, for the writes
    throw RunError(fmt::format("cannot open {}: {}", samples.string(), std::strerror(errno)));
  d.lock();
  // A line cut short by a crash is no sample: it goes, so that the next line starts clean. Read
  // through the descriptor checked above, not the name again.
  std::string text;
  {
    char buffer[65536];
    ssize_t n;
    off_t at = 0;
    while ((n = ::pread(d.samples_fd_, buffer, sizeof buffer, at)) != 0) {
      if (n < 0) {
        if (errno == EINTR) continue;
        throw RunError(fmt::format("cannot read {}: {}", samples.string(), std::strerror(errno)));
      }
      text.append(buffer, static_cast<std::size_t>(n));
      at += n;
    }
  }
  if (torn) *torn = false;
  if (!text.empty() && text.back() != '\n') {
    const auto last = text.rfind('\n');
    const off_t keep = last == std::string::npos ? 0 : static_cast<off_t>(last + 1);
    if (::ftruncate(d.samples_fd_, keep) != 0)
      throw RunError(
          fmt::format("cannot cut the torn last line of {}: {}", samples.string(), std::strerror(errno)));
    if (torn) *torn = true;
  }
  return d;
}

RunDirectory::RunDirectory(RunDirectory&& other) noexcept
    : dir_(std::move(other.dir_)), id_(std::move(other.id_)), samples_fd_(other.samples_fd_) {
  other.samples_fd_ = -1;
}

void RunDirectory::lock() {
  if (::flock(samples_fd_, LOCK_EX | LOCK_NB) == 0) return;
  const int err = errno;
  ::close(samples_fd_);
  samples_fd_ = -1;
  throw RunError(
      err == EWOULDBLOCK
          ? fmt::format("{}: a noisefloor run is still writing it (its samples.jsonl is locked): "
                        "wait for it to end, or stop it first",
                        dir_.string())
          : fmt::format("cannot lock {}: {}", (dir_ / "samples.jsonl").string(), std::strerror(err)));
}

RunDirectory::~RunDirectory() {
  if (samples_fd_ >= 0) ::close(samples_fd_);
}

void RunDirectory::write(const std::string& name, std::string_view content) {
  files::write_atomic(dir_ / name, content);
}

void RunDirectory::write(const records::RunRecord& run) { write("run.json", records::document_text(run)); }

void RunDirectory::write(const records::Fingerprint& fingerprint) {
  write("fingerprint.json", records::document_text(fingerprint));
}

void RunDirectory::write_session(int session, const records::Fingerprint& fingerprint) {
  write(fmt::format("fingerprint.session-{}.json", session), records::document_text(fingerprint));
}

void RunDirectory::write(const records::FleetRecord& fleet) {
  write("fleet.json", records::document_text(fleet));
}

void RunDirectory::append(const records::Sample& sample) {
  // One write() per line: a crash of noisefloor cannot lose a sample that was reported. A line
  // that cannot be written whole (a full disk) is cut off again, so the file ends with whole lines.
  struct stat before {};
  const bool sized = ::fstat(samples_fd_, &before) == 0;
  try {
    files::write_all(samples_fd_, records::sample_line(sample) + "\n", dir_ / "samples.jsonl");
  } catch (const RunError&) {
    if (sized && ::ftruncate(samples_fd_, before.st_size) != 0) {
      // Left torn: every reader ignores a torn last line, with a warning.
    }
    throw;
  }
}

void RunDirectory::point_latest() {
  const fs::path link = dir_.parent_path() / "latest";
  // A name of this run's own: two runs of one experiment may finish at once.
  const fs::path tmp = dir_.parent_path() / fmt::format(".latest.tmp-{}", id_);
  ::unlink(tmp.c_str());
  if (::symlink(id_.c_str(), tmp.c_str()) != 0 || ::rename(tmp.c_str(), link.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw RunError(fmt::format("cannot point {} at {}: {}", link.string(), id_, std::strerror(err)));
  }
}

bool RunDirectory::discard_unmeasured() noexcept {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir_, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->path().filename() == "samples.jsonl" && fs::file_size(it->path(), ec) != 0) return false;
  }
  if (ec) return false;
  if (samples_fd_ >= 0) {
    ::close(samples_fd_);
    samples_fd_ = -1;
  }
  if (fs::remove_all(dir_, ec) == static_cast<std::uintmax_t>(-1) || ec) return false;
  fs::remove(dir_.parent_path(), ec);  // only when empty: other runs of the experiment stay
  return true;
}

}  // namespace noisefloor::results
