// A Google Benchmark suite of the shape real ones have (Debian's libbenchmark-dev): 41 benchmark
// instances from templated families, ranges, argument pairs, thread counts and fixtures, most of
// them short, with the counters real programs report. e2e_suites runs it as a suite of many rows.
//   g++ -O2 -o gbench-suite tests/integration/gbench_suite.cpp -lbenchmark -lpthread
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

std::vector<std::uint32_t> shuffled(std::size_t n) {
  std::vector<std::uint32_t> v(n);
  std::iota(v.begin(), v.end(), 0u);
  std::uint64_t x = 88172645463325252ull;
  for (std::size_t i = n; i > 1; --i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    std::swap(v[i - 1], v[x % i]);
  }
  return v;
}

// 7 instances: a sort of 8 .. 8<<10 elements (8, 16, 64, ..., 8192: the range's ×4 steps and its ends).
void BM_Sort(benchmark::State& state) {
  const auto input = shuffled(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    auto v = input;
    std::sort(v.begin(), v.end());
    benchmark::DoNotOptimize(v.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_Sort)->RangeMultiplier(4)->Range(8, 8 << 10);

// 2 × 5 instances: map and unordered_map lookups at 5 sizes.
template <class Map>
void BM_Lookup(benchmark::State& state) {
  Map m;
  const auto keys = shuffled(static_cast<std::size_t>(state.range(0)));
  for (auto k : keys) m[k] = k;
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(m.find(keys[i++ % keys.size()]));
  }
}
BENCHMARK_TEMPLATE(BM_Lookup, std::map<std::uint32_t, std::uint32_t>)->DenseRange(16, 80, 16);
BENCHMARK_TEMPLATE(BM_Lookup, std::unordered_map<std::uint32_t, std::uint32_t>)->DenseRange(16, 80, 16);

// 8 instances: string append with (length, reserve) pairs.
void BM_Append(benchmark::State& state) {
  for (auto _ : state) {
    std::string s;
    if (state.range(1)) s.reserve(static_cast<std::size_t>(state.range(0)));
    for (int i = 0; i < state.range(0); ++i) s.push_back('x');
    benchmark::DoNotOptimize(s.data());
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Append)->ArgsProduct({{16, 64, 256, 1024}, {0, 1}});

// 3 × 4 instances: an xorshift chain at 1 and 2 threads, three chain lengths, and the real-time
// variant at one length.
void BM_Chain(benchmark::State& state) {
  std::uint64_t x = 88172645463325252ull + static_cast<std::uint64_t>(state.thread_index());
  for (auto _ : state) {
    for (int i = 0; i < state.range(0); ++i) x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    benchmark::DoNotOptimize(x);
  }
  state.counters["chain"] = static_cast<double>(state.range(0));
}
BENCHMARK(BM_Chain)->Arg(100)->Arg(1000)->Arg(10000)->Threads(1)->Threads(2);
BENCHMARK(BM_Chain)->Arg(1000)->Threads(1)->Threads(2)->UseRealTime();

// 8 instances: a fixture accumulating a vector, 4 sizes × 2 methods.
class Accumulate : public benchmark::Fixture {
 public:
  void SetUp(const benchmark::State& state) override {
    v.assign(static_cast<std::size_t>(state.range(0)), 3);
  }
  std::vector<int> v;
};
BENCHMARK_DEFINE_F(Accumulate, Loop)(benchmark::State& state) {
  for (auto _ : state) {
    long sum = 0;
    for (int x : v) sum += x;
    benchmark::DoNotOptimize(sum);
  }
}
BENCHMARK_DEFINE_F(Accumulate, Std)(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(std::accumulate(v.begin(), v.end(), 0L));
}
BENCHMARK_REGISTER_F(Accumulate, Loop)->Arg(64)->Arg(512)->Arg(4096)->Arg(32768);
BENCHMARK_REGISTER_F(Accumulate, Std)->Arg(64)->Arg(512)->Arg(4096)->Arg(32768);

}  // namespace

BENCHMARK_MAIN();
