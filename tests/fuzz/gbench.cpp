// The Google Benchmark JSON reader.
#include "fuzz.hpp"
#include "parsers/gbench_json.hpp"

int noisefloor::fuzz::gbench(const std::uint8_t* data, std::size_t size) {
  using namespace noisefloor;
  fuzz::survive([&] { (void)parsers::parse_gbench_json(fuzz::as_text(data, size)); });
  return 0;
}
