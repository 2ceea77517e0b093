// Uploads of finished run directories to `noisefloor serve`: a flat ustar archive in one gzip
// member. The server trusts nothing in an upload, so the reader streams it: each inflated chunk is
// counted against the limits before the tar reader sees it, the tar reader keeps one header block
// and the files' contents (each reserved once, at its announced size, after that size passed the
// limits), and every header is checked whole before its file is started.
#include "store/archive.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <new>
#include <optional>
#include <set>
#include <stdexcept>

namespace noisefloor::store {
namespace {

constexpr std::size_t kTarBlock = 512;
constexpr std::size_t kTarEndZeros = 2 * kTarBlock;  // the end-of-archive marker: two zero blocks
constexpr std::size_t kZlibChunk = 64u << 10;
constexpr std::size_t kBombFloor = 1u << 20;           // the ratio is judged past this many bytes
constexpr int kGzipWindowBits = 15 + 16;               // gzip framing only: no zlib, no raw deflate
constexpr std::uint64_t kUstarMaxSize = 077777777777;  // 11 octal digits in the size field
constexpr int kGzipOsUnix = 3;  // the gzip header's OS byte, fixed so the bytes depend on no platform

using TarBlock = std::array<char, kTarBlock>;

// A ustar header field: where it starts and how long it is (POSIX.1-1988 ustar).
struct TarField {
  std::size_t offset;
  std::size_t size;
};
constexpr TarField kTarName{0, 100};
constexpr TarField kTarMode{100, 8};
constexpr TarField kTarUid{108, 8};
constexpr TarField kTarGid{116, 8};
constexpr TarField kTarSize{124, 12};
constexpr TarField kTarMtime{136, 12};
constexpr TarField kTarChecksum{148, 8};
constexpr TarField kTarMagic{257, 8};  // magic and version together
constexpr TarField kTarDevMajor{329, 8};
constexpr TarField kTarDevMinor{337, 8};
constexpr TarField kTarPrefix{345, 155};
constexpr std::size_t kTarTypeflag = 156;
constexpr std::string_view kUstarMagic{"ustar\00000", 8};  // "ustar", NUL (\000), version "00"
// GNU tar's default format (`tar -czf`): the fields read here are the same, but the prefix field
// holds other things, so it is not read as part of the name.
constexpr std::string_view kGnuTarMagic{"ustar  \0", 8};

// `name` quoted for a one-line message, control characters as \xNN.
std::string quoted_name(std::string_view name) {
  std::string out = "'";
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      out += fmt::format("\\x{:02x}", byte);
    } else {
      out += c;
    }
  }
  return out + "'";
}

// Why `name` is no plain file name, or nullopt when it is one. A name may become a file's name in a
// directory of the server's: anything that could reach elsewhere, hide, or garble a listing or a
// log line is refused, ".." anywhere rather than only as a whole component, to keep the rule short.
std::optional<std::string_view> name_problem(std::string_view name) {
  const auto control = [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; };
  if (name.empty()) return "has an empty name";
  if (name.front() == '/') return "has an absolute name";
  if (name.find("..") != std::string_view::npos) return "has '..' in its name";
  if (name.find_first_of("/\\") != std::string_view::npos) return "names a path ('/' or '\\' in it)";
  if (name.front() == '.') return "is hidden (its name starts with '.')";
  if (std::any_of(name.begin(), name.end(), control)) return "has a control character in its name";
  if (name.size() > kTarName.size) return "has a name over 100 bytes";
  return std::nullopt;
}

// The checksum ustar defines: the sum of the header's bytes, unsigned, the checksum field as spaces.
std::uint64_t tar_checksum(const TarBlock& block) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < block.size(); ++i) {
    const bool in_field = i >= kTarChecksum.offset && i < kTarChecksum.offset + kTarChecksum.size;
    sum += in_field ? ' ' : static_cast<unsigned char>(block[i]);
  }
  return sum;
}

