// Result directories: results/<experiment>/<UTC timestamp>/ with samples.jsonl appended per
// sample, and every other file written atomically (temporary file + rename), so a crash never
// leaves a half-written file and never loses a completed sample.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/sample.hpp"

namespace noisefloor::results {

class RunDirectory {
 public:
  // Creates root/<experiment>/<YYYYmmddTHHMMSSZ>[-N]/ (never reuses an existing directory).
  RunDirectory(const std::filesystem::path& root, const std::string& experiment);
  RunDirectory(const RunDirectory&) = delete;
  RunDirectory& operator=(const RunDirectory&) = delete;
  ~RunDirectory();

  const std::filesystem::path& path() const { return dir_; }
  const std::string& id() const { return id_; }  // the timestamp directory name

  void write(const std::string& name, std::string_view content);  // atomic
  void append_sample(const model::Sample& sample);                 // one line, written through at once
  void point_latest();  // root/<experiment>/latest -> this directory (atomic symlink swap)

 private:
  std::filesystem::path dir_;
  std::string id_;
  int samples_fd_ = -1;
};

// Writes `content` to `path` atomically.
void write_atomic(const std::filesystem::path& path, std::string_view content);
std::string read_file(const std::filesystem::path& path);  // throws RunError naming the file

// A saved run read back (for `noisefloor cv`, `report`).
struct LoadedRun {
  std::filesystem::path dir;
  std::vector<model::Sample> samples;
  std::vector<std::string> conditions;  // order from run.json, else first seen
  nlohmann::json run = nlohmann::json::object();          // run.json
  nlohmann::json fingerprint = nlohmann::json::object();  // fingerprint.json
  std::vector<std::string> warnings;                       // e.g. a torn last line
};
// `path` is a run directory or an experiment directory (then its `latest`). Throws RunError.
LoadedRun load_run(const std::filesystem::path& path);

// A plain `go test -bench` output file as one condition named after the file (without extension).
LoadedRun load_gotest_file(const std::filesystem::path& file);

// What every reading command accepts: a go test -bench file (a regular file) or a result
// directory (load_run).
LoadedRun load_any(const std::filesystem::path& path);

}  // namespace noisefloor::results
