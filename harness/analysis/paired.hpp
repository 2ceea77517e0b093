// The paired design (harness/stats/README.md §3.6–3.7): per condition, benchmark and variant the
// per-repeat ratios variant/baseline, their geometric mean with its 95% CI, the Wilcoxon p, the
// order-effect check, the verdict; the A/A check; and the label that says how clean the room was.
// Pure.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/labels.hpp"
#include "analysis/verdict.hpp"
#include "model/pair_order.hpp"
#include "model/units.hpp"
#include "records/samples.hpp"
#include "stats/compare.hpp"

namespace noisefloor::analysis {

struct PairedRow {
  // benchmark: the full name, with the configuration that tells it apart ("BenchmarkGet-8 (pkg: a)");
  // variant "A/A" for the baseline against itself.
  std::string condition, benchmark, baseline, variant;
  Label label = Label::unknown;
  std::string unit;  // of the primary metric, which is compared
  model::Better better = model::Better::unknown;
  model::Quantity quantity = model::Quantity::other;
  std::vector<model::PairOrder> order;  // per repeat: AB or BA
  stats::Paired paired;
  stats::Verdict verdict = stats::Verdict::inconclusive;
  bool aa = false;
  bool trustworthy = true;  // false when the condition's A/A check failed
  // design: blocks — no pairs: the Hodges–Lehmann ratio with its distribution-free CI instead.
  bool unpaired = false;
  stats::RatioCI hl;
  double median_ratio = 0;  // ratio of medians
  double p_mann_whitney = 0;
  std::size_t n_base = 0, n_variant = 0;
  // The verdict in the unit's direction: faster/slower, better/worse, lower/higher (analysis/verdict.hpp).
  Word verdict_word() const;
};

struct AaRow {
  std::string condition, benchmark;
  stats::AaCheck check;
  double theta = 0.01;
};

// A variant and its baseline that no test could compare (a value of 0: no log ratio): the
// error it stopped at.
struct PairedSkip {
  std::string condition, benchmark, variant, error;
};

struct PairedTable {
  std::vector<PairedRow> rows;
  std::vector<AaRow> aa;
  std::vector<PairedSkip> skipped;  // render::paired notes say them, after each row's paired.warnings
};

// Pairs the samples of each repeat (same condition, benchmark, pair and repeat; warm-up
// excluded). `labels` maps condition → label. Samples without a pair (design: blocks) are
// compared unpaired (Hodges–Lehmann), and labelled CONTENDED where the paired label would be
// CONTENDED-PAIRED.
PairedTable build_paired(const records::Samples& samples, const std::string& baseline, double theta,
                         const std::map<std::string, Label>& labels, const model::UnitMetadata& units = {});

// The labels build_paired takes, for one result: CONTENDED-PAIRED where condition_label says
// CONTENDED, its own label (MEASURED-clean or UNKNOWN) elsewhere; a condition missing from the
// map is UNKNOWN.
std::map<std::string, Label> paired_labels(const records::Result& result);

}  // namespace noisefloor::analysis
