#include "docker/container.hpp"

#include <fmt/format.h>

#include <chrono>
#include <exception>
#include <optional>
#include <set>
#include <string_view>

namespace noisefloor::docker {
namespace {

std::string short_id(const std::string& id) { return id.substr(0, 12); }

std::int64_t unix_seconds(const std::optional<Timestamp>& t, std::int64_t fallback) {
  if (!t) return fallback;
  return std::chrono::floor<std::chrono::seconds>(*t).time_since_epoch().count();
}

std::int64_t now_unix() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

constexpr std::chrono::seconds kKillGrace{30};  // for the engine to reap a SIGKILLed container

}  // namespace

ContainerGuard::ContainerGuard(Client& client, std::string id) : client_(&client), id_(std::move(id)) {}

ContainerGuard::ContainerGuard(ContainerGuard&& other) noexcept
    : client_(other.client_), id_(std::move(other.id_)) {
  other.id_.clear();
}

ContainerGuard::~ContainerGuard() {
  if (id_.empty()) return;
  try {
    try {
      client_->remove(id_);
    } catch (const std::exception& e) {
      client_->remember_leftover(fmt::format("{}: {}", short_id(id_), e.what()));
    } catch (...) {
      client_->remember_leftover(fmt::format("{}: unknown error", short_id(id_)));
    }
  } catch (...) {  // out of memory while remembering: nothing more can be done here
  }
}

void ContainerGuard::remove() {
  if (id_.empty()) return;
  client_->remove(id_);
  id_.clear();
}

ContainerOutcome run_container(Client& client, const ContainerRequest& request,
                               const std::function<bool()>& cancelled, const StdoutSink& on_stdout) {
  return run_container(client, create_body(request), request.name, request.timeout, cancelled, on_stdout);
}

namespace {
bool holds_stdin(const nlohmann::json& body) {
  return body.value("OpenStdin", false) && body.value("StdinOnce", false);
}
}  // namespace

ContainerOutcome run_container(Client& client, const nlohmann::json& body, const std::string& name,
                               std::chrono::duration<double> timeout, const std::function<bool()>& cancelled,
                               const StdoutSink& on_stdout) {
  Client::Created created = [&] {
    try {
      return client.create_container(body, name);
    } catch (const DockerError& e) {
      // perf_events: true asks for CAP_PERFMON, which older engines (Docker 20.10) do not know.
      if (std::string_view(e.what()).find("unknown capability: \"CAP_PERFMON\"") == std::string_view::npos)
        throw;
      throw DockerError(
          fmt::format("{} — this engine does not know CAP_PERFMON, which `perf_events: true` asks "
                      "for; use an engine that does, or drop perf_events (the counters are then "
                      "missing inside the container, with the reason)",
                      e.what()));
    }
  }();
  ContainerGuard guard(client, created.id);  // from here on, every exit removes the container
  if (!created.warnings.empty()) {
    throw DockerError(
        fmt::format("docker: POST /containers/create: container '{}' has warnings, so its limits may not "
                    "apply: {}",
                    name, fmt::join(created.warnings, "; ")));
  }
  if (cancelled && cancelled()) throw Interrupted();

  ContainerOutcome outcome;
  // Held from before the start to the end of this call: if noisefloor dies, the engine closes
  // the container's stdin and its probe ends the benchmark.
  std::unique_ptr<Client::StdinLease> stdin_lease;
  if (holds_stdin(body)) stdin_lease = client.hold_stdin(created.id);
  client.start(created.id);
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(timeout);
  const bool tty_body = body.value("Tty", false);
  std::optional<Client::Logs> followed;
  try {
    // Following the logs ends when the container exits; the wait then returns at once.
    if (on_stdout) followed = client.follow_logs(created.id, tty_body, on_stdout, deadline, cancelled);
    outcome.exit_code = client.wait(created.id, deadline, cancelled);
  } catch (const WaitTimeout&) {
    outcome.timed_out = true;
    client.kill(created.id);
    outcome.exit_code = client.wait(created.id, std::chrono::steady_clock::now() + kKillGrace, cancelled);
  } catch (const Interrupted&) {
    try {
      client.kill(created.id);
    } catch (const std::exception&) {
      // the guard's force-remove kills it anyway and reports what fails
    }
    throw;
  }

  outcome.inspect = client.inspect(created.id);
  const ContainerState state = container_state(outcome.inspect);
  outcome.started_at = state.started_at;
  outcome.finished_at = state.finished_at;
  outcome.oom_killed = state.oom_killed;
  if (!outcome.oom_killed && !outcome.timed_out && outcome.exit_code == 137) {
    // OOMKilled comes from an asynchronous event and has been missed by some engines; the
    // event log is the second witness. Only asked for a SIGKILL exit: `until` may make the
    // engine wait up to a second.
    const auto started = parse_rfc3339_nano(outcome.started_at);
    const auto finished = parse_rfc3339_nano(outcome.finished_at);
    const std::int64_t now = now_unix();
    outcome.oom_killed = client.oom_event(created.id, unix_seconds(started, now - 3600) - 1,
                                          std::min(unix_seconds(finished, now) + 1, now + 1));
  }
  const bool tty = state.tty;
  // The logs are read whole once the container has exited: a followed stream can end before the
  // last lines (after a timeout it stops early; Podman's can miss a container's final output,
  // containers/podman#10675), and the probe's account of the benchmark is those last lines. What
  // was followed is kept where an engine's whole read has less.
  Client::Logs logs = client.logs(created.id, tty);
  if (followed && !outcome.timed_out &&
      followed->out.size() + followed->err.size() > logs.out.size() + logs.err.size())
    logs = std::move(*followed);
  outcome.out = std::move(logs.out);
  outcome.err = std::move(logs.err);
  guard.remove();
  return outcome;
}

std::vector<std::string> remove_labelled(Client& client, const std::string& label) {
  std::vector<std::string> removed;
  for (const nlohmann::json& c : client.list_by_label(label)) {
    const auto listed = run_container_of(c);  // its Id and name
    if (!listed) continue;
    client.remove(listed->id);
    removed.push_back(fmt::format("{} {}", short_id(listed->id), listed->name));
  }
  return removed;
}

std::vector<RunContainer> run_containers(Client& client) {
  std::vector<RunContainer> out;
  std::set<std::string> seen;
  for (const std::string& label :
       {std::string("noisefloor.run"), "noisefloor.role=" + std::string(kFactsRole)})
    for (const nlohmann::json& listed : client.list_by_label(label))
      if (auto c = run_container_of(listed); c && seen.insert(c->id).second) out.push_back(std::move(*c));
  return out;
}

}  // namespace noisefloor::docker
