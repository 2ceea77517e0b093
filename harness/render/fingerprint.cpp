#include "render/fingerprint.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>

#include "model/names.hpp"
#include "text/text.hpp"

namespace noisefloor::render {
namespace {

using fingerprint::is_fact;
using fingerprint::to_string;
using nlohmann::json;

}  // namespace

namespace {

constexpr std::string_view kReset = "\x1b[0m";

std::string_view sgr(fingerprint::Level level) {
  using enum fingerprint::Level;
  static constexpr std::array<std::pair<fingerprint::Level, std::string_view>, 3> kColours{
      {{ok, "\x1b[32m"}, {warn, "\x1b[33m"}, {bad, "\x1b[31m"}}};
  return model::word_of(level, kColours, "");
}

std::string_view sgr(fingerprint::Grade grade) {
  using enum fingerprint::Grade;
  static constexpr std::array<std::pair<fingerprint::Grade, std::string_view>, 3> kColours{
      {{ready, "\x1b[1;32m"}, {limited, "\x1b[1;33m"}, {not_ready, "\x1b[1;31m"}}};
  return model::word_of(grade, kColours, "");
}

std::string paint(std::string_view text, std::string_view code, bool color) {
  return color ? fmt::format("{}{}{}", code, text, kReset) : std::string(text);
}

}  // namespace

std::string doctor(const fingerprint::DoctorReport& report, bool color) {
  constexpr std::size_t kIndent = 6;
  std::string out;
  int counts[3] = {0, 0, 0};
  for (const auto& f : report.findings) {
    ++counts[static_cast<int>(f.level)];
    const std::string_view level = to_string(f.level);
    out += paint(level, sgr(f.level), color) + std::string(kIndent - level.size(), ' ') +
           std::string(fingerprint::topic_name(f)) + '\n';
    out += text::wrap(f.message, kRenderWidth, std::string(kIndent, ' '), std::string(kIndent, ' '));
    if (!f.fix.empty()) out += std::string(kIndent, ' ') + "fix: " + f.fix + '\n';
    out += '\n';
  }
  out +=
      fmt::format("{} {} ({} OK, {} WARN, {} BAD)\n", paint("grade:", "\x1b[1m", color),
                  paint(to_string(report.grade), sgr(report.grade), color), counts[0], counts[1], counts[2]);
  for (const auto& f : report.findings) {
    if (f.level == fingerprint::Level::ok) continue;
    const std::string_view level = to_string(f.level);
    const std::string line =
        text::shorten(fmt::format("  {} {}: {}", level, fingerprint::topic_name(f), f.message), kRenderWidth);
    // Colour only the level word; the cut is computed on the plain text.
    out += color ? "  " + paint(level, sgr(f.level), true) + line.substr(2 + level.size()) : line;
    out += '\n';
  }
  return out;
}

namespace {

constexpr std::string_view kGroupOrder[] = {"noisefloor",    "run",    "host",   "toolchain", "env",
                                            "benchmark_env", "engine", "tuning", "doctor",    "noise"};
constexpr std::size_t kMaxKeyColumn = 40;

std::string plain(const json& v);

// k: v pairs of an object, comma-joined.
std::string pairs(const json& obj) {
  std::string out;
  for (const auto& [k, v] : obj.items()) out += (out.empty() ? "" : ", ") + k + ": " + plain(v);
  return out.empty() ? "(none)" : out;
}

std::string plain(const json& v) {
  if (v.is_string()) return v.get_ref<const std::string&>().empty() ? "(empty)" : v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_null()) return "null";
  if (v.is_object()) return pairs(v);
  if (v.is_array()) {
    std::string out;
    for (const auto& e : v)
      out += (out.empty() ? "" : ", ") + (e.is_object() ? "{" + pairs(e) + "}" : plain(e));
    return out.empty() ? "(none)" : out;
  }
  return v.dump();
}

// "- k=v k=v" for one element of a list of objects.
std::string element(const json& e) {
  if (!e.is_object()) return "- " + plain(e);
  std::string out = "-";
  for (const auto& [k, v] : e.items())
    out += " " + k + "=" + (v.is_object() || v.is_array() ? "{" + plain(v) + "}" : plain(v));
  return out;
}

bool list_of_objects(const json& v) {
  return v.is_array() && !v.empty() &&
         std::all_of(v.begin(), v.end(), [](const json& e) { return e.is_object(); });
}

struct Line {
  std::size_t depth;
  std::string key;
  std::optional<std::string> value;  // nullopt: a heading
};

void walk(const std::string& key, const json& node, std::size_t depth, std::vector<Line>& lines);

void value_lines(const std::string& key, const json& v, std::string suffix, std::size_t depth,
                 std::vector<Line>& lines) {
  if (list_of_objects(v)) {
    lines.push_back(
        {depth, key, suffix.empty() ? std::nullopt : std::optional<std::string>(suffix.substr(1))});
    for (const auto& e : v) lines.push_back({depth + 1, element(e), std::nullopt});
    return;
  }
  lines.push_back({depth, key, plain(v) + suffix});
}

void walk(const std::string& key, const json& node, std::size_t depth, std::vector<Line>& lines) {
  if (is_fact(node)) {
    if (node["value"].is_null()) {
      lines.push_back(
          {depth, key, "unknown (" + node.value("unknown", std::string("no reason given")) + ")"});
      return;
    }
    std::string suffix;
    if (const auto it = node.find("evidence"); it != node.end() && it->is_array() && !it->empty()) {
      std::string ev;
      for (const auto& e : *it) ev += (ev.empty() ? "" : "; ") + plain(e);
      suffix += " (evidence: " + ev + ")";
    }
    if (const auto it = node.find("note"); it != node.end() && it->is_string())
      suffix += " (" + it->get<std::string>() + ")";
    value_lines(key, node["value"], suffix, depth, lines);
    return;
  }
  if (node.is_object()) {
    if (node.empty()) {
      lines.push_back({depth, key, "(none)"});
      return;
    }
    lines.push_back({depth, key, std::nullopt});
    for (const auto& [k, v] : node.items()) walk(k, v, depth + 1, lines);
    return;
  }
  value_lines(key, node, "", depth, lines);
}

}  // namespace

