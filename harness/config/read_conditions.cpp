// conditions: of an experiment file, their sweeps expanded, spinners and containers (config/reader.hpp).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "config/reader.hpp"
#include "model/cpulist.hpp"
#include "model/errors.hpp"
#include "model/simulation.hpp"

namespace noisefloor::config::detail {
namespace {

const std::vector<std::string> kConditionKeys = {"name",      "spinners", "affinity", "nice",
                                                 "container", "args",     "env"};

const std::vector<std::string> kSpinnerKeys = {"count", "cpus", "nice"};

const std::vector<std::string> kContainerKeys = {"image",       "cpuset",     "cpus",       "memory",
                                                 "memory_swap", "env",        "network",    "user",
                                                 "read_only",   "pids_limit", "perf_events"};

// At most this many conditions, after sweeps are expanded.
constexpr std::size_t kMaxConditions = 1000;

// |to - from| in unsigned arithmetic, exact for any two longs (to - from overflows a long for
// -9223372036854775808..9223372036854775807, and a sweep's loop over it then never ended).
unsigned long range_span(long from, long to) {
  return to >= from ? static_cast<unsigned long>(to) - static_cast<unsigned long>(from)
                    : static_cast<unsigned long>(from) - static_cast<unsigned long>(to);
}

// A network mode the engine accepts: none, bridge, host, container:<name or id>, or a network's
// name ([a-zA-Z0-9][a-zA-Z0-9_.-]*, the engine's own rule for names).
bool is_network_mode(std::string_view mode) {
  if (mode.substr(0, 10) == "container:") mode.remove_prefix(10);
  if (mode.empty() || !std::isalnum(static_cast<unsigned char>(mode.front()))) return false;
  return std::all_of(mode.begin(), mode.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
  });
}

}  // namespace

Reader::ConditionNodes Reader::read_all_conditions(const YAML::Node& root, model::Experiment& exp) {
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
             fmt::format("conditions[{}].name: duplicate condition name {}{}", i, quote(c.name),
                         c.sweep
                             ? fmt::format(" (generated for the sweep point {})", model::claim_name(*c.sweep))
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

void Reader::check_conditions_fit(const model::Experiment& exp, const ConditionNodes& nodes) const {
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
      fail(node["container"],
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

void Reader::find_sweeps(const YAML::Node& map, std::vector<std::string>& path, const std::string& where,
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

Reader::Sweep Reader::read_sweep(const YAML::Node& node, const std::vector<std::string>& path,
                                 const std::string& where) {
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

std::optional<double> Reader::number_of(const Sweep& s, const std::string& label,
                                        const model::Condition& c) const {
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

std::vector<std::pair<YAML::Node, model::Condition>> Reader::read_conditions(const YAML::Node& node,
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
      fail(
          sweeps.front().node,
          fmt::format("{}: the sweep point {} would be named {}, which is not a safe file name (at most 64 "
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
      throw ConfigError(fmt::format("{} (in the sweep point {})", e.what(), model::claim_name(sweep_point)));
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

std::string Reader::safe_part(std::string text) {
  for (char& ch : text)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '_' && ch != '-') ch = '_';
  return text;
}

void Reader::set_at(YAML::Node root, const std::vector<std::string>& path, const YAML::Node& value) {
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

model::Condition Reader::read_condition(const YAML::Node& node, std::size_t index) {
  const std::string path = fmt::format("conditions[{}]", index);
  require_map(node, path);
  check_keys(node, kConditionKeys, path);
  model::Condition c;
  c.mark = mark_of(node);
  const YAML::Node name = node["name"];
  if (!name) fail(node, fmt::format("missing key \"name\" in {}: every condition needs a unique name", path));
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

std::vector<std::string> Reader::read_args(const YAML::Node& node, const std::string& path) const {
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
        fail(item, fmt::format("{}: remove {}: noisefloor sets the repetitions from benchmark.samples", path,
                               quote(a)));
    args.push_back(a);
  }
  return args;
}

model::SpinnerSpec Reader::read_spinners(const YAML::Node& node, const std::string& path) {
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

model::ContainerSpec Reader::read_container(const YAML::Node& node, const std::string& path) {
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

}  // namespace noisefloor::config::detail
