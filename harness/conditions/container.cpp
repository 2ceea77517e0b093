#include "conditions/container.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <thread>

#include "docker/api.hpp"
#include "docker/client.hpp"
#include "docker/container.hpp"
#include "docker/lease.hpp"
#include "fingerprint/engine.hpp"
#include "fingerprint/remote.hpp"
#include "image/embedded.hpp"
#include "image/recipe.hpp"
#include "model/cpulist.hpp"
#include "model/errors.hpp"
#include "probe/probe_report.hpp"
#include "text/text.hpp"

namespace noisefloor::conditions {

struct ContainerRuntime::Impl {
  const model::Experiment& experiment;
  Note note;
  docker::Client client;
  bool remote = false;  // every condition in a container, spinners too
  // The engine's containers get no pids controller (rootless Podman): the default pids_limit, a
  // safety net the file did not ask for, is not requested (it would be accepted and not applied).
  bool no_pids_controller = false;
  std::string tools_image;            // noisefloor-tools:<hash>, once prepare_tools() loaded it
  fingerprint::EngineAnswers engine;  // what it says of itself
  // condition name -> image reference and (for auto images) where the benchmark sits inside
  struct Image {
    std::string ref;
    std::string id;
    bool probe = false;  // the auto image runs the benchmark through /noisefloor/probe
    std::string benchmark_path;
  };
  std::map<std::string, Image> images;
  // image: auto per benchmark executable (host path) when variants run executables of their own
  // (the gate's base and head): an invocation runs in the image of its argv[0].
  std::map<std::string, Image> automatic;
  // Who holds the engine's lease for this run (docker::LeaseOwner::who): every container of the run
  // carries it (label noisefloor.owner), so `noisefloor gc` can tell a live run's from an orphan.
  std::string owner;

  // The labels of a container of run `run_id`, condition `condition`.
  std::map<std::string, std::string> labels(const std::string& run_id, const std::string& condition) const {
    std::map<std::string, std::string> out = {{"noisefloor.run", run_id},
                                              {"noisefloor.condition", condition}};
    if (!owner.empty()) out["noisefloor.owner"] = owner;
    return out;
  }

