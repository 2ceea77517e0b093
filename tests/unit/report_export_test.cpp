// report/export: every --format of the committed small result (tests/data/results/small, a real
// run; see tests/data/README.md) against golden files in tests/data/golden/export.*, and against
// the files the run itself wrote (table.md, summary.json, cv-summary.txt, <condition>.txt).
// NF_UPDATE_GOLDEN=1 rewrites the golden files (review the diff before committing).
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "model/errors.hpp"
#include "report/export.hpp"
#include "report/report_data.hpp"
#include "test_support.hpp"

using namespace noisefloor;
using nlohmann::json;

namespace {

using testing::kData;
using testing::kSmall;
using testing::load_small;
using testing::slurp;

report::ReportData small_data() {
  std::vector<report::ReportSource> sources;
  sources.push_back(load_small());
  return report::make_report_data(std::move(sources), false, "noisefloor test");
}

void check_golden(const std::string& got, const std::string& name) {
  const std::string path = kData + "/golden/" + name;
  if (std::getenv("NF_UPDATE_GOLDEN")) {
    std::ofstream(path, std::ios::binary) << got;
    MESSAGE("rewrote " << path);
  }
  CHECK(got == slurp(path));
}

}  // namespace

TEST_CASE("report export: the small result loads as 3 conditions x 2 benchmarks, 8 kept + 1 warm-up each") {
  const auto d = small_data();
  CHECK_FALSE(d.merged);
  CHECK(d.samples.size() == 54);
  CHECK(d.table.conditions == std::vector<std::string>{"idle", "noisy", "pinned"});
  REQUIRE(d.table.rows.size() == 6);
  for (const auto& r : d.table.rows) {
    CHECK(r.summary.n == 8);
    CHECK(r.warmup_discarded == 1);
  }
  CHECK(report::report_title(d) == "small");
  CHECK(report::report_date(d) == "2026-11-30T05:04:35Z");
  CHECK(report::host_line(d.fingerprint) ==
        "vm · AMD EPYC · 2 CPUs · Linux 6.18.44-fc-v669 x86_64 · Debian GNU/Linux 12 (bookworm)");
  CHECK(report::doctor_grade(d.fingerprint) == "not checked");
  CHECK(d.differences.empty());
  CHECK_FALSE(report::not_comparable(d));
}

TEST_CASE("report export: every format matches its golden file") {
  const auto d = small_data();
  check_golden(report::render_export(d, "markdown"), "export.markdown");
  check_golden(report::render_export(d, "csv"), "export.csv");
  check_golden(report::render_export(d, "json"), "export.json");
  check_golden(report::render_export(d, "gotest"), "export.gotest");
  check_golden(report::render_export(d, "summary"), "export.summary");
}

TEST_CASE("report export: one result reproduces the files its run wrote") {
  const auto d = small_data();
  CHECK(report::render_export(d, "markdown") == slurp(kSmall + "/table.md"));
  CHECK(report::render_export(d, "json") == slurp(kSmall + "/summary.json"));
  CHECK(report::render_export(d, "summary") == slurp(kSmall + "/cv-summary.txt"));
}

TEST_CASE("report export: gotest is one benchfmt stream, a block per condition, stale keys cleared") {
  const auto d = small_data();
  // idle sets no spinners/affinity/nice; noisy sets spinners; pinned sets affinity and nice but
  // must clear noisy's spinners (benchfmt: "key:" with no value deletes the key).
  const std::string expected = slurp(kSmall + "/idle.txt") + "\n" + slurp(kSmall + "/noisy.txt") +
                               "\nspinners:\n" + slurp(kSmall + "/pinned.txt");
  CHECK(report::render_export(d, "gotest") == expected);
}

TEST_CASE("report export: an unknown format is a config error that lists the formats") {
  const auto d = small_data();
  CHECK_THROWS_WITH_AS(report::render_export(d, "html"),
                       "--format: expected markdown, csv, json, gotest or summary, got \"html\"",
                       ConfigError);
}

