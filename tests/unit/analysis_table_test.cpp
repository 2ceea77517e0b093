#include <doctest/doctest.h>
#include <fmt/format.h>

#include "analysis/suite.hpp"
#include "analysis/table.hpp"
#include "parsers/gotest.hpp"
#include "render/table.hpp"
#include "test_support.hpp"
#include "text/text.hpp"

using namespace noisefloor;

namespace {

using testing::slurp;

void add(std::vector<records::Sample>& out, const std::string& condition, const std::string& file) {
  const auto parsed = parsers::parse_gotest(slurp(std::string(NF_TEST_DATA_DIR) + "/gotest/" + file));
  int i = 0;
  for (const auto& m : parsed.measurements) {
    records::Sample s = records::sample_of(condition, m);
    s.index = i++;
    out.push_back(s);
  }
}

}  // namespace

TEST_CASE("report: cv --format summary is byte-compatible with the demo's cv-summary blocks") {
  std::vector<records::Sample> samples;
  add(samples, "old", "makebuffer_benchmem_count3.txt");
  add(samples, "new", "makebuffer_cpu_1_2.txt");
  const auto table = analysis::build_table(samples, {"old", "new"});
  const std::string got = render::summary_blocks(table, {"# CV comparison — golden test", "# host: test"});
  CHECK(got == slurp(std::string(NF_TEST_DATA_DIR) + "/golden/cv-summary.txt"));
}

TEST_CASE("report: warm-up samples are excluded and counted; n<2 shows a dash, never 0") {
  std::vector<records::Sample> samples;
  auto mk = [](std::string cond, double v, bool warm) {
    records::Sample s;
    s.condition = std::move(cond);
    s.benchmark = s.name = "BenchmarkA";
    s.metrics = {{v, "ns/op"}};
    s.warmup = warm;
    return s;
  };
  samples.push_back(mk("a", 100, true));
  samples.push_back(mk("a", 10, false));
  samples.push_back(mk("a", 12, false));
  samples.push_back(mk("b", 7, false));
  const auto t = analysis::build_table(samples, {"a", "b"});
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[0].warmup_discarded == 1);
  CHECK(t.rows[0].values == std::vector<double>{10, 12});
  CHECK(t.rows[0].summary.mean == 11);
  CHECK(t.rows[1].summary.n == 1);
  CHECK_FALSE(t.rows[1].summary.cv_pct.has_value());
  const std::string md = render::table_markdown(t);
  CHECK(md.find("| b         | BenchmarkA |   1 |      7.000 |      — |     — |") != std::string::npos);
  CHECK(md.find("- b / BenchmarkA: n=1 < 2: no stddev, CV or mean CI") != std::string::npos);
  // The demo's summary skips a benchmark with fewer than 2 samples.
  const std::string summary = render::summary_blocks(t, {});
  CHECK(summary.find("## b\nbenchmark") != std::string::npos);
  CHECK(summary.find("BenchmarkA                                          1") == std::string::npos);
  const std::string csv = render::table_csv(t);
  CHECK(csv.find("b,BenchmarkA,ns/op,1,7,,,7,") != std::string::npos);
}

TEST_CASE("report: raw files are Go benchmark format with key: value headers") {
  records::Sample s;
  s.condition = "idle";
  s.benchmark = "BenchmarkA";
  s.name = "BenchmarkA-2";
  s.iterations = 1000;
  s.metrics = {{11.5, "ns/op"}, {64, "B/op"}};
  const std::string raw = render::gotest_raw(std::vector<records::Sample>{s}, "idle",
                                             {{"condition", "idle"}, {"cpu", "AMD\nEPYC"}});
  CHECK(raw == "condition: idle\ncpu: AMD EPYC\nBenchmarkA-2\t1000\t11.5 ns/op\t64 B/op\n");
  // and our own parser reads it back
  const auto back = parsers::parse_gotest(raw);
  REQUIRE(back.measurements.size() == 1);
  CHECK(back.measurements[0].metrics == s.metrics);
  CHECK(back.config.at("condition") == "idle");
}