// A text field up to its first NUL (a field that fills its width has none).
std::string_view tar_text(const TarBlock& block, TarField field) {
  const std::string_view raw(block.data() + field.offset, field.size);
  return raw.substr(0, raw.find('\0'));
}

// A number field: octal digits after optional spaces, then only NULs and spaces. Nullopt for
// anything else, GNU's base-256 numbers included (they only serve files over 8 GiB).
std::optional<std::uint64_t> tar_octal(const TarBlock& block, TarField field) {
  const std::string_view raw(block.data() + field.offset, field.size);
  std::size_t i = std::min(raw.find_first_not_of(' '), raw.size());
  std::uint64_t value = 0;  // at most 12 octal digits: 36 bits
  const std::size_t first = i;
  for (; i < raw.size() && raw[i] >= '0' && raw[i] <= '7'; ++i) value = value * 8 + (raw[i] - '0');
  if (i == first) return std::nullopt;
  if (raw.substr(i).find_first_not_of(std::string_view(" \0", 2)) != std::string_view::npos)
    return std::nullopt;
  return value;
}

// --- pack -------------------------------------------------------------------------------------

// `value` as size-1 zero-padded octal digits; the field's last byte stays the NUL it was.
void put_tar_octal(TarBlock& block, TarField field, std::uint64_t value) {
  const std::string digits = fmt::format("{:0{}o}", value, field.size - 1);
  std::copy(digits.begin(), digits.end(), block.begin() + static_cast<std::ptrdiff_t>(field.offset));
}

// The header of a regular file with nothing of the machine that packed it: mtime, uid and gid 0,
// mode 0644, no user or group name, so the archive depends on the files alone.
TarBlock tar_header(const ArchiveFile& file) {
  TarBlock block{};
  std::copy(file.name.begin(), file.name.end(), block.begin());
  put_tar_octal(block, kTarMode, 0644);
  for (const TarField field : {kTarUid, kTarGid, kTarMtime, kTarDevMajor, kTarDevMinor})
    put_tar_octal(block, field, 0);
  put_tar_octal(block, kTarSize, file.content.size());
  block[kTarTypeflag] = '0';
  std::copy(kUstarMagic.begin(), kUstarMagic.end(), block.begin() + kTarMagic.offset);
  // Six digits, NUL, space: the form every tar writes and reads.
  const std::string sum = fmt::format("{:06o}", tar_checksum(block));
  std::copy(sum.begin(), sum.end(), block.begin() + kTarChecksum.offset);
  block[kTarChecksum.offset + 7] = ' ';
  return block;
}

// Refuses what unpack() would refuse of sorted `files`, so that every packed archive unpacks.
void check_packable(const std::vector<ArchiveFile>& files) {
  for (std::size_t i = 0; i < files.size(); ++i) {
    const ArchiveFile& file = files[i];
    if (const auto problem = name_problem(file.name))
      throw ArchiveError(fmt::format("cannot pack {}: it {}", quoted_name(file.name), *problem));
    if (i > 0 && files[i - 1].name == file.name)
      throw ArchiveError(fmt::format("cannot pack {}: two files have this name", quoted_name(file.name)));
    if (file.content.size() > kUstarMaxSize)
      throw ArchiveError(fmt::format("cannot pack {}: {} bytes, more than a ustar archive holds (8 GiB)",
                                     quoted_name(file.name), file.content.size()));
  }
}

std::string tar_of(const std::vector<ArchiveFile>& files) {
  std::string tar;
  for (const ArchiveFile& file : files) {
    const TarBlock header = tar_header(file);
    tar.append(header.data(), header.size());
    tar += file.content;
    tar.append((kTarBlock - file.content.size() % kTarBlock) % kTarBlock, '\0');
  }
  tar.append(kTarEndZeros, '\0');
  return tar;
}

// Hands zlib the next piece of `rest` (avail_in is 32 bits wide); false when nothing is left.
bool next_zlib_input(z_stream& z, std::string_view& rest) {
  if (rest.empty()) return false;
  const std::size_t n = std::min<std::size_t>(rest.size(), std::numeric_limits<uInt>::max());
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(rest.data()));  // zlib only reads it
  z.avail_in = static_cast<uInt>(n);
  rest.remove_prefix(n);
  return true;
}

