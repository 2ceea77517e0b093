// The on-disk schema, write side: results/<experiment>/<UTC timestamp>/ with samples.jsonl
// appended per sample and every other file written atomically (temporary file + rename), so a
// crash never leaves a half-written file and never loses a completed sample. I/O edge.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "records/fingerprint.hpp"
#include "records/fleet.hpp"
#include "records/run.hpp"
#include "records/sample.hpp"

namespace noisefloor::results {

class RunDirectory {
 public:
  // Creates root/<experiment>/<YYYYmmddTHHMMSSZ>[-N]/ (never reuses an existing directory).
  RunDirectory(const std::filesystem::path& root, const std::string& experiment);
  // Opens an existing run directory to go on with it (run --resume): samples.jsonl is appended
  // to, after a torn last line (a crash mid-write) is cut off (`torn` says so). Either way the
  // directory's samples.jsonl is locked (flock) while this object lives: a run that is still
  // going on cannot be resumed, and is refused with RunError.
  static RunDirectory reopen(const std::filesystem::path& dir, bool* torn = nullptr);
  // A run on several hosts: root/<experiment>/<timestamp>/ with hosts/ and no samples of its own
  // (its record is fleet.json), and each host's own run directory, <fleet>/hosts/<host>/, whose
  // id is the run's.
  static RunDirectory fleet(const std::filesystem::path& root, const std::string& experiment);
  static RunDirectory for_host(const RunDirectory& fleet, const std::string& host);
  RunDirectory(RunDirectory&& other) noexcept;
  RunDirectory(const RunDirectory&) = delete;
  RunDirectory& operator=(const RunDirectory&) = delete;
  ~RunDirectory();

  const std::filesystem::path& path() const { return dir_; }
  const std::string& id() const { return id_; }  // the timestamp directory name

  void write(const std::string& name, std::string_view content);  // atomic
  void write(const records::RunRecord& run);                      // run.json
  void write(const records::Fingerprint& fingerprint);            // fingerprint.json
  // fingerprint.session-<n>.json: a resumed run's n-th session (the first one's stays the run's).
  void write_session(int session, const records::Fingerprint& fingerprint);
  void write(const records::FleetRecord& fleet);  // fleet.json
  void append(const records::Sample& sample);     // one line of samples.jsonl, written through
  void point_latest();  // root/<experiment>/latest -> this directory (atomic symlink swap)
  // Removes this directory, and its experiment's directory when that is left empty, unless a
  // sample was kept somewhere under it (a samples.jsonl that is not empty): a run refused before
  // it measured anything leaves nothing behind. Whether it removed it; never throws.
  bool discard_unmeasured() noexcept;

 private:
  RunDirectory() = default;
  void lock();
  void make_unique_dir(const std::filesystem::path& root, const std::string& experiment);
  void open_samples();

  std::filesystem::path dir_;
  std::string id_;
  int samples_fd_ = -1;
};

}  // namespace noisefloor::results
