#include "analysis/labels.hpp"

#include "analysis/accounting.hpp"
#include "fingerprint/doctor.hpp"

namespace noisefloor::analysis {

std::string_view to_string(Label label) { return model::name_of(label); }

Label condition_label(const records::Result& result, const std::string& condition, LabelReason* reason) {
  using Basis = LabelReason::Basis;
  const auto say = [&](Label label, LabelReason why) {
    if (reason) *reason = std::move(why);
    return label;
  };
  const double cpus = result.fingerprint.host.number("cpu.logical").value_or(0);
  if (result.run) {
    int settled = 0, bad = 0;
    std::string bad_what;
    for (const auto& rec : result.run->condition_records) {
      if (rec.condition != condition) continue;
      if (rec.setup.spinners && rec.setup.spinners->count > 0)
        return say(Label::contended, {.basis = Basis::spinners, .spinners = rec.setup.spinners->count});
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
      if (a.starved()) return say(Label::contended, {.basis = Basis::starved, .waited_percent = waited});
      // Waits with next to no other work on its CPUs were its threads' for each other: said so
      // (not when other work ran, or the waits were too short to note).
      const auto beside = a.run_queue.beside();
      const bool own = beside && !a.run_queue.others_ran() && waited >= kWaitNoteFraction * 100;
      return say(Label::measured_clean, {.basis = Basis::run_queue,
                                         .waited_percent = waited,
                                         .for_each_other = own,
                                         .beside_s = own ? *beside : 0});
    }
    if (settled > 0)
      return say(2 * bad > settled ? Label::contended : Label::measured_clean,
                 {.basis = Basis::settled_loads, .bad = bad, .settled = settled, .load = bad_what});
  }
  // The load rule (fingerprint::judge_load, the doctor's own) on the reading taken when the run
  // started: BAD means every CPU was already busy with other work.
  if (const auto load = result.fingerprint.host_load()) {
    if (cpus > 0) {
      const fingerprint::LoadJudgement j = fingerprint::judge_load(*load, cpus);
      if (j.level == fingerprint::Level::bad)
        return say(Label::contended, {.basis = Basis::start_load, .load = j.what});
    }
    return say(Label::measured_clean, {.basis = Basis::start_load});
  }
  return say(Label::unknown, {.basis = Basis::no_record});
}

}  // namespace noisefloor::analysis
