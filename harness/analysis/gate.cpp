#include "analysis/gate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <set>
#include <span>
#include <tuple>
#include <utility>

#include "analysis/labels.hpp"
#include "analysis/table.hpp"
#include "analysis/verdict.hpp"
#include "model/errors.hpp"
#include "model/go_config.hpp"
#include "stats/gate.hpp"
#include "text/text.hpp"
#include "text/units.hpp"

namespace noisefloor::analysis {

double GateBlock::effect() const { return std::exp(shift.estimate); }
double GateBlock::lo() const { return std::exp(shift.lo); }
double GateBlock::hi() const { return std::exp(shift.hi); }

bool GateRow::regression() const { return gating && confirmed && regressed(verdict, better); }

Word GateRow::verdict_word() const { return analysis::verdict_word(verdict, better, quantity); }

bool GateTable::regression() const {
  return std::any_of(rows.begin(), rows.end(), [](const GateRow& r) { return r.regression(); });
}

namespace {

// One quad's four runs of one unit, as they arrived.
struct GateQuad {
  std::optional<double> b, h, h2, b2;  // base, head, head', base'
  bool head_first = false;             // order BAAB: h b b' h'
};

// One row's samples: block → repeat → quad.
struct GateSeries {
  std::string name;  // as printed
  std::map<int, std::map<int, GateQuad>> blocks;
};

using GateKey = std::tuple<std::string, std::string, std::string>;  // condition, benchmark, unit

// The complete quads of one block, in repeat order.
struct QuadColumns {
  std::vector<double> b, h, h2, b2;
  std::vector<char> head_first;
  std::size_t incomplete = 0;  // a member missing (an interrupted repeat)
  std::size_t unusable = 0;    // a value ≤ 0 or not finite: no log ratio
};

bool usable(double v) { return std::isfinite(v) && v > 0.0; }

QuadColumns complete_quads(const std::map<int, GateQuad>& quads) {
  QuadColumns c;
  for (const auto& [repeat, q] : quads) {
    if (!q.b || !q.h || !q.h2 || !q.b2) {
      ++c.incomplete;
      continue;
    }
    c.b.push_back(*q.b), c.h.push_back(*q.h), c.h2.push_back(*q.h2), c.b2.push_back(*q.b2);
    c.head_first.push_back(q.head_first);
  }
  return c;
}

// Drops the quads a log cannot be taken of (after the exact-constant case had its chance).
void drop_unusable(QuadColumns& c) {
  QuadColumns kept;
  for (std::size_t i = 0; i < c.b.size(); ++i) {
    if (!usable(c.b[i]) || !usable(c.h[i]) || !usable(c.h2[i]) || !usable(c.b2[i])) {
      ++kept.unusable;
      continue;
    }
    kept.b.push_back(c.b[i]), kept.h.push_back(c.h[i]), kept.h2.push_back(c.h2[i]),
        kept.b2.push_back(c.b2[i]);
    kept.head_first.push_back(c.head_first[i]);
  }
  kept.incomplete = c.incomplete;
  c = std::move(kept);
}

// The one value every element holds, if any.
std::optional<double> constant_of(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty()) return std::nullopt;
  const double v = a.front();
  const auto same = [v](double x) { return x == v; };
  if (std::all_of(a.begin(), a.end(), same) && std::all_of(b.begin(), b.end(), same)) return v;
  return std::nullopt;
}

// Both floors are exact (every copy equal): PASS with no spread.
stats::AaCheck exact_floor() {
  stats::AaCheck c;
  c.outcome = stats::AaOutcome::pass;
  c.gm = c.gm_lo = c.gm_hi = c.median_ratio = 1.0;
  c.max_abs_dev = c.halfwidth = 0.0;
  return c;
}

// A count the same in every run of each side (allocs/op 0 on both, B/op 64 against 128): the
// ratio is exact, its interval a point; a 0 against a positive count is an infinite (or zero)
// ratio, as §3.5.4 reads an exact unit off the sign of the change. No test is run on it.
stats::Paired exact_ratio(std::size_t n, double base, double head) {
  const double inf = std::numeric_limits<double>::infinity();
  const double r = base == head ? 1.0 : base == 0.0 ? inf : head / base;
  stats::Paired p;
  p.ratios.assign(n, r);
  p.median = p.min = p.max = p.gm = p.gm_lo = p.gm_hi = r;
  p.mean_log = std::log(r);
  p.sd_log = n >= 2 ? 0.0 : stats::kNaN;
  return p;
}

// exp(x) of each, as the variant side of a Paired whose base is all ones: its ratios are the
// signed floor's exp(e_i), so aa_check judges e as it judges an A/A pair.
stats::Paired floor_pairs(const std::vector<double>& logs, double confidence) {
  std::vector<double> ones(logs.size(), 1.0), ratios(logs.size());
  std::transform(logs.begin(), logs.end(), ratios.begin(), [](double x) { return std::exp(x); });
  return stats::paired(ones, ratios, {}, confidence);
}

struct GateContext {
  const model::GateSettings& settings;
  bool confirm;  // flagged rows need a second block (GateTable::confirm)
};

// The one-sided level of a block that ended after n quads (§3.13 "When a block stops"): the tail
// of the look at n, or, for a block cut short between looks (its time budget, an interrupt), of
// the next look it did not reach.
double tail_at(std::size_t n, const model::GateSettings& s) {
  const auto looks =
      stats::gate_looks(static_cast<std::size_t>(std::max(s.first_repeats, 1)),
                        static_cast<std::size_t>(std::max(s.max_repeats, 1)), s.confidence, s.sequential);
  for (const auto& look : looks)
    if (n <= look.quads) return look.tail;
  return looks.back().tail;
}

void add_floor_figures(GateBlock& g, const stats::Paired& e, const stats::Paired& f, double s_d,
                       const GateContext& ctx) {
  if (g.n < 2) return;
  const auto& s = ctx.settings;
  const stats::Floor floor = stats::combine_floors(e.sd_log, f.sd_log, g.n);
  g.sigma0 = floor.sigma0;
  g.nu0 = floor.nu0;
  const stats::Mde m = stats::mde(floor.sigma0, g.n, s.threshold, s.power, ctx.confirm, g.shift.tail);
  g.mde_slower = m.slower;
  g.mde_faster = m.faster;
  g.excess_spread = stats::excess_spread(s_d, floor, g.n);
}

GateBlock exact_block(int block, std::size_t n, double base, double head, const GateContext& ctx) {
  GateBlock g;
  g.block = block;
  g.n = n;
  g.ratio = exact_ratio(n, base, head);
  g.aa = g.bb = exact_floor();
  // An exact ratio: the shift is a point, its interval too (no test is run on it).
  g.shift.n = 2 * n;
  g.shift.estimate = g.shift.lo = g.shift.hi = g.ratio.mean_log;
  g.shift.tail = tail_at(n, ctx.settings);
  g.verdict = n >= 1 ? stats::shift_verdict(g.shift, ctx.settings.threshold) : stats::Verdict::inconclusive;
  if (n >= 2) {
    g.sigma0 = 0.0;
    g.nu0 = 2.0 * static_cast<double>(n - 1);
    const auto& s = ctx.settings;
    const stats::Mde m = stats::mde(0.0, n, s.threshold, s.power, ctx.confirm, g.shift.tail);
    g.mde_slower = m.slower;
    g.mde_faster = m.faster;
  }
  return g;
}

// The signed floors (§3.13): the j-th quad of each order gets (−1)^j, so a linear drift's
// constant term in ln(b'/b) (3 steps apart in ABBA, 1 in BAAB) cancels between consecutive quads
// of the same order. With the plan's orders (ABBA on kept repeats 0, 3, 4, 7, …) this is the
// spec's sign +1 for k mod 4 ∈ {0, 1}, and it stays balanced when a quad is missing.
std::vector<double> quad_signs(const std::vector<char>& head_first) {
  std::vector<double> sign(head_first.size());
  std::size_t seen[2] = {0, 0};
  for (std::size_t i = 0; i < head_first.size(); ++i)
    sign[i] = seen[head_first[i] ? 1 : 0]++ % 2 == 0 ? 1.0 : -1.0;
  return sign;
}

GateBlock measured_block(int block, const QuadColumns& c, const GateContext& ctx) {
  const auto& s = ctx.settings;
  GateBlock g;
  g.block = block;
  g.n = c.b.size();
  const std::vector<double> sign = quad_signs(c.head_first);
  std::vector<double> bt(g.n), ht(g.n), e(g.n), f(g.n), pairs;
  pairs.reserve(2 * g.n);
  for (std::size_t i = 0; i < g.n; ++i) {
    bt[i] = std::sqrt(c.b[i]) * std::sqrt(c.b2[i]);  // √(b·b') without overflowing the product
    ht[i] = std::sqrt(c.h[i]) * std::sqrt(c.h2[i]);
    e[i] = sign[i] * std::log(c.b2[i] / c.b[i]);
    f[i] = sign[i] * std::log(c.h2[i] / c.h[i]);
    pairs.push_back(std::log(c.h[i] / c.b[i]));  // the quad's two pairs, each run back to back
    pairs.push_back(std::log(c.h2[i] / c.b2[i]));
  }
  g.shift = stats::signed_rank_shift(pairs, tail_at(g.n, s));
  std::unique_ptr<bool[]> flags(new bool[g.n]);  // std::span<const bool> needs a plain array
  for (std::size_t i = 0; i < g.n; ++i) flags[i] = c.head_first[i] != 0;
  g.ratio = stats::paired(bt, ht, std::span<const bool>(flags.get(), g.n), s.confidence);
  const stats::Paired ep = floor_pairs(e, s.confidence), fp = floor_pairs(f, s.confidence);
  g.aa = stats::aa_check(ep, s.threshold);
  g.bb = stats::aa_check(fp, s.threshold);
  g.floor_failed = g.aa.outcome != stats::AaOutcome::pass || g.bb.outcome != stats::AaOutcome::pass;
  g.verdict = stats::shift_verdict(g.shift, s.threshold);
  add_floor_figures(g, ep, fp, g.ratio.sd_log, ctx);
  return g;
}

// The first block's "needs about k more quads" (§3.13); k = 0 (d alone would decide, a floor
// did not) leaves it unset: repeats of d are not what is missing.
void add_needs_more(GateBlock& g, const model::GateSettings& s) {
  if (g.verdict != stats::Verdict::inconclusive || g.n < 2 || !std::isfinite(g.ratio.mean_log)) return;
  const auto cap = static_cast<std::size_t>(std::max(s.max_repeats, 1));
  const auto k = stats::repeats_needed(g.ratio.mean_log, g.ratio.sd_log, g.n, s.threshold, s.confidence, cap);
  if (!k) {
    g.undecidable = true;
  } else if (*k > 0) {
    g.needs_more = k;
  }
}

GateBlock gate_block(int block, const std::map<int, GateQuad>& quads, const GateContext& ctx) {
  QuadColumns c = complete_quads(quads);
  GateBlock g;
  const auto base = constant_of(c.b, c.b2), head = constant_of(c.h, c.h2);
  if (base && head && ((*base >= 0.0 && *head >= 0.0) || *base == *head)) {
    g = exact_block(block, c.b.size(), *base, *head, ctx);
  } else {
    drop_unusable(c);
    if (c.b.empty()) {
      g.block = block;
      g.floor_failed = true;  // nothing measured either floor
    } else {
      g = measured_block(block, c, ctx);
    }
  }
  if (block == 1) add_needs_more(g, ctx.settings);
  g.incomplete = c.incomplete;
  g.unusable = c.unusable;
  return g;
}

bool is_gating(const std::string& unit, const std::string& primary, const model::GateSettings& s) {
  if (s.gating_units.empty()) return unit == primary;
  const std::string tidied = text::tidy_unit(unit).first;
  return std::any_of(s.gating_units.begin(), s.gating_units.end(),
                     [&](const std::string& u) { return u == unit || text::tidy_unit(u).first == tidied; });
}

// Row verdict and confirmation (§3.13 "Verdict per block"): the first block decides the verdict; a
// second block that says the same confirms it. Without confirmation a decided first block stands.
void decide_row(GateRow& row, bool confirm) {
  row.verdict = row.first.verdict;
  if (row.verdict == stats::Verdict::inconclusive) return;
  if (!confirm) {
    row.confirmed = true;
    return;
  }
  row.confirmed = row.second && row.second->verdict == row.first.verdict;
}

struct Collected {
  std::vector<GateKey> keys;  // conditions in first-seen order, then benchmarks, then units
  std::map<GateKey, GateSeries> series;
  std::map<std::pair<std::string, std::string>, std::string> primary;  // (condition, benchmark) → unit
  std::vector<std::string> conditions;                                 // first-seen order
};

void put_value(GateQuad& q, const std::string& variant, double value) {
  static const std::string base_copy = records::aa_copy_of(records::kGateBase);
  static const std::string head_copy = records::aa_copy_of(records::kGateHead);
  if (variant == records::kGateBase)
    q.b = value;
  else if (variant == records::kGateHead)
    q.h = value;
  else if (variant == base_copy)
    q.b2 = value;
  else if (variant == head_copy)
    q.h2 = value;
}

Collected collect_quads(const records::Samples& samples) {
  const std::set<std::string> config_keys = distinguishing_keys(samples);
  Collected c;
  std::map<std::string, std::size_t> condition_rank;
  std::map<std::pair<std::string, std::string>, std::size_t> benchmark_rank;
  for (const records::SampleRef s : samples) {
    if (s.pair != records::kGatePair || s.warmup || s.metrics.empty()) continue;
    const std::string benchmark =
        row_name(s.name, model::config_label(model::config_only(s.config, config_keys)));
    if (condition_rank.emplace(s.condition, condition_rank.size()).second)
      c.conditions.push_back(s.condition);
    benchmark_rank.emplace(std::make_pair(s.condition, benchmark), benchmark_rank.size());
    c.primary.emplace(std::make_pair(s.condition, benchmark), s.metrics.front().unit);
    for (const records::MetricRef m : s.metrics) {
      GateKey key{s.condition, benchmark, m.unit};
      auto [it, added] = c.series.try_emplace(key);
      if (added) c.keys.push_back(key), it->second.name = s.name;
      GateQuad& q = it->second.blocks[s.block == 2 ? 2 : 1][s.repeat];
      q.head_first = s.order == model::PairOrder::baab;
      put_value(q, s.variant, m.value);
    }
  }
  std::stable_sort(c.keys.begin(), c.keys.end(), [&](const GateKey& a, const GateKey& b) {
    const auto rank = [&](const GateKey& k) {
      return std::make_pair(condition_rank.at(std::get<0>(k)),
                            benchmark_rank.at(std::make_pair(std::get<0>(k), std::get<1>(k))));
    };
    return rank(a) < rank(b);
  });
  return c;
}

GateRow gate_row(const GateKey& key, const GateSeries& series, const Collected& c,
                 const model::GateSettings& s, bool confirm, const std::map<std::string, Label>& labels,
                 const model::UnitMetadata& units) {
  const auto& [condition, benchmark, unit] = key;
  GateRow row;
  row.condition = condition;
  row.benchmark = benchmark;
  row.unit = unit;
  row.name = series.name;
  const auto label = labels.find(condition);
  row.label = label == labels.end() ? Label::unknown : label->second;
  row.better = model::better_of(unit, units);
  row.quantity = model::quantity_of(unit);
  row.gating = is_gating(unit, c.primary.at(std::make_pair(condition, benchmark)), s);
  const GateContext ctx{s, confirm};
  const auto first = series.blocks.find(1);
  row.first = gate_block(1, first == series.blocks.end() ? std::map<int, GateQuad>{} : first->second, ctx);
  if (const auto second = series.blocks.find(2); second != series.blocks.end())
    row.second = gate_block(2, second->second, ctx);
  decide_row(row, confirm);
  return row;
}

GateContention::Finding finding_of(double lo, double hi, double theta) {
  if (lo > 1.0 + theta || hi < 1.0 - theta) return GateContention::Finding::differs;
  if (1.0 - theta <= lo && hi <= 1.0 + theta) return GateContention::Finding::same;
  return GateContention::Finding::cannot_tell;
}

bool has_spread(const GateBlock& b) {
  return b.n >= 2 && std::isfinite(b.ratio.mean_log) && std::isfinite(b.ratio.sd_log);
}

// Each contended condition's rows against the same (benchmark, unit) of the reference condition
// (§3.13 "Contention sensitivity"), on the first blocks' d_i.
std::vector<GateContention> contention_of(const std::vector<GateRow>& rows,
                                          const std::vector<std::string>& conditions,
                                          const std::vector<std::string>& contended,
                                          const model::GateSettings& s) {
  const auto loaded = [&](const std::string& c) {
    return std::find(contended.begin(), contended.end(), c) != contended.end();
  };
  const auto reference =
      std::find_if(conditions.begin(), conditions.end(), [&](const auto& c) { return !loaded(c); });
  if (reference == conditions.end()) return {};
  std::map<std::pair<std::string, std::string>, const GateRow*> at_reference;
  for (const auto& r : rows)
    if (r.condition == *reference) at_reference[{r.benchmark, r.unit}] = &r;
  std::vector<GateContention> out;
  for (const auto& r : rows) {
    if (!loaded(r.condition)) continue;
    const auto ref = at_reference.find({r.benchmark, r.unit});
    if (ref == at_reference.end()) continue;
    GateContention g{r.benchmark, r.unit, r.condition, *reference};
    if (has_spread(r.first) && has_spread(ref->second->first)) {
      const auto i = stats::interaction(r.first.ratio, ref->second->first.ratio, s.confidence);
      g.ratio = i.ratio, g.lo = i.lo, g.hi = i.hi, g.df = i.df;
      g.finding = finding_of(i.lo, i.hi, s.threshold);
    }
    out.push_back(g);
  }
  return out;
}

}  // namespace

