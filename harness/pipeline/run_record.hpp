// Inside the pipeline, pure: what one session of a run measured, made into the run's result (its
// run.json record, fingerprint, raw-file headers and samples), a resumed run's earlier sessions
// merged in. No file is read or written here: results::RunDirectory writes what this builds.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/experiment.hpp"
#include "records/fingerprint.hpp"
#include "records/result.hpp"
#include "runner/runner.hpp"

namespace noisefloor::pipeline {

// The noisefloor that measured, as the raw files and cv-summary.txt name it.
struct Producer {
  std::string version, commit;
};

// One session of a run, as it ended.
struct SessionOutcome {
  const model::Experiment& experiment;
  Producer producer;
  std::string run_id{};        // the result directory's name
  std::string directory{};     // where it is (the result's source)
  std::string host{};          // the host of a run on several, its label ("" = none: the run id)
  std::string command_line{};  // this session's
  std::string started{}, finished{};
  records::RunStatus status = records::RunStatus::complete;
  std::optional<std::string> error{};
  records::Fingerprint fingerprint{};               // this session's (a resumed run keeps its first)
  runner::Measured measured{};                      // the earlier sessions' samples included
  const records::Result* earlier = nullptr;         // run --resume: the run as its directory held it
  std::vector<std::string> host_differences{};      // accepted with --allow-different-hosts
  std::optional<records::Supersedes> supersedes{};  // run --supersedes (a resumed run keeps its first's)
};

// The run's result: run.json's record (every session of a resumed run, the first one included,
// its warnings first), the run's fingerprint (its first session's, finished now), each
// condition's raw-file header, and every sample.
records::Result build_run_record(SessionOutcome session);

// The `key: value` header of <condition>.txt: the condition and the facts that move benchmarks,
// readable by benchstat's -filter and -col.
records::GoTestConfig raw_config(const model::Experiment& e, const Producer& producer,
                                 const records::Fingerprint& fp, const model::Condition& c,
                                 const std::string& run_id);

// The keys of raw_config that set one condition apart: comments in <condition>.txt, so that
// `benchstat idle.txt noisy.txt pinned.txt` prints one table.
extern const std::set<std::string> kConditionKeys;

// The demo's cv-summary.txt header, with what the demo forgot: the platform is in it.
std::vector<std::string> summary_header(const model::Experiment& e, const Producer& producer,
                                        const records::Fingerprint& fp,
                                        const std::vector<records::Sample>& samples);

}  // namespace noisefloor::pipeline
