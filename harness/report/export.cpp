#include "report/export.hpp"

#include <fmt/format.h>

#include <set>

#include "model/errors.hpp"

namespace noisefloor::report {
namespace {

using nlohmann::json;

std::string text_of(const json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_null()) return "—";
  if (j.is_number_float()) return fmt::format("{:.4g}", j.get<double>());
  return j.dump();
}

// A markdown table cell: pipes escaped, newlines flattened.
std::string cell(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string interval(const json& j) {
  if (!j.is_array() || j.size() != 2 || !j[0].is_number() || !j[1].is_number()) return "—";
  return fmt::format("[{:.4f}, {:.4f}]", j[0].get<double>(), j[1].get<double>());
}

std::string fixed4(const json& j) { return j.is_number() ? fmt::format("{:.4f}", j.get<double>()) : "—"; }

std::string source_line(const json& fingerprint, const json& run, const std::string& label) {
  return fmt::format("{} · run {} · {}", host_line(fingerprint), run.value("run_id", label),
                     run.value("status", "unknown"));
}

std::string source_label(const ReportData& d, std::size_t difference) {
  const std::size_t k = difference < d.difference_source.size() ? d.difference_source[difference] : 1;
  return k < d.sources.size() ? d.sources[k].label : fmt::format("result {}", k + 1);
}

std::string markdown(const ReportData& d) {
  std::string out = fmt::format("# {}\n\n", report_title(d));
  const std::string description = report_description(d);
  if (!description.empty()) out += description + "\n\n";
  if (d.merged) {
    for (const auto& s : d.sources)
      out += fmt::format("- {}: {}\n", s.label, source_line(s.fingerprint, s.run, s.label));
    out += "\n";
  } else {
    out += source_line(d.fingerprint, d.run, "unknown") + "\n\n";
  }
  out += render_markdown(d.table);
  const json paired = d.summary.value("paired", json::array());
  if (paired.is_array() && !paired.empty()) {
    out +=
        "\n## Paired comparisons\n\nratio = variant / baseline per repeat; gm = geometric mean with its 95% "
        "CI.\n\n";
    out +=
        "| condition | benchmark | baseline | variant | label | gm | gm 95% CI | median | verdict | "
        "trustworthy |\n";
    out += "|:--|:--|:--|:--|:--|--:|--:|--:|:--|:--|\n";
    for (const auto& p : paired)
      out += fmt::format(
          "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
          cell(text_of(p.value("condition", json()))), cell(text_of(p.value("benchmark", json()))),
          cell(text_of(p.value("baseline", json()))),
          cell(p.value("aa", false) ? "A/A" : text_of(p.value("variant", json()))),
          cell(text_of(p.value("label", json()))), fixed4(p.value("gm", json())),
          interval(p.value("gm_ci", json())), fixed4(p.value("median", json())),
          cell(text_of(p.value("verdict", json()))), p.value("trustworthy", false) ? "yes" : "no");
  }
  const json aa = d.summary.value("aa", json::array());
  if (aa.is_array() && !aa.empty()) {
    out += "\n## A/A checks\n\nThe baseline against itself: its ratios should stay within 1 ± θ.\n\n";
    out += "| condition | benchmark | outcome | gm 95% CI | median ratio | max abs dev | θ |\n";
    out += "|:--|:--|:--|--:|--:|--:|--:|\n";
    for (const auto& a : aa)
      out +=
          fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", cell(text_of(a.value("condition", json()))),
                      cell(text_of(a.value("benchmark", json()))), cell(text_of(a.value("outcome", json()))),
                      interval(a.value("gm_ci", json())), fixed4(a.value("median_ratio", json())),
                      fixed4(a.value("max_abs_dev", json())), fixed4(a.value("theta", json())));
  }
  if (d.merged) {
    out += "\n## Fingerprint differences\n\n";
    if (d.differences.empty())
      out += "The fingerprints agree (volatile fields such as load aside).\n";
    else if (not_comparable(d))
      out +=
          "**Not comparable**: the results come from hosts or toolchains that differ in fields that move "
          "benchmarks (marked ⚠). Pass --allow-different-hosts to compare them anyway.\n\n";
    else if (d.allow_different_hosts)
      out += "Compared anyway (--allow-different-hosts).\n\n";
    if (!d.differences.empty()) {
      out += fmt::format("| field | {} | other | source | moves benchmarks |\n|:--|:--|:--|:--|:--|\n",
                         cell(d.sources.empty() ? "first" : d.sources.front().label));
      for (std::size_t i = 0; i < d.differences.size(); ++i) {
        const auto& x = d.differences[i];
        out += fmt::format("| {} | {} | {} | {} | {} |\n", cell(x.field), cell(x.a), cell(x.b),
                           cell(source_label(d, i)), x.moves_benchmarks ? "⚠ yes" : "no");
      }
    }
  }
  if (!d.warnings.empty()) {
    out += "\n## Warnings\n\n";
    for (const auto& w : d.warnings) out += "- " + w + "\n";
  }
  return out;
}

std::string gotest(const ReportData& d) {
  std::string out;
  std::set<std::string> previous;  // keys the stream has set so far
  for (std::size_t i = 0; i < d.table.conditions.size(); ++i) {
    const std::string& c = d.table.conditions[i];
    const auto it = d.gotest_config.find(c);
    const GoTestConfig config = it == d.gotest_config.end() ? GoTestConfig{{"condition", c}} : it->second;
    std::set<std::string> keys;
    for (const auto& kv : config) keys.insert(kv.first);
    if (i > 0) out += "\n";
    // A key with no value deletes it (benchfmt): an earlier condition's setting must not leak in.
    for (const auto& k : previous)
      if (!keys.count(k)) out += k + ":\n";
    out += render_gotest(d.samples, c, config);
    previous = keys;
  }
  return out;
}

std::string summary_blocks(const ReportData& d) {
  std::vector<std::string> header;
  if (!d.merged && d.run.contains("summary_header") && d.run["summary_header"].is_array()) {
    for (const auto& h : d.run["summary_header"])
      if (h.is_string()) header.push_back(h.get<std::string>());
  } else if (d.merged) {
    std::vector<std::string> labels;
    for (const auto& s : d.sources) labels.push_back(s.label);
    header.push_back(
        fmt::format("# CV comparison — merged by noisefloor report: {}", fmt::join(labels, ", ")));
  } else {
    header.push_back("# CV comparison — recomputed by noisefloor report");
  }
  return render_summary(d.table, header);
}

json summary_json(const ReportData& d) {
  json j = d.summary.is_object() ? d.summary : json::object();
  j["schema_version"] = 1;
  j["table"] = render_json(d.table);
  if (d.merged) j["warnings"] = d.warnings;
  return j;
}

}  // namespace

std::string render_export(const ReportData& d, std::string_view format) {
  if (format == "markdown") return markdown(d);
  if (format == "csv") return render_csv(d.table);
  if (format == "json") return summary_json(d).dump(2) + "\n";
  if (format == "gotest") return gotest(d);
  if (format == "summary") return summary_blocks(d);
  throw ConfigError(
      fmt::format("--format: expected markdown, csv, json, gotest or summary, got \"{}\"", format));
}

}  // namespace noisefloor::report
