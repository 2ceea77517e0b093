// A finished run directory as one .tar.gz: what `noisefloor serve` receives as an upload and what a
// client packs to send it. The server trusts nothing in an upload, so unpack() reads it as hostile:
// every limit is checked while the bytes arrive (a compression bomb is refused before it is
// allocated), and only regular files with plain names come out, never a path, link or device.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "model/errors.hpp"

namespace noisefloor::store {

// An upload that is not an archive unpack() accepts: what() is one line, "archive: ..." or
// "archive entry '<name>': ...", saying what to change. A file that pack() cannot hold too.
class ArchiveError : public InputError {
 public:
  enum class Kind { malformed, too_large };  // too_large: past a limit (the server answers 413)
  explicit ArchiveError(const std::string& message, Kind kind = Kind::malformed)
      : InputError(message), kind_(kind) {}
  bool too_large() const { return kind_ == Kind::too_large; }

 private:
  Kind kind_;
};

struct ArchiveFile {
  std::string name;     // a plain file name: no directory, at most 100 bytes
  std::string content;  // any bytes, NULs included
};

struct ArchiveLimits {
  std::size_t max_compressed = 32u << 20;  // the upload as sent
  std::size_t max_expanded = 256u << 20;   // the whole tar stream, decompressed
  std::size_t max_files = 256;
  // Expanded / compressed beyond this is a compression bomb. Only judged past 1 MiB expanded: a
  // small archive of text or zeros compresses far better and is harmless.
  std::size_t max_ratio = 200;
};

// The files as one gzip-compressed POSIX ustar archive, flat (names without '/'), deterministic:
// the same files in any order give the same bytes (sorted by name; mtime, uid and gid 0, mode 0644,
// no user or group name; a gzip header with mtime 0, no file name, OS Unix), for one zlib. Throws
// ArchiveError for a name unpack() would refuse, a name twice or a file over ustar's 8 GiB.
std::string pack(std::vector<ArchiveFile> files);

// The files of an upload, in archive order. Throws ArchiveError for anything but exactly one gzip
// member holding a ustar archive of regular files with plain names (not empty, absolute, hidden, no
// '/', '\\' or "..", no control characters, at most 100 bytes) each once, ending in its two zero
// blocks and nothing but zeros after; for a link, device, FIFO, directory or pax/GNU extended
// header; for a bad header checksum, truncated or corrupt data; and past any of `limits`.
std::vector<ArchiveFile> unpack(std::string_view gz, const ArchiveLimits& limits = {});

}  // namespace noisefloor::store
