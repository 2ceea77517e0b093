// Loading and checking an experiment before anything runs: `noisefloor validate`, the experiment
// as `run` and `doctor` load it (its reference table read too), the options `run` checks first
// (--anchor, --results, --wait).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/analysis.hpp"
#include "config/experiment_file.hpp"
#include "files/files.hpp"
#include "image/embedded.hpp"
#include "image/recipe.hpp"
#include "model/cpulist.hpp"
#include "model/errors.hpp"
#include "parsers/published.hpp"
#include "pipeline/commands.hpp"
#include "pipeline/room.hpp"
#include "plan/plan.hpp"
#include "render/json.hpp"
#include "results/load.hpp"
#include "text/text.hpp"

namespace noisefloor::pipeline {
namespace fs = std::filesystem;

// What validation needs to know of this machine: the CPUs it can use.
config::HostFacts host_facts() {
  config::HostFacts facts;
  if (const auto online = files::try_read("/sys/devices/system/cpu/online"))
    if (auto cpus = model::parse_cpu_list(*online)) facts.online_cpus = *cpus;
  // Our own affinity mask is what we can actually use (e.g. inside a cpuset-limited container).
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) {
    std::vector<int> usable;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &set) &&
          (facts.online_cpus.empty() ||
           std::binary_search(facts.online_cpus.begin(), facts.online_cpus.end(), cpu)))
        usable.push_back(cpu);
    if (!usable.empty()) facts.online_cpus = usable;
  }
  facts.directory_problem = [](const std::string& path) -> std::string {
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (!fs::exists(st)) return "does not exist";
    if (!fs::is_directory(st)) return "is not a directory";
    if (::access(path.c_str(), X_OK) != 0) return fmt::format("cannot be entered ({})", std::strerror(errno));
    return "";
  };
  facts.input_problem = [](const std::string& path) -> std::string {
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (!fs::exists(st)) return "does not exist";
    if (::access(path.c_str(), R_OK) != 0) return fmt::format("cannot be read ({})", std::strerror(errno));
    return "";
  };
  facts.find_program = [](const std::string& program,
                          const std::string& path_env) -> std::optional<std::string> {
    const char* own = std::getenv("PATH");
    const std::string path = !path_env.empty() ? path_env
                             : own != nullptr  ? own
                                               : "/usr/local/bin:/usr/bin:/bin";
    for (std::size_t at = 0; at <= path.size();) {
      const std::size_t end = std::min(path.find(':', at), path.size());
      const fs::path candidate = fs::path(end > at ? path.substr(at, end - at) : ".") / program;
      std::error_code ec;
      if (fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0)
        return fs::absolute(candidate, ec).lexically_normal().string();
      at = end + 1;
    }
    return std::nullopt;
  };
  return facts;
}

namespace {

// reference: read now, so a table that cannot be read stops the run before anything runs.
model::PublishedTable read_reference(const model::ReferenceSpec& spec, const std::string& experiment_path) {
  model::PublishedTable t;
  try {
    t = spec.table.empty() ? read_published((fs::path(experiment_path).parent_path() / spec.file).string())
                           : parsers::parse_published(spec.table);
  } catch (const Error& err) {  // a table that does not parse, a file or result that does not load
    throw ConfigError(fmt::format("{}:{}:{}: reference: {}{} (a path is relative to the experiment file)",
                                  experiment_path, spec.mark.line, spec.mark.column,
                                  spec.file.empty() ? "table: " : "", err.what()));
  }
  t.file = spec.file;
  t.source = spec.source;
  return t;
}

}  // namespace

double wait_limit(const std::string& text) {
  const auto limit = config::parse_duration(text == "true" ? "1h" : text);
  if (!limit || !(limit->count() > 0))
    throw ConfigError(fmt::format("run: --wait={}: expected a duration (90s, 10m, 1h)", text));
  return limit->count();
}

model::PublishedTable read_published(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    // A noisefloor result directory (or an experiment's, through its `latest`).
    if (!fs::exists(fs::path(path) / "samples.jsonl", ec) && !fs::exists(fs::path(path) / "latest", ec))
      throw InputError(
          fmt::format("{}: a directory without samples.jsonl: give a result directory, its summary.json, "
                      "a cv-summary.txt or a markdown table",
                      path));
    const analysis::Analysis a = analysis::analyze({results::load(path)});
    model::PublishedTable t = render::published_table(a);
    t.format = "result";
    return t;
  }
  // A regular file of at most 64 MiB (a published table is a few kilobytes): a device or a FIFO
  // named here is refused, not read for ever.
  const std::string text = files::read_regular(path, 64 << 20, "a published table");
  try {
    return parsers::parse_published(text);
  } catch (const ParseError& err) {
    throw ParseError(fmt::format("{}: {}", path, err.what()));
  }
}

