// A Google Benchmark whose timed loop has a known instruction count, for e2e_simulated:
// BM_Spin/N runs N dec/jnz pairs an iteration (2N instructions and the loop's own few), after a
// setup of 200N pairs that the count of the timed loop must leave out.
//   g++ -O2 -o sim_gbench tests/integration/sim_gbench.cpp -lbenchmark -lpthread
#include <benchmark/benchmark.h>

namespace {

void spin(long n) { asm volatile("1: dec %0\n jnz 1b" : "+r"(n)); }

void BM_Spin(benchmark::State& state) {
  const long n = state.range(0);
  spin(200 * n);  // setup: not timed, not counted
  for (auto _ : state) spin(n);
}
BENCHMARK(BM_Spin)->Arg(10000)->Arg(20000);
// A fixed count of iterations, one run: no calibration run that a slow first loop could make the
// reported one (the loop's own 11 instructions over 1 iteration, not over ~100).
BENCHMARK(BM_Spin)->Arg(10000)->Iterations(200);
BENCHMARK(BM_Spin)->Arg(10000)->Threads(2);

// Pauses its timer in the loop: the count includes what it paused, and says so.
void BM_Paused(benchmark::State& state) {
  for (auto _ : state) {
    state.PauseTiming();
    spin(1000);
    state.ResumeTiming();
    spin(1000);
  }
}
BENCHMARK(BM_Paused);

// Skips itself as the documentation shows (SkipWithError, then the loop, which then runs none):
// its loop's dump sits among the others, so a simulated count beside it is refused.
void BM_Skipped(benchmark::State& state) {
  state.SkipWithError("not here");
  for (auto _ : state) spin(1000);
}
BENCHMARK(BM_Skipped);

}  // namespace

BENCHMARK_MAIN();
