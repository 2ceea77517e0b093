// The fingerprint of a machine noisefloor reaches only through its Docker engine: the files a
// short container of the tools image read there (`nf-probe --facts`: /proc/cpuinfo, /proc/loadavg,
// the kernel command line, /sys/devices/system/cpu, ...), read by the same code as the local
// host's, plus the engine's /info for what a container cannot see: the host name, the OS, the
// kernel and the cgroup version. Gives the same fields as probe_this_host() where they can be
// read; `unknown` with the reason where not. I/O edge (a temporary directory).
#pragma once

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "fingerprint/facts.hpp"

namespace noisefloor::fingerprint {

FactTree remote_host_facts(const std::map<std::string, std::string>& files,
                           const std::vector<std::string>& dirs, const nlohmann::json& info);

}  // namespace noisefloor::fingerprint
