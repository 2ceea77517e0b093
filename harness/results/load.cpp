#include "results/load.hpp"

#include <fmt/format.h>

#include "files/files.hpp"
#include "model/errors.hpp"
#include "results/decode.hpp"

namespace noisefloor::results {
namespace fs = std::filesystem;

fs::path resolve(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path / "samples.jsonl", ec) && fs::exists(path / "latest", ec)) return path / "latest";
  return path;
}

records::Result load(const fs::path& path) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) return decode_gotest_file(path.string(), files::read(path));
  const fs::path dir = resolve(path);
  if (!fs::is_directory(dir, ec))
    throw RunError(fmt::format("{}: not a results directory (expected results/<experiment>/<run>/ or "
                               "a go test -bench output file)",
                               path.string()));
  if (!fs::exists(dir / "samples.jsonl", ec))
    throw RunError(fmt::format("{}: no samples.jsonl here: not a noisefloor result", dir.string()));
  ResultFiles f;
  f.source = fs::weakly_canonical(dir).string();
  f.samples_jsonl = files::read(dir / "samples.jsonl");
  const auto optional_file = [&](const char* name) -> std::optional<std::string> {
    return fs::exists(dir / name, ec) ? std::optional(files::read(dir / name)) : std::nullopt;
  };
  f.run_json = optional_file("run.json");
  f.fingerprint_json = optional_file("fingerprint.json");
  f.summary_json = optional_file("summary.json");
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".txt" && entry.is_regular_file(ec))
      f.raw[entry.path().stem().string()] = files::read(entry.path());
  return decode_result(f);
}

}  // namespace noisefloor::results
