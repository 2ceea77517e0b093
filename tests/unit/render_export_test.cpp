// render/export: every --format of the committed small result (tests/data/results/small, a real
// run of 0.1; see tests/data/README.md) against golden files in tests/data/golden/export.*
// (whose numbers tests/golden/verify.py recomputes independently), and against the files the run
// itself wrote (table.md, summary.json, cv-summary.txt, <condition>.txt).
#include <doctest/doctest.h>

#include <map>
#include <set>

#include "analysis/analysis.hpp"
#include "model/errors.hpp"
#include "parsers/gotest.hpp"
#include "render/export.hpp"
#include "render/fleet.hpp"
#include "render/json.hpp"
#include "render/run.hpp"
#include "render/table.hpp"
#include "test_support.hpp"
#include "text/text.hpp"

using namespace noisefloor;
using nlohmann::json;

namespace {

using testing::kData;
using testing::kSmall;
using testing::load_small;
using testing::slurp;

using testing::check_golden;

analysis::Analysis small_data() { return analysis::analyze({load_small()}); }

}  // namespace

TEST_CASE("render export: the small result loads as 3 conditions x 2 benchmarks, 8 kept + 1 warm-up each") {
  const auto d = small_data();
  CHECK_FALSE(d.merged);
  CHECK(d.samples.size() == 54);
  CHECK(d.table.conditions == std::vector<std::string>{"idle", "noisy", "pinned"});
  REQUIRE(d.table.rows.size() == 6);
  for (const auto& r : d.table.rows) {
    CHECK(r.summary.n == 8);
    CHECK(r.warmup_discarded == 1);
  }
  CHECK(d.title() == "small");
  const records::Result& r = d.sources.front();
  REQUIRE(r.run);
  CHECK(r.run->started_utc == "2026-11-30T05:04:35Z");
  CHECK(r.fingerprint.host_line() ==
        "vm · AMD EPYC · 2 CPUs · Linux 6.18.44-fc-v669 x86_64 · Debian GNU/Linux 12 (bookworm)");
  CHECK_FALSE(r.fingerprint.doctor.has_value());
  // 0.1 kept the description and the file name in summary.json only: the loader reads them there.
  CHECK(r.description().find("BenchmarkMakeBuffer_Correct and BenchmarkMakeBuffer_DCE") == 0);
  CHECK(r.run->experiment_file == "small.yaml");
  CHECK(d.differences.empty());
  CHECK(d.comparable());
}

TEST_CASE("render export: every format matches its golden file") {
  const auto d = small_data();
  check_golden("export.markdown", render::export_as(d, model::PrintFormat::markdown));
  check_golden("export.csv", render::export_as(d, model::PrintFormat::csv));
  check_golden("export.json", render::export_as(d, model::PrintFormat::json));
  check_golden("export.gotest", render::export_as(d, model::PrintFormat::gotest));
  check_golden("export.summary", render::export_as(d, model::PrintFormat::summary));
}

TEST_CASE("render export: one result reproduces the numbers its run wrote") {
  const auto d = small_data();
  // The demo's format, byte for byte; summary.json's numbers field by field (0.1 wrote neither a
  // row's full name nor the wording of today's notes).
  CHECK(render::export_as(d, model::PrintFormat::summary) == slurp(kSmall + "/cv-summary.txt"));
  const json got = json::parse(render::export_as(d, model::PrintFormat::json));
  const json old = json::parse(slurp(kSmall + "/summary.json"));
  REQUIRE(got["table"]["rows"].size() == old["table"]["rows"].size());
  for (std::size_t i = 0; i < old["table"]["rows"].size(); ++i) {
    json row = got["table"]["rows"][i];
    row.erase("name");
    CHECK(row == testing::with_benchstat_median_ci(old["table"]["rows"][i]));
  }
}