class DeflateStream {
 public:
  DeflateStream() {
    if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, kGzipWindowBits, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      throw std::bad_alloc();
  }
  ~DeflateStream() { deflateEnd(&z); }
  DeflateStream(const DeflateStream&) = delete;
  DeflateStream& operator=(const DeflateStream&) = delete;
  z_stream z{};
};

// One gzip member whose header holds no time, no name and a fixed OS byte.
std::string gzip_compress(std::string_view raw) {
  DeflateStream stream;
  gz_header header{};  // zlib keeps a pointer to it until the stream ends
  header.os = kGzipOsUnix;
  if (deflateSetHeader(&stream.z, &header) != Z_OK) throw std::logic_error("zlib: deflateSetHeader refused");
  std::string gz;
  std::string chunk(kZlibChunk, '\0');
  int status = Z_OK;
  while (status != Z_STREAM_END) {
    if (stream.z.avail_in == 0) next_zlib_input(stream.z, raw);
    stream.z.next_out = reinterpret_cast<Bytef*>(chunk.data());
    stream.z.avail_out = static_cast<uInt>(chunk.size());
    status = deflate(&stream.z, raw.empty() ? Z_FINISH : Z_NO_FLUSH);
    if (status == Z_STREAM_ERROR) throw std::logic_error("zlib: deflate stream error");
    gz.append(chunk.data(), chunk.size() - stream.z.avail_out);
  }
  return gz;
}

// --- unpack -----------------------------------------------------------------------------------

// The limits of one upload, checked against a number of expanded bytes: the running count while
// inflating, and what a header announces before its file is started.
struct ArchiveBudget {
  const ArchiveLimits& limits;
  std::size_t compressed;

  void check(std::size_t expanded) const {
    if (expanded > limits.max_expanded)
      throw ArchiveError(
          fmt::format(
              "archive: expands past {} bytes, more than an upload may hold: send fewer or smaller files",
              limits.max_expanded),
          ArchiveError::Kind::too_large);
    if (expanded > kBombFloor && expanded / compressed > limits.max_ratio)
      throw ArchiveError(
          fmt::format("archive: expands over {} times its {} bytes: refused as a compression bomb",
                      limits.max_ratio, compressed),
          ArchiveError::Kind::too_large);
  }
};

// Why a header's typeflag is no regular file's, or nullopt when it is one.
std::optional<std::string> tar_type_problem(char type) {
  switch (type) {
    case '0':
    case '\0':
      return std::nullopt;
    case '1':
      return "is a hard link";
    case '2':
      return "is a symbolic link";
    case '3':
      return "is a character device";
    case '4':
      return "is a block device";
    case '5':
      return "is a directory";
    case '6':
      return "is a FIFO";
    case 'x':
    case 'g':
      return "is a pax extended header";
    case 'L':
    case 'K':
      return "is a GNU extended header (a long name)";
    default:
      return fmt::format("has the unknown type {}", quoted_name(std::string_view(&type, 1)));
  }
}

// The ustar stream, read as it inflates. Its parts: a header block, the file's content, the padding
// to a whole block, and after the first zero block only zeros (the end marker and record padding).
class TarReader {
 public:
  explicit TarReader(const ArchiveBudget& budget) : budget_(budget) {}
  void feed(std::string_view bytes);
  std::vector<ArchiveFile> finish();

 private:
  enum class Part { header, content, padding, end };
  std::size_t take(std::string_view bytes);
  void read_header();
  std::string entry_name() const;
  void check_entry(const std::string& name) const;
  void start_file(std::string name);
  void next_after_content();

  const ArchiveBudget& budget_;
  Part part_ = Part::header;
  TarBlock block_{};
  std::size_t block_filled_ = 0;
  std::size_t entries_ = 0;    // headers read: names the entry of a header that has no name yet
  std::size_t consumed_ = 0;   // bytes of the tar stream taken
  std::size_t remaining_ = 0;  // of the current file's content or padding
  std::size_t end_zeros_ = 0;  // zero bytes from the first zero block on
  std::set<std::string, std::less<>> names_;
  std::vector<ArchiveFile> files_;
};

