#include "results/results.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "model/errors.hpp"
#include "parsers/gotest.hpp"

namespace noisefloor::results {
namespace fs = std::filesystem;
namespace {

std::string timestamp_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
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

}  // namespace

void write_atomic(const fs::path& path, std::string_view content) {
  const fs::path tmp = path.string() + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw RunError(fmt::format("cannot write {}: {}", tmp.string(), std::strerror(errno)));
  try {
    write_all(fd, content, tmp);
    ::fsync(fd);
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
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw RunError(fmt::format("cannot read {}: {}", path.string(), std::strerror(errno)));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

RunDirectory::RunDirectory(const fs::path& root, const std::string& experiment) {
  const fs::path parent = root / experiment;
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) throw RunError(fmt::format("cannot create {}: {}", parent.string(), ec.message()));
  const std::string base = timestamp_now();
  for (int n = 1;; ++n) {
    id_ = n == 1 ? base : fmt::format("{}-{}", base, n);
    dir_ = parent / id_;
    if (::mkdir(dir_.c_str(), 0755) == 0) break;
    if (errno != EEXIST) throw RunError(fmt::format("cannot create {}: {}", dir_.string(), std::strerror(errno)));
  }
  const fs::path samples = dir_ / "samples.jsonl";
  samples_fd_ = ::open(samples.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (samples_fd_ < 0)
    throw RunError(fmt::format("cannot create {}: {}", samples.string(), std::strerror(errno)));
}

RunDirectory::~RunDirectory() {
  if (samples_fd_ >= 0) ::close(samples_fd_);
}

void RunDirectory::write(const std::string& name, std::string_view content) { write_atomic(dir_ / name, content); }

void RunDirectory::append_sample(const model::Sample& sample) {
  // One write() per line: a crash of noisefloor cannot lose a sample that was reported.
  write_all(samples_fd_, model::to_json(sample).dump() + "\n", dir_ / "samples.jsonl");
}

void RunDirectory::point_latest() {
  const fs::path link = dir_.parent_path() / "latest";
  const fs::path tmp = dir_.parent_path() / ".latest.tmp";
  ::unlink(tmp.c_str());
  if (::symlink(id_.c_str(), tmp.c_str()) != 0 || ::rename(tmp.c_str(), link.c_str()) != 0)
    throw RunError(fmt::format("cannot point {} at {}: {}", link.string(), id_, std::strerror(errno)));
}

LoadedRun load_run(const fs::path& path_in) {
  fs::path dir = path_in;
  if (!fs::exists(dir / "samples.jsonl") && fs::exists(dir / "latest")) dir = dir / "latest";
  if (!fs::is_directory(dir))
    throw RunError(fmt::format("{}: not a results directory (expected results/<experiment>/<run>/ or "
                               "a go test -bench output file)", path_in.string()));
  if (!fs::exists(dir / "samples.jsonl"))
    throw RunError(fmt::format("{}: no samples.jsonl here: not a noisefloor result", dir.string()));
  LoadedRun run;
  run.dir = fs::weakly_canonical(dir);
  const std::string text = read_file(dir / "samples.jsonl");
  std::size_t line_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto nl = text.find('\n', pos);
    const std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    ++line_no;
    const bool last = nl == std::string::npos;
    pos = last ? text.size() : nl + 1;
    if (line.empty()) continue;
    try {
      run.samples.push_back(model::sample_from_json(nlohmann::json::parse(line)));
    } catch (const std::exception& e) {
      if (last) {  // a line torn by a crash mid-write: everything before it is intact
        run.warnings.push_back(fmt::format("{}:{}: ignored a torn last line", (dir / "samples.jsonl").string(), line_no));
        break;
      }
      throw RunError(fmt::format("{}:{}: {}", (dir / "samples.jsonl").string(), line_no, e.what()));
    }
  }
  if (fs::exists(dir / "run.json")) {
    try {
      run.run = nlohmann::json::parse(read_file(dir / "run.json"));
      for (const auto& c : run.run.value("conditions", nlohmann::json::array())) run.conditions.push_back(c.get<std::string>());
    } catch (const nlohmann::json::exception& e) {
      throw RunError(fmt::format("{}: {}", (dir / "run.json").string(), e.what()));
    }
  }
  if (fs::exists(dir / "fingerprint.json")) {
    try {
      run.fingerprint = nlohmann::json::parse(read_file(dir / "fingerprint.json"));
    } catch (const nlohmann::json::exception& e) {
      throw RunError(fmt::format("{}: {}", (dir / "fingerprint.json").string(), e.what()));
    }
  }
  for (const auto& s : run.samples)
    if (std::find(run.conditions.begin(), run.conditions.end(), s.condition) == run.conditions.end())
      run.conditions.push_back(s.condition);
  return run;
}

LoadedRun load_gotest_file(const fs::path& file) {
  if (!fs::is_regular_file(file)) throw RunError(fmt::format("{}: no such file", file.string()));
  const parsers::GoTestOutput out = parsers::parse_gotest(read_file(file));
  if (out.measurements.empty())
    throw RunError(fmt::format("{}: no benchmark result lines (expected `go test -bench` output)", file.string()));
  LoadedRun run;
  run.dir = file;
  const std::string condition = file.stem().string();
  run.conditions.push_back(condition);
  std::map<std::string, int> counts;
  for (const auto& m : out.measurements) {
    model::Sample s = model::sample_of(condition, m);
    s.index = counts[m.benchmark]++;
    run.samples.push_back(std::move(s));
  }
  for (const auto& [k, v] : out.config) run.fingerprint["gotest"][k] = v;
  return run;
}

LoadedRun load_any(const fs::path& path) {
  return fs::is_regular_file(path) ? load_gotest_file(path) : load_run(path);
}

}  // namespace noisefloor::results
