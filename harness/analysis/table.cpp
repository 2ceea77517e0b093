#include "analysis/table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <set>
#include <tuple>

#include "analysis/suite.hpp"
#include "model/go_config.hpp"

namespace noisefloor::analysis {

RowKey row_key(const records::SampleRef& s) { return {s.condition, s.name, s.config, s.variant}; }

std::string row_name(std::string_view name, std::string_view config_label, std::string_view variant) {
  std::string out(name);
  if (!config_label.empty()) out += fmt::format(" ({})", config_label);
  if (!variant.empty()) out += fmt::format(" [{}]", variant);
  return out;
}

std::string display_name(const Row& row) { return row_name(row.name, row.config_label, row.variant); }

bool in_row(const Row& row, const records::SampleRef& s) {
  return s.condition == row.condition && s.name == row.name && s.config == row.config &&
         s.variant == row.variant && !s.metrics.empty() && (row.pair.empty() || s.pair == row.pair);
}

namespace {
// Paired design: the pair each row's samples come from (the first it ran in).
std::map<RowKey, std::string> first_pairs(const records::Samples& samples) {
  std::map<RowKey, std::string> first;
  if (!samples.any_pair()) return first;
  for (const records::SampleRef s : samples)
    if (!s.pair.empty()) first.emplace(row_key(s), s.pair);
  return first;
}

}  // namespace

double mode_of_ascending(std::span<const double> ascending) {
  double best = stats::kNaN;
  std::size_t best_count = 0;
  for (std::size_t i = 0; i < ascending.size();) {
    std::size_t j = i;
    while (j < ascending.size() && ascending[j] == ascending[i]) ++j;
    if (j - i > best_count) best = ascending[i], best_count = j - i;
    i = j;
  }
  return best;
}

std::set<std::string> distinguishing_keys(const records::Samples& samples) {
  // Stored samples share their strings: the distinct (condition, config) pairs by address first.
  std::set<std::pair<const std::string*, const std::string*>> seen;
  std::map<std::string, std::set<std::string>> configs;  // condition -> its configurations
  for (const records::SampleRef s : samples)
    if (seen.emplace(&s.condition, &s.config).second) configs[s.condition].insert(s.config);
  std::set<std::string> keys;
  for (const auto& [condition, texts] : configs) {
    if (texts.size() < 2) continue;
    std::map<std::string, std::set<std::string>> values;  // key -> values ("\x01" for absent)
    std::set<std::string> all;
    for (const auto& text : texts)
      for (const auto& [k, v] : model::config_entries(text)) all.insert(k);
    for (const auto& text : texts) {
      const auto entries = model::config_entries(text);
      for (const auto& k : all) {
        const auto it =
            std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.first == k; });
        values[k].insert(it == entries.end() ? std::string("\x01") : it->second);
      }
    }
    for (const auto& [k, vs] : values)
      if (vs.size() > 1) keys.insert(k);
  }
  return keys;
}

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
  f.starved = row.starved;
  return f;
}

std::string Table::label_of(const std::string& condition) const {
  const auto it = labels.find(condition);
  return it == labels.end() ? std::string("UNKNOWN") : it->second.label;
}

void mark_starved(Table& table, const std::string& condition) {
  for (auto* rows : {&table.rows, &table.other_metrics})
    for (Row& r : *rows) {
      if (r.condition != condition) continue;
      r.starved = true;
      if (r.summary.band != stats::Band::insufficient) r.summary.band = stats::Band::do_not_trust;
    }
}

std::vector<const Row*> all_rows(const Table& t) {
  std::vector<const Row*> out;
  out.reserve(t.rows.size() + t.other_metrics.size());
  std::size_t k = 0;
  for (const Row& r : t.rows) {
    out.push_back(&r);
    while (k < t.other_metrics.size() && t.other_metrics[k].key() == r.key())
      out.push_back(&t.other_metrics[k++]);
  }
  for (; k < t.other_metrics.size(); ++k) out.push_back(&t.other_metrics[k]);
  return out;
}

