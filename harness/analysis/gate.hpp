// The A/B gate (harness/stats/README.md §3.13): per condition, benchmark and unit, head against
// base from quads of invocations (b h h' b' or h b b' h'), both floors (base against base, head
// against head) measured in the same run, the minimum detectable effect, the verdict, its
// confirmation by a second block, and how the change behaves under load. Pure.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/verdict.hpp"
#include "model/gate.hpp"
#include "model/units.hpp"
#include "records/samples.hpp"
#include "stats/compare.hpp"
#include "stats/gate.hpp"

namespace noisefloor::analysis {

// One block's figures for one row (condition, benchmark, unit).
struct GateBlock {
  int block = 1;
  std::size_t n = 0;  // quads with every value > 0 (2n pairs)
  // Quads left out: a run of the four missing (incomplete), or a value <= 0 or not finite.
  std::size_t incomplete = 0, unusable = 0;
  // The effect (§3.13 "Effect"): the Hodges–Lehmann shift of the pair log ratios ln(head/base)
  // and its signed-rank interval at the one-sided level of the look the block ended at (`tail`).
  stats::Shift shift;
  stats::Paired ratio;  // head/base per quad, h̃_i/b̃_i (h̃ = √(h·h'), b̃ = √(b·b')): the GM, the
                        // median, Wilcoxon's p and the order effect, as the paired design has them
  stats::AaCheck aa;    // base against base: the signed e_i of §3.13 (the room's floor, reported)
  stats::AaCheck bb;    // head against head: the signed f_i
  bool floor_failed = false;  // aa or bb is not PASS: said beside the verdict, never changes it
  stats::Verdict verdict = stats::Verdict::inconclusive;  // shift_verdict(shift, θ)
  double sigma0 = stats::kNaN;                            // the floors' prediction of the SD of ln(h̃/b̃)
  double nu0 = stats::kNaN;                               // its Welch–Satterthwaite degrees of freedom
  double mde_slower = stats::kNaN;  // smallest increase called with the asked power (fraction, 0.05 = +5%)
  double mde_faster = stats::kNaN;  // smallest decrease (fraction, 0.05 = −5%)
  // Inconclusive rows: about how many more quads would decide (assuming the mean and SD stay);
  // nullopt with `undecidable` when it sits on the threshold or would need more than 10× the cap.
  std::optional<std::size_t> needs_more;
  bool undecidable = false;
  // s_d²/σ̂₀² beyond F(0.99; n−1, ν₀): head/base varies more than the floors explain.
  std::optional<double> excess_spread;  // √F when flagged
  // The effect as a ratio: exp of the shift and of its interval's ends (0 and +∞ without one).
  double effect() const;
  double lo() const;
  double hi() const;
};

struct GateRow {
  std::string condition, benchmark, unit;  // benchmark: the full name (analysis::full_name)
  std::string name;                        // as printed (Sample::name): what to_confirm lists
  Label label = Label::unknown;            // the condition's paired label (CONTENDED-PAIRED, ...)
  model::Better better = model::Better::unknown;
  model::Quantity quantity = model::Quantity::other;
  bool gating = false;  // a confirmed regression of this row fails the gate
  GateBlock first;
  std::optional<GateBlock> second;  // the confirmation block, when it ran for this row
  // The row's verdict: the first block's; a "slower/worse" that the second block did not repeat
  // stays slower with confirmed = false.
  stats::Verdict verdict = stats::Verdict::inconclusive;
  bool confirmed = false;     // both blocks said it (or confirmation is off)
  bool regression() const;    // gating, confirmed, and worse in the unit's direction
  Word verdict_word() const;  // faster/slower, better/worse, lower/higher, ...
};

// How the change behaves under load: the ratio of head/base in a contended condition to
// head/base in the reference condition (the first without spinners).
struct GateContention {
  std::string benchmark, unit, condition, reference;
  double ratio = stats::kNaN, lo = stats::kNaN, hi = stats::kNaN;  // (h/b)_c / (h/b)_ref, Welch CI
  double df = stats::kNaN;
  enum class Finding { differs, same, cannot_tell } finding = Finding::cannot_tell;
};

struct GateTable {
  model::GateSettings settings;
  bool confirm = false;       // flagged rows needed a second block (settings.confirm, or m > 2 rows)
  std::vector<GateRow> rows;  // conditions in file order, then benchmarks and units as printed
  std::vector<GateContention> contention;
  std::size_t gating_rows = 0;
  double false_alarm_bound = stats::kNaN;  // of the whole gate: 1 − (1 − p_row)^m
  bool regression() const;                 // any row's regression()
};

// The gate from a run's samples: quads are the samples of one (condition, name, config, block,
// repeat) with pair records::kGatePair. `labels` maps condition → label; `contended` names the
// conditions with background load (the first condition not in it is the reference).
GateTable build_gate(const records::Samples& samples, const model::GateSettings& settings,
                     const std::map<std::string, Label>& labels, const std::vector<std::string>& contended,
                     const model::UnitMetadata& units = {});

// What a second block must confirm: per condition, the benchmark names (as printed) of the
// gating rows block 1 calls slower/worse, when the table needs confirmation. Empty: nothing to
// confirm.
std::map<std::string, std::vector<std::string>> to_confirm(const GateTable& table);

}  // namespace noisefloor::analysis
