// process/: the benchmark's accounting from the process that waits for it, and spinners that
// report that they spin and how much CPU they get. Real processes; figures checked against
// workloads whose cost is known by construction (nf-burn, sleep), with bounds in one direction
// only where the machine's load could move them.
#include <doctest/doctest.h>

#include <signal.h>
#include <unistd.h>

#include <thread>

#include "model/errors.hpp"
#include "process/process.hpp"

using namespace noisefloor;

namespace {

process::Result run(std::vector<std::string> argv) {
  process::Spec spec;
  spec.argv = std::move(argv);
  spec.timeout = std::chrono::seconds(60);
  return process::run(spec, nullptr, nullptr);
}

}  // namespace

TEST_CASE("process: a sleep's wall time is its length and it uses next to no CPU") {
  const process::Result r = run({"sleep", "0.2"});
  CHECK(r.exit_code == 0);
  CHECK(r.usage.wall_seconds >= 0.2);
  CHECK(r.usage.cpu_seconds() < 0.05);
  CHECK(r.usage.voluntary_switches >= 1);  // it blocked
  CHECK(r.usage.max_rss_kib > 0);
}

TEST_CASE("process: CPU time comes from wait4 and covers the children the benchmark waited for") {
  // nf-burn 0.2 2: itself and two children, 0.2 s of CPU each, by construction.
  const process::Result r = run({NF_BURN, "0.2", "2"});
  CHECK(r.exit_code == 0);
  CHECK(r.usage.cpu_seconds() >= 0.6);
  CHECK(r.usage.cpu_seconds() < 0.6 + 0.1);
  // On 2 CPUs three burners need at least 0.3 s of wall time.
  CHECK(r.usage.wall_seconds >= 0.3);
}

TEST_CASE("process: a signal is reported as one, with the usage up to it") {
  const process::Result r = run({"sh", "-c", "kill -9 $$"});
  CHECK(r.signal == SIGKILL);
  CHECK(r.exit_code == -1);
  CHECK(r.usage.wall_seconds > 0);
}

TEST_CASE("process: a timeout kills the whole group and still accounts the time") {
  process::Spec spec;
  spec.argv = {"sh", "-c", "sleep 30 & sleep 30"};
  spec.timeout = std::chrono::milliseconds(300);
  const process::Result r = process::run(spec, nullptr, nullptr);
  CHECK(r.timed_out);
  CHECK(r.usage.wall_seconds >= 0.3);
  CHECK(r.usage.wall_seconds < 30);
}

TEST_CASE("process: spinners report that they spin, and their CPU time grows") {
  model::SpinnerSpec spec;
  spec.count = 2;
  process::SpinnerSet spinners(spec);  // returns once both wrote their byte
  REQUIRE(spinners.pids().size() == 2);
  const auto before = spinners.cpu_seconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto after = spinners.cpu_seconds();
  REQUIRE(before.size() == 2);
  REQUIRE(after.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    REQUIRE(before[i].has_value());
    REQUIRE(after[i].has_value());
    CHECK(*after[i] > *before[i]);  // spinning, not blocked
  }
  CHECK(spinners.exited().empty());
  // One killed from outside: seen, and stop() says the load was not there the whole time.
  ::kill(spinners.pids()[1], SIGKILL);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(spinners.exited() == std::vector<std::size_t>{1});
  CHECK_THROWS_AS(spinners.stop(), RunError);
}
