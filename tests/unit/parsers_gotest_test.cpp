#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "model/measurement.hpp"
#include "parsers/gotest.hpp"
#include "test_support.hpp"

namespace {

using noisefloor::model::Measurement;
using noisefloor::model::Metric;
using noisefloor::parsers::GoTestOutput;
using noisefloor::parsers::GoTestParser;
using noisefloor::parsers::parse_gotest;
using noisefloor::parsers::split_procs_suffix;
using noisefloor::testing::check_measurement;
using noisefloor::testing::read_data;
using Config = std::map<std::string, std::string>;

GoTestOutput parse_file(const std::string& name) { return parse_gotest(read_data("gotest/" + name)); }

const Config kMakeBufferConfig = {{"goos", "linux"},
                                  {"goarch", "amd64"},
                                  {"pkg", "noisefloor.dev/experiments/makebuffer"},
                                  {"cpu", "AMD EPYC"}};
const Config kGobenchConfig = {
    {"goos", "linux"}, {"goarch", "amd64"}, {"pkg", "example.com/gobench"}, {"cpu", "AMD EPYC"}};

}  // namespace

TEST_CASE("split_procs_suffix: strips a final -N of digits only") {
  using P = std::pair<std::string, int>;
  CHECK(split_procs_suffix("BenchmarkX-16") == P{"BenchmarkX", 16});
  CHECK(split_procs_suffix("BenchmarkX") == P{"BenchmarkX", 1});
  CHECK(split_procs_suffix("BenchmarkX/size=10-2") == P{"BenchmarkX/size=10", 2});
  CHECK(split_procs_suffix("BenchmarkDup/case#01-2") == P{"BenchmarkDup/case#01", 2});
  CHECK(split_procs_suffix("BenchmarkDup/case#01") == P{"BenchmarkDup/case#01", 1});
  CHECK(split_procs_suffix("BenchmarkA-B") == P{"BenchmarkA-B", 1});
  CHECK(split_procs_suffix("BenchmarkA-2x") == P{"BenchmarkA-2x", 1});
  CHECK(split_procs_suffix("BenchmarkA-") == P{"BenchmarkA-", 1});
  CHECK(split_procs_suffix("BenchmarkA-0") == P{"BenchmarkA-0", 1});
  CHECK(split_procs_suffix("BenchmarkA-99999999999") == P{"BenchmarkA-99999999999", 1});
  CHECK(split_procs_suffix("BenchmarkA-1-4") == P{"BenchmarkA-1", 4});
}

TEST_CASE("parse_gotest: demo binary with -test.benchmem, count 3") {
  const GoTestOutput out = parse_file("makebuffer_benchmem_count3.txt");
  CHECK(out.config == kMakeBufferConfig);
  CHECK(out.failures.empty());
  CHECK(out.skipped_lines == 0);
  REQUIRE(out.measurements.size() == 6);
  check_measurement(out.measurements[0], {"BenchmarkMakeBuffer_Correct-2",
                                          "BenchmarkMakeBuffer_Correct",
                                          2,
                                          7272907,
                                          {{18.20, "ns/op"}, {64, "B/op"}, {1, "allocs/op"}}});
  check_measurement(out.measurements[2], {"BenchmarkMakeBuffer_Correct-2",
                                          "BenchmarkMakeBuffer_Correct",
                                          2,
                                          6367471,
                                          {{20.63, "ns/op"}, {64, "B/op"}, {1, "allocs/op"}}});
  // Go 1.19 keeps the allocation in the _DCE sibling (non-constant make size): see makebuffer.
  check_measurement(out.measurements[3], {"BenchmarkMakeBuffer_DCE-2",
                                          "BenchmarkMakeBuffer_DCE",
                                          2,
                                          7508072,
                                          {{17.22, "ns/op"}, {64, "B/op"}, {1, "allocs/op"}}});
  check_measurement(out.measurements[5], {"BenchmarkMakeBuffer_DCE-2",
                                          "BenchmarkMakeBuffer_DCE",
                                          2,
                                          6803911,
                                          {{19.71, "ns/op"}, {64, "B/op"}, {1, "allocs/op"}}});
}

