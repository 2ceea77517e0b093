#include "pipeline/run_record.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "model/cpulist.hpp"
#include "model/first_seen.hpp"

namespace noisefloor::pipeline {
namespace {

// The value of a -benchtime style flag of the command, "" when none.
std::string benchtime_of(const std::vector<std::string>& argv) {
  for (const auto& a : argv)
    for (const std::string_view flag : {"-test.benchtime=", "-benchtime=", "--benchmark_min_time="})
      if (a.starts_with(flag)) return a.substr(flag.size());
  return "";
}

// Every session of a resumed run, the first one included: when, how it ended, what it was run with.
std::vector<records::SessionRecord> sessions_of(const SessionOutcome& s, const records::RunRecord& run) {
  const records::Result& earlier = *s.earlier;
  std::vector<records::SessionRecord> sessions;
  if (earlier.run) {
    sessions = earlier.run->sessions;
    if (sessions.empty())
      sessions.push_back({earlier.run->started_utc,
                          earlier.run->finished_utc,
                          earlier.run->command_line,
                          earlier.run->status,
                          earlier.run->error,
                          {}});
  } else {  // the first session was killed before it could write run.json
    // Its fingerprint (written at its start) still says how it was started.
    const std::string command_line = earlier.fingerprint.run ? earlier.fingerprint.run->command_line : "";
    sessions.push_back({run.started_utc,
                        "",
                        command_line,
                        records::RunStatus::failed,
                        std::string("ended without a record (killed)"),
                        {}});
  }
  sessions.push_back({s.started, s.finished, s.command_line, s.status, s.error, s.host_differences});
  return sessions;
}

}  // namespace

const std::set<std::string> kConditionKeys = {"condition",        "spinners",       "affinity",        "nice",
                                              "container-cpuset", "container-cpus", "container-memory"};

records::GoTestConfig raw_config(const model::Experiment& e, const Producer& producer,
                                 const records::Fingerprint& fp, const model::Condition& c,
                                 const std::string& run_id) {
  records::GoTestConfig cfg = {
      {"noisefloor-version", producer.version},
      {"noisefloor-commit", producer.commit},
      {"experiment", e.name},
      {"run", run_id},
      {"condition", c.name},
  };
  if (c.spinners)
    cfg.emplace_back(
        "spinners",
        fmt::format("{}{}", c.spinners->count,
                    c.spinners->cpus.empty() ? "" : " on cpus " + model::format_cpu_list(c.spinners->cpus)));
  if (!c.affinity.empty()) cfg.emplace_back("affinity", model::format_cpu_list(c.affinity));
  if (c.nice) cfg.emplace_back("nice", std::to_string(*c.nice));
  if (c.container) {
    if (c.container->cpuset) cfg.emplace_back("container-cpuset", *c.container->cpuset);
    if (c.container->cpus) cfg.emplace_back("container-cpus", fmt::format("{}", *c.container->cpus));
    if (c.container->memory) cfg.emplace_back("container-memory", std::to_string(*c.container->memory));
  }
  const std::pair<const char*, std::string> facts[] = {
      {"host", fp.host.show("hostname")},
      {"cpu", fp.host.show("cpu.model_name")},
      {"logical-cpus", fp.host.show("cpu.logical")},
      {"kernel", fp.host.show("kernel.release")},
      {"os", fp.host.show("os.pretty_name")},
      {"platform", fp.host.show("uname")},
      {"virtual", fp.host.show("virtualization.hypervisor")},
      {"go-version", fp.toolchain.show("go.version")},
      {"binary-sha256", fp.toolchain.show("binary.sha256")},
      {"command-line", fp.run ? fp.run->command_line : "unknown"},
  };
  for (const auto& [key, value] : facts) {
    std::string flat = value;
    std::replace(flat.begin(), flat.end(), '\n', ' ');
    cfg.emplace_back(key, flat);
  }
  return cfg;
}

std::vector<std::string> summary_header(const model::Experiment& e, const Producer& producer,
                                        const records::Fingerprint& fp,
                                        const std::vector<records::Sample>& samples) {
  model::FirstSeen<std::string> benchmarks;
  for (const auto& s : samples) benchmarks.add(s.benchmark);
  std::vector<std::string> h;
  std::string first = fmt::format("# CV comparison — {}, count={}", fmt::join(benchmarks.values(), ", "),
                                  e.benchmark.samples);
  if (const std::string bt = benchtime_of(e.benchmark.command); !bt.empty()) first += ", benchtime=" + bt;
  h.push_back(first);
  h.push_back(fmt::format("# host: {}, {} logical CPUs", fp.host.show("uname"), fp.host.show("cpu.logical")));
  for (const auto& c : e.conditions) {
    if (!c.container) continue;
    std::string flags;
    if (c.container->cpuset) flags += " --cpuset-cpus=" + *c.container->cpuset;
    if (c.container->cpus) flags += fmt::format(" --cpus={}", *c.container->cpus);
    if (c.container->memory) flags += fmt::format(" --memory={}m", *c.container->memory / (1024 * 1024));
    h.push_back(
        fmt::format("# container image: {} ({})", c.container->image, flags.empty() ? "" : flags.substr(1)));
    break;
  }
  if (e.benchmark.simulated)
    h.push_back(fmt::format("# simulated: {} {}; cycles = L1 hits + 5·LL hits + 35·RAM hits",
                            fp.toolchain.show("valgrind.version"), fp.toolchain.show("valgrind.settings")));
  h.push_back(fmt::format("# generated by noisefloor {} ({})", producer.version, producer.commit));
  return h;
}

records::Result build_run_record(SessionOutcome s) {
  const model::Experiment& e = s.experiment;
  runner::Measured& measured = s.measured;
  // The run's fingerprint is its first session's: a resumed run keeps it (and its finish time).
  records::Fingerprint fp = s.earlier ? s.earlier->fingerprint : s.fingerprint;
  if (fp.run) fp.run->finished_utc = s.finished;

  records::Result result;
  result.label = s.host.empty() ? s.run_id : s.host;
  result.source = s.directory;
  for (const auto& c : e.conditions) {
    result.conditions.push_back(c.name);
    result.gotest_config[c.name] = raw_config(e, s.producer, fp, c, s.run_id);
  }
  records::RunRecord& run = result.run.emplace();
  run.experiment = e.name;
  run.description = e.description;
  run.experiment_file = e.source_file;
  run.run_id = s.run_id;
  run.status = s.status;
  run.error = s.error;
  run.started_utc = s.started;
  run.finished_utc = s.finished;
  run.command_line = s.command_line;
  run.host = s.host;
  run.supersedes = s.supersedes;
  if (!run.supersedes && s.earlier && s.earlier->run) run.supersedes = s.earlier->run->supersedes;
  if (s.earlier) {
    // The run started when its first session did, with that session's command line.
    if (s.earlier->run) {
      run.started_utc = s.earlier->run->started_utc;
      run.command_line = s.earlier->run->command_line;
    } else if (s.earlier->fingerprint.run) {
      run.started_utc = s.earlier->fingerprint.run->started_utc;
    }
    run.sessions = sessions_of(s, run);
    for (const auto& d : s.host_differences)
      measured.warnings.push_back({.kind = records::RunWarningKind::resumed_elsewhere, .detail = d});
    if (s.earlier->run)
      measured.warnings.insert(measured.warnings.begin(), s.earlier->run->warnings.begin(),
                               s.earlier->run->warnings.end());
  }
  run.conditions = result.conditions;
  run.summary_header = summary_header(e, s.producer, fp, measured.samples);
  run.condition_records = measured.conditions;
  run.warnings = measured.warnings;
  if (e.paired())
    run.comparison = records::ComparisonSettings{e.variants.front().name, e.comparison.aa,
                                                 e.comparison.threshold, e.comparison.blocks};
  run.adaptive = measured.adaptive;
  for (const auto& c : e.conditions)
    if (c.sweep) run.sweeps[c.name] = *c.sweep;
  run.units = measured.units;
  if (s.earlier && s.earlier->run) run.units.merge(s.earlier->run->units);
  for (const auto& c : e.claims) run.claims.push_back(c.text);
  if (e.reference) run.reference = e.reference->published;
  result.fingerprint = std::move(fp);
  result.samples = measured.samples;
  return result;
}

}  // namespace noisefloor::pipeline
