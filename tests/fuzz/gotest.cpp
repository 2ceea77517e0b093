// The `go test -bench` output parser, and the file decoder beside it: both readers must see the
// same results, each under the same configuration (the configuration a result keys its row by).
#include "parsers/gotest.hpp"

#include <cstdlib>

#include "fuzz.hpp"
#include "results/decode.hpp"

int noisefloor::fuzz::gotest(const std::uint8_t* data, std::size_t size) {
  using namespace noisefloor;
  const std::string_view text = fuzz::as_text(data, size);
  parsers::GoTestOutput parsed;
  fuzz::survive([&] { parsed = parsers::parse_gotest(text); });
  fuzz::survive([&] { (void)parsers::config_lines(text); });
  fuzz::survive([&] { (void)parsers::split_procs_suffix(text); });
  fuzz::survive([&] {
    const records::Result decoded = results::decode_gotest_file("fuzz.txt", text);
    if (decoded.samples.size() != parsed.measurements.size()) std::abort();
    std::size_t i = 0;
    for (const records::SampleRef s : decoded.samples) {
      const model::Measurement& m = parsed.measurements[i++];
      if (s.name != m.name || s.config != m.config || s.iterations != m.iterations ||
          s.metrics.size() != m.metrics.size())
        std::abort();
    }
  });
  return 0;
}