TEST_CASE("parse_gotest: demo binary without -benchmem (ReportAllocs still prints B/op)") {
  const GoTestOutput out = parse_file("makebuffer_no_benchmem.txt");
  CHECK(out.config == kMakeBufferConfig);
  CHECK(out.skipped_lines == 0);
  REQUIRE(out.measurements.size() == 4);
  check_measurement(out.measurements[0], {"BenchmarkMakeBuffer_Correct-2",
                                          "BenchmarkMakeBuffer_Correct",
                                          2,
                                          1000,
                                          {{32.79, "ns/op"}, {64, "B/op"}, {1, "allocs/op"}}});
  check_measurement(out.measurements[2], {"BenchmarkMakeBuffer_DCE-2",
                                          "BenchmarkMakeBuffer_DCE",
                                          2,
                                          1000,
                                          {{12.58, "ns/op"}, {64, "B/op"}, {1, "allocs/op"}}});
}

TEST_CASE("parse_gotest: -test.cpu=1,2 gives names with and without the -N suffix") {
  const GoTestOutput out = parse_file("makebuffer_cpu_1_2.txt");
  CHECK(out.config == kMakeBufferConfig);
  CHECK(out.skipped_lines == 0);
  REQUIRE(out.measurements.size() == 4);
  check_measurement(out.measurements[0], {"BenchmarkMakeBuffer_Correct",
                                          "BenchmarkMakeBuffer_Correct",
                                          1,
                                          6693718,
                                          {{17.23, "ns/op"}, {64, "B/op"}, {1, "allocs/op"}}});
  check_measurement(out.measurements[1], {"BenchmarkMakeBuffer_Correct",
                                          "BenchmarkMakeBuffer_Correct",
                                          1,
                                          6845500,
                                          {{19.04, "ns/op"}, {64, "B/op"}, {1, "allocs/op"}}});
  check_measurement(out.measurements[3], {"BenchmarkMakeBuffer_Correct-2",
                                          "BenchmarkMakeBuffer_Correct",
                                          2,
                                          6273206,
                                          {{20.57, "ns/op"}, {64, "B/op"}, {1, "allocs/op"}}});
}

TEST_CASE("parse_gotest: through go test, with the PASS and ok trailer") {
  const GoTestOutput out = parse_file("makebuffer_go_test.txt");
  CHECK(out.config == kMakeBufferConfig);
  CHECK(out.failures.empty());
  CHECK(out.skipped_lines == 0);
  REQUIRE(out.measurements.size() == 4);
  check_measurement(out.measurements[1], {"BenchmarkMakeBuffer_Correct-2",
                                          "BenchmarkMakeBuffer_Correct",
                                          2,
                                          6545786,
                                          {{19.09, "ns/op"}, {64, "B/op"}, {1, "allocs/op"}}});
  check_measurement(out.measurements[3], {"BenchmarkMakeBuffer_DCE-2",
                                          "BenchmarkMakeBuffer_DCE",
                                          2,
                                          6235839,
                                          {{19.63, "ns/op"}, {64, "B/op"}, {1, "allocs/op"}}});
}

