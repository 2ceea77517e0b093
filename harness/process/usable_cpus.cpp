#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <vector>

#include "files/files.hpp"
#include "process/cpus.hpp"

namespace noisefloor::process {
namespace {

namespace fs = std::filesystem;

// The least quota of `dir` and of every directory above it up to `root`: a parent's limit binds
// its children.
std::optional<double> least_limit(const fs::path& root, fs::path dir, const std::string& controllers) {
  std::optional<double> least;
  for (;;) {
    std::optional<double> here;
    if (controllers.empty()) {
      if (const auto max = files::try_read(dir / "cpu.max")) here = cpu_max_limit(*max);
    } else if (const auto quota = files::try_read(dir / "cpu.cfs_quota_us")) {
      if (const auto period = files::try_read(dir / "cpu.cfs_period_us")) here = cfs_limit(*quota, *period);
    }
    if (here && (!least || *here < *least)) least = here;
    if (dir == root || !dir.has_parent_path() || dir.parent_path() == dir) return least;
    dir = dir.parent_path();
  }
}

}  // namespace

int affinity_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0)
    return static_cast<int>(std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN)));
  return std::max(1, CPU_COUNT(&set));
}

int usable_cpus() {
  const int affinity = affinity_cpus();
  const auto self = files::try_read("/proc/self/cgroup");
  std::string controllers;
  const auto path = self ? cpu_cgroup(*self, controllers) : std::nullopt;
  if (!path) return affinity;
  // v1 mounts a controller list at its name ("cpu,cpuacct"), often also at "cpu". Inside a
  // container whose cgroup namespace is the host's, its own directory is the mount's root.
  std::optional<double> limit;
  for (const fs::path& root :
       controllers.empty()
           ? std::vector<fs::path>{"/sys/fs/cgroup"}
           : std::vector<fs::path>{fs::path("/sys/fs/cgroup") / controllers, "/sys/fs/cgroup/cpu"}) {
    const fs::path relative = fs::path(*path).relative_path();
    const fs::path dir = relative.empty() ? root : root / relative;
    std::error_code ec;
    limit = least_limit(root, fs::is_directory(dir, ec) ? dir : root, controllers);
    if (fs::is_directory(root, ec)) break;
  }
  if (!limit) return affinity;
  return std::clamp(static_cast<int>(std::ceil(*limit - 1e-9)), 1, affinity);
}

}  // namespace noisefloor::process