  Impl(const model::Experiment& e, Note n, docker::Client c, bool r)
      : experiment(e), note(std::move(n)), client(std::move(c)), remote(r) {}
  int cpus() const { return docker::engine_cpus(engine.info, client.endpoint().display).value_or(1); }
  bool podman() const { return engine.podman(); }
  // "the Docker engine at unix:///var/run/docker.sock", "the Podman engine at …", for messages.
  std::string engine_at() const {
    return fmt::format("the {} engine at {}", podman() ? "Podman" : "Docker", client.endpoint().display);
  }
};

namespace {

// Loads an image noisefloor built offline, unless the engine has exactly it (same id) already.
// Returns the id; says what happened through note.
std::string load_planned(ContainerRuntime::Impl& rt, const image::ImagePlan& plan, const std::string& what,
                         const model::Cancelled& cancelled) {
  // How long the preparation took is part of what the note says (make perf compares it with the
  // docker CLI building the same image).
  const auto started = std::chrono::steady_clock::now();
  const auto took = [&] {
    return fmt::format("{:.2f} s",
                       std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  };
  std::vector<docker::TarFile> files;
  for (const auto& f : plan.files) files.push_back({f.path, f.data, f.mode});
  // The id the engine gives exactly this image: the tag is reused only when it names it.
  const std::string expected_id = docker::docker_save_image_id(files, plan.config);
  const auto existing = rt.client.image_inspect(plan.tag);
  if (existing && existing->value("Id", "") == expected_id) {
    rt.note(fmt::format("{}: {} (reused, unchanged{}; {})", what, plan.tag, what == "image" ? " binary" : "",
                        took()));
    return expected_id;
  }
  if (cancelled && cancelled()) throw Interrupted();
  rt.client.load_image(docker::docker_save_tar(plan.tag, files, plan.config), cancelled);
  const auto loaded = rt.client.image_inspect(plan.tag);
  if (!loaded) throw RunError(fmt::format("image {} was loaded but the engine does not list it", plan.tag));
  if (loaded->value("Id", "") != expected_id)
    throw RunError(
        fmt::format("image {} was loaded but the engine reports id {} instead of {}: the engine "
                    "did not load the image noisefloor built",
                    plan.tag, loaded->value("Id", ""), expected_id));
  rt.note(fmt::format("{}: {} ({}: {} file(s), {}; {})", what, plan.tag,
                      existing ? "built offline again: the tag named another image" : "built offline",
                      plan.files.size(),
                      plan.dynamic ? "dynamic executable with its libraries" : "static executable", took()));
  return expected_id;
}

// The benchmark's container settings under a condition: its own `container:` spec, or, on an
// engine where noisefloor cannot start host processes, the auto image with the condition's
// affinity as the cpuset and no limits.
model::ContainerSpec container_spec(const model::Condition& c, bool no_pids_controller) {
  model::ContainerSpec spec;
  if (c.container)
    spec = *c.container;
  else if (!c.affinity.empty())
    spec.cpuset = model::format_cpu_list(c.affinity);
  if (no_pids_controller && !spec.pids_limit_given) spec.pids_limit = 0;  // no limit asked
  return spec;
}

// Spinners as containers of the tools image, one per spinner, each on its CPU (when pinned) at
// its nice value, each holding its stdin so that they end with noisefloor whatever ends it.
class EngineSpinners : public SpinnerBackend {
 public:
  EngineSpinners(ContainerRuntime::Impl& rt, const model::SpinnerSpec& spec, const std::string& run_id,
                 const std::string& condition)
      : rt_(rt) {
    for (int i = 0; i < spec.count; ++i) {
      docker::ContainerRequest req;
      req.image = rt.tools_image;
      req.argv = {"/noisefloor/probe"};
      if (spec.nice) req.argv.insert(req.argv.end(), {"--nice", std::to_string(*spec.nice)});
      req.argv.insert(req.argv.end(), {"--watch-stdin", "--spin"});
      req.hold_stdin = true;
      if (!spec.cpus.empty())
        req.spec.cpuset = std::to_string(spec.cpus[static_cast<std::size_t>(i) % spec.cpus.size()]);
      req.spec.pids_limit = 8;
      req.labels = rt.labels(run_id, condition);
      req.labels["noisefloor.role"] = "spinner";
      req.name = fmt::format("nf-{}-{}-spin-{}", run_id, condition, i);
      std::transform(req.name.begin(), req.name.end(), req.name.begin(),
                     [](unsigned char ch) { return std::tolower(ch); });
      req.auto_remove = true;
      const auto body = docker::create_body(req);
      const auto created = rt.client.create_container(body, req.name);
      guards_.emplace_back(rt.client, created.id);
      ids_.push_back(created.id);
      stdin_.push_back(rt.client.hold_stdin(created.id));
      rt.client.start(created.id);
    }
    // Spinning: each has had CPU time (bounded wait; a spinner that never runs is no load).
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (std::size_t i = 0; i < ids_.size(); ++i) {
      while (true) {
        const auto cpu = rt.client.cpu_seconds(ids_[i]);
        if (cpu && *cpu > 0) break;
        if (std::chrono::steady_clock::now() > until)
          throw RunError(
              fmt::format("condition '{}': spinner container {} did not start spinning within 10 s",
                          condition, ids_[i].substr(0, 12)));
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      const auto inspect = rt.client.inspect(ids_[i]);
      pids_.push_back(docker::container_state(inspect).pid);
    }
  }
  std::vector<int> pids() const override { return pids_; }
  std::vector<std::string> containers() const override { return ids_; }
  std::vector<std::optional<double>> cpu_seconds() const override {
    std::vector<std::optional<double>> out;
    for (const auto& id : ids_) out.push_back(rt_.client.cpu_seconds(id));
    return out;
  }
  std::vector<std::size_t> exited() override {
    std::vector<std::size_t> gone;
    for (std::size_t i = 0; i < ids_.size(); ++i) {
      const auto inspect = rt_.client.inspect_if_exists(ids_[i]);
      if (!inspect || !docker::container_state(*inspect).running) gone.push_back(i);
    }
    return gone;
  }
  void stop() override {
    const std::vector<std::size_t> gone = exited();
    stdin_.clear();
    for (auto& guard : guards_) guard.remove();
    guards_.clear();
    if (!gone.empty())
      throw RunError(
          fmt::format("spinner container {} exited before the condition ended: the background load was "
                      "not there the whole time",
                      ids_[gone.front()].substr(0, 12)));
  }

 private:
  ContainerRuntime::Impl& rt_;
  std::vector<docker::ContainerGuard> guards_;
  std::vector<std::unique_ptr<docker::Client::StdinLease>> stdin_;
  std::vector<std::string> ids_;
  std::vector<int> pids_;
};

}  // namespace

namespace {

class ContainerScope : public ConditionScope {
 public:
  ContainerScope(std::shared_ptr<ContainerRuntime::Impl> rt, const model::Condition& c, std::string run_id)
      : rt_(std::move(rt)),
        condition_(c),
        spec_(container_spec(c, rt_->no_pids_controller)),
        run_id_(std::move(run_id)),
        spinners_(rt_->remote
                      ? Spinners(
                            c,
                            [this](const model::SpinnerSpec& s) -> std::unique_ptr<SpinnerBackend> {
                              return std::make_unique<EngineSpinners>(*rt_, s, run_id_, condition_.name);
                            },
                            rt_->cpus())
                      : Spinners(c)) {}
  // The spinners run on the host, as in the demo (on a remote engine: in containers beside the
  // benchmark's); the benchmark's own affinity is the cpuset.

  // The condition's image; under image: auto, the one made from this invocation's executable.
  const ContainerRuntime::Impl::Image& image_for(const std::string& executable) const {
    const auto& image = rt_->images.at(condition_.name);
    if (image.probe)
      if (const auto it = rt_->automatic.find(executable); it != rt_->automatic.end()) return it->second;
    return image;
  }

  InvocationOutput run(const Invocation& inv, const LineCallback& on_line,
                       const Cancelled& cancelled) override {
    if (inv.simulate)  // refused where the experiment is read (config/experiment_file.cpp)
      throw RunError(fmt::format("condition '{}': simulated metrics run on the host; no image has valgrind",
                                 condition_.name));
    const auto& image = image_for(inv.argv.front());
    const model::ContainerSpec& spec = spec_;
    docker::ContainerRequest req;
    req.image = image.ref;
    // The probe starts the benchmark as its child and times it; its report after the benchmark
    // carries a tag nobody else prints.
    const std::string tag = fmt::format("{:016x}", random_tag());
    if (image.probe) {
      req.argv = {"/noisefloor/probe", "--tag", tag, "--watch-stdin"};
      if (condition_.nice) req.argv.insert(req.argv.end(), {"--nice", std::to_string(*condition_.nice)});
      req.hold_stdin = true;
      if (inv.launcher_noops > 0) {
        req.argv.push_back("--noop-runs");
        req.argv.push_back(std::to_string(inv.launcher_noops));
      }
      req.argv.push_back("--");
      req.argv.push_back(image.benchmark_path);
      req.argv.insert(req.argv.end(), inv.argv.begin() + 1, inv.argv.end());
    } else {
      req.argv = inv.argv;
    }
    req.env = inv.env;
    req.spec = spec;
    req.labels = rt_->labels(run_id_, condition_.name);
    req.name = fmt::format("nf-{}-{}-{}", run_id_, condition_.name, inv.number);
    std::transform(req.name.begin(), req.name.end(), req.name.begin(),
                   [](unsigned char ch) { return std::tolower(ch); });
    req.timeout = inv.timeout;

    // Our own clock: the engine's StartedAt/FinishedAt can be out of order for fast containers.
    const auto t0 = std::chrono::steady_clock::now();
    // Samples arrive while the container runs: stdout is followed and parsed line by line.
    text::LineSplitter lines;
    std::size_t fed = 0;  // stdout bytes handed to the splitter so far
    auto feed = [&](std::string_view bytes, bool last) {
      if (!on_line) return;
      fed += bytes.size();
      lines.feed(bytes, on_line);
      if (last) lines.finish(on_line);
    };
    auto on_stdout = [&](std::string_view bytes) { feed(bytes, false); };
    const Spinners::Snapshot before = spinners_.snapshot();
    const docker::ContainerOutcome o = docker::run_container(rt_->client, req, cancelled, on_stdout);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    spinners_.account(before, wall, inv.number);
    const probe::ProbeReport report = probe::parse_probe_report(o.err, tag);
    if (const auto stopped = report.after.find("stopped"); stopped != report.after.end())
      throw RunError(fmt::format(
          "condition '{}': the benchmark's container was stopped from outside ({}): {} "
          "shutting down, or a `{} stop`",
          condition_.name, stopped->second, rt_->engine_at(), rt_->podman() ? "podman" : "docker"));

    InvocationOutput out;
    out.exit_code = static_cast<int>(o.exit_code);
    out.timed_out = o.timed_out;
    out.out = o.out;
    out.err = image.probe ? report.benchmark_stderr : o.err;
    out.wall_seconds = wall;
    const std::optional<probe::ProbeRun> account = image.probe ? probe::probe_run(report) : std::nullopt;
    // An OOM kill the engine did not report (Podman on cgroup v1 never sets OOMKilled) is still one
    // when the benchmark died of SIGKILL and the container's memory cgroup counted an OOM kill.
    const bool oom_killed =
        o.oom_killed || (account && account->signal == SIGKILL && account->oom_kills.value_or(0) > 0);
    // The OOM killer can take the probe too, moments after the benchmark: then nothing reports from
    // inside, and a container with a memory limit whose first process died of SIGKILL, not stopped
    // by the timeout, was most likely killed for memory.
    const bool oom_likely =
        !oom_killed && image.probe && !account && spec.memory && !o.timed_out && o.exit_code == 128 + SIGKILL;
    if (account) {
      // The benchmark's own figures, from inside: not the container's lifecycle.
      out.accounting = records::accounting_of(*account, records::MeasuredBy::container);
      if (account->signal) {
        out.signal = account->signal;
        out.exit_code = -1;
      }
    }

    const probe::Effective engine = probe::effective_from_engine(docker::engine_limits(o.inspect));
    records::InvocationDetails& d = out.details;
    const docker::ContainerState state = docker::container_state(o.inspect);
    d.container = records::ContainerRun{
        state.id,     req.name,      image.ref,   state.image.empty() ? image.id : state.image,
        o.started_at, o.finished_at, o.exit_code, oom_killed,
        o.timed_out};
    d.limits_engine = engine;
    if (image.probe) {
      const probe::Effective inside = probe::effective_from_probe(report);
      d.limits_inside = inside;
      d.probe = report.values;
      d.verification = probe::verify_limits(spec, engine, inside);
      if (!d.verification->mismatches.empty())
        throw RunError(fmt::format(
            "condition '{}': the container's limits did not take effect{}: {}", condition_.name,
            rt_->podman() ? fmt::format(" ({} took them through its Docker-compatible API and applied them "
                                        "differently)",
                                        rt_->engine_at())
                          : std::string(),
            fmt::join(probe::limit_check_texts(d.verification->mismatches), "; ")));
      if (report.values.count("exec_failed"))
        throw RunError(fmt::format("condition '{}': the benchmark could not start inside the container: {}",
                                   condition_.name, report.values.at("exec_failed")));
    } else {
      d.verification = probe::Verification{{}, {{.kind = probe::LimitCheck::Kind::no_probe}}};
    }
    if (oom_killed || oom_likely)
      throw RunError(
          fmt::format("condition '{}': the benchmark was OOM-killed (memory limit {} bytes){}",
                      condition_.name, spec.memory ? std::to_string(*spec.memory) : "none",
                      oom_likely ? ", most likely: the probe beside it died of SIGKILL too, before "
                                   "it could report; raise `memory` or lower the benchmark's use"
                                 : ""),
          text::last_lines(o.out + out.err, 10, "its output"));
    // What was not streamed (after a timeout the logs are read whole), and an unterminated last line.
    if (fed <= out.out.size()) feed(std::string_view(out.out).substr(fed), true);
    return out;
  }

  void finish() override { spinners_.finish(); }

  std::vector<records::SpinnerLoad> spinner_load() const override { return spinners_.load(); }

  records::ConditionSetup setup() const override {
    records::ConditionSetup s;
    s.spinners = spinners_.setup();
    s.affinity = condition_.affinity;
    s.nice = condition_.nice;
    const auto& spec = spec_;
    s.container = records::ContainerSetup{rt_->images.at(condition_.name).ref,
                                          spec.cpuset,
                                          spec.cpus,
                                          spec.memory,
                                          spec.memory_swap,
                                          spec.network,
                                          spec.read_only,
                                          spec.pids_limit,
                                          spec.perf_events};
    return s;
  }

 private:
  std::shared_ptr<ContainerRuntime::Impl> rt_;
  model::Condition condition_;
  model::ContainerSpec spec_;
  std::string run_id_;
  Spinners spinners_;
};

std::string where(const model::Experiment& e, const model::ContainerSpec& spec) {
  return spec.mark.line > 0 ? fmt::format("{}:{}:{}", e.source_file, spec.mark.line, spec.mark.column)
                            : e.source_file;
}

}  // namespace

fingerprint::EngineAnswers ask_engine(docker::Client& client) {
  fingerprint::EngineAnswers answers{
      .version = client.version(), .info = client.info(), .libpod = std::nullopt};
  if (answers.podman()) answers.libpod = client.libpod_info();
  return answers;
}

ContainerRuntime::ContainerRuntime(const model::Experiment& e, Note note)
    : ContainerRuntime(e, std::move(note), docker::Client::from_environment(), false) {}

ContainerRuntime::ContainerRuntime(const model::Experiment& e, Note note, docker::Client client, bool remote)
    : impl_(std::make_shared<Impl>(e, std::move(note), std::move(client), remote)) {
  if (const auto warning = docker::transport_warning(impl_->client.endpoint()))
    impl_->note("warning: " + *warning);
  impl_->client.ping();
  impl_->engine = ask_engine(impl_->client);
  const fingerprint::EngineFacts facts = engine_facts();
  if (facts.cgroup_controllers &&
      std::find(facts.cgroup_controllers->begin(), facts.cgroup_controllers->end(), "pids") ==
          facts.cgroup_controllers->end()) {
    impl_->no_pids_controller = true;
    impl_->note(
        fmt::format("engine {}: its containers get no pids cgroup controller: the default pids_limit "
                    "(1024) is not asked for",
                    impl_->client.endpoint().display));
  }
  const int ncpu = docker::engine_cpus(impl_->engine.info, impl_->client.endpoint().display).value_or(0);
  std::vector<int> engine_cpus;
  for (int i = 0; i < ncpu; ++i) engine_cpus.push_back(i);
  for (std::size_t i = 0; i < e.conditions.size(); ++i) {
    const auto& c = e.conditions[i];
    if (!c.container) continue;
    const auto& spec = *c.container;
    if (spec.cpuset) {
      const std::vector<int> cpus = model::parse_cpu_list(*spec.cpuset).value_or(std::vector<int>{});
      for (int cpu : cpus)
        if (cpu >= ncpu)
          throw ConfigError(fmt::format(
              "{}: conditions[{}].container.cpuset: CPU {} is not available to {} (it has CPUs {})",
              where(e, spec), i, cpu, impl_->engine_at(), model::format_cpu_list(engine_cpus)));
    }
    if (spec.cpus && *spec.cpus > ncpu)
      throw ConfigError(fmt::format("{}: conditions[{}].container.cpus: {} is more than the engine's {} CPUs",
                                    where(e, spec), i, *spec.cpus, ncpu));
    if (const auto refusal = fingerprint::unenforced_limit(facts, spec, impl_->client.endpoint().display))
      throw ConfigError(fmt::format("{}: conditions[{}].container.{}", where(e, spec), i, *refusal));
  }
  // On another machine spinners are containers too, pinned with a cpuset and watched by their
  // CPU time: an engine whose containers get no cgroup controller can do neither.
  if (remote && facts.cgroup_controllers && facts.cgroup_controllers->empty())
    for (std::size_t i = 0; i < e.conditions.size(); ++i)
      if (e.conditions[i].spinners && e.conditions[i].spinners->count > 0)
        throw ConfigError(fmt::format(
            "{}: conditions[{}].spinners: the engine at {} is rootless Podman whose containers get no cgroup "
            "controller: spinner containers could not be pinned or seen spinning; use a rootful engine",
            e.source_file, i, impl_->client.endpoint().display));
}

ContainerRuntime::~ContainerRuntime() = default;

namespace {

// The auto image of every benchmark executable the run starts: the benchmark's, or each variant's
// own (the gate's base and head are two builds of one name), each with its inputs from its own
// workdir. Returns the first variant's (or the benchmark's) image, the conditions' default.
ContainerRuntime::Impl::Image auto_images(ContainerRuntime::Impl& rt, const model::Cancelled& cancelled) {
  const model::Experiment& e = rt.experiment;
  std::vector<std::pair<std::string, std::string>> executables;  // (path, workdir)
  if (!e.gate) executables.emplace_back(e.benchmark.command.front(), e.benchmark.workdir.value_or("."));
  for (const auto& v : e.variants)
    if (!v.command.empty() && v.command.front().find('/') != std::string::npos)
      executables.emplace_back(v.command.front(), v.workdir.value_or(e.benchmark.workdir.value_or(".")));
  std::optional<ContainerRuntime::Impl::Image> first;
  for (const auto& [exe, workdir] : executables) {
    if (rt.automatic.count(exe)) continue;
    std::vector<image::ImageInput> inputs;
    for (const auto& in : e.benchmark.inputs) inputs.push_back({std::filesystem::path(workdir) / in, in});
    const image::ImagePlan plan = image::plan_image(exe, image::embedded_probe(), image::embedded_noop(),
                                                    image::embedded_recipe(), inputs);
    rt.automatic[exe] = ContainerRuntime::Impl::Image{plan.tag, load_planned(rt, plan, "image", cancelled),
                                                      true, plan.benchmark_path_in_image};
    if (!first) first = rt.automatic[exe];
  }
  return first ? *first : rt.automatic.at(executables.front().first);
}

}  // namespace

void ContainerRuntime::prepare(const model::Cancelled& cancelled) {
  const auto& e = impl_->experiment;
  std::optional<Impl::Image> automatic;  // planned and loaded once, shared by the conditions using it
  for (const auto& c : e.conditions) {
    if (!c.container && !impl_->remote) continue;
    const model::ContainerSpec spec = container_spec(c, impl_->no_pids_controller);
    Impl::Image image;
    if (spec.image == "auto") {
      if (!automatic) {
        const std::string& exe = e.gate ? e.variants.front().command.front() : e.benchmark.command.front();
        if (exe.find('/') == std::string::npos)
          throw ConfigError(
              fmt::format("{}: image: auto needs benchmark.command to start with a path to the "
                          "benchmark executable, not \"{}\"{}",
                          c.container ? where(e, spec) : e.source_file, exe,
                          c.container ? ""
                                      : " (on an engine of another machine every condition "
                                        "runs in the auto image)"));
        automatic = auto_images(*impl_, cancelled);
      }
      image = *automatic;
    } else {
      const auto existing = impl_->client.image_inspect(spec.image);
      if (!existing)
        throw RunError(
            fmt::format("{}: image \"{}\" is not on {}, and noisefloor never pulls: "
                        "build or load it first, or use image: auto",
                        where(e, spec), spec.image, impl_->engine_at()));
      image.ref = spec.image;
      image.id = existing->value("Id", "");
    }
    impl_->images[c.name] = image;
  }
}

void ContainerRuntime::prepare_tools(const model::Cancelled& cancelled) {
  const image::ImagePlan plan =
      image::plan_tools_image(image::embedded_probe(), image::embedded_noop(), image::embedded_recipe());
  load_planned(*impl_, plan, "tools image", cancelled);
  impl_->tools_image = plan.tag;
}

std::unique_ptr<docker::EngineLease> ContainerRuntime::take_lease(const docker::LeaseOwner& me,
                                                                  std::optional<double> wait,
                                                                  const model::Cancelled& cancelled) {
  if (impl_->tools_image.empty()) prepare_tools(cancelled);
  impl_->owner = me.who;
  std::optional<std::chrono::duration<double>> limit;
  if (wait) limit = std::chrono::duration<double>(*wait);
  return docker::EngineLease::take(
      impl_->client, impl_->tools_image, me, limit,
      [&](const docker::LeaseOwner& holder) {
        impl_->note(fmt::format("waiting for the engine at {}: {} holds it ({}, since {})",
                                impl_->client.endpoint().display, holder.run, holder.who, holder.since));
      },
      cancelled);
}

fingerprint::FactTree ContainerRuntime::machine_facts(const model::Cancelled& cancelled) {
  if (impl_->tools_image.empty()) prepare_tools(cancelled);
  docker::ContainerRequest req;
  req.image = impl_->tools_image;
  req.argv = {"/noisefloor/probe", "--facts"};
  req.name = fmt::format("nf-facts-{:016x}", random_tag());
  // Owned like a run's containers: one left by a run killed while it read the machine is found,
  // and removed, by `noisefloor gc` (its owner no longer holds the lease).
  req.labels = {{"noisefloor.role", std::string(docker::kFactsRole)}};
  if (!impl_->owner.empty()) req.labels["noisefloor.owner"] = impl_->owner;
  req.spec.pids_limit = 8;
  req.timeout = std::chrono::seconds(60);
  const docker::ContainerOutcome o = docker::run_container(impl_->client, req, cancelled);
  if (o.exit_code != 0)
    throw RunError(fmt::format("the fingerprint container on {} failed (exit code {}): {}",
                               impl_->client.endpoint().display, o.exit_code, text::trim(o.err)));
  const probe::FactDump dump = probe::parse_fact_dump(o.out);
  return fingerprint::remote_host_facts(dump.files, dump.dirs, impl_->engine.info);
}

fingerprint::EngineFacts ContainerRuntime::engine_facts() {
  fingerprint::EngineFacts facts =
      fingerprint::engine_facts(impl_->engine, impl_->client.endpoint().display, impl_->client.api_version());
  for (const auto& [cond, img] : impl_->images) facts.images[cond] = {img.ref, img.id};
  facts.transport_warning = docker::transport_warning(impl_->client.endpoint()).value_or("");
  return facts;
}

ContainerScopeFactory ContainerRuntime::factory(const std::string& run_id) {
  // (on a remote engine, for every condition: see EngineEnvironment)
  auto impl = impl_;
  return [impl, run_id](const model::Condition& c) -> std::unique_ptr<ConditionScope> {
    return std::make_unique<ContainerScope>(impl, c, run_id);
  };
}

std::vector<records::RunWarning> ContainerRuntime::clean_up(const std::string& run_id) {
  std::vector<records::RunWarning> warnings;
  const std::vector<std::string> failed = impl_->client.leftovers();
  if (failed.empty()) return warnings;
  std::string second;
  try {
    docker::remove_labelled(impl_->client, "noisefloor.run=" + run_id);
  } catch (const std::exception& err) {
    second = err.what();
  }
  using K = records::RunWarningKind;
  for (const auto& f : failed)
    warnings.push_back(
        {.kind = second.empty() ? K::container_late : K::container_left, .detail = second, .container = f});
  return warnings;
}

}  // namespace noisefloor::conditions
