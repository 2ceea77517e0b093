#include "model/simulation.hpp"

#include <fmt/format.h>

namespace noisefloor::model {

namespace {
constexpr bool in_enum_order() {
  for (std::size_t i = 0; i < kSimulatedMetrics.size(); ++i)
    if (static_cast<std::size_t>(kSimulatedMetrics[i].metric) != i) return false;
  return true;
}
static_assert(in_enum_order(), "kSimulatedMetrics is indexed by SimulatedMetric");

// callgrind's dumps around Google Benchmark's timed loop (the functions as it names them, any overload).
constexpr std::string_view kTimedLoopStartOption = "--dump-after=benchmark::State::StartKeepRunning*";
constexpr std::string_view kTimedLoopEndOption = "--dump-before=benchmark::State::FinishKeepRunning*";

std::string cache_option(const char* level, const CacheGeometry& g) {
  return fmt::format("--{}={},{},{}", level, g.size_bytes, g.ways, g.line_bytes);
}
}  // namespace

SimulatedCounts simulated_counts(const CacheEvents& e) {
  SimulatedCounts c;
  c.instructions = e.ir;
  c.l1_misses = e.i1mr + e.d1mr + e.d1mw;
  c.ll_misses = e.ilmr + e.dlmr + e.dlmw;
  const std::int64_t accesses = e.ir + e.dr + e.dw;
  const std::int64_t l1_hits = accesses - c.l1_misses;
  const std::int64_t ll_hits = c.l1_misses - c.ll_misses;
  c.estimated_cycles = l1_hits + 5 * ll_hits + 35 * c.ll_misses;
  return c;
}

std::optional<SimulatedMetric> simulated_metric(std::string_view name_or_unit) {
  for (const auto& m : kSimulatedMetrics)
    if (name_or_unit == m.name || name_or_unit == m.unit) return m.metric;
  return std::nullopt;
}

const char* simulated_unit(SimulatedMetric m) { return kSimulatedMetrics[static_cast<std::size_t>(m)].unit; }

std::int64_t count_of(const SimulatedCounts& c, SimulatedMetric m) {
  return c.*(kSimulatedMetrics[static_cast<std::size_t>(m)].count);
}

bool is_simulated_unit(std::string_view unit) {
  for (const auto& m : kSimulatedMetrics)
    if (unit == m.unit) return true;
  return false;
}

std::map<std::string, std::string> simulated_environment(SimulationScope scope,
                                                         const std::map<std::string, std::string>& env) {
  std::map<std::string, std::string> whole = {{"PATH", std::string(kSimulatedPath)}, {"LC_ALL", "C"}};
  if (scope == SimulationScope::timed_loop) whole["LD_BIND_NOW"] = "1";
  for (const auto& [name, value] : env) whole[name] = value;
  return whole;
}

std::vector<std::string> valgrind_options(SimulationScope scope, const std::string& out_file,
                                          const std::string& log_file) {
  std::vector<std::string> o = {
      scope == SimulationScope::whole_run ? "--tool=cachegrind" : "--tool=callgrind",
      "--cache-sim=yes",
      "--branch-sim=no",
      cache_option("I1", kSimulatedI1),
      cache_option("D1", kSimulatedD1),
      cache_option("LL", kSimulatedLL)};
  if (scope == SimulationScope::timed_loop) {
    o.push_back(std::string(kTimedLoopStartOption));
    o.push_back(std::string(kTimedLoopEndOption));
  }
  o.push_back(fmt::format("--{}-out-file={}",
                          scope == SimulationScope::whole_run ? "cachegrind" : "callgrind", out_file));
  o.push_back("--log-file=" + log_file);
  o.push_back("--command-line-only=yes");  // no ~/.valgrindrc, ./.valgrindrc or VALGRIND_OPTS
  return o;
}

std::string valgrind_settings(SimulationScope scope) {
  const std::string geometry =
      fmt::format("--cache-sim=yes --branch-sim=no {} {} {}", cache_option("I1", kSimulatedI1),
                  cache_option("D1", kSimulatedD1), cache_option("LL", kSimulatedLL));
  if (scope == SimulationScope::whole_run)
    return fmt::format("--tool=cachegrind {}, ASLR off, environment PATH, LC_ALL=C and env: only", geometry);
  return fmt::format(
      "--tool=callgrind {} {} {}, ASLR off, environment PATH, LC_ALL=C, LD_BIND_NOW=1 and env: only",
      geometry, kTimedLoopStartOption, kTimedLoopEndOption);
}

}  // namespace noisefloor::model
