#include "analysis/suite.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <span>
#include <string_view>
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

std::string SuiteLine::shown_name() const {
  return variant.empty() ? name : fmt::format("{} [{}]", name, variant);
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

// A benchmark: its configuration, variant (views of its first row's) and suite name.
struct Bench {
  std::string_view config, variant;
  std::string name;
};
using BenchKey = std::tuple<std::string_view, std::string_view, std::string_view>;

// A row under its benchmark, metric and condition (numbers of SuiteIndex).
struct Placed {
  std::size_t bench, metric, condition;
  const Row* row;
};

int procs_key(const Row* r) { return r->procs.empty() ? 0 : r->procs.front(); }

// What suite_lines groups, first seen first: configurations, benchmarks of each, (metric, unit).
// Numbers and views, no copies of a row's strings but the suite names: a table of 10^5
// benchmarks holds its rows once.
struct SuiteIndex {
  std::vector<std::string_view> configs;
  std::vector<std::vector<std::size_t>> benches_of;  // per configuration: benchmarks, first seen
  std::deque<Bench> benches;                         // a deque: the keys below view its names
  std::vector<std::string_view> labels;              // per benchmark: its first row's config label
  std::vector<std::pair<std::size_t, std::string_view>> metrics;  // (metric, unit), first seen
  // Every row, by (benchmark, metric, condition), then in ascending parallelism.
  std::vector<Placed> placed;

  std::span<const Placed> rows_of(std::size_t bench, std::size_t metric, std::size_t condition) const {
    const auto [lo, hi] = std::equal_range(
        placed.begin(), placed.end(), Placed{bench, metric, condition, nullptr},
        [](const Placed& a, const Placed& b) {
          return std::tie(a.bench, a.metric, a.condition) < std::tie(b.bench, b.metric, b.condition);
        });
    return {lo, hi};
  }
  bool any_row(std::size_t bench, std::size_t metric) const {
    const auto at = std::lower_bound(placed.begin(), placed.end(), std::pair(bench, metric),
                                     [](const Placed& a, const std::pair<std::size_t, std::size_t>& key) {
                                       return std::pair(a.bench, a.metric) < key;
                                     });
    return at != placed.end() && at->bench == bench && at->metric == metric;
  }
};

// Numbers each distinct value in the order first seen: O(log n) per value.
template <typename T>
std::size_t number_of(std::map<T, std::size_t>& numbers, std::vector<T>& seen, const T& value) {
  const auto [it, added] = numbers.emplace(value, seen.size());
  if (added) seen.push_back(value);
  return it->second;
}

SuiteIndex index_suite(const Table& t) {
  std::map<std::string_view, std::size_t> condition_at;
  for (std::size_t i = 0; i < t.conditions.size(); ++i) condition_at.emplace(t.conditions[i], i);
  SuiteIndex x;
  std::map<std::string_view, std::size_t> config_numbers;
  std::map<BenchKey, std::size_t> bench_numbers;
  std::map<std::pair<std::size_t, std::string_view>, std::size_t> metric_numbers;
  const std::vector<const Row*> rows = all_rows(t);
  x.placed.reserve(rows.size());
  for (const Row* r : rows) {
    const auto at = condition_at.find(r->condition);
    if (at == condition_at.end()) continue;
    const std::size_t config = number_of(config_numbers, x.configs, std::string_view(r->config));
    if (x.benches_of.size() < x.configs.size()) x.benches_of.emplace_back();
    std::string name = suite_name(*r);
    auto bench = bench_numbers.find(BenchKey{r->config, r->variant, name});
    if (bench == bench_numbers.end()) {
      const Bench& b = x.benches.emplace_back(Bench{r->config, r->variant, std::move(name)});
      bench = bench_numbers.emplace(BenchKey{b.config, b.variant, b.name}, x.benches.size() - 1).first;
      x.benches_of[config].push_back(bench->second);
      x.labels.push_back(r->config_label);
    }
    // A unit is one table whatever its place on the line (B/op is second or third).
    const std::size_t metric = r->metric == 0 ? 0 : 1;
    const std::size_t m =
        number_of(metric_numbers, x.metrics, std::pair<std::size_t, std::string_view>{metric, r->unit});
    x.placed.push_back({bench->second, m, at->second, r});
  }
  std::stable_sort(x.placed.begin(), x.placed.end(), [](const Placed& a, const Placed& b) {
    return std::tuple(a.bench, a.metric, a.condition, procs_key(a.row)) <
           std::tuple(b.bench, b.metric, b.condition, procs_key(b.row));
  });
  return x;
}

// One benchmark's lines of one (metric, unit): one parallelism per condition gives one line,
// whatever they are; several in a condition (go test -cpu 1,2) a line per parallelism, each
// condition's row of that count on it.
void add_lines(const SuiteIndex& x, const Table& t, std::size_t bench, std::size_t m,
               std::vector<SuiteLine>& out) {
  std::vector<std::span<const Placed>> cells(t.conditions.size());
  bool several = false;
  std::vector<int> counts;
  for (std::size_t c = 0; c < t.conditions.size(); ++c) {
    cells[c] = x.rows_of(bench, m, c);
    several = several || cells[c].size() > 1;
    for (const Placed& p : cells[c]) counts.push_back(procs_key(p.row));
  }
  if (counts.empty()) return;
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  if (!several) counts.resize(1);
  const Bench& b = x.benches[bench];
  for (const int count : counts) {
    SuiteLine& line = out.emplace_back(SuiteLine{
        b.config, x.labels[bench], b.variant, b.name, x.metrics[m].second, x.metrics[m].first, bench, {}});
    line.cells.assign(t.conditions.size(), nullptr);
    for (std::size_t c = 0; c < t.conditions.size(); ++c)
      for (const Placed& p : cells[c])
        if (!several || procs_key(p.row) == count) {
          line.cells[c] = p.row;
          break;
        }
  }
}

// The primary metric first, then the others as they came.
std::vector<std::size_t> metric_order(const SuiteIndex& x) {
  std::vector<std::size_t> order(x.metrics.size());
  for (std::size_t m = 0; m < order.size(); ++m) order[m] = m;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return (x.metrics[a].first == 0) > (x.metrics[b].first == 0);
  });
  return order;
}

}  // namespace

