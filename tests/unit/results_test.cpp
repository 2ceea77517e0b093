// results/: decoding result files (what results::load reads); the summary.json document (render/json.hpp).
#include <doctest/doctest.h>

#include "analysis/analysis.hpp"
#include "model/errors.hpp"
#include "render/json.hpp"
#include "render/warnings.hpp"
#include "results/decode.hpp"
#include "test_support.hpp"

using namespace noisefloor;
using nlohmann::json;
using testing::kData;
using testing::load_result;
using testing::slurp;

namespace {

const std::string kLine =
    R"({"condition":"idle","benchmark":"BenchmarkX","name":"BenchmarkX","metrics":[{"value":1.5,"unit":"ns/op"}]})";

}  // namespace

TEST_CASE("results: samples.jsonl, a torn last line is a warning, a bad line before it an error") {
  results::ResultFiles f;
  f.source = "/r/exp/run1";
  f.samples_jsonl = kLine + "\n" + kLine + "\n" + R"({"condition":"idle","bench)";
  const auto r = results::decode_result(f);
  CHECK(r.samples.size() == 2);
  CHECK(r.warnings == std::vector<records::RunWarning>{{.kind = records::RunWarningKind::torn_last_line,
                                                        .file = "/r/exp/run1/samples.jsonl",
                                                        .line = 3}});
  CHECK(render::run_warning_text(r.warnings.front()) ==
        "/r/exp/run1/samples.jsonl:3: ignored a torn last line");
  CHECK(r.conditions == std::vector<std::string>{"idle"});
  CHECK(r.label == "run1");
  CHECK_FALSE(r.run.has_value());

  f.samples_jsonl = kLine + "\n{oops\n" + kLine + "\n";
  CHECK_THROWS_WITH_AS(
      results::decode_result(f),
      "/r/exp/run1/samples.jsonl:2:2: invalid JSON: invalid literal; last read: '{o'; expected string "
      "literal (a damaged line: restore the file, or delete the line to read the rest)",
      InputError);
}

TEST_CASE("results: a newer run.json says to upgrade, naming the file") {
  results::ResultFiles f;
  f.source = "/r/exp/run1";
  f.samples_jsonl = kLine + "\n";
  f.run_json = R"({"schema_version": 2})";
  CHECK_THROWS_WITH_AS(
      results::decode_result(f),
      "/r/exp/run1/run.json: schema_version 2 is newer than this noisefloor reads (1): upgrade "
      "noisefloor",
      InputError);
}

TEST_CASE("results: what 0.1 kept only in summary.json is read from there") {
  const auto small = testing::load_small();
  REQUIRE(small.run);
  CHECK(small.run->experiment_file == "small.yaml");
  CHECK(small.description().rfind("BenchmarkMakeBuffer_Correct and", 0) == 0);
  CHECK_FALSE(small.comparison().has_value());
  const auto paired = load_result(kData + "/results/paired-0.1");
  REQUIRE(paired.comparison().has_value());
  CHECK(*paired.comparison() == records::ComparisonSettings{"once", true, 0.01, false});
  CHECK(paired.conditions == std::vector<std::string>{"clean", "busy"});
  CHECK(paired.gotest_config.at("busy").at(4) == std::pair<std::string, std::string>{"condition", "busy"});
  CHECK(paired.label == "paired-0.1");  // the directory's name, not the run id it holds
  CHECK(paired.run->run_id == "20261130T171607Z");
}

TEST_CASE("results: a go test file is one condition named after it") {
  const auto r =
      results::decode_gotest_file("/x/old.txt", slurp(kData + "/gotest/makebuffer_benchmem_count3.txt"));
  CHECK(r.go_test_file);
  CHECK(r.label == "old");
  CHECK(r.source == "/x/old.txt");
  CHECK(r.conditions == std::vector<std::string>{"old"});
  CHECK(r.samples.size() == 6);
  CHECK(r.samples[1].index == 1);
  CHECK(r.fingerprint.gotest.at("goos") == "linux");
  CHECK(r.gotest_config.at("old").front() == std::pair<std::string, std::string>{"goos", "linux"});
  CHECK_THROWS_WITH_AS(results::decode_gotest_file("/x/empty.txt", "PASS\n"),
                       "/x/empty.txt: no benchmark result lines (expected `go test -bench` output)",
                       InputError);
}

