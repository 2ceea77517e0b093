// `serve` in noisefloor: runs noisefloor-server (beside this binary) with this process's own
// arguments, in this process's place, so that the HTTP server's libraries load only for the
// command that serves. The options were checked here already; the server parses the same ones.
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "model/errors.hpp"
#include "pipeline/commands.hpp"

namespace noisefloor::pipeline {

Output serve(const store::ServeOptions&, const Cancelled&, const std::function<void(const std::string&)>&) {
  std::error_code ec;
  const auto server = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path() / "noisefloor-server";
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string cmdline{std::istreambuf_iterator<char>(in), {}};
  std::vector<std::string> args = {server.string()};
  for (std::size_t at = cmdline.find('\0'); at != std::string::npos && at + 1 < cmdline.size();) {
    const std::size_t end = cmdline.find('\0', at + 1);
    args.push_back(cmdline.substr(at + 1, end - at - 1));
    at = end;
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv(server.c_str(), argv.data());
  throw RunError(
      fmt::format("serve: cannot run {}: {} (make install installs it beside noisefloor; make builds it)",
                  server.string(), std::strerror(errno)));
}

}  // namespace noisefloor::pipeline
