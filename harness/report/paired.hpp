// The paired design's report (statistics.md §3.6–3.7): per condition, benchmark and variant the
// per-repeat ratios variant/baseline, their geometric mean with its 95% CI, the Wilcoxon p, the
// order-effect check, the verdict; the A/A check; and the label that says how clean the room was.
// Pure.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/sample.hpp"
#include "stats/compare.hpp"

namespace noisefloor::report {

// MEASURED-clean: no load and a doctor grade of ready or limited; CONTENDED-PAIRED: load present,
// paired design; CONTENDED: load present, not paired. Numbers with different labels are never
// compared with each other.
inline constexpr const char* kMeasuredClean = "MEASURED-clean";
inline constexpr const char* kContendedPaired = "CONTENDED-PAIRED";
inline constexpr const char* kContended = "CONTENDED";

struct PairedRow {
  std::string condition, benchmark, baseline, variant;  // variant "A/A" for the baseline against itself
  std::string label;
  std::vector<std::string> order;  // per repeat: "AB" or "BA"
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
};

struct AaRow {
  std::string condition, benchmark;
  stats::AaCheck check;
  double theta = 0.01;
};

struct PairedTable {
  std::vector<PairedRow> rows;
  std::vector<AaRow> aa;
  std::vector<std::string> notes;
};

// Pairs the samples of each repeat (same condition, benchmark, pair and repeat; warm-up
// excluded). `labels` maps condition → label. Samples without a pair (design: blocks) are
// compared unpaired (Hodges–Lehmann), and labelled CONTENDED where the paired label would be
// CONTENDED-PAIRED.
PairedTable build_paired(const std::vector<model::Sample>& samples, const std::string& baseline, double theta,
                         const std::map<std::string, std::string>& labels);

std::string render_paired_markdown(const PairedTable& table);
// {"paired": [...], "aa": [...]} in the summary.json schema.
nlohmann::json render_paired_json(const PairedTable& table);

}  // namespace noisefloor::report
