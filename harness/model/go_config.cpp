#include "model/go_config.hpp"

#include <algorithm>

#include "text/text.hpp"

namespace noisefloor::model {
namespace {

constexpr std::string_view kSeparator = ": ";

// A key or value on one line, kept escaped as names are (text::name_safe: a line break, ESC, a
// non-ASCII space, the verdict mark written out): configuration lines come from benchmark output
// and from result files, and are printed.
std::string one_line(const std::string& s) { return text::needs_name_escape(s) ? text::name_safe(s) : s; }

}  // namespace

std::string config_text(const std::map<std::string, std::string>& config) {
  std::string out;
  for (const auto& [key, value] : config) {
    if (!out.empty()) out += '\n';
    out += one_line(key);
    out += kSeparator;
    out += one_line(value);
  }
  return out;
}

std::string config_text(const ConfigEntries& entries) {
  std::map<std::string, std::string> config;
  for (const auto& [key, value] : entries) config.insert_or_assign(key, value);
  return config_text(config);
}

ConfigEntries config_entries(std::string_view text) {
  ConfigEntries out;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    const std::string_view line = text.substr(0, end);
    const std::size_t colon = line.find(kSeparator);
    if (colon == std::string_view::npos) {
      out.emplace_back(std::string(line), "");
    } else {
      out.emplace_back(std::string(line.substr(0, colon)),
                       std::string(line.substr(colon + kSeparator.size())));
    }
    text.remove_prefix(std::min(end + 1, text.size()));
  }
  return out;
}

std::string config_value(std::string_view text, std::string_view key) {
  for (auto& [k, v] : config_entries(text))
    if (k == key) return v;
  return "";
}

std::string config_only(std::string_view text, const std::set<std::string>& keys) {
  ConfigEntries kept;
  for (auto& entry : config_entries(text))
    if (keys.count(entry.first)) kept.push_back(std::move(entry));
  return config_text(kept);
}

std::string config_label(std::string_view text) {
  std::string out;
  for (const auto& [key, value] : config_entries(text)) {
    if (!out.empty()) out += ", ";
    out += key;
    out += kSeparator;
    out += value;
  }
  return out;
}

}  // namespace noisefloor::model
