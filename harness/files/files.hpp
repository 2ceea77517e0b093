// Whole files: read one, write one atomically. The only place noisefloor opens a file to read it
// whole or replaces one (appending samples is results/' own business). I/O edge.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace noisefloor::files {

// The file's bytes, or nullopt when it cannot be opened or read.
std::optional<std::string> try_read(const std::filesystem::path& path);
// The file's bytes; throws RunError "<path>: cannot read: <reason>".
std::string read(const std::filesystem::path& path);

// A file noisefloor did not write itself and must not trust (a result directory, a published
// table): a regular file only (a device, a FIFO or a socket never blocks or floods the reader),
// at most `limit` bytes. Throws InputError naming the file and, as `what` ("a samples.jsonl"),
// what it was meant to be: "<path>: not a regular file (a character device): a samples.jsonl is
// a file", "<path>: 5.0 GiB, more than a samples.jsonl may hold (4 GiB)". With `no_links` a symbolic
// link is refused too (a file of a results tree is its own, never one it points at).
std::string read_regular(const std::filesystem::path& path, std::uintmax_t limit, std::string_view what,
                         bool no_links = false);
// The same for a file that may or may not be there and says nothing when it is not what it should
// be (another run's run.json, looked through for what it supersedes): nullopt when it is missing,
// not a regular file, a symbolic link (`no_links`), larger than `limit` or unreadable.
std::optional<std::string> try_read_regular(const std::filesystem::path& path, std::uintmax_t limit,
                                            bool no_links = false);

// `abs`, an absolute path of the probed system ("/proc/cpuinfo"), under `root` ("/" on the real
// machine, a fabricated tree in tests).
std::filesystem::path under(const std::filesystem::path& root, std::string_view abs);

// Replaces `path` with `content` atomically: a uniquely named temporary file beside it (mkstemp),
// every write, the fsync and the close checked, rename, fsync of the directory. A reader sees the
// old file or the new one, never a part; on any failure the temporary file is removed. Creates
// the parent directory when missing. Throws RunError naming the file.
void write_atomic(const std::filesystem::path& path, std::string_view content);

// Writes all of `data` to fd (restarting after EINTR and short writes); throws RunError naming
// `path` on failure.
void write_all(int fd, std::string_view data, const std::filesystem::path& path);

// A private directory (mkdtemp(3), mode 0700) under $TMPDIR or /tmp, named <prefix>-XXXXXX, removed
// with everything in it when the object goes. Throws RunError saying what it was for (`purpose`).
class TempDirectory {
 public:
  TempDirectory(std::string_view prefix, std::string_view purpose);
  TempDirectory(const TempDirectory&) = delete;
  TempDirectory& operator=(const TempDirectory&) = delete;
  ~TempDirectory();
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace noisefloor::files
