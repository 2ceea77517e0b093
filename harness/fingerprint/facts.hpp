// Facts: what the probes found out about the room, each either known or unknown with a reason.
// Pure.
//
// Fact shape (probe_host, probe_load, probe_toolchain write it; diagnose and the renderers read it):
//   known    {"value": <any JSON>}                     e.g. {"value": "performance"}
//   unknown  {"value": null, "unknown": "<reason>"}    e.g. {"value": null, "unknown":
//            "missing /sys/devices/system/cpu/cpu0/cpufreq (no cpufreq driver; usual in VMs)"}
// A fact may carry extra keys that explain it ("source", "evidence", "note"); they are never
// needed to read the value. Any JSON object WITH a "value" key is a fact; objects without one are
// groups of facts ("cpu", "frequency", ...). Reasons are lower-case and name the file or command.
// Values that may differ per CPU (governor, frequencies, driver) are one plain value when every
// online CPU agrees, else an object keyed by canonical CPU list: {"0-3": "performance", "4-7": ...}.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace noisefloor::fingerprint {

// ---- building and reading the fact shape (for the probes and the doctor) ----
nlohmann::json known(nlohmann::json value);
nlohmann::json unknown(std::string reason);
bool is_fact(const nlohmann::json& j);   // an object with a "value" key
bool is_known(const nlohmann::json& j);  // a fact whose value is not null
// The value of the fact at a '.'-separated path ("frequency.governor"), or nullptr when the path
// is missing, is not a fact, or the fact is unknown.
const nlohmann::json* known_value(const nlohmann::json& root, std::string_view path);
// The "unknown" reason of the fact at path; "missing" when the path is absent.
std::string unknown_reason(const nlohmann::json& root, std::string_view path);
// One value when every entry agrees, else {"<cpu list>": value, ...}; null for an empty map.
nlohmann::json collapse_per_cpu(const std::map<int, nlohmann::json>& per_cpu);

// A document of facts as a probe wrote it (its layout is documented by the probe, host.hpp),
// read through typed accessors by '.'-separated path. Every accessor answers nullopt for a path
// that is missing, unknown, or holds another type.
class FactTree {
 public:
  FactTree();
  explicit FactTree(nlohmann::json document);

  std::optional<std::string> text(std::string_view path) const;
  std::optional<double> number(std::string_view path) const;
  std::optional<bool> flag(std::string_view path) const;
  // The value as a person reads it: strings unquoted, other values as compact JSON, "unknown"
  // when the fact is unknown or missing.
  std::string show(std::string_view path) const;
  // Why the fact at path is unknown; "missing" when there is no such fact, "" when it is known.
  std::string reason(std::string_view path) const;
  bool empty() const;

  // The probe's own document: for the probes that build it and the doctor that reads it whole.
  const nlohmann::json& document() const { return document_; }
  nlohmann::json& document() { return document_; }

  friend bool operator==(const FactTree&, const FactTree&) = default;

 private:
  nlohmann::json document_;
};
void to_json(nlohmann::json& j, const FactTree& tree);
void from_json(const nlohmann::json& j, FactTree& tree);

// /proc/loadavg, read before and after every condition (probe_load).
struct LoadAverage {
  double one = 0, five = 0, fifteen = 0;  // 1-, 5- and 15-minute load averages
  int running = 0, total = 0;             // runnable tasks (the reader included) and all tasks
  friend bool operator==(const LoadAverage&, const LoadAverage&) = default;
};
struct LoadReading {
  std::optional<LoadAverage> value;  // nullopt: unknown, and `unknown` says why
  std::string unknown;
  friend bool operator==(const LoadReading&, const LoadReading&) = default;
};
// The fact shape: {"value": {"one", "five", "fifteen", "running", "total"}} or
// {"value": null, "unknown": reason}. from_json also reads the flat shape of the first 0.1
// results ({"load1", "load5", "load15", "runnable", "tasks"}).
void to_json(nlohmann::json& j, const LoadReading& load);
void from_json(const nlohmann::json& j, LoadReading& load);

}  // namespace noisefloor::fingerprint
