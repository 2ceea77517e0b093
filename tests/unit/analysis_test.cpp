// analysis/analyze: one or more results merged into one view, every number from the samples.
#include "analysis/analysis.hpp"

#include <doctest/doctest.h>

#include "analysis/anchor.hpp"
#include "model/errors.hpp"
#include "render/json.hpp"
#include "render/warnings.hpp"
#include "test_support.hpp"

using namespace noisefloor;
using nlohmann::json;
using testing::kData;
using testing::load_result;
using testing::slurp;

TEST_CASE("analysis: the paired comparisons of a 0.1 result are recomputed as that run computed them") {
  const std::string dir = kData + "/results/paired-0.1";
  const auto a = analysis::analyze({load_result(dir)});
  const json summary = json::parse(slurp(dir + "/summary.json"));
  // This version adds the unit of a row and which way its value moved; the rest is 0.1's.
  json rows = a.paired.rows;
  for (auto& r : rows) {
    CHECK(r.at("unit") == "cpu-ns/op");
    r.erase("unit");
    r.erase("change");
  }
  CHECK(rows == summary["paired"]);
  CHECK(json(a.paired.aa) == summary["aa"]);
  REQUIRE(a.comparison.has_value());
  CHECK(a.comparison->baseline == "once");
  // The labels come from the recorded conditions: "busy" ran with a spinner.
  CHECK(a.paired.rows.at(2).label == analysis::Label::contended_paired);
}

TEST_CASE("analysis: merged sources keep colliding names apart, labels unique, warnings prefixed") {
  auto a = load_result(kData + "/results/paired-0.1");
  auto b = a;
  b.warnings.push_back(
      {.kind = records::RunWarningKind::torn_last_line, .file = "b/samples.jsonl", .line = 7});
  const auto m = analysis::analyze({a, b});
  CHECK(m.merged);
  REQUIRE(m.sources.size() == 2);
  // Sources are named by their directory, as in 0.1 (this copy's directory is not its run id).
  CHECK(m.sources[0].label == "paired-0.1");
  CHECK(m.sources[1].label == "paired-0.1#2");
  CHECK(m.conditions == std::vector<std::string>{"paired-0.1:clean", "paired-0.1:busy", "paired-0.1#2:clean",
                                                 "paired-0.1#2:busy"});
  CHECK(m.paired.rows.size() == 8);
  CHECK(m.paired.rows.at(4).condition == "paired-0.1#2:clean");
  CHECK(m.warnings == std::vector<analysis::Warning>{{"paired-0.1#2", b.warnings.front()}});
  CHECK(render::warning_texts(m) ==
        std::vector<std::string>{"paired-0.1#2: b/samples.jsonl:7: ignored a torn last line"});
  CHECK(m.differences.empty());
  CHECK(m.comparable());
  CHECK(m.title() == "paired");
}

TEST_CASE("analysis: a merged condition too long for its column keeps its condition and its source's end") {
  auto a = load_result(kData + "/results/paired-0.1");
  a.label = "20261207T064023Z-a-run-with-a-label-longer-than-the-column:x";  // a ':' of its own
  auto b = a;
  b.label = "20261207T064023Z-another-run-with-a-label-longer-than-the-column";
  const auto m = analysis::analyze({a, b});
  REQUIRE(m.table.merged_sources.size() == 4);
  CHECK(m.table.merged_sources.at(b.label + ":clean") == b.label);
  const std::string text = render::table_text(m.table);
  // Split where it was joined: the source's label may hold a ':' itself.
  CHECK(text.find("\n…-column:clean    6 ") != std::string::npos);
  CHECK(text.find("\n…olumn:x:clean    6 ") != std::string::npos);
  CHECK(text.find("\n…column:x:busy    6 ") != std::string::npos);
}

TEST_CASE("analysis: recorded claims that cannot be judged are a typed warning, the table kept") {
  records::Result r = testing::load_small();
  REQUIRE(r.run);
  r.run->claims = {"cv(nosuch) < 5%"};
  const analysis::Analysis a = analysis::analyze({r}, false);
  CHECK_FALSE(a.judgement);
  CHECK_FALSE(a.table.rows.empty());
  REQUIRE(a.warnings.size() == 1);
  CHECK(a.warnings[0].what.kind == records::RunWarningKind::claims_not_judged);
  CHECK(a.warnings[0].what.detail.find("nosuch") != std::string::npos);
  CHECK(render::warning_text(a.warnings[0]).rfind("the recorded claims are not judged: ", 0) == 0);
}

TEST_CASE("analysis: results from different rooms are not comparable unless allowed") {
  auto a = load_result(kData + "/results/small");
  auto b = load_result(kData + "/results/docker-0.1");
  const auto m = analysis::analyze({a, b});
  CHECK_FALSE(m.comparable());
  CHECK(m.difference_source.at(0) == 1);
  CHECK(m.differences.at(0).moves_benchmarks);
  CHECK(analysis::analyze({a, b}, true).comparable());
  CHECK(m.title() == "small + docker");
}

TEST_CASE("analysis: the anchor compares this run's baseline with the anchor's clean condition") {
  const auto run = load_result(kData + "/results/docker-0.1");
  const auto anchor = load_result(kData + "/results/small");
  const auto a = analysis::compare_with_anchor(run, anchor);
  CHECK(a.condition == "idle");  // small's first condition without spinners
  CHECK(a.baseline.empty());
  CHECK_FALSE(a.moving.empty());  // another machine: said, not hidden
  REQUIRE(a.rows.size() == 2);    // docker's idle and pinned against small's BenchmarkMakeBuffer_Correct
  CHECK(a.rows[0].condition == "idle");
  CHECK(a.rows[0].benchmark == "BenchmarkMakeBuffer_Correct");
  CHECK(a.rows[0].lo <= a.rows[0].median);
  CHECK(a.rows[0].median <= a.rows[0].hi);
}
