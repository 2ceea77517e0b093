#include "analysis/table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <tuple>

namespace noisefloor::analysis {

namespace {
std::string with_variant(const std::string& benchmark, const std::string& variant) {
  return variant.empty() ? benchmark : fmt::format("{} [{}]", benchmark, variant);
}
}  // namespace

std::string display_name(const Row& row) { return with_variant(row.name, row.variant); }

std::string display_name(const records::SampleRef& sample) { return with_variant(sample.name, sample.variant); }

bool in_row(const Row& row, const records::SampleRef& s) {
  return s.condition == row.condition && s.name == row.name && s.variant == row.variant && !s.metrics.empty() &&
         (row.pair.empty() || s.pair == row.pair);
}

namespace {
using RowKey = std::tuple<std::string, std::string, std::string>;  // condition, full name, variant
RowKey row_key(const records::SampleRef& s) { return {s.condition, s.name, s.variant}; }

// Paired design: the pair each row's samples come from (the first it ran in).
std::map<RowKey, std::string> first_pairs(const records::Samples& samples) {
  std::map<RowKey, std::string> first;
  if (!samples.any_pair()) return first;
  for (const records::SampleRef s : samples)
    if (!s.pair.empty()) first.emplace(row_key(s), s.pair);
  return first;
}
}  // namespace

std::vector<bool> row_samples(const records::Samples& samples) {
  if (!samples.any_pair()) return std::vector<bool>(samples.size(), true);
  const auto first = first_pairs(samples);
  std::vector<bool> out;
  out.reserve(samples.size());
  for (const records::SampleRef s : samples) {
    if (first.empty()) {
      out.push_back(true);
      continue;
    }
    const auto it = first.find(row_key(s));
    out.push_back(it == first.end() || it->second == s.pair);
  }
  return out;
}

Flags flags_of(const Row& row) {
  Flags f;
  for (auto o : row.summary.outliers) f.outliers += o != stats::Outlier::none;
  f.drift = row.summary.drift;
  f.shape = row.summary.shape;
  f.few = row.summary.n < 2;
  return f;
}

Table build_table(const records::Samples& samples, const std::vector<std::string>& order) {
  Table t;
  t.conditions = order;
  const auto first_pair = first_pairs(samples);
  // One pass: each sample into its row; rows of a condition in the order their keys first appear
  // (with variants, each variant of a benchmark is a row of its own).
  struct Building {
    Row row;
    std::set<int> procs;
  };
  std::deque<Building> rows;
  std::map<RowKey, Building*> by_key;
  std::map<std::string, std::vector<Building*>> by_condition;
  // Consecutive samples mostly share a row; stored samples share their strings, so the strings'
  // addresses find it again without comparing them.
  const std::string *last_condition = nullptr, *last_name = nullptr, *last_variant = nullptr, *last_pair = nullptr;
  Building* last = nullptr;
  for (const records::SampleRef s : samples) {
    Building* b;
    if (&s.condition == last_condition && &s.name == last_name && &s.variant == last_variant &&
        &s.pair == last_pair) {
      b = last;
    } else {
      auto key = row_key(s);
      auto it = by_key.find(key);
      if (it == by_key.end()) {
        if (std::find(t.conditions.begin(), t.conditions.end(), s.condition) == t.conditions.end())
          t.conditions.push_back(s.condition);
        Building& fresh = rows.emplace_back();
        fresh.row.condition = s.condition;
        fresh.row.name = s.name;
        fresh.row.variant = s.variant;
        if (const auto pair = first_pair.find(key); pair != first_pair.end()) fresh.row.pair = pair->second;
        by_condition[s.condition].push_back(&fresh);
        it = by_key.emplace(std::move(key), &fresh).first;
      }
      b = it->second;
      last_condition = &s.condition, last_name = &s.name, last_variant = &s.variant, last_pair = &s.pair;
      last = b;
    }
    Row& r = b->row;
    if (s.metrics.empty() || (!r.pair.empty() && s.pair != r.pair)) continue;
    r.benchmark = s.benchmark;
    if (s.warmup) {
      ++r.warmup_discarded;
      continue;
    }
    const records::MetricRef primary = s.metrics.front();
    if (r.unit.empty()) r.unit = primary.unit;
    r.values.push_back(primary.value);
    b->procs.insert(s.procs);
  }
  for (const auto& cond : t.conditions) {
    const auto it = by_condition.find(cond);
    if (it == by_condition.end()) continue;
    for (Building* b : it->second) {
      Row& r = b->row;
      r.procs.assign(b->procs.begin(), b->procs.end());
      r.summary = stats::summarize(r.values);
      t.rows.push_back(std::move(r));
    }
  }
  for (const auto& r : t.rows) {
    for (const auto& w : r.summary.warnings) {
      // The table cell already says "± ∞ (n<6)".
      if (w.find("no 95% median CI") != std::string::npos) continue;
      t.notes.push_back(fmt::format("{} / {}: {}", r.condition, display_name(r), w));
    }
  }
  // GOMAXPROCS changes GC scheduling: means under different values are not comparable.
  std::set<int> all_procs;
  for (const auto& r : t.rows) all_procs.insert(r.procs.begin(), r.procs.end());
  if (all_procs.size() > 1)
    t.notes.push_back(
        fmt::format("GOMAXPROCS differs between rows ({}): compare CVs, not means", fmt::join(all_procs, ", ")));
  return t;
}

void to_json(nlohmann::json& j, const Row& r) {
  j = {{"condition", r.condition},
       {"name", r.name},
       {"benchmark", r.benchmark},
       {"unit", r.unit},
       {"procs", r.procs},
       {"warmup_discarded", r.warmup_discarded},
       {"values", r.values},
       {"summary", r.summary}};
  if (!r.variant.empty()) j["variant"] = r.variant;  // paired designs only
}

void to_json(nlohmann::json& j, const Table& t) {
  j = {{"conditions", t.conditions}, {"rows", t.rows}, {"notes", t.notes}};
}

}  // namespace noisefloor::analysis
