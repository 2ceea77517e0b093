// Everything `noisefloor report` shows, gathered from one or more result directories. Pure: the
// files are read by cli/report_command.cpp; this only combines values.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fingerprint/compare.hpp"
#include "model/sample.hpp"
#include "report/table.hpp"

namespace noisefloor::report {

// `key: value` configuration lines of a raw Go benchmark file, in file order.
using GoTestConfig = std::vector<std::pair<std::string, std::string>>;

// One result directory as read from disk.
struct ReportSource {
  std::string label;  // run id (or the directory name): prefixes condition names that collide
  nlohmann::json run = nlohmann::json::object();          // run.json
  nlohmann::json summary = nlohmann::json::object();      // summary.json
  nlohmann::json fingerprint = nlohmann::json::object();  // fingerprint.json
  std::vector<model::Sample> samples;                     // samples.jsonl, warm-up included
  std::vector<std::string> conditions;                    // display order
  std::map<std::string, GoTestConfig> gotest_config;      // per condition, from <condition>.txt
  std::vector<std::string> warnings;                      // e.g. a torn last line
};

struct ReportData {
  // Of the first source. When merged, summary["paired"] and summary["aa"] hold the entries of
  // every source (conditions renamed as in `samples`) and summary["sources"] the labels.
  nlohmann::json run = nlohmann::json::object();
  nlohmann::json summary = nlohmann::json::object();
  nlohmann::json fingerprint = nlohmann::json::object();
  // Every source's samples; a condition name that occurs in several sources becomes
  // "<label>:<condition>" so they stay apart.
  std::vector<model::Sample> samples;
  Table table;
  // Fingerprint of source k (k >= 1) against source 0, for every k, in that order;
  // difference_source[i] is the k of differences[i].
  std::vector<fingerprint::Difference> differences;
  std::vector<std::size_t> difference_source;
  bool merged = false;
  bool allow_different_hosts = false;
  std::string generated_by;                           // "noisefloor 0.1.0 (2c95392c1134)"
  std::vector<ReportSource> sources;                  // as given (fingerprints, labels)
  std::map<std::string, GoTestConfig> gotest_config;  // by (renamed) condition
  std::vector<std::string> warnings;                  // of every source, plus run.json warnings
};

// Combines the sources (at least one; throws noisefloor::Error when empty) and builds the table.
ReportData make_report_data(std::vector<ReportSource> sources, bool allow_different_hosts,
                            std::string generated_by);

// The leading `key: value` lines of a Go benchmark file (benchfmt's rule: the key starts with a
// lower-case letter and has no space or upper-case letter; ':' then spaces, then the value).
// Stops at the first result line ("Benchmark...").
GoTestConfig parse_gotest_config(std::string_view raw);

// Facts shown at the top of every rendering. Each falls back to a plain word, never a guess.
std::string report_title(const ReportData& data);          // experiment name(s)
std::string report_description(const ReportData& data);    // "" when none
std::string report_date(const ReportData& data);           // started UTC, or "unknown"
std::string host_line(const nlohmann::json& fingerprint);  // host.one_line, or "unknown host"
// fingerprint "doctor" → "grade" (plain value or fact), or "not checked".
std::string doctor_grade(const nlohmann::json& fingerprint);
// True when several sources differ in a field that moves benchmarks and the user did not pass
// --allow-different-hosts.
bool not_comparable(const ReportData& data);

}  // namespace noisefloor::report
