// The JSON documents of a results directory as text: what a run writes (run.json, fingerprint.json,
// fleet.json, a line of samples.jsonl) and how a reader decodes them. Pure: results/ reads and
// writes the files. A results directory is not trusted: every string read, object keys too, is
// written out as names are (text::name_safe), so no field (a unit, a header line, a time, a fact
// of the host) prints a line, a colour or a verdict of its own wherever it is shown.
#pragma once

#include <string>
#include <string_view>

#include "records/fleet.hpp"
#include "records/run.hpp"
#include "records/sample.hpp"

namespace noisefloor::records {

// Written: indented documents ending in a newline; a sample as one line without it.
std::string document_text(const RunRecord& run);
std::string document_text(const Fingerprint& fingerprint);
std::string document_text(const FleetRecord& fleet);
std::string sample_line(const Sample& sample);

// run.json or fingerprint.json of the file `file` (for messages). Throws InputError "<file>: <what>
// (restore the file, or remove it: the samples are read without it)", or "<file>: <what>" for a
// newer schema than this noisefloor reads.
RunRecord run_from_text(const std::string& text, const std::string& file);
Fingerprint fingerprint_from_text(const std::string& text, const std::string& file);
// fleet.json. Throws Error (the JSON library's message, made plain) on what is not one.
FleetRecord fleet_from_text(const std::string& text);
// A line of samples.jsonl that is not a sample: why, in the JSON library's words made plain, and
// where the line is not JSON (its column, 1-based), 0 when it is JSON but not a sample.
class SampleLineError : public ParseError {
 public:
  SampleLineError(const std::string& why, std::size_t column) : ParseError(why), column(column) {}
  std::size_t column;
};
// One line of samples.jsonl. Throws SampleLineError on what is not one.
Sample sample_from_line(std::string_view line);
// run.json's "status", "unknown" when it has none. Throws Error when it is not JSON.
std::string run_status_from_text(const std::string& text);

// What results written by 0.1 kept only in summary.json (the experiment's description and file,
// the comparison settings, the adaptive outcomes), filled into what `run` leaves empty. A
// summary.json that is not what 0.1 wrote is passed over: every number is recomputed anyway.
void fill_from_summary(RunRecord& run, const std::string& summary_text);

// A JSON library's message as a user reads it: without its "[json.exception.type_error.302] "
// tags and "syntax error while parsing value - " preambles.
std::string plain_json_message(std::string message);

}  // namespace noisefloor::records
