// A results tree written by someone else (downloaded, shared, published): the reading commands
// (`cv`, `report`, `check`, `history`, `errata`) on a tree the input describes, made for real in a
// temporary directory: regular files, directories, FIFOs and symbolic links, beside and inside the
// runs they read (the readers look at every sibling run for supersessions). The input is records
// split at NUL bytes: a kind byte ('f' file, 'd' directory, 'l' symbolic link, 'p' FIFO; any other
// byte is one of them by its value modulo 4), a path relative to the results root up to a newline,
// then the file's content or the link's target. A link's absolute target is one of a few devices
// and files (/dev/zero, /dev/null, /dev/urandom, /etc/hostname); a relative one may climb out of
// the tree. Nothing in the tree is written: a FIFO that a reader opened would block it (a timeout
// is a finding), a link to /dev/zero followed would fill memory.
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "files/files.hpp"
#include "fuzz.hpp"
#include "pipeline/commands.hpp"

namespace {

namespace fs = std::filesystem;
using namespace noisefloor;

// The path, each component cut to [A-Za-z0-9._-] ("", "." and ".." dropped), at most 4 deep.
fs::path relative_path(std::string_view text) {
  fs::path out;
  int depth = 0;
  std::size_t start = 0;
  while (start <= text.size() && depth < 4) {
    const std::size_t slash = std::min(text.find('/', start), text.size());
    std::string part;
    for (const char c : text.substr(start, slash - start))
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') part += c;
    if (!part.empty() && part != "." && part != "..") {
      out /= part;
      ++depth;
    }
    start = slash + 1;
  }
  return out;
}

std::string link_target(std::string_view content) {
  static constexpr std::array<std::string_view, 4> kAbsolute{"/dev/zero", "/dev/null", "/dev/urandom",
                                                             "/etc/hostname"};
  if (content.empty()) return "missing";
  if (content.front() == '/') {
    for (const std::string_view target : kAbsolute)
      if (content == target) return std::string(target);
    return "/dev/zero";
  }
  std::string target;
  for (const char c : content.substr(0, 200))
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == '/')
      target += c;
  return target.empty() ? "missing" : target;
}

void make_entry(const fs::path& root, char kind, std::string_view path, std::string_view content) {
  const fs::path rel = relative_path(path);
  if (rel.empty()) return;
  const fs::path at = root / rel;
  std::error_code ec;
  fs::create_directories(at.parent_path(), ec);
  if (ec || fs::symlink_status(at, ec).type() != fs::file_type::not_found) return;
  switch (kind == 'f'   ? 0
          : kind == 'd' ? 1
          : kind == 'l' ? 2
          : kind == 'p' ? 3
                        : static_cast<unsigned char>(kind) % 4) {
    case 0:
      if (const int fd = ::open(at.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644); fd >= 0) {
        (void)!::write(fd, content.data(), content.size());
        ::close(fd);
      }
      break;
    case 1:
      fs::create_directory(at, ec);
      break;
    case 2:
      fs::create_symlink(link_target(content), at, ec);
      break;
    default:
      ::mkfifo(at.c_str(), 0644);
  }
}

// Every directory `depth` levels under root (at most 4), in name order.
std::vector<std::string> directories_at(const fs::path& root, int depth) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; it != end && out.size() < 4; it.increment(ec)) {
    if (ec) break;
    if (it.depth() == depth - 1 && it->is_directory(ec) && !it->is_symlink(ec)) out.push_back(it->path());
    if (it.depth() >= depth - 1) it.disable_recursion_pending();
  }
  std::sort(out.begin(), out.end());
  return out;
}

void read_tree(const fs::path& root) {
  const std::vector<std::string> runs = directories_at(root, 2);
  for (const std::string& exp : directories_at(root, 1)) {
    pipeline::CvOptions cv;
    cv.paths = {exp};
    fuzz::survive([&] {
      const pipeline::Output out = pipeline::cv(cv);
      if (out.stream) out.stream([](std::string_view) {});  // the markdown table is streamed
    });
    pipeline::HistoryOptions history;
    history.directory = exp;
    fuzz::survive([&] { (void)pipeline::history(history); });
  }
  for (const std::string& run : runs) {
    pipeline::CvOptions cv;
    cv.paths = {run};
    cv.format = model::PrintFormat::text;
    fuzz::survive([&] {
      const pipeline::Output out = pipeline::cv(cv);
      if (out.stream) out.stream([](std::string_view) {});  // the markdown table is streamed
    });
    pipeline::ReportOptions report;
    report.paths = {run};
    report.format = model::PrintFormat::json;
    fuzz::survive([&] { (void)pipeline::report(report); });
    pipeline::CheckOptions check;
    check.paths = {run};
    fuzz::survive([&] { (void)pipeline::check(check); });
  }
  if (runs.empty()) return;
  pipeline::ErrataOptions errata;
  errata.old_paths = {runs.front()};
  errata.new_paths = {runs.back()};
  errata.in = {root.string()};
  errata.date = "2026-01-01";
  fuzz::survive([&] { (void)pipeline::errata(errata); });
}

}  // namespace

int noisefloor::fuzz::tree(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  std::string base = (fs::temp_directory_path() / "nf-fuzz-tree.XXXXXX").string();
  if (::mkdtemp(base.data()) == nullptr) return 0;
  const fs::path root = fs::path(base) / "results";
  std::error_code ec;
  fs::create_directory(root, ec);
  std::size_t start = 0;
  for (int entries = 0; start < text.size() && entries < 64; ++entries) {
    const std::size_t nul = std::min(text.find('\0', start), text.size());
    const std::string_view record = text.substr(start, nul - start);
    start = nul + 1;
    if (record.empty()) continue;
    const std::size_t newline = std::min(record.find('\n'), record.size());
    make_entry(root, record.front(), record.substr(1, newline - 1),
               newline < record.size() ? record.substr(newline + 1) : std::string_view());
  }
  read_tree(root);
  fs::remove_all(base, ec);  // never follows a link
  return 0;
}
