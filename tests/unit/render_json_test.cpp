// render/json.hpp: the documents, streamed as their trees dump them, and the published table
// summary.json stands for.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>

#include "analysis/analysis.hpp"
#include "parsers/published.hpp"
#include "render/json.hpp"
#include "results/decode.hpp"
#include "test_support.hpp"

using namespace noisefloor;
using testing::kData;
using testing::load_result;
using testing::slurp;

namespace {

// Every kind of analysis the golden data holds: runs (paired, containers), go test files (other
// metrics, units marked exact), merged results.
std::vector<std::pair<std::string, analysis::Analysis>> analyses() {
  std::vector<std::pair<std::string, analysis::Analysis>> out;
  for (const char* name : {"small", "paired-0.1", "docker-0.1"})
    out.emplace_back(name, analysis::analyze({load_result(kData + "/results/" + name)}));
  for (const char* name :
       {"makebuffer_benchmem_count3.txt", "makebuffer_cpu_1_2.txt", "subbench_custom_units.txt"}) {
    const std::string path = kData + "/gotest/" + name;
    out.emplace_back(name, analysis::analyze({results::decode_gotest_file(path, slurp(path))}));
  }
  out.emplace_back("merged", analysis::analyze({load_result(kData + "/results/small"),
                                                load_result(kData + "/results/docker-0.1")},
                                               true));
  return out;
}

}  // namespace

TEST_CASE("render: summary.json streamed is the tree's dump(2), byte for byte") {
  for (const auto& [label, a] : analyses()) {
    const std::string& name = label;  // CAPTURE's lambda: clang 14 cannot capture a structured binding
    CAPTURE(name);
    CHECK(render::summary_json(a) == render::summary_document(a).dump(2) + "\n");
  }
}

TEST_CASE("render: a long per-sample array is streamed in bounded pieces") {
  // 20000 samples of three metrics: 60000 values and 20000 modified z-scores in arrays.
  std::string text = "goos: linux\ngoarch: amd64\npkg: example.com/perf\n";
  for (int i = 0; i < 20000; ++i)
    text += fmt::format("BenchmarkX-2 \t 1000000\t {:.4f} ns/op\t 64 B/op\t 1 allocs/op\n",
                        100 + (i * 7919 % 1000) / 250.0);
  const auto a = analysis::analyze({results::decode_gotest_file("/x/perf.txt", text)});
  std::size_t longest = 0;
  std::string whole;
  render::write_summary_json(a, [&](std::string_view piece) {
    longest = std::max(longest, piece.size());
    whole += piece;
  });
  CHECK(whole == render::summary_document(a).dump(2) + "\n");
  CHECK(whole.size() > 2'000'000);
  CHECK(longest < 70'000);
}

TEST_CASE("render: published_table is summary.json read back as a published table") {
  for (const auto& [label, a] : analyses()) {
    const std::string& name = label;  // CAPTURE's lambda: clang 14 cannot capture a structured binding
    CAPTURE(name);
    CHECK(render::published_table(a) == parsers::parse_summary_json(render::summary_document(a).dump()));
  }
}
