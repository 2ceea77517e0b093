// `noisefloor run` across several Docker engines (README: Many machines): the experiment's
// `hosts:` or --host, each a Docker context or an endpoint. The benchmark is built here once;
// every host then runs in a thread of its own, with its own engine connection, lease, fingerprint
// and result directory (results/<experiment>/<run>/hosts/<host>/), so a host that fails or cannot
// be reached stops nothing else. This machine (a unix socket engine) keeps host processes; on any
// other machine every condition runs as containers.
#include "records/fleet.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "analysis/rooms.hpp"
#include "config/experiment_file.hpp"
#include "docker/context.hpp"
#include "files/files.hpp"
#include "fingerprint/doctor.hpp"
#include "model/errors.hpp"
#include "model/version.hpp"
#include "pipeline/build.hpp"
#include "pipeline/room.hpp"
#include "render/fingerprint.hpp"
#include "render/fleet.hpp"
#include "render/html.hpp"
#include "render/run.hpp"
#include "text/text.hpp"

namespace noisefloor::pipeline {
namespace fs = std::filesystem;

std::optional<std::string> environment_variable(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

// Notes prefixed with the host; progress dropped (a terminal UI overrides host()).
std::unique_ptr<RunEvents> RunEvents::host(const std::string& name) {
  class Prefixed : public RunEvents {
   public:
    Prefixed(RunEvents& parent, std::string name) : parent_(parent), name_(std::move(name)) {}
    void note(const std::string& line) override {
      const std::lock_guard lock(mutex());
      parent_.note(fmt::format("[{}] {}", name_, line));
    }
    void sample(const records::Sample&) override {}

   private:
    static std::mutex& mutex() {
      static std::mutex m;
      return m;
    }
    RunEvents& parent_;
    std::string name_;
  };
  return std::make_unique<Prefixed>(*this, name);
}

namespace {

std::string first_line(std::string_view text) { return std::string(text.substr(0, text.find('\n'))); }

struct Target {
  std::string given;  // as written
  docker::NamedEndpoint where;
  bool local = false;
};

// The hosts of the run, resolved before anything runs: every name known, every directory name
// unique, at most one of them this machine.
std::vector<Target> resolve_targets(const RunOptions& o, const model::Experiment& e) {
  std::vector<std::pair<std::string, model::SourceMark>> given;
  if (!o.hosts.empty()) {
    for (const auto& h : o.hosts) given.emplace_back(h, model::SourceMark{});
  } else {
    for (const auto& h : e.hosts) given.emplace_back(h.name, h.mark);
  }
  std::vector<Target> targets;
  std::set<std::string> names;
  const Target* local = nullptr;
  for (const auto& [name, mark] : given) {
    const std::string where = mark.line > 0
                                  ? fmt::format("{}:{}:{}: hosts: ", e.source_file, mark.line, mark.column)
                                  : std::string("--host: ");
    Target t;
    t.given = name;
    try {
      t.where = docker::resolve_host(name, environment_variable,
                                     [](const std::string& path) { return files::try_read(path); });
    } catch (const Error& err) {
      throw ConfigError(where + err.what());
    }
    if (names.count(t.where.name) != 0) {
      for (int k = 2;; ++k)
        if (names.count(fmt::format("{}-{}", t.where.name, k)) == 0) {
          t.where.name = fmt::format("{}-{}", t.where.name, k);
          break;
        }
    }
    names.insert(t.where.name);
    t.local = !t.where.endpoint.socket_path.empty() && !t.where.endpoint.ssh;
    targets.push_back(std::move(t));
  }
  for (const auto& t : targets) {
    if (!t.local) continue;
    if (local != nullptr)
      throw ConfigError(
          fmt::format("{}hosts '{}' and '{}' are both this machine (engines on unix sockets): their "
                      "conditions would run side by side and disturb each other; run them one at a time",
                      o.hosts.empty() ? e.source_file + ": " : "--host: ", local->given, t.given));
    local = &t;
  }
  return targets;
}

// The experiment as it reads on a machine with `cpus` CPUs (spinners: all, cpusets, affinity).
model::Experiment experiment_for(const model::Experiment& e, int cpus, const std::string& host) {
  config::HostFacts facts;
  for (int i = 0; i < cpus; ++i) facts.online_cpus.push_back(i);
  try {
    model::Experiment there = config::parse_experiment(e.source_text, e.source_file, facts);
    config::resolve_paths(there, fs::absolute(fs::path(e.source_file)).parent_path().string());
    return there;
  } catch (const ConfigError& err) {
    throw ConfigError(fmt::format("on host '{}' ({} CPUs): {}", host, cpus, err.what()));
  }
}

struct HostOutcome {
  records::FleetHost record;
  std::optional<Finished> finished;
  bool config_error = false, interrupted = false;
};

// One host, from connecting to its written results. Never throws: the outcome says how it ended.
HostOutcome run_host(const Target& t, const model::Experiment& local_experiment, const RunOptions& o,
                     const results::RunDirectory& fleet, RunEvents& events, const Cancelled& cancelled,
                     const std::string& started) {
  HostOutcome out;
  out.record.name = t.where.name;
  out.record.given = t.given;
  out.record.endpoint = t.where.endpoint.display;
  out.record.origin = t.where.origin;
  out.record.local = t.local;
  const auto t0 = std::chrono::steady_clock::now();
  const auto note = [&](const std::string& line) { events.note(line); };
  try {
    // This machine needs its engine only for container conditions; another machine always.
    std::optional<docker::Client> client;
    int cpus = 0;
    if (!t.local || has_container_condition(local_experiment)) {
      client.emplace(docker::Client::for_endpoint(t.where.endpoint));
      client->ping();
      cpus = docker::engine_cpus(client->info(), client->endpoint().display).value_or(1);
    }
    const model::Experiment e =
        t.local ? local_experiment : experiment_for(local_experiment, cpus, t.where.name);
    std::unique_ptr<conditions::ContainerRuntime> containers;
    if (client)
      containers = std::make_unique<conditions::ContainerRuntime>(e, note, std::move(*client), !t.local);
    for (const auto& c : e.conditions)
      if (!t.local || c.container) out.record.containers.push_back(c.name);
    RoomOutcome room =
        run_room({.experiment = e,
                  .options = o,
                  .events = events,
                  .cancelled = cancelled,
                  .started = started,
                  .containers = std::move(containers),
                  .remote = !t.local,
                  .endpoint = t.where.endpoint.display,
                  .lease_run = fleet.id(),
                  .host = t.where.name},
                 [&](const records::Fingerprint&) {
                   return RoomDirectory{results::RunDirectory::for_host(fleet, t.where.name), 0, {}};
                 });
    Finished& f = room.finished;
    const results::RunDirectory& dir = room.dir;
    out.record.status = f.status;
    out.record.error = f.error;
    if (f.failure) {
      try {
        throw_if_failed(f, dir.path());
      } catch (const Interrupted& err) {
        out.interrupted = true;
        out.record.error = first_line(err.what());
      } catch (const Error& err) {
        out.record.error = first_line(err.what());
      }
    } else if (!f.finish_problem.empty()) {
      out.record.status = records::RunStatus::failed;
      out.record.error = "its result files could not all be written: " + f.finish_problem;
    }
    out.finished = std::move(f);
  } catch (const Interrupted&) {
    out.interrupted = true;
    out.record.status = records::RunStatus::interrupted;
    out.record.error = "interrupted before it measured anything";
  } catch (const ConfigError& err) {
    out.config_error = true;
    out.record.status = records::RunStatus::failed;
    out.record.error = first_line(err.what());
  } catch (const std::exception& err) {
    out.record.status = records::RunStatus::failed;
    out.record.error = first_line(err.what());
  }
  out.record.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (out.record.status != records::RunStatus::complete && out.record.error)
    events.note(fmt::format("{}: {}", to_string(out.record.status), *out.record.error));
  else
    events.note(fmt::format("complete ({} s)", static_cast<long>(out.record.wall_seconds)));
  events.done();
  return out;
}

}  // namespace

GateHost gate_host(const model::Experiment& e, const RunOptions& o) {
  const std::vector<Target> targets = resolve_targets(o, e);
  if (targets.size() != 1) {
    std::vector<std::string> named;
    for (const auto& t : targets) named.push_back(t.given);
    throw ConfigError(fmt::format(
        "{}a gate runs on one machine and {} are named ({}): pick one with --host NAME",
        o.hosts.empty() ? e.source_file + ": hosts: " : "--host: ", targets.size(), fmt::join(named, ", ")));
  }
  GateHost host{targets.front().where, targets.front().local};
  // Its engine answers before anything is built (this machine's only when a condition needs it).
  if (!host.local || has_container_condition(e)) docker::Client::for_endpoint(host.where.endpoint).ping();
  return host;
}

GateRoom gate_room(const GateHost& host, const model::Experiment& prepared, RunEvents& events) {
  GateRoom room;
  room.remote = !host.local;
  room.endpoint = host.where.endpoint.display;
  events.note(fmt::format("gate: on {} ({}, {}{})", host.where.name, host.where.endpoint.display,
                          host.where.origin, host.local ? ", this machine" : ""));
  if (host.local) {
    room.experiment = prepared;
    if (has_container_condition(prepared))
      room.client.emplace(docker::Client::for_endpoint(host.where.endpoint));
  } else {
    docker::Client client = docker::Client::for_endpoint(host.where.endpoint);
    // The file as it reads there (its CPUs), with the sides and settings the gate made here.
    room.experiment = experiment_for(
        prepared, docker::engine_cpus(client.info(), client.endpoint().display).value_or(1), host.where.name);
    room.experiment.variants = prepared.variants;
    room.experiment.comparison = prepared.comparison;
    room.experiment.gate = prepared.gate;
    room.experiment.adaptive = prepared.adaptive;
    room.client.emplace(std::move(client));
  }
  return room;
}

FleetColumns columns_of(const results::Fleet& fleet) {
  FleetColumns f;
  f.per_host.reserve(fleet.hosts.size());  // the columns point into it
  for (const auto& r : fleet.hosts) f.per_host.push_back(analysis::analyze({r}));
  const records::Fingerprint* reference = nullptr;
  for (const auto& h : fleet.record.hosts) {
    const auto it = std::find_if(fleet.hosts.begin(), fleet.hosts.end(),
                                 [&](const records::Result& r) { return r.label == h.name; });
    const analysis::Analysis* a =
        it == fleet.hosts.end() ? nullptr : &f.per_host[static_cast<std::size_t>(it - fleet.hosts.begin())];
    f.columns.push_back({h.name, h.status, h.error, a, h.containers});
    if (it == fleet.hosts.end() || it->fingerprint.empty()) continue;
    if (reference == nullptr)
      reference = &it->fingerprint;
    else
      f.differences.push_back(analysis::differences(*reference, it->fingerprint));
    f.names.push_back(h.name);
  }
  return f;
}

std::string side_by_side_text(const FleetColumns& f, bool terminal) {
  const std::string diff = render::host_differences(f.names, f.differences, false);
  return render::hosts_side_by_side(f.columns, terminal) + (diff.empty() ? "" : "\n" + diff);
}

namespace {

// fleet.json before any host ran: every host "still running (or noisefloor was killed)".
records::FleetRecord started_record(const model::Experiment& e, const std::vector<Target>& targets,
                                    const results::RunDirectory& fleet, const std::string& started,
                                    const std::string& command_line) {
  records::FleetRecord record;
  record.experiment = e.name;
  record.experiment_file = e.source_file;
  record.run_id = fleet.id();
  record.started_utc = started;
  record.command_line = command_line;
  for (const auto& t : targets) {
    records::FleetHost h;
    h.name = t.where.name;
    h.given = t.given;
    h.endpoint = t.where.endpoint.display;
    h.origin = t.where.origin;
    h.local = t.local;
    h.status = records::RunStatus::interrupted;
    h.error = "still running (or noisefloor was killed)";
    record.hosts.push_back(h);
  }
  return record;
}

// One thread per host; each has its own engine connection and its own events.
std::vector<HostOutcome> run_hosts(const std::vector<Target>& targets, const model::Experiment& e,
                                   const RunOptions& o, const results::RunDirectory& fleet, RunEvents& events,
                                   const Cancelled& cancelled, const std::string& started) {
  std::vector<HostOutcome> outcomes(targets.size());
  std::vector<std::unique_ptr<RunEvents>> host_events;
  for (const auto& t : targets) host_events.push_back(events.host(t.where.name));
  {
    std::vector<std::jthread> threads;
    for (std::size_t i = 0; i < targets.size(); ++i)
      threads.emplace_back(
          [&, i] { outcomes[i] = run_host(targets[i], e, o, fleet, *host_events[i], cancelled, started); });
  }
  events.done();
  return outcomes;
}

// The publication, as `cv` of the run shows it: each host's own tables, then all of them side by
// side; table.md and report.html of the run.
void publish(const model::Experiment& e, const std::vector<HostOutcome>& outcomes, const FleetColumns& f,
             const results::Fleet& published, const RunOptions& o, results::RunDirectory& fleet,
             Output& out) {
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const auto& r = outcomes[i].record;
    out.out += fmt::format("\n== host {} · {}{} · {} ==\n", r.name, r.endpoint,
                           r.local ? " (this machine)" : "", to_string(r.status));
    if (!r.containers.empty())
      out.out += fmt::format("ran as containers: {}\n", fmt::join(r.containers, ", "));
    if (f.columns[i].analysis != nullptr)
      out.out += render::run_tables(*f.columns[i].analysis, o.terminal, o.width);
    if (r.error) out.out += fmt::format("{}: {}\n", to_string(r.status), *r.error);
    if (outcomes[i].finished) out.err += outcomes[i].finished->page_problem;
  }
  out.out += "\n== side by side ==\n" + side_by_side_text(f, o.terminal);
  try {
    const std::string diff = render::host_differences(f.names, f.differences, false);
    fleet.write("table.md", fmt::format("# {} on {} hosts\n\n{}{}", e.name, outcomes.size(),
                                        render::hosts_side_by_side(f.columns, false),
                                        diff.empty() ? "" : "\n```\n" + diff + "```\n"));
    // The page: every host's conditions as <host>:<condition>, the Hosts facet first.
    if (!published.hosts.empty())
      fleet.write("report.html",
                  render::html(analysis::analyze(published.hosts, true),
                               fmt::format("noisefloor {} ({})", kVersion, kCommit), f.columns));
  } catch (const std::exception& err) {
    out.err += fmt::format("warning: table.md or report.html not written: {}\n", err.what());
  }
  out.out += fmt::format("results: {}\n", fleet.path().string());
}

// How it ends: every host complete, or the first failure's kind (the others' results are kept);
// with --check, the claims of every host.
void conclude(const std::vector<HostOutcome>& outcomes, const FleetColumns& f, const RunOptions& o,
              results::RunDirectory& fleet, Output& out) {
  const bool interrupted =
      std::any_of(outcomes.begin(), outcomes.end(), [](const HostOutcome& h) { return h.interrupted; });
  std::vector<std::string> failed;
  for (const auto& h : outcomes)
    if (h.record.status != records::RunStatus::complete)
      failed.push_back(fmt::format("{} ({})", h.record.name, h.record.error.value_or("failed")));
  if (interrupted) {
    out.failure =
        fmt::format("interrupted — what the hosts measured so far is kept in {}", fleet.path().string());
    out.status = 130;
    return;
  }
  // `latest` moves only when the run completed, as for one machine: every host.
  if (failed.empty()) fleet.point_latest();
  if (!failed.empty()) {
    const bool all_config = std::all_of(outcomes.begin(), outcomes.end(), [](const HostOutcome& h) {
      return h.record.status == records::RunStatus::complete || h.config_error;
    });
    out.failure = fmt::format("{} of {} host(s) failed: {}; the others' results are kept in {}",
                              failed.size(), outcomes.size(), fmt::join(failed, "; "), fleet.path().string());
    if (all_config && failed.size() == outcomes.size()) throw ConfigError(out.failure);
  }
  if (o.check) {
    std::vector<std::pair<std::string, const analysis::Judgement*>> judged;
    for (std::size_t i = 0; i < outcomes.size(); ++i)
      if (f.columns[i].analysis != nullptr && f.columns[i].analysis->judgement)
        judged.emplace_back(outcomes[i].record.name, &*f.columns[i].analysis->judgement);
    const int status = out.status;
    fail_unreproduced(out, judged);
    if (!failed.empty() && status == 0 && out.status == kNotReproducedStatus)
      out.status = 1;  // a failed host first
  }
}

}  // namespace

Output run_fleet(const RunOptions& o, RunEvents& events, const Cancelled& cancelled) {
  model::Experiment e = load_experiment(o.experiment);
  config::resolve_paths(e, fs::absolute(fs::path(e.source_file)).parent_path().string());
  if (!o.anchor.empty())
    throw ConfigError(
        "--anchor: not with several hosts yet (an anchor is one machine's clean run): run each host "
        "against its own anchor");
  check_results_root(o.results_root, e.name);
  const std::vector<Target> targets = resolve_targets(o, e);
  const std::string started = text::utc(std::chrono::system_clock::now());
  // Built once, here: every host gets the same binary (in the auto image on the engines).
  build(e, events, cancelled);

  results::RunDirectory fleet = results::RunDirectory::fleet(o.results_root, e.name);
  fleet.write("experiment.yaml", e.source_text);
  records::FleetRecord record = started_record(e, targets, fleet, started, o.command_line);
  fleet.write(record);
  std::string where;
  for (const auto& t : targets)
    where += fmt::format("\n  {}: {} ({}{})", t.where.name, t.where.endpoint.display, t.where.origin,
                         t.local ? ", this machine" : "");
  events.note(fmt::format("hosts ({}), in parallel:{}", targets.size(), where));
  events.note(fmt::format("results: {}", fleet.path().string()));

  const std::vector<HostOutcome> outcomes = run_hosts(targets, e, o, fleet, events, cancelled, started);
  // Every host refused the experiment before it measured (a limit its engine cannot enforce, a CPU
  // it does not have): a configuration error, and like one on this machine it leaves no run behind.
  if (std::all_of(outcomes.begin(), outcomes.end(), [](const HostOutcome& h) { return h.config_error; }) &&
      fleet.discard_unmeasured()) {
    std::vector<std::string> errors;
    for (const auto& h : outcomes)
      errors.push_back(outcomes.size() == 1
                           ? h.record.error.value_or("refused")
                           : fmt::format("{}: {}", h.record.name, h.record.error.value_or("refused")));
    throw ConfigError(fmt::format("{} (nothing was measured or kept)", fmt::join(errors, "; ")));
  }
  record.finished_utc = text::utc(std::chrono::system_clock::now());
  record.hosts.clear();
  for (const auto& h : outcomes) record.hosts.push_back(h.record);
  fleet.write(record);

  results::Fleet published{record, {}, {}};
  for (const auto& h : outcomes)
    if (h.finished) published.hosts.push_back(h.finished->result);
  const FleetColumns f = columns_of(published);
  Output out;
  publish(e, outcomes, f, published, o, fleet, out);
  conclude(outcomes, f, o, fleet, out);
  return out;
}

}  // namespace noisefloor::pipeline
