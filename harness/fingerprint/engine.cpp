#include "fingerprint/engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "jsonread/parse.hpp"
#include "text/text.hpp"

namespace noisefloor::fingerprint {
namespace {

using nlohmann::json;

// The member `key` of `obj` when it has the expected type, else the fallback (model::member_*:
// an engine's answer never throws here).
std::string str(const json& obj, const char* key) {
  // Escaped as a name is (text::name_safe): an engine's answer prints no line or colour of its own.
  return text::name_safe(jsonread::member_string(obj, key));
}

std::int64_t integer(const json& obj, const char* key) { return jsonread::member_int(obj, key).value_or(0); }

std::vector<std::string> strings(const json& obj, const char* key) {
  std::vector<std::string> out;
  if (!obj.is_object()) return out;
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_array()) return out;
  for (const auto& v : *it)
    if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

std::optional<bool> boolean(const json& obj, const char* key) {
  if (!obj.is_object()) return std::nullopt;
  const auto it = obj.find(key);
  return it != obj.end() && it->is_boolean() ? std::optional(it->get<bool>()) : std::nullopt;
}

json nullable(const std::optional<bool>& b) { return b ? json(*b) : json(nullptr); }

}  // namespace

bool is_podman(const json& version) {
  if (!version.is_object() || !version.contains("Components") || !version["Components"].is_array())
    return false;
  for (const auto& comp : version["Components"])
    if (str(comp, "Name") == "Podman Engine") return true;
  return false;
}

EngineFacts engine_facts(const EngineAnswers& answers, const std::string& endpoint,
                         const std::string& api_version) {
  return engine_facts(answers.version, answers.info, endpoint, api_version,
                      answers.libpod ? &*answers.libpod : nullptr);
}

EngineFacts engine_facts(const json& version, const json& info, const std::string& endpoint,
                         const std::string& api_version, const json* libpod_info) {
  const json libpod = libpod_info ? *libpod_info : json();
  EngineFacts f;
  f.endpoint = endpoint;
  f.server_version = str(version, "Version");
  f.api_version = api_version;
  f.min_api_version = str(version, "MinAPIVersion");
  f.os = str(info, "OperatingSystem");
  f.os_type = str(info, "OSType");
  f.architecture = str(info, "Architecture");
  f.kernel = str(info, "KernelVersion");
  f.ncpu = integer(info, "NCPU");
  f.mem_total = integer(info, "MemTotal");
  f.cgroup_version = str(info, "CgroupVersion");
  f.cgroup_driver = str(info, "CgroupDriver");
  f.storage_driver = str(info, "Driver");
  f.default_runtime = str(info, "DefaultRuntime");
  if (version.is_object() && version.contains("Components") && version["Components"].is_array())
    for (const auto& comp : version["Components"]) {
      if (!comp.is_object()) continue;
      const std::string name = str(comp, "Name");
      f.components[name.empty() ? "?" : name] = str(comp, "Version");
    }
  f.security_options = strings(info, "SecurityOptions");
  for (const auto& opt : f.security_options)
    if (opt.find("name=rootless") != std::string::npos) f.rootless = true;
  f.warnings = strings(info, "Warnings");
  f.limits = {boolean(info, "CPUSet"), boolean(info, "CpuCfsQuota"), boolean(info, "CpuCfsPeriod"),
              boolean(info, "MemoryLimit"), boolean(info, "SwapLimit")};
  if (is_podman(version))
    f.product = "Podman";
  else if (f.components.contains("Engine"))
    f.product = "Docker";
  if (libpod.is_object() && libpod.contains("host") && libpod["host"].is_object()) {
    const json& host = libpod["host"];
    if (host.contains("security") && host["security"].is_object())
      f.rootless = f.rootless || boolean(host["security"], "rootless").value_or(false);
    if (host.contains("cgroupControllers") && host["cgroupControllers"].is_array()) {
      const std::vector<std::string> controllers = strings(host, "cgroupControllers");
      f.cgroup_controllers = controllers;
      // A limit holds only when its controller is there (rootless on cgroup v1: none is).
      const auto has = [&](const char* c) {
        return std::find(controllers.begin(), controllers.end(), c) != controllers.end();
      };
      const auto only_if = [](std::optional<bool>& limit, bool present) {
        if (!present) limit = false;
      };
      only_if(f.limits.cpuset, has("cpuset"));
      only_if(f.limits.cpu_cfs_quota, has("cpu"));
      only_if(f.limits.cpu_cfs_period, has("cpu"));
      only_if(f.limits.memory_limit, has("memory"));
      only_if(f.limits.swap_limit, has("memory"));
    }
  }
  return f;
}

void to_json(json& j, const EngineFacts& f) {
  j = {{"endpoint", f.endpoint},
       {"server_version", f.server_version},
       {"api_version", f.api_version},
       {"min_api_version", f.min_api_version},
       {"os", f.os},
       {"os_type", f.os_type},
       {"architecture", f.architecture},
       {"kernel", f.kernel},
       {"ncpu", f.ncpu},
       {"mem_total", f.mem_total},
       {"cgroup_version", f.cgroup_version},
       {"cgroup_driver", f.cgroup_driver},
       {"storage_driver", f.storage_driver},
       {"default_runtime", f.default_runtime},
       {"components", f.components},
       {"security_options", f.security_options},
       {"rootless", f.rootless},
       {"warnings", f.warnings},
       {"limits",
        {{"cpuset", nullable(f.limits.cpuset)},
         {"cpu_cfs_quota", nullable(f.limits.cpu_cfs_quota)},
         {"cpu_cfs_period", nullable(f.limits.cpu_cfs_period)},
         {"memory_limit", nullable(f.limits.memory_limit)},
         {"swap_limit", nullable(f.limits.swap_limit)}}}};
  if (!f.product.empty()) j["product"] = f.product;  // (recorded since 0.1 fingerprints were)
  if (f.cgroup_controllers) j["cgroup_controllers"] = *f.cgroup_controllers;
  if (!f.transport_warning.empty()) j["transport_warning"] = f.transport_warning;
  if (!f.images.empty()) {
    json images = json::object();
    for (const auto& [condition, image] : f.images)
      images[condition] = {{"ref", image.ref}, {"id", image.id}};
    j["images"] = images;
  }
}

void from_json(const json& j, EngineFacts& f) {
  f = {};
  f.endpoint = str(j, "endpoint");
  f.server_version = str(j, "server_version");
  f.api_version = str(j, "api_version");
  f.min_api_version = str(j, "min_api_version");
  f.os = str(j, "os");
  f.os_type = str(j, "os_type");
  f.architecture = str(j, "architecture");
  f.kernel = str(j, "kernel");
  f.ncpu = integer(j, "ncpu");
  f.mem_total = integer(j, "mem_total");
  f.cgroup_version = str(j, "cgroup_version");
  f.cgroup_driver = str(j, "cgroup_driver");
  f.storage_driver = str(j, "storage_driver");
  f.default_runtime = str(j, "default_runtime");
  if (j.contains("components") && j["components"].is_object())
    for (const auto& [name, v] : j["components"].items())
      if (v.is_string()) f.components[name] = v.get<std::string>();
  f.security_options = strings(j, "security_options");
  f.rootless = boolean(j, "rootless").value_or(false);
  f.product = str(j, "product");
  if (j.contains("cgroup_controllers") && j["cgroup_controllers"].is_array())
    f.cgroup_controllers = strings(j, "cgroup_controllers");
  f.warnings = strings(j, "warnings");
  f.transport_warning = str(j, "transport_warning");
  if (j.contains("limits")) {
    const json& l = j["limits"];
    f.limits = {boolean(l, "cpuset"), boolean(l, "cpu_cfs_quota"), boolean(l, "cpu_cfs_period"),
                boolean(l, "memory_limit"), boolean(l, "swap_limit")};
  }
  if (j.contains("images") && j["images"].is_object())
    for (const auto& [condition, image] : j["images"].items())
      f.images[condition] = {str(image, "ref"), str(image, "id")};
}

std::optional<std::string> unenforced_limit(const EngineFacts& facts, const model::ContainerSpec& spec,
                                            const std::string& endpoint) {
  if (!facts.cgroup_controllers) return std::nullopt;  // Docker: /info and the read-back decide
  const auto& have = *facts.cgroup_controllers;
  struct Asked {
    bool asked;
    const char* key;
    const char* controller;
  };
  for (const Asked& a :
       {Asked{spec.cpuset.has_value(), "cpuset", "cpuset"}, Asked{spec.cpus.has_value(), "cpus", "cpu"},
        Asked{spec.memory.has_value(), "memory", "memory"},
        Asked{spec.memory_swap.has_value(), "memory_swap", "memory"},
        Asked{spec.pids_limit_given, "pids_limit", "pids"}}) {
    if (!a.asked || std::find(have.begin(), have.end(), a.controller) != have.end()) continue;
    return fmt::format(
        "{}: the engine at {} is {}Podman and its containers get no '{}' cgroup controller (they get {}; "
        "cgroup "
        "v{}): it would accept the limit and not apply it. Run this condition on a rootful engine, or on "
        "cgroup v2 "
        "delegate the controller to the user (systemd: Delegate=cpu cpuset memory pids), or drop the limit",
        a.key, endpoint, facts.rootless ? "rootless " : "", a.controller,
        have.empty() ? "none" : fmt::format("{}", fmt::join(have, ", ")),
        facts.cgroup_version.empty() ? "?" : facts.cgroup_version);
  }
  return std::nullopt;
}

}  // namespace noisefloor::fingerprint
