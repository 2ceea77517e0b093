#include "analysis/diagnosis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "model/errors.hpp"
#include "stats/summary.hpp"
#include "text/text.hpp"

namespace noisefloor::analysis {

namespace {

std::optional<double> as_double(const std::optional<std::int64_t>& v) {
  return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
}

// perf_event_open's count where the probe could open it; else `fallback`, the kernel's own
// accounting of the same thing (a container without CAP_PERFMON: the threads' se.nr_migrations,
// the tree's rusage page faults).
std::optional<double> counted(const records::Accounting& acc, const char* name,
                              std::optional<double> fallback = std::nullopt) {
  if (acc.counters)
    if (const auto v = acc.counters->count(name)) return static_cast<double>(*v);
  return fallback;
}

std::optional<double> other_work_beside(const records::Accounting& acc) {
  if (!acc.run_queue || !acc.run_queue->cpus_busy_seconds || !acc.run_queue->run_seconds || !acc.usage)
    return std::nullopt;
  const double own = std::max(*acc.run_queue->run_seconds, acc.usage->cpu_seconds());
  return std::max(0.0, *acc.run_queue->cpus_busy_seconds - own);
}

}  // namespace

const std::vector<Factor> kFactors = {
    {"run_queue_wait", "time waiting for a CPU", true, 0.001,
     [](const records::Accounting& a) { return a.run_queue ? a.run_queue->wait_seconds : std::nullopt; }},
    {"cpu_migrations", "CPU migrations", false, 10,
     [](const records::Accounting& a) {
       return counted(a, "cpu_migrations", a.run_queue ? as_double(a.run_queue->migrations) : std::nullopt);
     }},
    {"involuntary_switches", "involuntary context switches (preemptions)", false, 10,
     [](const records::Accounting& a) {
       return a.usage ? std::optional<double>(static_cast<double>(a.usage->involuntary_switches))
                      : std::nullopt;
     }},
    {"voluntary_switches", "voluntary context switches (sleeps, blocking)", false, 10,
     [](const records::Accounting& a) {
       return a.usage ? std::optional<double>(static_cast<double>(a.usage->voluntary_switches))
                      : std::nullopt;
     }},
    {"throttled", "time throttled by the CPU quota", true, 0.001,
     [](const records::Accounting& a) { return a.cgroup ? a.cgroup->throttled_seconds : std::nullopt; }},
    {"steal", "time stolen by the hypervisor", true, 0.001,
     [](const records::Accounting& a) { return a.run_queue ? a.run_queue->steal_seconds : std::nullopt; }},
    {"beside", "other work on its CPUs", true, 0.01, other_work_beside},
    {"minor_faults", "minor page faults", false, 1000,
     [](const records::Accounting& a) {
       return counted(a, "minor_faults", a.usage ? as_double(a.usage->minor_faults) : std::nullopt);
     }},
    {"major_faults", "major page faults", false, 10,
     [](const records::Accounting& a) {
       return counted(a, "major_faults", a.usage ? as_double(a.usage->major_faults) : std::nullopt);
     }},
    {"instructions", "instructions", false, 1e6,
     [](const records::Accounting& a) { return counted(a, "instructions"); }},
    {"cycles", "cycles", false, 1e6, [](const records::Accounting& a) { return counted(a, "cycles"); }},
};

const Factor& factor_named(const std::string& key) {
  for (const Factor& f : kFactors)
    if (key == f.key) return f;
  throw Error("diagnosis: no factor " + key);
}

const FactorLink* ConditionDiagnosis::telling() const {
  const auto best = std::find_if(links.begin(), links.end(), [](const FactorLink& l) {
    return l.p_adjusted < kLinkAlpha &&
           std::fabs(l.slow_quarter - l.fast_quarter) >= factor_named(l.key).floor;
  });
  return best == links.end() ? nullptr : &*best;
}

namespace {

// The invocations of each condition, by (session, invocation number).
using InvocationKey = std::pair<int, int>;
struct ConditionInvocations {
  std::vector<const records::InvocationRecord*> all;
  std::map<InvocationKey, const records::InvocationRecord*> by_key;
};

FactorLink link_of(const Factor& f, const std::string& row, const std::vector<double>& values,
                   const std::vector<double>& factor, std::uint64_t seed) {
  FactorLink link;
  link.key = f.key;
  link.row = row;
  link.association = stats::rank_association(values, factor, seed);
  // The factor over the slowest and the fastest quarter of the invocations (at least one each).
  std::vector<std::size_t> order(values.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  const std::size_t quarter = std::max<std::size_t>(1, values.size() / 4);
  double fast = 0, slow = 0;
  for (std::size_t k = 0; k < quarter; ++k) {
    fast += factor[order[k]];
    slow += factor[order[order.size() - 1 - k]];
  }
  link.fast_quarter = fast / static_cast<double>(quarter);
  link.slow_quarter = slow / static_cast<double>(quarter);
  link.factor = factor;
  link.times = values;
  return link;
}

}  // namespace

CountersMissing missing_counters(const records::RunRecord& run) {
  struct Missing {
    std::set<std::string> keys, conditions;
  };
  std::map<std::string, Missing> by_reason;
  std::set<std::pair<std::string, std::string>> multiplexed;
  CountersMissing out;
  std::set<std::string> all_conditions;
  for (const records::ConditionRecord& c : run.condition_records)
    for (const records::InvocationRecord& inv : c.runs) {
      if (!inv.accounting.counters) continue;
      all_conditions.insert(c.condition);
      const model::Counters& k = *inv.accounting.counters;
      for (const auto& [key, why] : k.missing) {
        by_reason[why].keys.insert(key);
        by_reason[why].conditions.insert(c.condition);
      }
      if (!k.multiplexed.empty()) multiplexed.emplace(c.condition, k.multiplexed);
      out.user_only = out.user_only || k.user_only;
    }
  for (const auto& [why, m] : by_reason) {
    CounterGap gap{.all = m.keys.size() == model::kCounterKeys.size(), .why = why};
    for (const char* key : model::kCounterKeys)  // in the documented order
      if (m.keys.count(key)) gap.counters.emplace_back(key);
    if (m.conditions.size() < all_conditions.size())
      for (const std::string& c : run.conditions)
        if (m.conditions.count(c)) gap.conditions.push_back(c);
    out.gaps.push_back(std::move(gap));
  }
  out.multiplexed.assign(multiplexed.begin(), multiplexed.end());
  return out;
}

namespace {

// A condition's levels against the first condition's (`base`): the factors that moved 3× or more.
Contrast contrast_of(const ConditionDiagnosis& base, const ConditionDiagnosis& cd) {
  Contrast c{cd.condition, base.condition, cd.wall_median, base.wall_median, {}};
  for (const FactorLevel& level : cd.levels) {
    const Factor& f = factor_named(level.key);
    const double v = level.median;
    const auto b = std::find_if(base.levels.begin(), base.levels.end(),
                                [&](const FactorLevel& l) { return l.key == level.key; });
    if (b == base.levels.end()) {
      if (v >= f.floor) c.changed.push_back({level.key, v, std::nullopt});
      continue;
    }
    const double w = b->median;
    const bool up = v - w >= f.floor && v >= 3 * w;
    const bool down = w - v >= f.floor && 3 * v <= w;
    if (up || down) c.changed.push_back({level.key, v, w});
  }
  return c;
}

}  // namespace

Diagnosis diagnose(const records::RunRecord& run, const Table& table, const records::Samples& samples,
                   const std::function<std::string(const std::string&)>& rename) {
  Diagnosis d;
  d.missing = missing_counters(run);
  std::map<std::string, ConditionInvocations> invocations;
  for (const records::ConditionRecord& c : run.condition_records) {
    ConditionInvocations& ci = invocations[rename ? rename(c.condition) : c.condition];
    for (const records::InvocationRecord& inv : c.runs) {
      if (!inv.accounting.usage) continue;  // not measured by a probe (a named image)
      ci.all.push_back(&inv);
      ci.by_key[{c.session, inv.invocation}] = &inv;
    }
  }
  // Each primary row's kept samples, summed per invocation: one pass over the samples.
  using Sums = std::map<InvocationKey, std::pair<double, int>>;
  std::map<RowKey, std::vector<std::size_t>> rows_by_key;
  for (std::size_t r = 0; r < table.rows.size(); ++r) rows_by_key[table.rows[r].key()].push_back(r);
  std::vector<Sums> sums_of(table.rows.size());
  for (const records::SampleRef& s : samples) {
    if (s.warmup) continue;
    const auto rows = rows_by_key.find(row_key(s));
    if (rows == rows_by_key.end()) continue;
    for (const std::size_t r : rows->second) {
      const Row& row = table.rows[r];
      if (!in_row(row, s) || row.metric >= s.metrics.size()) continue;
      auto& [sum, count] = sums_of[r][{s.session, s.invocation}];
      sum += s.metrics[row.metric].value;
      ++count;
    }
  }
  for (const std::string& condition : table.conditions) {
    const auto found = invocations.find(condition);
    if (found == invocations.end() || found->second.all.empty()) continue;
    const ConditionInvocations& ci = found->second;
    ConditionDiagnosis cd;
    cd.condition = condition;
    cd.invocations = ci.all.size();
    std::vector<double> walls;
    for (const auto* inv : ci.all) walls.push_back(inv->accounting.usage->wall_seconds);
    cd.wall_median = stats::median(walls);
    for (const Factor& f : kFactors) {
      std::vector<double> values;
      for (const auto* inv : ci.all)
        if (const auto v = factor_value(*inv, f)) values.push_back(*v);
      if (!values.empty()) cd.levels.push_back({f.key, stats::median(values), values.size()});
    }
    // Within: each primary row of the condition, its invocations' mean sample against each
    // factor that varies.
    std::uint64_t seed = 1;
    for (std::size_t r = 0; r < table.rows.size(); ++r) {
      const Row& row = table.rows[r];
      if (row.condition != condition) continue;
      std::vector<double> per_invocation;
      std::vector<const records::InvocationRecord*> records_of;
      for (const auto& [key, sc] : sums_of[r]) {
        const auto inv = ci.by_key.find(key);
        if (inv == ci.by_key.end()) continue;
        per_invocation.push_back(sc.first / sc.second);
        records_of.push_back(inv->second);
      }
      if (per_invocation.size() < kMinInvocations) {
        if (!cd.untested) cd.untested = Untested{per_invocation.size(), row.values.size()};
        continue;
      }
      std::vector<FactorLink> links;
      for (const Factor& f : kFactors) {
        std::vector<double> x, y;
        for (std::size_t i = 0; i < records_of.size(); ++i)
          if (const auto v = factor_value(*records_of[i], f)) {
            x.push_back(per_invocation[i]);
            y.push_back(*v);
          }
        if (x.size() < kMinInvocations) continue;
        FactorLink link = link_of(f, note_name(row), x, y, seed++);
        link.unit = row.unit;
        if (std::isnan(link.association.rho)) continue;  // the factor did not vary
        links.push_back(std::move(link));
      }
      for (FactorLink& link : links)
        link.p_adjusted = std::min(1.0, link.association.p * static_cast<double>(links.size()));
      cd.tried = std::max(cd.tried, links.size());
      std::sort(links.begin(), links.end(), [](const FactorLink& a, const FactorLink& b) {
        return std::fabs(a.association.rho) > std::fabs(b.association.rho);
      });
      for (FactorLink& link : links) cd.links.push_back(std::move(link));
    }
    d.conditions.push_back(std::move(cd));
  }
  // Between: each condition's levels against the first condition's.
  for (std::size_t k = 1; k < d.conditions.size(); ++k)
    d.contrasts.push_back(contrast_of(d.conditions.front(), d.conditions[k]));
  return d;
}

}  // namespace noisefloor::analysis