std::vector<SuiteLine> suite_lines(const Table& t) {
  const SuiteIndex x = index_suite(t);
  const std::vector<std::size_t> metric_order = analysis::metric_order(x);
  // A line per (benchmark, metric) at least; more only where a condition ran several parallelisms.
  std::size_t groups = 0;
  for (std::size_t i = 0; i < x.placed.size(); ++i)
    groups +=
        i == 0 || x.placed[i].bench != x.placed[i - 1].bench || x.placed[i].metric != x.placed[i - 1].metric;
  std::vector<SuiteLine> out;
  out.reserve(groups);
  for (std::size_t config = 0; config < x.configs.size(); ++config)
    for (const std::size_t m : metric_order)
      for (const std::size_t bench : x.benches_of[config]) add_lines(x, t, bench, m, out);
  // Benchmarks numbered as first seen in the lines, not in the rows.
  std::vector<std::size_t> number(x.benches.size(), x.benches.size());
  std::size_t next = 0;
  for (SuiteLine& l : out) {
    if (number[l.benchmark] == x.benches.size()) number[l.benchmark] = next++;
    l.benchmark = number[l.benchmark];
  }
  return out;
}

std::vector<const Row*> rows_by_benchmark(const Table& t) {
  // suite_lines' lines of one benchmark together, benchmarks as first seen in them, made a
  // benchmark at a time: all of them at once held as much memory again as the rows.
  const SuiteIndex x = index_suite(t);
  const std::vector<std::size_t> metrics = metric_order(x);
  std::vector<std::size_t> benches;
  std::vector<bool> seen(x.benches.size());
  for (std::size_t config = 0; config < x.configs.size(); ++config)
    for (const std::size_t m : metrics)
      for (const std::size_t bench : x.benches_of[config])
        if (!seen[bench] && x.any_row(bench, m)) {
          seen[bench] = true;
          benches.push_back(bench);
        }
  std::vector<const Row*> out;
  out.reserve(x.placed.size());
  std::vector<SuiteLine> lines;
  for (const std::size_t bench : benches) {
    lines.clear();
    for (const std::size_t m : metrics) add_lines(x, t, bench, m, lines);
    for (const SuiteLine& l : lines)
      for (const Row* r : l.cells)
        if (r != nullptr) out.push_back(r);
  }
  return out;
}

bool threads_not_procs(const Table& t) {
  // Google Benchmark names a thread count in the name ("BM_X/threads:2") when one is asked for;
  // a Go name never has it.
  return std::any_of(t.rows.begin(), t.rows.end(),
                     [](const Row& r) { return r.name.find("/threads:") != std::string::npos; });
}

}  // namespace noisefloor::analysis