TEST_CASE("report: values keep 4 significant figures") {
  CHECK(text::format_value(11.456) == "11.46");
  CHECK(text::format_value(1.23456) == "1.235");
  CHECK(text::format_value(123.456) == "123.5");
  CHECK(text::format_value(123456.7) == "123457");
  CHECK(text::format_value(0.012346) == "0.01235");
}

TEST_CASE("report: the terminal table stays within 80 columns") {
  std::vector<records::Sample> samples;
  add(samples, "idle-host-condition", "makebuffer_benchmem_count3.txt");
  add(samples, "noisy", "makebuffer_cpu_1_2.txt");
  std::string text = render::table_text(analysis::build_table(samples, {}));
  // Three benchmarks (MakeBuffer_Correct at GOMAXPROCS 1 and 2, MakeBuffer_DCE) in two conditions:
  // the suite view, a line per benchmark, the conditions side by side, the values scaled.
  // Without the CV column every name sits beside its numbers (the band says the CV's range): as
  // many conditions side by side in fewer lines than with it, where two names would take a line
  // of their own.
  CAPTURE(text);
  CHECK(text.find("sec/op              procs │ median ± CI  band  │ median ± CI  band       │\n") !=
        std::string::npos);
  CHECK(text.find("\nMakeBuffer_Correct      1                         18.13n ± ∞  noisy\n") !=
        std::string::npos);
  CHECK(text.find("\nMakeBuffer_Correct      2    20.63n ± ∞  noisy    20.11n ± ∞  acceptable\n") !=
        std::string::npos);
  CHECK(text.find("\nMakeBuffer_DCE          2    19.71n ± ∞  noisy\n") != std::string::npos);
  CHECK(text.find("64.00 B/op, 1.000 allocs/op: in every sample of every benchmark and condition") !=
        std::string::npos);
  // One benchmark in two conditions, at GOMAXPROCS 2 in one and 1 in the other: one block, each
  // row saying its count.
  std::vector<records::Sample> pinned;
  for (const records::Sample& s : samples) {
    if (s.benchmark != "BenchmarkMakeBuffer_Correct") continue;
    if (s.condition == "noisy" && s.procs == 2) continue;
    pinned.push_back(s);
  }
  const std::string blocks = render::table_text(analysis::build_table(pinned, {}));
  CHECK(blocks.find("MakeBuffer_Correct (ns/op)\ncondition") != std::string::npos);
  CHECK(blocks.find("\nnoisy (1)  ") != std::string::npos);
  CAPTURE(blocks);
  CHECK(blocks.find("\nidle-host-co… (2)    3") != std::string::npos);
  text += blocks;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto nl = text.find('\n', start);
    const std::string line = text.substr(start, nl - start);
    std::size_t cols = 0;
    for (unsigned char c : line) cols += (c & 0xC0) != 0x80;
    CAPTURE(line);
    CHECK(cols <= 80);
    start = nl == std::string::npos ? text.size() : nl + 1;
  }
}

TEST_CASE("report: a zero median with a CI shows the interval, not '± ∞ (n<6)'; all zeros are ± 0%") {
  // Twenty samples of 0 allocs/op: no spread at all, said as benchstat says it (0.000 ± 0%).
  std::vector<records::Sample> samples;
  for (int i = 0; i < 20; ++i) {
    records::Sample s;
    s.condition = "c";
    s.benchmark = s.name = "BenchmarkNoAlloc";
    s.metrics = {{0, "allocs/op"}};
    samples.push_back(s);
  }
  std::string md = render::table_markdown(analysis::build_table(samples, {"c"}));
  CHECK(md.find(" 0 ± 0.0% |") != std::string::npos);
  CHECK(md.find("(n<6)") == std::string::npos);
  // A zero median with a spread above it has no relative width: the interval itself is shown.
  for (int i = 0; i < 8; ++i) samples[static_cast<std::size_t>(i)].metrics = {{1, "allocs/op"}};
  md = render::table_markdown(analysis::build_table(samples, {"c"}));
  CHECK(md.find("0 [0, 1.000]") != std::string::npos);
  CHECK(md.find("(n<6)") == std::string::npos);
}