TEST_CASE("render export: gotest is one benchfmt stream benchstat -col condition reads as one table") {
  const auto d = small_data();
  const std::string out = render::export_as(d, model::PrintFormat::gotest);
  // benchstat splits tables on every file-level key that differs (.config): `condition` must be
  // the only key whose value changes; what sets a condition apart is a comment.
  std::map<std::string, std::set<std::string>> values;
  std::vector<std::string> conditions;
  for (const auto line : text::lines(out)) {
    if (line.empty() || line.front() == '#' || line.starts_with("Benchmark")) continue;
    const auto colon = line.find(": ");
    REQUIRE_MESSAGE(colon != std::string_view::npos, "not a config line: " << line);
    const std::string key(line.substr(0, colon));
    values[key].insert(std::string(line.substr(colon + 2)));
    if (key == "condition") conditions.emplace_back(line.substr(colon + 2));
  }
  for (const auto& entry : values)  // not a structured binding: clang 14 cannot capture one
    if (entry.first != "condition")
      CHECK_MESSAGE(entry.second.size() == 1, entry.first << " differs between conditions");
  CHECK(conditions == std::vector<std::string>{"idle", "noisy", "pinned"});
  CHECK(out.starts_with(
      "# The conditions side by side: benchstat -col condition FILE\n"
      "# GOMAXPROCS differs between conditions (1, 2): the rows differ by their -N suffix; one row "
      "each: benchstat -col condition -ignore /gomaxprocs FILE (then compare CVs, not means)\n"
      "noisefloor-version: 0.1.0\n"));
  CHECK(
      out.find("\n# condition noisy:\n#   spinners: 1\ncondition: noisy\nBenchmarkMakeBuffer_Correct-2\t") !=
      std::string::npos);
  CHECK(out.find("\n# condition pinned:\n#   affinity: 0\n#   nice: 5\ncondition: pinned\n") !=
        std::string::npos);
  // Every kept sample once, in the stream.
  std::size_t results = 0;
  for (const auto line : text::lines(out)) results += line.starts_with("Benchmark");
  std::size_t kept = 0;
  for (const auto& s : d.samples) kept += !s.warmup;
  CHECK(results == kept);
}

TEST_CASE("render export: a raw condition file comments what sets the condition apart, and reads back") {
  const std::vector<std::pair<std::string, std::string>> config = {
      {"experiment", "x"}, {"condition", "noisy"}, {"spinners", "2"}};
  const std::string raw = render::gotest_raw({}, "noisy", config, false, {"condition", "spinners"});
  CHECK(raw == "experiment: x\n# condition: noisy\n# spinners: 2\n");
  CHECK(parsers::config_lines(raw) == config);
}

TEST_CASE("render export: text is not an export") {
  const auto d = small_data();
  CHECK_THROWS_WITH_AS(render::export_as(d, model::PrintFormat::text),
                       "--format: text is not an export format", ConfigError);
}

TEST_CASE("render export: merged results keep colliding conditions apart and flag host differences") {
  std::vector<records::Result> sources;
  sources.push_back(load_small());
  sources.push_back(load_small());
  sources[0].label = "a";
  sources[1].label = "b";
  nlohmann::json host = sources[1].fingerprint.host.document();
  host["cpu"]["model_name"]["value"] = "Intel Xeon";
  sources[1].fingerprint.host = fingerprint::FactTree(host);
  sources[1].run->run_id = "R2";
  SUBCASE("not comparable without --allow-different-hosts") {
    const auto d = analysis::analyze(sources, false);
    CHECK(d.merged);
    CHECK(d.table.conditions ==
          std::vector<std::string>{"a:idle", "a:noisy", "a:pinned", "b:idle", "b:noisy", "b:pinned"});
    REQUIRE(d.differences.size() >= 1);
    CHECK(d.differences[0].field == "host.cpu.model_name");
    CHECK(d.differences[0].a == "AMD EPYC");
    CHECK(d.differences[0].b == "Intel Xeon");
    CHECK(d.differences[0].moves_benchmarks);
    CHECK(d.difference_source[0] == 1);
    CHECK_FALSE(d.comparable());
    CHECK(json::parse(render::export_as(d, model::PrintFormat::json))["sources"] == json::array({"a", "b"}));
    const std::string md = render::export_as(d, model::PrintFormat::markdown);
    CHECK(md.find("# small\n\n") == 0);
    CHECK(md.find(
              "- b: vm · AMD EPYC · 2 CPUs · Linux 6.18.44-fc-v669 x86_64 · Debian GNU/Linux 12 (bookworm) · "
              "run R2 · complete\n") != std::string::npos);
    CHECK(md.find("**Not comparable**") != std::string::npos);
    CHECK(md.find("| host.cpu.model_name | AMD EPYC | Intel Xeon | b | ⚠ yes |\n") != std::string::npos);
    const std::string go = render::export_as(d, model::PrintFormat::gotest);
    CHECK(go.find("condition: a:idle\n") != std::string::npos);
    CHECK(go.find("condition: b:pinned\n") != std::string::npos);
    CHECK(render::export_as(d, model::PrintFormat::summary)
              .find("# CV comparison — merged by noisefloor report: a, b\n") == 0);
  }
  SUBCASE("allowed") {
    const auto d = analysis::analyze(sources, true);
    CHECK(d.comparable());
    CHECK(render::export_as(d, model::PrintFormat::markdown)
              .find("Compared anyway (--allow-different-hosts).") != std::string::npos);
  }
}