constexpr std::uintmax_t kExperimentLimit = 4 << 20;  // far above any experiment written by hand

model::Experiment load_experiment(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    std::vector<std::string> yaml;
    for (const auto& entry : fs::directory_iterator(path, ec)) {
      const std::string ext = entry.path().extension().string();
      if ((ext == ".yaml" || ext == ".yml") && entry.is_regular_file(ec))
        yaml.push_back(entry.path().string());
    }
    std::sort(yaml.begin(), yaml.end());
    if (yaml.empty())
      throw ConfigError(
          fmt::format("{}: is a directory, not an experiment file, and holds no .yaml file: give "
                      "an experiment file (e.g. experiments/laptop.yaml)",
                      path));
    throw ConfigError(
        fmt::format("{}: is a directory, not an experiment file: give one of its experiment files: {}", path,
                    fmt::join(yaml, ", ")));
  }
  if (!fs::exists(path, ec))
    throw ConfigError(fmt::format("{}: cannot read the experiment file: no such file", path));
  // A regular file of at most 4 MiB, read without blocking: /dev/zero or a FIFO named as the
  // experiment is one line, not a reader that grows without end (issue 42's fourth re-test: 10 GB).
  const std::string text = files::read_regular(path, kExperimentLimit, "an experiment file");
  model::Experiment e = config::parse_experiment(text, path, host_facts());
  if (e.reference) e.reference->published = read_reference(*e.reference, path);
  return e;
}

namespace {

// What `run` checks of the benchmark before its first sample, without an engine: the executable
// exists (unless the build step makes it), and the auto image a container condition uses can be
// made from it (an ELF program, its libraries, its inputs). Throws ConfigError naming the file.
void preflight(model::Experiment e) {
  config::resolve_paths(e, fs::absolute(fs::path(e.source_file)).parent_path().string());
  const std::string& exe = e.benchmark.command.front();
  std::error_code ec;
  const bool exists = exe.find('/') == std::string::npos || fs::exists(exe, ec);
  if (!exists && e.benchmark.build.empty())
    throw ConfigError(
        fmt::format("{}: benchmark.command: {} does not exist (and there is no build step to make it)",
                    e.source_file, exe));
  const bool auto_image =
      !e.hosts.empty() || std::any_of(e.conditions.begin(), e.conditions.end(), [](const auto& c) {
        return c.container && c.container->image == "auto";
      });
  if (!auto_image || !exists) return;
  std::vector<image::ImageInput> inputs;
  for (const auto& in : e.benchmark.inputs) inputs.push_back({fs::path(*e.benchmark.workdir) / in, in});
  try {
    (void)image::plan_image(exe, image::embedded_probe(), image::embedded_noop(), image::embedded_recipe(),
                            inputs);
  } catch (const RunError& err) {
    throw ConfigError(fmt::format("{}: {}", e.source_file, err.what()));
  }
}

// "4 min 12 s", "38 s", "2 h 5 min".
std::string span_text(double seconds) {
  const auto s = static_cast<long>(std::llround(seconds));
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return s % 60 ? fmt::format("{} min {} s", s / 60, s % 60) : fmt::format("{} min", s / 60);
  return fmt::format("{} h {} min", s / 3600, (s % 3600) / 60);
}

// Each sweep and its points, as validate expands them: "  sweep noisy: 3 points, spinners = 0, 1, 2".
std::string sweeps_text(const model::Experiment& e) {
  std::string out;
  for (std::size_t i = 0; i < e.conditions.size();) {
    const auto& first = e.conditions[i];
    if (!first.sweep) {
      ++i;
      continue;
    }
    // Each parameter's values in first-seen order: "spinners = 0, 1 × affinity = none, 0".
    std::vector<std::pair<std::string, std::vector<std::string>>> axes;
    for (const auto& setting : first.sweep->settings) axes.push_back({setting.parameter, {}});
    std::size_t j = i;
    for (; j < e.conditions.size() && e.conditions[j].sweep &&
           e.conditions[j].sweep->group == first.sweep->group;
         ++j)
      for (std::size_t k = 0; k < axes.size() && k < e.conditions[j].sweep->settings.size(); ++k) {
        auto& values = axes[k].second;
        const std::string& v = e.conditions[j].sweep->settings[k].value;
        if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
      }
    std::vector<std::string> parts;
    for (const auto& [parameter, values] : axes)
      parts.push_back(fmt::format("{} = {}", parameter, fmt::join(values, ", ")));
    out += fmt::format("  sweep {}: {} point{}, {}\n", first.sweep->group, j - i, j - i == 1 ? "" : "s",
                       text::shorten(fmt::format("{}", fmt::join(parts, " × ")), 400));
    i = j;
  }
  return out;
}

// "  84 samples in 84 invocations, 14 blocks: at least 1 min 2 s (…)".
std::string estimate_text(const plan::Estimate& est) {
  std::string out = fmt::format(
      "  {}{} samples of each benchmark in {}{} invocations, {} block{}: ", est.adaptive ? "at most " : "",
      est.samples, est.adaptive ? "at most " : "", est.invocations, est.blocks, est.blocks == 1 ? "" : "s");
  if (est.sample_seconds)
    return out +
           fmt::format(
               "at least {} for one benchmark ({} of noise profile, settle and cooldown; each sample at "
               "least {} s, {})\n",
               span_text(est.fixed_seconds + *est.sample_seconds * static_cast<double>(est.samples)),
               span_text(est.fixed_seconds), text::shortest(*est.sample_seconds), est.sample_basis);
  return out + fmt::format(
                   "{} of noise profile, settle and cooldown, plus the samples' own time (not known "
                   "before they run: {})\n",
                   span_text(est.fixed_seconds), est.sample_basis);
}

}  // namespace

