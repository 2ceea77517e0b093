// `serve` in noisefloor: runs noisefloor-server (beside this binary) with the same options, in this
// process's place, so that the HTTP server's libraries load only for the command that serves.
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "model/errors.hpp"
#include "pipeline/commands.hpp"
#include "text/text.hpp"

namespace noisefloor::pipeline {

Output serve(const store::ServeOptions& o, const Cancelled&, const std::function<void(const std::string&)>&) {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const auto server = self.parent_path() / "noisefloor-server";
  std::vector<std::string> args = {
      server.string(), "serve",  "--db",         o.db,
      "--listen",      o.listen, "--rate-limit", text::shortest(o.publishes_per_minute)};
  if (o.private_reads) args.push_back("--private");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv(server.c_str(), argv.data());
  throw RunError(
      fmt::format("serve: cannot run {}: {} (make install installs it beside noisefloor; make builds it)",
                  server.string(), std::strerror(errno)));
}

}  // namespace noisefloor::pipeline
