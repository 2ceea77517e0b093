// What the store (store/, `noisefloor serve`) keeps of a published run and answers about it:
// plain values, with the JSON of the API's answers (GET /api/v1/runs, a publish's answer).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace noisefloor::records {

// A machine of the store: the facts that identify it (store/machine.hpp says which) and their digest.
struct Machine {
  // The facts in their documented order (kMachineFacts), each as "name", "value".
  std::vector<std::pair<std::string, std::string>> facts;
  std::string id;  // the first 16 hex digits of the SHA-256 of the facts, one "name=value\n" each

  std::string fact(const std::string& name) const;  // "unknown" when absent
};

// One row of the run's table as the server recomputed it from the samples (primary metric only).
struct StoredRow {
  std::string condition, benchmark, unit;
  std::int64_t n = 0;
  double mean = 0, median = 0;
  std::optional<double> cv_pct;  // none when n < 2 or the mean is not positive
};
struct StoredClaim {
  std::string claim;
  std::string verdict;  // the name of its claims::Verdict, as the database keeps it
};

// A gate run's outcome, as the store keeps it (runs.gate_verdict: its name).
enum class GateOutcome : std::uint8_t { none, regression, no_regression };

constexpr std::array<std::pair<GateOutcome, std::string_view>, 3> names(GateOutcome) {
  return {{{GateOutcome::none, ""},
           {GateOutcome::regression, "regression"},
           {GateOutcome::no_regression, "no regression"}}};
}

// A published run: what the page and the listing read, the upload kept whole beside it.
struct StoredRun {
  std::string id;  // the SHA-256 of the upload's files (names and contents): the same run is one id
  std::string experiment, run_id, started_utc, finished_utc, status;
  std::string engine;   // the engine's name and version ("Docker 24.0.7", "Podman 4.3.1") or "none"
  std::string version;  // noisefloor's, as the run recorded it
  std::string gate;     // a gate run: "<base commit>..<head commit>" ("" otherwise)
  GateOutcome gate_verdict = GateOutcome::none;
  Machine machine;
  std::vector<StoredRow> rows;
  std::vector<StoredClaim> claims;
  std::string archive;  // the upload as sent (gzip'd tar)
};

// The listing of a run (GET /api/v1/runs), without its rows.
struct RunListing {
  std::string id, experiment, machine, run_id, started_utc, status, engine, published_utc;
};
struct RunFilter {
  std::string experiment, machine;  // "" for any
  std::size_t limit = 100;
  std::string id;  // one run's id; "" for any
};

// One condition × benchmark of one run, with the run's machine: the page's unit.
struct CvPoint {
  std::string run, machine, started_utc, condition, benchmark, unit, engine;
  std::int64_t n = 0;
  double median = 0;
  std::optional<double> cv_pct;
};

struct ClaimVerdict {
  std::string run, machine, claim, verdict;  // verdict: the name of its claims::Verdict
};
struct GateResult {
  std::string run, machine, started_utc, gate;
  GateOutcome verdict = GateOutcome::none;
};

// An experiment on the store's first page.
struct ExperimentCount {
  std::string name;
  std::int64_t runs = 0, machines = 0;
};

// What the server answers a publish: the run's id, and whether this upload stored it (false: the
// same content was published before, as `id`).
struct PublishAnswer {
  std::string id;
  bool created = false;
  std::string experiment, run_id;  // as the run recorded them
  std::string page;                // the experiment's page, a path on the server
};

// The API's JSON (records/store.cpp has the fields): the listing, {"runs": [{"id", "experiment",
// "machine", "run_id", "started_utc", "status", "engine", "published_utc"}]}; a publish's answer,
// {"id", "created", "experiment", "run_id", "page"}; an error, {"error"}.
std::string runs_json(const std::vector<RunListing>& runs);
std::string publish_json(const PublishAnswer& answer);
std::string error_json(const std::string& message);  // {"error": message}
// A publish's answer, or the server's error message when the body is {"error": ...}; throws
// ParseError when the body is neither.
PublishAnswer parse_publish_answer(const std::string& body, std::string* error);

}  // namespace noisefloor::records
