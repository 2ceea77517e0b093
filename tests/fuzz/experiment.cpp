// The experiment loader: any bytes as an experiment file.
#include "config/experiment_file.hpp"
#include "fuzz.hpp"

int noisefloor::fuzz::experiment(const std::uint8_t* data, std::size_t size) {
  using namespace noisefloor;
  config::HostFacts host;
  host.online_cpus = {0, 1, 2, 3};
  fuzz::survive([&] {
    model::Experiment e = config::parse_experiment(fuzz::as_text(data, size), "fuzz.yaml", host);
    config::resolve_paths(e, "/fuzz");
    (void)config::pinned_cpus(e);
  });
  return 0;
}