TEST_CASE("results: summary.json is rebuilt from the samples for 0.1 results, with the deliberate changes") {
  // The same numbers from the same samples: what 0.1 computed when it ran, and what this version
  // computes when it reads the result, agree on every field but these deliberate changes: a row
  // carries its full name (rows are keyed by it), a paired baseline's row holds one sample per
  // repeat (its first pair), not its A/A role as well, the median's interval is benchstat's
  // (with_benchstat_median_ci), the other metrics of a line are rows of their own
  // ("other_metrics"), and a paired row says its unit and which way the value moved ("unit",
  // "change"). The finished time aside, which 0.1 took a moment later for summary.json than for
  // run.json.
  for (const char* name : {"small", "paired-0.1", "docker-0.1"}) {
    CAPTURE(name);
    const std::string dir = kData + "/results/" + name;
    json expected = json::parse(slurp(dir + "/summary.json"));
    const auto result = load_result(dir);
    json got = render::summary_document(analysis::analyze({result}));
    expected["run"].erase("finished_utc");
    got["run"].erase("finished_utc");
    for (auto& row : got["table"]["rows"]) row.erase("name");
    REQUIRE(got["table"]["rows"].size() == expected["table"]["rows"].size());
    for (std::size_t i = 0; i < got["table"]["rows"].size(); ++i) {
      const json& g = got["table"]["rows"][i];
      const json e = testing::with_benchstat_median_ci(expected["table"]["rows"][i]);
      CAPTURE(i);
      if (g.value("variant", "") == "once") {
        // The baseline: 0.1 pooled its pair with "thrice" and its A/A role (12 values, which gave
        // it a negative lag-1 autocorrelation); now only the first pair's 6.
        std::vector<double> first_pair;
        for (const auto& s : result.samples)
          if (s.condition == g["condition"] && s.variant == "once" && s.pair == "thrice" && !s.warmup)
            first_pair.push_back(s.metrics.front().value);
        CHECK(g["values"] == json(first_pair));
        CHECK(e["values"].size() == 12);
        continue;
      }
      CHECK(g == e);
    }
    for (auto& p : got["paired"]) {
      CHECK(p.at("change") == (p.at("verdict") == "slower"   ? "higher"
                               : p.at("verdict") == "faster" ? "lower"
                                                             : p.at("verdict")));
      p.erase("change");
      p.erase("unit");
    }
    CHECK(got["paired"] == expected["paired"]);
    CHECK(got["aa"] == expected["aa"]);
    CHECK(got["experiment"] == expected["experiment"]);
  }
}

TEST_CASE("results: cv --format json and summary.json hold the same table") {
  for (const char* name : {"small", "paired-0.1", "docker-0.1"}) {
    CAPTURE(name);
    const auto a = analysis::analyze({load_result(kData + "/results/" + name)});
    const json cv = json::parse(render::cv_json(a, {name}));
    CHECK(cv["table"] == render::summary_document(a)["table"]);
    CHECK(cv["comparable"] == true);
    CHECK_FALSE(cv.contains("differences"));
    CHECK(cv["sources"] == json::array({name}));
  }
}

TEST_CASE("results: a go test file's summary makes up no run or experiment") {
  const auto r =
      results::decode_gotest_file("/x/old.txt", slurp(kData + "/gotest/makebuffer_benchmem_count3.txt"));
  const json j = render::summary_document(analysis::analyze({r}));
  CHECK_FALSE(j.contains("run"));
  CHECK_FALSE(j.contains("experiment"));
  CHECK(j["table"]["rows"].size() == 2);
}
