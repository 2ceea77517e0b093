// `noisefloor doctor --apply / --restore`: the run-time, reversible fixes that doctor findings
// name, made by writing sysfs/procfs files directly (no shell, no user string is ever
// interpreted), with the previous values saved first so they can be put back.
//
// Every file is named by its path on the real system ("/sys/devices/system/cpu/smt/control") and
// read or written under `root` (so tests pass a fabricated tree; the CLI passes "/").
//
// Settings, applied in this order (restored in the reverse order):
//   "governor"  each cpufreq policy's scaling_governor -> "performance" (policy*/ under
//               /sys/devices/system/cpu/cpufreq, else cpu*/cpufreq/); a policy whose
//               scaling_available_governors lacks "performance" is left alone
//   "turbo"     intel_pstate/no_turbo 0 -> 1, else cpufreq/boost 1 -> 0, else each
//               cpufreq/policy*/boost 1 -> 0
//   "aslr"      /proc/sys/kernel/randomize_va_space -> 0
//   "thp"       /sys/kernel/mm/transparent_hugepage/enabled "always" -> "madvise" (never stays)
//   "smt"       /sys/devices/system/cpu/smt/control "on" -> "off", but only when every experiment
//               CPU stays online: SMT off takes every online CPU that is not the lowest-numbered
//               CPU of its topology/thread_siblings_list offline, so a plan that would take a
//               pinned CPU offline (or cannot tell, lacking thread_siblings_list) leaves SMT on
//               and says why
// A setting already in the wanted state, or without the files, is left alone with the reason.
//
// State file (JSON, written atomically, mode 0644):
//   {"schema_version": 1, "applied_utc": "2024-05-01T10:00:00Z", "complete": bool,
//    "experiment_cpus": "2-3", "changes": [{"setting", "file", "before", "after"}, ...]}
// It is written with every planned change ("complete": false) before the first write, then
// rewritten with the changes that succeeded ("complete": true), so a crash in between still
// leaves enough to restore (writing a value a file already holds is harmless).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "fingerprint/tuning.hpp"

namespace noisefloor::fingerprint {

inline constexpr const char* kTuneStatePath = "/var/lib/noisefloor/tune-state.json";

struct TunePlan {
  std::vector<TuneChange> changes;  // in application order
  std::vector<TuneNote> unchanged;
};

// What apply_tuning would change under root now, without changing anything. experiment_cpus are
// the CPUs an experiment pins to (any order; may be empty). Never throws.
TunePlan plan_tuning(const std::filesystem::path& root, const std::vector<int>& experiment_cpus);

struct TuneResult {
  std::vector<TuneChange> applied;  // the changes made, in order
  std::vector<TuneNote> unchanged;  // what was left alone, including failed writes
};

// Plans, saves the state file, then writes every change; a write that fails is reported in
// `unchanged` ("write failed: ...") and the others still happen. When nothing was changed the
// state file is removed again. Throws RunError when state_path already exists (applying twice
// would save the tuned values as the "previous" ones: restore first) or cannot be written (then
// nothing was changed).
TuneResult apply_tuning(const std::filesystem::path& root, const std::filesystem::path& state_path,
                        const std::vector<int>& experiment_cpus);

struct RestoreResult {
  std::vector<TuneChange> restored;  // before/after as saved; `before` is what was written back
  std::vector<TuneNote> failed;      // entries that could not be written back
};

// Writes every saved `before` value back, in the reverse order, then removes the state file; when
// some writes fail, the state file is rewritten with only those entries (so --restore can be
// retried) and they are listed in `failed`. Throws RunError when there is no state file, or it is
// not valid JSON of the shape above, or an entry names a file or value apply_tuning never writes
// (the file is root's, but a hand-edited one must not turn restore into an arbitrary write).
RestoreResult restore_tuning(const std::filesystem::path& root, const std::filesystem::path& state_path);

// Never throws: a missing file is nothing applied, an unreadable one an error.
TuningStatus tuning_state(const std::filesystem::path& state_path = kTuneStatePath);

}  // namespace noisefloor::fingerprint
