#include "records/documents.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "jsonread/parse.hpp"
#include "model/errors.hpp"
#include "text/text.hpp"

namespace noisefloor::records {
namespace {

using nlohmann::json;

// Every string of `j`, object keys too, written out as names are (text::name_safe).
void escape_strings(json& j) {
  if (j.is_string()) {
    auto& s = j.get_ref<std::string&>();
    if (text::needs_name_escape(s)) s = text::name_safe(s);
  } else if (j.is_array()) {
    for (json& item : j) escape_strings(item);
  } else if (j.is_object()) {
    bool keys = false;
    for (auto it = j.begin(); it != j.end(); ++it) {
      escape_strings(it.value());
      keys = keys || text::needs_name_escape(it.key());
    }
    if (!keys) return;
    json safe = json::object();
    for (auto it = j.begin(); it != j.end(); ++it) safe[text::name_safe(it.key())] = std::move(it.value());
    j = std::move(safe);
  }
}

// A document of a results tree, parsed as jsonread::parse_json does, every string name-safe.
json parse_document(std::string_view text, std::string_view what) {
  json j = jsonread::parse_json(text, what);
  escape_strings(j);
  return j;
}

// run.json or fingerprint.json: a JSON object of what noisefloor writes. Both are optional, so a
// damaged one can be restored, or removed to read the samples without it.
template <typename T>
T decode_document(const std::string& text, const std::string& file) {
  const auto damaged = [&](const std::string& what) {
    return InputError(fmt::format("{}: {} (restore the file, or remove it: the samples are read without it)",
                                  file, plain_json_message(what)));
  };
  try {
    const json j = parse_document(text, "the document");
    if (!j.is_object()) throw damaged(fmt::format("expected a JSON object, got {}", j.type_name()));
    return j.get<T>();
  } catch (const json::exception& e) {
    throw damaged(e.what());
  } catch (const ParseError& e) {
    if (std::string_view(e.what()).find("newer than this noisefloor") != std::string_view::npos)
      throw InputError(fmt::format("{}: {}", file, plain_json_message(e.what())));
    throw damaged(e.what());
  }
}

// The 0.1 metadata in a parsed summary.json (throws json::exception where it is not that).
void apply_summary(RunRecord& run, const json& summary) {
  if (!summary.is_object()) return;
  const json experiment = summary.value("experiment", json::object());
  if (run.description.empty() && experiment.is_object())
    run.description = experiment.value("description", "");
  if (run.experiment_file.empty() && experiment.is_object())
    run.experiment_file = experiment.value("file", "");
  if (!run.comparison && summary.contains("comparison") && summary["comparison"].is_object()) {
    run.comparison = summary["comparison"].get<ComparisonSettings>();
    // 0.1 wrote the paired design's settings only; blocks had no A/A rows.
    run.comparison->blocks = summary.contains("paired") && summary["paired"].is_array() &&
                             !summary["paired"].empty() &&
                             std::all_of(summary["paired"].begin(), summary["paired"].end(),
                                         [](const json& p) { return p.value("design", "") == "blocks"; });
  }
  if (run.adaptive.empty() && summary.contains("adaptive") && summary["adaptive"].is_object())
    run.adaptive = summary["adaptive"].get<std::map<std::string, AdaptiveOutcome>>();
}

}  // namespace

std::string document_text(const RunRecord& run) { return json(run).dump(2) + "\n"; }
std::string document_text(const Fingerprint& fingerprint) { return json(fingerprint).dump(2) + "\n"; }
std::string document_text(const FleetRecord& fleet) { return json(fleet).dump(2) + "\n"; }
std::string sample_line(const Sample& sample) { return json(sample).dump(); }

RunRecord run_from_text(const std::string& text, const std::string& file) {
  return decode_document<RunRecord>(text, file);
}

Fingerprint fingerprint_from_text(const std::string& text, const std::string& file) {
  return decode_document<Fingerprint>(text, file);
}

FleetRecord fleet_from_text(const std::string& text) {
  try {
    return parse_document(text, "fleet.json").get<FleetRecord>();
  } catch (const json::exception& e) {
    throw Error(plain_json_message(e.what()));
  }
}

Sample sample_from_line(std::string_view line) {
  try {
    return jsonread::parse_json(line, "a sample").get<Sample>();
  } catch (const json::parse_error& e) {
    // The library says "parse error at line 1, column C: <why>" of the one line: C is its position.
    std::string why = plain_json_message(e.what());
    const auto colon = why.find(": ");
    if (why.starts_with("parse error at ") && colon != std::string::npos) why.erase(0, colon + 2);
    throw SampleLineError("invalid JSON: " + why, e.byte);
  } catch (const std::exception& e) {  // JSON, but not a sample: the reader's words, the library's made plain
    throw SampleLineError(plain_json_message(e.what()), 0);
  }
}

std::string run_status_from_text(const std::string& text) {
  try {
    return parse_document(text, "run.json").value("status", std::string("unknown"));
  } catch (const json::exception& e) {
    throw Error(plain_json_message(e.what()));
  }
}

void fill_from_summary(RunRecord& run, const std::string& summary_text) {
  try {
    json summary = jsonread::parse_json_members(summary_text, "summary.json",
                                                {"adaptive", "comparison", "experiment", "paired"});
    escape_strings(summary);
    apply_summary(run, summary);
  } catch (const json::exception&) {
  } catch (const ParseError&) {
  }
}

std::string plain_json_message(std::string message) {
  for (const std::string_view noise :
       {"syntax error while parsing value - ", "syntax error while parsing object key - ",
        "syntax error while parsing object separator - ", "syntax error while parsing object - ",
        "syntax error while parsing array - "}) {
    for (auto at = message.find(noise); at != std::string::npos; at = message.find(noise))
      message.erase(at, noise.size());
  }
  for (auto at = message.find("[json.exception."); at != std::string::npos;
       at = message.find("[json.exception.")) {
    const auto end = message.find("] ", at);
    if (end == std::string::npos) break;
    message.erase(at, end + 2 - at);
  }
  return message;
}

}  // namespace noisefloor::records
