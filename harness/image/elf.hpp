// ELF header reading for the auto image: which loader and shared libraries an executable needs.
// Pure: works on bytes already read from a file.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace noisefloor::image {

// What the dynamic loader needs to start an ELF file (little-endian ELF32 or ELF64 only).
struct ElfInfo {
  bool is_elf = false;   // false: not an ELF file at all (e.g. a shell script); nothing else is set
  bool dynamic = false;  // needs a loader or shared libraries: has PT_INTERP or any DT_NEEDED
                         // (a static-pie has PT_DYNAMIC but neither, so it is not dynamic)
  std::optional<std::string> interpreter;  // PT_INTERP, e.g. "/lib64/ld-linux-x86-64.so.2"
  std::vector<std::string> needed;         // DT_NEEDED in file order, e.g. {"libc.so.6"}
  // DT_RPATH / DT_RUNPATH split at ':' (empty entries dropped), tokens such as $ORIGIN unexpanded.
  std::vector<std::string> rpath, runpath;
  std::optional<std::string> soname;  // DT_SONAME, if any
  std::string machine;                // "x86_64", "i386", "aarch64", "arm", ...; "e_machine <n>" when unnamed
  int bits = 0;  // 32 or 64 (EI_CLASS): the loader only accepts libraries of its own class
  friend bool operator==(const ElfInfo&, const ElfInfo&) = default;
};

// Reads the ELF header, the program headers and the dynamic section (through PT_DYNAMIC and the
// PT_LOAD mapping of DT_STRTAB, as the loader does, so stripped files work). Bytes that do not
// start with "\x7fELF" give is_elf == false. Throws noisefloor::ParseError ("elf: ...") for an
// ELF file that is truncated, big-endian, of an unknown class, or whose tables point outside the
// data.
ElfInfo parse_elf(std::string_view bytes);

}  // namespace noisefloor::image