TEST_CASE("report export: merged results keep colliding conditions apart and flag host differences") {
  std::vector<report::ReportSource> sources;
  sources.push_back(load_small("a"));
  sources.push_back(load_small("b"));
  sources[1].fingerprint["host"]["cpu"]["model_name"]["value"] = "Intel Xeon";
  sources[1].run["run_id"] = "R2";
  SUBCASE("not comparable without --allow-different-hosts") {
    const auto d = report::make_report_data(sources, false, "t");
    CHECK(d.merged);
    CHECK(d.table.conditions ==
          std::vector<std::string>{"a:idle", "a:noisy", "a:pinned", "b:idle", "b:noisy", "b:pinned"});
    REQUIRE(d.differences.size() >= 1);
    CHECK(d.differences[0].field == "host.cpu.model_name");
    CHECK(d.differences[0].a == "AMD EPYC");
    CHECK(d.differences[0].b == "Intel Xeon");
    CHECK(d.differences[0].moves_benchmarks);
    CHECK(d.difference_source[0] == 1);
    CHECK(report::not_comparable(d));
    CHECK(d.summary["sources"] == json::array({"a", "b"}));
    const std::string md = report::render_export(d, "markdown");
    CHECK(md.find("# small\n\n") == 0);
    CHECK(md.find(
              "- b: vm · AMD EPYC · 2 CPUs · Linux 6.18.44-fc-v669 x86_64 · Debian GNU/Linux 12 (bookworm) · "
              "run R2 · complete\n") != std::string::npos);
    CHECK(md.find("**Not comparable**") != std::string::npos);
    CHECK(md.find("| host.cpu.model_name | AMD EPYC | Intel Xeon | b | ⚠ yes |\n") != std::string::npos);
    const std::string go = report::render_export(d, "gotest");
    CHECK(go.find("condition: a:idle\n") != std::string::npos);
    CHECK(go.find("condition: b:pinned\n") != std::string::npos);
    CHECK(report::render_export(d, "summary").find("# CV comparison — merged by noisefloor report: a, b\n") ==
          0);
  }
  SUBCASE("allowed") {
    const auto d = report::make_report_data(sources, true, "t");
    CHECK_FALSE(report::not_comparable(d));
    CHECK(report::render_export(d, "markdown").find("Compared anyway (--allow-different-hosts).") !=
          std::string::npos);
  }
}

TEST_CASE("report export: paired entries and A/A checks become markdown tables") {
  std::vector<report::ReportSource> sources;
  sources.push_back(load_small());
  sources[0].summary["paired"] = json::array({json{{"condition", "idle"},
                                                   {"benchmark", "BenchmarkX"},
                                                   {"baseline", "old"},
                                                   {"variant", "new"},
                                                   {"label", "MEASURED-clean"},
                                                   {"ratios", {0.9, 0.95, 0.92}},
                                                   {"order", {"AB", "BA", "AB"}},
                                                   {"median", 0.92},
                                                   {"gm", 0.92322},
                                                   {"gm_ci", {0.9, 0.95}},
                                                   {"verdict", "faster"},
                                                   {"trustworthy", true},
                                                   {"aa", false}}});
  sources[0].summary["aa"] = json::array({json{{"condition", "idle"},
                                               {"benchmark", "BenchmarkX"},
                                               {"outcome", "PASS"},
                                               {"gm_ci", {0.99, 1.01}},
                                               {"median_ratio", 1.0},
                                               {"max_abs_dev", 0.012},
                                               {"halfwidth", 0.01},
                                               {"theta", 0.02}}});
  const auto d = report::make_report_data(std::move(sources), false, "t");
  const std::string md = report::render_export(d, "markdown");
  CHECK(
      md.find(
          "| idle | BenchmarkX | old | new | MEASURED-clean | 0.9232 | [0.9000, 0.9500] | 0.9200 | faster | "
          "yes |\n") != std::string::npos);
  CHECK(md.find("| idle | BenchmarkX | PASS | [0.9900, 1.0100] | 1.0000 | 0.0120 | 0.0200 |\n") !=
        std::string::npos);
  const json j = json::parse(report::render_export(d, "json"));
  CHECK(j["schema_version"] == 1);
  CHECK(j["paired"][0]["gm"] == 0.92322);
  CHECK(j["aa"][0]["outcome"] == "PASS");
}

TEST_CASE("report export: parse_gotest_config follows benchfmt's key rules") {
  const auto c = report::parse_gotest_config(
      "goos: linux\nKey: no\nhas space: no\nurl: http://x\nhttp://x\nempty:\ntab:\tv\n\nBenchmarkA 1 2 "
      "ns/op\nlate: no\n");
  CHECK(c == report::GoTestConfig{{"goos", "linux"}, {"url", "http://x"}, {"empty", ""}, {"tab", "v"}});
}

TEST_CASE("report export: make_report_data needs at least one result") {
  CHECK_THROWS_WITH_AS(report::make_report_data({}, false, "t"), "report: no results to report on", Error);
}
