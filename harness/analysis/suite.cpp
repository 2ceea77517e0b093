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

std::vector<SuiteLine> suite_lines(const Table& t) {
  const std::vector<const Row*> rows = all_rows(t);
  std::map<std::string, std::size_t> condition_at;
  for (std::size_t i = 0; i < t.conditions.size(); ++i) condition_at.emplace(t.conditions[i], i);
  // A benchmark: its configuration, variant and suite name. Each condition's rows of it, by
  // metric, in ascending parallelism.
  using Bench = std::tuple<std::string, std::string, std::string>;
  std::vector<Bench> benches;
  std::vector<std::string> configs;
  std::vector<std::pair<std::size_t, std::string>> metrics;  // (metric, unit), first seen
  std::map<Bench, std::string> labels;
  std::map<std::tuple<Bench, std::size_t, std::string, std::size_t>, std::vector<const Row*>> by;
  for (const Row* r : rows) {
    const auto at = condition_at.find(r->condition);
    if (at == condition_at.end()) continue;
    const Bench b{r->config, r->variant, suite_name(*r)};
    if (std::find(benches.begin(), benches.end(), b) == benches.end()) benches.push_back(b);
    if (std::find(configs.begin(), configs.end(), r->config) == configs.end()) configs.push_back(r->config);
    // A unit is one table whatever its place on the line (B/op is second or third).
    const std::size_t metric = r->metric == 0 ? 0 : 1;
    const std::pair<std::size_t, std::string> m{metric, r->unit};
    if (std::find(metrics.begin(), metrics.end(), m) == metrics.end()) metrics.push_back(m);
    labels.emplace(b, r->config_label);
    by[{b, metric, r->unit, at->second}].push_back(r);
  }
  // The primary metric first, then the others as they came.
  std::stable_sort(metrics.begin(), metrics.end(),
                   [](const auto& a, const auto& b) { return (a.first == 0) > (b.first == 0); });
  const auto procs_key = [](const Row* r) { return r->procs.empty() ? 0 : r->procs.front(); };
  for (auto& [key, list] : by)
    std::stable_sort(list.begin(), list.end(),
                     [&](const Row* a, const Row* b) { return procs_key(a) < procs_key(b); });
  std::vector<SuiteLine> out;
  for (const auto& config : configs)
    for (const auto& [metric, unit] : metrics)
      for (const auto& b : benches) {
        if (std::get<0>(b) != config) continue;
        // One parallelism per condition: one line, whatever they are. Several in a condition (go
        // test -cpu 1,2): a line per parallelism, each condition's row of that count on it.
        bool several = false;
        std::vector<int> counts;
        for (std::size_t c = 0; c < t.conditions.size(); ++c)
          if (const auto it = by.find({b, metric, unit, c}); it != by.end()) {
            several = several || it->second.size() > 1;
            for (const Row* r : it->second) counts.push_back(procs_key(r));
          }
        if (counts.empty()) continue;
        std::sort(counts.begin(), counts.end());
        counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
        if (!several) counts.resize(1);
        for (const int count : counts) {
          SuiteLine line{config, labels[b], std::get<1>(b), std::get<2>(b), unit, metric, {}};
          line.cells.assign(t.conditions.size(), nullptr);
          for (std::size_t c = 0; c < t.conditions.size(); ++c)
            if (const auto it = by.find({b, metric, unit, c}); it != by.end())
              for (const Row* r : it->second)
                if (!several || procs_key(r) == count) {
                  line.cells[c] = r;
                  break;
                }
          out.push_back(std::move(line));
        }
      }
  return out;
}

std::vector<const Row*> rows_by_benchmark(const Table& t) {
  const std::vector<SuiteLine> lines = suite_lines(t);
  std::vector<std::string> order;
  const auto key = [](const SuiteLine& l) { return l.config + '\n' + l.variant + '\n' + l.name; };
  for (const auto& l : lines)
    if (std::find(order.begin(), order.end(), key(l)) == order.end()) order.push_back(key(l));
  std::vector<const Row*> out;
  for (const auto& k : order)
    for (const auto& l : lines)
      if (key(l) == k)
        for (const Row* r : l.cells)
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
