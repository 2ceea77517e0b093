// `noisefloor fingerprint [--json]` and `noisefloor doctor [EXPERIMENT] [--json] [--apply|--restore]`.
#include <fmt/format.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "cli/version.hpp"
#include "cli/commands.hpp"
#include "docker/client.hpp"
#include "fingerprint/doctor.hpp"
#include "fingerprint/engine.hpp"
#include "fingerprint/host.hpp"
#include "fingerprint/parse.hpp"
#include "fingerprint/tune.hpp"
#include "model/cpulist.hpp"
#include "model/errors.hpp"


namespace noisefloor::cli {
namespace {

using nlohmann::json;
namespace fp = fingerprint;

struct EngineProbe {
  std::optional<json> info;  // GET /info as the engine sent it (diagnose reads Docker keys)
  json facts;                // engine_facts, or an unknown fact with the reason
};

// Never throws: an engine that does not answer (or a DOCKER_HOST we cannot use) is a reason.
EngineProbe probe_engine() {
  try {
    docker::Client client = docker::Client::from_environment();
    client.ping();
    const json version = client.version();
    json info = client.info();
    json facts = fp::engine_facts(version, info, client.endpoint().display, client.api_version());
    return {std::move(info), std::move(facts)};
  } catch (const std::exception& e) {
    return {std::nullopt, fp::unknown(e.what())};
  }
}

json host_with_uname() {
  json host = fp::probe_host();
  struct utsname u {};
  host["uname"] = ::uname(&u) == 0 ? fp::known(fmt::format("{} {} {}", u.sysname, u.release, u.machine))
                                   : fp::unknown("uname(2) failed");
  return host;
}

// Colour only on a terminal, never with NO_COLOR (https://no-color.org: set and non-empty) or
// TERM=dumb.
bool use_color() {
  if (::isatty(STDOUT_FILENO) != 1) return false;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && *no_color != '\0') return false;
  const char* term = std::getenv("TERM");
  return !(term != nullptr && std::string(term) == "dumb");
}

// Every CPU the experiment pins something to: benchmark affinity, spinner CPUs, container cpusets.
std::vector<int> experiment_cpus(const model::Experiment& e) {
  std::vector<int> cpus;
  for (const auto& c : e.conditions) {
    cpus.insert(cpus.end(), c.affinity.begin(), c.affinity.end());
    if (c.spinners) cpus.insert(cpus.end(), c.spinners->cpus.begin(), c.spinners->cpus.end());
    if (c.container && c.container->cpuset) {
      // Validated when the experiment was loaded; a malformed one cannot get here.
      const auto set = model::parse_cpu_list(*c.container->cpuset);
      if (set) cpus.insert(cpus.end(), set->begin(), set->end());
    }
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

void print(const std::string& text) { std::fwrite(text.data(), 1, text.size(), stdout); }

std::string change_line(const char* verb, const fp::TuneChange& c, const std::string& from,
                        const std::string& to) {
  return fmt::format("{} {}: {}: {} -> {}\n", verb, c.setting, c.file, from, to);
}

}  // namespace

void fingerprint_command(bool as_json) {
  json fpr = json::object();
  fpr["noisefloor"] = {{"version", kVersion}, {"commit", kCommit}};
  fpr["host"] = host_with_uname();
  fpr["toolchain"] = fp::probe_toolchain(std::nullopt, std::nullopt, /*native=*/true);
  fpr["env"] = fp::probe_env(
      [](const std::string& name) -> std::optional<std::string> {
        const char* v = std::getenv(name.c_str());
        return v ? std::optional<std::string>(v) : std::nullopt;
      },
      fp::environment_names());
  fpr["engine"] = probe_engine().facts;
  fpr["tuning"] = fp::tuning_state(fp::kTuneStatePath);
  print(as_json ? fpr.dump(2) + "\n" : fp::render_fingerprint(fpr));
}

int doctor_command(const DoctorOptions& o) {
  if (o.apply && o.restore) throw ConfigError("doctor: --apply and --restore cannot be used together");
  if ((o.apply || o.restore) && ::geteuid() != 0) {
    throw ConfigError(
        fmt::format("doctor {0} writes /sys and /proc files and needs root: run 'sudo noisefloor doctor {0}'",
                    o.apply ? "--apply" : "--restore"));
  }
  std::vector<int> cpus;
  if (!o.experiment.empty()) cpus = experiment_cpus(load_experiment(o.experiment));

  json actions = json::object();
  std::string text;
  std::optional<RunError> restore_failure;
  if (o.apply) {
    const fp::TuneResult r = fp::apply_tuning("/", fp::kTuneStatePath, cpus);
    json applied = json::array(), unchanged = json::array();
    for (const auto& c : r.applied) {
      applied.push_back(fp::to_json(c));
      text += change_line("changed", c, c.before, c.after);
    }
    for (const auto& n : r.unchanged) {
      unchanged.push_back({{"setting", n.setting}, {"reason", n.reason}});
      text += fmt::format("left alone {}: {}\n", n.setting, n.reason);
    }
    text += r.applied.empty()
                ? "nothing changed\n"
                : fmt::format("saved the previous values in {} (undo: noisefloor doctor --restore)\n",
                              fp::kTuneStatePath);
    actions["applied"] = applied;
    actions["unchanged"] = unchanged;
  } else if (o.restore) {
    const fp::RestoreResult r = fp::restore_tuning("/", fp::kTuneStatePath);
    json restored = json::array(), failed = json::array();
    for (const auto& c : r.restored) {
      restored.push_back(fp::to_json(c));
      text += change_line("restored", c, c.after, c.before);
    }
    for (const auto& n : r.failed) {
      failed.push_back({{"setting", n.setting}, {"reason", n.reason}});
      text += fmt::format("could not restore {}: {}\n", n.setting, n.reason);
    }
    if (!r.failed.empty()) {
      restore_failure = RunError(fmt::format("{} value(s) could not be restored; they stay saved in {}",
                                             r.failed.size(), fp::kTuneStatePath));
    }
    actions["restored"] = restored;
    actions["failed"] = failed;
  }

  // Probed after any change, so the report shows the machine as it is now.
  const json host = host_with_uname();
  const EngineProbe engine = probe_engine();
  const fp::DoctorReport report = fp::diagnose(host, engine.info, cpus);
  const json tuning = fp::tuning_state(fp::kTuneStatePath);

  if (o.json) {
    json out = fp::doctor_json(report);
    out["experiment_cpus"] = o.experiment.empty() ? json(nullptr) : json(model::format_cpu_list(cpus));
    out["engine"] = engine.facts;
    out["tuning"] = tuning;
    for (const auto& [k, v] : actions.items()) out[k] = v;
    print(out.dump(2) + "\n");
  } else {
    const json* hostname = fp::known_value(host, "hostname");
    std::string head =
        fmt::format("host:    {}\n", hostname != nullptr && hostname->is_string()
                                         ? hostname->get<std::string>()
                                         : "unknown (" + fp::unknown_reason(host, "hostname") + ")");
    head += engine.info ? fmt::format("engine:  {} ({})\n", engine.facts.value("server_version", ""),
                                      engine.facts.value("endpoint", ""))
                        : fmt::format("engine:  no engine: {}\n", engine.facts.value("unknown", ""));
    if (!o.experiment.empty()) {
      head += fmt::format("pinned:  CPUs {} (from {})\n",
                          cpus.empty() ? "none" : model::format_cpu_list(cpus), o.experiment);
    }
    if (tuning.is_object() && tuning.contains("changes")) {
      head += fmt::format("tuning:  {} change(s) applied at {} (undo: noisefloor doctor --restore)\n",
                          tuning["changes"].size(), tuning.value("applied_utc", std::string("?")));
    } else if (tuning.is_object() && tuning.contains("error")) {
      head += fmt::format("tuning:  {}\n", tuning["error"].get<std::string>());
    }
    print(text + (text.empty() ? "" : "\n") + head + "\n" + fp::render_doctor(report, use_color()));
  }
  std::fflush(stdout);
  if (restore_failure) throw *restore_failure;
  return report.grade == fp::Grade::not_ready ? 1 : 0;
}

}  // namespace noisefloor::cli
