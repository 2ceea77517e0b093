// Claims judged with intervals, not points (harness/stats/README.md §3.11): every series a claim names is
// resampled with replacement, independently, B times with stats' seeded generator (SplitMix64,
// and Lemire's multiply-shift for the index, so the same seed gives the same intervals
// everywhere); each side of the claim and their difference are recomputed per
// resample, and the percentile interval of the difference decides:
//   REPRODUCED      the whole interval on the claimed side
//   NOT REPRODUCED  the whole interval on the other side
//   INCONCLUSIVE    the interval straddles the boundary: more samples would decide
// `within A ± B%` uses the relative deviation lhs/rhs - 1 against [-B, B]. A statistic that is not
// defined (cv with n < 2, a mean that is not positive) makes the claim UNDEFINED with the reason.
// Pure.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "claims/claim.hpp"
#include "model/names.hpp"

namespace noisefloor::claims {

// The samples a claim can name: per condition its rows (benchmark as printed, kept values in run
// order), the first row being the condition's own when no benchmark is named; per variant of a
// paired experiment its per-repeat ratios to the baseline.
struct Data {
  std::map<std::string, std::vector<std::pair<std::string, std::vector<double>>>> rows;
  std::map<std::string, std::vector<double>> ratios;  // ratio(v): the variant's first benchmark
  // ratio(v, B): per variant, (benchmark as printed, per-repeat ratios)
  std::map<std::string, std::vector<std::pair<std::string, std::vector<double>>>> ratio_rows;
  // knee(group): per swept condition its points in order, each its value on the axis (nullopt: a
  // category) and the condition it is.
  std::map<std::string, std::vector<std::pair<std::optional<double>, std::string>>> sweeps;
};

enum class Verdict { reproduced, not_reproduced, inconclusive, undefined };

constexpr std::array<std::pair<Verdict, std::string_view>, 4> names(Verdict) {
  return {{
      {Verdict::reproduced, "REPRODUCED"},
      {Verdict::not_reproduced, "NOT REPRODUCED"},
      {Verdict::inconclusive, "INCONCLUSIVE"},
      {Verdict::undefined, "UNDEFINED"},
  }};
}

std::string_view to_string(Verdict v);  // "REPRODUCED", "NOT REPRODUCED", "INCONCLUSIVE", "UNDEFINED"

struct Interval {
  double lo = 0, hi = 0;
};

// Why a statistic or a claim cannot be judged, as a value: which call, which condition or variant,
// and the counts; render::undefined_text words it.
struct Undefined {
  enum class Reason {
    none,                 // defined
    too_few,              // the call needs n >= need; its series has `have`
    no_spread,            // the call's series has `have` samples: an interval needs n >= 2
    ratio_not_positive,   // ratio(): a per-repeat ratio that is not positive
    mean_not_positive,    // cv(): the mean is not positive
    median_not_positive,  // rcv(): the median is not positive
    short_curve,          // knee(): fewer than two points
    category_axis,        // knee(): an axis value is a label
    no_paired_samples,    // ratio(subject[, benchmark]): none paired
    no_samples,           // the condition has no samples
    ambiguous_benchmark,  // `have` rows of the condition have that benchmark's name
    no_such_benchmark,    // the condition has no row of that name
    division_by_zero,
    zero_reference,             // `within` against 0
    undefined_in_resamples,     // a statistic of the claim is undefined in most resamples
    cv_undefined_in_resamples,  // estimate(): the statistic is undefined in most resamples
    not_published,              // check_points(): the publication does not print the call's statistic
  };
  Reason reason = Reason::none;
  Function function = Function::n;  // the call it concerns
  std::string subject, benchmark;
  std::size_t have = 0, need = 0;
  explicit operator bool() const { return reason != Reason::none; }
};

struct Evaluation {
  std::string claim;
  Verdict verdict = Verdict::undefined;
  Undefined why;            // UNDEFINED: which statistic and why
  double lhs = 0, rhs = 0;  // point estimates
  bool percent = false;     // the claim compares CVs (and divides by no statistic): shown as %
  Interval lhs_ci, rhs_ci;  // percentile intervals of each side
  Interval decision_ci;     // of lhs - rhs, or of lhs/rhs - 1 for within
  std::uint64_t seed = 0;
  int resamples = 0;
  double level = 0.95;
};

inline constexpr int kDefaultResamples = 10000;

Evaluation evaluate(const Claim& claim, const Data& data, std::uint64_t seed,
                    int resamples = kDefaultResamples, double level = 0.95);

// A claim on published figures: there are no samples, so no interval; whether it holds at the
// published values. `lookup` gives a statistic of (condition or variant, benchmark), cv and rcv as
// fractions, or nullopt when the publication does not print it.
using Lookup =
    std::function<std::optional<double>(Function, const std::string& subject, const std::string& benchmark)>;
struct PointCheck {
  std::optional<bool> holds;  // nullopt: not decidable from what was published (why says what is missing)
  double lhs = 0, rhs = 0;
  Undefined why;
};
PointCheck check_points(const Claim& claim, const Lookup& lookup);

// One statistic of one series with its seeded percentile interval (this run's figures beside a
// published table). defined is false, with why, when the statistic is not (cv with n < 2).
struct Estimate {
  bool defined = false;
  double value = 0;
  Interval ci;
  Undefined why;
};
Estimate estimate(Function f, const std::vector<double>& series, std::uint64_t seed,
                  int resamples = kDefaultResamples, double level = 0.95);

}  // namespace noisefloor::claims