TEST_CASE("render export: paired comparisons and A/A checks, recomputed from the samples") {
  // V6 (a variant 2.7% faster) and V7 (an A/A pair that passes), as samples of one condition.
  const std::vector<double> b6 = {100, 102, 98, 105, 101, 99, 103, 100},
                            v6 = {97, 99, 96, 101, 98, 97, 100, 98};
  const std::vector<double> b7 = {100.0, 101.0, 99.5, 100.5, 100.2, 99.8, 100.9, 100.1, 99.7, 100.4};
  const std::vector<double> a7 = {100.3, 100.6, 99.9, 100.2, 100.5, 99.6, 101.1, 99.8, 100.0, 100.6};
  records::Result r;
  r.label = "p";
  r.conditions = {"idle"};
  records::RunRecord run;
  run.experiment = "paired";
  run.comparison = records::ComparisonSettings{"old", true, 0.01, false};
  r.run = run;
  std::vector<records::Sample> samples;
  testing::add_pair(samples, "idle", "new", "new", b6, v6, "old", "BenchmarkX");
  testing::add_pair(samples, "idle", "A/A", "old'", b7, a7, "old", "BenchmarkX");
  r.samples = samples;
  const auto d = analysis::analyze({r});
  const std::string md = render::export_as(d, model::PrintFormat::markdown);
  // Nothing about the room was recorded (no condition record, no fingerprint): UNKNOWN, as in
  // `compare`, never a made-up MEASURED-clean.
  CHECK(md.find("| idle | BenchmarkX | old | new | UNKNOWN | 0.9729 | [0.9675, 0.9782] | 0.9707 | faster | "
                "yes |\n") != std::string::npos);
  CHECK(md.find("| idle | BenchmarkX | PASS | [0.9983, 1.0027] | 1.0020 | 0.0040 | 0.0100 |\n") !=
        std::string::npos);
  const json j = json::parse(render::export_as(d, model::PrintFormat::json));
  CHECK(j["schema_version"] == 1);
  CHECK(j["paired"][0]["gm"].get<double>() == doctest::Approx(0.972863164938934).epsilon(1e-12));
  CHECK(j["aa"][0]["outcome"] == "PASS");
  CHECK(j["comparison"] == json{{"baseline", "old"}, {"aa", true}, {"threshold", 0.01}});
}

TEST_CASE("render export: config_lines follows benchfmt's key rules") {
  const auto c = parsers::config_lines(
      "goos: linux\nKey: no\nhas space: no\nurl: http://x\nhttp://x\nempty:\ntab:\tv\n\nBenchmarkA 1 2 "
      "ns/op\nlate: no\n");
  CHECK(c == records::GoTestConfig{{"goos", "linux"}, {"url", "http://x"}, {"empty", ""}, {"tab", "v"}});
}

TEST_CASE("render export: analyze needs at least one result") {
  CHECK_THROWS_WITH_AS(analysis::analyze({}, false), "no results to analyze", Error);
}

