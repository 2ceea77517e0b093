#include "analysis/labels.hpp"

#include <fmt/format.h>

#include "analysis/accounting.hpp"
#include "fingerprint/doctor.hpp"

namespace noisefloor::analysis {

std::string_view to_string(Label label) { return model::name_of(label); }

namespace {

// Waits with next to no other work on its CPUs were its threads' for each other: said so ("" when
// other work ran, or the waits were too short to note). `waited` in per cent.
std::string own_waits(const RunQueueEvidence& q, double waited) {
  const auto beside = q.beside();
  if (!beside || q.others_ran() || waited < kWaitNoteFraction * 100) return "";
  if (*beside < 0.0005) return ", for each other: no other work measured beside it";
  return *beside < 1 ? fmt::format(", for each other: other work ran only {:.3g} ms beside it", *beside * 1e3)
                     : fmt::format(", for each other: other work ran only {:.3g} s beside it", *beside);
}

}  // namespace

Label condition_label(const records::Result& result, const std::string& condition, std::string* reason) {
  const auto say = [&](Label label, std::string why) {
    if (reason) *reason = std::move(why);
    return label;
  };
  const double cpus = result.fingerprint.host.number("cpu.logical").value_or(0);
  if (result.run) {
    int settled = 0, bad = 0;
    std::string bad_what;
    for (const auto& rec : result.run->condition_records) {
      if (rec.condition != condition) continue;
      if (rec.setup.spinners && rec.setup.spinners->count > 0) {
        const int count = rec.setup.spinners->count;
        return say(Label::contended, fmt::format("{} spinner{}", count, count == 1 ? "" : "s"));
      }
      if (rec.load_settled && rec.load_settled->value && cpus > 0) {
        ++settled;
        const fingerprint::LoadJudgement j = fingerprint::judge_load(*rec.load_settled->value, cpus);
        if (j.level == fingerprint::Level::bad) {
          ++bad;
          if (bad_what.empty()) bad_what = j.what;
        }
      }
    }
    for (const ConditionAccounting& a : accounting_of(*result.run, {})) {
      if (a.condition != condition || a.run_queue.invocations == 0) continue;
      const double waited = a.run_queue.waited().value_or(0) * 100;
      if (a.starved())
        return say(Label::contended,
                   fmt::format("starved: its threads waited for a CPU {:.0f}% of the time they were runnable",
                               waited));
      return say(Label::measured_clean,
                 fmt::format("its threads waited for a CPU {:.1f}% of the time they were runnable{}", waited,
                             own_waits(a.run_queue, waited)));
    }
    if (settled > 0) {
      if (2 * bad > settled)
        return say(Label::contended,
                   fmt::format("{} of {} settled load readings: {}", bad, settled, bad_what));
      return say(Label::measured_clean, fmt::format("{} of {} settled load readings busy", bad, settled));
    }
  }
  // The load rule (fingerprint::judge_load, the doctor's own) on the reading taken when the run
  // started: BAD means every CPU was already busy with other work.
  if (const auto load = result.fingerprint.host_load()) {
    if (cpus > 0) {
      const fingerprint::LoadJudgement j = fingerprint::judge_load(*load, cpus);
      if (j.level == fingerprint::Level::bad) return say(Label::contended, j.what + " when the run started");
    }
    return say(Label::measured_clean, "the load when the run started");
  }
  return say(Label::unknown, "no load record");
}

}  // namespace noisefloor::analysis
