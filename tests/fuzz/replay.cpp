// nf-fuzz-replay DIR...: runs every target over every file of DIR/<target>/ for each DIR: the
// seeds (tests/fuzz/seeds.py) and the inputs kept from fuzzing (tests/fuzz/corpus: every finding,
// fixed). Built with the project's own compiler and flags, so they are a regression test in every
// build.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz.hpp"

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  using namespace noisefloor::fuzz;
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR...\n", argv[0]);
    return 2;
  }
  const std::pair<const char*, Target> targets[] = {
      {"experiment", experiment}, {"gotest", gotest},   {"gbench", gbench},  {"demux", demux},
      {"probe", probe},           {"results", results}, {"claims", claims},  {"engine", engine},
      {"errata", errata},         {"tree", tree},       {"archive", archive}};
  int total = 0;
  for (const auto& [name, target] : targets) {
    std::vector<fs::path> inputs;
    for (int i = 1; i < argc; ++i) {
      const fs::path dir = fs::path(argv[i]) / name;
      if (fs::is_directory(dir))
        for (const auto& entry : fs::directory_iterator(dir))
          if (entry.is_regular_file()) inputs.push_back(entry.path());
    }
    if (inputs.empty()) {
      std::fprintf(stderr, "nf-fuzz-replay: no inputs for the %s target\n", name);
      return 1;
    }
    std::sort(inputs.begin(), inputs.end());
    for (const fs::path& input : inputs) {
      std::ifstream in(input, std::ios::binary);
      const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
      target(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    }
    std::printf("%-10s %zu input(s) survived\n", name, inputs.size());
    total += static_cast<int>(inputs.size());
  }
  std::printf("%d input(s), no finding\n", total);
  return 0;
}
