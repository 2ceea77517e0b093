#include "analysis/labels.hpp"

#include <fmt/format.h>

namespace noisefloor::analysis {

std::string_view to_string(Label label) {
  switch (label) {
    case Label::measured_clean:
      return kMeasuredClean;
    case Label::contended_paired:
      return kContendedPaired;
    case Label::contended:
      return kContended;
    case Label::unknown:
      break;
  }
  return "UNKNOWN";
}

Label condition_label(const records::Result& result, const std::string& condition, std::string* reason) {
  auto contended = [&](std::string why) {
    if (reason) *reason = std::move(why);
    return Label::contended;
  };
  bool recorded = false;
  if (result.run) {
    for (const auto& rec : result.run->condition_records) {
      if (rec.condition != condition) continue;
      recorded = true;
      if (rec.setup.spinners && rec.setup.spinners->count > 0) {
        const int count = rec.setup.spinners->count;
        return contended(fmt::format("{} spinner{}", count, count == 1 ? "" : "s"));
      }
    }
  }
  // The doctor's verdict at run start decides when there is one; the raw 1-minute average,
  // which lags by minutes, only stands in for fingerprints without a doctor.
  const records::Fingerprint& fp = result.fingerprint;
  if (fp.doctor) {
    recorded = true;
    for (const auto& f : fp.doctor->findings)
      if (f.topic == "load" && f.level == fingerprint::Level::bad) return contended("doctor: " + f.message);
    if (fp.doctor->grade == fingerprint::Grade::not_ready) return contended("doctor: not ready");
  } else if (const auto load = fp.host_load()) {
    recorded = true;
    const auto cpus = fp.host.number("cpu.logical");
    if (cpus && *cpus > 0 && load->one >= *cpus)
      return contended(fmt::format("1-minute load {:.2f} on {:g} CPUs", load->one, *cpus));
  }
  if (reason) *reason = recorded ? "" : "no load record";
  return recorded ? Label::measured_clean : Label::unknown;
}

}  // namespace noisefloor::analysis
