// render/json.hpp: the documents, streamed as their trees dump them, and the published table
// summary.json stands for.
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

TEST_CASE("render: summary.json streamed is the tree's dump(2), byte for byte") {
  for (const auto& [name, a] : analyses()) {
    CAPTURE(name);
    CHECK(render::summary_json(a) == render::summary_document(a).dump(2) + "\n");
  }
}

TEST_CASE("render: the stream comes in pieces, none of them a whole per-sample array") {
  const auto a = analysis::analyze({load_result(kData + "/results/small")});
  std::size_t values = 0, pieces = 0;
  for (const auto* row : analysis::all_rows(a.table)) values += row->values.size();
  std::string whole;
  render::write_summary_json(a, [&](std::string_view piece) {
    ++pieces;
    whole += piece;
  });
  CHECK(whole == render::summary_json(a));
  CHECK(pieces > 3 * values);
}

TEST_CASE("render: published_table is summary.json read back as a published table") {
  for (const auto& [name, a] : analyses()) {
    CAPTURE(name);
    CHECK(render::published_table(a) == parsers::parse_summary_json(render::summary_document(a).dump()));
  }
}
