// The fuzz targets (tests/fuzz/README.md). Each is one function, built twice: as a libFuzzer
// binary (entry.cpp, clang, `make fuzz`) and into nf-fuzz-replay, which runs the kept corpus in
// every build (CTest `fuzz_corpus`, under ASan+UBSan too with SANITIZE=1). Every target feeds one
// parser bytes it must survive: returning normally or throwing noisefloor::Error (the message a user would
// see) are the only acceptable outcomes. Anything else — a crash, a sanitizer report, another exception type
// escaping (std::terminate), a hang — is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "model/errors.hpp"

namespace noisefloor::fuzz {

using Target = int (*)(const std::uint8_t* data, std::size_t size);

int experiment(const std::uint8_t* data, std::size_t size);  // config::parse_experiment
int gotest(const std::uint8_t* data, std::size_t size);      // parsers::parse_gotest
int gbench(const std::uint8_t* data, std::size_t size);      // parsers::parse_gbench_json
int demux(const std::uint8_t* data, std::size_t size);       // docker::LogDemuxer
int probe(const std::uint8_t* data, std::size_t size);       // probe::parse_probe_report
int results(const std::uint8_t* data, std::size_t size);     // results::decode_result, analysis
int claims(const std::uint8_t* data, std::size_t size);      // parsers::parse_published, claims
int engine(const std::uint8_t* data, std::size_t size);      // a Docker engine's answers
int errata(const std::uint8_t* data, std::size_t size);      // analysis::find_quotations, apply_corrections
int tree(const std::uint8_t* data, std::size_t size);        // the reading commands on a results tree
int archive(const std::uint8_t* data, std::size_t size);     // store::unpack, an upload to the store

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Runs `parse`; a noisefloor::Error is an accepted answer to bad input.
template <class F>
void survive(F&& parse) {
  try {
    parse();
  } catch (const noisefloor::Error&) {
  }
}

}  // namespace noisefloor::fuzz
