#include "analysis/table.hpp"

#include <fmt/format.h>

#include <algorithm>
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

std::string display_name(const records::Sample& sample) { return with_variant(sample.name, sample.variant); }

bool in_row(const Row& row, const records::Sample& s) {
  return s.condition == row.condition && s.name == row.name && s.variant == row.variant && !s.metrics.empty() &&
         (row.pair.empty() || s.pair == row.pair);
}

namespace {
using RowKey = std::tuple<std::string, std::string, std::string>;  // condition, full name, variant
RowKey row_key(const records::Sample& s) { return {s.condition, s.name, s.variant}; }

// Paired design: the pair each row's samples come from (the first it ran in).
std::map<RowKey, std::string> first_pairs(std::span<const records::Sample> samples) {
  std::map<RowKey, std::string> first;
  for (const auto& s : samples)
    if (!s.pair.empty()) first.emplace(row_key(s), s.pair);
  return first;
}
}  // namespace

std::vector<records::Sample> row_samples(std::span<const records::Sample> samples) {
  const auto first = first_pairs(samples);
  std::vector<records::Sample> out;
  for (const auto& s : samples) {
    const auto it = first.find(row_key(s));
    if (it == first.end() || it->second == s.pair) out.push_back(s);
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

Table build_table(std::span<const records::Sample> samples, const std::vector<std::string>& order) {
  Table t;
  t.conditions = order;
  for (const auto& s : samples)
    if (std::find(t.conditions.begin(), t.conditions.end(), s.condition) == t.conditions.end())
      t.conditions.push_back(s.condition);
  const auto first_pair = first_pairs(samples);
  for (const auto& cond : t.conditions) {
    // With variants, each variant of a benchmark is its own row.
    using Key = std::pair<std::string, std::string>;  // full name, variant
    auto key_of = [](const records::Sample& s) { return Key{s.name, s.variant}; };
    std::vector<Key> keys;
    for (const auto& s : samples)
      if (s.condition == cond && std::find(keys.begin(), keys.end(), key_of(s)) == keys.end())
        keys.push_back(key_of(s));
    for (const auto& k : keys) {
      Row r;
      r.condition = cond;
      r.name = k.first;
      r.variant = k.second;
      if (const auto pair = first_pair.find({cond, k.first, k.second}); pair != first_pair.end()) r.pair = pair->second;
      std::set<int> procs;
      for (const auto& s : samples) {
        if (!in_row(r, s)) continue;
        r.benchmark = s.benchmark;
        if (s.warmup) {
          ++r.warmup_discarded;
          continue;
        }
        if (r.unit.empty()) r.unit = s.metrics.front().unit;
        r.values.push_back(s.metrics.front().value);
        procs.insert(s.procs);
      }
      r.procs.assign(procs.begin(), procs.end());
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
