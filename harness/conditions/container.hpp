// The pinned-container condition: the benchmark inside a container (Docker Engine API), its
// spinners on the host, and proof that the limits took effect (engine view AND inside view).
// I/O edge.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "conditions/host.hpp"
#include "fingerprint/engine.hpp"
#include "model/experiment.hpp"

namespace noisefloor::conditions {

// One line for the user ("image: noisefloor-auto:… (reused, unchanged binary)").
using Note = std::function<void(const std::string& line)>;

class ContainerRuntime {
 public:
  // Connects to the engine (DOCKER_HOST etc.) and validates every container condition against
  // it: cpusets within the engine's CPUs, cpus within them (ConfigError with file:line:col).
  ContainerRuntime(const model::Experiment& experiment, Note note);
  ~ContainerRuntime();

  // Makes the images ready: `auto` builds (or reuses) the minimal image of the benchmark
  // executable from the recipe and probe built into noisefloor; a named image must exist locally
  // (no registry is ever contacted).
  void prepare(const model::Cancelled& cancelled);

  // The engine's facts for the fingerprint, with the image of every container condition.
  fingerprint::EngineFacts engine_facts();

  // Scopes for container conditions of run `run_id` (the containers' noisefloor.run label).
  ContainerScopeFactory factory(const std::string& run_id);

  // After the run: containers of `run_id` whose removal failed get a second attempt; one warning
  // per container that failed (saying whether the second attempt removed it). Never throws.
  std::vector<std::string> clean_up(const std::string& run_id);

  struct Impl;  // shared with the scopes it creates

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace noisefloor::conditions
