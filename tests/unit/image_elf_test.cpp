#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "image/elf.hpp"
#include "model/errors.hpp"

using noisefloor::ParseError;
using noisefloor::image::ElfInfo;
using noisefloor::image::parse_elf;

namespace {

// The committed ELF files are described in tests/data/elf/README.md.
std::string read_elf_file(const std::string& name) {
  const std::string path = std::string(NF_TEST_DATA_DIR) + "/elf/" + name;
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot open " << path);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

using Strings = std::vector<std::string>;

}  // namespace

TEST_CASE("elf: a static ELF64 executable needs nothing") {
  const ElfInfo info = parse_elf(read_elf_file("static64"));
  CHECK(info.is_elf);
  CHECK_FALSE(info.dynamic);
  CHECK_FALSE(info.interpreter.has_value());
  CHECK(info.needed.empty());
  CHECK(info.rpath.empty());
  CHECK(info.runpath.empty());
  CHECK(info.machine == "x86_64");
  CHECK(info.bits == 64);
}

TEST_CASE("elf: a static-pie has PT_DYNAMIC but is not dynamic") {
  const ElfInfo info = parse_elf(read_elf_file("static-pie64"));
  CHECK(info.is_elf);
  CHECK_FALSE(info.dynamic);
  CHECK_FALSE(info.interpreter.has_value());
  CHECK(info.needed.empty());
}

TEST_CASE("elf: a dynamic ELF64 executable with RUNPATH") {
  const ElfInfo info = parse_elf(read_elf_file("dynamic64-runpath"));
  CHECK(info.is_elf);
  CHECK(info.dynamic);
  CHECK(info.interpreter == "/lib64/ld-linux-x86-64.so.2");
  CHECK(info.needed == Strings{"libm.so.6", "libc.so.6"});
  CHECK(info.rpath.empty());
  CHECK(info.runpath == Strings{"$ORIGIN/lib", "/opt/noisefloor/lib"});
  CHECK_FALSE(info.soname.has_value());
  CHECK(info.machine == "x86_64");
  CHECK(info.bits == 64);
}

TEST_CASE("elf: a dynamic ELF64 executable with the old DT_RPATH") {
  const ElfInfo info = parse_elf(read_elf_file("dynamic64-rpath"));
  CHECK(info.dynamic);
  CHECK(info.interpreter == "/lib64/ld-linux-x86-64.so.2");
  CHECK(info.needed == Strings{"libm.so.6", "libc.so.6"});
  CHECK(info.rpath == Strings{"/opt/noisefloor/lib"});
  CHECK(info.runpath.empty());
}

TEST_CASE("elf: a shared library's SONAME") {
  const ElfInfo info = parse_elf(read_elf_file("libnftiny.so.1"));
  CHECK(info.is_elf);
  CHECK_FALSE(info.dynamic);
  CHECK(info.soname == "libnftiny.so.1");
  CHECK(info.needed.empty());
}

TEST_CASE("elf: ELF32 i386 files") {
  const ElfInfo dynamic = parse_elf(read_elf_file("dynamic32"));
  CHECK(dynamic.is_elf);
  CHECK(dynamic.dynamic);
  CHECK(dynamic.interpreter == "/lib/ld-linux.so.2");
  CHECK(dynamic.needed == Strings{"libc.so.6"});
  CHECK(dynamic.machine == "i386");
  CHECK(dynamic.bits == 32);

  const ElfInfo stat = parse_elf(read_elf_file("static32"));
  CHECK(stat.is_elf);
  CHECK_FALSE(stat.dynamic);
  CHECK(stat.machine == "i386");
  CHECK(stat.bits == 32);
}

TEST_CASE("elf: bytes that are not ELF are reported, not rejected") {
  CHECK_FALSE(parse_elf("").is_elf);
  CHECK_FALSE(parse_elf("#!/bin/sh\nexec true\n").is_elf);
  CHECK_FALSE(parse_elf("\x7f"
                        "EL")
                  .is_elf);
  CHECK(parse_elf("#!/bin/sh\n") == ElfInfo{});
}

TEST_CASE("elf: truncated files throw ParseError naming what is missing") {
  const std::string full = read_elf_file("dynamic64-runpath");
  CHECK_THROWS_WITH_AS(parse_elf(full.substr(0, 4)), "elf: truncated: 4 bytes, shorter than e_ident",
                       ParseError);
  CHECK_THROWS_WITH_AS(parse_elf(full.substr(0, 40)),
                       "elf: truncated: the ELF header (offset 0, 64 bytes) extends past the end of the data "
                       "(40 bytes)",
                       ParseError);
  // 11 program headers of 56 bytes start at offset 64.
  CHECK_THROWS_WITH_AS(parse_elf(full.substr(0, 200)),
                       "elf: truncated: the program header table (offset 64, 616 bytes) extends "
                       "past the end of the data (200 bytes)",
                       ParseError);
  // The second PT_LOAD (program header 3) covers file bytes 0xdb0..0x1020 (3504..4128).
  CHECK_THROWS_WITH_AS(parse_elf(full.substr(0, 3600)),
                       "elf: truncated: program header 3 (PT_LOAD) (offset 3504, 624 bytes) "
                       "extends past the end of the data (3600 bytes)",
                       ParseError);
  // Every prefix that cuts into the loaded segments throws; past them only section headers
  // remain, which the loader (and this parser) never reads.
  for (std::size_t n = 4; n < 4128; n += 97) {
    CAPTURE(n);
    CHECK_THROWS_AS(parse_elf(full.substr(0, n)), ParseError);
  }
  CHECK(parse_elf(full.substr(0, 4128)) == parse_elf(full));
}

TEST_CASE("elf: unsupported encodings throw ParseError") {
  std::string bytes = read_elf_file("static64");
  bytes[5] = 2;  // EI_DATA: big-endian
  CHECK_THROWS_WITH_AS(parse_elf(bytes),
                       "elf: big-endian ELF is not supported (expected "
                       "little-endian)",
                       ParseError);
  bytes[5] = 1;
  bytes[4] = 3;  // EI_CLASS
  CHECK_THROWS_WITH_AS(parse_elf(bytes), "elf: unknown ELF class 3 (expected 1 for ELF32 or 2 for ELF64)",
                       ParseError);
}

TEST_CASE("elf: a DT_STRTAB outside every PT_LOAD is rejected") {
  std::string bytes = read_elf_file("dynamic64-runpath");
  // Find the DT_STRTAB entry (tag 5, value 0x3f0) in the dynamic section and point it far away.
  const std::string entry("\x05\0\0\0\0\0\0\0\xf0\x03\0\0\0\0\0\0", 16);
  const auto at = bytes.find(entry, 0xdc0);
  REQUIRE(at != std::string::npos);
  bytes[at + 13] = '\x7f';  // value becomes 0x7f00000003f0
  CHECK_THROWS_WITH_AS(parse_elf(bytes),
                       "elf: DT_STRTAB address 0x7f00000003f0 is not inside any PT_LOAD segment", ParseError);
}
