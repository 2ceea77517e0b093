#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "model/errors.hpp"
#include "model/measurement.hpp"
#include "parsers/gbench_json.hpp"
#include "test_support.hpp"

namespace {

using noisefloor::ParseError;
using noisefloor::model::Measurement;
using noisefloor::model::Metric;
using noisefloor::parsers::GbenchOutput;
using noisefloor::parsers::GbenchStream;
using noisefloor::parsers::parse_gbench_json;
using noisefloor::testing::check_measurement;
using noisefloor::testing::read_data;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A document whose "benchmarks" array holds `entry` (JSON text).
std::string doc_with(const std::string& entry) {
  return R"({"context": {"num_cpus": 2}, "benchmarks": [)" + entry + "]}";
}

}  // namespace

TEST_CASE("parse_gbench_json: libbenchmark 1.7.1 output with --benchmark_repetitions=3") {
  const GbenchOutput out = parse_gbench_json(read_data("gbench/gb_repetitions3.json"));

  CHECK(out.context.at("host_name") == "vm");
  CHECK(out.context.at("executable") == "./gb");
  CHECK(out.context.at("num_cpus") == 2);
  CHECK(out.context.at("mhz_per_cpu") == 2596);
  CHECK(out.context.at("cpu_scaling_enabled") == false);
  CHECK(out.context.at("library_build_type") == "debug");
  CHECK(out.context.at("caches").size() == 4);

  // 3 x BM_Vec/8, 3 x BM_Vec/64, 3 x BM_Threads/threads:2; the 12 aggregates are ignored.
  REQUIRE(out.measurements.size() == 9);
  CHECK(out.errors == std::vector<std::string>{"BM_Fail: boom", "BM_Fail: boom", "BM_Fail: boom"});

  // Counters follow the two times, sorted by name; "ratio" was written as a bare NaN.
  check_measurement(out.measurements[0], {"BM_Vec/8",
                                          "BM_Vec/8",
                                          1,
                                          1372143,
                                          {{1.0257387896188694e+01, "ns/op"},
                                           {1.0253333653999620e+01, "cpu-ns/op"},
                                           {7.8023404581975734e+08, "bytes_per_second"},
                                           {8.0, "elems"},
                                           {9.7529255727469668e+07, "items_per_second"},
                                           {kNaN, "ratio"}}});
  check_measurement(out.measurements[2], {"BM_Vec/8",
                                          "BM_Vec/8",
                                          1,
                                          1372143,
                                          {{9.2607855012158335e+00, "ns/op"},
                                           {9.2608773283834100e+00, "cpu-ns/op"},
                                           {8.6384904111417377e+08, "bytes_per_second"},
                                           {8.0, "elems"},
                                           {1.0798113013927172e+08, "items_per_second"},
                                           {kNaN, "ratio"}}});
  check_measurement(out.measurements[3], {"BM_Vec/64",
                                          "BM_Vec/64",
                                          1,
                                          1102306,
                                          {{9.4334767297245410e+00, "ns/op"},
                                           {9.4148385294101580e+00, "cpu-ns/op"},
                                           {6.7977798875760012e+09, "bytes_per_second"},
                                           {64.0, "elems"},
                                           {1.0621531074337502e+08, "items_per_second"},
                                           {kNaN, "ratio"}}});
  check_measurement(out.measurements[6],
                    {"BM_Threads/threads:2",
                     "BM_Threads/threads:2",
                     2,
                     56710974,
                     {{1.1982020446370094e-04, "us/op"}, {2.3807214102864818e-04, "cpu-us/op"}}});
  check_measurement(out.measurements[8],
                    {"BM_Threads/threads:2",
                     "BM_Threads/threads:2",
                     2,
                     56710974,
                     {{1.4840662055975174e-04, "us/op"}, {2.3715120815946482e-04, "cpu-us/op"}}});
}

TEST_CASE("parse_gbench_json: non-finite tokens become NaN, but not inside strings") {
  const GbenchOutput out = parse_gbench_json(doc_with(
      R"({"name": "BM_NaN/Infinity \"-NaN\"", "run_type": "iteration", "threads": 1,
          "iterations": 7, "real_time": Infinity, "cpu_time": -Infinity, "time_unit": "ms",
          "a": NaN, "b": -NaN, "c": -1.5e-3, "label": "NaN"})"));
  REQUIRE(out.measurements.size() == 1);
  check_measurement(out.measurements[0],
                    {R"(BM_NaN/Infinity "-NaN")",
                     R"(BM_NaN/Infinity "-NaN")",
                     1,
                     7,
                     {{kNaN, "ms/op"}, {kNaN, "cpu-ms/op"}, {kNaN, "a"}, {kNaN, "b"}, {-1.5e-3, "c"}}});
  CHECK(out.context == nlohmann::json{{"num_cpus", 2}});
}

