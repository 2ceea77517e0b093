#include "records/run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "jsonread/number.hpp"
#include "model/cpulist.hpp"
#include "model/errors.hpp"
#include "records/sample.hpp"
#include "text/text.hpp"

namespace noisefloor::records {

using nlohmann::json;

Accounting accounting_of(const probe::ProbeRun& run, MeasuredBy by) {
  Accounting a;
  a.usage = run.usage;
  a.measured_by = by;
  if (by == MeasuredBy::container) a.cgroup = run.cgroup;
  a.run_queue = run.run_queue;
  a.counters = run.counters;
  a.launcher_noop_seconds = run.noop_seconds;
  a.launcher_unknown = run.noop_unknown;
  return a;
}

namespace {

json optional_json(const auto& value) { return value ? json(*value) : json(nullptr); }

template <typename T>
void read_optional(const json& j, const char* key, std::optional<T>& out) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return;
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    out = jsonread::whole_number<T>(*it, key);
  } else {
    out = it->template get<T>();
  }
}

// A closed set's value by its name ("" when absent); ParseError for a name it does not have.
template <typename E>
E closed_set(const json& j, const char* key) {
  const std::string text = j.value(key, "");
  if (const auto value = model::from_name<E>(text)) return *value;
  std::vector<std::string_view> known;
  for (const auto& [value, name] : names(E{}))
    if (!name.empty()) known.push_back(name);
  throw ParseError(fmt::format("{}: \"{}\" is not one of: {}", key, text, fmt::join(known, ", ")));
}

RunStatus status_from(const std::string& text) {
  return model::from_name<RunStatus>(text).value_or(RunStatus::complete);  // as 0.1 read any other word
}

// A CPU list written as text; "unpinned" (spinners) and "" are the empty list.
std::vector<int> cpus_from(const json& j) {
  if (!j.is_string()) return {};
  const std::string text = j.get<std::string>();
  if (text == "unpinned") return {};
  return model::parse_cpu_list(text).value_or(std::vector<int>{});
}

}  // namespace

std::string_view to_string(RunStatus status) { return model::name_of(status); }

void to_json(json& j, const ComparisonSettings& v) {
  j = {{"baseline", v.baseline},
       {"aa", v.aa},
       {"threshold", v.threshold},
       {"design", v.blocks ? "blocks" : "paired"}};
}

void from_json(const json& j, ComparisonSettings& v) {
  v = {};
  v.baseline = j.value("baseline", "");
  v.aa = j.value("aa", true);
  v.threshold = j.value("threshold", 0.01);
  v.blocks = j.value("design", "paired") == "blocks";
}

void to_json(json& j, const AdaptiveOutcome& v) {
  j = {{"converged", v.converged},
       {"samples", v.samples},
       {"halfwidth", optional_json(v.halfwidth)},
       {"target", v.target},
       {"stopped_by", model::name_of(v.stopped_by)},
       {"rule", v.rule}};
}

void from_json(const json& j, AdaptiveOutcome& v) {
  v = {};
  v.converged = j.value("converged", false);
  v.samples = jsonread::whole_number<decltype(v.samples)>(j, "samples", 0);
  read_optional(j, "halfwidth", v.halfwidth);
  v.target = j.value("target", 0.0);
  v.stopped_by = closed_set<StopReason>(j, "stopped_by");
  v.rule = j.value("rule", "");
}

void to_json(json& j, const ConditionSetup& v) {
  j = json::object();
  if (v.spinners) {
    const SpinnerSetup& s = *v.spinners;
    j["spinners"] = {{"count", s.count},
                     {"cpus", s.cpus.empty() ? "unpinned" : model::format_cpu_list(s.cpus)},
                     {"pids", s.pids}};
    if (s.nice) j["spinners"]["nice"] = *s.nice;
    if (!s.containers.empty()) j["spinners"]["containers"] = s.containers;
  }
  if (!v.affinity.empty()) j["affinity"] = model::format_cpu_list(v.affinity);
  if (v.nice) j["nice"] = *v.nice;
  if (v.container) {
    const ContainerSetup& c = *v.container;
    j["container"] = {{"image", c.image},
                      {"cpuset", optional_json(c.cpuset)},
                      {"cpus", optional_json(c.cpus)},
                      {"memory", optional_json(c.memory)},
                      {"memory_swap", optional_json(c.memory_swap)},
                      {"network", c.network},
                      {"read_only", c.read_only},
                      {"pids_limit", c.pids_limit}};
    if (c.perf_events) j["container"]["perf_events"] = true;
  }
  if (!v.args.empty()) j["args"] = v.args;
  if (!v.env.empty()) j["env"] = v.env;
}