GateTable build_gate(const records::Samples& samples, const model::GateSettings& settings,
                     const std::map<std::string, Label>& labels, const std::vector<std::string>& contended,
                     const model::UnitMetadata& units) {
  const Collected c = collect_quads(samples);
  GateTable t;
  t.settings = settings;
  for (const auto& key : c.keys)
    if (is_gating(std::get<2>(key), c.primary.at(std::make_pair(std::get<0>(key), std::get<1>(key))),
                  settings))
      ++t.gating_rows;
  t.confirm = stats::confirmation_needed(t.gating_rows, settings.confidence, settings.confirm);
  for (const auto& key : c.keys)
    t.rows.push_back(gate_row(key, c.series.at(key), c, settings, t.confirm, labels, units));
  t.contention = contention_of(t.rows, c.conditions, contended, settings);
  t.false_alarm_bound = stats::false_alarm_bound(t.gating_rows, settings.confidence, t.confirm);
  return t;
}

std::map<std::string, std::vector<std::string>> to_confirm(const GateTable& table) {
  std::map<std::string, std::vector<std::string>> out;
  if (!table.confirm) return out;
  std::set<std::pair<std::string, std::string>> seen;  // (condition, name)
  for (const auto& r : table.rows) {
    if (!r.gating || r.second || !regressed(r.first.verdict, r.better)) continue;
    if (seen.emplace(r.condition, r.name).second) out[r.condition].push_back(r.name);
  }
  return out;
}

}  // namespace noisefloor::analysis
