// Why the numbers moved, in words (analysis/diagnosis.hpp measures it): each condition's factors
// against the first condition's, and within each condition the factor that goes with the spread of
// its invocations, or why none does. Pure.
#pragma once

#include <string>
#include <vector>

#include "analysis/diagnosis.hpp"

namespace noisefloor::render {

// "busy against idle, per invocation (median): time waiting for a CPU 25.3 ms (48% of its wall
// time) against 0.12 ms (0.2%)", or "...: no recorded factor differs from idle by 3× or more".
std::string contrast_text(const analysis::Contrast& contrast);

// "idle / BenchmarkX: its slower invocations had more time waiting for a CPU (Spearman ρ = +0.81,
// ...)", that none did, or why the condition was not ranked; "" when nothing was tried and nothing
// says why.
std::string within_text(const analysis::ConditionDiagnosis& condition);

// Why a condition was not ranked: "its 20 samples came from one invocation, ...", "5 invocations
// (at least 6 are needed to rank them)".
std::string untested_text(const analysis::Untested& untested);

// What the counters lacked, a line each, as the table shows them above it: "not counted in busy:
// instructions, cycles: <run.json's reason>", "not counted: no counter: ...", "condition 'x':
// <multiplexed note>", and that they counted user space only.
std::vector<std::string> missing_lines(const analysis::CountersMissing& missing);

// Every sentence, as the table shows them: the contrasts, then each condition's within.
std::vector<std::string> diagnosis_lines(const analysis::Diagnosis& diagnosis);

}  // namespace noisefloor::render
