// Inside the pipeline: the A/B gate at git refs (`run --base`; README: Is my change faster?).
// Before the run its two sides are resolved, checked out and built through the build cache;
// after it the verdicts are written where a CI job finds them. Not for other modules.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "analysis/analysis.hpp"
#include "git/cache.hpp"
#include "git/git.hpp"
#include "model/experiment.hpp"
#include "pipeline/commands.hpp"
#include "plan/plan.hpp"
#include "records/fingerprint.hpp"
#include "render/gate.hpp"
#include "results/directory.hpp"

namespace noisefloor::pipeline {

// Turns `e` (paths resolved) into the gate `o` asks for: variants "base" and "head", each with
// the benchmark's command and workdir re-rooted into its own checkout and built there (or found
// built in the cache), the gate's settings, and its adaptive repeats. Returns the sides as the
// fingerprint records them. ConfigError (exit 2) for what the user can fix before anything runs
// (not a repository, an unknown ref, a dirty --head HEAD, variants already in the file); RunError
// (exit 1) with the build's output when a side does not build.
struct PreparedGate {
  records::RunFacts::Gate facts;
  std::vector<git::BuildCache::Entry> entries;  // the sides' cache entries, locked while the gate runs
  model::Variant build_side(const model::Experiment& e, const git::Repo& repo, model::GateSide& side,
                            const std::string& role, const std::string& toolchain, RunEvents& events,
                            const Cancelled& cancelled);
};
PreparedGate prepare_gate(model::Experiment& e, const RunOptions& o, RunEvents& events,
                          const Cancelled& cancelled);

// The question the Scheduler asks once block 1 is done: which benchmarks it calls slower.
plan::Scheduler::Flagged gate_confirmation(const model::Experiment& e);

// The sides and the room of a gate's analysis, as its renderings name them (empty when `a` is not
// a gate): what `cv` of a gate run shows beside the verdicts.
render::GateContext gate_context(const analysis::Analysis& a);

// After a completed gate: the verdicts on the terminal (in `out`), gate.md, gate.json and
// junit.xml in the run directory (and where --comment and --junit say), the job summary
// ($GITHUB_STEP_SUMMARY) and annotations (GITHUB_ACTIONS=true); status 4 when a regression is
// confirmed. `sides_in_file`: the experiment names the sides (ref:, worktree:), so the command
// that reproduces the gate names no --base.
void conclude_gate(Output& out, const analysis::Analysis& a, const model::Experiment& e, const RunOptions& o,
                   bool sides_in_file, results::RunDirectory& dir, double seconds);

}  // namespace noisefloor::pipeline
