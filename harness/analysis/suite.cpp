#include "analysis/suite.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace noisefloor::analysis {

std::string suite_name(const Row& row) {
  std::string name = row.name;
  if (const auto at = name.find("/threads:"); at != std::string::npos) {
    std::size_t end = at + 9;
    while (end < name.size() && name[end] >= '0' && name[end] <= '9') ++end;
    if (end > at + 9) name.erase(at, end - at);
  } else {
    name = row.benchmark.empty() ? row.name : row.benchmark;
  }
  if (name.starts_with("Benchmark") && name.size() > 9) name.erase(0, 9);
  return name;
}

bool SuiteLine::same_procs() const {
  std::optional<std::vector<int>> first;
  for (const Row* r : cells) {
    if (r == nullptr) continue;
    if (!first) first = r->procs;
    if (r->procs != *first) return false;
  }
  return true;
}

std::string SuiteLine::procs_text() const {
  std::vector<std::string> parts;
  for (const Row* r : cells)
    if (r != nullptr && r->procs.size() == 1) parts.push_back(std::to_string(r->procs.front()));
  if (parts.empty()) return "";
  if (same_procs()) return parts.front();
  return fmt::format("{}", fmt::join(parts, " "));
}

bool SuiteLine::constant() const {
  std::optional<double> value;
  for (const Row* r : cells) {
    if (r == nullptr) continue;
    if (r->summary.n == 0 || r->summary.min != r->summary.max) return false;
    if (value && *value != r->summary.min) return false;
    value = r->summary.min;
  }
  return value.has_value();
}

namespace {

// A benchmark: its configuration, variant and suite name.
using Bench = std::tuple<std::string, std::string, std::string>;

// What suite_lines groups, first seen first: configurations, benchmarks of each, (metric, unit).
struct SuiteIndex {
  std::vector<std::string> configs;
  std::vector<std::vector<std::size_t>> benches_of;  // per configuration: benchmarks, first seen
  std::vector<Bench> benches;
  std::vector<std::string> labels;                           // per benchmark: its first row's config label
  std::vector<std::pair<std::size_t, std::string>> metrics;  // (metric, unit), first seen
  // (benchmark, metric, condition) -> the rows, in ascending parallelism
  std::map<std::tuple<std::size_t, std::size_t, std::size_t>, std::vector<const Row*>> by;
};

// Numbers each distinct value in the order first seen: O(log n) per value.
template <typename T>
std::size_t number_of(std::map<T, std::size_t>& numbers, std::vector<T>& seen, const T& value) {
  const auto [it, added] = numbers.emplace(value, seen.size());
  if (added) seen.push_back(value);
  return it->second;
}

int procs_key(const Row* r) { return r->procs.empty() ? 0 : r->procs.front(); }

SuiteIndex index_suite(const Table& t) {
  std::map<std::string, std::size_t> condition_at;
  for (std::size_t i = 0; i < t.conditions.size(); ++i) condition_at.emplace(t.conditions[i], i);
  SuiteIndex x;
  std::map<std::string, std::size_t> config_numbers;
  std::map<Bench, std::size_t> bench_numbers;
  std::map<std::pair<std::size_t, std::string>, std::size_t> metric_numbers;
  for (const Row* r : all_rows(t)) {
    const auto at = condition_at.find(r->condition);
    if (at == condition_at.end()) continue;
    const std::size_t config = number_of(config_numbers, x.configs, r->config);
    if (x.benches_of.size() < x.configs.size()) x.benches_of.emplace_back();
    const std::size_t before = x.benches.size();
    const std::size_t bench =
        number_of(bench_numbers, x.benches, Bench{r->config, r->variant, suite_name(*r)});
    if (x.benches.size() > before) {
      x.benches_of[config].push_back(bench);
      x.labels.push_back(r->config_label);
    }
    // A unit is one table whatever its place on the line (B/op is second or third).
    const std::size_t metric = r->metric == 0 ? 0 : 1;
    number_of(metric_numbers, x.metrics, std::pair<std::size_t, std::string>{metric, r->unit});
    x.by[{bench, metric_numbers.at({metric, r->unit}), at->second}].push_back(r);
  }
  for (auto& [key, list] : x.by)
    std::stable_sort(list.begin(), list.end(),
                     [](const Row* a, const Row* b) { return procs_key(a) < procs_key(b); });
  return x;
}

// One benchmark's lines of one (metric, unit): one parallelism per condition gives one line,
// whatever they are; several in a condition (go test -cpu 1,2) a line per parallelism, each
// condition's row of that count on it.
void add_lines(const SuiteIndex& x, const Table& t, std::size_t bench, std::size_t m,
               std::vector<SuiteLine>& out) {
  std::vector<const std::vector<const Row*>*> cells(t.conditions.size(), nullptr);
  bool several = false;
  std::vector<int> counts;
  for (std::size_t c = 0; c < t.conditions.size(); ++c)
    if (const auto it = x.by.find({bench, m, c}); it != x.by.end()) {
      cells[c] = &it->second;
      several = several || it->second.size() > 1;
      for (const Row* r : it->second) counts.push_back(procs_key(r));
    }
  if (counts.empty()) return;
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  if (!several) counts.resize(1);
  const auto& [config, variant, name] = x.benches[bench];
  for (const int count : counts) {
    SuiteLine line{config, x.labels[bench], variant, name, x.metrics[m].second, x.metrics[m].first, {}};
    line.cells.assign(t.conditions.size(), nullptr);
    for (std::size_t c = 0; c < t.conditions.size(); ++c)
      if (cells[c] != nullptr)
        for (const Row* r : *cells[c])
          if (!several || procs_key(r) == count) {
            line.cells[c] = r;
            break;
          }
    out.push_back(std::move(line));
  }
}

}  // namespace

std::vector<SuiteLine> suite_lines(const Table& t) {
  const SuiteIndex x = index_suite(t);
  // The primary metric first, then the others as they came.
  std::vector<std::size_t> metric_order(x.metrics.size());
  for (std::size_t m = 0; m < metric_order.size(); ++m) metric_order[m] = m;
  std::stable_sort(metric_order.begin(), metric_order.end(), [&](std::size_t a, std::size_t b) {
    return (x.metrics[a].first == 0) > (x.metrics[b].first == 0);
  });
  std::vector<SuiteLine> out;
  for (std::size_t config = 0; config < x.configs.size(); ++config)
    for (const std::size_t m : metric_order)
      for (const std::size_t bench : x.benches_of[config]) add_lines(x, t, bench, m, out);
  return out;
}

std::vector<const Row*> rows_by_benchmark(const Table& t) {
  const std::vector<SuiteLine> lines = suite_lines(t);
  // The lines of one benchmark together, benchmarks first seen first.
  std::map<std::tuple<std::string, std::string, std::string>, std::size_t> numbers;
  std::vector<std::size_t> group(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i)
    group[i] = numbers.emplace(std::tuple{lines[i].config, lines[i].variant, lines[i].name}, numbers.size())
                   .first->second;
  std::vector<std::size_t> order(lines.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return group[a] < group[b]; });
  std::vector<const Row*> out;
  for (const std::size_t i : order)
    for (const Row* r : lines[i].cells)
      if (r != nullptr) out.push_back(r);
  return out;
}

bool threads_not_procs(const Table& t) {
  // Google Benchmark names a thread count in the name ("BM_X/threads:2") when one is asked for;
  // a Go name never has it.
  return std::any_of(t.rows.begin(), t.rows.end(),
                     [](const Row& r) { return r.name.find("/threads:") != std::string::npos; });
}

}  // namespace noisefloor::analysis
