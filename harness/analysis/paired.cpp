#include "analysis/paired.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "analysis/table.hpp"
#include "analysis/verdict.hpp"
#include "model/errors.hpp"
#include "model/go_config.hpp"

namespace noisefloor::analysis {
Word PairedRow::verdict_word() const { return analysis::verdict_word(verdict, better, quantity); }

namespace {

// What a row is of: its condition, benchmark, unit (and what the unit says) and baseline.
void describe_row(PairedRow& row, const std::string& condition, const std::string& benchmark,
                  const std::string& unit, const std::string& baseline, const model::UnitMetadata& units) {
  row.condition = condition;
  row.benchmark = benchmark;
  row.unit = unit;
  row.better = model::better_of(row.unit, units);
  row.quantity = model::quantity_of(row.unit);
  row.baseline = baseline;
}

}  // namespace

PairedTable build_paired(const records::Samples& samples, const std::string& baseline, double theta,
                         const std::map<std::string, Label>& labels, const model::UnitMetadata& units) {
  struct Slot {
    std::optional<double> base, variant;
    model::PairOrder order = model::PairOrder::none;
  };
  // A benchmark as shown: its full name, and the configuration that tells it apart (pkg).
  const std::set<std::string> config_keys = distinguishing_keys(samples);
  const auto shown = [&](const std::string& name, const std::string& config) {
    return row_name(name, model::config_label(model::config_only(config, config_keys)));
  };
  std::map<std::string, std::string> unit_of;  // shown benchmark -> the primary metric's unit
  // (condition, benchmark, pair) -> repeat -> slot, in first-seen order of the keys
  std::vector<std::tuple<std::string, std::string, std::string>> keys;
  std::map<std::tuple<std::string, std::string, std::string>, std::map<int, Slot>> slots;
  std::map<std::tuple<std::string, std::string, std::string>, std::string> variant_of;
  for (const records::SampleRef s : samples) {
    if (s.variant.empty() || s.pair.empty() || s.warmup || s.metrics.empty()) continue;
    const auto key = std::make_tuple(s.condition, shown(s.name, s.config), s.pair);
    if (!slots.count(key)) keys.push_back(key), unit_of.emplace(std::get<1>(key), s.metrics.front().unit);
    Slot& slot = slots[key][s.repeat];
    if (s.variant == baseline) {
      slot.base = s.metrics.front().value;
    } else {
      slot.variant = s.metrics.front().value;
      variant_of[key] = s.variant;
    }
    slot.order = s.order;
  }
  PairedTable t;
  std::map<std::string, bool> aa_failed;  // condition -> failed
  for (const auto& key : keys) {
    const auto& [condition, benchmark, pair] = key;
    std::vector<double> b, v;
    std::vector<char> variant_first;
    PairedRow row;
    for (const auto& [repeat, slot] : slots[key]) {
      if (!slot.base || !slot.variant) continue;  // an interrupted repeat
      b.push_back(*slot.base);
      v.push_back(*slot.variant);
      variant_first.push_back(slot.order == model::PairOrder::ba);
      row.order.push_back(slot.order);
    }
    if (b.empty()) continue;
    describe_row(row, condition, benchmark, unit_of[benchmark], baseline, units);
    row.aa = pair == records::kAaPair;
    row.variant = row.aa ? std::string(records::kAaPair) : variant_of[key];
    // A condition nothing was recorded about stays UNKNOWN, as in `compare`.
    const auto label = labels.find(condition);
    row.label = label == labels.end() ? Label::unknown : label->second;
    std::vector<bool> first(variant_first.begin(), variant_first.end());
    // std::span<const bool> needs contiguous bools: copy into a plain array.
    std::unique_ptr<bool[]> flags(new bool[first.size()]);
    for (std::size_t i = 0; i < first.size(); ++i) flags[i] = first[i];
    try {
      row.paired = stats::paired(b, v, std::span<const bool>(flags.get(), first.size()));
    } catch (const Error& e) {  // e.g. a zero value: no log ratio
      t.skipped.push_back({condition, benchmark, row.variant, e.what()});
      continue;
    }
    row.verdict = stats::classify(row.paired.gm_lo, row.paired.gm_hi, theta);
    if (row.aa) {
      AaRow aa{condition, benchmark, stats::aa_check(row.paired, theta), theta};
      if (aa.check.outcome != stats::AaOutcome::pass) aa_failed[condition] = true;
      t.aa.push_back(aa);
    }
    t.rows.push_back(std::move(row));
  }
  // design: blocks — the variant's samples against the baseline's, unpaired.
  std::vector<std::tuple<std::string, std::string, std::string>> block_keys;  // condition, benchmark, variant
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<double>> block_values;
  for (const records::SampleRef s : samples) {
    if (s.variant.empty() || !s.pair.empty() || s.warmup || s.metrics.empty()) continue;
    const auto key = std::make_tuple(s.condition, shown(s.name, s.config), s.variant);
    if (!block_values.count(key))
      block_keys.push_back(key), unit_of.emplace(std::get<1>(key), s.metrics.front().unit);
    block_values[key].push_back(s.metrics.front().value);
  }
  for (const auto& key : block_keys) {
    const auto& [condition, benchmark, variant] = key;
    if (variant == baseline) continue;
    const auto base_it = block_values.find(std::make_tuple(condition, benchmark, baseline));
    if (base_it == block_values.end()) continue;
    const auto& b = base_it->second;
    const auto& v = block_values[key];
    PairedRow row;
    describe_row(row, condition, benchmark, unit_of[benchmark], baseline, units);
    row.variant = variant;
    row.unpaired = true;
    const auto label = labels.find(condition);
    row.label = label == labels.end() || label->second == Label::measured_clean ? Label::measured_clean
                                                                                : Label::contended;
    try {
      row.hl = stats::hodges_lehmann_ratio(b, v);
      row.median_ratio = stats::ratio_of_medians(b, v);
      row.p_mann_whitney = stats::mann_whitney(b, v).p;
    } catch (const Error& e) {
      t.skipped.push_back({condition, benchmark, variant, e.what()});
      continue;
    }
    row.n_base = b.size();
    row.n_variant = v.size();
    row.verdict =
        row.hl.bounded ? stats::classify(row.hl.lo, row.hl.hi, theta) : stats::Verdict::inconclusive;
    t.rows.push_back(std::move(row));
  }
  for (auto& row : t.rows) row.trustworthy = !aa_failed[row.condition];
  return t;
}

std::map<std::string, Label> paired_labels(const records::Result& result) {
  std::map<std::string, Label> labels;
  for (const auto& c : result.conditions) {
    const Label label = condition_label(result, c);
    labels[c] = label == Label::contended ? Label::contended_paired : label;
  }
  return labels;
}

}  // namespace noisefloor::analysis
