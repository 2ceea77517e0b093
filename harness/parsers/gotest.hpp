// Reader of `go test -bench` output (the Go benchmark data format, golang.org/design/14313;
// the same rules as golang.org/x/perf/benchfmt). Pure: text in, values out, no I/O.
//
// Line kinds (every other line is ignored: PASS, ok, FAIL, `--- BENCH:` and its indented lines,
// log lines, blank lines):
//   configuration  `key: value`: key starts with a lower-case ASCII letter and has no space and
//                  no upper-case letter; `:` is followed by at least one space/tab (or the end of
//                  the line). The value is trimmed. An empty value deletes the key (benchfmt).
//   result         `Benchmark<Name>[-N] <iterations> <value> <unit> [<value> <unit>...]`,
//                  fields separated by spaces/tabs, an even number of at least 4 fields, an
//                  integer iteration count and numeric values (std::from_chars, locale-independent;
//                  a leading '+' and inf/nan are accepted like Go's strconv.ParseFloat).
//   unit metadata  `Unit <unit> key=value...` (benchfmt): `better=higher|lower`, `assume=exact`
//                  (model/units.hpp), for the rest of the stream and every file read with it.
//   failure        a line containing `--- FAIL: <name>`; the name is recorded. Go may print it
//                  on the same line as the padded benchmark name (`BenchmarkX-2 \t--- FAIL: ...`).
// The testing package prints a benchmark's padded name before running it and the numbers after,
// so whatever the benchmark writes to stdout lands between the two. Such a line starts with
// "Benchmark" but is not a result line: it is skipped and counted in skipped_lines, never guessed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/measurement.hpp"
#include "model/units.hpp"

namespace noisefloor::parsers {

struct GoTestOutput {
  // The last value of each configuration key seen (goos, goarch, pkg, cpu, ...).
  std::map<std::string, std::string> config;
  // Result lines in output order. name is as printed; benchmark is the name without the "-N"
  // GOMAXPROCS suffix; procs is N, or 1 when there is no suffix. Metrics in printed order; config
  // the configuration in force (model/go_config.hpp).
  std::vector<model::Measurement> measurements;
  model::UnitMetadata units;             // from `Unit` lines
  std::vector<std::string> unit_errors;  // "line 3: expected key=value", a conflicting value
  // Names from "--- FAIL: <name>" lines, in output order, as printed (with any -N suffix).
  std::vector<std::string> failures;
  // Lines that start with "Benchmark" but are not result lines.
  std::size_t skipped_lines = 0;
  friend bool operator==(const GoTestOutput&, const GoTestOutput&) = default;
};

// Incremental reader: feed complete lines (without the newline) as they arrive from a running
// process. A trailing '\r' is ignored.
class GoTestParser {
 public:
  // Returns the measurement when `line` is a result line, std::nullopt otherwise.
  std::optional<model::Measurement> feed_line(std::string_view line);
  const GoTestOutput& output() const { return output_; }

 private:
  GoTestOutput output_;
  std::string config_text_;  // of output_.config, kept current
  std::size_t line_ = 0;
};

// Applies a `Unit` line to `units` when `line` is one (true), with its errors (a field that is
// not key=value, a value that conflicts with one set before) appended to `errors`, in their words.
bool apply_unit_line(std::string_view line, model::UnitMetadata& units, std::vector<std::string>& errors);

// (key, value) when `line` is a configuration line by the rule above (an empty value deletes
// the key); views into the line.
std::optional<std::pair<std::string_view, std::string_view>> config_entry(std::string_view line);

// One result line read in place: views into the line, and the vectors reused from line to line
// (a million-line file allocates nothing per line).
struct ResultFields {
  std::string_view name;
  std::int64_t iterations = 0;
  std::vector<double> values;
  std::vector<std::string_view> units;
};
// True when `line` (without its newline; a trailing '\r' is ignored) is a result line by the
// rule above; then `out` holds it.
bool parse_result_fields(std::string_view line, ResultFields& out);

// The whole output at once: splits on '\n', accepts "\r\n" and a missing final newline.
GoTestOutput parse_gotest(std::string_view text);

// The leading `key: value` configuration lines of a Go benchmark file, in file order (the rule
// above), and `# key: value` comments (how a result's raw <condition>.txt says what sets the
// condition apart without splitting benchstat's tables); stops at the first result line.
std::vector<std::pair<std::string, std::string>> config_lines(std::string_view text);

// Splits the GOMAXPROCS suffix: "BenchmarkX-16" -> {"BenchmarkX", 16}; "BenchmarkX" ->
// {"BenchmarkX", 1}; "BenchmarkX/size=10-2" -> {"BenchmarkX/size=10", 2}. Only a final '-'
// followed by decimal digits with a value of at least 1 is a suffix ("BenchmarkX-0" and
// "BenchmarkX-" stay whole). Like benchfmt, a sub-benchmark named "n=-2" run with GOMAXPROCS 1
// is indistinguishable from "n=" with procs 2; the output format cannot tell them apart.
std::pair<std::string, int> split_procs_suffix(std::string_view name);

}  // namespace noisefloor::parsers