void from_json(const json& j, ConditionSetup& v) {
  v = {};
  if (const auto it = j.find("spinners"); it != j.end() && it->is_object()) {
    SpinnerSetup s;
    s.count = jsonread::whole_number<decltype(s.count)>(*it, "count", 0);
    s.cpus = cpus_from(it->value("cpus", json()));
    s.pids = jsonread::whole_numbers<int>(*it, "pids");
    read_optional(*it, "nice", s.nice);
    s.containers = it->value("containers", std::vector<std::string>{});
    v.spinners = s;
  }
  v.affinity = cpus_from(j.value("affinity", json()));
  read_optional(j, "nice", v.nice);
  if (const auto it = j.find("container"); it != j.end() && it->is_object()) {
    ContainerSetup c;
    c.image = it->value("image", "");
    read_optional(*it, "cpuset", c.cpuset);
    read_optional(*it, "cpus", c.cpus);
    read_optional(*it, "memory", c.memory);
    read_optional(*it, "memory_swap", c.memory_swap);
    c.network = it->value("network", "");
    c.read_only = it->value("read_only", true);
    c.pids_limit = jsonread::whole_number<std::int64_t>(*it, "pids_limit", 0);
    c.perf_events = it->value("perf_events", false);
    v.container = c;
  }
  v.args = j.value("args", std::vector<std::string>{});
  v.env = j.value("env", std::map<std::string, std::string>{});
}

void to_json(json& j, const InvocationDetails& v) {
  j = json::object();
  if (v.affinity)
    j["affinity"] = model::format_cpu_list(*v.affinity);
  else if (!v.affinity_unknown.empty())
    j["affinity"] = fmt::format("unknown ({})", v.affinity_unknown);
  if (v.nice) j["nice"] = *v.nice;
  if (v.container) {
    const ContainerRun& c = *v.container;
    j["container"] = {{"id", c.id},
                      {"name", c.name},
                      {"image", c.image},
                      {"image_id", c.image_id},
                      {"started_at", c.started_at},
                      {"finished_at", c.finished_at},
                      {"exit_code", c.exit_code},
                      {"oom_killed", c.oom_killed},
                      {"timed_out", c.timed_out}};
  }
  if (v.limits_engine) j["limits_engine"] = *v.limits_engine;
  if (v.limits_inside) j["limits_inside"] = *v.limits_inside;
  if (!v.probe.empty()) j["probe"] = v.probe;
  if (v.verification) j["verification"] = *v.verification;
}

void from_json(const json& j, InvocationDetails& v) {
  v = {};
  if (const auto it = j.find("affinity"); it != j.end() && it->is_string()) {
    const std::string text = it->get<std::string>();
    if (auto cpus = model::parse_cpu_list(text)) {
      v.affinity = *cpus;
    } else {
      v.affinity_unknown =
          text.rfind("unknown (", 0) == 0 && text.back() == ')' ? text.substr(9, text.size() - 10) : text;
    }
  }
  read_optional(j, "nice", v.nice);
  if (const auto it = j.find("container"); it != j.end() && it->is_object()) {
    ContainerRun c;
    c.id = it->value("id", "");
    c.name = it->value("name", "");
    c.image = it->value("image", "");
    c.image_id = it->value("image_id", "");
    c.started_at = it->value("started_at", "");
    c.finished_at = it->value("finished_at", "");
    c.exit_code = jsonread::whole_number<std::int64_t>(*it, "exit_code", 0);
    c.oom_killed = it->value("oom_killed", false);
    c.timed_out = it->value("timed_out", false);
    v.container = c;
  }
  read_optional(j, "limits_engine", v.limits_engine);
  read_optional(j, "limits_inside", v.limits_inside);
  if (const auto it = j.find("probe"); it != j.end() && it->is_object())
    for (const auto& [key, value] : it->items())
      if (value.is_string()) v.probe[key] = value.get<std::string>();
  read_optional(j, "verification", v.verification);
}

