// The I/O test binary: real processes and the real Docker engine.
//
// Docker tests carry "docker" in their test-case names. When no engine answers, they are
// excluded: outside CI the binary runs the rest and exits 77 (CTest SKIP_RETURN_CODE) if the rest
// passed; with CI=true it fails at once, since CI must have an engine. After the tests, every
// container labelled noisefloor.test=1 must be gone; leftovers are removed and fail the run. A test
// case that calls testing::skip (skip.hpp) makes a run that passed exit 77.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "docker/client.hpp"
#include "docker/container.hpp"
#include "process/process.hpp"
#include "skip.hpp"

namespace noisefloor::testing {

namespace {
std::string skipped;  // why the last skipped test case could not run; empty when none did
}  // namespace

void skip(const std::string& reason) {
  std::printf("skipped: %s\n", reason.c_str());
  skipped = reason;
}

}  // namespace noisefloor::testing

namespace {

bool engine_answers(std::string& why) {
  try {
    noisefloor::docker::Client::from_environment().ping();
    return true;
  } catch (const std::exception& e) {
    why = e.what();
    return false;
  }
}

}  // namespace

int main(int argc, char** argv) {
  // Spinners re-execute the running binary (process::SpinnerSet): this one spins too.
  if (argc == 3 && std::string(argv[1]) == "__spin") noisefloor::process::spin_forever(std::stoi(argv[2]));
  doctest::Context context(argc, argv);
  std::string why;
  if (!engine_answers(why)) {
    const char* ci = std::getenv("CI");
    if (ci && std::string(ci) == "true") {
      std::fprintf(stderr, "docker integration tests cannot run (CI=true): %s\n", why.c_str());
      return 1;
    }
    std::printf("docker integration tests skipped: %s\n", why.c_str());
    context.addFilter("test-case-exclude", "*docker*");
    const int rc = context.run();
    if (context.shouldExit() || rc != 0) return rc;
    return 77;
  }
  int rc = context.run();
  if (context.shouldExit()) return rc;
  try {
    auto client = noisefloor::docker::Client::from_environment();
    const auto leftovers = noisefloor::docker::remove_labelled(client, "noisefloor.test=1");
    for (const auto& c : leftovers) {
      std::fprintf(stderr, "test container left behind (now removed): %s\n", c.c_str());
    }
    if (!leftovers.empty() && rc == 0) rc = 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cannot check for leftover test containers: %s\n", e.what());
    if (rc == 0) rc = 1;
  }
  if (rc == 0 && !noisefloor::testing::skipped.empty()) return 77;
  return rc;
}
