// One result as every reading command sees it: a noisefloor result directory or a plain
// `go test -bench` output file, loaded into typed records (results/load.hpp does the loading).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/units.hpp"
#include "records/fingerprint.hpp"
#include "records/run.hpp"
#include "records/samples.hpp"

namespace noisefloor::records {

// `key: value` configuration lines of a raw Go benchmark file, in file order.
using GoTestConfig = std::vector<std::pair<std::string, std::string>>;

// A run that recorded `run --supersedes` of another: what replaced that run's figures.
struct Superseder {
  std::string path;  // its directory
  std::string run_id, experiment, started_utc;
};

struct Result {
  std::string
      label;  // the result directory's name (the run id unless renamed), or the file name without extension
  std::string source;  // the directory (resolved through `latest`) or the file, as a path
  bool go_test_file = false;
  std::optional<RunRecord> run;         // run.json; nullopt for a go test file (or a result without one)
  Fingerprint fingerprint;              // fingerprint.json; a go test file's header in `gotest`
  Samples samples;                      // warm-up included, in arrival order (stored by column)
  std::vector<std::string> conditions;  // display order: run.json's, then any others first seen
  std::map<std::string, GoTestConfig> gotest_config;  // per condition: <condition>.txt's header
  std::vector<RunWarning> warnings;                   // from loading, e.g. a torn last line
  // The runs beside it that recorded superseding it (oldest first), when the reader looked
  // (results::superseders): every reader says so first.
  std::vector<Superseder> superseded_by;
  // `Unit` metadata lines of a go test file, or the ones the benchmark printed (run.json).
  model::UnitMetadata units;

  // The experiment's name ("" when unknown), its description and comparison settings, as the
  // run recorded them.
  std::string experiment() const;
  std::string description() const;
  std::optional<ComparisonSettings> comparison() const;
};

}  // namespace noisefloor::records
