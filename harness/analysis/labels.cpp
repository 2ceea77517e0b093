#include "analysis/labels.hpp"

#include <fmt/format.h>

#include "fingerprint/doctor.hpp"

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
  // The load rule (fingerprint::judge_load, the doctor's own) on the reading taken when the run
  // started: BAD means every CPU was already busy with other work.
  const records::Fingerprint& fp = result.fingerprint;
  if (const auto load = fp.host_load()) {
    recorded = true;
    const auto cpus = fp.host.number("cpu.logical");
    if (cpus && *cpus > 0) {
      const fingerprint::LoadJudgement j = fingerprint::judge_load(*load, *cpus);
      if (j.level == fingerprint::Level::bad) return contended(j.what);
    }
  }
  if (reason) *reason = recorded ? "" : "no load record";
  return recorded ? Label::measured_clean : Label::unknown;
}

}  // namespace noisefloor::analysis
