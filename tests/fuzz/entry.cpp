// libFuzzer's entry point for one target, named at compile time (tests/fuzz/fuzz.cmake).
#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return noisefloor::fuzz::NF_FUZZ_TARGET(data, size);
}
