#include "config/experiment_file.hpp"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <optional>
#include <set>
#include <sstream>

#include "claims/claim.hpp"
#include "model/cpulist.hpp"
#include "model/errors.hpp"
#include "model/names.hpp"
#include "model/simulation.hpp"
#include "text/text.hpp"

namespace noisefloor::config {
namespace {

using model::SourceMark;

const std::vector<std::string> kTopKeys = {
    "name",       "description", "benchmark", "conditions", "schedule",  "cooldown",     "variants",
    "comparison", "settle",      "claims",    "hosts",      "reference", "noise_profile"};
const std::vector<std::string> kReferenceKeys = {"file", "table", "source"};
const std::vector<std::string> kBenchmarkKeys = {
    "build", "command", "format",    "samples",     "warmup",      "timeout", "samples_per_run",
    "env",   "workdir", "precision", "max_samples", "time_budget", "metric",  "inputs"};
const std::vector<std::string> kVariantKeys = {"name", "command", "args", "ref", "worktree"};
const std::vector<std::string> kComparisonKeys = {"baseline", "aa", "threshold", "design"};
const std::vector<std::string> kConditionKeys = {"name",      "spinners", "affinity", "nice",
                                                 "container", "args",     "env"};
const std::vector<std::string> kSpinnerKeys = {"count", "cpus", "nice"};
const std::vector<std::string> kContainerKeys = {"image",       "cpuset",     "cpus",       "memory",
                                                 "memory_swap", "env",        "network",    "user",
                                                 "read_only",   "pids_limit", "perf_events"};

constexpr std::int64_t kMinContainerMemory = 6 * 1024 * 1024;  // the engine's own minimum
// At most this many conditions, after sweeps are expanded.
constexpr std::size_t kMaxConditions = 1000;

// |to - from| in unsigned arithmetic, exact for any two longs (to - from overflows a long for
// -9223372036854775808..9223372036854775807, and a sweep's loop over it then never ended).
unsigned long range_span(long from, long to) {
  return to >= from ? static_cast<unsigned long>(to) - static_cast<unsigned long>(from)
                    : static_cast<unsigned long>(from) - static_cast<unsigned long>(to);
}

using text::quote;

// A network mode the engine accepts: none, bridge, host, container:<name or id>, or a network's
// name ([a-zA-Z0-9][a-zA-Z0-9_.-]*, the engine's own rule for names).
bool is_network_mode(std::string_view mode) {
  if (mode.substr(0, 10) == "container:") mode.remove_prefix(10);
  if (mode.empty() || !std::isalnum(static_cast<unsigned char>(mode.front()))) return false;
  return std::all_of(mode.begin(), mode.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
  });
}

// Where one YAML document's content starts (none for an empty document): parser events only.
class DocumentContent : public YAML::EventHandler {
 public:
  std::optional<YAML::Mark> mark;

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { note(m); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t, const std::string&) override {
    note(m);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    note(m);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    note(m);
  }
  void OnMapEnd() override {}

 private:
  void note(const YAML::Mark& m) {
    if (!mark) mark = m;
  }
};

// Reads one experiment file; every error carries file:line:col of the offending node.
class Reader {
 public:
  Reader(std::string_view file, const HostFacts& host) : file_(file), host_(host) {}

  [[noreturn]] void fail(const YAML::Mark& mark_in, const std::string& message) const {
    // A value a sweep's range generated has no place of its own: the sweep's is given.
    const YAML::Mark mark = mark_in.is_null() && fallback_mark_ ? *fallback_mark_ : mark_in;
    if (mark.is_null()) throw ConfigError(fmt::format("{}: {}", file_, message));
    throw ConfigError(fmt::format("{}:{}:{}: {}", file_, mark.line + 1, mark.column + 1, message));
  }
  [[noreturn]] void fail(const YAML::Node& node, const std::string& message) const {
    fail(node.Mark(), message);
  }

  static SourceMark mark_of(const YAML::Node& node) {
    const auto m = node.Mark();
    if (m.is_null()) return {};
    return {m.line + 1, m.column + 1};
  }

  // Where `key` of the map `node` is written (its key, not its value).
  static SourceMark key_mark(const YAML::Node& node, std::string_view key) {
    for (const auto& kv : node)
      if (kv.first.IsScalar() && kv.first.Scalar() == key) return mark_of(kv.first);
    return {};
  }

  // Rejects keys that are not in `valid` (suggesting the closest one) and duplicate keys.
  void check_keys(const YAML::Node& map, const std::vector<std::string>& valid,
                  std::string_view context) const {
    std::set<std::string> seen;
    for (const auto& kv : map) {
      const YAML::Node& key = kv.first;
      if (!key.IsScalar())
        fail(key, fmt::format("{}keys must be plain names, got {}",
                              context.empty() ? "" : fmt::format("{}: ", context), describe(key)));
      const std::string& k = key.Scalar();
      if (std::find(valid.begin(), valid.end(), k) == valid.end()) {
        const std::string near = closest_key(k, valid);
        const std::string where = context.empty() ? "" : fmt::format(" in {}", context);
        if (!near.empty())
          fail(key, fmt::format("unknown key {}{} (did you mean {}?)", quote(k), where, quote(near)));
        fail(key,
             fmt::format("unknown key {}{} (expected one of: {})", quote(k), where, fmt::join(valid, ", ")));
      }
      if (!seen.insert(k).second) fail(key, fmt::format("duplicate key {}", quote(k)));
    }
  }

  void require_map(const YAML::Node& node, std::string_view path) const {
    if (!node.IsMap()) fail(node, fmt::format("{}: expected a mapping of keys to values", path));
  }

  std::string get_string(const YAML::Node& node, std::string_view path) const {
    if (!node.IsScalar()) fail(node, fmt::format("{}: expected a string", path));
    return node.Scalar();
  }

  // A whole number in [min, max]; the default max keeps every count within an int, checked
  // before any narrowing, so 4294967298 is an error and never wraps to 2.
  std::int64_t get_int(const YAML::Node& node, std::string_view path, std::int64_t min,
                       std::string_view expectation, std::int64_t max = 1'000'000) const {
    const std::string text = node.IsScalar() ? node.Scalar() : std::string();
    std::int64_t value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (!node.IsScalar() || text.empty() || ec != std::errc{} || ptr != text.data() + text.size())
      fail(node, fmt::format("{}: expected {}, got {}", path, expectation, describe(node)));
    if (value < min) fail(node, fmt::format("{}: expected {}, got {}", path, expectation, value));
    if (value > max) fail(node, fmt::format("{}: {} is too large (at most {})", path, value, max));
    return value;
  }

  double get_number(const YAML::Node& node, std::string_view path) const {
    const std::string text = node.IsScalar() ? node.Scalar() : std::string();
    double value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (!node.IsScalar() || text.empty() || ec != std::errc{} || ptr != text.data() + text.size() ||
        !std::isfinite(value))
      fail(node, fmt::format("{}: expected a number, got {}", path, describe(node)));
    return value;
  }

  // One of E's words (its names table, model/names.hpp); another word fails with the list of them.
  template <class E>
  E get_word(const YAML::Node& node, std::string_view path) const {
    const std::string v = get_string(node, path);
    if (const auto value = model::from_name<E>(v)) return *value;
    std::vector<E> all;
    for (const auto& [value, name] : names(E{})) all.push_back(value);
    fail(node, fmt::format("{}: expected {}, got {}", path, model::names_list<E>(all), quote(v)));
  }

  bool get_bool(const YAML::Node& node, std::string_view path) const {
    static constexpr std::pair<std::string_view, bool> kWords[] = {
        {"true", true}, {"yes", true}, {"on", true}, {"false", false}, {"no", false}, {"off", false}};
    const std::string text = node.IsScalar() ? node.Scalar() : std::string();
    for (const auto& [word, value] : kWords)
      if (text == word) return value;
    fail(node, fmt::format("{}: expected true or false, got {}", path, describe(node)));
  }

  int get_nice(const YAML::Node& node, std::string_view path) const {
    const std::int64_t n = get_int(node, path, -20, "a nice value from -20 to 19");
    if (n > 19) fail(node, fmt::format("{}: expected a nice value from -20 to 19, got {}", path, n));
    return static_cast<int>(n);
  }

