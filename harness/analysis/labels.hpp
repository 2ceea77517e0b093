// How clean each condition's room was, one rule for every command (harness/stats/README.md §3.6).
// Numbers with different labels are never compared with each other. Pure.
#pragma once

#include <string>
#include <string_view>

#include "records/result.hpp"

namespace noisefloor::analysis {

// MEASURED-clean: no load and a doctor grade of ready or limited; CONTENDED-PAIRED: load
// present, paired design; CONTENDED: load present, not paired; UNKNOWN: nothing recorded (a go
// test file).
enum class Label { measured_clean, contended_paired, contended, unknown };
std::string_view to_string(Label label);  // "MEASURED-clean", "CONTENDED-PAIRED", "CONTENDED", "UNKNOWN"

inline constexpr const char* kMeasuredClean = "MEASURED-clean";
inline constexpr const char* kContendedPaired = "CONTENDED-PAIRED";
inline constexpr const char* kContended = "CONTENDED";

// The label of one condition of a result, for an unpaired comparison (never CONTENDED-PAIRED):
// CONTENDED when the condition's record has spinners, or when the load rule
// (fingerprint::judge_load, the doctor's) says BAD for the load read when the run started.
// MEASURED-clean when none of this, and the run recorded the condition or the fingerprint
// recorded the load; UNKNOWN when nothing is recorded. `reason` (optional) says why, e.g.
// "2 spinners" or the rule's reading.
Label condition_label(const records::Result& result, const std::string& condition, std::string* reason = nullptr);

}  // namespace noisefloor::analysis
