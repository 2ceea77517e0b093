// Published tables (`reference:`): every accepted format read from a real file.
#include <doctest/doctest.h>

#include <string>

#include "model/errors.hpp"
#include "parsers/published.hpp"
#include "test_support.hpp"

using noisefloor::ParseError;
using noisefloor::model::PublishedRow;
using noisefloor::parsers::parse_published;

namespace {
std::string data(const std::string& relative) {
  return noisefloor::testing::slurp(noisefloor::testing::kData + "/" + relative);
}
}  // namespace

TEST_CASE("published: the demo's cv-summary.txt as the experiment replays it") {
  const auto t = parse_published(data("../../experiments/published/gophercon-uk-2026-cv-summary.txt"));
  CHECK(t.format == "cv-summary");
  CHECK(t.unit == "ns/op");
  REQUIRE(t.header.size() == 5);
  CHECK(t.header[1] == "# host: Darwin 25.5.0 arm64, 16 logical CPUs");
  REQUIRE(t.rows.size() == 3);
  CHECK(t.rows[0] ==
        PublishedRow{"idle", "BenchmarkMakeBuffer_Correct", 20, 11.4560, 0.5446, 4.75, {}, {}, {}});
  CHECK(t.rows[1] ==
        PublishedRow{"noisy", "BenchmarkMakeBuffer_Correct", 20, 34.97, 6.60, 18.88, {}, {}, {}});
  CHECK(t.rows[2] ==
        PublishedRow{"pinned", "BenchmarkMakeBuffer_Correct", 20, 16.28, 0.85, 5.25, {}, {}, {}});
}

TEST_CASE("published: noisefloor's own cv-summary.txt") {
  const auto t = parse_published(data("results/docker-0.1/cv-summary.txt"));
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[1] ==
        PublishedRow{"pinned", "BenchmarkMakeBuffer_Correct", 6, 24.9833, 6.7454, 27.00, {}, {}, {}});
}

TEST_CASE("published: the talk's markdown table, conditions as printed and no n") {
  const auto t = parse_published(data("published/gophercon-uk-2026.md"));
  CHECK(t.format == "markdown");
  CHECK(t.unit == "ns/op");
  REQUIRE(t.rows.size() == 3);
  CHECK(t.rows[1] == PublishedRow{"noisy (16 spinners)", "", {}, 34.97, 6.60, 18.88, {}, {}, {}});
  CHECK(t.rows[2].condition == "pinned container, same spinners");
}

TEST_CASE("published: noisefloor's markdown export (median ± CI cell, min, max)") {
  const auto t = parse_published(data("published/noisefloor-table.md"));
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[0] ==
        PublishedRow{"idle", "BenchmarkMakeBuffer_Correct-2", 6, 27.02, 10.23, 37.87, 24.92, 17.49, 43.22});
}

TEST_CASE("published: a noisefloor summary.json") {
  const auto t = parse_published(data("results/docker-0.1/summary.json"));
  CHECK(t.format == "summary.json");
  CHECK(t.unit == "ns/op");
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[0].condition == "idle");
  CHECK(t.rows[0].n == 6);
  REQUIRE(t.rows[0].cv_pct);
  CHECK(*t.rows[0].cv_pct == doctest::Approx(37.87).epsilon(1e-3));
}

TEST_CASE("published: what is not a table says so, with the line") {
  CHECK_THROWS_WITH_AS(parse_published("hello\n"),
                       "not a published table noisefloor reads: expected a cv-summary.txt (`## <condition>` "
                       "blocks), a markdown table or a summary.json",
                       ParseError);
  CHECK_THROWS_WITH_AS(parse_published("## idle\nBenchmarkX 20 11.5 0.5\n"),
                       "line 2: expected `<benchmark> <runs> <mean> <stddev> <CV%>`, got 4 fields",
                       ParseError);
  CHECK_THROWS_WITH_AS(
      parse_published("## idle\nBenchmarkX 20 fast 0.5 4\n"),
      "line 2: `BenchmarkX 20 fast 0.5 4`: runs, mean, stddev and CV% must be numbers (runs a whole one)",
      ParseError);
  CHECK_THROWS_WITH_AS(
      parse_published("## idle\nBenchmarkX 1e30 11.5 0.5 4\n"),
      "line 2: `BenchmarkX 1e30 11.5 0.5 4`: runs, mean, stddev and CV% must be numbers (runs a whole one)",
      ParseError);
  // Found by the claims fuzz target: an n far beyond int.
  CHECK_THROWS_WITH_AS(parse_published("| condition | n | mean |\n|---|---|---|\n| idle | 4.4e20 | 3 |\n"),
                       "line 3: n: expected a whole number of samples, got 4.4e+20", ParseError);
  CHECK_THROWS_WITH_AS(parse_published("{\"table\": {}}"), "not a noisefloor summary.json: no table.rows",
                       ParseError);
  CHECK_THROWS_WITH_AS(parse_published("| a | b |\n|---|---|\n| 1 | 2 |\n"),
                       "no markdown table with a condition column and a mean or CV column", ParseError);
}

TEST_CASE(
    "published: a markdown table under a heading is markdown; nan is not a figure; a wrong JSON type is a "
    "parse error") {
  const auto t = parse_published(
      "## Results\n\nAs published:\n\n| condition | mean ns/op |\n|---|---|\n| idle | 3.5 |\n");
  CHECK(t.format == "markdown");
  REQUIRE(t.rows.size() == 1);
  CHECK(t.rows[0].mean == 3.5);
  CHECK_THROWS_WITH_AS(
      parse_published("## idle\nBenchmarkX 20 nan 0.5 4\n"),
      "line 2: `BenchmarkX 20 nan 0.5 4`: runs, mean, stddev and CV% must be numbers (runs a whole one)",
      ParseError);
  CHECK_THROWS_AS(parse_published(R"({"table": {"rows": [{"condition": 1, "summary": {}}]}})"), ParseError);
}