TEST_CASE("parse_gbench_json: aggregates, errors and skips are not measurements") {
  const GbenchOutput out = parse_gbench_json(R"({"benchmarks": [
    {"name": "BM_A_mean", "run_type": "aggregate", "aggregate_name": "mean", "threads": 1,
     "iterations": 3, "real_time": 1.0, "cpu_time": 1.0, "time_unit": "ns"},
    {"name": "BM_A_BigO", "run_type": "aggregate", "aggregate_name": "BigO",
     "cpu_coefficient": 1.0, "real_coefficient": 1.0, "big_o": "N", "time_unit": "ns"},
    {"name": "BM_Err", "run_type": "iteration", "threads": 1, "error_occurred": true,
     "error_message": "boom", "iterations": 0, "real_time": 0, "cpu_time": 0, "time_unit": "ns"},
    {"name": "BM_Skip", "run_type": "iteration", "threads": 1, "skipped": true,
     "skip_message": "no gpu", "iterations": 0, "real_time": 0, "cpu_time": 0, "time_unit": "ns"},
    {"name": "BM_Old", "iterations": 12, "real_time": 2.5, "cpu_time": 2.0, "time_unit": "s"},
    {"name": "BM_Old_mean", "aggregate_name": "mean", "iterations": 2, "real_time": 2.5,
     "cpu_time": 2.0, "time_unit": "s"}
  ]})");
  CHECK(out.context == nlohmann::json::object());
  CHECK(out.errors == std::vector<std::string>{"BM_Err: boom", "BM_Skip: skipped: no gpu"});
  // No run_type (old versions) counts as an iteration; "threads" defaults to 1.
  REQUIRE(out.measurements.size() == 1);
  check_measurement(out.measurements[0], {"BM_Old", "BM_Old", 1, 12, {{2.5, "s/op"}, {2.0, "cpu-s/op"}}});
}

TEST_CASE("parse_gbench_json: malformed input names what is wrong") {
  CHECK_THROWS_WITH_AS(parse_gbench_json(R"({"context": {}})"), "gbench json: missing key 'benchmarks'",
                       ParseError);
  CHECK_THROWS_WITH_AS(parse_gbench_json(R"({"benchmarks": {}})"),
                       "gbench json: 'benchmarks' is not an array", ParseError);
  CHECK_THROWS_WITH_AS(parse_gbench_json(R"([1, 2])"), "gbench json: expected an object at the top level",
                       ParseError);
  CHECK_THROWS_WITH_AS(parse_gbench_json(R"({"context": 3, "benchmarks": []})"),
                       "gbench json: 'context' is not an object", ParseError);
  CHECK_THROWS_WITH_AS(parse_gbench_json("{\"benchmarks\": [\n  {\"name\": }]}"),
                       "gbench json: invalid json: parse error at line 2, column 12: syntax error "
                       "while parsing value - unexpected '}'; expected '[', '{', or a literal",
                       ParseError);
  CHECK_THROWS_WITH_AS(parse_gbench_json(""), doctest::Contains("gbench json: invalid json: "), ParseError);
  // Found by fuzzing: a number beyond double escaped as the JSON library's out_of_range.
  CHECK_THROWS_WITH_AS(parse_gbench_json(R"({"benchmarks": [{"real_time": 7.8e+0377496126034270}]})"),
                       "gbench json: invalid json: number overflow parsing '7.8e+0377496126034270'",
                       ParseError);
  CHECK_THROWS_WITH_AS(parse_gbench_json(doc_with(R"({"name": "BM_x", "run_type": "iteration",
      "threads": 1, "iterations": 1, "real_time": 1, "cpu_time": 1, "time_unit": "h"})")),
                       "gbench json: benchmarks[0] ('BM_x'): unknown time_unit 'h' "
                       "(expected ns, us, ms or s)",
                       ParseError);
  CHECK_THROWS_WITH_AS(parse_gbench_json(doc_with(R"({"name": "BM_x", "run_type": "iteration",
      "threads": 1, "real_time": 1, "cpu_time": 1, "time_unit": "ns"})")),
                       "gbench json: benchmarks[0] ('BM_x'): missing key 'iterations'", ParseError);
  CHECK_THROWS_WITH_AS(parse_gbench_json(doc_with(R"({"name": "BM_x", "run_type": "iteration",
      "threads": 1, "iterations": 1.5, "real_time": 1, "cpu_time": 1, "time_unit": "ns"})")),
                       "gbench json: benchmarks[0] ('BM_x'): key 'iterations' is not an integer", ParseError);
  CHECK_THROWS_WITH_AS(parse_gbench_json(doc_with(R"({"name": "BM_x", "run_type": "iteration",
      "threads": 1, "iterations": 1, "real_time": "1", "cpu_time": 1, "time_unit": "ns"})")),
                       "gbench json: benchmarks[0] ('BM_x'): key 'real_time' is not a number", ParseError);
  CHECK_THROWS_WITH_AS(parse_gbench_json(doc_with(R"({"name": "BM_x", "run_type": "iteration",
      "threads": 0, "iterations": 1, "real_time": 1, "cpu_time": 1, "time_unit": "ns"})")),
                       "gbench json: benchmarks[0] ('BM_x'): threads 0 is out of range "
                       "(expected at least 1)",
                       ParseError);
  CHECK_THROWS_WITH_AS(parse_gbench_json(doc_with(R"({"run_type": "iteration", "threads": 1,
      "iterations": 1, "real_time": 1, "cpu_time": 1, "time_unit": "ns"})")),
                       "gbench json: benchmarks[0]: missing key 'name'", ParseError);
  CHECK_THROWS_WITH_AS(parse_gbench_json(doc_with("3")), "gbench json: benchmarks[0]: expected an object",
                       ParseError);
}

