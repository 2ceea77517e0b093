// The Docker engine's facts as a fingerprint records them, built from the engine's own answers.
// Pure: the caller fetched GET /version and GET /info (docker::Client) and passes them in.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/experiment.hpp"

namespace noisefloor::fingerprint {

// Which limits the engine can enforce (GET /info CPUSet, CpuCfsQuota, CpuCfsPeriod, MemoryLimit,
// SwapLimit); nullopt when the engine did not say.
struct EngineLimits {
  std::optional<bool> cpuset, cpu_cfs_quota, cpu_cfs_period, memory_limit, swap_limit;
  friend bool operator==(const EngineLimits&, const EngineLimits&) = default;
};

// An image a container condition ran: its reference and the engine's id for it.
struct EngineImage {
  std::string ref, id;
  friend bool operator==(const EngineImage&, const EngineImage&) = default;
};

struct EngineFacts {
  std::string endpoint, server_version, api_version, min_api_version, os, os_type, architecture, kernel;
  std::int64_t ncpu = 0, mem_total = 0;
  std::string cgroup_version, cgroup_driver, storage_driver, default_runtime;
  std::map<std::string, std::string> components;  // name -> version
  std::vector<std::string> security_options;
  bool rootless = false;  // a security option names rootless (Docker), or Podman's libpod info says so
  // Which engine speaks the API: "Docker" or "Podman" (GET /version's components: "Engine",
  // "Podman Engine"); "" when neither is named.
  std::string product;
  // Podman: the cgroup controllers its containers get (libpod info host.cgroupControllers; none
  // for rootless Podman on cgroup v1, or without delegation); nullopt for Docker.
  std::optional<std::vector<std::string>> cgroup_controllers;
  std::vector<std::string> warnings;
  // What reaching it this way means (docker::transport_warning: plain TCP, TLS unverified), ""
  // for a unix socket, ssh or verified TLS: recorded with the results it measured.
  std::string transport_warning;
  EngineLimits limits;
  std::map<std::string, EngineImage> images;  // per container condition, once a run prepared them
  friend bool operator==(const EngineFacts&, const EngineFacts&) = default;
};

// From GET /version and GET /info (and, for Podman, GET /v4.0.0/libpod/info: `libpod`, nullptr
// when not asked). A field the engine did not send, or sent with another type, is "" / 0 / empty; a
// missing limit capability is nullopt (unknown), never assumed. Podman's /info claims every limit
// even when rootless on cgroup v1, where it applies none: its libpod info decides rootless and,
// from the controllers delegated, which limits hold. Never throws, whatever the objects hold.
EngineFacts engine_facts(const nlohmann::json& version, const nlohmann::json& info,
                         const std::string& endpoint, const std::string& api_version,
                         const nlohmann::json* libpod = nullptr);

// Whether GET /version names Podman ("Podman Engine" among its components).
bool is_podman(const nlohmann::json& version);

// What an engine says of itself, as it wrote it: GET /version, GET /info and, from Podman, GET
// /v4.0.0/libpod/info (nullopt for Docker). The raw material of the engine's facts; whoever asks
// the engine (conditions::ask_engine) hands it on without reading it.
struct EngineAnswers {
  nlohmann::json version;
  nlohmann::json info;
  std::optional<nlohmann::json> libpod;
  bool podman() const { return is_podman(version); }
};

// engine_facts of the answers.
EngineFacts engine_facts(const EngineAnswers& answers, const std::string& endpoint,
                         const std::string& api_version);

// A limit of `spec` the engine would accept and not apply: "<key>: why, and what would make it
// work", or nullopt. Podman answers create with no warning when rootless on cgroup v1 (or on v2
// without delegation) and drops every cgroup limit; its libpod info lists the controllers its
// containers get (cgroup_controllers). Docker (no such list): nullopt, its /info and the limits
// read back decide.
std::optional<std::string> unenforced_limit(const EngineFacts& facts, const model::ContainerSpec& spec,
                                            const std::string& endpoint);

// {"endpoint", "server_version", "api_version", "min_api_version", "os", "os_type",
//  "architecture", "kernel", "ncpu", "mem_total", "cgroup_version", "cgroup_driver",
//  "storage_driver", "default_runtime", "components" {<name>: <version>}, "security_options" [..],
//  "rootless", "product" (when named), "cgroup_controllers" [..] (Podman only), "warnings" [..], "limits"
//  {"cpuset", "cpu_cfs_quota", "cpu_cfs_period", "memory_limit", "swap_limit"} (null when unknown), "images"
//  {<condition>: {"ref", "id"}} (only when a run prepared images)}.
void to_json(nlohmann::json& j, const EngineFacts& facts);
void from_json(const nlohmann::json& j, EngineFacts& facts);

}  // namespace noisefloor::fingerprint
