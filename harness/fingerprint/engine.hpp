// The Docker engine's facts as a fingerprint records them, built from the engine's own answers.
// Pure: the caller fetched GET /version and GET /info (docker::Client) and passes them in.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace noisefloor::fingerprint {

// {"endpoint", "server_version", "api_version", "min_api_version", "os", "os_type",
//  "architecture", "kernel", "ncpu", "mem_total", "cgroup_version", "cgroup_driver",
//  "storage_driver", "default_runtime", "components" {<name>: <version>}, "security_options" [..],
//  "rootless" (bool), "warnings" [..], "limits" {"cpuset", "cpu_cfs_quota", "cpu_cfs_period",
//  "memory_limit", "swap_limit"}}.
// Plain values, not facts (the shape the runner has always written under fingerprint["engine"];
// it adds "images" itself). A field the engine did not send, or sent with another type, is ""
// for strings, 0 for numbers, [] / {} for lists; a missing limit capability is null (unknown),
// never assumed true or false. "rootless" is true when a security option names rootless.
// Never throws, whatever the objects hold.
nlohmann::json engine_facts(const nlohmann::json& version, const nlohmann::json& info,
                            const std::string& endpoint, const std::string& api_version);

}  // namespace noisefloor::fingerprint
