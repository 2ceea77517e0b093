#include "image/elf.hpp"

#include <elf.h>
#include <fmt/format.h>

#include <cstddef>
#include <cstdint>

#include "model/errors.hpp"

namespace noisefloor::image {
namespace {

// Where the fields read here are in each class: sizes and offsets of <elf.h>'s structures.
struct Layout {
  std::uint64_t ehdr_size, e_machine, e_phoff, e_phentsize, e_phnum;
  std::uint64_t phdr_size, p_offset, p_vaddr, p_filesz;
  std::uint64_t dyn_size, d_val;
};
template <class Ehdr, class Phdr, class Dyn>
constexpr Layout layout_of() {
  return {sizeof(Ehdr),
          offsetof(Ehdr, e_machine),
          offsetof(Ehdr, e_phoff),
          offsetof(Ehdr, e_phentsize),
          offsetof(Ehdr, e_phnum),
          sizeof(Phdr),
          offsetof(Phdr, p_offset),
          offsetof(Phdr, p_vaddr),
          offsetof(Phdr, p_filesz),
          sizeof(Dyn),
          offsetof(Dyn, d_un)};
}
constexpr Layout kElf32 = layout_of<Elf32_Ehdr, Elf32_Phdr, Elf32_Dyn>();
constexpr Layout kElf64 = layout_of<Elf64_Ehdr, Elf64_Phdr, Elf64_Dyn>();

[[noreturn]] void fail(const std::string& message) { throw ParseError("elf: " + message); }

// Little-endian reader over the whole file with bounds checks that name what was being read.
class Reader {
 public:
  Reader(std::string_view bytes, bool is64) : bytes_(bytes), is64_(is64) {}

  std::uint64_t uint(std::uint64_t offset, int size, const char* what) const {
    require(offset, static_cast<std::uint64_t>(size), what);
    std::uint64_t value = 0;
    for (int i = size - 1; i >= 0; --i) {
      value = (value << 8) | static_cast<unsigned char>(bytes_[offset + static_cast<unsigned>(i)]);
    }
    return value;
  }
  std::uint64_t u16(std::uint64_t offset, const char* what) const { return uint(offset, 2, what); }
  std::uint64_t u32(std::uint64_t offset, const char* what) const { return uint(offset, 4, what); }
  // ElfN_Addr / ElfN_Off / ElfN_Xword: 4 bytes in ELF32, 8 in ELF64.
  std::uint64_t word(std::uint64_t offset, const char* what) const {
    return uint(offset, is64_ ? 8 : 4, what);
  }

  void require(std::uint64_t offset, std::uint64_t length, const char* what) const {
    if (offset > bytes_.size() || length > bytes_.size() - offset) {
      fail(
          fmt::format("truncated: {} (offset {}, {} bytes) extends past the end of the data "
                      "({} bytes)",
                      what, offset, length, bytes_.size()));
    }
  }

  // A NUL-terminated string starting at `offset`, which must end before `limit`.
  std::string c_string(std::uint64_t offset, std::uint64_t limit, const char* what) const {
    if (limit > bytes_.size()) limit = bytes_.size();
    if (offset >= limit) {
      fail(fmt::format("{} at offset {} is outside its table (which ends at {})", what, offset, limit));
    }
    const std::string_view rest = bytes_.substr(offset, limit - offset);
    const auto nul = rest.find('\0');
    if (nul == std::string_view::npos) {
      fail(fmt::format("{} at offset {} is not NUL-terminated", what, offset));
    }
    return std::string(rest.substr(0, nul));
  }

  std::size_t size() const { return bytes_.size(); }

 private:
  std::string_view bytes_;
  bool is64_;
};

std::string machine_name(std::uint64_t e_machine) {
  switch (e_machine) {
    case EM_386:
      return "i386";
    case EM_MIPS:
      return "mips";
    case EM_PPC:
      return "ppc";
    case EM_PPC64:
      return "ppc64";
    case EM_S390:
      return "s390";
    case EM_ARM:
      return "arm";
    case EM_X86_64:
      return "x86_64";
    case EM_AARCH64:
      return "aarch64";
    case EM_RISCV:
      return "riscv";
    case EM_LOONGARCH:
      return "loongarch";
    default:
      return fmt::format("e_machine {}", e_machine);
  }
}

std::vector<std::string> split_path_list(const std::string& list) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    auto colon = list.find(':', start);
    if (colon == std::string::npos) colon = list.size();
    if (colon > start) out.push_back(list.substr(start, colon - start));
    start = colon + 1;
  }
  return out;
}

struct Segment {
  std::uint32_t type;
  std::uint64_t offset, vaddr, filesz;
};

}  // namespace