std::string fingerprint_view(const records::Fingerprint& fingerprint) {
  const json fp = fingerprint;  // every fact as recorded
  std::vector<std::string> order;
  for (const std::string_view g : kGroupOrder) {
    if (fp.is_object() && fp.contains(std::string(g))) order.emplace_back(g);
  }
  if (fp.is_object()) {
    for (const auto& [k, v] : fp.items()) {
      if (std::find(order.begin(), order.end(), k) == order.end()) order.push_back(k);
    }
  }
  std::vector<Line> lines;
  for (const std::string& group : order) {
    const json& node = fp[group];
    if (group == "engine" && is_fact(node) && node["value"].is_null()) {
      lines.push_back({0, group, std::nullopt});
      lines.push_back(
          {1, "no engine: " + node.value("unknown", std::string("no reason given")), std::nullopt});
    } else if (group == "tuning" && node.is_null()) {
      lines.push_back({0, group, "none applied"});
    } else if (group == "tuning" && node.is_object() && node.contains("changes") &&
               node["changes"].is_array()) {
      lines.push_back({0, group, std::nullopt});
      for (const auto& [k, v] : node.items()) {
        if (k != "changes") walk(k, v, 1, lines);
      }
      lines.push_back({1, "changes", std::to_string(node["changes"].size())});
      for (const auto& c : node["changes"]) {
        const auto s = [&](const char* key) {
          return c.is_object() ? c.value(key, std::string("?")) : std::string("?");
        };
        lines.push_back({2,
                         fmt::format("- {}: {}: {} -> {}", s("setting"), s("file"), s("before"), s("after")),
                         std::nullopt});
      }
    } else {
      walk(group, node, 0, lines);
    }
  }
  std::size_t column = 0;
  for (const auto& l : lines) {
    const std::size_t end = 2 * l.depth + l.key.size();
    if (l.value && end <= kMaxKeyColumn) column = std::max(column, end);
  }
  column += 2;
  std::string out;
  for (const auto& l : lines) {
    if (l.depth == 0 && !out.empty()) out += '\n';  // a blank line between top-level groups
    std::string text = std::string(2 * l.depth, ' ') + l.key;
    if (l.value) {
      text += std::string(text.size() < column ? column - text.size() : 2, ' ') + *l.value;
    }
    out += text + '\n';
  }
  return out;
}

std::string key_facts(const records::Fingerprint& fp) {
  const auto& host = fp.host;
  const std::string hypervisor = host.show("virtualization.hypervisor");
  std::string out;
  out += fmt::format("host:       {} ({}, {} logical CPUs, {})\n", host.show("hostname"),
                     host.show("cpu.model_name"), host.show("cpu.logical"),
                     hypervisor == "none" ? "bare metal" : "virtual: " + hypervisor);
  out += fmt::format("system:     {} · {}\n", host.show("uname"), host.show("os.pretty_name"));
  out += fmt::format("toolchain:  {} · noisefloor {} ({})\n", fp.toolchain.show("go.version"),
                     fp.run ? fp.run->noisefloor_version : "unknown",
                     fp.run ? fp.run->noisefloor_commit : "unknown");
  if (fp.toolchain.text("valgrind.settings"))
    out += fmt::format("simulated:  {} {}\n", fp.toolchain.show("valgrind.version"),
                       fp.toolchain.show("valgrind.settings"));
  if (fp.doctor) {
    int warn = 0, bad = 0;
    std::string why;
    for (const auto& f : fp.doctor->findings) {
      if (f.level == fingerprint::Level::warn) ++warn;
      if (f.level != fingerprint::Level::bad) continue;
      ++bad;
      why +=
          fmt::format("\n            BAD {}: {}", fingerprint::topic_name(f), text::shorten(f.message, 90));
    }
    out += fmt::format("doctor:     {} ({} BAD, {} WARN: `noisefloor doctor` explains and fixes){}\n",
                       to_string(fp.doctor->grade), bad, warn, why);
  }
  if (fp.noise) out += fmt::format("noise:      {}\n", fingerprint::noise_line(*fp.noise));
  return out;
}

std::string noise_change_text(const fingerprint::NoiseChange& change) {
  using Figure = fingerprint::NoiseChange::Figure;
  constexpr std::array<std::pair<Figure, std::string_view>, 3> kNames{
      {{Figure::loop_cv, "loop CV"}, {Figure::steal, "steal"}, {Figure::run_delay, "run-queue delay"}}};
  if (!change.changed()) return "";
  std::string out =
      change.direction == fingerprint::NoiseChange::Direction::noisier ? "room noisier: " : "room quieter: ";
  for (std::size_t i = 0; i < change.moved.size(); ++i) {
    const auto& m = change.moved[i];
    out += fmt::format("{}{} {:.2f}% → {:.2f}%", i == 0 ? "" : ", ", model::word_of(m.figure, kNames, "?"),
                       m.before, m.after);
  }
  return out;
}

}  // namespace noisefloor::render
