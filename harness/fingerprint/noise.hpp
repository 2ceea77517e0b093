// The room's noise profile: how much a fixed piece of work, and a short sleep, vary on this machine
// right now. `noisefloor doctor` measures it (2 s), every run measures it before its first
// condition (`noise_profile:`, 1 s) and stores it in the fingerprint, and `history` and `compare`
// show it beside each run: "the machine got noisier" is then visible apart from "the code got
// slower". Pure: the raw readings in (NoiseReadings, from fingerprint/noise_probe.hpp), figures
// and a finding out.
//
// The probe (harness/stats/README.md §3.15 says the same in full):
//   loop    blocks of kNoiseBlockIterations steps of a xorshift64 chain (each step depends on the
//           last: no vectorising, no memory), timed one by one on the monotonic clock, for 80% of
//           the profile's time. The spread of the block times is the CPU noise a benchmark meets:
//           interrupts, preemption, frequency changes. The median block time says the speed.
//   sleeps  1 ms relative sleeps (clock_nanosleep) for the other 20%: how late each wakes up.
//   kernel  over the loop: the thread's run-queue delay (/proc/thread-self/schedstat) and its
//           involuntary context switches; over the whole profile: the hypervisor's steal of all
//           CPUs (/proc/stat).
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace noisefloor::fingerprint {

// Steps of the xorshift64 chain per timed block (about 5 ms on a 3 GHz x86-64 core).
inline constexpr std::uint64_t kNoiseBlockIterations = std::uint64_t{1} << 21;
// The requested length of one sleep.
inline constexpr double kNoiseSleepSeconds = 0.001;

// What the probe read. A reading that could not be taken is nullopt with its reason in `unknown`.
struct NoiseReadings {
  double seconds = 0;                                // wall time of the whole profile
  std::vector<double> block_seconds;                 // each loop block, in order
  double loop_seconds = 0;                           // wall time of the loop part
  std::vector<double> sleep_seconds;                 // each sleep as it really lasted, in order
  std::optional<double> run_delay_seconds;           // runnable but not running, over the loop
  std::optional<std::int64_t> involuntary_switches;  // over the loop
  std::optional<double> steal_seconds;               // all CPUs together, over the profile
  int cpus = 0;                                      // CPUs /proc/stat counted the steal over
  std::vector<std::string> unknown;                  // "steal: /proc/stat: Permission denied"
};

// Why a run or the doctor took no profile (fingerprint.json: "not_measured" in words, "why" by name).
enum class NoiseNotTaken : std::uint8_t {
  taken,          // it was measured
  profile_off,    // the experiment's noise_profile: 0s
  option_off,     // doctor --noise-profile 0s
  other_machine,  // the conditions (or the doctor's findings) are of another machine: `where`
  gate,           // a gate: its A/A and B/B floors measure the room on the benchmark itself
  said,           // an older fingerprint's reason, its words in `where`
};

// The reasons written by name (taken and said never are).
constexpr std::array<std::pair<NoiseNotTaken, std::string_view>, 4> names(NoiseNotTaken) {
  using enum NoiseNotTaken;
  return {{{profile_off, "profile_off"},
           {option_off, "option_off"},
           {other_machine, "other_machine"},
           {gate, "gate"}}};
}

struct NoiseProfile {
  // Why there is no profile (the figures below are then empty), and the machine or the words it
  // names.
  NoiseNotTaken not_measured = NoiseNotTaken::taken;
  std::string where;
  double seconds = 0;
  std::size_t blocks = 0;
  double block_median_ms = 0;          // the speed of this machine at this moment
  std::optional<double> block_cv_pct;  // 100·s/mean of the block times; nullopt below 2 blocks
  double block_worst_ratio = 0;        // slowest block / median block
  std::size_t sleeps = 0;
  double sleep_late_median_us = 0;      // how late a 1 ms sleep woke up: median
  double sleep_late_p99_us = 0;         // and 99th percentile (type 7)
  std::optional<double> run_delay_pct;  // of the loop's wall time
  std::optional<std::int64_t> involuntary_switches;
  std::optional<double> steal_pct;  // of the CPUs' time over the profile
  std::vector<std::string> unknown;
  bool measured() const { return not_measured == NoiseNotTaken::taken; }
  friend bool operator==(const NoiseProfile&, const NoiseProfile&) = default;
};

// Above any of these the profile is a WARN in the doctor ("noise", fingerprint/doctor.hpp). A loop CV of 1%
// means a benchmark's own CV here is unlikely to be below it; steal and run-queue delay are time taken from a
// benchmark; a sleep that wakes half a millisecond late disturbs any timed wait.
inline constexpr double kNoiseCvWarnPct = 1.0;
inline constexpr double kNoiseStealWarnPct = 1.0;
inline constexpr double kNoiseRunDelayWarnPct = 1.0;
inline constexpr double kNoiseSleepLateWarnUs = 500.0;

// The figures of the readings. Throws Error when no loop block was timed.
NoiseProfile summarize_noise(const NoiseReadings& readings);

// A profile that was not taken, and why (`where`: the other machine).
NoiseProfile noise_not_measured(NoiseNotTaken why, std::string where = {});
// Why, in words: "noise_profile: 0s", "the profile measures this machine only, not ssh://…".
std::string not_taken_text(const NoiseProfile& profile);

// The figures above their limits, one phrase each ("loop CV 1.39% > 1%"); empty: a quiet room.
std::vector<std::string> noise_above_limits(const NoiseProfile& profile);

// One line: "loop CV 1.39% (5.01 ms × 319, worst 1.12×), sleep +62 µs late (p99 +180 µs), run
// delay 0.20%, steal 0.00%, 2 s"; "not measured: <why>".
std::string noise_line(const NoiseProfile& profile);
// Shorter, for a column: "CV 1.39% · steal 0.00% · delay 0.20%"; "—" when not measured.
std::string noise_brief(const NoiseProfile& profile);

// Whether the room changed between two profiles (render::noise_change_text says it: "room
// noisier: loop CV 0.30% → 1.71%", "room quieter: …"; "" when neither is clearly noisier).
// Noisier: a figure (loop CV, steal, run-queue delay) at least twice the earlier one AND above its
// limit; quieter the other way round. "room noisier: loop CV 0.30% → 1.71%", "room quieter: …".
struct NoiseChange {
  enum class Direction : std::uint8_t { none, noisier, quieter };
  enum class Figure : std::uint8_t { loop_cv, steal, run_delay };
  struct Moved {
    Figure figure = Figure::loop_cv;
    double before = 0, after = 0;  // percent
    friend bool operator==(const Moved&, const Moved&) = default;
  };
  Direction direction = Direction::none;
  std::vector<Moved> moved;  // the figures that moved that way, in the order above
  bool changed() const { return direction != Direction::none; }
  friend bool operator==(const NoiseChange&, const NoiseChange&) = default;
};
NoiseChange noise_change(const NoiseProfile& before, const NoiseProfile& after);

// {"not_measured"} alone, or {"seconds", "blocks", "block_iterations", "block_median_ms",
// "block_cv_pct" (null below 2 blocks), "block_worst_ratio", "sleeps", "sleep_late_median_us",
// "sleep_late_p99_us", "run_delay_pct", "involuntary_switches", "steal_pct" (null: unknown),
// "unknown"}. from_json throws ParseError for a part of the wrong shape.
void to_json(nlohmann::json& j, const NoiseProfile& profile);
void from_json(const nlohmann::json& j, NoiseProfile& profile);

}  // namespace noisefloor::fingerprint
