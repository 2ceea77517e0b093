// The `go test -bench` output parser.
#include "fuzz.hpp"
#include "parsers/gotest.hpp"

int noisefloor::fuzz::gotest(const std::uint8_t* data, std::size_t size) {
  using namespace noisefloor;
  const std::string_view text = fuzz::as_text(data, size);
  fuzz::survive([&] { (void)parsers::parse_gotest(text); });
  fuzz::survive([&] { (void)parsers::config_lines(text); });
  fuzz::survive([&] { (void)parsers::split_procs_suffix(text); });
  return 0;
}
