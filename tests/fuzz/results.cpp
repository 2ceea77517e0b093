// The results loader, on the texts of a result directory. The input is split at each NUL byte
// into samples.jsonl, run.json, fingerprint.json, summary.json and one raw <condition>.txt (the
// files a hand-edited or damaged directory holds); missing parts are missing files. It is also
// read whole as a `go test -bench` output file. What decodes is analysed, as `cv` and `report` would.
#include <string>
#include <vector>

#include "analysis/analysis.hpp"
#include "fuzz.hpp"
#include "results/decode.hpp"

int noisefloor::fuzz::results(const std::uint8_t* data, std::size_t size) {
  using namespace noisefloor;
  const std::string_view text = fuzz::as_text(data, size);
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (parts.size() < 5) {
    const auto nul = text.find('\0', start);
    parts.emplace_back(
        text.substr(start, nul == std::string_view::npos ? std::string_view::npos : nul - start));
    if (nul == std::string_view::npos) break;
    start = nul + 1;
  }
  results::ResultFiles files;
  files.source = "fuzz";
  files.samples_jsonl = parts[0];
  if (parts.size() > 1) files.run_json = parts[1];
  if (parts.size() > 2) files.fingerprint_json = parts[2];
  if (parts.size() > 3) files.summary_json = parts[3];
  if (parts.size() > 4) files.raw["idle"] = parts[4];
  fuzz::survive([&] { (void)analysis::analyze({results::decode_result(files)}); });
  fuzz::survive([&] { (void)analysis::analyze({results::decode_gotest_file("fuzz.txt", text)}); });
  return 0;
}
