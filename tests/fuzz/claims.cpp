// Published tables (`reference:`) and claims: parsers::parse_published on the bytes; the bytes'
// first line as a claim over fixed conditions, judged on fixed samples (few resamples) and at
// fixed published figures. A claim that does not parse is claims::ClaimError, the answer a user
// would see (as a config error); anything else escaping is a finding.
#include "claims/claim.hpp"
#include "claims/evaluate.hpp"
#include "fuzz.hpp"
#include "parsers/published.hpp"

int noisefloor::fuzz::claims(const std::uint8_t* data, std::size_t size) {
  using namespace noisefloor;
  const std::string_view text = fuzz::as_text(data, size);
  fuzz::survive([&] { (void)parsers::parse_published(text); });
  const std::string_view line = text.substr(0, std::min(text.find('\n'), std::size_t{200}));
  try {
    const noisefloor::claims::Claim claim =
        noisefloor::claims::parse_claim(line, {{"idle", "noisy", "one"}, {"fast"}, {}});
    noisefloor::claims::Data d;
    d.rows["idle"] = {{"BenchmarkX-2", {10, 10.5, 9.8, 10.2, 10.1, 9.9}}};
    d.rows["noisy"] = {{"BenchmarkX-2", {20, 31, 18, 25, 22, 40}}};
    d.rows["one"] = {{"BenchmarkX-2", {7}}};
    d.ratios["fast"] = {0.8, 0.82, 0.79};
    (void)noisefloor::claims::evaluate(claim, d, 1, 50);
    (void)noisefloor::claims::check_points(
        claim,
        [](noisefloor::claims::Function, const std::string& s, const std::string&) -> std::optional<double> {
          if (s == "one") return std::nullopt;
          return s == "idle" ? 11.46 : 34.97;
        });
  } catch (const noisefloor::claims::ClaimError&) {
  }
  return 0;
}
