// The room for a terminal: the doctor's findings, the whole fingerprint, and the few facts a run
// prints above its progress. Pure; the caller decides on colour (a terminal and no NO_COLOR).
#pragma once

#include <cstddef>
#include <string>

#include "fingerprint/doctor.hpp"
#include "records/fingerprint.hpp"

namespace noisefloor::render {

// Text width the doctor and fingerprint views wrap and shorten to.
inline constexpr std::size_t kRenderWidth = 100;

// One block per finding, blank line between blocks:
//   WARN  governor
//         <message, word-wrapped at kRenderWidth, indented 6>
//         fix: <fix, never wrapped, so it can be copied>      (only when there is a fix)
// then the grade block:
//   grade: limited (6 OK, 7 WARN, 0 BAD)
//     WARN turbo: <message, shortened to one line of kRenderWidth with "…">
// one line per finding that lowered the grade, in finding order ("ready" has none).
// With color, levels and the grade are wrapped in ANSI SGR codes (OK and ready green, WARN and
// limited yellow, BAD and not ready red; "grade:" bold); without, the text has no escape at all.
std::string doctor(const fingerprint::DoctorReport& report, bool color);

// A fingerprint (`noisefloor fingerprint`) for reading in a terminal. The top-level groups
// "noisefloor", "run", "host", "toolchain", "env", "benchmark_env", "engine", "tuning", "doctor"
// come first in that order, any others after them; inside a group, keys are in JSON
// (alphabetical) order. A group is a heading, its members indented by two; every value starts in
// one column (the longest indented key + 2, at most 40). Values: strings as is ("" shows as
// "(empty)"), booleans "yes"/"no", an unknown fact "unknown (<reason>)", a fact's "evidence" or
// "note" appended in parentheses, a per-CPU object as "0-3: performance, 4-7: powersave", a list
// of plain values comma-joined ("(none)" when empty), a list of objects as one "- k=v k=v" line
// per element. An "engine" that is an unknown fact reads "no engine: <reason>"; a "tuning" that is
// null reads "none applied", a tuning state (fingerprint/tune.hpp) shows its other keys, then
// "changes  <count>" and one "- <setting>: <file>: <before> -> <after>" line per change.
std::string fingerprint_view(const records::Fingerprint& fingerprint);

// The lines a run prints above its progress: host, system, toolchain, the doctor's grade and the
// room's noise profile.
std::string key_facts(const records::Fingerprint& fingerprint);

// How the room moved between two runs' noise profiles: "room noisier: loop CV 0.30% → 1.71%,
// steal …", "room quieter: …"; "" when it did not clearly change.
std::string noise_change_text(const fingerprint::NoiseChange& change);

}  // namespace noisefloor::render
