// Linux CPU lists ("0-3,5,7-8"), as in /sys/devices/system/cpu/online and cpuset.cpus.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace noisefloor::model {

// Parses a CPU list into sorted, unique CPU numbers. Surrounding whitespace is ignored; an empty
// list is an empty vector. Returns nullopt for anything malformed ("a-b", "3-1", "1,,2", "-1").
std::optional<std::vector<int>> parse_cpu_list(std::string_view text);

// The canonical text of a CPU list: sorted, ranges collapsed ("0-3,5").
std::string format_cpu_list(const std::vector<int>& cpus);

}  // namespace noisefloor::model
