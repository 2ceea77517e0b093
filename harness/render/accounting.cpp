#include "render/accounting.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "text/text.hpp"

namespace noisefloor::render {
namespace {

// "2.07 ms", "1.25 s": the scale benchstat would use for seconds.
std::string seconds_text(double s) {
  if (s < 1e-3) return fmt::format("{:.3g} µs", s * 1e6);
  if (s < 1) return fmt::format("{:.3g} ms", s * 1e3);
  return fmt::format("{:.3g} s", s);
}

}  // namespace

std::vector<std::string> accounting_notes(const std::vector<analysis::ConditionAccounting>& accounting) {
  std::vector<std::string> notes;
  for (const auto& a : accounting) {
    const std::string where = text::line_label(a.condition);  // never broken by a wrap
    // A condition no command ran to its end in (an interrupted run) has nothing the overhead is in.
    if (const auto launcher = a.launcher_median(); launcher && !a.command_seconds.empty()) {
      const auto [lo, hi] =
          std::minmax_element(a.launcher_noop_seconds.begin(), a.launcher_noop_seconds.end());
      notes.push_back(
          fmt::format("{}: launcher overhead {} (median of {} no-ops started the same way, {}–{}); "
                      "included in every sample, nothing subtracted",
                      where, seconds_text(*launcher), a.launcher_noop_seconds.size(), seconds_text(*lo),
                      seconds_text(*hi)));
      if (const auto ratio = a.command_to_launcher(); ratio && *ratio < analysis::kLauncherWarnFactor)
        notes.push_back(
            fmt::format("{}: the command (median {}) is only {:.1f}× the launcher overhead: below "
                        "{:.0f}× starting it is a visible part of every sample; give each run more work",
                        where, seconds_text(*a.command_median()), *ratio, analysis::kLauncherWarnFactor));
    } else if (!a.launcher_unknown.empty()) {
      notes.push_back(fmt::format("{}: launcher overhead not measured: {}", where, a.launcher_unknown));
    }
    if (a.throttled())
      notes.push_back(
          fmt::format("{}: CPU-throttled in {} of {} invocations: {} of {} CFS periods hit the quota, {} "
                      "held back; the container's CPU quota shapes these samples",
                      where, a.throttled_invocations, a.cgroup_invocations, a.throttled_periods, a.periods,
                      seconds_text(a.throttled_seconds)));
    if (const auto waited = a.run_queue.waited(); waited && !a.spinners && a.run_queue.noteworthy()) {
      const analysis::RunQueueEvidence& q = a.run_queue;
      std::string use;
      if (const auto used = q.used())
        use = q.cpus_allowed ? fmt::format(", {:.2f} of the {:g} CPU{} it may use", *used, *q.cpus_allowed,
                                           *q.cpus_allowed == 1 ? "" : "s")
                             : fmt::format(", {:.2f} CPUs' worth", *used);
      if (const auto beside = q.beside())
        use += fmt::format("; other work {} on those CPUs", seconds_text(*beside));
      const std::string figures =
          fmt::format("{} waiting, {} on a CPU, over {} of benchmark time{}", seconds_text(q.wait_seconds),
                      seconds_text(q.run_seconds), seconds_text(q.wall_seconds), use);
      if (a.starved())
        notes.push_back(
            fmt::format("{}: STARVED by other work: the benchmark's threads waited for a CPU {:.0f}% of "
                        "the time they were runnable ({}); its numbers measure that work too: bands "
                        "capped at \"do not trust\", labelled CONTENDED",
                        where, *waited * 100, figures));
      else
        notes.push_back(
            fmt::format("{}: the benchmark's threads waited for a CPU {:.1f}% of the time they were "
                        "runnable ({}); {:.0f}% or more marks a starved condition",
                        where, *waited * 100, figures, analysis::kStarvedWaitFraction * 100));
    }
    if (const auto share = a.harness_share())
      notes.push_back(fmt::format(
          "{}: noisefloor's own CPU while it sampled: {:.3f}% of one CPU ({} over {} of "
          "invocations)",
          where, *share * 100, seconds_text(a.harness_cpu_seconds), seconds_text(a.harness_wall_seconds)));
  }
  return notes;
}

}  // namespace noisefloor::render
