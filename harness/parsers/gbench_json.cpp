#include "parsers/gbench_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>

#include "jsonread/parse.hpp"
#include "model/errors.hpp"
#include "text/text.hpp"

namespace noisefloor::parsers {
namespace {

using nlohmann::json;

// Keys of a benchmark entry that are not counters (json_reporter.cc, PrintRunData).
// clang-format off
constexpr std::array<std::string_view, 23> kFixedKeys = {
    "name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
    "repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit",
    "aggregate_name", "aggregate_unit", "error_occurred", "error_message", "skipped",
    "skip_message", "label", "big_o", "cpu_coefficient", "real_coefficient", "rms"};
// clang-format on

bool is_fixed_key(std::string_view key) {
  for (const std::string_view fixed : kFixedKeys) {
    if (key == fixed) return true;
  }
  return false;
}

bool is_non_finite_word(std::string_view word) {
  return word == "NaN" || word == "nan" || word == "Infinity" || word == "infinity" || word == "Inf" ||
         word == "inf";
}

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// json_reporter.cc writes non-finite doubles as bare NaN/-NaN/Infinity/-Infinity, which is not
// JSON; strings are copied untouched so a benchmark named "NaN" survives.
std::string replace_non_finite(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
      continue;
    }
    if (c == '-' || is_alpha(c)) {
      const std::size_t start = c == '-' ? i + 1 : i;
      std::size_t end = start;
      while (end < text.size() && is_alpha(text[end])) ++end;
      const std::string_view word = text.substr(start, end - start);
      if (is_non_finite_word(word)) {
        out += "null";
      } else {
        out.append(text.substr(i, end - i));
      }
      // A lone '-' (a negative number) consumed nothing after it.
      i = end > i ? end - 1 : i;
      continue;
    }
    out += c;
  }
  return out;
}

// Non-finite values were replaced with null: they come back as NaN, never as a fake number.
double number_or_nan(const json& value) {
  return value.is_null() ? std::numeric_limits<double>::quiet_NaN() : value.get<double>();
}

class EntryReader {
 public:
  EntryReader(const json& entry, std::size_t index) : entry_(entry), index_(index) {
    if (!entry_.is_object()) fail("expected an object");
    if (entry_.contains("name") && entry_["name"].is_string()) {
      name_ = entry_["name"].get<std::string>();
    }
  }

  [[noreturn]] void fail(std::string_view what) const {
    if (name_.empty()) throw ParseError(fmt::format("gbench json: benchmarks[{}]: {}", index_, what));
    throw ParseError(fmt::format("gbench json: benchmarks[{}] ('{}'): {}", index_, name_, what));
  }

  const json& require(std::string_view key) const {
    const auto it = entry_.find(key);
    if (it == entry_.end()) fail(fmt::format("missing key '{}'", key));
    return *it;
  }

  std::string string(std::string_view key) const {
    const json& value = require(key);
    if (!value.is_string()) fail(fmt::format("key '{}' is not a string", key));
    return value.get<std::string>();
  }

  // A number, or null for a non-finite value.
  double number(std::string_view key) const {
    const json& value = require(key);
    if (!value.is_number() && !value.is_null()) fail(fmt::format("key '{}' is not a number", key));
    return number_or_nan(value);
  }

  std::int64_t integer(std::string_view key) const {
    const json& value = require(key);
    if (value.is_number_unsigned()) {
      if (value.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        fail(fmt::format("key '{}' is out of range", key));
      }
      return static_cast<std::int64_t>(value.get<std::uint64_t>());
    }
    if (!value.is_number_integer()) fail(fmt::format("key '{}' is not an integer", key));
    return value.get<std::int64_t>();
  }

  bool flag(std::string_view key) const {
    const auto it = entry_.find(key);
    return it != entry_.end() && it->is_boolean() && it->get<bool>();
  }

  std::string message(std::string_view key) const {
    const auto it = entry_.find(key);
    return it != entry_.end() && it->is_string() ? it->get<std::string>() : std::string();
  }

 private:
  const json& entry_;
  std::size_t index_;
  std::string name_;
};

bool is_iteration(const json& entry) {
  const auto run_type = entry.find("run_type");
  if (run_type == entry.end()) return !entry.contains("aggregate_name");
  return run_type->is_string() && run_type->get<std::string>() == "iteration";
}

model::Measurement to_measurement(const json& entry, const EntryReader& reader) {
  model::Measurement m;
  m.name = text::name_safe(reader.string("name"));
  m.benchmark = m.name;
  if (entry.contains("threads")) {
    const std::int64_t threads = reader.integer("threads");
    if (threads < 1 || threads > std::numeric_limits<int>::max()) {
      reader.fail(fmt::format("threads {} is out of range (expected at least 1)", threads));
    }
    m.procs = static_cast<int>(threads);
  }
  m.iterations = reader.integer("iterations");

  const std::string time_unit = reader.string("time_unit");
  if (time_unit != "ns" && time_unit != "us" && time_unit != "ms" && time_unit != "s") {
    reader.fail(fmt::format("unknown time_unit '{}' (expected ns, us, ms or s)", time_unit));
  }
  m.metrics.push_back({reader.number("real_time"), time_unit + "/op"});
  m.metrics.push_back({reader.number("cpu_time"), "cpu-" + time_unit + "/op"});
  // nlohmann::json objects are std::map-backed, so this iterates in key order.
  for (const auto& [key, value] : entry.items()) {
    if (is_fixed_key(key) || !(value.is_number() || value.is_null())) continue;
    m.metrics.push_back({number_or_nan(value), key});
  }
  return m;
}

}  // namespace