void TarReader::feed(std::string_view bytes) {
  while (!bytes.empty()) {
    const std::size_t n = take(bytes);
    consumed_ += n;
    bytes.remove_prefix(n);
    if (part_ == Part::header && block_filled_ == kTarBlock) read_header();
  }
}

// Takes what of `bytes` belongs to the current part; returns how many.
std::size_t TarReader::take(std::string_view bytes) {
  std::size_t n = 0;
  switch (part_) {
    case Part::header:
      n = std::min(bytes.size(), kTarBlock - block_filled_);
      std::copy_n(bytes.data(), n, block_.data() + block_filled_);
      block_filled_ += n;
      return n;
    case Part::content:
      n = std::min(bytes.size(), remaining_);
      files_.back().content.append(bytes.data(), n);  // within the capacity reserved at the header
      remaining_ -= n;
      if (remaining_ == 0) next_after_content();
      return n;
    case Part::padding:
      n = std::min(bytes.size(), remaining_);
      remaining_ -= n;
      if (remaining_ == 0) part_ = Part::header;
      return n;
    case Part::end:
      if (bytes.find_first_not_of('\0') != std::string_view::npos)
        throw ArchiveError("archive: more data after its end-of-archive blocks: send the archive alone");
      end_zeros_ += bytes.size();
      return bytes.size();
  }
  return bytes.size();
}

void TarReader::next_after_content() {
  remaining_ = (kTarBlock - files_.back().content.size() % kTarBlock) % kTarBlock;
  part_ = remaining_ > 0 ? Part::padding : Part::header;
}

void TarReader::read_header() {
  block_filled_ = 0;
  ++entries_;
  if (std::all_of(block_.begin(), block_.end(), [](char c) { return c == '\0'; })) {
    part_ = Part::end;
    end_zeros_ = kTarBlock;
    return;
  }
  if (tar_octal(block_, kTarChecksum) != tar_checksum(block_))
    throw ArchiveError(fmt::format(
        "archive entry {} has a bad header checksum: the archive is damaged or not a tar", entries_));
  const std::string_view magic(block_.data() + kTarMagic.offset, kTarMagic.size);
  if (magic != kUstarMagic && magic != kGnuTarMagic)
    throw ArchiveError(fmt::format(
        "archive entry {} is not a ustar header: send a POSIX tar (tar --format=ustar)", entries_));
  std::string name = entry_name();
  check_entry(name);
  start_file(std::move(name));
}

// The name field, behind the prefix field of a POSIX header when it holds one (it then names a
// path, which check_entry refuses).
std::string TarReader::entry_name() const {
  std::string name(tar_text(block_, kTarName));
  const std::string_view magic(block_.data() + kTarMagic.offset, kTarMagic.size);
  const std::string_view prefix = tar_text(block_, kTarPrefix);
  if (magic == kUstarMagic && !prefix.empty()) name = fmt::format("{}/{}", prefix, name);
  return name;
}

void TarReader::check_entry(const std::string& name) const {
  if (const auto problem = tar_type_problem(block_[kTarTypeflag]))
    throw ArchiveError(
        fmt::format("archive entry {} {}: only regular files are accepted", quoted_name(name), *problem));
  if (const auto problem = name_problem(name))
    throw ArchiveError(
        fmt::format("archive entry {} {}: only plain file names are accepted", quoted_name(name), *problem));
  if (names_.contains(name))
    throw ArchiveError(fmt::format("archive entry {} appears twice: send each file once", quoted_name(name)));
  if (files_.size() >= budget_.limits.max_files)
    throw ArchiveError(
        fmt::format("archive: more than {} files, the most an upload may hold", budget_.limits.max_files),
        ArchiveError::Kind::too_large);
}

