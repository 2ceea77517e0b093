#include "files/files.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "model/errors.hpp"

namespace noisefloor::files {
namespace fs = std::filesystem;

namespace {

// The file's bytes, or the errno of the failure (a directory is EISDIR: it opens, but is no file).
std::string read_or_errno(const fs::path& path, int& error) {
  error = 0;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = errno;
    return {};
  }
  std::string text;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) error = EISDIR;
  char buffer[65536];
  while (error == 0) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
      text.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0) {
      break;
    } else if (errno != EINTR) {
      error = errno;
    }
  }
  ::close(fd);
  return text;
}

}  // namespace

std::optional<std::string> try_read(const fs::path& path) {
  int error = 0;
  std::string text = read_or_errno(path, error);
  if (error != 0) return std::nullopt;
  return text;
}

std::string read(const fs::path& path) {
  int error = 0;
  std::string text = read_or_errno(path, error);
  if (error == 0) return text;
  throw RunError(fmt::format("{}: cannot read: {}", path.string(),
                             error == ENOENT   ? "no such file"
                             : error == EISDIR ? "is a directory"
                                               : std::strerror(error)));
}

namespace {

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a file";
}

// The process's umask, read without changing it (/proc/self/status, Linux 4.7+), else by the
// classic set-and-restore once.
mode_t process_umask() {
  static const mode_t mask = [] {
    int error = 0;
    const std::string status = read_or_errno("/proc/self/status", error);
    const auto at = status.find("\nUmask:");
    if (error == 0 && at != std::string::npos)
      return static_cast<mode_t>(std::strtoul(status.c_str() + at + 7, nullptr, 8));
    const mode_t m = ::umask(022);
    ::umask(m);
    return m;
  }();
  return mask;
}

std::string bytes_text(std::uintmax_t n) {
  if (n >= (1ULL << 30)) return fmt::format("{:.1f} GiB", static_cast<double>(n) / (1ULL << 30));
  if (n >= (1ULL << 20)) return fmt::format("{:.1f} MiB", static_cast<double>(n) / (1ULL << 20));
  return fmt::format("{} bytes", n);
}

}  // namespace

std::string read_regular(const fs::path& path, std::uintmax_t limit, std::string_view what, bool no_links) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
  const int fd =
      ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (no_links ? O_NOFOLLOW : 0));
  if (fd < 0) {
    const int err = errno;
    if (no_links && err == ELOOP)
      throw InputError(
          fmt::format("{}: a symbolic link, never followed: {} is a file of its own", path.string(), what));
    throw InputError(fmt::format("{}: cannot read: {}", path.string(),
                                 err == ENOENT ? "no such file" : std::strerror(err)));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    throw InputError(fmt::format("{}: cannot read: {}", path.string(), std::strerror(err)));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw InputError(
        fmt::format("{}: not a regular file ({}): {} is a file", path.string(), kind_of(st.st_mode), what));
  }
  const auto too_big = [&](std::uintmax_t size) {
    return InputError(fmt::format("{}: {}, more than {} may hold ({})", path.string(), bytes_text(size), what,
                                  bytes_text(limit)));
  };
  if (static_cast<std::uintmax_t>(st.st_size) > limit) {
    ::close(fd);
    throw too_big(static_cast<std::uintmax_t>(st.st_size));
  }
  std::string text;
  text.reserve(static_cast<std::size_t>(st.st_size));
  char buffer[65536];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
      text.append(buffer, static_cast<std::size_t>(n));
      if (text.size() > limit) {  // it grew while read
        ::close(fd);
        throw too_big(text.size());
      }
    } else if (n == 0) {
      break;
    } else if (errno != EINTR) {
      const int err = errno;
      ::close(fd);
      throw InputError(fmt::format("{}: cannot read: {}", path.string(), std::strerror(err)));
    }
  }
  ::close(fd);
  return text;
}

std::optional<std::string> try_read_regular(const fs::path& path, std::uintmax_t limit, bool no_links) {
  std::error_code ec;
  if (no_links && fs::is_symlink(fs::symlink_status(path, ec))) return std::nullopt;
  try {
    return read_regular(path, limit, "it");
  } catch (const Error&) {
    return std::nullopt;
  }
}

fs::path under(const fs::path& root, std::string_view abs) {
  while (!abs.empty() && abs.front() == '/') abs.remove_prefix(1);
  return root / fs::path(std::string(abs));
}

void write_all(int fd, std::string_view data, const fs::path& path) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw RunError(fmt::format("cannot write {}: {}", path.string(), std::strerror(errno)));
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

void write_atomic(const fs::path& path, std::string_view content) {
  std::error_code ec;
  if (path.has_parent_path() && !fs::exists(path.parent_path(), ec)) {
    fs::create_directories(path.parent_path(), ec);
    if (ec) throw RunError(fmt::format("cannot create {}: {}", path.parent_path().string(), ec.message()));
  }
  const auto fail = [&](int error) {
    return RunError(fmt::format("cannot write {}: {}", path.string(), std::strerror(error)));
  };
  // A name no other writer (another thread, another noisefloor) can pick.
  std::string tmp = path.string() + ".tmp-XXXXXX";
  const int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) throw fail(errno);
  try {
    // mkstemp makes it 0600: what open(2) would have made, 0666 less the umask.
    if (::fchmod(fd, 0666 & ~process_umask()) != 0) throw fail(errno);
    write_all(fd, content, path);
    if (::fsync(fd) != 0) throw fail(errno);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (::close(fd) != 0) {  // a deferred write error (NFS, a full disk) shows up here
    const int err = errno;
    ::unlink(tmp.c_str());
    throw fail(err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw fail(err);
  }
  // The rename itself must survive a crash: the directory entry is synced too.
  const std::string dir = path.has_parent_path() ? path.parent_path().string() : ".";
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) throw fail(errno);
  const int synced = ::fsync(dfd);
  const int err = errno;
  ::close(dfd);
  // Some filesystems cannot sync a directory (EINVAL): the rename is then as durable as it gets.
  if (synced != 0 && err != EINVAL) throw fail(err);
}

TempDirectory::TempDirectory(std::string_view prefix, std::string_view purpose) {
  std::string pattern = (std::filesystem::temp_directory_path() / fmt::format("{}-XXXXXX", prefix)).string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw RunError(fmt::format("cannot make a directory for {} in {}: {}", purpose,
                               std::filesystem::temp_directory_path().string(), std::strerror(errno)));
  path_ = pattern;
}

TempDirectory::~TempDirectory() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace noisefloor::files
