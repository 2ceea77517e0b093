#include "pipeline/build.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>

#include "model/errors.hpp"
#include "process/process.hpp"
#include "text/text.hpp"

namespace noisefloor::pipeline {

void build(const model::Experiment& e, RunEvents& events, const Cancelled& cancelled) {
  if (e.benchmark.build.empty()) return;
  events.note(fmt::format("build: {}", fmt::join(e.benchmark.build, " ")));
  process::Spec spec;
  spec.argv = e.benchmark.build;
  spec.env = e.benchmark.env;
  spec.workdir = e.benchmark.workdir;
  spec.timeout = std::chrono::minutes(30);
  const process::Result r = process::run(spec, nullptr, cancelled);
  if (r.timed_out || r.signal || r.exit_code != 0)
    throw RunError(
        fmt::format("the build step failed ({})", r.timed_out ? "timed out"
                                                  : r.signal  ? fmt::format("killed by signal {}", *r.signal)
                                                              : fmt::format("exit code {}", r.exit_code)),
        text::last_lines(r.out + r.err, 15, "its output"));
}

}  // namespace noisefloor::pipeline
