// A real Google Benchmark program (Debian's libbenchmark-dev) for noisefloor's `gbench-json`
// format: a dependent xorshift chain (no memory traffic, cost linear in its length) at one and two
// threads, with the counters real programs report — a rate (items_per_second) and a ratio that is
// not a number (0/0, as a counter computed over an empty set is). noisefloor keys the rows by the
// full name ("BM_Xorshift/threads:2") and keeps the NaN counter as not a number, without failing.
//   g++ -O2 -o gbench-xorshift experiments/gbench/bench.cpp -lbenchmark -lpthread
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>

static void BM_Xorshift(benchmark::State& state) {
  std::uint64_t x = 88172645463325252ull;
  for (auto _ : state) {
    for (int i = 0; i < 1000; ++i) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
    }
    benchmark::DoNotOptimize(x);
  }
  state.SetItemsProcessed(state.iterations() * 1000);
  const double empty = 0;
  state.counters["hit_ratio"] = empty / empty;  // NaN
}
BENCHMARK(BM_Xorshift)->Threads(1)->Threads(2);

BENCHMARK_MAIN();
