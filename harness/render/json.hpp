// Every JSON document noisefloor writes or prints, made in one place from the typed analysis
// records: summary.json (also `report --format json`), `cv --format json`, `compare --format
// json`, `check --format json` and `history --format json`. analysis/ returns typed values and
// knows no JSON. Pure.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/accounting.hpp"
#include "analysis/analysis.hpp"
#include "analysis/compare.hpp"
#include "analysis/gate.hpp"
#include "analysis/history.hpp"
#include "analysis/judge.hpp"
#include "analysis/paired.hpp"
#include "analysis/table.hpp"
#include "fingerprint/doctor.hpp"
#include "fingerprint/engine.hpp"
#include "fingerprint/tune.hpp"
#include "fingerprint/tuning.hpp"
#include "model/published.hpp"
#include "records/fingerprint.hpp"
#include "render/gate.hpp"
#include "stats/summary.hpp"

// The statistics' records, in stats's namespace so that nlohmann finds them by argument-dependent
// lookup (stats knows no JSON).
namespace noisefloor::stats {

// snake_case keys, nullopt and NaN -> null, enums as their to_string() text (summary.json).
void to_json(nlohmann::json& j, const Summary& summary);
// A statistic as JSON: the number, or null when it is not finite (JSON has no NaN or ∞). Every
// document noisefloor writes uses this one rule.
nlohmann::json number_or_null(double value);
void to_json(nlohmann::json& j, const Interval& interval);  // {"lo", "hi", "level"}

}  // namespace noisefloor::stats

