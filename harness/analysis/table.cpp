#include "analysis/table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <set>
#include <string_view>
#include <tuple>

#include "analysis/suite.hpp"
#include "model/go_config.hpp"
#include "text/text.hpp"

namespace noisefloor::analysis {

RowKey row_key(const records::SampleRef& s) { return {s.condition, s.name, s.config, s.variant}; }

std::string row_name(std::string_view name, std::string_view config_label, std::string_view variant) {
  std::string out(name);
  if (!config_label.empty()) out += fmt::format(" ({})", config_label);
  if (!variant.empty()) out += fmt::format(" [{}]", variant);
  return out;
}

std::string display_name(const Row& row) { return row_name(row.name, row.config_label, row.variant); }

std::string note_name(const Row& row) {
  return row_name(text::line_label(row.name), row.config_label, row.variant);
}

std::string note_where(const Row& row) { return text::line_label(row.condition) + " / " + note_name(row); }

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
  for (const records::SeriesRef& s : samples.series())
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

Label Table::label_of(const std::string& condition) const {
  const auto it = labels.find(condition);
  return it == labels.end() ? Label::unknown : it->second.label;
}

void mark_starved(Table& table, const std::string& condition) {
  for (auto* rows : {&table.rows, &table.other_metrics})
    for (Row& r : *rows) {
      if (r.condition != condition) continue;
      r.starved = true;
      if (r.summary.band != stats::Band::insufficient) r.summary.band = stats::Band::do_not_trust;
    }
}

namespace {
// Whether two rows have one key (RowKey), without copying it.
bool same_row(const Row& a, const Row& b) {
  return a.condition == b.condition && a.name == b.name && a.config == b.config && a.variant == b.variant;
}
}  // namespace

std::vector<const Row*> all_rows(const Table& t) {
  std::vector<const Row*> out;
  out.reserve(t.rows.size() + t.other_metrics.size());
  std::size_t k = 0;
  for (const Row& r : t.rows) {
    out.push_back(&r);
    while (k < t.other_metrics.size() && same_row(t.other_metrics[k], r))
      out.push_back(&t.other_metrics[k++]);
  }
  for (; k < t.other_metrics.size(); ++k) out.push_back(&t.other_metrics[k]);
  return out;
}

namespace {

// A row while the table is built: its values, and references to the samples' own strings (see
// build_table).
struct Metric {
  const std::string* unit;
  std::size_t position;
  std::vector<double> values;
  std::size_t warmup_discarded = 0, not_numbers = 0;
};
struct Building {
  const std::string *condition, *name, *config, *variant, *benchmark = nullptr;
  std::string pair;
  std::set<int> procs;
  std::vector<Metric> metrics;  // [0]: the primary metric (its unit set by the first kept sample)
  Metric& other(const std::string& unit, std::size_t position) {
    for (std::size_t k = 1; k < metrics.size(); ++k)
      if (*metrics[k].unit == unit) return metrics[k];
    return metrics.emplace_back(Metric{&unit, position, {}});
  }
};

// The row of `b`'s metric `m` (its values move in), summarized.
void make_row(Row& r, const Building& b, Metric& m, const std::set<std::string>& config_keys,
              const model::UnitMetadata& units) {
  r.condition = *b.condition;
  r.name = *b.name;
  r.benchmark = b.benchmark != nullptr ? *b.benchmark : std::string();
  r.config = *b.config;
  r.config_label = model::config_label(model::config_only(r.config, config_keys));
  r.variant = *b.variant;
  r.pair = b.pair;
  r.unit = m.unit != nullptr ? *m.unit : std::string();
  r.metric = m.position;
  r.procs.assign(b.procs.begin(), b.procs.end());
  r.values = std::move(m.values);
  r.values.shrink_to_fit();  // it grew by doubling: up to half of it was room (10^5 rows: 29 MB)
  r.warmup_discarded = m.warmup_discarded;
  r.not_numbers = m.not_numbers;
  r.summary = stats::summarize(r.values);
  // Its scores are one number a sample, read by the JSON export alone, which computes them again
  // (stats::modified_z_scores): a table of 10^5 rows × 3 metrics kept 53 MB of them.
  std::vector<double>().swap(r.summary.modified_z);
  r.exact = model::exact_samples(r.unit, units, {r.values});
  if (r.exact) {
    std::vector<double> ascending = r.values;
    std::sort(ascending.begin(), ascending.end());
    r.mode = mode_of_ascending(ascending);
  }
}

// The rows, condition by condition, each made in place: the table holds its rows once.
void make_rows(Table& t, const std::deque<Building>& rows,
               const std::map<std::string, std::vector<Building*>>& by_condition,
               const model::UnitMetadata& units) {
  std::size_t primaries = 0, others = 0;
  for (const Building& b : rows) {
    ++primaries;
    for (std::size_t k = 1; k < b.metrics.size(); ++k) others += !b.metrics[k].values.empty();
  }
  t.rows.reserve(primaries);
  t.other_metrics.reserve(others);
  for (const auto& cond : t.conditions) {
    const auto it = by_condition.find(cond);
    if (it == by_condition.end()) continue;
    for (Building* b : it->second) {
      make_row(t.rows.emplace_back(), *b, b->metrics.front(), t.config_keys, units);
      // nothing but counters that were not numbers: no row
      for (std::size_t k = 1; k < b->metrics.size(); ++k)
        if (!b->metrics[k].values.empty())
          make_row(t.other_metrics.emplace_back(), *b, b->metrics[k], t.config_keys, units);
      // Its rows are made: what built them goes as the table grows, not after.
      std::vector<Metric>().swap(b->metrics);
      std::set<int>().swap(b->procs);
    }
  }
}

}  // namespace

Table build_table(const records::Samples& samples, const std::vector<std::string>& order,
                  const model::UnitMetadata& units) {
  Table t;
  t.conditions = order;
  t.config_keys = distinguishing_keys(samples);
  const auto first_pair = first_pairs(samples);
  // One pass: each sample into its row; rows of a condition in the order their keys first appear
  // (with variants, each variant of a benchmark is a row of its own). A row's other metrics are
  // kept by unit, in the order they first appear on its lines. While building, a row is its
  // values and references to the samples' own strings; its Row is made once, in place, at the end.
  std::deque<Building> rows;
  // By the samples' own strings (views: no key holds a copy of a name or a configuration).
  using ViewKey = std::tuple<std::string_view, std::string_view, std::string_view, std::string_view>;
  std::map<ViewKey, Building*> by_key;
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
      const ViewKey key{s.condition, s.name, s.config, s.variant};
      auto it = by_key.find(key);
      if (it == by_key.end()) {
        if (std::find(t.conditions.begin(), t.conditions.end(), s.condition) == t.conditions.end())
          t.conditions.push_back(s.condition);
        Building& fresh =
            rows.emplace_back(Building{&s.condition, &s.name, &s.config, &s.variant, nullptr, {}, {}, {}});
        fresh.metrics.push_back(Metric{nullptr, 0, {}});
        if (!first_pair.empty())
          if (const auto pair = first_pair.find(row_key(s)); pair != first_pair.end())
            fresh.pair = pair->second;
        by_condition[s.condition].push_back(&fresh);
        it = by_key.emplace(key, &fresh).first;
      }
      b = it->second;
      last_condition = &s.condition, last_name = &s.name, last_variant = &s.variant, last_pair = &s.pair;
      last_config = &s.config;
      last = b;
    }
    if (s.metrics.empty() || (!b->pair.empty() && s.pair != b->pair)) continue;
    b->benchmark = &s.benchmark;
    Metric& primary = b->metrics.front();
    if (s.warmup) {
      ++primary.warmup_discarded;
      for (std::size_t k = 1; k < s.metrics.size(); ++k) ++b->other(s.metrics[k].unit, k).warmup_discarded;
      continue;
    }
    if (primary.unit == nullptr) primary.unit = &s.metrics.front().unit;
    b->procs.insert(s.procs);
    // Each value to its unit's row, not by its position: a file that lists a sample's units in
    // another order than the others (by hand) mixes no two metrics in one row.
    for (std::size_t k = 0; k < s.metrics.size(); ++k) {
      const records::MetricRef m = s.metrics[k];
      Metric& first = b->metrics.front();  // not `primary`: other() may have moved the metrics
      if (&m.unit == first.unit || m.unit == *first.unit) {
        first.values.push_back(m.value);
        continue;
      }
      Metric& o = b->other(m.unit, k);
      if (std::isfinite(m.value)) {
        o.values.push_back(m.value);
      } else {
        ++o.not_numbers;  // a Google Benchmark counter over zero time
      }
    }
  }
  make_rows(t, rows, by_condition, units);
  // GOMAXPROCS changes GC scheduling: means under different values are not comparable. (Google
  // Benchmark's "/threads:N" instances are benchmarks of their own, told apart on every line.)
  std::set<int> all_procs;
  for (const auto& r : t.rows) all_procs.insert(r.procs.begin(), r.procs.end());
  if (all_procs.size() > 1 && !threads_not_procs(t)) t.mixed_procs.assign(all_procs.begin(), all_procs.end());
  return t;
}

}  // namespace noisefloor::analysis
