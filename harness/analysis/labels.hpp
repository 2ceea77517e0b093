// How clean each condition's room was, one rule for every command (harness/stats/README.md §3.6, §3.12).
// Numbers with different labels are never compared with each other. Pure.
#pragma once

#include <string>
#include <string_view>

#include "analysis/label.hpp"
#include "records/result.hpp"

namespace noisefloor::analysis {

// The label of one condition of a result, for an unpaired comparison (never CONTENDED-PAIRED),
// from what was measured over the condition (harness/stats/README.md §3.12), first that
// applies:
//  1. CONTENDED when the condition's record has spinners (its own load).
//  2. Run-queue evidence (analysis/accounting.hpp): CONTENDED when its benchmark was starved by
//     other work, MEASURED-clean when it was measured and not starved.
//  3. No evidence: the load readings taken after each block settled, judged by the doctor's load
//     rule (fingerprint::judge_load); CONTENDED when more than half of them say BAD.
//  4. Neither: the load read when the run started (results of older versions).
// UNKNOWN when nothing is recorded (a go test file). `reason` (optional) gets what it rests on
// (render::label_reason_text: "2 spinners", "its threads waited for a CPU 47% of the time they were
// runnable").
Label condition_label(const records::Result& result, const std::string& condition,
                      LabelReason* reason = nullptr);

}  // namespace noisefloor::analysis