TEST_CASE(
    "render fleet: hosts side by side, each host's own median and CV, containers marked, failures said") {
  using noisefloor::render::HostColumn;
  const auto a = noisefloor::analysis::analyze({noisefloor::testing::load_small()});
  // host "box" ran the same samples with pinned in a container; host "gone" measured nothing.
  using noisefloor::records::RunStatus;
  const std::vector<HostColumn> hosts = {
      {"laptop", RunStatus::complete, std::nullopt, &a, {}},
      {"box", RunStatus::complete, std::nullopt, &a, {"pinned"}},
      {"gone", RunStatus::failed, "cannot reach the Docker engine", nullptr, {}}};
  const std::string md = noisefloor::render::hosts_side_by_side(hosts, false);
  // medians and CVs computed independently (python statistics) from tests/data/results/small
  CHECK(md.find("| condition | laptop | box | gone |\n|---|---|---|---|\n") == 0);
  CHECK(md.find("| idle · BenchmarkMakeBuffer_Correct-2 | 34.41 ns/op 35.3% | 34.41 ns/op 35.3% | — |\n") !=
        std::string::npos);
  CHECK(md.find("| pinned · BenchmarkMakeBuffer_DCE | 18.11 ns/op 9.7% | 18.11 ns/op 9.7% † | — |\n") !=
        std::string::npos);
  CHECK(md.find(
            "each host: median and CV of its own samples (never pooled across hosts); † ran as containers on "
            "that host\ngone: failed: cannot reach the Docker engine\n") != std::string::npos);
  const std::string text = noisefloor::render::hosts_side_by_side(hosts, true);
  // columns padded to their widest cell ("noisy · BenchmarkMakeBuffer_Correct-2": 37) plus two spaces
  CHECK(text.find("condition" + std::string(30, ' ') + "laptop" + std::string(14, ' ') + "box" +
                  std::string(19, ' ') + "gone\n") == 0);
  CHECK(text.find("\npinned · BenchmarkMakeBuffer_DCE       18.11 ns/op 9.7%    18.11 ns/op 9.7% †    —\n") !=
        std::string::npos);
  // differences: only the fields that move benchmarks, image ids never
  const std::vector<noisefloor::analysis::Difference> d = {
      {"host.cpu.model_name", "A", "B", true},
      {"host.hostname", "x", "y", false},
      {"engine.images.idle.id", "(absent)", "sha256:1", true}};
  CHECK(noisefloor::render::host_differences({"laptop", "box"}, {d}, false) ==
        "hosts differ in:\n  host.cpu.model_name: laptop A · box B\n");
  CHECK(noisefloor::render::host_differences({"laptop", "box"}, {{}}, false).empty());
}

TEST_CASE("render export: a result's host line is one escaped markdown cell in table.md and the export") {
  // Issue 42, item 6: a lying engine's or a forged result's facts reached table.md raw (a tag, a
  // table's pipe, a line of its own, OSC 52 that writes a terminal's clipboard when the file is shown).
  std::vector<records::Result> sources{load_small()};
  nlohmann::json host = sources[0].fingerprint.host.document();
  host["one_line"]["value"] = "<script>x</script> | vm\n# forged \x1b]52;c;Zm9v\x07 \x9b";
  sources[0].fingerprint.host = fingerprint::FactTree(host);
  const auto d = analysis::analyze(sources, false);
  const std::string cell =
      "\\<script\\>x\\</script\\> \\| vm # forged \\\\x1b]52;c;Zm9v\\\\x07 \\\\x9b · run 20261130T050436Z · "
      "complete";
  const std::string md = render::table_md(d);
  CHECK(md.find("\n\n" + cell + "\n\n") != std::string::npos);
  CHECK(md.find('\x1b') == std::string::npos);
  CHECK(md.find("\n# forged") == std::string::npos);
  const std::string exported = render::export_as(d, model::PrintFormat::markdown);
  CHECK(exported.find(cell) != std::string::npos);
  CHECK(exported.find('\x1b') == std::string::npos);
}
