// The probe report parser: container stderr with probe lines, limits and the tagged account.
#include "fuzz.hpp"
#include "probe/probe_report.hpp"

int noisefloor::fuzz::probe(const std::uint8_t* data, std::size_t size) {
  using namespace noisefloor;
  const std::string_view text = fuzz::as_text(data, size);
  fuzz::survive([&] {
    const probe::ProbeReport report = probe::parse_probe_report(text, "t");
    (void)probe::effective_from_probe(report);
    (void)probe::probe_run(report);
  });
  fuzz::survive([&] { (void)probe::parse_probe_report(text); });
  return 0;
}
