// `noisefloor publish`: a finished run directory sent to a store (libcurl). I/O edge.
#pragma once

#include <filesystem>
#include <string>

#include "records/store.hpp"

namespace noisefloor::store {

// The files of a finished run directory as publish sends them: samples.jsonl, run.json,
// fingerprint.json and summary.json, with the reports beside them when present (report.html,
// table.md, cv-summary.txt, the per-condition .txt files, experiment.yaml). Throws InputError naming
// what is missing when `dir` is no finished run.
std::string pack_run(const std::filesystem::path& dir);

// POSTs `archive` to <url>/api/v1/runs with the key; the server's answer, or RunError with the
// server's own reason (and its HTTP status) when it refused or could not be reached.
records::PublishAnswer publish(const std::string& url, const std::string& key, const std::string& archive);

}  // namespace noisefloor::store