TEST_CASE("raw files: every name is a valid Go benchmark name, and the file reads back") {
  using render::go_benchmark_name;
  CHECK(go_benchmark_name("BenchmarkMakeBuffer_Correct-2") == "BenchmarkMakeBuffer_Correct-2");
  CHECK(go_benchmark_name("Benchmark") == "Benchmark");
  CHECK(go_benchmark_name("Benchmark/sub=1") == "Benchmark/sub=1");
  CHECK(go_benchmark_name("tiny") == "BenchmarkTiny");
  CHECK(go_benchmark_name("Benchmarker") == "BenchmarkBenchmarker");  // "Benchmark" + lower case is not one
  CHECK(go_benchmark_name("BM_Sort/8") == "BenchmarkBM_Sort/8");
  CHECK(go_benchmark_name("my bench") == "BenchmarkMy_bench");
  CHECK(go_benchmark_name("9lives") == "Benchmark9lives");
  // A command's samples (sec/op and its CPU figures) as a raw file, parsed back by the go test parser.
  records::Samples samples;
  for (double v : {0.0121, 0.0123, 0.0120}) {
    records::Sample s;
    s.condition = "idle";
    s.benchmark = s.name = "tiny";
    s.iterations = 1;
    s.metrics = {{v, "sec/op"}, {v / 6, "cpu-sec/op"}};
    samples.push_back(s);
  }
  const std::string raw =
      render::gotest_raw(samples, "idle", {{"host", "vm"}, {"condition", "idle"}}, false, {"condition"});
  CHECK(raw ==
        "host: vm\n# condition: idle\nBenchmarkTiny\t1\t0.0121 sec/op\t0.0020166666666666666 cpu-sec/op\n"
        "BenchmarkTiny\t1\t0.0123 sec/op\t0.00205 cpu-sec/op\n"
        "BenchmarkTiny\t1\t0.012 sec/op\t0.002 cpu-sec/op\n");
  const auto parsed = parsers::parse_gotest(raw);
  REQUIRE(parsed.measurements.size() == 3);
  CHECK(parsed.measurements[0].name == "BenchmarkTiny");
  CHECK(parsed.measurements[2].metrics[0].value == 0.012);
  CHECK(parsed.measurements[2].metrics[0].unit == "sec/op");
}

