// process/: the benchmark's accounting from the process that waits for it, and spinners that
// report that they spin and how much CPU they get. Real processes; figures checked against
// workloads whose cost is known by construction (nf-burn, sleep), with bounds in one direction
// only where the machine's load could move them.
#include "process/process.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <thread>
#include <vector>

#include "model/errors.hpp"

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
  // "Next to no CPU" is judged against a process of this machine that burns 0.2 s of it.
  const process::Result burn = run({NF_BURN, "0.2"});
  const process::Result r = run({"sleep", "0.2"});
  CHECK(r.exit_code == 0);
  CHECK(r.usage.wall_seconds >= 0.2);
  CHECK(r.usage.cpu_seconds() < 0.25 * burn.usage.cpu_seconds());
  CHECK(r.usage.voluntary_switches >= 1);  // it blocked
  CHECK(r.usage.max_rss_kib > 0);
}

TEST_CASE("process: CPU time comes from wait4 and covers the children the benchmark waited for") {
  // nf-burn 0.2 2: itself and two children, 0.2 s of CPU each, by construction. What one such
  // process costs beyond its 0.2 s (start-up, exit) is this machine's, so it is measured here, by
  // a lone nf-burn 0.2: three of them cost about three times that. A child counted twice would
  // add at least 0.2 s, more than the half of one process this allows.
  const process::Result one = run({NF_BURN, "0.2"});
  const process::Result r = run({NF_BURN, "0.2", "2"});
  CHECK(one.exit_code == 0);
  CHECK(r.exit_code == 0);
  CHECK(one.usage.cpu_seconds() >= 0.2);
  CHECK(r.usage.cpu_seconds() >= 0.6);
  CHECK(r.usage.cpu_seconds() < 3.5 * one.usage.cpu_seconds());
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

TEST_CASE("process: output reaches noisefloor through pipes, all of it, stdout line by line") {
  // 3 MB on stdout and 1 MB on stderr: more than either pipe holds, so the child blocks unless
  // noisefloor reads both while it runs.
  process::Spec spec;
  spec.argv = {"sh", "-c", "head -c 1000000 /dev/zero | tr '\\0' e >&2; seq 1 400000; printf tail"};
  std::vector<std::string> lines;
  const process::Result r = process::run(
      spec, [&](std::string_view line) { lines.emplace_back(line); }, nullptr);
  CHECK(r.exit_code == 0);
  CHECK(r.err.size() == 1000000);
  REQUIRE(lines.size() == 400001);
  CHECK(lines.front() == "1");
  CHECK(lines[399999] == "400000");
  CHECK(lines.back() == "tail");       // the unterminated last line, once the child has exited
  CHECK(r.out.size() == 2688895 + 4);  // seq 1 400000 | wc -c, and "tail"
}

TEST_CASE(
    "process: a working directory that cannot be entered is an error that says so, not the current one") {
  process::Spec spec;
  spec.argv = {"true"};
  spec.workdir = "/nonexistent/noisefloor-workdir";
  CHECK_THROWS_WITH_AS(
      process::run(spec, nullptr, nullptr),
      "cannot start true: its working directory /nonexistent/noisefloor-workdir: No such file or "
      "directory",
      RunError);
  spec.workdir = "/tmp";
  spec.argv = {"pwd"};
  CHECK(process::run(spec, nullptr, nullptr).out == "/tmp\n");
}

TEST_CASE("process: a program that cannot be executed is an error naming the reason") {
  process::Spec spec;
  spec.argv = {"/tmp"};  // exists, a directory
  CHECK_THROWS_WITH_AS(process::run(spec, nullptr, nullptr), "cannot start /tmp: execve: Permission denied",
                       RunError);
}

TEST_CASE("process: a descendant that left the group and holds the output does not hold the run") {
  // setsid puts the sleeper in a session (and group) of its own, out of reach of the group kill.
  // Its copy of stdout keeps the pipe open: the run ends anyway, with what was written.
  process::Spec spec;
  spec.argv = {"sh", "-c", "setsid sleep 20 & echo $!"};
  const process::Result r = process::run(spec, nullptr, nullptr);
  CHECK(r.exit_code == 0);
  const int sleeper = std::atoi(r.out.c_str());
  REQUIRE(sleeper > 0);
  CHECK(::kill(sleeper, 0) == 0);  // still alive: it was out of the group's reach
  ::kill(sleeper, SIGKILL);
}

TEST_CASE("process: a stop request wakes the wait at once (the stop pipe), and the child is killed") {
  process::arm_stop_notifications();
  std::atomic<bool> stop{false};
  process::Spec spec;
  spec.argv = {"sleep", "30"};
  std::thread requester([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    stop = true;
    process::notify_stop();
  });
  CHECK_THROWS_AS(process::run(spec, nullptr, [&] { return stop.load(); }), Interrupted);
  requester.join();
  // The pipe stays readable (a stop is for good); a caller whose `cancelled` says no is not
  // woken into a busy loop and still runs to the end.
  spec.argv = {"sleep", "0.3"};
  const process::Result r = process::run(spec, nullptr, [] { return false; });
  CHECK(r.exit_code == 0);
  CHECK(r.usage.wall_seconds >= 0.3);
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
  // How soon the kernel ends it depends on the machine's load: waited for, up to 10 s.
  ::kill(spinners.pids()[1], SIGKILL);
  for (int i = 0; i < 100 && spinners.exited().empty(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(spinners.exited() == std::vector<std::size_t>{1});
  CHECK_THROWS_AS(spinners.stop(), RunError);
}

TEST_CASE("process: stopped spinners are reaped at once, not left as zombies until the run ends") {
  model::SpinnerSpec spec;
  spec.count = 2;
  std::vector<int> pids;
  {
    process::SpinnerSet spinners(spec);
    pids = spinners.pids();
    spinners.stop();
    // Gone from the process table the moment stop() returns: no "<defunct>" beside the next
    // condition's spinners.
    for (const int pid : pids) {
      CAPTURE(pid);
      CHECK_FALSE(std::filesystem::exists(fmt::format("/proc/{}", pid)));
    }
  }
  process::SpinnerSet again(spec);
  pids = again.pids();
}  // the destructor reaps too
