#include "records/fingerprint.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>

#include "jsonread/number.hpp"
#include "model/errors.hpp"
#include "text/text.hpp"

namespace noisefloor::records {

using nlohmann::json;

bool Fingerprint::empty() const {
  return !run && !version && host.empty() && toolchain.empty() && !env && !benchmark_env && !engine &&
         engine_unknown.empty() && !tuning && !doctor && !noise && gotest.empty();
}

std::string Fingerprint::host_line() const {
  const auto line = host.text("one_line");
  return line ? *line : "unknown host";
}

std::optional<fingerprint::LoadAverage> Fingerprint::host_load() const {
  const json& doc = host.document();
  if (!doc.contains("load")) return std::nullopt;
  return doc.at("load").get<fingerprint::LoadReading>().value;
}

void to_json(json& j, const RunFacts& r) {
  j = {{"started_utc", r.started_utc},
       {"command_line", r.command_line},
       {"experiment_file", r.experiment_file},
       {"experiment_sha256", r.experiment_sha256},
       {"noisefloor_version", r.noisefloor_version},
       {"noisefloor_commit", r.noisefloor_commit}};
  if (!r.finished_utc.empty()) j["finished_utc"] = r.finished_utc;
  if (r.schedule) {
    j["schedule"] = model::name_of(*r.schedule);
    j["order"] = model::order_words(*r.schedule);
  }
  if (r.pairing) {
    j["pairing"] = model::name_of(*r.pairing);
    j["paired_order"] = model::order_words(*r.pairing);
  }
  if (r.gate) j["gate"] = *r.gate;
}

void from_json(const json& j, RunFacts& r) {
  r = {};
  r.started_utc = j.value("started_utc", "");
  r.finished_utc = j.value("finished_utc", "");
  r.command_line = j.value("command_line", "");
  r.experiment_file = text::name_safe(j.value("experiment_file", ""));  // printed: kept escaped
  r.experiment_sha256 = j.value("experiment_sha256", "");
  r.noisefloor_version = j.value("noisefloor_version", "");
  r.noisefloor_commit = j.value("noisefloor_commit", "");
  if (j.contains("schedule"))
    r.schedule = model::from_name<model::Schedule>(j.at("schedule").get<std::string>());
  if (j.contains("pairing")) r.pairing = model::from_name<model::Pairing>(j.at("pairing").get<std::string>());
  if (j.contains("gate")) r.gate = j.at("gate").get<RunFacts::Gate>();
}

json gate_side_json(const model::GateSide& s) {
  return {{"ref", s.ref},
          {"commit", s.commit},
          {"tree", s.tree},
          {"worktree", s.worktree},
          {"dirty", s.dirty},
          {"changed", s.changed},
          {"build_key", s.build_key},
          {"cached", s.cached},
          {"binary_sha256", s.binary_sha256}};
}

namespace {

model::GateSide side_from(const json& j) {
  model::GateSide s;
  s.ref = j.value("ref", "");
  s.commit = j.at("commit").get<std::string>();
  s.tree = j.at("tree").get<std::string>();
  s.worktree = j.value("worktree", false);
  s.dirty = j.value("dirty", false);
  s.changed = j.value("changed", std::vector<std::string>{});
  s.build_key = j.value("build_key", "");
  s.cached = j.value("cached", false);
  s.binary_sha256 = j.value("binary_sha256", "");
  return s;
}

}  // namespace

void to_json(json& j, const RunFacts::Gate& g) {
  j = {{"base", gate_side_json(g.base)},
       {"head", gate_side_json(g.head)},
       {"threshold", g.settings.threshold},
       {"confidence", g.settings.confidence},
       {"power", g.settings.power},
       {"confirm", g.settings.confirm ? json(*g.settings.confirm) : json(nullptr)},
       {"max_repeats", g.settings.max_repeats},
       {"first_repeats", g.settings.first_repeats},
       {"sequential", g.settings.sequential},
       {"gating_units", g.settings.gating_units}};
}

void from_json(const json& j, RunFacts::Gate& g) {
  g = {};
  g.base = side_from(j.at("base"));
  g.head = side_from(j.at("head"));
  g.settings.threshold = j.value("threshold", g.settings.threshold);
  g.settings.confidence = j.value("confidence", g.settings.confidence);
  g.settings.power = j.value("power", g.settings.power);
  // null: as many rows decide (§3.13); results before it recorded true or false.
  if (const auto c = j.find("confirm"); c != j.end() && c->is_boolean()) g.settings.confirm = c->get<bool>();
  g.settings.max_repeats = jsonread::whole_number<int>(j, "max_repeats", g.settings.max_repeats);
  g.settings.first_repeats = jsonread::whole_number<int>(j, "first_repeats", g.settings.first_repeats);
  g.settings.sequential = j.value("sequential", g.settings.sequential);
  g.settings.gating_units = j.value("gating_units", std::vector<std::string>{});
}

void to_json(json& j, const Fingerprint& f) {
  j = json::object();
  if (f.run) {
    j["schema_version"] = kFingerprintSchemaVersion;
    j["run"] = *f.run;
  }
  if (f.version) {
    const auto open = f.version->find(" (");
    j["noisefloor"] = {
        {"version", f.version->substr(0, open)},
        {"commit",
         open == std::string::npos ? "" : f.version->substr(open + 2, f.version->size() - open - 3)}};
  }
  if (!f.host.empty()) j["host"] = f.host;
  if (!f.toolchain.empty()) j["toolchain"] = f.toolchain;
  if (f.env) j["env"] = *f.env;
  if (f.benchmark_env) j["benchmark_env"] = *f.benchmark_env;
  if (f.engine)
    j["engine"] = *f.engine;
  else if (!f.engine_unknown.empty())
    j["engine"] = fingerprint::unknown(f.engine_unknown);
  if (f.tuning) j["tuning"] = *f.tuning;
  if (f.doctor) j["doctor"] = *f.doctor;
  if (f.noise) j["noise"] = *f.noise;
  if (!f.gotest.empty()) j["gotest"] = f.gotest;
}

void from_json(const json& j, Fingerprint& f) {
  f = {};
  if (!j.is_object()) throw ParseError("fingerprint: not a JSON object");
  try {
    jsonread::check_schema_version(j, kFingerprintSchemaVersion, "fingerprint: ");
    if (j.contains("run")) f.run = j.at("run").get<RunFacts>();
    if (j.contains("noisefloor")) {
      const json& n = j.at("noisefloor");
      f.version = fmt::format("{} ({})", n.value("version", ""), n.value("commit", ""));
    }
    if (j.contains("host")) f.host = j.at("host").get<fingerprint::FactTree>();
    if (j.contains("toolchain")) f.toolchain = j.at("toolchain").get<fingerprint::FactTree>();
    if (j.contains("env")) f.env = j.at("env").get<std::map<std::string, std::string>>();
    if (j.contains("benchmark_env"))
      f.benchmark_env = j.at("benchmark_env").get<std::map<std::string, std::string>>();
    if (j.contains("engine")) {
      const json& e = j.at("engine");
      if (fingerprint::is_fact(e))
        f.engine_unknown = fingerprint::unknown_reason(j, "engine");
      else
        f.engine = e.get<fingerprint::EngineFacts>();
    }
    if (j.contains("tuning")) f.tuning = j.at("tuning").get<fingerprint::TuningStatus>();
    if (j.contains("doctor")) f.doctor = j.at("doctor").get<fingerprint::DoctorReport>();
    if (j.contains("noise")) f.noise = j.at("noise").get<fingerprint::NoiseProfile>();
    if (j.contains("gotest")) f.gotest = j.at("gotest").get<std::map<std::string, std::string>>();
  } catch (const json::exception& e) {
    throw ParseError(fmt::format("fingerprint: {}", e.what()));
  }
}

// ---- the facts as leaves ----------------------------------------------------------------------

namespace {

std::string shown_fact(const json* node) {
  if (node == nullptr) return "(absent)";
  if (fingerprint::is_fact(*node)) {
    if (node->at("value").is_null()) {
      const auto it = node->find("unknown");
      return it != node->end() && it->is_string() ? "unknown (" + it->get<std::string>() + ")" : "null";
    }
    return shown_fact(&node->at("value"));
  }
  if (node->is_string()) return node->get<std::string>();
  return node->dump();
}

// The comparable content of a leaf: a fact's value (or its unknown reason), else the node.
json fact_content(const json* node) {
  if (node == nullptr) return json{{"absent", true}};
  if (fingerprint::is_fact(*node)) {
    if (node->at("value").is_null()) return json{{"unknown", node->value("unknown", "")}};
    return node->at("value");
  }
  return *node;
}

bool is_group(const json* node) {
  return node != nullptr && node->is_object() && !fingerprint::is_fact(*node);
}

std::string below(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

void walk_changes(const json* a, const json* b, const std::string& path, std::vector<FactChange>& out) {
  if (is_group(a) || is_group(b)) {
    if (!(is_group(a) && is_group(b)) && a != nullptr && b != nullptr) {
      out.push_back({path, shown_fact(a), shown_fact(b), true, false});
      return;
    }
    std::set<std::string> keys;
    for (const json* side : {a, b})
      if (is_group(side))
        for (auto it = side->begin(); it != side->end(); ++it) keys.insert(it.key());
    for (const auto& key : keys) {
      const json* ca = is_group(a) && a->contains(key) ? &a->at(key) : nullptr;
      const json* cb = is_group(b) && b->contains(key) ? &b->at(key) : nullptr;
      walk_changes(ca, cb, below(path, key), out);
    }
    return;
  }
  if (fact_content(a) == fact_content(b)) return;
  out.push_back({path, shown_fact(a), shown_fact(b), false, a == nullptr || b == nullptr});
}

void walk_leaves(const json& node, const std::string& path,
                 std::vector<std::pair<std::string, std::string>>& out) {
  if (is_group(&node)) {
    for (auto it = node.begin(); it != node.end(); ++it) walk_leaves(it.value(), below(path, it.key()), out);
    return;
  }
  out.emplace_back(path, fact_content(&node).dump());
}

}  // namespace

std::vector<FactChange> fact_changes(const Fingerprint& fa, const Fingerprint& fb) {
  const json a = fa, b = fb;
  std::vector<FactChange> out;
  walk_changes(&a, &b, "", out);
  return out;
}

std::vector<std::pair<std::string, std::string>> fact_leaves(const Fingerprint& fingerprint) {
  const json j = fingerprint;
  std::vector<std::pair<std::string, std::string>> out;
  walk_leaves(j, "", out);
  return out;
}

}  // namespace noisefloor::records
