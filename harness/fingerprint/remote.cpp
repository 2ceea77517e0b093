#include "fingerprint/remote.hpp"

#include <fmt/format.h>
#include <stdlib.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <system_error>

#include "files/files.hpp"
#include "fingerprint/host.hpp"
#include "model/errors.hpp"

namespace noisefloor::fingerprint {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string text_of(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

FactTree remote_host_facts(const std::map<std::string, std::string>& files,
                           const std::vector<std::string>& dirs, const json& info) {
  const files::TempDirectory tree("noisefloor-facts", "a remote machine's facts");
  // The paths come from another machine: probe::parse_fact_dump let through plain paths under
  // /proc and /sys only. Each is checked again to land inside the tree before anything is made.
  const auto inside = [&](const std::string& path) {
    const fs::path target = files::under(tree.path(), path).lexically_normal();
    const fs::path rel = target.lexically_relative(tree.path());
    if (rel.empty() || *rel.begin() == "..")
      throw ParseError(fmt::format("the fingerprint probe named a path outside its tree: {}", path));
    return target;
  };
  for (const auto& d : dirs) {
    std::error_code ec;
    fs::create_directories(inside(d), ec);
  }
  for (const auto& [path, content] : files) {
    const fs::path target = inside(path);
    std::error_code ec;
    fs::create_directories(target.parent_path(), ec);
    files::write_atomic(target, content);
  }
  FactTree host = probe_host(tree.path());
  json& h = host.document();
  // What the container sees of these is its own, not the machine's: the engine says.
  const std::string name = text_of(info, "Name");
  h["hostname"] = name.empty() ? unknown("the engine's /info has no Name") : known(name);
  const std::string os = text_of(info, "OperatingSystem");
  if (!os.empty()) {
    h["os"] = {{"pretty_name", known(os)},
               {"id", unknown("read by the engine: /info OperatingSystem only")},
               {"version_id", unknown("read by the engine: /info OperatingSystem only")}};
  } else {
    h["os"] = {{"pretty_name", unknown("the engine's /info has no OperatingSystem")}};
  }
  h["container"] = {
      {"inside", unknown("a machine reached through its Docker engine: whether the engine itself runs "
                         "in a container is not visible")}};
  const std::string cgroup = text_of(info, "CgroupVersion");
  h["cgroup"] = {{"version", cgroup.empty() ? unknown("the engine's /info has no CgroupVersion")
                                            : known(cgroup == "2" ? 2 : 1)},
                 {"layout", unknown("read by the engine: /info CgroupVersion only")}};
  h["tools"] = {{"perflock", unknown("a machine reached through its Docker engine")}};
  const std::string kernel = text_of(info, "KernelVersion");
  const std::string arch = text_of(info, "Architecture");
  // The engine runs Linux containers: uname(2)'s sysname there is "Linux".
  h["uname"] = kernel.empty() ? unknown("the engine's /info has no KernelVersion")
                              : known(fmt::format("Linux {} {}", kernel, arch));
  h["one_line"] =
      known(fmt::format("{} · {} · {} CPUs · {} · {}", host.show("hostname"), host.show("cpu.model_name"),
                        host.show("cpu.logical"), host.show("uname"), host.show("os.pretty_name")));
  return host;
}

}  // namespace noisefloor::fingerprint
