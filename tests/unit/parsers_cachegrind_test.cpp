#include <doctest/doctest.h>

#include <string>

#include "model/errors.hpp"
#include "model/simulation.hpp"
#include "parsers/cachegrind.hpp"
#include "test_support.hpp"

namespace {
using noisefloor::ParseError;
using noisefloor::model::CacheEvents;
using noisefloor::parsers::CallgrindDump;
using noisefloor::parsers::parse_cachegrind_out;
using noisefloor::parsers::parse_callgrind_dump;
using noisefloor::testing::read_data;
}  // namespace

TEST_CASE("parse_cachegrind_out: Valgrind 3.19's file for a loop of 10,000,000 dec/jnz pairs") {
  // valgrind --tool=cachegrind --cache-sim=yes --branch-sim=no --I1=32768,8,64 --D1=32768,8,64
  // --LL=8388608,16,64 ./loop 10000000 (tests/integration/sim_loop.c), captured on Debian 12.
  const CacheEvents e = parse_cachegrind_out(read_data("cachegrind/loop-10000000.out"));
  CHECK(e == CacheEvents{20127642, 1086, 1072, 29102, 1174, 980, 10071, 336, 305});
}

TEST_CASE("parse_cachegrind_out: columns found by name, in any order") {
  const CacheEvents e = parse_cachegrind_out(
      "desc: I1 cache: 32768 B, 64 B, 8-way associative\ncmd: ./x\n"
      "events: Dw Ir I1mr ILmr Dr D1mr DLmr D1mw DLmw Bc\nfl=x.c\n1 2 3\nsummary: 9 1 2 3 4 5 6 7 8 100\n");
  CHECK(e == CacheEvents{1, 2, 3, 4, 5, 6, 9, 7, 8});
}

TEST_CASE("parse_cachegrind_out: what it refuses, and why") {
  CHECK_THROWS_WITH_AS(parse_cachegrind_out("events: Ir\n"),
                       "cachegrind output: no summary: line (not a file cachegrind wrote whole)", ParseError);
  CHECK_THROWS_WITH_AS(parse_cachegrind_out("summary: 1\n"),
                       "cachegrind output: no events: line (not a file cachegrind wrote whole)", ParseError);
  CHECK_THROWS_WITH_AS(parse_cachegrind_out("events: Ir Dr\nsummary: 1\n"),
                       "cachegrind output: 2 events but 1 counts in the summary", ParseError);
  CHECK_THROWS_WITH_AS(parse_cachegrind_out("events: Ir\nsummary: 12\n"),
                       "cachegrind output: no I1mr event (run with --cache-sim=yes)", ParseError);
  CHECK_THROWS_WITH_AS(
      parse_cachegrind_out("events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\nsummary: 1 2 3 4 5 6 7 8 x9\n"),
      "cachegrind output: DLmw is 'x9', not a count", ParseError);
}

TEST_CASE("parse_callgrind_dump: Valgrind 3.19's dumps around a Google Benchmark's timed loop") {
  // valgrind --tool=callgrind --cache-sim=yes --branch-sim=no (the fixed geometry)
  // --dump-after=benchmark::State::StartKeepRunning* --dump-before=benchmark::State::FinishKeepRunning*
  // ./gb --benchmark_filter=^BM_Spin/1000$ --benchmark_repetitions=2: the last repetition's loop,
  // 16,322 iterations of 2,003 instructions (1000 dec/jnz pairs and the loop's own 3) and 12 more,
  // its trailing zero counts left out.
  const CallgrindDump loop = parse_callgrind_dump(read_data("cachegrind/callgrind-spin-loop.out"));
  CHECK(loop.trigger == "--dump-before=benchmark::State::FinishKeepRunning()");
  CHECK(loop.events == CacheEvents{32692978, 0, 0, 4, 0, 0, 0, 0, 0});
  CHECK(loop.events.ir == 16322 * 2003 + 12);
  const CallgrindDump start = parse_callgrind_dump(read_data("cachegrind/callgrind-spin-start.out"));
  CHECK(start.trigger == "--dump-after=benchmark::State::StartKeepRunning()");
  CHECK(start.events == CacheEvents{3961, 60, 51, 1146, 1, 0, 878, 9, 9});
}

TEST_CASE("parse_callgrind_dump: what it refuses") {
  CHECK_THROWS_WITH_AS(parse_callgrind_dump("events: Ir\nsummary: 1\n"),
                       "callgrind output: no `desc: Trigger:` line (not a dump callgrind wrote)", ParseError);
  CHECK_THROWS_WITH_AS(parse_callgrind_dump("desc: Trigger: Program termination\nevents: Ir\nsummary: 1 2\n"),
                       "callgrind output: 1 events but 2 counts in the summary", ParseError);
  CHECK_THROWS_WITH_AS(
      parse_callgrind_dump("desc: Trigger: Program termination\nevents: Ir Dr\nsummary: 1\n"),
      "callgrind output: no I1mr event (run with --cache-sim=yes)", ParseError);
}
