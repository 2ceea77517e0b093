// Reader of the file `valgrind --tool=cachegrind --cachegrind-out-file=F` writes (Valgrind 3.x:
// `desc:` lines, `cmd:`, `events:` naming the columns, per-line counts, and one `summary:` line
// of the whole program's totals, in the order of `events:`). Only `events:` and `summary:` are
// read. Pure: text in, counts out.
#pragma once

#include <string>
#include <string_view>

#include "model/simulation.hpp"

namespace noisefloor::parsers {

// The program's totals. Throws ParseError ("cachegrind output: ...") when there is no events: or
// summary: line, when they disagree in length, when a count is not a whole number, or when an
// event the counts need (Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw: --cache-sim=yes) is absent.
model::CacheEvents parse_cachegrind_out(std::string_view text);

// One dump of `valgrind --tool=callgrind --cache-sim=yes` (out_file, out_file.1, …): what
// triggered it (`desc: Trigger:`, e.g. "--dump-before=benchmark::State::FinishKeepRunning()" or
// "Program termination") and the counts since the dump before it (`summary:`; callgrind leaves out
// trailing zero counts, which are read as 0). Throws ParseError ("callgrind output: ...") as above,
// and when a dump names no trigger.
struct CallgrindDump {
  std::string trigger;
  model::CacheEvents events;
};
CallgrindDump parse_callgrind_dump(std::string_view text);

}  // namespace noisefloor::parsers