// In analysis's namespace so that nlohmann finds them by argument-dependent lookup.
namespace noisefloor::analysis {

// summary.json's "table": {"conditions", "config_keys" (those that tell rows apart), "rows": [{"condition",
// "name", "benchmark", "unit", "procs", "warmup_discarded", "values", "summary", "variant" (paired designs
// only), "config" ({"pkg": "a"}, when there is one), "exact" and "mode" (assume=exact units)}],
// "other_metrics": [rows as above, with "metric"], "notes"}.
// A sweep's points add "sweeps" to the table ({condition: {"group", "index", "settings"}}) and
// "sweep": {"group", "settings": {"spinners": "2"}} to each of their rows.
void to_json(nlohmann::json& j, const Row& row);
void to_json(nlohmann::json& j, const Table& table);
void add_sweeps(nlohmann::json& j, const Table& table);
// summary.json's and cv --format json's "curves": [{"group", "parameter", "series", "benchmark",
// "unit", "numeric", "points": [{"condition", "value", "x", "n", "median", "median_ci",
// "cv_pct", "cv_pct_ci", "band", "room"}], "knee" (the value, null: none), "knee_condition",
// "knee_text"}].
void to_json(nlohmann::json& j, const CurvePoint& point);
void to_json(nlohmann::json& j, const Curve& curve);

// summary.json's "paired" and "aa" entries; numbers that are not finite are null.
void to_json(nlohmann::json& j, const PairedRow& row);
void to_json(nlohmann::json& j, const AaRow& row);

// {"condition", "invocations", "launcher": {"median_s", "min_s", "max_s", "n", "command_median_s",
//  "ratio", "unknown"} (format: command), "throttling": {"invocations", "throttled_invocations",
//  "periods", "throttled_periods", "throttled_s"} (containers), "spinners": {"min_share",
//  "expected_share"}, "harness": {"invocations", "cpu_s", "wall_s", "share"}, "run_queue":
//  {"invocations", "run_s", "wait_s", "wall_s", "waited", "used_cpus", "cpus_allowed", "starved",
//  "unknown"}}
void to_json(nlohmann::json& j, const ConditionAccounting& accounting);
void to_json(nlohmann::json& j, const Diagnosis& diagnosis);  // see render/json.cpp

// summary.json's "claims": {"method", "seed", "resamples", "level", "results": [{"claim", "verdict",
// "why", "lhs", "rhs", "lhs_ci", "rhs_ci", "decision_ci", "published": {"holds", "lhs", "rhs",
// "why"}, "agreement"}]} and "reference": {the table, "beside": [...]}.
void to_json(nlohmann::json& j, const ClaimResult& r);
void to_json(nlohmann::json& j, const ReferenceRow& r);
void to_json(nlohmann::json& j, const Judgement& judgement);

// {"schema_version": 1, "old", "new", "settings", "comparable", "allow_different_hosts",
//  "matched_by", "differences", "config_keys", "rows", "geomeans", "only_old", "only_new", "notes"};
// NaN -> null. A row: {"benchmark", "name", "variant", "config" ({"pkg": "a"}), "unit" (tidied),
// "recorded_units", "better", "exact", "label", "label_reason", "compared", "old", "new" ({"condition",
// "procs", "n", "center", "range" ([lo, hi] of the ±, null ends for ∞), "median", "median_ci",
// "median_ci_level", "rel_halfwidth", "values"}), and when compared "ratio_of_medians", "delta"
// (as benchstat prints it: "~", "+5.00%", "?"), "test" ({"u", "p", "p_benchstat", "p_exact_absdev",
// "p_exact_doubling", "p_normal", "z", "exact", "p_slot", "significant", "p_adjusted" (Holm),
// "significant_adjusted"}), "hodges_lehmann", "ratio_of_means" (Fieller CI, §3.5.3), "verdict" (the
// word), "change" (lower, higher, equivalent, inconclusive), "warnings"}.
void to_json(nlohmann::json& j, const CompareTable& table);

// JSON: {"experiment", "threshold", "alpha", "segments": [{"index", "first_run", "runs",
// "changed": [{"field", "from", "to"}], "reason"}], "runs": [{"run_id", "source", "started_utc",
// "commit" (null when none), "digest", "status", "segment", "claims", "warnings", "cells":
// [{"condition", "name", "unit", "n", "median", "median_ci", "cv_pct", "cv_ci", "notes",
// "change": {"kind", "p", "ratio", "lo", "hi", "reason"}}]}], "warnings"}; absent numbers null.
void to_json(nlohmann::json& j, const Change& change);
void to_json(nlohmann::json& j, const HistoryCell& cell);
void to_json(nlohmann::json& j, const HistoryRun& run);
void to_json(nlohmann::json& j, const HistorySegment& segment);
void to_json(nlohmann::json& j, const History& history);

// The gate (§3.13), numbers that are not finite null. A block: {"block", "n", "ratio" (GM of
// head/base), "ci" ([lo, hi]), "median", "p_wilcoxon", "order_effect_p", "verdict" (stats' word:
// faster = the value went down), "aa" and "bb" ({"outcome", "gm", "ci", "halfwidth"}),
// "floor_failed", "sigma0", "nu0", "mde_slower", "mde_faster" (fractions), "needs_more" (null when
// none), "undecidable", "excess_spread"}. A row: {"condition", "benchmark", "unit", "label",
// "better", "gating", "verdict" (the row's word: slower, faster, worse, within noise, ...),
// "change" (lower, higher, equivalent, inconclusive), "confirmed", "regression", "first",
// "second" (null when no second block ran)}. The table: {"settings": {"threshold", "confidence",
// "power", "confirm", "max_repeats", "gating_units"}, "rows", "contention": [{"benchmark",
// "unit", "condition", "reference", "ratio", "ci", "df", "finding" (differs, same,
// cannot_tell)}], "gating_rows", "false_alarm_bound", "notes", "regression"}.
void to_json(nlohmann::json& j, const GateBlock& block);
void to_json(nlohmann::json& j, const GateRow& row);
void to_json(nlohmann::json& j, const GateContention& contention);
void to_json(nlohmann::json& j, const GateTable& table);

}  // namespace noisefloor::analysis