// Every file is checked, each failure reported on its own line; exit 2 when any failed.
Output validate(const std::vector<std::string>& files) {
  Output o;
  std::size_t bad = 0;
  for (const auto& f : files) {
    try {
      const model::Experiment e = load_experiment(f);
      preflight(e);
      o.out += fmt::format("{}: ok ({} condition{}, {} samples each, {})\n", f, e.conditions.size(),
                           e.conditions.size() == 1 ? "" : "s",
                           e.adaptive ? fmt::format("auto up to {}", e.adaptive->max_samples)
                                      : std::to_string(e.benchmark.samples),
                           model::name_of(e.schedule));
      o.out += sweeps_text(e);
      o.out += estimate_text(plan::estimate(e));
    } catch (const ConfigError& e) {
      o.err += fmt::format("{}\n", e.what());
      ++bad;
    } catch (const InputError& e) {
      o.err += fmt::format("{}\n", e.what());
      ++bad;
    }
  }
  if (bad > 0 && files.size() > 1)
    o.err += fmt::format("noisefloor: {} of {} experiment files failed validation\n", bad, files.size());
  if (bad > 0) o.status = 2;
  return o;
}

std::optional<records::Result> load_anchor(const RunOptions& o) {
  if (o.anchor.empty()) return std::nullopt;
  try {
    return results::load(o.anchor);  // a bad anchor is a usage error, found before anything runs
  } catch (const RunError& err) {
    throw ConfigError(fmt::format("--anchor: {}", err.what()));
  }
}

// `--results`, checked before anything is built or run (and nothing is created): every part of
// <root>/<experiment> that exists must be a directory, and the deepest one writable.
void check_results_root(const std::string& root, const std::string& experiment) {
  std::error_code ec;
  fs::path existing;
  for (fs::path p = fs::path(root) / experiment;; p = p.parent_path()) {
    if (p.empty()) {
      existing = ".";
      break;
    }
    const fs::file_status st = fs::status(p, ec);
    if (fs::exists(st)) {
      if (!fs::is_directory(st))
        throw ConfigError(
            fmt::format("--results {}: {} is a file, not a directory: give a directory where "
                        "noisefloor may create result directories",
                        root, p.string()));
      existing = p;
      break;
    }
    if (p == p.parent_path()) break;
  }
  for (fs::path p = fs::path(root) / experiment; !p.empty() && p != existing; p = p.parent_path()) {
    const fs::file_status st = fs::symlink_status(p, ec);
    if (fs::is_symlink(st))
      throw ConfigError(fmt::format("--results {}: {} is a dangling link: fix it or give another directory",
                                    root, p.string()));
    if (p == p.parent_path()) break;
  }
  if (!existing.empty() && ::access(existing.c_str(), W_OK | X_OK) != 0)
    throw ConfigError(
        fmt::format("--results {}: cannot create directories in {} ({}): give a writable directory", root,
                    existing.string(), std::strerror(errno)));
  // `latest` is the link a complete run is pointed at: anything else there would fail the run
  // only once it has measured.
  const fs::path latest = fs::path(root) / experiment / "latest";
  if (const fs::file_status st = fs::symlink_status(latest, ec); fs::exists(st) && !fs::is_symlink(st))
    throw ConfigError(
        fmt::format("--results {}: {} is a {}, where noisefloor keeps the link to the last complete "
                    "run: move it away (nothing has run)",
                    root, latest.string(), fs::is_directory(st) ? "directory" : "file"));
}

}  // namespace noisefloor::pipeline