void to_json(json& j, const Accounting& v) {
  j = json::object();
  if (v.usage) {
    j["usage"] = *v.usage;
    j["measured_by"] = model::name_of(v.measured_by);
  }
  if (v.cgroup) j["cgroup_cpu"] = *v.cgroup;
  if (v.run_queue) j["run_queue"] = *v.run_queue;
  if (v.counters) j["counters"] = *v.counters;
  if (!v.launcher_noop_seconds.empty() || !v.launcher_unknown.empty()) {
    j["launcher"] = {{"noop_s", v.launcher_noop_seconds}};
    if (!v.launcher_unknown.empty()) j["launcher"]["unknown"] = v.launcher_unknown;
  }
}

void from_json(const json& j, Accounting& v) {
  v = {};
  read_optional(j, "usage", v.usage);
  v.measured_by = closed_set<MeasuredBy>(j, "measured_by");
  read_optional(j, "cgroup_cpu", v.cgroup);
  read_optional(j, "run_queue", v.run_queue);
  read_optional(j, "counters", v.counters);
  if (const auto it = j.find("launcher"); it != j.end() && it->is_object()) {
    v.launcher_noop_seconds = it->value("noop_s", std::vector<double>{});
    v.launcher_unknown = it->value("unknown", "");
  }
}

void to_json(json& j, const SpinnerLoad& v) {
  j = {{"pid", v.pid},
       {"cpu_s", optional_json(v.cpu_seconds)},
       {"wall_s", v.wall_seconds},
       {"share", optional_json(v.share())},
       {"expected_share", v.expected_share},
       {"alive", v.alive}};
  if (!v.container.empty()) j["container"] = v.container;
}

void from_json(const json& j, SpinnerLoad& v) {
  v = {};
  v.pid = jsonread::whole_number<decltype(v.pid)>(j, "pid", 0);
  read_optional(j, "cpu_s", v.cpu_seconds);
  v.wall_seconds = j.value("wall_s", 0.0);
  v.expected_share = j.value("expected_share", 1.0);
  v.alive = j.value("alive", true);
  v.container = j.value("container", "");
}

void to_json(json& j, const InvocationRecord& v) {
  j = {{"invocation", v.invocation},
       {"argv", v.argv},
       {"exit_code", v.exit_code},
       {"wall_s", v.wall_seconds},
       {"details", v.details}};
  // The accounting's fields sit next to the others ("usage", "measured_by", "cgroup_cpu",
  // "launcher"), absent when not measured.
  j.update(json(v.accounting));
  if (v.harness_cpu_seconds) j["harness_cpu_s"] = *v.harness_cpu_seconds;
  if (v.pair) {
    j["variant"] = v.pair->variant;
    j["repeat"] = v.pair->repeat;
    j["order"] = model::name_of(v.pair->order);
    j["pair"] = v.pair->pair;
  }
}

void from_json(const json& j, InvocationRecord& v) {
  v = {};
  v.invocation = jsonread::whole_number<decltype(v.invocation)>(j, "invocation", 0);
  v.argv = j.value("argv", std::vector<std::string>{});
  v.exit_code = jsonread::whole_number<decltype(v.exit_code)>(j, "exit_code", 0);
  v.wall_seconds = j.value("wall_s", 0.0);
  if (j.contains("details")) v.details = j.at("details").get<InvocationDetails>();
  v.accounting = j.get<Accounting>();
  if (const auto it = j.find("harness_cpu_s"); it != j.end() && it->is_number())
    v.harness_cpu_seconds = it->get<double>();
  if (j.contains("variant"))
    v.pair = PairPosition{j.value("variant", ""), jsonread::whole_number<int>(j, "repeat", 0), order_of(j),
                          j.value("pair", "")};
}

void to_json(json& j, const ConditionRecord& v) {
  j = {{"condition", v.condition},     {"block", v.block}, {"started_utc", v.started_utc},
       {"load_before", v.load_before}, {"setup", v.setup}, {"runs", v.runs}};
  if (v.session != 0) j["session"] = v.session;
  if (v.load_settled) {  // since 0.2: the settle time and the load read after it
    j["settle_s"] = v.settle_seconds;
    j["load_settled"] = *v.load_settled;
  }
  if (!v.spinner_load.empty()) j["spinner_load"] = v.spinner_load;
  if (!v.finished_utc.empty()) j["finished_utc"] = v.finished_utc;
  if (v.load_after) j["load_after"] = *v.load_after;
}

