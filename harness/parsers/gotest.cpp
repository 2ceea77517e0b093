#include "parsers/gotest.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cstdint>
#include <system_error>

#include "model/go_config.hpp"
#include "text/text.hpp"

namespace noisefloor::parsers {
namespace {

constexpr std::string_view kBenchmarkPrefix = "Benchmark";
constexpr std::string_view kFailMarker = "--- FAIL: ";

// Go's strings.Fields splits on Unicode space; these are the ASCII ones that occur in practice.
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    const std::size_t start = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > start) fields.push_back(line.substr(start, i - start));
  }
  return fields;
}

// The whole field must be the number: "12abc" is not a number.
template <typename T>
std::optional<T> parse_whole(std::string_view field) {
  // strconv.ParseFloat accepts a leading '+' ("+Inf"); std::from_chars does not.
  if (field.size() > 1 && field.front() == '+' && field[1] != '-') field.remove_prefix(1);
  T value{};
  const char* const end = field.data() + field.size();
  const auto [ptr, ec] = std::from_chars(field.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

// The next field of `line` from `at` (fields separated by spaces/tabs), advancing `at`; empty at
// the end.
std::string_view next_field(std::string_view line, std::size_t& at) {
  // is_space as a table: this loop reads every byte of a million-line file.
  static constexpr auto kSpace = [] {
    std::array<bool, 256> t{};
    for (const char c : {' ', '\t', '\r', '\n', '\v', '\f'}) t[static_cast<unsigned char>(c)] = true;
    return t;
  }();
  const char* const data = line.data();
  const std::size_t size = line.size();
  while (at < size && kSpace[static_cast<unsigned char>(data[at])]) ++at;
  const std::size_t start = at;
  while (at < size && !kSpace[static_cast<unsigned char>(data[at])]) ++at;
  return std::string_view(data + start, at - start);
}

std::optional<model::Measurement> parse_result_line(std::string_view line) {
  ResultFields f;
  if (!parse_result_fields(line, f)) return std::nullopt;
  model::Measurement m;
  m.name = text::name_safe(f.name);
  auto [benchmark, procs] = split_procs_suffix(m.name);
  m.benchmark = std::move(benchmark);
  m.procs = procs;
  m.iterations = f.iterations;
  m.metrics.reserve(f.values.size());
  for (std::size_t i = 0; i < f.values.size(); ++i)
    m.metrics.push_back(model::Metric{f.values[i], std::string(f.units[i])});
  return m;
}

bool is_config_key(std::string_view key) {
  if (key.empty() || key.front() < 'a' || key.front() > 'z') return false;
  for (const char c : key) {
    if (is_space(c) || (c >= 'A' && c <= 'Z')) return false;
  }
  return true;
}

// (key, value) when `line` is a configuration line; an empty value deletes the key.
std::optional<std::pair<std::string_view, std::string_view>> config_line(std::string_view line) {
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const std::string_view key = line.substr(0, colon);
  if (!is_config_key(key)) return std::nullopt;
  const std::string_view rest = line.substr(colon + 1);
  // "key:value" (no blank after the colon) is not a configuration line; "key:" alone is.
  if (!rest.empty() && rest.front() != ' ' && rest.front() != '\t') return std::nullopt;
  return std::pair{key, text::trim(rest)};
}

// Returns true when `line` is a configuration line (and applies it).
bool apply_config_line(std::string_view line, std::map<std::string, std::string>& config) {
  const auto kv = config_line(line);
  if (!kv) return false;
  if (kv->second.empty()) {
    config.erase(std::string(kv->first));
  } else {
    config.insert_or_assign(std::string(kv->first), std::string(kv->second));
  }
  return true;
}

}  // namespace

std::optional<std::pair<std::string_view, std::string_view>> config_entry(std::string_view line) {
  return config_line(line);
}

bool parse_result_fields(std::string_view line, ResultFields& out) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (!line.starts_with(kBenchmarkPrefix)) return false;
  std::size_t at = 0;
  out.name = next_field(line, at);
  const std::optional<std::int64_t> iterations = parse_whole<std::int64_t>(next_field(line, at));
  if (!iterations) return false;
  out.iterations = *iterations;
  out.values.clear();
  out.units.clear();
  // An even number of at least 4 fields: value/unit pairs after the name and the count.
  while (true) {
    const std::string_view value = next_field(line, at);
    if (value.empty()) break;
    const std::string_view unit = next_field(line, at);
    if (unit.empty()) return false;  // a value without its unit
    const std::optional<double> v = parse_whole<double>(value);
    if (!v) return false;
    out.values.push_back(*v);
    out.units.push_back(unit);
  }
  return !out.values.empty();
}

std::vector<std::pair<std::string, std::string>> config_lines(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string_view line : text::lines(text)) {
    if (line.starts_with(kBenchmarkPrefix)) break;
    // noisefloor writes what sets a condition apart as `# key: value` (benchstat ignores comments).
    const std::string_view body = line.starts_with("# ") ? line.substr(2) : line;
    if (const auto kv = config_line(body)) out.emplace_back(kv->first, kv->second);
  }
  return out;
}

std::pair<std::string, int> split_procs_suffix(std::string_view name) {
  const std::size_t dash = name.rfind('-');
  if (dash == std::string_view::npos || dash + 1 == name.size()) return {std::string(name), 1};
  const std::string_view digits = name.substr(dash + 1);
  for (const char c : digits) {
    if (c < '0' || c > '9') return {std::string(name), 1};
  }
  int procs = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), procs);
  if (ec != std::errc() || ptr != digits.data() + digits.size() || procs < 1) {
    return {std::string(name), 1};
  }
  return {std::string(name.substr(0, dash)), procs};
}

bool apply_unit_line(std::string_view line, model::UnitMetadata& units, std::vector<std::string>& errors) {
  const auto unit = model::parse_unit_line(line);
  if (!unit) return false;
  errors.insert(errors.end(), unit->errors.begin(), unit->errors.end());
  for (const auto& [key, value] : unit->pairs)
    if (auto conflict = units.set(unit->unit, key, value)) errors.push_back(std::move(*conflict));
  return true;
}

std::optional<model::Measurement> GoTestParser::feed_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  ++line_;

  // Checked on every line: Go prints the marker after the padded name of the failing benchmark,
  // and indents it for sub-benchmarks.
  if (const std::size_t at = line.find(kFailMarker); at != std::string_view::npos) {
    const std::vector<std::string_view> after = split_fields(line.substr(at + kFailMarker.size()));
    if (!after.empty()) output_.failures.emplace_back(after.front());
  }

  if (line.starts_with(kBenchmarkPrefix)) {
    std::optional<model::Measurement> m = parse_result_line(line);
    if (!m) {
      ++output_.skipped_lines;
      return std::nullopt;
    }
    m->config = config_text_;
    output_.measurements.push_back(*m);
    return m;
  }
  std::vector<std::string> errors;
  if (line.starts_with('U') && apply_unit_line(line, output_.units, errors)) {
    for (const std::string& e : errors) output_.unit_errors.push_back(fmt::format("line {}: {}", line_, e));
    return std::nullopt;
  }
  if (apply_config_line(line, output_.config)) config_text_ = model::config_text(output_.config);
  return std::nullopt;
}

GoTestOutput parse_gotest(std::string_view text) {
  GoTestParser parser;
  for (const std::string_view line : text::lines(text)) parser.feed_line(line);
  return parser.output();
}

}  // namespace noisefloor::parsers
