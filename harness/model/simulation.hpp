// Simulated counts: the benchmark run under Valgrind's cachegrind, with a fixed cache geometry
// that is not the host's, so the same program gives the same counts on every machine and in any
// room (harness/stats/README.md §3.16). Pure: the geometry, valgrind's argv, the cycle estimate.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace noisefloor::model {

// A cache level as valgrind's --I1/--D1/--LL take it: size, associativity, line size (bytes).
struct CacheGeometry {
  std::int64_t size_bytes = 0;
  int ways = 0;
  int line_bytes = 0;
};

// Fixed, whatever the host has: a 32 KiB 8-way L1 for instructions and for data, an 8 MiB
// 16-way last level, 64-byte lines (a common x86-64 desktop part; gungraun's and CodSpeed's
// simulations fix theirs the same way).
inline constexpr CacheGeometry kSimulatedI1{32768, 8, 64};
inline constexpr CacheGeometry kSimulatedD1{32768, 8, 64};
inline constexpr CacheGeometry kSimulatedLL{8388608, 16, 64};

// cachegrind's events, as its output file names them (events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw
// DLmw): instruction reads, data reads and writes, and their misses in L1 and the last level.
struct CacheEvents {
  std::int64_t ir = 0, i1mr = 0, ilmr = 0;
  std::int64_t dr = 0, d1mr = 0, dlmr = 0;
  std::int64_t dw = 0, d1mw = 0, dlmw = 0;
  friend bool operator==(const CacheEvents&, const CacheEvents&) = default;
};

// What noisefloor reports of them. The cycle estimate is Itamar Turner-Trauring's, which
// gungraun (formerly iai-callgrind) reports as "Estimated Cycles": L1 hits + 5 × last-level hits
// + 35 × RAM hits, where every instruction fetch, data read and data write is an access, an L1
// hit is an access that did not miss L1, a last-level hit one that missed L1 only, and a RAM hit
// one that missed both (pythonspeed.com/articles/consistent-benchmarking-in-ci/).
struct SimulatedCounts {
  std::int64_t instructions = 0;  // Ir
  std::int64_t l1_misses = 0;     // I1mr + D1mr + D1mw
  std::int64_t ll_misses = 0;     // ILmr + DLmr + DLmw
  std::int64_t estimated_cycles = 0;
  friend bool operator==(const SimulatedCounts&, const SimulatedCounts&) = default;
};
SimulatedCounts simulated_counts(const CacheEvents& e);

// The simulated metrics `metric:` may name, each with its unit (always "simulated-…/op", so no
// table or export can pass one for a measured figure).
enum class SimulatedMetric { instructions, cycles, l1_misses, ll_misses };
struct SimulatedMetricName {
  SimulatedMetric metric;
  const char* name;  // as `metric:` names it
  const char* unit;
  std::int64_t SimulatedCounts::*count;
};
inline constexpr std::array<SimulatedMetricName, 4> kSimulatedMetrics = {{
    {SimulatedMetric::instructions, "simulated-instructions", "simulated-instructions/op",
     &SimulatedCounts::instructions},
    {SimulatedMetric::cycles, "simulated-cycles", "simulated-cycles/op", &SimulatedCounts::estimated_cycles},
    {SimulatedMetric::l1_misses, "simulated-l1-misses", "simulated-l1-misses/op",
     &SimulatedCounts::l1_misses},
    {SimulatedMetric::ll_misses, "simulated-ll-misses", "simulated-ll-misses/op",
     &SimulatedCounts::ll_misses},
}};
// By its name or its unit; nullopt for any other metric.
std::optional<SimulatedMetric> simulated_metric(std::string_view name_or_unit);
const char* simulated_unit(SimulatedMetric m);
std::int64_t count_of(const SimulatedCounts& c, SimulatedMetric m);
// A unit that is one of the simulated ones.
bool is_simulated_unit(std::string_view unit);

// What a simulated count covers. A command's whole run, under cachegrind; or a Google Benchmark's
// timed loop, under callgrind with the same cache simulation: a dump as State::StartKeepRunning
// returns and another as State::FinishKeepRunning is called bracket exactly the region its timer
// measures, and the second dump's counts over the run's iterations are one op.
enum class SimulationScope { whole_run, timed_loop };
// The trigger of the dump that closes a timed loop, as callgrind's `desc: Trigger:` line names it.
inline constexpr std::string_view kTimedLoopEnd = "benchmark::State::FinishKeepRunning()";

// One timed loop's counts (a callgrind dump closed by kTimedLoopEnd), and whether the loop called
// State::PauseTiming: the code it paused is counted too, where the timer leaves it out.
struct TimedLoop {
  SimulatedCounts counts;
  bool paused = false;
  friend bool operator==(const TimedLoop&, const TimedLoop&) = default;
};

// The whole environment of a counted run: a fixed PATH and locale, then the experiment's own
// `env:` over them. Not the caller's: its size and contents change what the program's start-up
// executes (the dynamic loader and libc walk it), and VALGRIND_OPTS or a ~/.valgrindrc would
// change the tool's settings. A timed loop's run also binds every symbol at start (LD_BIND_NOW=1):
// lazily, the first call from the program into Google Benchmark's FinishKeepRunning is resolved
// inside the first loop (867 instructions more in a one-iteration loop: 20,881 against 20,014), which is the
// loop Google Benchmark reports when its first calibration run is long enough by its clock.
std::map<std::string, std::string> simulated_environment(SimulationScope scope,
                                                         const std::map<std::string, std::string>& env);
inline constexpr std::string_view kSimulatedPath = "/usr/local/bin:/usr/bin:/bin";

// valgrind's options for a counted run, in order, before the program: the tool with the fixed
// geometry, no branch simulation, its counts to out_file (callgrind: one file more per dump,
// out_file.1, .2, …), its own messages to log_file, and no options from anywhere else.
std::vector<std::string> valgrind_options(SimulationScope scope, const std::string& out_file,
                                          const std::string& log_file);
// The options that make the counts what they are, as the fingerprint and the table's note say
// them (no file names).
std::string valgrind_settings(SimulationScope scope);

}  // namespace noisefloor::model
