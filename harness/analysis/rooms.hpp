// Rooms: the differences between two fingerprints (e.g. the runs behind two result tables). Pure.
//
// The two fingerprints are compared as recorded (fingerprint.json): both documents are walked
// together; a leaf is a fact (fingerprint/facts.hpp), a non-object, or an array (compared whole). Field names
// are the '.'-joined path without the fact's "value"
// ("host.cpu.model_name"). A side shows the value (strings unquoted, other JSON compact),
// "unknown (<reason>)" for an unknown fact, or "(absent)".
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "records/fingerprint.hpp"

namespace noisefloor::analysis {

struct Difference {
  std::string field;  // "host.cpu.model_name"
  std::string a, b;
  bool moves_benchmarks;
};

// Paths whose difference can move benchmark results. "x.*" matches x and everything below it.
// The container limits read back are in run.json, not here. The images made from the benchmark
// (engine.images) are not room facts: they follow the binary, whose hash is one. A fact recorded
// of the engine recorded on one side only (a run that never asked the engine) lists as a
// difference that does not move.
inline constexpr std::string_view kBenchmarkMovingFields[] = {
    "host.cpu.vendor",
    "host.cpu.model_name",
    "host.cpu.family",
    "host.cpu.model",
    "host.cpu.logical",
    "host.kernel.release",
    "host.frequency.driver",
    "host.frequency.governor",
    "host.frequency.turbo",
    "host.frequency.max_khz",
    "host.smt.active",
    "host.isolation.isolated",
    "host.virtualization.virtual",
    "host.virtualization.hypervisor",
    "toolchain.go.version",
    "toolchain.binary.go.go_version",
    "toolchain.binary.sha256",
    "engine.server_version",
    "engine.cgroup_version",
    "env.GOMAXPROCS",
    "env.GOGC",
    "env.GOMEMLIMIT",
    "env.GODEBUG",
    "env.GOAMD64",
    "benchmark_env.*",
};

// Leaves that change on every probe and say nothing about the room: never reported.
inline constexpr std::string_view kVolatileFields[] = {
    "host.load.*",     "host.frequency.cur_khz.*", "host.memory.swap_free_kb",
    "run.started_utc", "run.finished_utc",         "run.run_id",
};

// Every differing leaf, those that move benchmarks first, each group in path order. A node that
// changed shape (a group on one side, an unknown fact on the other) is one difference, which
// moves benchmarks when a benchmark-moving field lies below it.
std::vector<Difference> differences(const records::Fingerprint& a, const records::Fingerprint& b);

// The leaves of one fingerprint that move benchmarks (kBenchmarkMovingFields, volatile fields
// left out), in path order: {field, its comparable content as compact JSON} (a fact's value, or
// {"unknown": reason}). Two fingerprints with the same list have no benchmark-moving difference.
std::vector<std::pair<std::string, std::string>> benchmark_moving_facts(
    const records::Fingerprint& fingerprint);

}  // namespace noisefloor::analysis