namespace noisefloor::render {

inline constexpr int kSummarySchemaVersion = 1;
inline constexpr int kCvSchemaVersion = 1;
inline constexpr int kCompareSchemaVersion = 1;

// Where a streamed document goes, piece by piece.
using JsonSink = std::function<void(std::string_view piece)>;

// summary.json, as a tree:
// {"schema_version": 1,
//  "experiment": {"name", "description", "file"}, "run": {"id", "status", "started_utc",
//  "finished_utc"}   (of the first source),
//  "table": analysis::Table, "warnings": [...],
//  "paired": [PairedRow...], "aa": [AaRow...], "comparison": {"baseline", "aa", "threshold"}
//                    (paired experiments only),
//  "adaptive": {condition: AdaptiveOutcome}  (samples: auto only),
//  "accounting": [analysis::ConditionAccounting...]  (runs that recorded launcher overhead,
//                    container throttling or spinner shares),
//  "claims": analysis::Judgement  (a run that recorded claims or a reference: verdicts, the
//                    published table beside this run),
//  "sources": [labels]  (merged results only)}
nlohmann::json summary_document(const analysis::Analysis& analysis);

// summary.json as written (summary_document(analysis).dump(2) and a newline, byte for byte),
// streamed to `sink` in pieces of at most 64 KB: the rows' per-sample arrays ("values",
// "summary"'s "outliers" and "modified_z") are written from the rows and never held as a JSON
// tree (a go test file of a million samples: 143 MB of JSON, once a 586 MB peak as tree and text).
void write_summary_json(const analysis::Analysis& analysis, const JsonSink& sink);
// write_summary_json into one string.
std::string summary_json(const analysis::Analysis& analysis);

// The published table summary.json stands for (what parsers::parse_summary_json reads back from
// it): one row per primary table row with n, mean, median, stddev and CV, built from the table
// directly. `reference:` and `check --reference` read a run's summary.json this way.
model::PublishedTable published_table(const analysis::Analysis& analysis);

// What `noisefloor cv --format json` prints: {"schema_version": 1, "sources": [the paths as
// given], "table": analysis::Table, "comparable": Analysis::comparable(), "differences" (merged
// results whose fingerprints differ: [{"sources": [the first, the other], "field", "values":
// [the first's, the other's], "moves_benchmarks"}], as compare's JSON has them), "accounting" and
// "claims" (as summary.json's)}. Its table is summary.json's table. With a newline.
std::string cv_json(const analysis::Analysis& analysis, const std::vector<std::string>& given_paths);

// What `noisefloor compare --format json` prints: the table's document; runs on several hosts
// (host names given) one document per host, by host name. With a newline.
std::string compare_json(const std::vector<std::pair<std::string, analysis::CompareTable>>& tables);

// `check --format json`: the judgement's document, with a newline.
std::string judgement_json(const analysis::Judgement& judgement);

// `noisefloor fingerprint --json`: the fingerprint as fingerprint.json holds it.
std::string fingerprint_json(const records::Fingerprint& fingerprint);

// `noisefloor doctor --json`: the report; the CPUs the experiment pins (null without one); the
// engine's facts, or the unknown fact saying why there are none; the tuning; what --apply or
// --restore did; for another host, its lease and the transport's warning; the noise profile
// ("noise": fingerprint/noise.hpp's JSON).
struct DoctorDocument {
  const fingerprint::DoctorReport& report;
  const fingerprint::NoiseProfile& noise;
  std::optional<std::string> experiment_cpus;
  const std::optional<fingerprint::EngineFacts>& engine;
  std::string engine_unknown;
  const fingerprint::TuningStatus& tuning;
  std::optional<fingerprint::TuneResult> applied{};
  std::optional<fingerprint::RestoreResult> restored{};
  std::optional<std::string> lease{}, transport_warning{};
};
std::string doctor_json(const DoctorDocument& d);

// gate.json: the table's fields (analysis::to_json(GateTable)) and {"schema": "noisefloor.gate/1",
// "base" and "head" ({"ref", "commit", "tree", "worktree", "dirty", "changed", "build_key",
// "cached", "binary_sha256"}), "identical_binaries", "experiment_file", "benchmark_line", "room",
// "reproduce", "seconds", "exit_code"}, dumped with an indent of 2 and a newline.
inline constexpr std::string_view kGateSchema = "noisefloor.gate/1";
std::string gate_json(const analysis::GateTable& table, const GateContext& context);

}  // namespace noisefloor::render