TEST_CASE("parse_gotest: sub-benchmarks, #01, MB/s, ReportMetric units and --- BENCH: blocks") {
  const GoTestOutput out = parse_file("subbench_custom_units.txt");
  CHECK(out.config == kGobenchConfig);
  CHECK(out.failures.empty());
  CHECK(out.skipped_lines == 0);
  REQUIRE(out.measurements.size() == 24);
  check_measurement(out.measurements[0], {"BenchmarkSub/size=10",
                                          "BenchmarkSub/size=10",
                                          1,
                                          2000,
                                          {{13.56, "ns/op"},
                                           {737.44, "MB/s"},
                                           {10.00, "items/op"},
                                           {0.0000001, "tiny/op"},
                                           {16, "B/op"},
                                           {1, "allocs/op"}}});
  // "9.079 ns/op\t1101.50 MB/s": no blank between the TAB and a wide value.
  check_measurement(out.measurements[1], {"BenchmarkSub/size=10",
                                          "BenchmarkSub/size=10",
                                          1,
                                          2000,
                                          {{9.079, "ns/op"},
                                           {1101.50, "MB/s"},
                                           {10.00, "items/op"},
                                           {0.0000001, "tiny/op"},
                                           {16, "B/op"},
                                           {1, "allocs/op"}}});
  check_measurement(out.measurements[6], {"BenchmarkSub/size=1000-2",
                                          "BenchmarkSub/size=1000",
                                          2,
                                          2000,
                                          {{86.99, "ns/op"},
                                           {11495.57, "MB/s"},
                                           {1000, "items/op"},
                                           {0.0000001, "tiny/op"},
                                           {1024, "B/op"},
                                           {1, "allocs/op"}}});
  check_measurement(out.measurements[8],
                    {"BenchmarkDup/case", "BenchmarkDup/case", 1, 2000, {{14.79, "ns/op"}}});
  check_measurement(out.measurements[12],
                    {"BenchmarkDup/case#01", "BenchmarkDup/case#01", 1, 2000, {{14.57, "ns/op"}}});
  check_measurement(out.measurements[14],
                    {"BenchmarkDup/case#01-2", "BenchmarkDup/case#01", 2, 2000, {{15.18, "ns/op"}}});
  check_measurement(out.measurements[18], {"BenchmarkDup/with_space-2",
                                           "BenchmarkDup/with_space",
                                           2,
                                           2000,
                                           {{11.33, "ns/op"}, {123456789, "widgets/s"}}});
  check_measurement(out.measurements[20], {"BenchmarkLog", "BenchmarkLog", 1, 2000, {{13.94, "ns/op"}}});
  check_measurement(out.measurements[23], {"BenchmarkLog-2", "BenchmarkLog", 2, 2000, {{13.20, "ns/op"}}});
}

TEST_CASE("parse_gotest: stdout written by a benchmark breaks its line, which is skipped") {
  const GoTestOutput out = parse_file("stdout_midline.txt");
  // The first line is "warming up goos: linux": the key would contain spaces, so goos is lost.
  CHECK(out.config == Config{{"goarch", "amd64"}, {"pkg", "example.com/gobench"}, {"cpu", "AMD EPYC"}});
  CHECK(out.measurements.empty());
  CHECK(out.failures.empty());
  // BenchmarkChatty, BenchmarkChatty-2, BenchmarkChattyLines, BenchmarkChattyLines-2; the
  // continuation lines ("    1000\t 19.24 ns/op") do not start with Benchmark and are ignored.
  CHECK(out.skipped_lines == 4);
}

TEST_CASE("parse_gotest: a failing benchmark is a failure, not a measurement") {
  const GoTestOutput out = parse_file("failing_benchmark.txt");
  CHECK(out.config == kGobenchConfig);
  CHECK(out.failures == std::vector<std::string>{"BenchmarkFail-2"});
  // "BenchmarkFail-2   \t--- FAIL: BenchmarkFail-2" starts with Benchmark and is no result.
  CHECK(out.skipped_lines == 1);
  REQUIRE(out.measurements.size() == 1);
  check_measurement(out.measurements[0], {"BenchmarkLog-2", "BenchmarkLog", 2, 1000, {{43.29, "ns/op"}}});
}

TEST_CASE("parse_gotest: CRLF line endings and a missing final newline") {
  const GoTestOutput out = parse_gotest(
      "goos: linux\r\ncpu: Oxide Virtual Turin-like Processor   \r\n"
      "BenchmarkJoin-2 \t 2000\t 40.17 ns/op\t 5 B/op\r\n"
      "BenchmarkJoin \t 2000\t 176.6 ns/op");
  CHECK(out.config == Config{{"goos", "linux"}, {"cpu", "Oxide Virtual Turin-like Processor"}});
  REQUIRE(out.measurements.size() == 2);
  check_measurement(out.measurements[0],
                    {"BenchmarkJoin-2", "BenchmarkJoin", 2, 2000, {{40.17, "ns/op"}, {5, "B/op"}}});
  check_measurement(out.measurements[1], {"BenchmarkJoin", "BenchmarkJoin", 1, 2000, {{176.6, "ns/op"}}});
  CHECK(parse_gotest("") == GoTestOutput{});
}