void from_json(const json& j, ConditionRecord& v) {
  v = {};
  v.condition = text::name_safe(j.at("condition").get<std::string>());
  v.block = jsonread::whole_number<decltype(v.block)>(j, "block", 0);
  v.session = jsonread::whole_number<decltype(v.session)>(j, "session", 0);
  v.started_utc = j.value("started_utc", "");
  v.finished_utc = j.value("finished_utc", "");
  if (j.contains("load_before")) v.load_before = j.at("load_before").get<fingerprint::LoadReading>();
  v.settle_seconds = j.value("settle_s", 0.0);
  read_optional(j, "load_settled", v.load_settled);
  read_optional(j, "load_after", v.load_after);
  v.spinner_load = j.value("spinner_load", std::vector<SpinnerLoad>{});
  if (j.contains("setup")) v.setup = j.at("setup").get<ConditionSetup>();
  v.runs = j.value("runs", std::vector<InvocationRecord>{});
}

void to_json(json& j, const SessionRecord& v) {
  j = {{"started_utc", v.started_utc},
       {"finished_utc", v.finished_utc},
       {"command_line", v.command_line},
       {"status", std::string(to_string(v.status))},
       {"error", optional_json(v.error)}};
  if (!v.host_differences.empty()) j["host_differences"] = v.host_differences;
}

void from_json(const json& j, SessionRecord& v) {
  v = {};
  v.started_utc = j.value("started_utc", "");
  v.finished_utc = j.value("finished_utc", "");
  v.command_line = j.value("command_line", "");
  v.status = status_from(j.value("status", "complete"));
  read_optional(j, "error", v.error);
  v.host_differences = j.value("host_differences", std::vector<std::string>{});
}

void to_json(json& j, const RunWarning& v) {
  j = {{"kind", std::string(model::name_of(v.kind))}};
  if (!v.condition.empty()) j["condition"] = v.condition;
  if (!v.variant.empty()) j["variant"] = v.variant;
  if (v.invocation > 0) j["invocation"] = v.invocation;
  if (v.invocations > 0) j["invocations"] = v.invocations;
  if (!v.benchmark.empty()) j["benchmark"] = v.benchmark;
  if (!v.unit.empty()) j["unit"] = v.unit;
  if (!v.detail.empty()) j["detail"] = v.detail;
  if (!v.container.empty()) j["container"] = v.container;
  if (!v.file.empty()) j["file"] = v.file;
  if (v.line > 0) j["line"] = v.line;
}

// A warning as run.json holds it: an object of fields; a run.json of 0.x held its sentence.
void from_json(const json& j, RunWarning& v) {
  v = {};
  if (j.is_string()) {
    v.detail = j.get<std::string>();
    return;
  }
  v.kind = model::from_name<RunWarningKind>(j.value("kind", "")).value_or(RunWarningKind::other);
  v.condition = j.value("condition", "");
  v.variant = j.value("variant", "");
  v.invocation = jsonread::whole_number<int>(j, "invocation", 0);
  v.invocations = jsonread::whole_number<int>(j, "invocations", 0);
  v.benchmark = j.value("benchmark", "");
  v.unit = j.value("unit", "");
  v.detail = j.value("detail", "");
  v.container = j.value("container", "");
  v.file = j.value("file", "");
  v.line = jsonread::whole_number<int>(j, "line", 0);
  for (std::string* field :
       {&v.condition, &v.variant, &v.benchmark, &v.unit, &v.detail, &v.container, &v.file})
    *field = text::name_safe(*field);
}