  std::vector<std::string> get_argv(const YAML::Node& node, std::string_view path) const {
    if (!node.IsSequence() || node.size() == 0)
      fail(node, fmt::format("{}: expected a non-empty list of arguments such as [go, test, -bench, .] "
                             "(an argv vector: it is never run through a shell)",
                             path));
    std::vector<std::string> argv;
    for (const auto& item : node) {
      if (!item.IsScalar())
        fail(item, fmt::format("{}: each argument must be a string, got {}", path, describe(item)));
      argv.push_back(item.Scalar());
    }
    if (argv.front().empty()) fail(node, fmt::format("{}: the program name is empty", path));
    return argv;
  }

  std::map<std::string, std::string> get_env(const YAML::Node& node, std::string_view path) const {
    require_map(node, path);
    std::map<std::string, std::string> env;
    for (const auto& kv : node) {
      const std::string key = get_string(kv.first, path);
      const bool valid_name = !key.empty() && !std::isdigit(static_cast<unsigned char>(key[0])) &&
                              std::all_of(key.begin(), key.end(), [](char c) {
                                return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                              });
      if (!valid_name)
        fail(kv.first, fmt::format("{}: {} is not a valid environment variable name", path, quote(key)));
      if (!kv.second.IsScalar()) fail(kv.second, fmt::format("{}.{}: expected a string value", path, key));
      if (!env.emplace(key, kv.second.Scalar()).second)
        fail(kv.first, fmt::format("duplicate key {}", quote(key)));
    }
    return env;
  }

  // A CPU list as a string ("0-3,5"), a single integer, or a list of integers; each CPU must be
  // online on this host.
  std::vector<int> get_cpus(const YAML::Node& node, std::string_view path) const {
    std::optional<std::vector<int>> cpus;
    if (node.IsSequence()) {
      cpus.emplace();
      for (const auto& item : node)
        cpus->push_back(static_cast<int>(get_int(item, path, 0, "a CPU number", 8191)));
      std::sort(cpus->begin(), cpus->end());
      cpus->erase(std::unique(cpus->begin(), cpus->end()), cpus->end());
    } else if (node.IsScalar()) {
      cpus = model::parse_cpu_list(node.Scalar());
    }
    if (!cpus || cpus->empty())
      fail(node, fmt::format("{}: expected a CPU list such as \"0\", \"0-3\" or \"1,3\", got {}", path,
                             describe(node)));
    check_cpus_online(node, path, *cpus);
    return *cpus;
  }

  void check_cpus_online(const YAML::Node& node, std::string_view path, const std::vector<int>& cpus) const {
    if (host_.online_cpus.empty()) return;  // unknown host: the runner checks again
    for (int cpu : cpus) {
      if (!std::binary_search(host_.online_cpus.begin(), host_.online_cpus.end(), cpu))
        fail(node, fmt::format("{}: CPU {} is not available on this host (online CPUs: {})", path, cpu,
                               model::format_cpu_list(host_.online_cpus)));
    }
  }

  // A duration from `min` up to 1,000,000 s (11.6 days): beyond that the clocks' integer
  // arithmetic would overflow.
  model::Seconds get_duration(const YAML::Node& node, std::string_view path,
                              model::Seconds min = model::Seconds(0)) const {
    const auto d = node.IsScalar() ? parse_duration(node.Scalar()) : std::nullopt;
    if (!d)
      fail(node,
           fmt::format("{}: expected a duration such as 30s, 10m or 1.5s, got {}", path, describe(node)));
    if (d->count() > 1e6) fail(node, fmt::format("{}: at most 1000000s (11.6 days)", path));
    if (*d < min)
      fail(node, fmt::format("{}: expected at least {}ms, got {}", path, min.count() * 1000, describe(node)));
    return *d;
  }

  std::string describe(const YAML::Node& node) const {
    if (node.IsScalar()) return quote(node.Scalar());
    if (node.IsSequence()) return "a list";
    if (node.IsMap()) return "a mapping";
    return "nothing";
  }

  // hosts: [default, ssh://bench@quiet-box, ci-runner]: Docker contexts or endpoints, each once.
  void read_hosts(const YAML::Node& node, model::Experiment& exp) const {
    if (!node.IsSequence() || node.size() == 0)
      fail(node,
           "hosts: expected a non-empty list of Docker context names or endpoints, e.g. hosts: [default, "
           "ssh://user@quiet-box]");
    std::set<std::string> seen;
    for (std::size_t i = 0; i < node.size(); ++i) {
      const std::string path = fmt::format("hosts[{}]", i);
      const std::string host = get_string(node[i], path);
      if (host.empty())
        fail(node[i], fmt::format("{}: empty: give a Docker context name or an endpoint", path));
      if (!seen.insert(host).second) fail(node[i], fmt::format("{}: {} is listed twice", path, quote(host)));
      exp.hosts.push_back({host, mark_of(node[i])});
    }
  }

  model::Experiment read(std::string_view text) {
    const YAML::Node root = load(text);
    if (!root.IsMap())
      fail(root, fmt::format("expected a mapping with at least `name`, `benchmark` and `conditions`, got {}",
                             describe(root)));
    check_keys(root, kTopKeys, "");

    model::Experiment exp;
    exp.source_file = file_;
    exp.source_text = std::string(text);
    read_name(root, exp);
    const YAML::Node bench = root["benchmark"];
    if (!bench) fail(root, "missing key \"benchmark\": say what to run (benchmark.command)");
    exp.benchmark = read_benchmark(bench);
    exp.benchmark.mark = key_mark(root, "benchmark");
    read_timing(root, exp);
    if (const YAML::Node h = root["hosts"]) read_hosts(h, exp);

    finish_benchmark(exp, bench);
    exp.adaptive = adaptive_;
    if (const YAML::Node v = root["variants"]) read_variants(v, exp);
    if (const YAML::Node c = root["comparison"]) {
      if (exp.variants.empty()) fail(c, "comparison: only with variants (there is nothing to compare)");
      read_comparison(c, exp);
    }
    // Paired repeats and adaptive stopping decide after every sample: one sample per invocation.
    if (exp.paired() || exp.adaptive) {
      if (const YAML::Node spr = bench["samples_per_run"]; spr && exp.benchmark.samples_per_run != 1)
        fail(spr, "benchmark.samples_per_run: variants and samples: auto take one sample per run; use 1");
      exp.benchmark.samples_per_run = 1;
    }

    const ConditionNodes nodes = read_all_conditions(root, exp);
    check_conditions_fit(exp, nodes);
    resolve_program(bench, exp);
    check_auto_image_variants(root, exp);
    if (const YAML::Node c = root["claims"]) read_claims(c, exp);
    if (const YAML::Node r = root["reference"]) read_reference(r, exp);
    return exp;
  }

  void read_name(const YAML::Node& root, model::Experiment& exp) const {
    const YAML::Node name = root["name"];
    if (!name) fail(root, "missing key \"name\": give the experiment a name, e.g. name: laptop");
    exp.name = get_string(name, "name");
    if (!is_safe_name(exp.name))
      fail(name, fmt::format("name: {} is not safe as a directory name (use letters, digits, '.', "
                             "'_' and '-', at most 64 characters, not starting with '.' or '-')",
                             quote(exp.name)));
    if (const YAML::Node d = root["description"]) exp.description = get_string(d, "description");
  }

  // schedule, cooldown, settle and noise_profile.
  void read_timing(const YAML::Node& root, model::Experiment& exp) const {
    if (const YAML::Node s = root["schedule"]) {
      exp.schedule = get_word<model::Schedule>(s, "schedule");
    }
    if (const YAML::Node c = root["cooldown"]) exp.cooldown = get_duration(c, "cooldown");
    if (const YAML::Node c = root["settle"]) {
      exp.settle = get_duration(c, "settle");
      exp.settle_set = true;
    }
    if (const YAML::Node c = root["noise_profile"]) {
      exp.noise_profile = get_duration(c, "noise_profile");
      exp.noise_profile_set = true;
      if (exp.noise_profile.count() > 60) fail(c, "noise_profile: at most 60s (the doctor's is 2s)");
      if (exp.noise_profile.count() > 0 && exp.noise_profile.count() < 0.1)
        fail(c, "noise_profile: at least 100ms, or 0s for none");
    }
  }

  // Each condition as written, or each point of its sweeps: the node it was read from and the
  // index of the condition the file wrote (what messages say).
  struct ConditionNodes {
    std::vector<YAML::Node> nodes;
    std::vector<std::size_t> index;
  };