ElfInfo parse_elf(std::string_view bytes) {
  ElfInfo info;
  if (bytes.size() < SELFMAG || bytes.substr(0, SELFMAG) != std::string_view(ELFMAG, SELFMAG)) return info;
  info.is_elf = true;
  if (bytes.size() < EI_NIDENT) fail(fmt::format("truncated: {} bytes, shorter than e_ident", bytes.size()));
  const auto elf_class = static_cast<unsigned char>(bytes[EI_CLASS]);
  const auto data = static_cast<unsigned char>(bytes[EI_DATA]);
  if (elf_class != ELFCLASS32 && elf_class != ELFCLASS64) {
    fail(fmt::format("unknown ELF class {} (expected 1 for ELF32 or 2 for ELF64)", elf_class));
  }
  if (data == ELFDATA2MSB) fail("big-endian ELF is not supported (expected little-endian)");
  if (data != ELFDATA2LSB)
    fail(fmt::format("unknown ELF data encoding {} (expected 1, little-endian)", data));
  const bool is64 = elf_class == ELFCLASS64;
  const Layout& at = is64 ? kElf64 : kElf32;
  info.bits = is64 ? 64 : 32;
  const Reader r(bytes, is64);

  r.require(0, at.ehdr_size, "the ELF header");
  info.machine = machine_name(r.u16(at.e_machine, "e_machine"));
  const std::uint64_t phoff = r.word(at.e_phoff, "e_phoff");
  const std::uint64_t phentsize = r.u16(at.e_phentsize, "e_phentsize");
  const std::uint64_t phnum = r.u16(at.e_phnum, "e_phnum");
  if (phnum == PN_XNUM) fail("more than 65534 program headers (PN_XNUM) is not supported");
  const std::uint64_t min_phentsize = at.phdr_size;
  if (phnum > 0 && phentsize < min_phentsize) {
    fail(fmt::format("e_phentsize {} is smaller than a program header ({} bytes)", phentsize, min_phentsize));
  }
  r.require(phoff, phnum * phentsize, "the program header table");

  std::vector<Segment> segments;
  for (std::uint64_t i = 0; i < phnum; ++i) {
    const std::uint64_t header = phoff + i * phentsize;
    Segment s{};
    s.type = static_cast<std::uint32_t>(r.u32(header, "p_type"));
    s.offset = r.word(header + at.p_offset, "p_offset");
    s.vaddr = r.word(header + at.p_vaddr, "p_vaddr");
    s.filesz = r.word(header + at.p_filesz, "p_filesz");
    if (s.type == PT_LOAD) {
      // The loader maps every PT_LOAD: a file cut inside one is truncated even if the tables
      // read below happen to be intact.
      r.require(s.offset, s.filesz, fmt::format("program header {} (PT_LOAD)", i).c_str());
    }
    segments.push_back(s);
  }

  for (const Segment& s : segments) {
    if (s.type != PT_INTERP) continue;
    r.require(s.offset, s.filesz, "the PT_INTERP segment");
    info.interpreter = r.c_string(s.offset, s.offset + s.filesz, "the PT_INTERP path");
  }

  const Segment* dynamic = nullptr;
  for (const Segment& s : segments) {
    if (s.type == PT_DYNAMIC) dynamic = &s;
  }
  if (dynamic != nullptr) {
    r.require(dynamic->offset, dynamic->filesz, "the PT_DYNAMIC segment");
    const std::uint64_t entry_size = at.dyn_size;
    std::optional<std::uint64_t> strtab_vaddr;
    std::optional<std::uint64_t> strsz;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> string_entries;  // (tag, strtab offset)
    for (std::uint64_t entry = dynamic->offset; entry + entry_size <= dynamic->offset + dynamic->filesz;
         entry += entry_size) {
      const std::uint64_t tag = r.word(entry, "d_tag");
      const std::uint64_t value = r.word(entry + at.d_val, "d_val");
      if (tag == DT_NULL) break;
      if (tag == DT_STRTAB) strtab_vaddr = value;
      if (tag == DT_STRSZ) strsz = value;
      if (tag == DT_NEEDED || tag == DT_RPATH || tag == DT_RUNPATH || tag == DT_SONAME) {
        string_entries.emplace_back(tag, value);
      }
    }
    if (!string_entries.empty()) {
      if (!strtab_vaddr) fail("the dynamic section names libraries but has no DT_STRTAB");
      // DT_STRTAB is a virtual address: map it to a file offset through the PT_LOAD covering it.
      std::optional<std::uint64_t> strtab_offset;
      std::uint64_t strtab_end = 0;
      for (const Segment& s : segments) {
        if (s.type == PT_LOAD && *strtab_vaddr >= s.vaddr && *strtab_vaddr - s.vaddr < s.filesz) {
          strtab_offset = s.offset + (*strtab_vaddr - s.vaddr);
          strtab_end = s.offset + s.filesz;
          break;
        }
      }
      if (!strtab_offset) {
        fail(fmt::format("DT_STRTAB address {:#x} is not inside any PT_LOAD segment", *strtab_vaddr));
      }
      if (strsz && *strsz < strtab_end - *strtab_offset) strtab_end = *strtab_offset + *strsz;
      r.require(*strtab_offset, strtab_end - *strtab_offset, "the dynamic string table");
      for (const auto& [tag, name_offset] : string_entries) {
        const std::string text =
            r.c_string(*strtab_offset + name_offset, strtab_end, "a dynamic section string");
        if (tag == DT_NEEDED) info.needed.push_back(text);
        if (tag == DT_SONAME) info.soname = text;
        if (tag == DT_RPATH) {
          for (auto& dir : split_path_list(text)) info.rpath.push_back(std::move(dir));
        }
        if (tag == DT_RUNPATH) {
          for (auto& dir : split_path_list(text)) info.runpath.push_back(std::move(dir));
        }
      }
    }
  }
  info.dynamic = info.interpreter.has_value() || !info.needed.empty();
  return info;
}

}  // namespace noisefloor::image
