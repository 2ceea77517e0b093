#include "files/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
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
                             error == ENOENT ? "no such file" : error == EISDIR ? "is a directory" : std::strerror(error)));
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
    if (::fchmod(fd, 0644) != 0) throw fail(errno);
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

}  // namespace noisefloor::files
