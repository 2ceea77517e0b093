// A temporary root directory for the I/O tests that read a fake /sys and /proc (fingerprint,
// tune): files are written and read by their absolute path under it; removed at the end.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

namespace noisefloor::testing {

class TempRoot {
 public:
  TempRoot() {
    static int counter = 0;
    path_ = std::filesystem::temp_directory_path() /
            ("nf-root-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempRoot() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempRoot(const TempRoot&) = delete;
  TempRoot& operator=(const TempRoot&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // Where `noisefloor doctor --apply` keeps the values it replaced, under this root.
  std::filesystem::path state() const { return path_ / "var/lib/noisefloor/tune-state.json"; }
  void write(const std::string& abs, const std::string& content) const {
    const std::filesystem::path file = path_ / abs.substr(1);
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << content;
  }
  std::string read(const std::string& abs) const { return slurp(path_ / abs.substr(1)); }
  void remove(const std::string& abs) const { std::filesystem::remove_all(path_ / abs.substr(1)); }

  static std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

 private:
  std::filesystem::path path_;
};

}  // namespace noisefloor::testing
