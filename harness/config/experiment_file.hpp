// Loading and validating experiment files (YAML). Pure: the caller reads the file and passes
// what it knows about the host, so validation is testable without a machine.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/experiment.hpp"

namespace noisefloor::config {

// What validation needs to know about the machine.
struct HostFacts {
  std::vector<int> online_cpus;  // /sys/devices/system/cpu/online (or the affinity mask)
  // What keeps a directory from being a working directory ("no such directory", "is a file, not
  // a directory", ...), or "" when it can be entered; unset: not checked (pure tests).
  std::function<std::string(const std::string& path)> directory_problem;
  // The same for a file or directory the benchmark reads ("does not exist", "cannot be read"), or
  // "" when it can be read; unset: not checked.
  std::function<std::string(const std::string& path)> input_problem;
  // Where a program named without a '/' is found on PATH (the experiment's env PATH when it sets
  // one, else noisefloor's own), or nullopt; unset: not looked up (pure tests).
  std::function<std::optional<std::string>(const std::string& program, const std::string& path_env)>
      find_program;
};

// Parses and validates an experiment. Validation is strict and complete before anything runs:
// unknown keys (with the closest valid key suggested), wrong types, counts out of range, CPU lists
// outside host.online_cpus, duplicate condition names, names unsafe as file names.
// Throws ConfigError whose what() is "file:line:col: message" (1-based).
model::Experiment parse_experiment(std::string_view yaml_text, std::string_view file_name,
                                   const HostFacts& host);

// Makes the experiment's relative paths absolute against `file_dir`, the absolute directory of
// its file (and benchmark.workdir under it): base_dir becomes file_dir, workdir is always set,
// and a program given as a relative path ("./bench", "../build/x") in command or build is
// resolved against the workdir. A run then does not depend on the directory it starts in.
void resolve_paths(model::Experiment& experiment, const std::string& file_dir);

// Every CPU the experiment pins something to (benchmark affinity, spinner CPUs, container
// cpusets), sorted and unique: what the doctor checks.
std::vector<int> pinned_cpus(const model::Experiment& experiment);

// Parses "1.5s", "10m", "250ms", "1h" or a bare number of seconds; nullopt when malformed.
std::optional<model::Seconds> parse_duration(std::string_view text);

// Parses Docker-style sizes: "512m", "1g", "64k", "1024b" or bare bytes (binary multiples).
std::optional<std::int64_t> parse_size(std::string_view text);

// True for names usable as a file or directory name on every platform: [A-Za-z0-9._-], not
// starting with '.' or '-', at most 64 characters.
bool is_safe_name(std::string_view name);

// The valid key closest to `key` (Levenshtein distance ≤ 3), or empty.
std::string closest_key(std::string_view key, const std::vector<std::string>& valid);

}  // namespace noisefloor::config
