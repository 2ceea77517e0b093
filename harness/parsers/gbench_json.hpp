// Reader of Google Benchmark `--benchmark_format=json` / `--benchmark_out_format=json` output
// (checked against libbenchmark 1.7.1 and src/json_reporter.cc of later versions). Pure.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/measurement.hpp"

namespace noisefloor::parsers {

struct GbenchOutput {
  // The "context" object as written (date, host_name, num_cpus, caches, load_avg, ...); an empty
  // object when the file has none.
  nlohmann::json context = nlohmann::json::object();
  // One per `"run_type": "iteration"` entry (one repetition), in file order; the library's own
  // aggregates (mean, median, stddev, cv, BigO, RMS) are ignored. An entry without "run_type"
  // (written by versions before it existed) counts as an iteration unless it has
  // "aggregate_name".
  //   name = benchmark = "name" (Google Benchmark has no -N suffix; "/threads:N" stays in it)
  //   procs = "threads" (1 when absent), iterations = "iterations"
  //   metrics = real_time as "<time_unit>/op" (e.g. "ns/op"), then cpu_time as
  //             "cpu-<time_unit>/op", then every counter (any other numeric key, e.g.
  //             bytes_per_second, items_per_second, user counters) sorted by key, the key being
  //             the unit. NaN/Infinity values (and counters written as such) become NaN.
  std::vector<model::Measurement> measurements;
  // "<name>: <error_message>" for each iteration entry with "error_occurred": true, and
  // "<name>: skipped: <skip_message>" for each entry with "skipped": true (SkipWithMessage,
  // libbenchmark >= 1.8). Such entries are not measurements.
  std::vector<std::string> errors;
  // A name registered more than once (BENCHMARK(BM_X)->Threads(2) twice): its second instance is
  // kept apart as "<name>#01" (the third "#02"), as Go names duplicate sub-benchmarks; one note
  // each says so.
  std::vector<std::string> notes;
};

// Throws noisefloor::ParseError with messages such as "gbench json: missing key 'benchmarks'",
// "gbench json: benchmarks[2] ('BM_x'): unknown time_unit 'h' (expected ns, us, ms or s)" (the
// index is 0-based) or "gbench json: invalid json: parse error at line 3, column 5: ...".
// The caller prefixes which run it was.
// The bare NaN, -NaN, Infinity and -Infinity tokens the library writes for non-finite doubles
// are replaced with null (outside strings) before parsing, since they are not JSON.
GbenchOutput parse_gbench_json(std::string_view text);

// The entries of "benchmarks" read one at a time, in order (by parse_gbench_json and by the
// stream below): measurements, errors and the duplicate-name notes as above. add() throws
// ParseError for an entry that cannot be read.
class GbenchEntries {
 public:
  void add(const nlohmann::json& entry);
  GbenchOutput& output() { return out_; }
  const GbenchOutput& output() const { return out_; }

 private:
  GbenchOutput out_;
  std::size_t next_ = 0;  // the index of the next entry, for messages
  std::map<std::string, std::vector<std::pair<std::int64_t, std::int64_t>>>
      instances_;  // name -> (family, instance)
};

// The same output read as it arrives, line by line: each benchmark entry is read when its object
// closes (the library writes a benchmark's repetitions when they are done, and flushes), so a run
// of many benchmarks shows its samples while it goes on. The context is not read here; the whole
// output is still read at the end (parse_gbench_json), which says whether it was valid.
class GbenchStream {
 public:
  // The measurements of the entries this line completed.
  std::vector<model::Measurement> feed_line(std::string_view line);
  const GbenchOutput& output() const { return entries_.output(); }
  // An entry the stream could not read alone (the whole output decides).
  bool broken() const { return broken_; }

 private:
  GbenchEntries entries_;
  std::vector<char> stack_;  // '{' and '[' open outside strings
  bool in_string_ = false, escaped_ = false, capturing_ = false, broken_ = false;
  std::string entry_;
};

}  // namespace noisefloor::parsers
