// The CPUs a process can keep busy: /proc/self/cgroup and the quota files, as the kernel writes
// them (cgroup v1 here; v2 as a Debian 12 host with systemd and a Docker container show them).
#include <doctest/doctest.h>

#include <string>

#include "process/cpus.hpp"

using namespace noisefloor::process;

TEST_CASE("cpus: the CPU controller's cgroup, v1 and v2") {
  std::string controllers;
  // cgroup v1 (this project's machine): the line whose controllers include cpu.
  const std::string v1 =
      "12:pids:/user.slice/user-0.slice/session-1.scope\n"
      "5:cpuset:/\n"
      "4:cpu,cpuacct:/docker/1f2e\n"
      "1:name=systemd:/user.slice\n"
      "0::/user.slice\n";
  CHECK(cpu_cgroup(v1, controllers) == "/docker/1f2e");
  CHECK(controllers == "cpu,cpuacct");
  // cpuset alone is not the cpu controller.
  CHECK(cpu_cgroup("5:cpuset:/x\n0::/y\n", controllers) == "/y");
  CHECK(controllers.empty());
  // cgroup v2: one line.
  CHECK(cpu_cgroup("0::/system.slice/docker-1f2e.scope\n", controllers) == "/system.slice/docker-1f2e.scope");
  CHECK(controllers.empty());
  CHECK(cpu_cgroup("0::/\n", controllers) == "/");
  CHECK_FALSE(cpu_cgroup("", controllers));
  CHECK_FALSE(cpu_cgroup("garbage\n", controllers));
}

TEST_CASE("cpus: a quota in CPUs, or none") {
  CHECK(cpu_max_limit("150000 100000\n") == 1.5);
  CHECK(cpu_max_limit("50000 100000") == 0.5);
  CHECK_FALSE(cpu_max_limit("max 100000\n"));
  CHECK_FALSE(cpu_max_limit("150000"));
  CHECK_FALSE(cpu_max_limit("-1 100000"));
  CHECK_FALSE(cpu_max_limit("x y"));
  CHECK(cfs_limit("200000\n", "100000\n") == 2.0);
  CHECK(cfs_limit("25000", "100000") == 0.25);
  CHECK_FALSE(cfs_limit("-1\n", "100000\n"));
  CHECK_FALSE(cfs_limit("100000", "0"));
  CHECK_FALSE(cfs_limit("", "100000"));
}
