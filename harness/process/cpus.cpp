#include "process/cpus.hpp"

#include <algorithm>
#include <charconv>

#include "text/text.hpp"

namespace noisefloor::process {
namespace {

constexpr std::string_view kCpuController = "cpu";  // v1's controller that holds the CFS quota

std::optional<long long> cgroup_number(std::string_view s) {
  s = text::trim(s);
  long long v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<std::string> cpu_cgroup(std::string_view proc_self_cgroup, std::string& controllers) {
  std::optional<std::string> v2;
  for (const std::string_view line : text::lines(proc_self_cgroup)) {
    const auto first = line.find(':');
    const auto second = first == std::string::npos ? std::string::npos : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string_view list = line.substr(first + 1, second - first - 1);
    const std::string path(line.substr(second + 1));
    if (line.starts_with("0::")) {  // v2: hierarchy 0, no controller list
      v2 = path;
      continue;
    }
    for (std::string_view rest = list; !rest.empty();) {
      const auto comma = rest.find(',');
      if (rest.substr(0, comma) == kCpuController) {
        controllers = std::string(list);
        return path;
      }
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
  }
  controllers.clear();
  return v2;
}

std::optional<double> cpu_max_limit(std::string_view cpu_max) {
  cpu_max = text::trim(cpu_max);
  const auto space = cpu_max.find(' ');
  if (space == std::string_view::npos || cpu_max.starts_with("max ")) return std::nullopt;  // no limit
  const auto quota = cgroup_number(cpu_max.substr(0, space));
  const auto period = cgroup_number(cpu_max.substr(space + 1));
  if (!quota || !period || *quota <= 0 || *period <= 0) return std::nullopt;
  return static_cast<double>(*quota) / static_cast<double>(*period);
}

std::optional<double> cfs_limit(std::string_view quota_us, std::string_view period_us) {
  const auto quota = cgroup_number(quota_us);
  const auto period = cgroup_number(period_us);
  if (!quota || !period || *quota <= 0 || *period <= 0) return std::nullopt;
  return static_cast<double>(*quota) / static_cast<double>(*period);
}

}  // namespace noisefloor::process