void to_json(json& j, const RunRecord& v) {
  j = {{"schema_version", kRunSchemaVersion},
       {"experiment", v.experiment},
       {"run_id", v.run_id},
       {"status", std::string(to_string(v.status))},
       {"error", optional_json(v.error)},
       {"started_utc", v.started_utc},
       {"finished_utc", v.finished_utc},
       {"command_line", v.command_line},
       {"conditions", v.conditions},
       {"summary_header", v.summary_header},
       {"condition_records", v.condition_records},
       {"warnings", v.warnings}};
  if (!v.description.empty()) j["description"] = v.description;
  if (!v.experiment_file.empty()) j["experiment_file"] = v.experiment_file;
  if (!v.host.empty()) j["host"] = v.host;
  if (!v.claims.empty()) {
    j["claims"] = v.claims;
    j["claims_seed"] = v.claims_seed;
  }
  if (v.reference) j["reference"] = *v.reference;
  if (v.comparison) j["comparison"] = *v.comparison;
  if (!v.adaptive.empty()) j["adaptive"] = v.adaptive;
  if (!v.sweeps.empty()) j["sweeps"] = v.sweeps;
  if (!v.sessions.empty()) j["sessions"] = v.sessions;
  if (!v.units.empty()) j["units"] = v.units.units;  // {"<tidied unit>": {"better": "higher", ...}}
  if (v.supersedes)
    j["supersedes"] = {{"run_id", v.supersedes->run_id},
                       {"experiment", v.supersedes->experiment},
                       {"path", v.supersedes->path}};
}

namespace {

// A run's unit metadata: what is not an object of strings is left out.
model::UnitMetadata units_from_json(const json& j) {
  model::UnitMetadata m;
  if (!j.is_object()) return m;
  for (const auto& [unit, keys] : j.items()) {
    if (!keys.is_object()) continue;
    for (const auto& [key, value] : keys.items())
      if (value.is_string()) m.set(unit, key, value.get<std::string>());
  }
  return m;
}

}  // namespace

void from_json(const json& j, RunRecord& v) {
  try {
    jsonread::check_schema_version(j, kRunSchemaVersion);
    v = {};
    v.experiment = j.value("experiment", "");
    v.description = j.value("description", "");
    v.experiment_file = j.value("experiment_file", "");
    v.host = j.value("host", "");
    v.run_id = j.value("run_id", "");
    v.status = status_from(j.value("status", "complete"));
    read_optional(j, "error", v.error);
    v.started_utc = j.value("started_utc", "");
    v.finished_utc = j.value("finished_utc", "");
    v.command_line = j.value("command_line", "");
    v.conditions = j.value("conditions", std::vector<std::string>{});
    v.summary_header = j.value("summary_header", std::vector<std::string>{});
    v.condition_records = j.value("condition_records", std::vector<ConditionRecord>{});
    v.warnings = j.value("warnings", std::vector<RunWarning>{});
    read_optional(j, "comparison", v.comparison);
    v.adaptive = j.value("adaptive", std::map<std::string, AdaptiveOutcome>{});
    v.sweeps = j.value("sweeps", std::map<std::string, model::SweepPoint>{});
    v.sessions = j.value("sessions", std::vector<SessionRecord>{});
    v.claims = j.value("claims", std::vector<std::string>{});
    v.claims_seed = jsonread::whole_number<std::uint64_t>(j, "claims_seed", 1);
    read_optional(j, "reference", v.reference);
    if (j.contains("units")) v.units = units_from_json(j.at("units"));
    if (const auto it = j.find("supersedes"); it != j.end() && it->is_object())
      v.supersedes = Supersedes{it->value("run_id", ""), it->value("experiment", ""), it->value("path", "")};
    // What the reading commands print of a run (the warning about an unfinished one, the command
    // that resumes it) is kept escaped as names are: no field of a run.json prints a line or a
    // colour of its own.
    for (std::string* field : {&v.experiment, &v.experiment_file, &v.host, &v.run_id, &v.command_line})
      *field = text::name_safe(*field);
    if (v.error) *v.error = text::name_safe(*v.error);
    for (std::string& condition : v.conditions) condition = text::name_safe(condition);
  } catch (const json::exception& e) {
    throw ParseError(e.what());
  }
}

}  // namespace noisefloor::records

