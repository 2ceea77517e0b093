#include "fingerprint/engine.hpp"

#include <cstdint>

namespace noisefloor::fingerprint {
namespace {

using nlohmann::json;

// The member `key` of `obj` when it has the type T expects, else `fallback`. nlohmann's value()
// throws for a member of another type (an engine that sends null), which a probe must not do.
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

json array(const json& obj, const char* key) {
  if (!obj.is_object()) return json::array();
  const auto it = obj.find(key);
  return it != obj.end() && it->is_array() ? *it : json::array();
}

json boolean_or_null(const json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  const auto it = obj.find(key);
  return it != obj.end() && it->is_boolean() ? *it : json(nullptr);
}

}  // namespace

json engine_facts(const json& version, const json& info, const std::string& endpoint,
                  const std::string& api_version) {
  json components = json::object();
  for (const auto& comp : array(version, "Components")) {
    if (!comp.is_object()) continue;
    const std::string name = str(comp, "Name");
    components[name.empty() ? "?" : name] = str(comp, "Version");
  }
  const json security = array(info, "SecurityOptions");
  bool rootless = false;
  for (const auto& opt : security) {
    if (opt.is_string() && opt.get<std::string>().find("name=rootless") != std::string::npos) rootless = true;
  }
  return {{"endpoint", endpoint},
          {"server_version", str(version, "Version")},
          {"api_version", api_version},
          {"min_api_version", str(version, "MinAPIVersion")},
          {"os", str(info, "OperatingSystem")},
          {"os_type", str(info, "OSType")},
          {"architecture", str(info, "Architecture")},
          {"kernel", str(info, "KernelVersion")},
          {"ncpu", integer(info, "NCPU")},
          {"mem_total", integer(info, "MemTotal")},
          {"cgroup_version", str(info, "CgroupVersion")},
          {"cgroup_driver", str(info, "CgroupDriver")},
          {"storage_driver", str(info, "Driver")},
          {"default_runtime", str(info, "DefaultRuntime")},
          {"components", components},
          {"security_options", security},
          {"rootless", rootless},
          {"warnings", array(info, "Warnings")},
          {"limits",
           {{"cpuset", boolean_or_null(info, "CPUSet")},
            {"cpu_cfs_quota", boolean_or_null(info, "CpuCfsQuota")},
            {"cpu_cfs_period", boolean_or_null(info, "CpuCfsPeriod")},
            {"memory_limit", boolean_or_null(info, "MemoryLimit")},
            {"swap_limit", boolean_or_null(info, "SwapLimit")}}}};
}

}  // namespace noisefloor::fingerprint