Table build_table(const records::Samples& samples, const std::vector<std::string>& order,
                  const model::UnitMetadata& units) {
  Table t;
  t.conditions = order;
  t.config_keys = distinguishing_keys(samples);
  const auto first_pair = first_pairs(samples);
  // One pass: each sample into its row; rows of a condition in the order their keys first appear
  // (with variants, each variant of a benchmark is a row of its own). A row's other metrics are
  // kept by unit, in the order they first appear on its lines.
  struct Building {
    Row row;
    std::set<int> procs;
    std::vector<Row> others;
    Row& other(const std::string& unit, std::size_t position) {
      for (Row& o : others)
        if (o.unit == unit) return o;
      Row& o = others.emplace_back();
      o.unit = unit;
      o.metric = position;
      return o;
    }
  };
  std::deque<Building> rows;
  std::map<RowKey, Building*> by_key;
  std::map<std::string, std::vector<Building*>> by_condition;
  // Consecutive samples mostly share a row; stored samples share their strings, so the strings'
  // addresses find it again without comparing them.
  const std::string *last_condition = nullptr, *last_name = nullptr, *last_variant = nullptr,
                    *last_pair = nullptr, *last_config = nullptr;
  Building* last = nullptr;
  for (const records::SampleRef s : samples) {
    Building* b;
    if (&s.condition == last_condition && &s.name == last_name && &s.variant == last_variant &&
        &s.pair == last_pair && &s.config == last_config) {
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
        fresh.row.config = s.config;
        fresh.row.config_label = model::config_label(model::config_only(s.config, t.config_keys));
        fresh.row.variant = s.variant;
        if (const auto pair = first_pair.find(key); pair != first_pair.end()) fresh.row.pair = pair->second;
        by_condition[s.condition].push_back(&fresh);
        it = by_key.emplace(std::move(key), &fresh).first;
      }
      b = it->second;
      last_condition = &s.condition, last_name = &s.name, last_variant = &s.variant, last_pair = &s.pair;
      last_config = &s.config;
      last = b;
    }
    Row& r = b->row;
    if (s.metrics.empty() || (!r.pair.empty() && s.pair != r.pair)) continue;
    r.benchmark = s.benchmark;
    if (s.warmup) {
      ++r.warmup_discarded;
      for (std::size_t k = 1; k < s.metrics.size(); ++k) ++b->other(s.metrics[k].unit, k).warmup_discarded;
      continue;
    }
    const records::MetricRef primary = s.metrics.front();
    if (r.unit.empty()) r.unit = primary.unit;
    r.values.push_back(primary.value);
    b->procs.insert(s.procs);
    for (std::size_t k = 1; k < s.metrics.size(); ++k) {
      const records::MetricRef m = s.metrics[k];
      Row& o = b->other(m.unit, k);
      if (std::isfinite(m.value)) {
        o.values.push_back(m.value);
      } else {
        ++o.not_numbers;  // a Google Benchmark counter over zero time
      }
    }
  }
  const auto finish = [&units](Row& r, const std::set<int>& procs) {
    r.procs.assign(procs.begin(), procs.end());
    r.summary = stats::summarize(r.values);
    r.exact = model::assume_exact(r.unit, units);
    if (r.exact) {
      std::vector<double> ascending = r.values;
      std::sort(ascending.begin(), ascending.end());
      r.mode = mode_of_ascending(ascending);
    }
  };
  for (const auto& cond : t.conditions) {
    const auto it = by_condition.find(cond);
    if (it == by_condition.end()) continue;
    for (Building* b : it->second) {
      Row& r = b->row;
      finish(r, b->procs);
      for (Row& o : b->others) {
        const std::string unit = o.unit;
        const std::size_t metric = o.metric, warmup = o.warmup_discarded, not_numbers = o.not_numbers;
        std::vector<double> values = std::move(o.values);
        o = r;  // the row's identity
        o.unit = unit, o.metric = metric, o.warmup_discarded = warmup, o.not_numbers = not_numbers;
        o.values = std::move(values);
        if (o.values.empty()) continue;  // nothing but counters that were not numbers
        finish(o, b->procs);
      }
      t.rows.push_back(std::move(r));
      for (Row& o : b->others)
        if (!o.values.empty()) t.other_metrics.push_back(std::move(o));
    }
  }
  for (const auto& r : t.rows) {
    for (const auto& w : r.summary.warnings) {
      // The table cell already says "± ∞ (n<6)".
      if (w.find("no 95% median CI") != std::string::npos) continue;
      t.notes.push_back(fmt::format("{} / {}: {}", r.condition, display_name(r), w));
    }
  }
  // GOMAXPROCS changes GC scheduling: means under different values are not comparable. (Google
  // Benchmark's "/threads:N" instances are benchmarks of their own, told apart on every line.)
  std::set<int> all_procs;
  for (const auto& r : t.rows) all_procs.insert(r.procs.begin(), r.procs.end());
  if (all_procs.size() > 1 && !threads_not_procs(t))
    t.notes.push_back(fmt::format("GOMAXPROCS differs between rows ({}): compare CVs, not means",
                                  fmt::join(all_procs, ", ")));
  return t;
}

}  // namespace noisefloor::analysis