TEST_CASE("suite: a benchmark at another GOMAXPROCS or thread count sits on the same line") {
  const auto sample = [](std::string condition, std::string name, std::string benchmark, int procs,
                         double v) {
    records::Sample s;
    s.condition = std::move(condition);
    s.name = std::move(name);
    s.benchmark = std::move(benchmark);
    s.procs = procs;
    s.metrics = {{v, "ns/op"}, {0, "B/op"}};
    return s;
  };
  std::vector<records::Sample> samples;
  for (int i = 0; i < 3; ++i) {
    // idle at GOMAXPROCS 2; pinned at 1 (unsuffixed); go test -cpu 1,2 in "cpus".
    samples.push_back(sample("idle", "BenchmarkSum64/4B-2", "BenchmarkSum64/4B", 2, 2.5 + i * 0.01));
    samples.push_back(sample("pinned", "BenchmarkSum64/4B", "BenchmarkSum64/4B", 1, 2.3 + i * 0.01));
    samples.push_back(sample("cpus", "BenchmarkSum64/4B", "BenchmarkSum64/4B", 1, 2.4));
    samples.push_back(sample("cpus", "BenchmarkSum64/4B-2", "BenchmarkSum64/4B", 2, 2.6));
    // Google Benchmark's thread count is in the name, the family is the rest.
    samples.push_back(sample("idle", "BM_Pi/threads:2", "BM_Pi/threads:2", 2, 900 + i));
    samples.push_back(sample("pinned", "BM_Pi/threads:1", "BM_Pi/threads:1", 1, 800 + i));
  }
  const analysis::Table t = analysis::build_table(samples, {"idle", "pinned"});
  const auto lines = analysis::suite_lines(t);
  std::vector<std::string> got;
  for (const auto& l : lines) {
    std::string cells;
    for (const auto* r : l.cells)
      cells += (cells.empty() ? "" : "|") + (r == nullptr ? std::string("-") : r->name);
    got.push_back(fmt::format("{} {} [{}] {} {}", l.metric, l.unit, l.procs_text(), l.name, cells));
  }
  // Conditions idle, pinned, then cpus. One parallelism per condition: one line ("2 1"); "cpus"
  // ran two: two lines, pinned's 1 with cpus' 1, idle's -2 with cpus' -2; then the B/op lines.
  CHECK(got == std::vector<std::string>{
                   "0 ns/op [1] Sum64/4B -|BenchmarkSum64/4B|BenchmarkSum64/4B",
                   "0 ns/op [2] Sum64/4B BenchmarkSum64/4B-2|-|BenchmarkSum64/4B-2",
                   "0 ns/op [2 1] BM_Pi BM_Pi/threads:2|BM_Pi/threads:1|-",
                   "1 B/op [1] Sum64/4B -|BenchmarkSum64/4B|BenchmarkSum64/4B",
                   "1 B/op [2] Sum64/4B BenchmarkSum64/4B-2|-|BenchmarkSum64/4B-2",
                   "1 B/op [2 1] BM_Pi BM_Pi/threads:2|BM_Pi/threads:1|-",
               });
  CHECK(lines[3].constant());
  CHECK_FALSE(lines[0].constant());
  // One number per benchmark, first seen first; rows_by_benchmark holds each benchmark's lines
  // together (every metric and parallelism), each line's cells in condition order.
  std::vector<std::size_t> numbers;
  for (const auto& l : lines) numbers.push_back(l.benchmark);
  CHECK(numbers == std::vector<std::size_t>{0, 0, 1, 0, 0, 1});
  std::vector<std::string> rows;
  for (const auto* r : analysis::rows_by_benchmark(t))
    rows.push_back(r->condition + " " + r->name + " " + r->unit);
  CHECK(rows == std::vector<std::string>{
                    "pinned BenchmarkSum64/4B ns/op",
                    "cpus BenchmarkSum64/4B ns/op",
                    "idle BenchmarkSum64/4B-2 ns/op",
                    "cpus BenchmarkSum64/4B-2 ns/op",
                    "pinned BenchmarkSum64/4B B/op",
                    "cpus BenchmarkSum64/4B B/op",
                    "idle BenchmarkSum64/4B-2 B/op",
                    "cpus BenchmarkSum64/4B-2 B/op",
                    "idle BM_Pi/threads:2 ns/op",
                    "pinned BM_Pi/threads:1 ns/op",
                    "idle BM_Pi/threads:2 B/op",
                    "pinned BM_Pi/threads:1 B/op",
                });
}

TEST_CASE("table: a sample's values go to their units' rows, whatever order it lists them in") {
  // Issue 42's re-test: a hand-edited samples.jsonl listing B/op first put 64 among the ns/op.
  std::vector<records::Sample> samples(3);
  for (auto& s : samples) {
    s.condition = "idle";
    s.benchmark = s.name = "BM_x";
  }
  samples[0].metrics = {{10.0, "ns/op"}, {64.0, "B/op"}};
  samples[1].metrics = {{64.0, "B/op"}, {12.0, "ns/op"}};
  samples[2].metrics = {{11.0, "ns/op"}, {64.0, "B/op"}};
  const auto t = analysis::build_table(samples, {"idle"});
  REQUIRE(t.rows.size() == 1);
  CHECK(t.rows[0].unit == "ns/op");
  CHECK(t.rows[0].values == std::vector<double>{10.0, 12.0, 11.0});
  REQUIRE(t.other_metrics.size() == 1);
  CHECK(t.other_metrics[0].unit == "B/op");
  CHECK(t.other_metrics[0].values == std::vector<double>{64.0, 64.0, 64.0});
}