void GbenchEntries::add(const json& entry) {
  const std::size_t i = next_++;
  const EntryReader reader(entry, i);
  if (!entry.is_object()) reader.fail("not an object");
  if (!is_iteration(entry)) return;
  if (reader.flag("error_occurred")) {
    out_.errors.push_back(fmt::format("{}: {}", reader.string("name"), reader.message("error_message")));
    return;
  }
  if (reader.flag("skipped")) {
    out_.errors.push_back(
        fmt::format("{}: skipped: {}", reader.string("name"), reader.message("skip_message")));
    return;
  }
  model::Measurement m = to_measurement(entry, reader);
  // A name the program registered more than once (two families, or two instances of one, that
  // print the same name) is kept apart as Go keeps apart duplicate sub-benchmarks: the second
  // instance seen becomes "<name>#01", the third "#02". The family and instance indexes say
  // which is which (libbenchmark >= 1.6 writes them).
  const auto family = entry.find("family_index"), instance = entry.find("per_family_instance_index");
  if (family != entry.end() && instance != entry.end() && family->is_number_integer() &&
      instance->is_number_integer()) {
    auto& seen = instances_[m.name];
    const std::pair<std::int64_t, std::int64_t> id{family->get<std::int64_t>(),
                                                   instance->get<std::int64_t>()};
    auto it = std::find(seen.begin(), seen.end(), id);
    const bool first_time = it == seen.end();
    if (first_time) it = seen.insert(seen.end(), id);
    if (const auto k = static_cast<std::size_t>(it - seen.begin()); k > 0) {
      const std::string kept = fmt::format("{}#{:02d}", m.name, k);
      if (first_time)
        out_.notes.push_back(
            fmt::format("{} is registered more than once (family {}, instance {} and family {}, "
                        "instance {}): kept apart as {}",
                        m.name, seen.front().first, seen.front().second, id.first, id.second, kept));
      m.name = m.benchmark = kept;
    }
  }
  out_.measurements.push_back(std::move(m));
}

GbenchOutput parse_gbench_json(std::string_view text) {
  json doc;
  try {
    doc = jsonread::parse_json(replace_non_finite(text), "Google Benchmark's JSON");
  } catch (const json::exception& e) {  // a parse error, or a number out of range (out_of_range.406)
    // e.what() is "[json.exception.parse_error.101] parse error at line 1, column 2: ...".
    std::string what = e.what();
    if (const std::size_t bracket = what.find("] "); bracket != std::string::npos) {
      what.erase(0, bracket + 2);
    }
    throw ParseError(fmt::format("gbench json: invalid json: {}", what));
  }
  if (!doc.is_object()) throw ParseError("gbench json: expected an object at the top level");

  GbenchEntries entries;
  if (const auto context = doc.find("context"); context != doc.end()) {
    if (!context->is_object()) throw ParseError("gbench json: 'context' is not an object");
    entries.output().context = *context;
  }
  const auto benchmarks = doc.find("benchmarks");
  if (benchmarks == doc.end()) throw ParseError("gbench json: missing key 'benchmarks'");
  if (!benchmarks->is_array()) throw ParseError("gbench json: 'benchmarks' is not an array");
  for (const json& entry : *benchmarks) entries.add(entry);
  return std::move(entries.output());
}

std::vector<model::Measurement> GbenchStream::feed_line(std::string_view line) {
  const std::size_t before = entries_.output().measurements.size();
  // Walks the line (and its newline) keeping the nesting outside strings; an object that opens
  // directly inside the top-level object's array (the "benchmarks" list) is captured whole and read
  // when it closes. The library flushes after each benchmark's repetitions, so entries arrive
  // while the program still runs.
  for (std::size_t i = 0; i <= line.size(); ++i) {
    const char c = i < line.size() ? line[i] : '\n';
    if (capturing_) entry_ += c;
    if (in_string_) {
      if (escaped_) {
        escaped_ = false;
      } else if (c == '\\') {
        escaped_ = true;
      } else if (c == '"') {
        in_string_ = false;
      }
      continue;
    }
    switch (c) {
      case '"':
        in_string_ = true;
        break;
      case '{':
      case '[':
        if (c == '{' && stack_.size() == 2 && stack_[0] == '{' && stack_[1] == '[' && !capturing_) {
          capturing_ = true;
          entry_ = "{";
        }
        stack_.push_back(c);
        break;
      case '}':
      case ']':
        if (!stack_.empty()) stack_.pop_back();
        if (capturing_ && stack_.size() == 2) {
          capturing_ = false;
          try {
            entries_.add(jsonread::parse_json(replace_non_finite(entry_), "Google Benchmark's JSON"));
          } catch (const json::exception&) {
            // Not an entry the stream can read alone: the whole output is read at the end, and
            // says what is wrong with it.
            broken_ = true;
          } catch (const Error&) {
            broken_ = true;
          }
          entry_.clear();
        }
        break;
      default:
        break;
    }
  }
  const auto& all = entries_.output().measurements;
  return {all.begin() + static_cast<std::ptrdiff_t>(before), all.end()};
}

}  // namespace noisefloor::parsers
