// The container lifecycle of the pinned-container condition: create -> start -> wait -> inspect ->
// logs -> remove, with the container removed on every path (ContainerGuard), plus the label sweep
// behind `noisefloor gc`.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "docker/api.hpp"  // ContainerRequest, create_body
#include "docker/client.hpp"

namespace noisefloor::docker {

// Owns a container: the destructor force-removes it (best effort, never throws; a failure is
// remembered by the client as "<id12>: <reason>", see Client::leftovers); remove() does the same
// work but throws DockerError, for the happy path. Shape of fmt::buffered_file.
class ContainerGuard {
 public:
  ContainerGuard(Client& client, std::string id);
  ContainerGuard(ContainerGuard&& other) noexcept;  // empties other
  ContainerGuard& operator=(ContainerGuard&&) = delete;
  ContainerGuard(const ContainerGuard&) = delete;
  ContainerGuard& operator=(const ContainerGuard&) = delete;
  ~ContainerGuard();

  void remove();  // idempotent; after it the guard owns nothing
  const std::string& id() const { return id_; }

 private:
  Client* client_;
  std::string id_;  // empty: nothing owned
};

struct ContainerOutcome {
  std::int64_t exit_code = 0;
  bool oom_killed = false;  // State.OOMKilled, or an "oom" event for the container
  bool timed_out = false;   // the deadline passed and noisefloor killed it (exit_code is then 137)
  std::string out, err;
  nlohmann::json inspect;               // full inspect, taken before removal
  std::string started_at, finished_at;  // State.StartedAt / FinishedAt (RFC3339Nano)
};

// create -> start -> wait (until request.timeout; then kill and timed_out = true) -> inspect ->
// logs -> remove. Any create Warnings (e.g. a limit the engine accepted but dropped) throw
// DockerError "docker: POST /containers/create: container '<name>' has warnings, so its limits may
// not apply: <warning>[; <warning>...]". When
// cancelled() becomes true (polled about once a second during the wait) the container is killed
// and removed and noisefloor::Interrupted is thrown. The container never outlives the call.
// With on_stdout, the logs are followed while the container runs and its stdout is passed on as
// it arrives (live samples and progress), instead of being read after the exit.
using StdoutSink = std::function<void(std::string_view)>;
ContainerOutcome run_container(Client& client, const ContainerRequest& request,
                               const std::function<bool()>& cancelled, const StdoutSink& on_stdout = nullptr);

// The same with a ready create body (create_body(request), possibly amended by the caller).
ContainerOutcome run_container(Client& client, const nlohmann::json& create_body, const std::string& name,
                               std::chrono::duration<double> timeout, const std::function<bool()>& cancelled,
                               const StdoutSink& on_stdout = nullptr);

// Force-removes every container carrying `label` ("key=value" or "key"); returns one
// "<id12> <name>" per removed container, in the engine's list order.
std::vector<std::string> remove_labelled(Client& client, const std::string& label);

// Every container of noisefloor's runs: labelled noisefloor.run, or a machine-facts container
// (noisefloor.role=facts, which a run makes before it has an id), from the engine's list (two
// calls; api.hpp's RunContainer).
std::vector<RunContainer> run_containers(Client& client);

}  // namespace noisefloor::docker
