#include "analysis/table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace noisefloor::analysis {

namespace {
std::string with_variant(const std::string& benchmark, const std::string& variant) {
  return variant.empty() ? benchmark : fmt::format("{} [{}]", benchmark, variant);
}
}  // namespace

std::string display_name(const Row& row) { return with_variant(row.benchmark, row.variant); }

std::string display_name(const records::Sample& sample) { return with_variant(sample.benchmark, sample.variant); }

std::string table_name(const Row& row) {
  std::string bench = row.benchmark;
  if (row.procs.size() == 1 && row.procs.front() != 1) bench += fmt::format("-{}", row.procs.front());
  return with_variant(bench, row.variant);
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
  for (const auto& cond : t.conditions) {
    // With variants, each variant of a benchmark is its own row.
    using Key = std::pair<std::string, std::string>;  // benchmark, variant
    auto key_of = [](const records::Sample& s) { return Key{s.benchmark, s.variant}; };
    std::vector<Key> benchmarks;
    for (const auto& s : samples)
      if (s.condition == cond && std::find(benchmarks.begin(), benchmarks.end(), key_of(s)) == benchmarks.end())
        benchmarks.push_back(key_of(s));
    for (const auto& b : benchmarks) {
      Row r;
      r.condition = cond;
      r.benchmark = b.first;
      r.variant = b.second;
      std::set<int> procs;
      for (const auto& s : samples) {
        if (s.condition != cond || key_of(s) != b || s.metrics.empty()) continue;
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
    if (r.procs.size() > 1)
      t.notes.push_back(fmt::format("{} / {}: mixed GOMAXPROCS values {}", r.condition, display_name(r),
                                    fmt::join(r.procs, ", ")));
  }
  // GOMAXPROCS changes GC scheduling: means under different values are not comparable.
  std::set<int> all_procs;
  for (const auto& r : t.rows) all_procs.insert(r.procs.begin(), r.procs.end());
  if (all_procs.size() > 1)
    t.notes.push_back(
        fmt::format("GOMAXPROCS differs between conditions ({}): compare CVs, not means", fmt::join(all_procs, ", ")));
  return t;
}

void to_json(nlohmann::json& j, const Row& r) {
  j = {{"condition", r.condition},
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
