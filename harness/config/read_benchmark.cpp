// benchmark:, variants: and comparison: of an experiment file (config/reader.hpp).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "config/reader.hpp"
#include "model/errors.hpp"
#include "model/simulation.hpp"

namespace noisefloor::config::detail {
namespace {

const std::vector<std::string> kBenchmarkKeys = {
    "build", "command", "format",    "samples",     "warmup",      "timeout", "samples_per_run",
    "env",   "workdir", "precision", "max_samples", "time_budget", "metric",  "inputs"};

const std::vector<std::string> kVariantKeys = {"name", "command", "args", "ref", "worktree"};

const std::vector<std::string> kComparisonKeys = {"baseline", "aa", "threshold", "design"};

}  // namespace

void Reader::resolve_program(const YAML::Node& bench, model::Experiment& exp) const {
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

void Reader::check_auto_image_variants(const YAML::Node& root, const model::Experiment& exp) const {
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

model::BenchmarkSpec Reader::read_benchmark(const YAML::Node& node) {
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
    if (const YAML::Node p = node["precision"]) adaptive_->precision = get_percent(p, "benchmark.precision");
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

void Reader::finish_benchmark(model::Experiment& exp, const YAML::Node& node) {
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
      fail(m, fmt::format("benchmark.metric: {} runs the benchmark under valgrind, which noisefloor does not "
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
               std::find(kCommandMetrics.begin(), kCommandMetrics.end(), b.metric) == kCommandMetrics.end()) {
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

void Reader::read_inputs(const YAML::Node& node, model::BenchmarkSpec& b) const {
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
      fail(node[i],
           fmt::format("benchmark.inputs[{}]: {} must be a path inside the benchmark's workdir, relative to "
                       "it (it is put at the same place in the container)",
                       i, quote(path)));
    if (host_.input_problem) {
      const std::string problem = host_.input_problem((dir / rel).string());
      if (!problem.empty())
        fail(
            node[i],
            fmt::format("benchmark.inputs[{}]: {} ({}) {}: give a file or directory that exists, relative to "
                        "the benchmark's workdir",
                        i, quote(path), (dir / rel).string(), problem));
    }
    b.inputs.push_back(rel.string());
  }
}

void Reader::read_variants(const YAML::Node& node, model::Experiment& exp) {
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
           fmt::format("{}.name: {} is not safe as a file name (use letters, digits, '.', '_' and '-')", path,
                       quote(var.name)));
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

std::optional<std::string> Reader::git_side(const YAML::Node& v, const std::string& path) const {
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

void Reader::read_comparison(const YAML::Node& node, model::Experiment& exp) {
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

}  // namespace noisefloor::config::detail