TEST_CASE("parse_gotest: lines that look like results but are not") {
  const GoTestOutput out = parse_gotest(
      "BenchmarkA 100 1.5 ns/op 7\n"           // odd number of fields
      "BenchmarkA 100 fast ns/op\n"            // non-numeric value
      "BenchmarkA 1e3 1.5 ns/op\n"             // non-integer iteration count
      "BenchmarkA 100 1.5x ns/op\n"            // trailing garbage in a value
      "BenchmarkA 100\n"                       // too few fields
      "Benchmarking started\n"                 // a log line starting with Benchmark
      "  BenchmarkA 100 1.5 ns/op\n"           // indented: not a result (nor counted)
      "BenchmarkB 5 +Inf MB/s -2.5e-3 x/op\n"  // Go's ParseFloat accepts +Inf and exponents
  );
  CHECK(out.skipped_lines == 6);
  REQUIRE(out.measurements.size() == 1);
  const Measurement& m = out.measurements[0];
  CHECK(m.name == "BenchmarkB");
  CHECK(m.iterations == 5);
  REQUIRE(m.metrics.size() == 2);
  CHECK(std::isinf(m.metrics[0].value));
  CHECK(m.metrics[0].value > 0);
  CHECK(m.metrics[0].unit == "MB/s");
  CHECK(m.metrics[1] == Metric{-2.5e-3, "x/op"});
}

TEST_CASE("parse_gotest: configuration lines follow the benchfmt key rules") {
  const GoTestOutput out = parse_gotest(
      "pkg: a\n"
      "pkg: b\n"           // the last value wins
      "commit:\tabc123\n"  // TAB after the colon
      "cpu-count: 2\n"     // hyphenated key
      "Upper: no\n"        // upper-case letter in the key
      "two words: no\n"    // space in the key
      "url:http://x\n"     // no blank after the colon
      "9lives: no\n"       // key must start with a lower-case letter
      "goos: linux\n"
      "goos:\n"  // an empty value deletes the key
      "ok  \texample.com/x\t0.01s\n"
      "--- BENCH: BenchmarkX\n"
      "    x_test.go:3: note: something\n");
  CHECK(out.config == Config{{"pkg", "b"}, {"commit", "abc123"}, {"cpu-count", "2"}});
  CHECK(out.measurements.empty());
  CHECK(out.skipped_lines == 0);
}

TEST_CASE("GoTestParser: feed_line returns each measurement as it arrives") {
  GoTestParser parser;
  CHECK_FALSE(parser.feed_line("goos: linux").has_value());
  CHECK_FALSE(parser.feed_line("BenchmarkX-2   \tsome stdout").has_value());
  const std::optional<Measurement> m = parser.feed_line("BenchmarkX-2 \t 10\t 3.5 ns/op\r");
  REQUIRE(m.has_value());
  check_measurement(*m, {"BenchmarkX-2", "BenchmarkX", 2, 10, {{3.5, "ns/op"}}});
  CHECK_FALSE(parser.feed_line("    --- FAIL: BenchmarkY/sub-2").has_value());
  CHECK_FALSE(parser.feed_line("--- FAIL: TestZ (0.00s)").has_value());

  const GoTestOutput& out = parser.output();
  CHECK(out.config == Config{{"goos", "linux"}});
  REQUIRE(out.measurements.size() == 1);
  CHECK(out.measurements[0] == *m);  // the measurement returned is the one kept, configuration and all
  CHECK(m->config == "goos: linux");
  CHECK(out.failures == std::vector<std::string>{"BenchmarkY/sub-2", "TestZ"});
  CHECK(out.skipped_lines == 1);
}

TEST_CASE("GoTestParser: feeding a captured file line by line equals parse_gotest") {
  const std::string text = read_data("gotest/subbench_custom_units.txt");
  GoTestParser parser;
  std::size_t returned = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (parser.feed_line(line)) ++returned;
  }
  CHECK(returned == 24);
  CHECK(parser.output() == parse_gotest(text));
}
