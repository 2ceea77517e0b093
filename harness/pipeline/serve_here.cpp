// `serve` in noisefloor-server: the store's server itself.
#include "pipeline/commands.hpp"
#include "store/server.hpp"

namespace noisefloor::pipeline {

Output serve(const store::ServeOptions& options, const Cancelled& cancelled,
             const std::function<void(const std::string&)>& say) {
  store::serve(options, cancelled, say);
  return {};
}

}  // namespace noisefloor::pipeline
