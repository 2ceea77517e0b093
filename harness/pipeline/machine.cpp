// The commands about the machine: `fingerprint`, `doctor` and `gc`.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>

#include "conditions/container.hpp"
#include "conditions/host.hpp"
#include "config/experiment_file.hpp"
#include "docker/client.hpp"
#include "docker/container.hpp"
#include "docker/context.hpp"
#include "docker/lease.hpp"
#include "files/files.hpp"
#include "fingerprint/doctor.hpp"
#include "fingerprint/engine.hpp"
#include "fingerprint/host.hpp"
#include "fingerprint/noise_probe.hpp"
#include "fingerprint/tune.hpp"
#include "git/cache.hpp"
#include "model/cpulist.hpp"
#include "model/errors.hpp"
#include "model/version.hpp"
#include "pipeline/commands.hpp"
#include "pipeline/room.hpp"
#include "records/fingerprint.hpp"
#include "render/fingerprint.hpp"
#include "render/json.hpp"

namespace noisefloor::pipeline {
namespace {

namespace fp = fingerprint;

// The engine's facts: GET /version and /info, and Podman's own libpod info (rootless, the cgroup
// controllers its containers get), which its /info does not tell.
fp::EngineFacts engine_facts_of(docker::Client& client) {
  fp::EngineFacts facts =
      fp::engine_facts(conditions::ask_engine(client), client.endpoint().display, client.api_version());
  facts.transport_warning = docker::transport_warning(client.endpoint()).value_or("");
  return facts;
}

// The engine's facts, or why there are none. Never throws: an engine that does not answer (or a
// DOCKER_HOST that cannot be used) is a reason.
struct EngineProbe {
  std::optional<fp::EngineFacts> facts;
  std::string unknown;
  std::optional<std::string> transport;  // docker::transport_warning of its endpoint
};

// The machine behind --host: its facts as a run would read them (a facts container for another
// machine; this machine's own probes for an engine on a unix socket), its engine's facts, and
// who holds its lease. Throws ConfigError for a host that cannot be named, RunError for one that
// cannot be reached.
struct HostProbe {
  fp::FactTree host;
  EngineProbe engine;
  std::string lease;  // "free", or who holds it and since when
  std::string name;
  std::optional<std::string> transport;  // docker::transport_warning of its endpoint
};

// `warnings` gets what is wrong with the way the engine is reached before it is contacted.
HostProbe probe_host(const std::string& entry, std::string& warnings) {
  docker::NamedEndpoint where;
  try {
    where = docker::resolve_host(entry, environment_variable,
                                 [](const std::string& path) { return files::try_read(path); });
  } catch (const Error& err) {
    throw ConfigError(fmt::format("--host: {}", err.what()));
  }
  HostProbe p;
  p.name = where.name;
  const bool local = !where.endpoint.socket_path.empty() && !where.endpoint.ssh;
  p.transport = docker::transport_warning(where.endpoint);
  if (p.transport) warnings += fmt::format("warning: {}\n", *p.transport);
  docker::Client client = docker::Client::for_endpoint(where.endpoint);
  const auto holder = docker::EngineLease::holder(client);
  p.lease =
      holder ? fmt::format("held by {} ({}, since {})", holder->run, holder->who, holder->since) : "free";
  if (local) {
    p.engine.facts = engine_facts_of(client);
    p.host = fp::probe_this_host();
    return p;
  }
  const model::Experiment nothing;  // the runtime validates no condition
  conditions::ContainerRuntime runtime(
      nothing, [](const std::string&) {}, std::move(client), true);
  p.engine.facts = runtime.engine_facts();
  p.host = runtime.machine_facts(nullptr);
  return p;
}

// The engine DOCKER_HOST (or the current context) names. What reaching it that way means is said
// even when it then fails to answer or lies.
EngineProbe probe_engine() {
  EngineProbe p;
  try {
    docker::Client client = docker::Client::from_environment();
    p.transport = docker::transport_warning(client.endpoint());
    client.ping();
    p.facts = engine_facts_of(client);
  } catch (const std::exception& e) {
    p.unknown = e.what();
  }
  return p;
}

std::string warning_line(const std::optional<std::string>& warning) {
  return warning ? fmt::format("warning: {}\n", *warning) : std::string();
}

std::string change_line(const char* verb, const fp::TuneChange& c, const std::string& from,
                        const std::string& to) {
  return fmt::format("{} {}: {}: {} -> {}\n", verb, c.setting, c.file, from, to);
}

}  // namespace

Output fingerprint(bool as_json) {
  records::Fingerprint f;
  f.version = fmt::format("{} ({})", kVersion, kCommit);
  f.host = fp::probe_this_host();
  f.toolchain = fp::probe_toolchain(std::nullopt, std::nullopt, /*native=*/true);
  f.env = fp::probe_this_env();
  const EngineProbe engine = probe_engine();
  f.engine = engine.facts;
  f.engine_unknown = engine.unknown;
  f.tuning = fp::tuning_state();
  Output out;
  out.err = warning_line(engine.transport);
  out.out = as_json ? render::fingerprint_json(f) : render::fingerprint_view(f);
  return out;
}

namespace {

// The options doctor refuses before it probes anything; the noise profile's length.
model::Seconds checked_doctor_options(const DoctorOptions& o) {
  if (o.apply && o.restore) throw ConfigError("doctor: --apply and --restore cannot be used together");
  if ((o.apply || o.restore) && !o.host.empty())
    throw ConfigError(
        fmt::format("doctor {} --host: the fixes are made on this machine only; run `noisefloor doctor "
                    "{}` on that machine",
                    o.apply ? "--apply" : "--restore", o.apply ? "--apply" : "--restore"));
  if ((o.apply || o.restore) && ::geteuid() != 0)
    throw ConfigError(
        fmt::format("doctor {0} writes /sys and /proc files and needs root: run 'sudo noisefloor doctor {0}'",
                    o.apply ? "--apply" : "--restore"));
  const std::optional<model::Seconds> noise_for = config::parse_duration(o.noise_profile);
  if (!noise_for || noise_for->count() > 60 || (noise_for->count() > 0 && noise_for->count() < 0.1))
    throw ConfigError(
        fmt::format("doctor --noise-profile {}: expected a duration from 100ms to 60s (2s, 500ms), "
                    "or 0s for none",
                    o.noise_profile));
  return *noise_for;
}

}  // namespace

namespace {

// Whether simulated metrics work here, and what they cost: the probe's fixed workload as it is and
// under valgrind, measured now (an OK either way: a machine without valgrind is not a worse room).
fp::Finding simulation_finding(const conditions::SimulationCost& c) {
  if (!c.problem.empty())
    return {fp::Level::ok, fp::Topic::simulation,
            fmt::format("metric: simulated-instructions and its kin are not available: {}", c.problem),
            "apt-get install valgrind"};
  return {fp::Level::ok, fp::Topic::simulation,
          fmt::format("{}: metric: simulated-instructions and its kin work here, at {:.0f}× the program's "
                      "time (a fixed workload of {:.1f} ms took {:.2f} s under cachegrind, its start "
                      "included)",
                      c.valgrind, c.simulated_seconds / c.native_seconds, c.native_seconds * 1e3,
                      c.simulated_seconds),
          ""};
}

}  // namespace

Output doctor(const DoctorOptions& o, const Cancelled& cancelled) {
  const model::Seconds noise_for = checked_doctor_options(o);
  std::vector<int> cpus;
  if (!o.experiment.empty()) cpus = config::pinned_cpus(load_experiment(o.experiment));

  std::optional<fp::TuneResult> applied;
  std::optional<fp::RestoreResult> restored;
  std::string text;
  Output out;
  if (o.apply) {
    const fp::TuneResult r = fp::apply_tuning("/", fp::kTuneStatePath, cpus);
    for (const auto& c : r.applied) text += change_line("changed", c, c.before, c.after);
    for (const auto& n : r.unchanged) text += fmt::format("left alone {}: {}\n", n.setting, n.reason);
    text += r.applied.empty()
                ? "nothing changed\n"
                : fmt::format("saved the previous values in {} (undo: noisefloor doctor --restore)\n",
                              fp::kTuneStatePath);
    applied = r;
  } else if (o.restore) {
    const fp::RestoreResult r = fp::restore_tuning("/", fp::kTuneStatePath);
    for (const auto& c : r.restored) text += change_line("restored", c, c.after, c.before);
    for (const auto& n : r.failed) text += fmt::format("could not restore {}: {}\n", n.setting, n.reason);
    if (!r.failed.empty())
      out.failure = fmt::format("{} value(s) could not be restored; they stay saved in {}", r.failed.size(),
                                fp::kTuneStatePath);
    restored = r;
  }

  // Probed after any change, so the report shows the machine as it is now.
  std::optional<HostProbe> other;
  if (!o.host.empty()) {
    // The transport's warning is said even when the engine then fails or lies.
    try {
      other = probe_host(o.host, out.err);
    } catch (const ConfigError&) {
      throw;
    } catch (const Error& e) {
      out.failure = e.what();
      out.status = 1;
      return out;
    }
  }
  // The noise first, while this command has nothing else running.
  const fp::NoiseProfile noise = other ? fp::noise_not_measured(fp::NoiseNotTaken::other_machine, o.host)
                                 : noise_for.count() <= 0
                                     ? fp::noise_not_measured(fp::NoiseNotTaken::option_off)
                                     : fp::measure_noise(noise_for, cancelled);
  const fp::FactTree host = other ? other->host : fp::probe_this_host();
  const EngineProbe engine = other ? other->engine : probe_engine();
  if (!other) out.err += warning_line(engine.transport);  // --host said its own before probing
  fp::DoctorReport report = fp::diagnose(host, engine.facts, cpus, noise);
  if (!other) report.findings.push_back(simulation_finding(conditions::measure_simulation_cost(cancelled)));
  const fp::TuningStatus tuning = fp::tuning_state();

  if (o.json) {
    out.out = render::doctor_json({
        .report = report,
        .noise = noise,
        .experiment_cpus = o.experiment.empty() ? std::nullopt : std::optional(model::format_cpu_list(cpus)),
        .engine = engine.facts,
        .engine_unknown = engine.unknown,
        .tuning = tuning,
        .applied = applied,
        .restored = restored,
        .lease = other ? std::optional(other->lease) : std::nullopt,
        .transport_warning = other ? other->transport : engine.transport,
    });
  } else {
    std::string head = fmt::format(
        "host:    {}\n", host.text("hostname").value_or("unknown (" + host.reason("hostname") + ")"));
    head += engine.facts ? fmt::format("engine:  {}{} ({})\n",
                                       engine.facts->product.empty() ? "" : engine.facts->product + " ",
                                       engine.facts->server_version, engine.facts->endpoint)
                         : fmt::format("engine:  no engine: {}\n", engine.unknown);
    if (other) head += fmt::format("lease:   {}\n", other->lease);
    if (!o.experiment.empty())
      head += fmt::format("pinned:  CPUs {} (from {})\n",
                          cpus.empty() ? "none" : model::format_cpu_list(cpus), o.experiment);
    if (tuning.state)
      head += fmt::format("tuning:  {} change(s) applied at {} (undo: noisefloor doctor --restore)\n",
                          tuning.state->changes.size(), tuning.state->applied_utc);
    else if (!tuning.error.empty())
      head += fmt::format("tuning:  {}\n", tuning.error);
    out.out = text + (text.empty() ? "" : "\n") + head + "\n" + render::doctor(report, o.color);
  }
  out.status = report.grade == fp::Grade::not_ready ? 1 : 0;
  return out;
}

Output gc(const std::string& host) {
  // The engine named first (a typo is a usage error before anything is removed).
  std::optional<docker::NamedEndpoint> where;
  if (!host.empty()) {
    try {
      where = docker::resolve_host(host, environment_variable,
                                   [](const std::string& path) { return files::try_read(path); });
    } catch (const Error& err) {
      throw ConfigError(fmt::format("--host: {}", err.what()));
    }
  }
  // The gate's build cache first: it needs no engine. Entries a running gate holds are left.
  std::string builds;
  const auto root = git::default_cache_root();
  for (const auto& removed : git::BuildCache(root).prune())
    builds += fmt::format("removed build {}\n", removed.string());
  docker::Client client =
      where ? docker::Client::for_endpoint(where->endpoint) : docker::Client::from_environment();
  // The containers first, then who holds the lease: a run that starts in between takes its lease
  // before it makes a container, so none of its containers is in the list without its lease seen.
  const std::vector<docker::RunContainer> containers = docker::run_containers(client);
  const std::optional<docker::LeaseOwner> holder = docker::EngineLease::holder(client);
  const docker::GcPlan plan =
      docker::plan_gc(containers, holder ? std::optional<std::string>(holder->who) : std::nullopt);
  Output out;
  out.out = builds;
  for (const auto& c : plan.remove) {
    client.remove(c.id);
    out.out += fmt::format("removed {} {}\n", c.id.substr(0, 12), c.name);
  }
  if (!plan.reading.empty())
    out.out += fmt::format(
        "left {} machine-facts container(s) still running: a `noisefloor doctor --host` is reading this "
        "machine now (a second's work)\n",
        plan.reading.size());
  if (!plan.keep.empty())
    out.out += fmt::format(
        "left {} container(s) of the run that holds the engine's lease ({}, {}, since {}): it is "
        "alive, and removes them itself when it ends\n",
        plan.keep.size(), holder->run, holder->who, holder->since);
  if (containers.empty()) {
    out.out +=
        fmt::format("nothing to remove: no container of a noisefloor run on {}\n", client.endpoint().display);
  } else if (plan.remove.empty()) {
    out.out += fmt::format("nothing to remove: no container left by an earlier run on {}\n",
                           client.endpoint().display);
  } else {
    out.out += fmt::format("removed {} container(s) left by earlier runs\n", plan.remove.size());
  }
  return out;
}

}  // namespace noisefloor::pipeline