  ConditionNodes read_all_conditions(const YAML::Node& root, model::Experiment& exp) {
    const YAML::Node conds = root["conditions"];
    if (!conds) fail(root, "missing key \"conditions\": list at least one, e.g. conditions: [{name: idle}]");
    if (!conds.IsSequence() || conds.size() == 0)
      fail(conds, "conditions: expected a non-empty list of conditions, e.g. - name: idle");
    ConditionNodes out;
    std::set<std::string> names;
    for (std::size_t i = 0; i < conds.size(); ++i) {
      for (auto& [node, c] : read_conditions(conds[i], i)) {
        // A condition's raw output is <name>.txt in the result directory, beside files of these names.
        for (const char* reserved : {"cv-summary", "anchor"})
          if (c.name == reserved)
            fail(conds[i]["name"],
                 fmt::format("conditions[{}].name: {} is the name of a file every result directory "
                             "has ({}.txt): choose another name",
                             i, quote(c.name), reserved));
        if (!names.insert(c.name).second)
          fail(c.sweep ? conds[i] : conds[i]["name"],
               fmt::format(
                   "conditions[{}].name: duplicate condition name {}{}", i, quote(c.name),
                   c.sweep ? fmt::format(" (generated for the sweep point {})", model::claim_name(*c.sweep))
                           : ""));
        exp.conditions.push_back(std::move(c));
        out.nodes.push_back(node);
        out.index.push_back(i);
      }
      // Checked as they accumulate: 1000 conditions each sweeping 1000 values are refused after the
      // first two, not once a million are made (the adversarial re-test of issue 42: 3 GB in 20 s).
      if (exp.conditions.size() > kMaxConditions)
        fail(conds[i], fmt::format("conditions: more than {} conditions after the sweeps are expanded "
                                   "(conditions[0] to [{}] make {}): sweep fewer values",
                                   kMaxConditions, i, exp.conditions.size()));
    }
    return out;
  }

  // What a container condition can run: the benchmark's format, metric and inputs decide (each rule
  // over every condition, in this order, so the first broken rule is the one reported).
  void check_conditions_fit(const model::Experiment& exp, const ConditionNodes& nodes) const {
    const auto each_container = [&](auto&& check) {
      for (std::size_t i = 0; i < exp.conditions.size(); ++i)
        if (exp.conditions[i].container) check(*exp.conditions[i].container, nodes.nodes[i], nodes.index[i]);
    };
    // Only image: auto, which noisefloor builds, can hold what `why` needs.
    const auto refuse_named_images = [&](std::string_view why) {
      each_container([&](const model::ContainerSpec& c, const YAML::Node& node, std::size_t written) {
        if (c.image != "auto")
          fail(node["container"]["image"], fmt::format("conditions[{}].container.image: {}", written, why));
      });
    };
    // A command's time is taken inside the container by the probe, which only auto images have:
    // around a named image noisefloor could time only Docker's lifecycle.
    if (exp.benchmark.format == model::OutputFormat::command)
      refuse_named_images(
          "format: command is timed inside the container by noisefloor's probe, which only image: auto has; "
          "use "
          "image: auto (a named image would time Docker's container lifecycle, not the command)");
    // valgrind runs on the host: no image has it.
    if (exp.benchmark.simulated)
      each_container([&](const model::ContainerSpec&, const YAML::Node& node, std::size_t written) {
        fail(
            node["container"],
            fmt::format("conditions[{}].container: metric: {} runs the benchmark under valgrind on the host, "
                        "and no container image has valgrind; drop container: from this condition (pin it "
                        "with affinity: instead), or measure wall or cpu",
                        written, exp.benchmark.metric.substr(0, exp.benchmark.metric.size() - 3)));
      });
    // Inputs reach a container only through image: auto, which noisefloor builds: a named image
    // brings its own files.
    if (!exp.benchmark.inputs.empty())
      refuse_named_images(
          "benchmark.inputs are put into image: auto, which noisefloor builds; a named image must hold them "
          "itself: use image: auto, or remove inputs");
  }

  // A program named without a path is the one PATH finds now, as the host would run it, and
  // image: auto is built from that executable: resolved here, or refused before anything runs
  // (unless the build step may make it).
  void resolve_program(const YAML::Node& bench, model::Experiment& exp) const {
    if (!host_.find_program || exp.benchmark.command.empty() ||
        exp.benchmark.command.front().find('/') != std::string::npos)
      return;
    const std::string program = exp.benchmark.command.front();
    const auto path = exp.benchmark.env.find("PATH");
    const std::string path_env = path != exp.benchmark.env.end() ? path->second : "";
    if (auto found = host_.find_program(program, path_env)) {
      for (auto& v : exp.variants)
        if (!v.command.empty() && v.command.front() == program) v.command.front() = *found;
      exp.benchmark.command.front() = *found;
    } else if (exp.benchmark.build.empty()) {
      fail(bench["command"][0],
           fmt::format("benchmark.command: {} is not found on PATH{}: install it, or give the "
                       "path of the benchmark's executable",
                       quote(program), path_env.empty() ? "" : " (benchmark.env.PATH)"));
    }
  }

  // image: auto holds one executable, benchmark.command's: a variant with another program
  // would silently run the baseline's binary with the variant's arguments.
  void check_auto_image_variants(const YAML::Node& root, const model::Experiment& exp) const {
    for (const auto& c : exp.conditions) {
      if (!c.container || c.container->image != "auto") continue;
      for (std::size_t i = 0; i < exp.variants.size(); ++i)
        if (exp.variants[i].command.front() != exp.benchmark.command.front()) {
          const YAML::Mark m = root["variants"][i].Mark();
          fail(m, fmt::format(
                      "variants: \"{}\" runs {}, but condition \"{}\" uses container image: auto, built from "
                      "{}: use args (same executable) or a named image that holds both",
                      exp.variants[i].name, quote(exp.variants[i].command.front()), c.name,
                      quote(exp.benchmark.command.front())));
        }
    }
  }

  // claims: ["cv(noisy) > 2 * cv(idle)", ...]: each parsed and checked against the conditions and
  // variants now, its error pointing into the claim's own text.
  void read_claims(const YAML::Node& node, model::Experiment& exp) const {
    if (!node.IsSequence() || node.size() == 0)
      fail(node, "claims: expected a non-empty list of claims, e.g. claims: [\"cv(noisy) > 2 * cv(idle)\"]");
    claims::Names names;
    for (const auto& c : exp.conditions) {
      names.conditions.push_back(c.name);
      if (c.sweep) names.points[model::claim_name(*c.sweep)] = c.name;
    }
    for (const auto& v : exp.variants) names.variants.push_back(v.name);
    for (std::size_t i = 0; i < node.size(); ++i) {
      const std::string path = fmt::format("claims[{}]", i);
      const std::string text = get_string(node[i], path);
      try {
        claims::parse_claim(text, names);
      } catch (const claims::ClaimError& e) {
        YAML::Mark m = node[i].Mark();
        // A quoted claim starts one column after its quote.
        const bool quoted = node[i].Tag() == "!";
        m.column += static_cast<int>(e.offset()) + (quoted ? 1 : 0);
        fail(m, fmt::format("{}: {}", path, e.what()));
      }
      exp.claims.push_back({text, mark_of(node[i])});
    }
  }

  // reference: published/cv-summary.txt, or {file: ..., source: "..."}, or {table: |, source: ...}:
  // the published table the replay is held against. The file is read (and its format checked)
  // by the pipeline before anything runs; its path resolves against the experiment's directory.
  void read_reference(const YAML::Node& node, model::Experiment& exp) const {
    model::ReferenceSpec r;
    r.mark = mark_of(node);
    if (node.IsScalar()) {
      r.file = get_string(node, "reference");
    } else {
      if (!node.IsMap())
        fail(node,
             "reference: expected a file (cv-summary.txt, summary.json, a result directory or a markdown "
             "table), or a mapping with file or table, and source");
      check_keys(node, kReferenceKeys, "reference");
      if (const YAML::Node f = node["file"]) r.file = get_string(f, "reference.file");
      if (const YAML::Node t = node["table"]) r.table = get_string(t, "reference.table");
      if (const YAML::Node s = node["source"]) r.source = get_string(s, "reference.source");
      if (r.file.empty() == r.table.empty())
        fail(node,
             "reference: give exactly one of file (a published table's path) or table (its text inline)");
    }
    exp.reference = r;
  }