namespace noisefloor::model {

using nlohmann::json;

namespace {
void put(json& j, const char* key, const std::optional<double>& v) {
  j[key] = v && std::isfinite(*v) ? json(*v) : json(nullptr);  // JSON has no NaN
}
}  // namespace

void to_json(json& j, const SweepPoint& v) {
  json settings = json::array();
  for (const auto& s : v.settings) {
    json one = {{"parameter", s.parameter}, {"value", s.value}};
    put(one, "number", s.number);
    settings.push_back(std::move(one));
  }
  j = {{"group", v.group}, {"index", v.index}, {"settings", std::move(settings)}};
}

void from_json(const json& j, SweepPoint& v) {
  v = {};
  v.group = j.at("group").get<std::string>();
  v.index = j.value("index", 0);
  for (const auto& s : j.at("settings")) {
    SweepSetting one{s.at("parameter").get<std::string>(), s.at("value").get<std::string>(), std::nullopt};
    if (s.contains("number") && s.at("number").is_number()) one.number = s.at("number").get<double>();
    v.settings.push_back(std::move(one));
  }
}

namespace {
void get(const json& j, const char* key, std::optional<double>& v) {
  const auto it = j.find(key);
  v = it == j.end() || it->is_null() ? std::nullopt : std::optional<double>(it->get<double>());
}
}  // namespace

void to_json(json& j, const PublishedRow& v) {
  j = {{"condition", v.condition}, {"benchmark", v.benchmark}};
  j["n"] = v.n ? json(*v.n) : json(nullptr);
  put(j, "mean", v.mean);
  put(j, "stddev", v.stddev);
  put(j, "cv_pct", v.cv_pct);
  put(j, "median", v.median);
  put(j, "min", v.min);
  put(j, "max", v.max);
}

void from_json(const json& j, PublishedRow& v) {
  v = {};
  v.condition = text::name_safe(j.at("condition").get<std::string>());
  v.benchmark = j.value("benchmark", "");
  if (j.contains("n") && !j["n"].is_null()) v.n = jsonread::whole_number<int>(j["n"], "reference row n");
  get(j, "mean", v.mean);
  get(j, "stddev", v.stddev);
  get(j, "cv_pct", v.cv_pct);
  get(j, "median", v.median);
  get(j, "min", v.min);
  get(j, "max", v.max);
}

void to_json(json& j, const PublishedTable& v) {
  j = {{"source", v.source}, {"file", v.file},     {"format", v.format},
       {"unit", v.unit},     {"header", v.header}, {"rows", v.rows}};
}

void from_json(const json& j, PublishedTable& v) {
  v = {};
  v.source = j.value("source", "");
  v.file = j.value("file", "");
  v.format = j.value("format", "");
  v.unit = j.value("unit", "");
  v.header = j.value("header", std::vector<std::string>{});
  v.rows = j.at("rows").get<std::vector<PublishedRow>>();
}

void to_json(json& j, const Usage& v) {
  j = {{"wall_s", v.wall_seconds},
       {"user_s", v.user_seconds},
       {"sys_s", v.system_seconds},
       {"max_rss_kib", v.max_rss_kib},
       {"voluntary_switches", v.voluntary_switches},
       {"involuntary_switches", v.involuntary_switches}};
  if (v.minor_faults) j["minor_faults"] = *v.minor_faults;
  if (v.major_faults) j["major_faults"] = *v.major_faults;
}

void from_json(const json& j, Usage& v) {
  v = {};
  v.wall_seconds = j.value("wall_s", 0.0);
  v.user_seconds = j.value("user_s", 0.0);
  v.system_seconds = j.value("sys_s", 0.0);
  v.max_rss_kib = jsonread::whole_number<std::int64_t>(j, "max_rss_kib", 0);
  v.voluntary_switches = jsonread::whole_number<std::int64_t>(j, "voluntary_switches", 0);
  v.involuntary_switches = jsonread::whole_number<std::int64_t>(j, "involuntary_switches", 0);
  records::read_optional(j, "minor_faults", v.minor_faults);
  records::read_optional(j, "major_faults", v.major_faults);
}

void to_json(json& j, const CgroupCpu& v) {
  j = {{"usage_s", records::optional_json(v.usage_seconds)},
       {"periods", records::optional_json(v.periods)},
       {"throttled_periods", records::optional_json(v.throttled_periods)},
       {"throttled_s", records::optional_json(v.throttled_seconds)}};
  if (!v.unknown.empty()) j["unknown"] = v.unknown;
}

void from_json(const json& j, CgroupCpu& v) {
  v = {};
  records::read_optional(j, "usage_s", v.usage_seconds);
  records::read_optional(j, "periods", v.periods);
  records::read_optional(j, "throttled_periods", v.throttled_periods);
  records::read_optional(j, "throttled_s", v.throttled_seconds);
  v.unknown = j.value("unknown", "");
}

void to_json(json& j, const RunQueue& v) {
  j = {{"run_s", records::optional_json(v.run_seconds)},
       {"wait_s", records::optional_json(v.wait_seconds)},
       {"tasks", v.tasks},
       {"reads", v.reads}};
  if (v.migrations) j["migrations"] = *v.migrations;
  if (!v.unknown.empty()) j["unknown"] = v.unknown;
  if (v.cpus_busy_seconds) j["cpus_busy_s"] = *v.cpus_busy_seconds;
  if (!v.busy_unknown.empty()) j["busy_unknown"] = v.busy_unknown;
  if (v.steal_seconds) j["steal_s"] = *v.steal_seconds;
}

void from_json(const json& j, RunQueue& v) {
  v = {};
  records::read_optional(j, "run_s", v.run_seconds);
  records::read_optional(j, "wait_s", v.wait_seconds);
  records::read_optional(j, "migrations", v.migrations);
  v.tasks = jsonread::whole_number<int>(j, "tasks", 0);
  v.reads = jsonread::whole_number<int>(j, "reads", 0);
  v.unknown = j.value("unknown", "");
  records::read_optional(j, "cpus_busy_s", v.cpus_busy_seconds);
  v.busy_unknown = j.value("busy_unknown", "");
  records::read_optional(j, "steal_s", v.steal_seconds);
}

void to_json(json& j, const Counters& v) {
  j = {{"counts", v.counts}};
  if (!v.missing.empty()) j["missing"] = v.missing;
  if (!v.multiplexed.empty()) j["multiplexed"] = v.multiplexed;
  if (v.user_only) j["user_only"] = true;
}

void from_json(const json& j, Counters& v) {
  v = {};
  if (const auto it = j.find("counts"); it != j.end() && it->is_object())
    for (const auto& [key, value] : it->items()) v.counts[key] = value.get<std::int64_t>();
  if (const auto it = j.find("missing"); it != j.end() && it->is_object())
    for (const auto& [key, value] : it->items()) v.missing[key] = value.get<std::string>();
  v.multiplexed = j.value("multiplexed", "");
  v.user_only = j.value("user_only", false);
}

}  // namespace noisefloor::model

