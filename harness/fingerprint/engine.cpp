#include "fingerprint/engine.hpp"

#include <nlohmann/json.hpp>

namespace noisefloor::fingerprint {
namespace {

using nlohmann::json;

// The member `key` of `obj` when it has the expected type, else the fallback. nlohmann's
// value() throws for a member of another type (an engine that sends null), which a probe must
// not do.
std::string str(const json& obj, const char* key) {
  if (!obj.is_object()) return "";
  const auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

std::int64_t integer(const json& obj, const char* key) {
  if (!obj.is_object()) return 0;
  const auto it = obj.find(key);
  return it != obj.end() && it->is_number_integer() ? it->get<std::int64_t>() : 0;
}

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

EngineFacts engine_facts(const json& version, const json& info, const std::string& endpoint,
                         const std::string& api_version) {
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
  f.warnings = strings(j, "warnings");
  if (j.contains("limits")) {
    const json& l = j["limits"];
    f.limits = {boolean(l, "cpuset"), boolean(l, "cpu_cfs_quota"), boolean(l, "cpu_cfs_period"),
                boolean(l, "memory_limit"), boolean(l, "swap_limit")};
  }
  if (j.contains("images") && j["images"].is_object())
    for (const auto& [condition, image] : j["images"].items())
      f.images[condition] = {str(image, "ref"), str(image, "id")};
}

}  // namespace noisefloor::fingerprint
