// `run --resume DIR`: the run it goes on with, refused with what it would run until the user
// names the experiment file.
#include "pipeline/resume.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <optional>
#include <string>

#include "config/experiment_file.hpp"
#include "files/files.hpp"
#include "model/errors.hpp"
#include "results/load.hpp"
#include "text/text.hpp"

namespace noisefloor::pipeline {
namespace fs = std::filesystem;

namespace {

// The run `run --resume DIR` goes on with: its samples, records and fingerprint as written.
records::Result load_resumable(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec) || !fs::exists(fs::path(dir) / "samples.jsonl", ec))
    throw ConfigError(
        fmt::format("--resume {}: not a run directory (expected results/<experiment>/<run>/ with a "
                    "samples.jsonl)",
                    dir));
  records::Result r = results::load(dir);
  // One host of a run on several (its run.json says so, or, killed before it wrote one, where it is).
  const fs::path canonical = fs::weakly_canonical(dir, ec);
  const bool in_fleet = canonical.parent_path().filename() == "hosts" &&
                        fs::exists(canonical.parent_path().parent_path() / "fleet.json", ec);
  if ((r.run && !r.run->host.empty()) || in_fleet)
    throw ConfigError(
        fmt::format("--resume {}: this is host '{}' of a run on several hosts, which cannot be resumed "
                    "yet (here it would run on this machine instead): start a new run",
                    dir, r.run && !r.run->host.empty() ? r.run->host : canonical.filename().string()));
  if (r.run && r.run->status == records::RunStatus::complete)
    throw ConfigError(fmt::format("--resume {}: the run is complete: nothing to resume", dir));
  return r;
}

// A container condition's settings that change what runs and what it may reach: its image, and
// what it asks beyond the safe defaults (network, user, a writable root, performance counters,
// environment).
std::string container_words(const model::ContainerSpec& c) {
  std::string out = "image " + text::quote(c.image);
  if (c.network != model::ContainerSpec{}.network) out += ", network " + text::quote(c.network);
  if (c.user) out += ", user " + text::quote(*c.user);
  if (!c.read_only) out += ", writable root";
  if (c.perf_events) out += ", performance counters (CAP_PERFMON)";
  for (const auto& [name, value] : c.env) out += ", env " + text::quote(name) + "=" + text::quote(value);
  return out;
}

// Everything an experiment would run, as the --resume refusal shows it: the build step, the
// benchmark, where and with what environment (a workdir or an LD_PRELOAD changes what runs as much
// as argv), each condition's and variant's own arguments, environment, container and command, and
// the hosts it runs on.
std::string what_it_runs(const model::Experiment& e) {
  const auto argv = [](const std::vector<std::string>& a) {
    std::vector<std::string> quoted;
    for (const auto& w : a) quoted.push_back(text::quote(w));
    return fmt::format("{}", fmt::join(quoted, " "));
  };
  const auto env = [](const std::map<std::string, std::string>& vars) {
    std::vector<std::string> set;
    for (const auto& [name, value] : vars) set.push_back(text::quote(name) + "=" + text::quote(value));
    return fmt::format("{}", fmt::join(set, " "));
  };
  std::string runs = e.benchmark.build.empty() ? "" : fmt::format("build: {}; ", argv(e.benchmark.build));
  runs += fmt::format("benchmark: {}", argv(e.benchmark.command));
  if (e.benchmark.workdir) runs += fmt::format("; workdir: {}", text::quote(*e.benchmark.workdir));
  if (!e.benchmark.env.empty()) runs += fmt::format("; env: {}", env(e.benchmark.env));
  for (const auto& c : e.conditions) {
    if (!c.args.empty()) runs += fmt::format("; args of {}: {}", text::quote(c.name), argv(c.args));
    if (!c.env.empty()) runs += fmt::format("; env of {}: {}", text::quote(c.name), env(c.env));
    if (c.container)
      runs += fmt::format("; container of {}: {}", text::quote(c.name), container_words(*c.container));
  }
  for (const auto& v : e.variants) {
    if (v.command != e.benchmark.command)
      runs += fmt::format("; variant {}: {}", text::quote(v.name), argv(v.command));
    if (v.workdir) runs += fmt::format("; workdir of {}: {}", text::quote(v.name), text::quote(*v.workdir));
  }
  if (!e.hosts.empty()) {
    std::vector<std::string> hosts;
    for (const auto& h : e.hosts) hosts.push_back(text::quote(h.name));
    runs += fmt::format("; hosts: {}", fmt::join(hosts, " "));
  }
  return runs;
}

}  // namespace

std::optional<records::Result> resumed(const RunOptions& o, std::string& experiment_file) {
  if (o.resume.empty()) return std::nullopt;
  if (fs::exists(fs::path(o.resume) / "fleet.json"))
    throw ConfigError(
        fmt::format("--resume {}: a run on several hosts cannot be resumed yet: start a new run (what "
                    "it measured stays in {}/hosts/)",
                    o.resume, o.resume));
  std::optional<records::Result> earlier = load_resumable(o.resume);
  // The file the run recorded: run.json's (as given then), else the fingerprint's (absolute).
  if (experiment_file.empty() && earlier->fingerprint.run)
    experiment_file = earlier->fingerprint.run->experiment_file;
  if (experiment_file.empty() && earlier->run) experiment_file = earlier->run->experiment_file;
  if (experiment_file.empty())
    throw ConfigError(
        fmt::format("--resume {}: the run does not say which experiment file it ran: give it, "
                    "`noisefloor run EXPERIMENT --resume {}`",
                    o.resume, o.resume));
  // A result directory is not trusted: the experiment it names would be run (its build step,
  // its benchmark) though the user never named it. Nothing runs until the user names it; the
  // refusal says what it would run, from the copy the directory holds.
  if (o.experiment.empty()) {
    std::string runs;
    try {
      const auto copy =
          files::read_regular(fs::path(o.resume) / "experiment.yaml", 1 << 20, "an experiment's copy", true);
      runs = what_it_runs(config::parse_experiment(copy, "experiment.yaml", {}));
    } catch (const Error& err) {
      runs = fmt::format("its copy cannot be read: {}", err.what());
    }
    throw ConfigError(fmt::format(
        "--resume {}: resuming runs the commands of the experiment this run names, {} "
        "({}); name it to go on: `noisefloor run {} --resume {}`",
        o.resume, experiment_file, runs, text::shell_word(experiment_file), text::shell_word(o.resume)));
  }
  return earlier;
}

}  // namespace noisefloor::pipeline