namespace noisefloor::probe {

void to_json(nlohmann::json& j, const Effective& e) {
  const auto opt = [](const auto& value) -> nlohmann::json {
    if (value) return *value;
    return nullptr;
  };
  j = nlohmann::json{{"cpuset", opt(e.cpuset)},
                     {"cfs_quota_us", opt(e.cfs_quota_us)},
                     {"cfs_period_us", opt(e.cfs_period_us)},
                     {"memory_limit", opt(e.memory_limit)},
                     {"memsw_limit", opt(e.memsw_limit)},
                     {"swap_limit", opt(e.swap_limit)},
                     {"pids_max", opt(e.pids_max)},
                     {"nproc", opt(e.nproc)},
                     {"cgroup_version", opt(e.cgroup_version)}};
}

void from_json(const nlohmann::json& j, Effective& e) {
  e = {};
  const auto read = [&](const char* key, auto& field) {
    using T = typename std::decay_t<decltype(field)>::value_type;
    const auto it = j.find(key);
    if (it != j.end() && !it->is_null()) field = it->template get<T>();
  };
  read("cpuset", e.cpuset);
  read("cfs_quota_us", e.cfs_quota_us);
  read("cfs_period_us", e.cfs_period_us);
  read("memory_limit", e.memory_limit);
  read("memsw_limit", e.memsw_limit);
  read("swap_limit", e.swap_limit);
  read("pids_max", e.pids_max);
  read("nproc", e.nproc);
  read("cgroup_version", e.cgroup_version);
}

void to_json(nlohmann::json& j, const Verification& v) {
  j = {{"mismatches", limit_check_texts(v.mismatches)}, {"warnings", limit_check_texts(v.warnings)}};
}

void from_json(const nlohmann::json& j, Verification& v) {
  v = {};
  // The words only: what run.json keeps (a program reads a finding's limit and values in them).
  for (auto [key, into] : {std::pair{"mismatches", &v.mismatches}, std::pair{"warnings", &v.warnings}})
    for (std::string& said : j.value(key, std::vector<std::string>{}))
      into->push_back({.kind = LimitCheck::Kind::said, .asked = text::name_safe(said)});
}

}  // namespace noisefloor::probe
