// usable_cpus against a known truth: this process's CPUs, and a child in a cgroup of its own with
// a quota of half a CPU, which must get 1 however many CPUs the machine has (cgroup v1 or v2; the
// cgroup is made and removed here, so the test needs root).
#include <doctest/doctest.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "process/cpus.hpp"

namespace fs = std::filesystem;

namespace {

bool write_text(const fs::path& file, const std::string& text) {
  std::ofstream out(file);
  out << text;
  out.flush();
  return static_cast<bool>(out);
}

// A new cgroup with a quota of half a CPU: its directory, or "" (and why) when none can be made.
fs::path half_cpu_cgroup(std::string& why) {
  const std::string name = "nf-cpus-test-" + std::to_string(::getpid());
  std::error_code ec;
  if (fs::exists("/sys/fs/cgroup/cgroup.controllers", ec)) {  // v2
    (void)write_text("/sys/fs/cgroup/cgroup.subtree_control", "+cpu");
    const fs::path dir = fs::path("/sys/fs/cgroup") / name;
    if (!fs::create_directory(dir, ec))
      return why = "mkdir " + dir.string() + ": " + ec.message(), fs::path();
    if (!write_text(dir / "cpu.max", "50000 100000")) return why = "cannot write cpu.max", dir;
    return dir;
  }
  for (const char* root : {"/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpu"}) {
    if (!fs::exists(fs::path(root) / "cpu.cfs_quota_us", ec)) continue;
    const fs::path dir = fs::path(root) / name;
    if (!fs::create_directory(dir, ec))
      return why = "mkdir " + dir.string() + ": " + ec.message(), fs::path();
    if (!write_text(dir / "cpu.cfs_period_us", "100000") || !write_text(dir / "cpu.cfs_quota_us", "50000"))
      return why = "cannot write the quota", dir;
    return dir;
  }
  why = "no cgroup CPU controller mounted";
  return {};
}

}  // namespace

TEST_CASE("usable_cpus: the affinity mask, bounded by the cgroup's CPU quota") {
  cpu_set_t set;
  CPU_ZERO(&set);
  REQUIRE(::sched_getaffinity(0, sizeof set, &set) == 0);
  const int affinity = CPU_COUNT(&set);
  CHECK(noisefloor::process::usable_cpus() >= 1);
  CHECK(noisefloor::process::usable_cpus() <= affinity);
  if (::geteuid() != 0) {
    MESSAGE("not root: the quota half is not checked (CI runs as root)");
    return;
  }
  std::string why;
  const fs::path dir = half_cpu_cgroup(why);
  REQUIRE_MESSAGE(why.empty(), why);
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(pipe_fds[0]);
    const bool moved = write_text(dir / "cgroup.procs", std::to_string(::getpid()));
    const int n = moved ? noisefloor::process::usable_cpus() : -1;
    (void)!::write(pipe_fds[1], &n, sizeof n);
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  int in_cgroup = 0;
  const auto got = ::read(pipe_fds[0], &in_cgroup, sizeof in_cgroup);
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  ::rmdir(dir.c_str());
  REQUIRE(got == static_cast<ssize_t>(sizeof in_cgroup));
  REQUIRE_MESSAGE(in_cgroup != -1, "the child could not join " << dir.string());
  CHECK(in_cgroup == 1);  // half a CPU, rounded up
}
