// store/archive: what `noisefloor serve` accepts as an upload. Round trips through pack, and
// refusals of archives built here byte by byte (ustar headers with their checksums, gzip by zlib),
// each refusal recognised by a word of its message. The bombs are deflated as a stream, so neither
// this test nor unpack holds what they expand to.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "model/errors.hpp"
#include "store/archive.hpp"

namespace noisefloor::store {
namespace {

constexpr std::size_t kTestBlock = 512;

// `header` with its checksum field recomputed, as every tar writes it: six octal digits, NUL, space.
std::string sealed_header(std::string header) {
  std::fill_n(header.begin() + 148, 8, ' ');
  unsigned sum = 0;
  for (const char c : header) sum += static_cast<unsigned char>(c);
  const std::string digits = fmt::format("{:06o}", sum);
  std::copy(digits.begin(), digits.end(), header.begin() + 148);
  header[154] = '\0';
  return header;
}

// A POSIX ustar header of `name` (cut at 100 bytes) with typeflag `type` announcing `size` bytes.
std::string ustar_header(std::string_view name, char type, std::size_t size) {
  std::string header(kTestBlock, '\0');
  std::copy_n(name.begin(), std::min<std::size_t>(name.size(), 100), header.begin());
  const auto put = [&](std::size_t offset, std::size_t width, std::uint64_t value) {
    const std::string digits = fmt::format("{:0{}o}", value, width - 1);
    std::copy(digits.begin(), digits.end(), header.begin() + static_cast<std::ptrdiff_t>(offset));
  };
  put(100, 8, 0644);
  put(108, 8, 0);
  put(116, 8, 0);
  put(124, 12, size);
  put(136, 12, 0);
  header[156] = type;
  const std::string_view magic("ustar\00000", 8);  // "ustar", NUL (\000), version "00"
  std::copy(magic.begin(), magic.end(), header.begin() + 257);
  return sealed_header(header);
}

// One entry: its header, its content, zeros to a whole block.
std::string tar_entry(std::string_view name, std::string_view content, char type = '0') {
  std::string entry = ustar_header(name, type, content.size()) + std::string(content);
  return entry + std::string((kTestBlock - content.size() % kTestBlock) % kTestBlock, '\0');
}

const std::string kTarEnd(2 * kTestBlock, '\0');

// `raw` followed by `zeros` zero bytes as one gzip member, deflated 1 MiB at a time.
std::string gzip_of(std::string_view raw, std::size_t zeros = 0) {
  z_stream z{};
  REQUIRE(deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  const std::string zero_chunk(1u << 20, '\0');
  std::string gz, out(1u << 16, '\0');
  const auto put = [&](std::string_view in, int flush) {
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = static_cast<uInt>(in.size());
    do {
      z.next_out = reinterpret_cast<Bytef*>(out.data());
      z.avail_out = static_cast<uInt>(out.size());
      deflate(&z, flush);
      gz.append(out.data(), out.size() - z.avail_out);
    } while (z.avail_out == 0);
  };
  put(raw, Z_NO_FLUSH);
  for (; zeros > 0; zeros -= std::min(zeros, zero_chunk.size()))
    put(std::string_view(zero_chunk).substr(0, std::min(zeros, zero_chunk.size())), Z_NO_FLUSH);
  put({}, Z_FINISH);
  deflateEnd(&z);
  return gz;
}

// unpack's message for `upload`, or "accepted" when it takes it.
std::string refusal(std::string_view upload, const ArchiveLimits& limits = {}) {
  try {
    unpack(upload, limits);
  } catch (const ArchiveError& e) {
    return e.what();
  }
  return "accepted";
}

bool mentions(const std::string& message, std::string_view word) {
  return message.find(word) != std::string::npos;
}

std::vector<ArchiveFile> some_files() {
  std::string binary;
  for (int i = 0; i < 3000; ++i) binary += static_cast<char>(i % 7 == 0 ? 0 : (i * 37) % 256);
  std::string samples;
  for (int i = 0; i < 400; ++i) samples += fmt::format("{{\"run\":{},\"ns_per_op\":{}}}\n", i, 1000 + i * 3);
  return {{"samples.jsonl", samples},
          {"empty", ""},
          {"blob.bin", binary},
          {"one-block", std::string(512, 'b')},
          {"run.json", "{\"schema\":1}"}};
}

}  // namespace

TEST_CASE("store archive: files come back as they went in, empty and binary ones too") {
  const std::vector<ArchiveFile> files = some_files();
  const std::vector<ArchiveFile> back = unpack(pack(files));
  REQUIRE(back.size() == files.size());
  std::vector<std::string> names;
  for (const ArchiveFile& file : back) {
    names.push_back(file.name);
    const auto sent =
        std::find_if(files.begin(), files.end(), [&](const auto& f) { return f.name == file.name; });
    REQUIRE(sent != files.end());
    CHECK(file.content == sent->content);
  }
  CHECK(names == std::vector<std::string>{"blob.bin", "empty", "one-block", "run.json", "samples.jsonl"});
  CHECK(back[0].content.find('\0') != std::string::npos);
  CHECK(unpack(pack({})).empty());
}

TEST_CASE("store archive: pack is deterministic, whatever the order of its files") {
  std::vector<ArchiveFile> files = some_files();
  const std::string once = pack(files);
  CHECK(pack(files) == once);
  std::reverse(files.begin(), files.end());
  CHECK(pack(files) == once);
  // The gzip header: deflate, no flags (so no file name), mtime 0, OS Unix.
  REQUIRE(once.size() > 10);
  CHECK(once.substr(0, 4) == std::string_view("\x1f\x8b\x08\x00", 4));
  CHECK(once.substr(4, 4) == std::string_view("\0\0\0\0", 4));
  CHECK(once[9] == 3);
}

TEST_CASE("store archive: archives written by hand are read, GNU tar's magic and zero padding too") {
  const std::string tar = tar_entry("a.txt", "alpha") + tar_entry("b.txt", std::string(700, 'z')) + kTarEnd;
  auto files = unpack(gzip_of(tar));
  REQUIRE(files.size() == 2);
  CHECK(files[0].name == "a.txt");
  CHECK(files[0].content == "alpha");
  CHECK(files[1].content == std::string(700, 'z'));
  // A record padded with zeros, to a whole block or not.
  CHECK(unpack(gzip_of(tar, 10240)).size() == 2);
  CHECK(unpack(gzip_of(tar, 100)).size() == 2);
  std::string gnu = ustar_header("c.txt", '\0', 3);
  std::copy_n("ustar  \0", 8, gnu.begin() + 257);
  files = unpack(gzip_of(sealed_header(gnu) + "abc" + std::string(509, '\0') + kTarEnd));
  REQUIRE(files.size() == 1);
  CHECK(files[0].content == "abc");
}

TEST_CASE("store archive: anything but a regular file with a plain name is refused, and says why") {
  std::string prefixed = ustar_header("b", '0', 0);
  std::copy_n("a", 1, prefixed.begin() + 345);
  std::string bad_checksum = ustar_header("x", '0', 0);
  bad_checksum[0] = 'y';
  std::string not_ustar = ustar_header("x", '0', 0);
  std::fill_n(not_ustar.begin() + 257, 8, '\0');
  std::string base256 = ustar_header("x", '0', 0);
  base256[124] = static_cast<char>(0x80);
  struct Case {
    const char* what;
    std::string tar;
    const char* word;
  };
  const std::vector<Case> cases = {
      {"a symbolic link", tar_entry("link", "", '2'), "is a symbolic link"},
      {"a hard link", tar_entry("hard", "", '1'), "is a hard link"},
      {"a character device", tar_entry("tty", "", '3'), "character device"},
      {"a block device", tar_entry("sda", "", '4'), "block device"},
      {"a directory", tar_entry("dir", "", '5'), "is a directory"},
      {"a FIFO", tar_entry("pipe", "", '6'), "is a FIFO"},
      {"a pax header", tar_entry("PaxHeaders/x", "30 path=x\n", 'x'), "pax extended header"},
      {"a pax global header", tar_entry("pax_global_header", "", 'g'), "pax extended header"},
      {"a GNU long name", tar_entry("././@LongLink", "x", 'L'), "GNU extended header"},
      {"a GNU long link", tar_entry("././@LongLink", "x", 'K'), "GNU extended header"},
      {"an unknown type", tar_entry("odd", "", 'Z'), "unknown type"},
      {"a climbing name", tar_entry("../x", "pwned"), "'..'"},
      {"'..' inside a name", tar_entry("a..b", ""), "'..'"},
      {"an absolute name", tar_entry("/etc/passwd", "root"), "absolute"},
      {"a path", tar_entry("a/b", ""), "names a path"},
      {"a backslash path", tar_entry("a\\b", ""), "names a path"},
      {"a prefix field", sealed_header(prefixed), "names a path"},
      {"a hidden name", tar_entry(".bashrc", ""), "hidden"},
      {"a control character", tar_entry("a\x1b[2Jb", ""), "control character"},
      {"an empty name", tar_entry("", ""), "empty name"},
      {"a name twice", tar_entry("a", "1") + tar_entry("a", "2"), "appears twice"},
      {"a bad checksum", bad_checksum, "bad header checksum"},
      {"no ustar magic", sealed_header(not_ustar), "not a ustar header"},
      {"a base-256 size", sealed_header(base256), "unreadable size"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    const std::string message = refusal(gzip_of(c.tar + kTarEnd));
    INFO(message);
    CHECK(mentions(message, c.word));
    CHECK(message.find('\n') == std::string::npos);
    CHECK(message.find('\x1b') == std::string::npos);  // the name is shown, its control bytes escaped
  }
}

TEST_CASE("store archive: a damaged, truncated or padded upload is refused") {
  const std::string tar = tar_entry("a.txt", std::string(1000, 'a')) + kTarEnd;
  const std::string gz = pack({{"a.txt", "alpha"}});
  CHECK(mentions(refusal("hello, this is not gzip"), "not gzip"));
  CHECK(mentions(refusal(""), "not gzip"));
  CHECK(mentions(refusal(gz.substr(0, gz.size() - 5)), "truncated inside its gzip stream"));
  std::string bad_crc = gz;
  bad_crc[bad_crc.size() - 8] = static_cast<char>(bad_crc[bad_crc.size() - 8] ^ 1);
  CHECK(mentions(refusal(bad_crc), "damaged gzip data"));
  CHECK(mentions(refusal(gzip_of(tar.substr(0, 700))), "truncated inside entry 'a.txt'"));
  CHECK(mentions(refusal(gzip_of(tar.substr(0, 1536))), "truncated before its end-of-archive"));
  CHECK(mentions(refusal(gzip_of(tar.substr(0, 1536 + 512))), "truncated before its end-of-archive"));
  CHECK(mentions(refusal(gzip_of(tar + "garbage")), "after its end-of-archive blocks"));
  CHECK(mentions(refusal(gzip_of(tar + std::string(512, '\0') + "x")), "after its end-of-archive blocks"));
  CHECK(mentions(refusal(gz + "x"), "1 bytes after its gzip stream"));
  CHECK(mentions(refusal(gz + pack({{"b.txt", "beta"}})), "after its gzip stream"));
  CHECK_THROWS_AS(unpack("nope"), InputError);
}

TEST_CASE("store archive: limits: files, upload size, expanded size") {
  std::vector<ArchiveFile> files;
  for (int i = 0; i < 4; ++i) files.push_back({fmt::format("f{}", i), "x"});
  ArchiveLimits limits;
  limits.max_files = 4;
  CHECK(unpack(pack(files), limits).size() == 4);
  limits.max_files = 3;
  CHECK(mentions(refusal(pack(files), limits), "more than 3 files"));

  const std::string gz = pack(files);
  limits = {};
  limits.max_compressed = gz.size();
  CHECK(unpack(gz, limits).size() == 4);
  limits.max_compressed = gz.size() - 1;
  CHECK(mentions(refusal(gz, limits), "more than an upload may be"));

  limits = {};
  limits.max_expanded = 1u << 20;
  const std::string two_mib = gzip_of(ustar_header("big", '0', 2u << 20), (2u << 20) + 2 * kTestBlock);
  CHECK(mentions(refusal(two_mib, limits), "expands past 1048576 bytes"));
}

TEST_CASE("store archive: compression bombs are refused as they inflate, before they are held") {
  const std::size_t zeros = 300u << 20;
  // 300 MiB of zeros: a tar of nothing but its end marker and padding, refused for its ratio once
  // past 1 MiB, far before the end.
  const std::string zero_bomb = gzip_of("", zeros);
  INFO(zero_bomb.size());
  CHECK(zero_bomb.size() < (1u << 20));
  CHECK(mentions(refusal(zero_bomb), "compression bomb"));
  // With the ratio let go, the expanded limit stops it at 256 MiB, counted as it inflates.
  ArchiveLimits loose;
  loose.max_ratio = 1u << 30;
  CHECK(mentions(refusal(zero_bomb, loose), "expands past 268435456 bytes"));
  // A file announcing 200 MiB (under the expanded limit) is refused at its header, before its
  // buffer is reserved, and 300 MiB past the expanded limit whatever the ratio.
  CHECK(mentions(refusal(gzip_of(ustar_header("big", '0', 200u << 20), 200u << 20)), "compression bomb"));
  CHECK(mentions(refusal(gzip_of(ustar_header("big", '0', zeros), zeros), loose), "expands past"));
  // A small archive may compress far better than the ratio: under 1 MiB it is not judged.
  CHECK(unpack(gzip_of(tar_entry("zeros", std::string(512u << 10, '\0')) + kTarEnd)).size() == 1);
}

TEST_CASE("store archive: pack refuses what unpack would") {
  const auto message = [](std::vector<ArchiveFile> files) {
    try {
      pack(std::move(files));
    } catch (const ArchiveError& e) {
      return std::string(e.what());
    }
    return std::string("packed");
  };
  CHECK(mentions(message({{"../x", ""}}), "'..'"));
  CHECK(mentions(message({{"a/b", ""}}), "names a path"));
  CHECK(mentions(message({{std::string(101, 'n'), ""}}), "over 100 bytes"));
  CHECK(mentions(message({{"a", "1"}, {"b", ""}, {"a", "2"}}), "two files have this name"));
  CHECK(unpack(pack({{std::string(100, 'n'), "ok"}})).at(0).name == std::string(100, 'n'));
}

}  // namespace noisefloor::store
