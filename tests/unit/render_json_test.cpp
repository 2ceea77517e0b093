// render/json.hpp: the published table summary.json stands for.
#include <doctest/doctest.h>

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
  for (const char* name : {"makebuffer_benchmem_count3.txt", "makebuffer_cpu_1_2.txt", "subbench_custom_units.txt"}) {
    const std::string path = kData + "/gotest/" + name;
    out.emplace_back(name, analysis::analyze({results::decode_gotest_file(path, slurp(path))}));
  }
  out.emplace_back("merged", analysis::analyze({load_result(kData + "/results/small"),
                                                load_result(kData + "/results/docker-0.1")},
                                               true));
  return out;
}

}  // namespace

TEST_CASE("render: published_table is summary.json read back as a published table") {
  for (const auto& [name, a] : analyses()) {
    CAPTURE(name);
    CHECK(render::published_table(a) == parsers::parse_summary_json(render::summary_document(a).dump()));
  }
}