  // The file's one YAML document. An empty file, a second document and bytes that are not text
  // are errors with a place (yaml-cpp would ignore the second document and quote a raw byte).
  YAML::Node load(std::string_view text) const {
    check_text(text);
    YAML::Node root;
    try {
      root = YAML::Load(std::string(text));  // the first document
      // A second one, if any: two documents at most are looked at (YAML::LoadAll can loop forever
      // on malformed input: found by fuzzing, tests/fuzz/corpus/experiment/).
      std::istringstream stream{std::string(text)};
      YAML::Parser parser(stream);
      DocumentContent first, second;
      if (parser.HandleNextDocument(first) && parser.HandleNextDocument(second) && second.mark)
        fail(*second.mark,
             "a second YAML document: an experiment file holds one experiment (remove the `---` "
             "line and what follows it, or make it a file of its own)");
    } catch (const YAML::Exception& e) {
      fail(e.mark, fmt::format("invalid YAML: {}", e.msg));
    }
    if ((!root || root.IsNull()) && !only_comments(text))
      fail(at(0, 0), "invalid YAML: no document could be read from the file (check its first lines)");
    if (!root || root.IsNull())
      fail(at(0, 0),
           "the file holds no experiment (it is empty or only comments): expected a mapping with at "
           "least `name`, `benchmark` and `conditions`");
    return root;
  }

  // True when every line is blank, a comment, or a document marker (--- or ...).
  static bool only_comments(std::string_view text) {
    for (const std::string_view line : text::lines(text)) {
      const std::string_view t = text::trim(line);
      if (!t.empty() && t.front() != '#' && t != "---" && t != "...") return false;
    }
    return true;
  }

  static YAML::Mark at(int line, int column) {  // 0-based, as YAML::Mark counts
    YAML::Mark mark;
    mark.line = line;
    mark.column = column;
    return mark;
  }

