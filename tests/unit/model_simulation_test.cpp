#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "model/simulation.hpp"

namespace {
using noisefloor::model::CacheEvents;
using noisefloor::model::count_of;
using noisefloor::model::is_simulated_unit;
using noisefloor::model::simulated_counts;
using noisefloor::model::simulated_metric;
using noisefloor::model::simulated_unit;
using noisefloor::model::SimulatedCounts;
using noisefloor::model::SimulatedMetric;
using noisefloor::model::SimulationScope;
using noisefloor::model::valgrind_options;
using noisefloor::model::valgrind_settings;
}  // namespace

TEST_CASE("simulated_counts: L1 hits + 5 x last-level hits + 35 x RAM hits") {
  // 1000 instruction fetches, 300 reads, 100 writes: 1400 accesses. L1 misses 10 + 20 + 5 = 35,
  // of which last-level misses 2 + 8 + 1 = 11 went to RAM: 1365 L1 hits, 24 LL hits, 11 RAM hits.
  const SimulatedCounts c = simulated_counts(CacheEvents{1000, 10, 2, 300, 20, 8, 100, 5, 1});
  CHECK(c.instructions == 1000);
  CHECK(c.l1_misses == 35);
  CHECK(c.ll_misses == 11);
  CHECK(c.estimated_cycles == 1365 + 5 * 24 + 35 * 11);
  // The captured loop (tests/data/cachegrind/loop-10000000.out).
  const SimulatedCounts loop =
      simulated_counts(CacheEvents{20127642, 1086, 1072, 29102, 1174, 980, 10071, 336, 305});
  CHECK(loop.l1_misses == 2596);
  CHECK(loop.ll_misses == 2357);
  CHECK(loop.estimated_cycles == (20166815 - 2596) + 5 * (2596 - 2357) + 35 * 2357);
}

TEST_CASE("simulated metrics: by name or unit, and only those") {
  CHECK(simulated_metric("simulated-instructions") == SimulatedMetric::instructions);
  CHECK(simulated_metric("simulated-cycles/op") == SimulatedMetric::cycles);
  CHECK(simulated_metric("simulated-ll-misses") == SimulatedMetric::ll_misses);
  CHECK_FALSE(simulated_metric("instructions"));
  CHECK_FALSE(simulated_metric("instructions/op"));
  CHECK(std::string(simulated_unit(SimulatedMetric::l1_misses)) == "simulated-l1-misses/op");
  CHECK(is_simulated_unit("simulated-instructions/op"));
  CHECK_FALSE(is_simulated_unit("sec/op"));
  const SimulatedCounts c{1, 2, 3, 4};
  CHECK(count_of(c, SimulatedMetric::instructions) == 1);
  CHECK(count_of(c, SimulatedMetric::l1_misses) == 2);
  CHECK(count_of(c, SimulatedMetric::ll_misses) == 3);
  CHECK(count_of(c, SimulatedMetric::cycles) == 4);
}

TEST_CASE("valgrind_options: the fixed geometry, not the host's") {
  CHECK(valgrind_options(SimulationScope::whole_run, "/t/cg.out", "/t/cg.log") ==
        std::vector<std::string>{"--tool=cachegrind", "--cache-sim=yes", "--branch-sim=no", "--I1=32768,8,64",
                                 "--D1=32768,8,64", "--LL=8388608,16,64", "--cachegrind-out-file=/t/cg.out",
                                 "--log-file=/t/cg.log", "--command-line-only=yes"});
  CHECK(valgrind_settings(SimulationScope::whole_run) ==
        "--tool=cachegrind --cache-sim=yes --branch-sim=no --I1=32768,8,64 --D1=32768,8,64 "
        "--LL=8388608,16,64, ASLR off, environment PATH, LC_ALL=C and env: only");
}

TEST_CASE("valgrind_options: a Google Benchmark's timed loop, bracketed by callgrind's dumps") {
  CHECK(valgrind_options(SimulationScope::timed_loop, "/t/cg.out", "/t/cg.log") ==
        std::vector<std::string>{
            "--tool=callgrind", "--cache-sim=yes", "--branch-sim=no", "--I1=32768,8,64", "--D1=32768,8,64",
            "--LL=8388608,16,64", "--dump-after=benchmark::State::StartKeepRunning*",
            "--dump-before=benchmark::State::FinishKeepRunning*", "--callgrind-out-file=/t/cg.out",
            "--log-file=/t/cg.log", "--command-line-only=yes"});
  CHECK(valgrind_settings(SimulationScope::timed_loop) ==
        "--tool=callgrind --cache-sim=yes --branch-sim=no --I1=32768,8,64 --D1=32768,8,64 "
        "--LL=8388608,16,64 --dump-after=benchmark::State::StartKeepRunning* "
        "--dump-before=benchmark::State::FinishKeepRunning*, ASLR off, environment PATH, LC_ALL=C, "
        "LD_BIND_NOW=1 "
        "and env: only");
}

TEST_CASE("simulated_environment: a fixed PATH and locale, the experiment's env over them") {
  using noisefloor::model::simulated_environment;
  using noisefloor::model::SimulationScope;
  CHECK(simulated_environment(SimulationScope::whole_run, {}) ==
        std::map<std::string, std::string>{{"LC_ALL", "C"}, {"PATH", "/usr/local/bin:/usr/bin:/bin"}});
  CHECK(simulated_environment(SimulationScope::whole_run, {{"PATH", "/opt/bin"}, {"N", "3"}}) ==
        std::map<std::string, std::string>{{"LC_ALL", "C"}, {"N", "3"}, {"PATH", "/opt/bin"}});
  // a timed loop binds every symbol at start, so the first loop resolves none
  CHECK(simulated_environment(SimulationScope::timed_loop, {{"N", "3"}}) ==
        std::map<std::string, std::string>{
            {"LC_ALL", "C"}, {"LD_BIND_NOW", "1"}, {"N", "3"}, {"PATH", "/usr/local/bin:/usr/bin:/bin"}});
}