// Starts the file after checking its announced size against the budget: its buffer is then
// reserved once, so the content never reallocates and never outgrows what was allowed.
void TarReader::start_file(std::string name) {
  const auto size = tar_octal(block_, kTarSize);
  if (!size)
    throw ArchiveError(fmt::format(
        "archive entry {} has an unreadable size: send a POSIX tar (tar --format=ustar)", quoted_name(name)));
  budget_.check(consumed_ + *size);
  names_.insert(name);
  files_.push_back({std::move(name), {}});
  files_.back().content.reserve(*size);
  remaining_ = *size;
  if (remaining_ > 0) {
    part_ = Part::content;
  } else {
    next_after_content();
  }
}

std::vector<ArchiveFile> TarReader::finish() {
  if (part_ == Part::content || part_ == Part::padding)
    throw ArchiveError(fmt::format("archive: truncated inside entry {}: send the whole archive",
                                   quoted_name(files_.back().name)));
  if (part_ != Part::end || end_zeros_ < kTarEndZeros)
    throw ArchiveError("archive: truncated before its end-of-archive blocks: send the whole archive");
  return std::move(files_);
}

class InflateStream {
 public:
  InflateStream() {
    if (inflateInit2(&z, kGzipWindowBits) != Z_OK) throw std::bad_alloc();
  }
  ~InflateStream() { inflateEnd(&z); }
  InflateStream(const InflateStream&) = delete;
  InflateStream& operator=(const InflateStream&) = delete;
  z_stream z{};
};

// Inflates `gz`, one gzip member and nothing after it, into `reader` a chunk at a time: the budget
// sees the running count before the reader sees the chunk, so a bomb stops at the first chunk over.
void inflate_into(std::string_view gz, const ArchiveBudget& budget, TarReader& reader) {
  InflateStream stream;
  std::string chunk(kZlibChunk, '\0');
  std::size_t expanded = 0;
  int status = Z_OK;
  while (status != Z_STREAM_END) {
    if (stream.z.avail_in == 0 && !next_zlib_input(stream.z, gz))
      throw ArchiveError("archive: truncated inside its gzip stream: send the whole archive");
    stream.z.next_out = reinterpret_cast<Bytef*>(chunk.data());
    stream.z.avail_out = static_cast<uInt>(chunk.size());
    status = inflate(&stream.z, Z_NO_FLUSH);
    if (status == Z_MEM_ERROR) throw std::bad_alloc();
    if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR)
      throw ArchiveError(fmt::format("archive: damaged gzip data ({}): send the archive again",
                                     stream.z.msg ? stream.z.msg : "unreadable"));
    const std::size_t produced = chunk.size() - stream.z.avail_out;
    expanded += produced;
    budget.check(expanded);
    reader.feed(std::string_view(chunk.data(), produced));
  }
  if (const std::size_t after = stream.z.avail_in + gz.size(); after > 0)
    throw ArchiveError(fmt::format(
        "archive: {} bytes after its gzip stream (a second member or garbage): send one gzip stream alone",
        after));
}

}  // namespace

std::string pack(std::vector<ArchiveFile> files) {
  std::sort(files.begin(), files.end(),
            [](const ArchiveFile& a, const ArchiveFile& b) { return a.name < b.name; });
  check_packable(files);
  return gzip_compress(tar_of(files));
}

std::vector<ArchiveFile> unpack(std::string_view gz, const ArchiveLimits& limits) {
  if (gz.size() > limits.max_compressed)
    throw ArchiveError(
        fmt::format("archive: {} bytes, more than an upload may be ({} bytes): send fewer or smaller files",
                    gz.size(), limits.max_compressed),
        ArchiveError::Kind::too_large);
  if (gz.size() < 2 || gz[0] != '\x1f' || gz[1] != '\x8b')
    throw ArchiveError("archive: not gzip data: send a gzip-compressed tar (.tar.gz)");
  const ArchiveBudget budget{limits, gz.size()};
  TarReader reader(budget);
  inflate_into(gz, budget, reader);
  return reader.finish();
}

}  // namespace noisefloor::store