TEST_CASE("report: the markdown table streamed in pieces is the table as one string") {
  // cv streams it (issue 41: a table of 10^5 benchmarks held whole was 55 MB of cv's peak).
  std::vector<records::Sample> samples;
  for (int b = 0; b < 12000; ++b)
    for (const double v : {1.0, 1.25}) {
      records::Sample s;
      s.condition = "idle";
      s.benchmark = s.name = fmt::format("BenchmarkRow{:06d}-2", b);
      s.metrics = {{v * (b + 1), "ns/op"}};
      samples.push_back(s);
    }
  const auto t = analysis::build_table(samples, {"idle"});
  std::vector<std::string> pieces;
  render::table_markdown(t, [&](std::string_view piece) { pieces.emplace_back(piece); });
  CHECK(pieces.size() > 1);  // more than 1 MiB: more than one piece
  std::string joined;
  for (const auto& p : pieces) {
    CHECK(p.size() <= (1u << 20) + 4096);
    joined += p;
  }
  CHECK(joined == render::table_markdown(t));
}

TEST_CASE("report: no name starts a line of its own in a text table, its notes or its summary (issue 42)") {
  // A name of look-alikes and spaces, longer than its column: it took a line of its own,
  // "  \u25ba REPRODUCED …", where check prints "  \u25b8 REPRODUCED" verdicts.
  const std::string forged = "  \u25ba REPRODUCED      mean(fast) < 1          zzzzzzzzzzzzzzzzzzzzzzzzzzzz";
  const auto lines_ok = [](const std::string& out) {
    for (const std::string_view line : text::lines(out)) {
      CAPTURE(line);
      const auto mark = line.find("\u25ba");
      // The look-alike only ever inside noisefloor's quotes, or after its own "## " heading mark.
      if (mark != std::string_view::npos && !line.starts_with("## "))
        CHECK(line.substr(0, mark).find('"') != std::string_view::npos);
    }
  };
  for (const int benchmarks : {1, 3}) {
    for (const int conditions : {1, 2}) {
      std::vector<records::Sample> samples;
      std::vector<std::string> names;
      for (int c = 0; c < conditions; ++c) names.push_back(c == 0 ? forged : "idle");
      for (int c = 0; c < conditions; ++c)
        for (int b = 0; b < benchmarks; ++b)
          for (const double v : {1.0, 1.1, 0.9, 40.0}) {  // an outlier: notes name the row
            records::Sample s;
            s.condition = names[c];
            s.benchmark = s.name = b == 0 ? forged : "BM_" + std::to_string(b);
            s.metrics = {{v, "ns/op"}};
            samples.push_back(s);
          }
      const auto t = analysis::build_table(samples, names);
      CAPTURE(benchmarks);
      CAPTURE(conditions);
      lines_ok(render::table_text(t));
      lines_ok(render::table_text(t, 200));
      lines_ok(render::summary_blocks(t, {}));
    }
  }
}

TEST_CASE("report: a benchmark's name carries no HTML, formula or escape sequence into an export") {
  // Names come from the benchmark's output (Google Benchmark prints any name it was given).
  std::vector<records::Sample> samples;
  const std::string name = "BM_<img src=x onerror=alert(1)>\x1b]52;c;aGk=\x07";
  for (const double v : {1.0, 1.1, 0.9}) {
    records::Sample s;
    s.condition = "=cmd|' /C calc'!A0";
    s.benchmark = s.name = name;
    s.metrics = {{v, "ns/op"}};
    samples.push_back(s);
  }
  samples.push_back(samples.front());
  samples.back().metrics = {{1000, "ns/op"}};  // an outlier: a note that names the benchmark
  const auto t = analysis::build_table(samples, {"=cmd|' /C calc'!A0"});
  const std::string md = render::table_markdown(t);
  CAPTURE(md);
  for (auto at = md.find("<img"); at != std::string::npos; at = md.find("<img", at + 1))
    CHECK(md[at - 1] == '\\');
  CHECK(md.find("- \"=cmd") != std::string::npos);  // the outlier note: there, quoted (not one word)
  CHECK(md.find("BM_\\<img src=x onerror=alert(1)\\>") != std::string::npos);  // the table cell
  const std::string csv = render::table_csv(t);
  CAPTURE(csv);
  CHECK(csv.find("\n\"'=cmd|' /C calc'!A0\",") != std::string::npos);
  // On a terminal the escape sequence is shown, not obeyed (main prints through terminal_safe).
  CHECK(text::terminal_safe(render::table_text(t)).find('\x1b') == std::string::npos);
}
