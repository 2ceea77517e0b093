// The pinned-container condition: the benchmark inside a container (Docker Engine API), its
// spinners on the host, and proof that the limits took effect (engine view AND inside view).
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "model/experiment.hpp"
#include "runner/host_environment.hpp"

namespace noisefloor::runner {

class ContainerRuntime {
 public:
  // Connects to the engine (DOCKER_HOST etc.) and validates every container condition against
  // it: cpusets within the engine's CPUs, cpus within them (ConfigError with file:line:col).
  ContainerRuntime(const model::Experiment& experiment, bool quiet);
  ~ContainerRuntime();

  // Makes the images ready: `auto` builds (or reuses) the minimal image of the benchmark
  // executable; a named image must exist locally (no registry is ever contacted).
  void prepare(const Cancelled& cancelled);

  nlohmann::json engine_facts();  // server/API version, cgroup, storage driver, ... for the fingerprint

  // Scopes for container conditions of run `run_id` (used as the container label).
  ContainerScopeFactory factory(const std::string& run_id);

  struct Impl;  // shared with the scopes it creates

 private:
  std::shared_ptr<Impl> impl_;
};

// Locates a file noisefloor ships (nf-probe, containers/auto/image.json) next to the running
// binary: <exe dir>/, <exe dir>/.., <exe dir>/../libexec/noisefloor, <exe dir>/../share/noisefloor.
std::string find_shipped_file(const std::string& relative);

}  // namespace noisefloor::runner