TEST_CASE("parse_gbench_json: a name registered twice is two rows, the second kept apart as #01") {
  // BENCHMARK(BM_CalculatePi)->Threads(2); BENCHMARK(BM_CalculatePi)->ThreadRange(1, 2): the
  // first family's instance and the second family's second instance both print
  // BM_CalculatePi/threads:2 (a real capture, tests/data/README.md).
  const auto out = parse_gbench_json(read_data("gbench/duplicate_registration.json"));
  std::vector<std::string> names;
  for (const auto& m : out.measurements) names.push_back(m.name);
  CHECK(names == std::vector<std::string>{"BM_CalculatePi/threads:2", "BM_CalculatePi/threads:2",
                                          "BM_CalculatePi/threads:1", "BM_CalculatePi/threads:1",
                                          "BM_CalculatePi/threads:2#01", "BM_CalculatePi/threads:2#01"});
  CHECK(out.measurements[4].procs == 2);
  CHECK(out.notes == std::vector<std::string>{
                         "BM_CalculatePi/threads:2 is registered more than once (family 0, instance 0 "
                         "and family 1, instance 1): kept apart as BM_CalculatePi/threads:2#01"});
}

TEST_CASE("GbenchStream: each entry is read when its object closes, the same as the whole output") {
  for (const char* file : {"gbench/gb_repetitions3.json", "gbench/duplicate_registration.json"}) {
    CAPTURE(file);
    const std::string text = read_data(file);
    const GbenchOutput whole = parse_gbench_json(text);
    GbenchStream stream;
    std::vector<std::size_t> arrived_at;  // the line after which each measurement arrived
    std::size_t line_no = 0, start = 0;
    while (start < text.size()) {
      const std::size_t end = std::min(text.find('\n', start), text.size());
      ++line_no;
      for (std::size_t k = stream.feed_line(std::string_view(text).substr(start, end - start)).size(); k > 0;
           --k)
        arrived_at.push_back(line_no);
      start = end + 1;
    }
    CHECK_FALSE(stream.broken());
    REQUIRE(stream.output().measurements.size() == whole.measurements.size());
    for (std::size_t i = 0; i < whole.measurements.size(); ++i) {
      const Measurement& w = whole.measurements[i];
      check_measurement(stream.output().measurements[i],
                        {w.name, w.benchmark, w.procs, w.iterations, w.metrics});
    }
    CHECK(stream.output().errors == whole.errors);
    CHECK(stream.output().notes == whole.notes);
    // The first measurement came long before the end of the output.
    REQUIRE(!arrived_at.empty());
    CHECK(arrived_at.front() < line_no / 2);
  }
}

TEST_CASE("GbenchStream: an entry it cannot read alone leaves the decision to the whole output") {
  GbenchStream stream;
  for (const char* line :
       {"{", "\"benchmarks\": [", "{\"name\": \"BM_x\", \"run_type\": \"iteration\", \"iterations\": 1,",
        "\"real_time\": 1, \"cpu_time\": 1, \"time_unit\": \"h\"}", "]}"})
    CHECK(stream.feed_line(line).empty());
  CHECK(stream.broken());
  // Braces inside strings are not structure.
  GbenchStream quoted;
  for (const char* line :
       {"{\"context\": {\"x\": \"{[\"},", "\"benchmarks\": [",
        "{\"name\": \"BM_}{\", \"run_type\": \"iteration\",",
        "\"iterations\": 3, \"real_time\": 2, \"cpu_time\": 2, \"time_unit\": \"ns\"}", "]}"}) {
    const auto got = quoted.feed_line(line);
    if (!got.empty()) CHECK(got.front().name == "BM_}{");
  }
  CHECK(quoted.output().measurements.size() == 1);
}
