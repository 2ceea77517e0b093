// Claims judged on a table (harness/claims/): each claim's verdict with its intervals, and, when
// the experiment replays a published table (`reference:`), that table beside this run's figures
// and whether this run agrees with the publication on each claim. Pure.
//
// Agreement, per claim: the publication's figures either show the claim (it holds at the
// published values) or do not; this run REPRODUCED or NOT REPRODUCED it, or could not decide.
//   agrees             both show it, or both do not
//   disagrees          one shows it and the other does not
//   undecided          this run is INCONCLUSIVE or UNDEFINED
//   not published      the publication lacks a figure the claim needs (e.g. a median)
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/paired.hpp"
#include "analysis/table.hpp"
#include "claims/claim.hpp"
#include "claims/evaluate.hpp"
#include "model/published.hpp"
#include "stats/summary.hpp"

namespace noisefloor::analysis {

// Whether this run agrees with the publication on a claim (see above).
enum class Agreement : std::uint8_t { agrees, disagrees, undecided, not_published };

constexpr std::array<std::pair<Agreement, std::string_view>, 4> names(Agreement) {
  return {{
      {Agreement::agrees, "agrees"},
      {Agreement::disagrees, "disagrees"},
      {Agreement::undecided, "undecided"},
      {Agreement::not_published, "not published"},
  }};
}

struct ClaimResult {
  claims::Evaluation run;
  std::optional<claims::PointCheck> published;     // with a reference
  Agreement agreement = Agreement::not_published;  // with a reference
};

// One published row beside this run's row for the same condition (and benchmark).
struct ReferenceRow {
  model::PublishedRow published;
  std::string condition;  // this run's condition it matched ("" when none)
  std::string name;       // this run's row, as printed
  std::size_t n = 0;
  double mean = stats::kNaN;
  std::optional<stats::Interval> mean_ci;  // t interval (§3.2)
  std::optional<double> stddev;
  claims::Estimate cv;  // a fraction, with its bootstrap interval
  stats::Band band = stats::Band::insufficient, published_band = stats::Band::insufficient;
  // The publication gave a stddev or CV for n < 2: no figures, dropped from `published` (shown —).
  bool spread_dropped = false;
};

struct Judgement {
  std::uint64_t seed = 1;
  int resamples = claims::kDefaultResamples;
  double level = 0.95;
  std::vector<ClaimResult> claims;
  std::optional<model::PublishedTable> reference;
  std::vector<ReferenceRow> beside;         // one per published row, in its order
  std::vector<std::string> run_conditions;  // this run's, named where a published row matches none

  int count(claims::Verdict v) const;
  bool empty() const { return claims.empty() && !reference; }
};

// What claims can name in this table: its conditions and the variants of its paired rows.
claims::Names names_of(const Table& table, const PairedTable& paired);

// Parses every claim against names_of(table, paired) (throws claims::ClaimError for one that does
// not parse: the caller says which) and judges it; places the reference beside the table.
Judgement judge(const Table& table, const PairedTable& paired, const std::vector<std::string>& claim_texts,
                std::uint64_t seed, const std::optional<model::PublishedTable>& reference);

// The row of `table` a published row stands for: the condition of the same name, else the one
// the published name starts with ("noisy (16 spinners)" is noisy); the benchmark of the same name
// (with or without a -N suffix on either side), else the condition's only row. nullptr when none
// (the condition is missing, or it has several rows and none is the published benchmark).
const Row* matching_row(const Table& table, const model::PublishedRow& published);

}  // namespace noisefloor::analysis
