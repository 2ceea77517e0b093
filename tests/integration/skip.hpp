// A test case that cannot run here says why and returns: the I/O test binary then exits 77
// (CTest SKIP_RETURN_CODE) when nothing failed, so `ctest` shows it as Skipped, not Passed. Only
// for a test case that CTest runs on its own (tests/tests.cmake): in the `io` entry, a skip would
// hide every other result.
#pragma once

#include <string>

namespace noisefloor::testing {

void skip(const std::string& reason);  // defined in tests/integration/main.cpp

}  // namespace noisefloor::testing
