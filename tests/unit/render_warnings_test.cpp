// render/warnings: a run's typed warnings, each kind in its sentence (what the run prints under
// its table and what run.json's readers show).
#include <doctest/doctest.h>

#include <string>

#include "records/run.hpp"
#include "render/warnings.hpp"

using namespace noisefloor;

TEST_CASE("render: a run's warnings, each kind in its sentence, the invocation named as the run counts it") {
  using K = records::RunWarningKind;
  CHECK(render::run_warning_text({.kind = K::benchmark_failed,
                                  .condition = "busy",
                                  .invocation = 3,
                                  .invocations = 10,
                                  .benchmark = "BenchmarkX"}) ==
        "condition 'busy', run 3 of 10: benchmark BenchmarkX failed");
  // samples: auto knows no count in advance; a paired experiment counts a variant's repeats.
  CHECK(render::run_warning_text({.kind = K::benchmark_error,
                                  .condition = "idle",
                                  .invocation = 7,
                                  .detail = "BM_X: skipped: no such file"}) ==
        "condition 'idle', run 7: BM_X: skipped: no such file");
  CHECK(render::run_warning_text({.kind = K::benchmark_error,
                                  .condition = "idle",
                                  .variant = "fast",
                                  .invocation = 2,
                                  .detail = "BM_X: error"}) ==
        "condition 'idle', variant 'fast', repeat 2: BM_X: error");
  CHECK(render::run_warning_text({.kind = K::non_finite_metric,
                                  .condition = "idle",
                                  .benchmark = "BM_X",
                                  .unit = "hit_ratio",
                                  .detail = "nan"}) ==
        "condition 'idle': BM_X reported nan hit_ratio: kept as not a number (only the primary metric must "
        "be finite)");
  CHECK(render::run_warning_text({.kind = K::paused_timing, .benchmark = "BM_Paused"}) ==
        "BM_Paused calls PauseTiming in its timed loop: its simulated counts include the paused code, which "
        "its "
        "timer leaves out");
  CHECK(render::run_warning_text(
            {.kind = K::resumed_elsewhere, .detail = "kernel.release: 6.1 then, 6.2 now"}) ==
        "resumed on another host: kernel.release: 6.1 then, 6.2 now");
  CHECK(
      render::run_warning_text({.kind = K::claims_not_judged, .detail = "cv(nosuch): no condition nosuch"}) ==
      "the recorded claims are not judged: cv(nosuch): no condition nosuch");
  CHECK(render::run_warning_text({.kind = K::container_left, .detail = "engine gone", .container = "4f2a"}) ==
        "container 4f2a: not removed (engine gone); `noisefloor gc` removes what noisefloor left behind");
  CHECK(render::run_warning_text({.kind = K::container_late, .container = "4f2a"}) ==
        "container 4f2a: the first removal failed; removed at the end of the run");
  // The kinds whose words are their source's: said as the source said them (a container_left of
  // a run.json that held the sentence included).
  for (const K kind : {K::output_note, K::unit_conflict, K::container_left, K::other})
    CHECK(render::run_warning_text({.kind = kind, .detail = "as it was said"}) == "as it was said");
}

TEST_CASE("render: a warning about a file names it, and its line when it has one") {
  using K = records::RunWarningKind;
  CHECK(render::run_warning_text({.kind = K::torn_last_line, .file = "r/1/samples.jsonl", .line = 54}) ==
        "r/1/samples.jsonl:54: ignored a torn last line");
  CHECK(render::run_warning_text({.kind = K::no_samples, .file = "r/1/samples.jsonl"}) ==
        "r/1/samples.jsonl: no samples (the run stopped before its first sample, or they were removed)");
  CHECK(render::run_warning_text({.kind = K::unit_conflict,
                                  .detail = "ns/op: better=lower, then higher",
                                  .file = "old.txt",
                                  .line = 3}) == "old.txt:3: ns/op: better=lower, then higher");
  CHECK(render::run_warning_text({.kind = K::several_hosts, .file = "results/x/run2"}) ==
        "results/x/run2: a run on several hosts: history reads one-host runs (skipped)");
  CHECK(render::run_warning_text({.kind = K::skipped, .detail = "results/x/run3/run.json: not JSON"}) ==
        "results/x/run3/run.json: not JSON (skipped)");
  // A history names the run first (analysis::Warning's source).
  CHECK(render::warning_text({.source = "run3", .what = {.kind = K::no_samples, .file = "s.jsonl"}}) ==
        "run3: s.jsonl: no samples (the run stopped before its first sample, or they were removed)");
}

TEST_CASE("render: a host of a run on several hosts that left no results, with how its run ended") {
  records::FleetHost h;
  h.name = "quiet-box";
  h.status = records::RunStatus::failed;
  h.error = "cannot reach the engine";
  CHECK(render::missing_host_text(h) == "quiet-box: no results (failed: cannot reach the engine)");
  h.status = records::RunStatus::interrupted;
  h.error.reset();
  CHECK(render::missing_host_text(h) == "quiet-box: no results (interrupted)");
}
