#include "analysis/analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "analysis/labels.hpp"
#include "model/errors.hpp"

namespace noisefloor::analysis {
namespace {

void set_config(records::GoTestConfig& config, const std::string& key, const std::string& value) {
  for (auto& [k, v] : config)
    if (k == key) {
      v = value;
      return;
    }
  config.emplace_back(key, value);
}

// The baseline of a paired result that did not record one: the variant present in every pair
// (paired design), else the first variant seen (blocks).
std::string derived_baseline(const records::Result& r) {
  std::map<std::string, int> in_pairs;
  std::string first;
  for (const auto& s : r.samples) {
    if (s.variant.empty()) continue;
    if (first.empty()) first = s.variant;
    if (!s.pair.empty()) ++in_pairs[s.variant];
  }
  std::string best = first;
  int most = 0;
  for (const auto& [variant, count] : in_pairs)
    if (count > most) best = variant, most = count;
  return best;
}

// A gate's result (`run --base`): its samples are quads.
bool is_gate(const records::Result& r) {
  const auto series = r.samples.series();
  return std::any_of(series.begin(), series.end(),
                     [](const records::SeriesRef& s) { return s.pair == records::kGatePair; });
}

// The conditions that ran beside background load (spinners), as the run recorded them.
std::vector<std::string> contended(const records::Result& r) {
  std::vector<std::string> names;
  if (r.run)
    for (const auto& c : r.run->condition_records)
      if (c.setup.spinners && c.setup.spinners->count > 0 &&
          std::find(names.begin(), names.end(), c.condition) == names.end())
        names.push_back(c.condition);
  return names;
}

bool has_variants(const records::Result& r) {
  const auto series = r.samples.series();
  return std::any_of(series.begin(), series.end(),
                     [](const records::SeriesRef& s) { return !s.variant.empty(); });
}

}  // namespace

bool Analysis::comparable() const {
  if (!merged || allow_different_hosts) return true;
  return std::none_of(differences.begin(), differences.end(),
                      [](const Difference& d) { return d.moves_benchmarks; });
}

std::string Analysis::title() const {
  std::vector<std::string> names;
  for (const auto& s : sources) {
    std::string n = s.experiment();
    if (n.empty()) n = s.label;
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  }
  return names.empty() ? "noisefloor results" : fmt::format("{}", fmt::join(names, " + "));
}

std::string merged_condition(std::string_view label, std::string_view condition) {
  return fmt::format("{}:{}", label, condition);
}

namespace {

// The same result given twice still needs two names for its conditions: "#2", "#3" after a label
// seen before.
void make_labels_unique(std::vector<records::Result>& sources) {
  std::set<std::string> labels;
  for (auto& s : sources) {
    std::string label = s.label;
    for (int n = 2; labels.count(label); ++n) label = fmt::format("{}#{}", s.label, n);
    labels.insert(label);
    s.label = label;
  }
}

// How many sources name each condition (a name seen in several is prefixed with its source's label).
std::map<std::string, int> condition_counts(const std::vector<records::Result>& sources) {
  std::map<std::string, int> seen;
  for (const auto& s : sources) {
    std::set<std::string> names(s.conditions.begin(), s.conditions.end());
    for (const auto& series : s.samples.series()) names.insert(series.condition);
    for (const auto& n : names) ++seen[n];
  }
  return seen;
}

using Rename = std::function<std::string(const std::string&)>;

// One source merged into the analysis under its renamed conditions.
class Merge {
 public:
  explicit Merge(Analysis& a) : a_(a) {}

  void add(records::Result& s, const Rename& rename) {
    const std::vector<std::string> conditions = add_conditions(s, rename);
    add_design(s, rename);
    if (s.run) add_run(s, rename);
    for (const auto& c : conditions) {
      LabelReason reason;
      const Label label = condition_label(s, c, &reason);
      if (label != Label::unknown) room_labels[rename(c)] = {label, reason};
    }
    // The samples move into the analysis under their renamed conditions (held once, not twice).
    s.samples.rename_conditions(rename);
    if (a_.samples.empty())
      a_.samples = std::move(s.samples);
    else
      a_.samples.append(s.samples);
    s.samples = records::Samples();
    const std::string source = a_.merged ? s.label : "";
    for (const auto& w : s.warnings) a_.warnings.push_back({source, w});
    for (auto& conflict : a_.units.merge(s.units))
      a_.warnings.push_back(
          {s.label, {.kind = records::RunWarningKind::unit_conflict, .detail = std::move(conflict)}});
    if (s.run)
      for (const auto& w : s.run->warnings) a_.warnings.push_back({source, w});
  }

  std::map<std::string, Table::RoomLabel> room_labels;  // by renamed condition
  std::map<std::string, model::SweepPoint> sweeps;      // by renamed condition

