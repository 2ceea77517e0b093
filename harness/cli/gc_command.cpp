// `noisefloor gc`: remove the containers a killed run left behind.
#include <cstdio>

#include "cli/commands.hpp"
#include "docker/client.hpp"
#include "docker/container.hpp"

namespace noisefloor::cli {

void gc_command() {
  docker::Client client = docker::Client::from_environment();
  const std::vector<std::string> removed = docker::remove_labelled(client, "noisefloor.run");
  if (removed.empty()) {
    std::printf("nothing to remove: no container labelled noisefloor.run on %s\n", client.endpoint().display.c_str());
    return;
  }
  for (const auto& r : removed) std::printf("removed %s\n", r.c_str());
  std::printf("removed %zu container(s) left by earlier runs\n", removed.size());
}

}  // namespace noisefloor::cli
