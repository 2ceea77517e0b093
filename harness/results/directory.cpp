#include "results/directory.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "files/files.hpp"
#include "model/errors.hpp"
#include "text/text.hpp"

namespace noisefloor::results {
namespace fs = std::filesystem;

RunDirectory::RunDirectory(const fs::path& root, const std::string& experiment) {
  const fs::path parent = root / experiment;
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) throw RunError(fmt::format("cannot create {}: {}", parent.string(), ec.message()));
  const std::string base = text::utc_compact(std::chrono::system_clock::now());
  for (int n = 1;; ++n) {
    id_ = n == 1 ? base : fmt::format("{}-{}", base, n);
    dir_ = parent / id_;
    if (::mkdir(dir_.c_str(), 0755) == 0) break;
    if (errno != EEXIST) throw RunError(fmt::format("cannot create {}: {}", dir_.string(), std::strerror(errno)));
  }
  const fs::path samples = dir_ / "samples.jsonl";
  samples_fd_ = ::open(samples.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (samples_fd_ < 0) throw RunError(fmt::format("cannot create {}: {}", samples.string(), std::strerror(errno)));
}

RunDirectory::~RunDirectory() {
  if (samples_fd_ >= 0) ::close(samples_fd_);
}

void RunDirectory::write(const std::string& name, std::string_view content) {
  files::write_atomic(dir_ / name, content);
}

void RunDirectory::write(const records::RunRecord& run) { write("run.json", nlohmann::json(run).dump(2) + "\n"); }

void RunDirectory::write(const records::Fingerprint& fingerprint) {
  write("fingerprint.json", nlohmann::json(fingerprint).dump(2) + "\n");
}

void RunDirectory::append(const records::Sample& sample) {
  // One write() per line: a crash of noisefloor cannot lose a sample that was reported.
  files::write_all(samples_fd_, nlohmann::json(sample).dump() + "\n", dir_ / "samples.jsonl");
}

void RunDirectory::point_latest() {
  const fs::path link = dir_.parent_path() / "latest";
  // A name of this run's own: two runs of one experiment may finish at once.
  const fs::path tmp = dir_.parent_path() / fmt::format(".latest.tmp-{}", id_);
  ::unlink(tmp.c_str());
  if (::symlink(id_.c_str(), tmp.c_str()) != 0 || ::rename(tmp.c_str(), link.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw RunError(fmt::format("cannot point {} at {}: {}", link.string(), id_, std::strerror(err)));
  }
}

}  // namespace noisefloor::results