  // Text is UTF-8 without control characters other than tab, line feed and carriage return.
  void check_text(std::string_view text) const {
    int line = 0, column = 0;
    for (std::size_t i = 0; i < text.size();) {
      const auto byte = static_cast<unsigned char>(text[i]);
      const std::size_t length = byte < 0x80           ? 1
                                 : (byte >> 5) == 0x6  ? 2
                                 : (byte >> 4) == 0xE  ? 3
                                 : (byte >> 3) == 0x1E ? 4
                                                       : 0;
      bool valid = length > 0 && i + length <= text.size();
      for (std::size_t k = 1; valid && k < length; ++k)
        valid = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
      if (!valid)
        fail(at(line, column),
             fmt::format("invalid UTF-8 (byte 0x{:02x}): an experiment file is UTF-8 text", byte));
      if ((byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r') || byte == 0x7F)
        fail(at(line, column),
             fmt::format("control character 0x{:02x}: an experiment file is text (is this a "
                         "binary file?)",
                         byte));
      if (byte == '\n') {
        ++line;
        column = 0;
      } else {
        ++column;
      }
      i += length;
    }
  }

  model::BenchmarkSpec read_benchmark(const YAML::Node& node) {
    require_map(node, "benchmark");
    check_keys(node, kBenchmarkKeys, "benchmark");
    model::BenchmarkSpec b;
    if (const YAML::Node n = node["build"]) b.build = get_argv(n, "benchmark.build");
    const YAML::Node cmd = node["command"];
    if (!cmd)
      fail(node, "missing key \"command\" in benchmark: the argv to run, e.g. [./bench.test, -test.bench=.]");
    b.command = get_argv(cmd, "benchmark.command");
    if (const YAML::Node f = node["format"]) {
      b.format = get_word<model::OutputFormat>(f, "benchmark.format");
    }
    if (const YAML::Node s = node["samples"]) {
      if (s.IsScalar() && s.Scalar() == "auto") {
        adaptive_.emplace();
      } else {
        b.samples = static_cast<int>(
            get_int(s, "benchmark.samples", 2, "a whole number of samples ≥ 2 or auto", 100'000));
      }
    }
    for (const char* key : {"precision", "max_samples", "time_budget"}) {
      if (node[key] && !adaptive_) fail(node[key], fmt::format("benchmark.{}: only with samples: auto", key));
    }
    if (adaptive_) {
      if (const YAML::Node p = node["precision"])
        adaptive_->precision = get_percent(p, "benchmark.precision");
      if (const YAML::Node m = node["max_samples"]) {
        adaptive_->max_samples =
            static_cast<int>(get_int(m, "benchmark.max_samples", adaptive_->min_samples,
                                     fmt::format("a whole number ≥ {}", adaptive_->min_samples)));
        adaptive_->max_samples_set = true;
      }
      if (const YAML::Node t = node["time_budget"])
        adaptive_->budget = get_duration(t, "benchmark.time_budget", model::Seconds(0.001));
      b.samples = adaptive_->min_samples;
    }
    if (const YAML::Node w = node["warmup"])
      b.warmup = static_cast<int>(get_int(w, "benchmark.warmup", 0, "a whole number ≥ 0"));
    if (const YAML::Node t = node["timeout"]) {
      b.timeout = get_duration(t, "benchmark.timeout", model::Seconds(0.001));
    }
    if (const YAML::Node e = node["env"]) b.env = get_env(e, "benchmark.env");
    if (const YAML::Node w = node["workdir"]) {
      b.workdir = get_string(w, "benchmark.workdir");
      // Checked here, with its place: a build and runs in another directory would measure
      // something else (relative to the experiment file's directory, as resolve_paths does).
      if (host_.directory_problem) {
        std::filesystem::path dir =
            (std::filesystem::path(file_).parent_path() / *b.workdir).lexically_normal();
        if (!dir.empty() && !dir.has_filename()) dir = dir.parent_path();  // "bench/" → "bench"
        const std::string problem = host_.directory_problem(dir.empty() ? "." : dir.string());
        if (!problem.empty())
          fail(w, fmt::format("benchmark.workdir: {} ({}) {}: give a directory that exists, relative to the "
                              "experiment file's directory",
                              quote(*b.workdir), dir.empty() ? "." : dir.string(), problem));
      }
    }
    if (const YAML::Node in = node["inputs"]) read_inputs(in, b);
    if (const YAML::Node m = node["metric"]) {
      b.metric = get_string(m, "benchmark.metric");
      if (b.metric.empty() || b.metric.find_first_of(" \t") != std::string::npos)
        fail(m, fmt::format("benchmark.metric: expected a unit such as ns/op or cpu-ns/op, got {}",
                            quote(b.metric)));
    }
    return b;
  }

  // Checks that need the schedule and format together.
  void finish_benchmark(model::Experiment& exp, const YAML::Node& node) {
    model::BenchmarkSpec& b = exp.benchmark;
    const bool interleaved = exp.schedule == model::Schedule::interleaved;
    const YAML::Node spr = node["samples_per_run"];
    if (spr) {
      if (spr.IsScalar() && spr.Scalar() == "all") {
        b.samples_per_run = 0;
      } else {
        b.samples_per_run =
            static_cast<int>(get_int(spr, "benchmark.samples_per_run", 1, "all or a whole number ≥ 1"));
      }
    } else {
      b.samples_per_run = interleaved ? 1 : 0;
    }
    if (b.format == model::OutputFormat::command) {
      if (spr && b.samples_per_run != 1)
        fail(spr, "benchmark.samples_per_run: a `command` benchmark delivers one sample per run; use 1");
      b.samples_per_run = 1;
    }
    // A counter as the metric: the kernel counts a whole invocation, so an invocation must print
    // exactly one result for the count to be that result's.
    if (const YAML::Node m = node["metric"]) {
      static const std::vector<std::array<const char*, 3>> kCounterMetrics = {
          {"instructions", "instructions", "instructions/op"},
          {"cycles", "cycles", "cycles/op"},
          {"branch-misses", "branch_misses", "branch-misses/op"},
          {"cache-misses", "cache_misses", "cache-misses/op"},
          {"task-clock", "task_clock_ns", "task-clock-ns/op"}};
      for (const auto& [name, key, unit] : kCounterMetrics) {
        if (b.metric != name && b.metric != unit) continue;
        b.counter = key;
        b.metric = unit;
        if (spr && b.samples_per_run != 1)
          fail(spr, fmt::format("benchmark.samples_per_run: metric: {} counts a whole invocation, which must "
                                "then print one result; use 1",
                                name));
        b.samples_per_run = 1;
      }
    }
    // A simulated count covers a command's whole run (its one op), or a Google Benchmark's timed
    // loops; not a go test benchmark's (valgrind 3.19 stops Go programs at start on some CPUs).
    if (const YAML::Node m = node["metric"]; m && model::simulated_metric(b.metric)) {
      const model::SimulatedMetric sim = *model::simulated_metric(b.metric);
      if (b.format == model::OutputFormat::gotest)
        fail(m,
             fmt::format("benchmark.metric: {} runs the benchmark under valgrind, which noisefloor does not "
                         "do for go test: valgrind 3.19 stops Go programs at start on some CPUs (RDTSCP, "
                         "in runtime.cputicks); measure ns/op, or simulate a C, C++ or Rust benchmark",
                         quote(b.metric)));
      b.simulated = sim;
      b.metric = model::simulated_unit(sim);
    }
    // A command's sample is its wall time (sec/op) or its CPU time; `wall` and `cpu` name them as
    // hyperfine users expect.
    if (const YAML::Node m = node["metric"]) {
      static const std::vector<std::string> kCommandMetrics = {"sec/op", "cpu-sec/op", "user-sec/op",
                                                               "sys-sec/op"};
      if (b.metric == "wall" || b.metric == "cpu") {
        if (b.format != model::OutputFormat::command)
          fail(m,
               fmt::format("benchmark.metric: {} is for format: command; name one of the units the benchmark "
                           "prints, such as ns/op",
                           quote(b.metric)));
        b.metric = b.metric == "wall" ? "sec/op" : "cpu-sec/op";
      } else if (b.format == model::OutputFormat::command && b.counter.empty() && !b.simulated &&
                 std::find(kCommandMetrics.begin(), kCommandMetrics.end(), b.metric) ==
                     kCommandMetrics.end()) {
        fail(m, fmt::format(
                    "benchmark.metric: a command measures wall or cpu (or sec/op, cpu-sec/op, user-sec/op, "
                    "sys-sec/op), counts instructions, cycles, branch-misses, cache-misses or "
                    "task-clock, or simulates simulated-instructions, simulated-cycles, "
                    "simulated-l1-misses or simulated-ll-misses; got {}",
                    quote(b.metric)));
      }
    }
    if (interleaved && b.samples_per_run == 0)
      fail(spr,
           "benchmark.samples_per_run: `all` runs each condition in one block, which defeats "
           "schedule: interleaved; use a number such as 1");
    if (b.format == model::OutputFormat::gotest) {
      for (std::size_t i = 0; i < b.command.size(); ++i) {
        const std::string& a = b.command[i];
        for (const char* flag : {"-test.count", "-count", "--count", "--test.count"}) {
          if (a == flag || a.rfind(std::string(flag) + "=", 0) == 0)
            fail(node["command"][i], fmt::format("benchmark.command: remove {}: noisefloor sets "
                                                 "-test.count from benchmark.samples",
                                                 quote(a)));
        }
      }
    }
  }

  // benchmark.inputs: relative paths under the working directory, each one that can be read.
  void read_inputs(const YAML::Node& node, model::BenchmarkSpec& b) const {
    if (!node.IsSequence() || node.size() == 0)
      fail(node,
           "benchmark.inputs: expected a list of files or directories the benchmark reads, relative to its "
           "workdir, e.g. [words.txt, data/]");
    const std::filesystem::path dir =
        (std::filesystem::path(file_).parent_path() / b.workdir.value_or(".")).lexically_normal();
    for (std::size_t i = 0; i < node.size(); ++i) {
      const std::string path = get_string(node[i], fmt::format("benchmark.inputs[{}]", i));
      const std::filesystem::path rel = std::filesystem::path(path).lexically_normal();
      if (path.empty() || rel.is_absolute() || rel.empty() || *rel.begin() == ".." || rel == ".")
        fail(
            node[i],
            fmt::format("benchmark.inputs[{}]: {} must be a path inside the benchmark's workdir, relative to "
                        "it (it is put at the same place in the container)",
                        i, quote(path)));
      if (host_.input_problem) {
        const std::string problem = host_.input_problem((dir / rel).string());
        if (!problem.empty())
          fail(node[i],
               fmt::format(
                   "benchmark.inputs[{}]: {} ({}) {}: give a file or directory that exists, relative to "
                   "the benchmark's workdir",
                   i, quote(path), (dir / rel).string(), problem));
      }
      b.inputs.push_back(rel.string());
    }
  }

  double get_percent(const YAML::Node& node, std::string_view path) const {
    const auto fraction = text::parse_percent(node.IsScalar() ? node.Scalar() : std::string());
    if (!fraction)
      fail(node, fmt::format("{}: expected a percentage such as 1% or 0.5%, got {}", path, describe(node)));
    return *fraction;
  }

  void read_variants(const YAML::Node& node, model::Experiment& exp) {
    if (!node.IsSequence() || node.size() < 1)
      fail(node, "variants: expected a list such as - {name: base} - {name: fast, args: [--fast]}");
    std::set<std::string> names;
    for (std::size_t i = 0; i < node.size(); ++i) {
      const YAML::Node v = node[i];
      const std::string path = fmt::format("variants[{}]", i);
      require_map(v, path);
      check_keys(v, kVariantKeys, path);
      model::Variant var;
      var.mark = mark_of(v);
      if (!v["name"])
        fail(v, fmt::format("missing key \"name\" in {}: every variant needs a unique name", path));
      var.name = get_string(v["name"], path + ".name");
      if (!is_safe_name(var.name))
        fail(v["name"],
             fmt::format("{}.name: {} is not safe as a file name (use letters, digits, '.', '_' and '-')",
                         path, quote(var.name)));
      if (!names.insert(var.name).second)
        fail(v["name"], fmt::format("{}.name: duplicate variant name {}", path, quote(var.name)));
      if (v["command"] && v["args"])
        fail(v["args"],
             fmt::format("{}: give either command or args (args are appended to benchmark.command)", path));
      var.git = git_side(v, path);
      if (var.git) {
        var.command = exp.benchmark.command;
      } else if (v["command"]) {
        var.command = get_argv(v["command"], path + ".command");
      } else {
        var.command = exp.benchmark.command;
        if (const YAML::Node a = v["args"]) {
          if (!a.IsSequence()) fail(a, fmt::format("{}.args: expected a list of arguments", path));
          for (const auto& item : a) {
            if (!item.IsScalar()) fail(item, fmt::format("{}.args: each argument must be a string", path));
            var.command.push_back(item.Scalar());
          }
        }
      }
      exp.variants.push_back(std::move(var));
    }
    if (exp.variants.size() < 2)
      fail(node, "variants: name a baseline and at least one other variant to compare with it");
    const auto sides =
        std::count_if(exp.variants.begin(), exp.variants.end(), [](const auto& v) { return v.git; });
    if (sides > 0 && (sides != 2 || exp.variants.size() != 2))
      fail(node,
           "variants: the gate at git refs compares two sides, the base first: "
           "- {name: base, ref: main} - {name: head, worktree: true}; variants with commands of their own "
           "cannot join it");
    if (sides > 0 && exp.variants.front().git->empty())
      fail(node[0], "variants[0]: the base of a gate is a git ref (ref: main), not the working tree");
    exp.comparison.baseline = exp.variants.front().name;
  }

  // `ref: REF` or `worktree: true`: a side of the gate, built from its own checkout; never with
  // command or args (it runs benchmark.command there).
  std::optional<std::string> git_side(const YAML::Node& v, const std::string& path) const {
    if (!v["ref"] && !v["worktree"]) return std::nullopt;
    if (v["ref"] && v["worktree"])
      fail(v["worktree"], fmt::format("{}: give either ref or worktree: true", path));
    for (const char* key : {"command", "args"})
      if (v[key])
        fail(v[key], fmt::format("{}.{}: a side at a git ref runs benchmark.command from its own checkout: "
                                 "remove {}",
                                 path, key, key));
    if (v["ref"]) {
      const std::string ref = get_string(v["ref"], path + ".ref");
      if (ref.empty()) fail(v["ref"], fmt::format("{}.ref: name a branch, a tag or a commit", path));
      return ref;
    }
    if (!v["worktree"].IsScalar() || v["worktree"].Scalar() != "true")
      fail(v["worktree"],
           fmt::format("{}.worktree: only true (the working tree with its uncommitted changes)", path));
    return std::string();
  }

  void read_comparison(const YAML::Node& node, model::Experiment& exp) {
    require_map(node, "comparison");
    check_keys(node, kComparisonKeys, "comparison");
    if (const YAML::Node b = node["baseline"]) {
      const std::string name = get_string(b, "comparison.baseline");
      auto it = std::find_if(exp.variants.begin(), exp.variants.end(),
                             [&](const model::Variant& v) { return v.name == name; });
      if (it == exp.variants.end()) {
        std::vector<std::string> names;
        for (const auto& v : exp.variants) names.push_back(v.name);
        fail(b, fmt::format("comparison.baseline: no variant named {} (variants: {})", quote(name),
                            fmt::join(names, ", ")));
      }
      std::rotate(exp.variants.begin(), it, it + 1);  // the baseline goes first
      exp.comparison.baseline = name;
    }
    if (const YAML::Node a = node["aa"]) exp.comparison.aa = get_bool(a, "comparison.aa");
    if (const YAML::Node t = node["threshold"])
      exp.comparison.threshold = get_percent(t, "comparison.threshold");
    if (const YAML::Node d = node["design"]) {
      static constexpr std::pair<std::string_view, bool> kDesigns[] = {{"paired", false}, {"blocks", true}};
      const std::string v = get_string(d, "comparison.design");
      const auto* design =
          std::find_if(std::begin(kDesigns), std::end(kDesigns), [&](const auto& w) { return w.first == v; });
      if (design == std::end(kDesigns))
        fail(d, fmt::format("comparison.design: expected paired or blocks, got {}", quote(v)));
      exp.comparison.blocks = design->second;
      if (exp.comparison.blocks && exp.schedule == model::Schedule::interleaved)
        fail(d,
             "comparison.design: blocks runs each variant in its own sequential block; use schedule: "
             "sequential");
      if (exp.comparison.blocks && exp.adaptive)
        fail(d, "comparison.design: blocks cannot stop adaptively; give a fixed number of samples");
      if (exp.comparison.blocks) exp.comparison.aa = false;  // there are no pairs to check
    }
  }

  // ---- sweeps ----

  // One `{sweep: ...}` in a condition: where it sits, and its values with their labels (a null
  // value removes the key: `affinity: {sweep: [~, 0]}` is unpinned, then pinned).
  struct Sweep {
    std::vector<std::string> path;  // keys from the condition down to the swept setting
    std::string parameter;          // as shown
    YAML::Node node;                // the `{sweep: ...}` mapping
    std::vector<std::pair<std::string, YAML::Node>> values;
  };

  // The sweeps of a condition, in the file's order (a depth-first walk of its mappings).
  void find_sweeps(const YAML::Node& map, std::vector<std::string>& path, const std::string& where,
                   std::vector<Sweep>& out) {
    for (const auto& kv : map) {
      if (!kv.first.IsScalar()) continue;  // check_keys says so when the condition is read
      const std::string key = kv.first.Scalar();
      const YAML::Node value = kv.second;
      if (!value.IsMap()) continue;
      path.push_back(key);
      const std::string here = fmt::format("{}.{}", where, key);
      if (const YAML::Node sweep = value["sweep"]) {
        if (value.size() != 1)
          fail(value,
               fmt::format("{}: a sweep is a mapping with one key, sweep (e.g. {{sweep: [0, 1, 2]}})", here));
        if (path.size() == 1 && key == "name")
          fail(value, fmt::format("{}: a condition's name cannot be swept", here));
        out.push_back(read_sweep(sweep, path, here));
        out.back().node = value;
      } else {
        find_sweeps(value, path, here, out);
      }
      path.pop_back();
    }
  }

  // {sweep: [0, 1, 2]}, {sweep: 0..4} (whole numbers, either way), {sweep: {label: value, ...}}.
  Sweep read_sweep(const YAML::Node& node, const std::vector<std::string>& path, const std::string& where) {
    Sweep s;
    s.path = path;
    const auto add = [&](std::string label, YAML::Node value, const YAML::Node& at) {
      for (const auto& [seen, v] : s.values)
        if (seen == label) fail(at, fmt::format("{}: the value {} is swept twice", where, quote(label)));
      s.values.emplace_back(std::move(label), std::move(value));
    };
    if (node.IsSequence()) {
      for (const auto& item : node) {
        std::string label;
        if (item.IsNull()) {
          label = "none";
        } else if (item.IsScalar()) {
          label = item.Scalar();
        } else if (item.IsSequence()) {
          std::vector<std::string> parts;
          for (const auto& part : item) parts.push_back(part.IsScalar() ? part.Scalar() : "?");
          label = fmt::format("{}", fmt::join(parts, ","));
        } else {
          fail(item,
               fmt::format("{}: a mapping in a sweep needs a label: write {{sweep: {{label: value, ...}}}}",
                           where));
        }
        add(label, item, item);
      }
    } else if (node.IsMap()) {
      for (const auto& kv : node) {
        if (!kv.first.IsScalar() || kv.first.Scalar().empty())
          fail(kv.first, fmt::format("{}: a sweep's labels are plain names", where));
        add(kv.first.Scalar(), kv.second, kv.first);
      }
    } else if (node.IsScalar()) {
      const std::string text = node.Scalar();
      const std::size_t dots = text.find("..");
      long from = 0, to = 0;
      const auto whole = [](std::string_view t, long& v) {
        const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
        return !t.empty() && ec == std::errc{} && p == t.data() + t.size();
      };
      if (dots == std::string::npos || !whole(std::string_view(text).substr(0, dots), from) ||
          !whole(std::string_view(text).substr(dots + 2), to))
        fail(node, fmt::format("{}.sweep: expected a list of values ([0, 1, 2]), a range of whole numbers "
                               "(0..4) or labelled values ({{a: ..., b: ...}}), got {}",
                               where, quote(text)));
      const unsigned long span = range_span(from, to);
      if (span >= kMaxConditions)
        fail(node, fmt::format("{}.sweep: {} has more than {} values", where, quote(text), kMaxConditions));
      for (long v = from;; v += (to >= from ? 1 : -1)) {
        add(std::to_string(v), YAML::Node(std::to_string(v)), node);
        if (v == to) break;
      }
    } else {
      fail(node, fmt::format("{}.sweep: expected a list of values, e.g. {{sweep: [0, 1, 2]}}", where));
    }
    if (s.values.empty()) fail(node, fmt::format("{}.sweep: no values to sweep", where));
    return s;
  }

  // The value of a setting on a numeric axis: a number as written, a size in bytes for memory,
  // `all` spinners as the CPUs they meant, no spinners as 0; nullopt otherwise (a category).
  std::optional<double> number_of(const Sweep& s, const std::string& label, const model::Condition& c) const {
    const std::string& key = s.path.back();
    const bool spinners = s.path.front() == "spinners" && (s.path.size() == 1 || key == "count");
    if (spinners) return c.spinners ? std::optional<double>(c.spinners->count) : std::optional<double>(0);
    double v = 0;
    const auto [p, ec] = std::from_chars(label.data(), label.data() + label.size(), v);
    if (!label.empty() && ec == std::errc{} && p == label.data() + label.size() && std::isfinite(v)) return v;
    if (key == "memory" || key == "memory_swap")
      if (const auto bytes = parse_size(label)) return static_cast<double>(*bytes);
    return std::nullopt;
  }

  // A condition as written, or one per point of the product of its sweeps (the first sweep
  // varies slowest), each with the node it was read from.
  std::vector<std::pair<YAML::Node, model::Condition>> read_conditions(const YAML::Node& node,
                                                                       std::size_t index) {
    const std::string path = fmt::format("conditions[{}]", index);
    std::vector<Sweep> sweeps;
    if (node.IsMap()) {
      std::vector<std::string> keys;
      find_sweeps(node, keys, path, sweeps);
    }
    if (sweeps.empty()) return {{node, read_condition(node, index)}};
    // Parameters are shown by their key, or by their whole path where two keys are the same
    // (spinners.cpus and container.cpus).
    for (auto& s : sweeps) {
      const auto same = std::count_if(sweeps.begin(), sweeps.end(),
                                      [&](const Sweep& o) { return o.path.back() == s.path.back(); });
      s.parameter = same > 1 ? fmt::format("{}", fmt::join(s.path, ".")) : s.path.back();
    }
    std::size_t total = 1;
    for (const auto& s : sweeps) {
      total *= s.values.size();
      if (total > kMaxConditions)
        fail(s.node, fmt::format("{}: the sweeps make more than {} conditions: sweep fewer values", path,
                                 kMaxConditions));
    }
    const YAML::Node name = node["name"];
    const std::string group = name && name.IsScalar() ? name.Scalar() : "";
    std::vector<std::pair<YAML::Node, model::Condition>> out;
    std::vector<std::size_t> at(sweeps.size(), 0);
    for (std::size_t k = 0; k < total; ++k) {
      // The point: at[j] is the value of sweep j (the last sweep varies fastest).
      for (std::size_t j = sweeps.size(), rest = k; j-- > 0;) {
        at[j] = rest % sweeps[j].values.size();
        rest /= sweeps[j].values.size();
      }
      YAML::Node point = YAML::Clone(node);
      model::SweepPoint sweep_point{group, {}, static_cast<int>(k)};
      std::string generated = group;
      for (std::size_t j = 0; j < sweeps.size(); ++j) {
        const auto& [label, value] = sweeps[j].values[at[j]];
        set_at(point, sweeps[j].path, value);
        sweep_point.settings.push_back({sweeps[j].parameter, label, std::nullopt});
        generated += fmt::format(".{}-{}", safe_part(sweeps[j].parameter), safe_part(label));
      }
      if (!is_safe_name(generated))
        fail(sweeps.front().node,
             fmt::format(
                 "{}: the sweep point {} would be named {}, which is not a safe file name (at most 64 "
                 "characters): shorten the condition's name, or label the values ({{sweep: {{a: ..., b: "
                 "...}}}})",
                 path, model::claim_name(sweep_point), quote(generated)));
      point["name"] = generated;
      model::Condition c;
      fallback_mark_ = sweeps.front().node.Mark();
      try {
        c = read_condition(point, index);
      } catch (const ConfigError& e) {
        fallback_mark_.reset();
        throw ConfigError(
            fmt::format("{} (in the sweep point {})", e.what(), model::claim_name(sweep_point)));
      }
      fallback_mark_.reset();
      c.mark = mark_of(node);
      for (std::size_t j = 0; j < sweeps.size(); ++j)
        sweep_point.settings[j].number = number_of(sweeps[j], sweeps[j].values[at[j]].first, c);
      c.sweep = std::move(sweep_point);
      out.emplace_back(point, std::move(c));
    }
    return out;
  }

  // A label as part of a file name: characters other than letters, digits, '.', '_' and '-'
  // become '_'.
  static std::string safe_part(std::string text) {
    for (char& ch : text)
      if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '_' && ch != '-') ch = '_';
    return text;
  }

  // Puts `value` at `path` in a cloned condition (a null value removes the key; no spinners, 0,
  // removes `spinners`).
  static void set_at(YAML::Node root, const std::vector<std::string>& path, const YAML::Node& value) {
    const bool no_spinners = path.front() == "spinners" && (path.size() == 1 || path.back() == "count") &&
                             value.IsScalar() && value.Scalar() == "0";
    if (no_spinners) {
      root.remove("spinners");
      return;
    }
    YAML::Node parent = root;
    for (std::size_t i = 0; i + 1 < path.size(); ++i) parent.reset(parent[path[i]]);
    if (value.IsNull())
      parent.remove(path.back());
    else
      parent[path.back()] = value;
  }

  model::Condition read_condition(const YAML::Node& node, std::size_t index) {
    const std::string path = fmt::format("conditions[{}]", index);
    require_map(node, path);
    check_keys(node, kConditionKeys, path);
    model::Condition c;
    c.mark = mark_of(node);
    const YAML::Node name = node["name"];
    if (!name)
      fail(node, fmt::format("missing key \"name\" in {}: every condition needs a unique name", path));
    c.name = get_string(name, path + ".name");
    if (!is_safe_name(c.name))
      fail(name, fmt::format("{}.name: {} is not safe as a file name (use letters, digits, '.', '_' "
                             "and '-', at most 64 characters, not starting with '.' or '-')",
                             path, quote(c.name)));
    if (const YAML::Node s = node["spinners"]) c.spinners = read_spinners(s, path + ".spinners");
    if (const YAML::Node a = node["args"]) c.args = read_args(a, path + ".args");
    if (const YAML::Node v = node["env"]) c.env = get_env(v, path + ".env");
    if (const YAML::Node a = node["affinity"]) c.affinity = get_cpus(a, path + ".affinity");
    if (const YAML::Node n = node["nice"]) c.nice = get_nice(n, path + ".nice");
    if (const YAML::Node k = node["container"]) {
      c.container = read_container(k, path + ".container");
      if (!c.affinity.empty())
        fail(node["affinity"], fmt::format("{}.affinity: conflicts with container: pin the container "
                                           "with container.cpuset instead",
                                           path));
      if (c.nice) fail(node["nice"], fmt::format("{}.nice: not supported for a container condition", path));
    }
    return c;
  }

  // A condition's args: strings added after the benchmark's command; never the repetition flag
  // noisefloor sets itself.
  std::vector<std::string> read_args(const YAML::Node& node, const std::string& path) const {
    if (!node.IsSequence())
      fail(node, fmt::format("{}: expected a list of arguments such as [-test.cpu=2] (added after "
                             "benchmark.command; never run through a shell)",
                             path));
    std::vector<std::string> args;
    for (const auto& item : node) {
      if (!item.IsScalar())
        fail(item, fmt::format("{}: each argument must be a string, got {}", path, describe(item)));
      const std::string& a = item.Scalar();
      for (const char* flag : {"-test.count", "-count", "--count", "--test.count", "--benchmark_repetitions"})
        if (a == flag || a.rfind(std::string(flag) + "=", 0) == 0)
          fail(item, fmt::format("{}: remove {}: noisefloor sets the repetitions from benchmark.samples",
                                 path, quote(a)));
      args.push_back(a);
    }
    return args;
  }

  model::SpinnerSpec read_spinners(const YAML::Node& node, const std::string& path) {
    model::SpinnerSpec s;
    // Copy-construct only: assigning to a YAML::Node writes through to the document.
    const YAML::Node count = node.IsMap() ? node["count"] : node;
    if (node.IsMap()) {
      check_keys(node, kSpinnerKeys, path);
      if (!count) fail(node, fmt::format("missing key \"count\" in {}: a number or all", path));
      if (const YAML::Node c = node["cpus"]) s.cpus = get_cpus(c, path + ".cpus");
      if (const YAML::Node n = node["nice"]) s.nice = get_nice(n, path + ".nice");
    }
    if (count.IsScalar() && count.Scalar() == "all") {
      s.all = true;
      s.count = host_.online_cpus.empty() ? 1 : static_cast<int>(host_.online_cpus.size());
    } else {
      s.count = static_cast<int>(get_int(count, path, 1, "a number of spinners ≥ 1 or all", 4096));
    }
    return s;
  }

  model::ContainerSpec read_container(const YAML::Node& node, const std::string& path) {
    model::ContainerSpec k;
    k.mark = mark_of(node);
    if (node.IsNull()) return k;  // `container:` alone: all defaults
    require_map(node, path);
    check_keys(node, kContainerKeys, path);
    if (const YAML::Node n = node["image"]) {
      k.image = get_string(n, path + ".image");
      if (k.image.empty()) fail(n, fmt::format("{}.image: expected auto or an image reference", path));
      // What a Docker reference is made of ([registry/]name[:tag][@digest]): anything else would
      // reach the engine's API as another path ("../x").
      bool plain = k.image.size() <= 255;
      for (const char c : k.image)
        plain = plain && (std::isalnum(static_cast<unsigned char>(c)) ||
                          std::string_view("._-/:@").find(c) != std::string_view::npos);
      for (std::size_t at = 0; plain && at <= k.image.size();) {
        const std::size_t end = std::min(k.image.find('/', at), k.image.size());
        const std::string_view part = std::string_view(k.image).substr(at, end - at);
        plain = !part.empty() && part != "." && part != "..";
        at = end + 1;
      }
      if (!plain)
        fail(n, fmt::format(
                    "{}.image: {} is not an image reference (letters, digits, . _ - / : @, no empty, '.' or "
                    "'..' part): give auto or a name like registry.example/bench:1.0",
                    path, text::quote(k.image)));
    }
    std::vector<int> cpuset_cpus;
    if (const YAML::Node n = node["cpuset"]) {
      cpuset_cpus = get_cpus(n, path + ".cpuset");
      k.cpuset = model::format_cpu_list(cpuset_cpus);
    }
    if (const YAML::Node n = node["cpus"]) {
      k.cpus = get_number(n, path + ".cpus");
      if (*k.cpus < 0.01) fail(n, fmt::format("{}.cpus: expected at least 0.01 CPUs, got {}", path, *k.cpus));
      const std::size_t available = !cpuset_cpus.empty() ? cpuset_cpus.size() : host_.online_cpus.size();
      if (available > 0 && *k.cpus > static_cast<double>(available) + 1e-9)
        fail(n, fmt::format("{}.cpus: {} CPUs is more than the {} CPU(s) {} ({})", path, *k.cpus, available,
                            cpuset_cpus.empty() ? "this host has" : "in the cpuset",
                            model::format_cpu_list(cpuset_cpus.empty() ? host_.online_cpus : cpuset_cpus)));
    }
    if (const YAML::Node n = node["memory"]) k.memory = get_memory(n, path + ".memory", false);
    if (const YAML::Node n = node["memory_swap"]) {
      k.memory_swap = get_memory(n, path + ".memory_swap", true);
      if (!k.memory)
        fail(n, fmt::format("{}.memory_swap: set memory too (memory_swap is memory plus swap)", path));
      if (*k.memory_swap != -1 && *k.memory_swap < *k.memory)
        fail(n, fmt::format("{}.memory_swap: must be at least memory ({} bytes), or -1 for unlimited", path,
                            *k.memory));
    }
    // No swap unless asked: a benchmark that swaps measures the disk. (`docker run` would allow
    // as much swap as memory.)
    if (k.memory && !k.memory_swap) k.memory_swap = k.memory;
    if (const YAML::Node n = node["env"]) k.env = get_env(n, path + ".env");
    if (const YAML::Node n = node["network"]) {
      k.network = get_string(n, path + ".network");
      if (!is_network_mode(k.network))
        fail(n,
             fmt::format("{}.network: expected none, bridge, host, container:<name> or the name of a network "
                         "(letters, digits, '_', '.', '-'), got {}",
                         path, quote(k.network)));
    }
    if (const YAML::Node n = node["user"]) k.user = get_string(n, path + ".user");
    if (const YAML::Node n = node["read_only"]) k.read_only = get_bool(n, path + ".read_only");
    if (const YAML::Node n = node["perf_events"]) k.perf_events = get_bool(n, path + ".perf_events");
    if (const YAML::Node n = node["pids_limit"]) {
      k.pids_limit = get_int(n, path + ".pids_limit", 1, "a process limit ≥ 1", 4'194'304);
      k.pids_limit_given = true;
    }
    return k;
  }

  std::int64_t get_memory(const YAML::Node& node, const std::string& path, bool allow_unlimited) const {
    if (allow_unlimited && node.IsScalar() && node.Scalar() == "-1") return -1;
    const auto v = node.IsScalar() ? parse_size(node.Scalar()) : std::nullopt;
    if (!v) fail(node, fmt::format("{}: expected a size such as 512m or 1g, got {}", path, describe(node)));
    if (*v < kMinContainerMemory)
      fail(node, fmt::format("{}: {} bytes is below the engine's minimum of 6m", path, *v));
    return *v;
  }

 private:
  std::string file_;
  const HostFacts& host_;
  std::optional<model::Adaptive> adaptive_;
  std::optional<YAML::Mark> fallback_mark_;
};

}  // namespace

std::optional<model::Seconds> parse_duration(std::string_view text) {
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  std::size_t unit_at = text.size();
  while (unit_at > 0 && std::isalpha(static_cast<unsigned char>(text[unit_at - 1]))) --unit_at;
  const std::string_view number = text.substr(0, unit_at);
  const std::string_view unit = text.substr(unit_at);
  double value = 0;
  const auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (number.empty() || ec != std::errc{} || ptr != number.data() + number.size() || value < 0 ||
      !std::isfinite(value))
    return std::nullopt;
  static constexpr std::pair<std::string_view, double> kUnits[] = {{"", 1},      {"s", 1},  {"ms", 1e-3},
                                                                   {"us", 1e-6}, {"m", 60}, {"h", 3600}};
  for (const auto& [name, scale] : kUnits)
    if (unit == name) return model::Seconds(value * scale);
  return std::nullopt;
}

std::optional<std::int64_t> parse_size(std::string_view text) {
  std::size_t unit_at = text.size();
  while (unit_at > 0 && std::isalpha(static_cast<unsigned char>(text[unit_at - 1]))) --unit_at;
  const std::string_view number = text.substr(0, unit_at);
  std::string unit(text.substr(unit_at));
  std::transform(unit.begin(), unit.end(), unit.begin(), [](unsigned char c) { return std::tolower(c); });
  std::int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (number.empty() || ec != std::errc{} || ptr != number.data() + number.size() || value < 0)
    return std::nullopt;
  static constexpr std::int64_t kKiB = 1024;
  static constexpr std::pair<std::string_view, std::int64_t> kUnits[] = {{"", 1},
                                                                         {"b", 1},
                                                                         {"k", kKiB},
                                                                         {"kb", kKiB},
                                                                         {"kib", kKiB},
                                                                         {"m", kKiB * kKiB},
                                                                         {"mb", kKiB * kKiB},
                                                                         {"mib", kKiB * kKiB},
                                                                         {"g", kKiB * kKiB * kKiB},
                                                                         {"gb", kKiB * kKiB * kKiB},
                                                                         {"gib", kKiB * kKiB * kKiB}};
  for (const auto& [name, scale] : kUnits)
    if (unit == name)
      return value > (std::int64_t{1} << 62) / scale ? std::nullopt : std::optional(value * scale);
  return std::nullopt;
}

bool is_safe_name(std::string_view name) {
  if (name.empty() || name.size() > 64 || name.front() == '.' || name.front() == '-') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

std::string closest_key(std::string_view key, const std::vector<std::string>& valid) {
  return text::closest(key, valid);
}

model::Experiment parse_experiment(std::string_view yaml_text, std::string_view file_name,
                                   const HostFacts& host) {
  Reader reader(file_name, host);
  try {
    return reader.read(yaml_text);
  } catch (const YAML::Exception& e) {  // a yaml-cpp surprise still gets a position
    reader.fail(e.mark, fmt::format("invalid experiment: {}", e.msg));
  }
}

std::vector<int> pinned_cpus(const model::Experiment& e) {
  std::vector<int> cpus;
  for (const auto& c : e.conditions) {
    cpus.insert(cpus.end(), c.affinity.begin(), c.affinity.end());
    if (c.spinners) cpus.insert(cpus.end(), c.spinners->cpus.begin(), c.spinners->cpus.end());
    // Validated when the experiment was loaded: a malformed cpuset cannot get here.
    if (c.container && c.container->cpuset)
      for (int cpu : model::parse_cpu_list(*c.container->cpuset).value_or(std::vector<int>{}))
        cpus.push_back(cpu);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

void resolve_paths(model::Experiment& e, const std::string& file_dir) {
  const std::filesystem::path base(file_dir);
  e.base_dir = base.string();
  std::filesystem::path workdir = base;
  if (e.benchmark.workdir) workdir = (base / *e.benchmark.workdir).lexically_normal();
  e.benchmark.workdir = workdir.string();
  const auto resolve = [&](std::vector<std::string>& argv) {
    if (argv.empty()) return;
    std::string& program = argv.front();
    if (program.find('/') != std::string::npos && std::filesystem::path(program).is_relative())
      program = (workdir / program).lexically_normal().string();
  };
  resolve(e.benchmark.command);
  resolve(e.benchmark.build);
  if (e.reference && !e.reference->file.empty() && std::filesystem::path(e.reference->file).is_relative())
    e.reference->file = (base / e.reference->file).lexically_normal().string();
  for (auto& v : e.variants) resolve(v.command);
}

}  // namespace noisefloor::config
