// The unit-test binary: pure modules only (it links noisefloor_core, never the I/O edges).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
