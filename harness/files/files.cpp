#include "files/files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "model/errors.hpp"

namespace noisefloor::files {
namespace fs = std::filesystem;

std::optional<std::string> try_read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return ss.str();
}

std::string read(const fs::path& path) {
  errno = 0;
  if (auto text = try_read(path)) return *std::move(text);
  std::error_code ec;
  const std::string reason = !fs::exists(path, ec)       ? "no such file"
                             : fs::is_directory(path, ec) ? "is a directory"
                             : errno != 0                 ? std::strerror(errno)
                                                          : "read error";
  throw RunError(fmt::format("cannot read {}: {}", path.string(), reason));
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
  const fs::path tmp = path.string() + fmt::format(".tmp-{}", ::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw RunError(fmt::format("cannot write {}: {}", path.string(), std::strerror(errno)));
  try {
    write_all(fd, content, path);
    if (::fsync(fd) != 0) throw RunError(fmt::format("cannot write {}: {}", path.string(), std::strerror(errno)));
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw RunError(fmt::format("cannot write {}: {}", path.string(), std::strerror(err)));
  }
  const std::string dir = path.has_parent_path() ? path.parent_path().string() : ".";
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace noisefloor::files