 private:
  // The source's conditions (those its samples name too, in the order their first samples came)
  // and each one's go test configuration.
  std::vector<std::string> add_conditions(const records::Result& s, const Rename& rename) {
    std::vector<std::string> conditions = s.conditions;
    for (const auto& series : s.samples.series())
      if (std::find(conditions.begin(), conditions.end(), series.condition) == conditions.end())
        conditions.push_back(series.condition);
    for (const auto& c : conditions) {
      a_.conditions.push_back(rename(c));
      records::GoTestConfig config;
      if (auto it = s.gotest_config.find(c); it != s.gotest_config.end()) {
        config = it->second;
      } else if (s.run) {
        config.emplace_back("experiment", s.run->experiment);
        config.emplace_back("run", s.run->run_id);
      }
      set_config(config, "condition", rename(c));
      a_.gotest_config[rename(c)] = std::move(config);
    }
    return conditions;
  }

  // The gate's table (the first gate's), or the paired design's rows.
  void add_design(const records::Result& s, const Rename& rename) {
    if (is_gate(s)) {
      if (a_.gate) return;
      const auto& sides = s.fingerprint.run ? s.fingerprint.run->gate : std::nullopt;
      a_.gate = build_gate(s.samples, sides ? sides->settings : model::GateSettings{}, paired_labels(s),
                           contended(s), s.units);
      a_.gate_sides = sides;
      return;
    }
    if (!has_variants(s)) return;
    records::ComparisonSettings settings = s.comparison().value_or(records::ComparisonSettings{});
    if (settings.baseline.empty()) settings.baseline = derived_baseline(s);
    if (!a_.comparison) a_.comparison = settings;
    PairedTable p = build_paired(s.samples, settings.baseline, settings.threshold, paired_labels(s), s.units);
    for (auto& row : p.rows) {
      row.condition = rename(row.condition);
      a_.paired.rows.push_back(std::move(row));
    }
    for (auto& aa : p.aa) {
      aa.condition = rename(aa.condition);
      a_.paired.aa.push_back(std::move(aa));
    }
    for (auto& skip : p.skipped) {
      skip.condition = rename(skip.condition);
      a_.paired.skipped.push_back(std::move(skip));
    }
  }

  // What the run recorded: adaptive outcomes, sweep points, the invocations' accounting.
  void add_run(const records::Result& s, const Rename& rename) {
    for (const auto& [condition, outcome] : s.run->adaptive) a_.adaptive[rename(condition)] = outcome;
    for (const auto& [condition, point] : s.run->sweeps) {
      model::SweepPoint p = point;
      if (rename(condition) != condition) p.group = merged_condition(s.label, p.group);
      sweeps[rename(condition)] = std::move(p);
    }
    for (auto& acc : accounting_of(*s.run, rename)) a_.accounting.push_back(std::move(acc));
  }

  Analysis& a_;
};

// The recorded claims (and published reference) judged on a single run's own table.
void judge_recorded(Analysis& a) {
  if (a.merged || !a.sources.front().run) return;
  const records::RunRecord& run = *a.sources.front().run;
  if (run.claims.empty() && !run.reference) return;
  try {
    a.judgement = judge(a.table, a.paired, run.claims, run.claims_seed, run.reference);
  } catch (const claims::ClaimError& e) {
    a.warnings.push_back({"", {.kind = records::RunWarningKind::claims_not_judged, .detail = e.what()}});
  }
}

}  // namespace

Analysis analyze(std::vector<records::Result> sources, bool allow_different_hosts) {
  if (sources.empty()) throw Error("no results to analyze");
  Analysis a;
  a.merged = sources.size() > 1;
  a.allow_different_hosts = allow_different_hosts;
  make_labels_unique(sources);
  std::map<std::string, int> seen = condition_counts(sources);
  Merge merge(a);
  std::map<std::string, std::string> merged_sources;
  for (auto& s : sources)
    merge.add(s, [&](const std::string& c) {
      if (seen[c] <= 1) return c;
      std::string name = merged_condition(s.label, c);
      merged_sources.emplace(name, s.label);
      return name;
    });
  if (a.merged)
    for (std::size_t k = 1; k < sources.size(); ++k) {
      if (sources.front().fingerprint.empty() || sources[k].fingerprint.empty()) continue;
      for (auto& diff : differences(sources.front().fingerprint, sources[k].fingerprint)) {
        a.differences.push_back(std::move(diff));
        a.difference_source.push_back(k);
      }
    }
  a.table = build_table(a.samples, a.conditions, a.units);
  a.table.labels = std::move(merge.room_labels);
  a.table.sweeps = std::move(merge.sweeps);
  a.table.merged_sources = std::move(merged_sources);
  for (const auto& acc : a.accounting)
    if (acc.starved()) mark_starved(a.table, acc.condition);
  a.table.accounting = a.accounting;
  a.curves = sweep_curves(a.table);
  if (!a.merged && sources.front().run && !a.gate)
    a.diagnosis = diagnose(*sources.front().run, a.table, a.samples, {});
  a.sources = std::move(sources);
  judge_recorded(a);
  return a;
}

}  // namespace noisefloor::analysis
