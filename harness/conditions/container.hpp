// The pinned-container condition: the benchmark inside a container (Docker Engine API), its
// spinners on the host, and proof that the limits took effect (engine view AND inside view).
// I/O edge.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "conditions/host.hpp"
#include "docker/client.hpp"
#include "docker/lease.hpp"
#include "fingerprint/engine.hpp"
#include "fingerprint/facts.hpp"
#include "model/experiment.hpp"
#include "records/run.hpp"

namespace noisefloor::conditions {

// One line for the user ("image: noisefloor-auto:… (reused, unchanged binary)").
using Note = std::function<void(const std::string& line)>;

// Asks the engine what it says of itself (GET /version, /info and, from Podman, its libpod info).
fingerprint::EngineAnswers ask_engine(docker::Client& client);

class ContainerRuntime {
 public:
  // Connects to the engine (DOCKER_HOST etc.) and validates every container condition against
  // it: cpusets within the engine's CPUs, cpus within them (ConfigError with file:line:col).
  ContainerRuntime(const model::Experiment& experiment, Note note);
  // The same with an engine of noisefloor's choosing. `remote`: the engine runs on a machine where
  // noisefloor cannot start host processes, so every condition runs as containers there (the
  // benchmark in the auto image, spinners in the tools image; README: Many machines).
  ContainerRuntime(const model::Experiment& experiment, Note note, docker::Client client, bool remote);
  ~ContainerRuntime();

  // Makes the images ready: `auto` builds (or reuses) the minimal image of the benchmark
  // executable from the recipe and probe built into noisefloor; a named image must exist on the
  // engine (no registry is ever contacted). Images are loaded by content hash: an engine that
  // has the image already is not sent it again.
  void prepare(const model::Cancelled& cancelled);
  // The tools image (probe and no-op only), for spinners, the lease and the fingerprint.
  void prepare_tools(const model::Cancelled& cancelled);

  // The engine's lease for this run (docker/lease.hpp); notes when it waits.
  // `wait`: how long to wait for a lease another run holds (nullopt: not at all).
  std::unique_ptr<docker::EngineLease> take_lease(const docker::LeaseOwner& me, std::optional<double> wait,
                                                  const model::Cancelled& cancelled);

  // The engine's machine, read by a short container of the tools image (fingerprint/remote.hpp).
  fingerprint::FactTree machine_facts(const model::Cancelled& cancelled);

  // The engine's facts for the fingerprint, with the image of every container condition.
  fingerprint::EngineFacts engine_facts();

  // Scopes for container conditions of run `run_id` (the containers' noisefloor.run label).
  ContainerScopeFactory factory(const std::string& run_id);

  // After the run: containers of `run_id` whose removal failed get a second attempt; one warning
  // per container that failed (container_late: the second attempt removed it; container_left:
  // it did not, the second failure the detail). Never throws.
  std::vector<records::RunWarning> clean_up(const std::string& run_id);

  struct Impl;  // shared with the scopes it creates

 private:
  std::shared_ptr<Impl> impl_;
};

// The Environment of an engine on another machine: every condition as containers (the scopes of
// ContainerRuntime::factory of a remote runtime). The machine's load between conditions is not
// read there (it would take a container start each time): unknown, with that reason.
class EngineEnvironment : public Environment {
 public:
  explicit EngineEnvironment(ContainerScopeFactory scopes) : scopes_(std::move(scopes)) {}
  std::unique_ptr<ConditionScope> enter(const model::Condition& condition) override {
    return scopes_(condition);
  }
  fingerprint::LoadReading load() override {
    return {std::nullopt,
            "a machine reached through its Docker engine: its load is read once, by the fingerprint"};
  }

 private:
  ContainerScopeFactory scopes_;
};

}  // namespace noisefloor::conditions
