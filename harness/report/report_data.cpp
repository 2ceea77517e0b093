#include "report/report_data.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "model/errors.hpp"

namespace noisefloor::report {
namespace {

using nlohmann::json;

std::string string_at(const json& j, const json::json_pointer& p) {
  if (!j.is_object() || !j.contains(p)) return "";
  const json& v = j.at(p);
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object() && v.contains("value") && v["value"].is_string()) return v["value"].get<std::string>();
  return "";
}

void set_config(GoTestConfig& config, const std::string& key, const std::string& value) {
  for (auto& [k, v] : config)
    if (k == key) {
      v = value;
      return;
    }
  config.emplace_back(key, value);
}

}  // namespace

GoTestConfig parse_gotest_config(std::string_view raw) {
  GoTestConfig out;
  std::size_t pos = 0;
  while (pos < raw.size()) {
    const std::size_t nl = raw.find('\n', pos);
    std::string_view line = raw.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? raw.size() : nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.starts_with("Benchmark")) break;
    if (line.empty() || !(line[0] >= 'a' && line[0] <= 'z')) continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = line.substr(0, colon);
    if (std::any_of(key.begin(), key.end(),
                    [](char c) { return c == ' ' || c == '\t' || (c >= 'A' && c <= 'Z'); }))
      continue;
    std::string_view value = line.substr(colon + 1);
    if (!value.empty() && value[0] != ' ' && value[0] != '\t') continue;  // "http://x" is not a key
    while (!value.empty() && (value[0] == ' ' || value[0] == '\t')) value.remove_prefix(1);
    out.emplace_back(std::string(key), std::string(value));
  }
  return out;
}

ReportData make_report_data(std::vector<ReportSource> sources, bool allow_different_hosts,
                            std::string generated_by) {
  if (sources.empty()) throw Error("report: no results to report on");
  ReportData d;
  d.merged = sources.size() > 1;
  d.allow_different_hosts = allow_different_hosts;
  d.generated_by = std::move(generated_by);
  d.run = sources.front().run;
  d.summary = sources.front().summary.is_object() ? sources.front().summary : json::object();
  d.fingerprint = sources.front().fingerprint;

  // A condition name seen in several sources is prefixed with its source's label (as `cv` does).
  std::map<std::string, int> seen;
  for (const auto& s : sources) {
    std::set<std::string> names(s.conditions.begin(), s.conditions.end());
    for (const auto& sample : s.samples) names.insert(sample.condition);
    for (const auto& n : names) ++seen[n];
  }
  std::vector<std::string> order;
  json paired = json::array(), aa = json::array(), labels = json::array();
  for (const auto& s : sources) {
    auto rename = [&](const std::string& c) { return seen[c] > 1 ? s.label + ":" + c : c; };
    std::vector<std::string> conditions = s.conditions;
    for (const auto& sample : s.samples)
      if (std::find(conditions.begin(), conditions.end(), sample.condition) == conditions.end())
        conditions.push_back(sample.condition);
    for (const auto& c : conditions) {
      order.push_back(rename(c));
      GoTestConfig config;
      if (auto it = s.gotest_config.find(c); it != s.gotest_config.end()) {
        config = it->second;
      } else {
        if (s.run.contains("experiment")) config.emplace_back("experiment", s.run.value("experiment", ""));
        if (s.run.contains("run_id")) config.emplace_back("run", s.run.value("run_id", ""));
      }
      set_config(config, "condition", rename(c));
      d.gotest_config[rename(c)] = std::move(config);
    }
    for (auto sample : s.samples) {
      sample.condition = rename(sample.condition);
      d.samples.push_back(std::move(sample));
    }
    for (const char* key : {"paired", "aa"}) {
      if (!s.summary.is_object() || !s.summary.contains(key) || !s.summary[key].is_array()) continue;
      for (json entry : s.summary[key]) {
        if (entry.contains("condition") && entry["condition"].is_string())
          entry["condition"] = rename(entry["condition"].get<std::string>());
        (std::string_view(key) == "paired" ? paired : aa).push_back(std::move(entry));
      }
    }
    labels.push_back(s.label);
    for (const auto& w : s.warnings) d.warnings.push_back(d.merged ? s.label + ": " + w : w);
    if (s.run.contains("warnings") && s.run["warnings"].is_array())
      for (const auto& w : s.run["warnings"])
        if (w.is_string())
          d.warnings.push_back(d.merged ? s.label + ": " + w.get<std::string>() : w.get<std::string>());
  }
  if (d.merged) {
    if (!paired.empty()) d.summary["paired"] = paired;
    if (!aa.empty()) d.summary["aa"] = aa;
    d.summary["sources"] = labels;
    for (std::size_t k = 1; k < sources.size(); ++k)
      for (auto& diff : fingerprint::differences(sources.front().fingerprint, sources[k].fingerprint)) {
        d.differences.push_back(std::move(diff));
        d.difference_source.push_back(k);
      }
  }
  d.table = build_table(d.samples, order);
  d.sources = std::move(sources);
  return d;
}

std::string report_title(const ReportData& d) {
  std::vector<std::string> names;
  for (const auto& s : d.sources) {
    std::string n = string_at(s.summary, json::json_pointer("/experiment/name"));
    if (n.empty()) n = string_at(s.run, json::json_pointer("/experiment"));
    if (n.empty()) n = s.label;
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  }
  if (names.empty()) {
    std::string n = string_at(d.summary, json::json_pointer("/experiment/name"));
    if (n.empty()) n = string_at(d.run, json::json_pointer("/experiment"));
    return n.empty() ? "noisefloor results" : n;
  }
  return fmt::format("{}", fmt::join(names, " + "));
}

std::string report_description(const ReportData& d) {
  return string_at(d.summary, json::json_pointer("/experiment/description"));
}

std::string report_date(const ReportData& d) {
  for (const auto& [j, p] : {std::pair{&d.run, "/started_utc"}, std::pair{&d.summary, "/run/started_utc"},
                             std::pair{&d.fingerprint, "/run/started_utc"}}) {
    const std::string v = string_at(*j, json::json_pointer(p));
    if (!v.empty()) return v;
  }
  return "unknown";
}

std::string host_line(const json& fp) {
  const std::string line = string_at(fp, json::json_pointer("/host/one_line"));
  return line.empty() ? "unknown host" : line;
}

std::string doctor_grade(const json& fp) {
  const std::string grade = string_at(fp, json::json_pointer("/doctor/grade"));
  return grade.empty() ? "not checked" : grade;
}

bool not_comparable(const ReportData& d) {
  if (!d.merged || d.allow_different_hosts) return false;
  return std::any_of(d.differences.begin(), d.differences.end(),
                     [](const auto& x) { return x.moves_benchmarks; });
}

}  // namespace noisefloor::report
