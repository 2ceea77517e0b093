#include "analysis/compare.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <utility>

#include "analysis/table.hpp"
#include "analysis/verdict.hpp"
#include "model/errors.hpp"
#include "model/first_seen.hpp"
#include "model/go_config.hpp"
#include "text/text.hpp"
#include "text/units.hpp"

namespace noisefloor::analysis {
namespace {

template <typename T>
bool contains(const std::vector<T>& v, const T& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

template <typename T>
void add_unique(std::vector<T>& v, const T& x) {
  if (!contains(v, x)) v.push_back(x);
}

// How many of the pooled values share their value with another, from the two sides in
// ascending order (walked together).
std::size_t count_tied(const std::vector<double>& a, const std::vector<double>& b) {
  std::size_t tied = 0, i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    const double v = j == b.size() || (i < a.size() && a[i] <= b[j]) ? a[i] : b[j];
    std::size_t t = 0;
    while (i < a.size() && a[i] == v) ++i, ++t;
    while (j < b.size() && b[j] == v) ++j, ++t;
    if (t > 1) tied += t;
  }
  return tied;
}

// ---- grouping of the input ----

// A row of one side before the sides are matched: its full key, its configuration whole.
struct RowId {
  std::string name, config, variant;
  friend auto operator<=>(const RowId&, const RowId&) = default;
  friend bool operator==(const RowId&, const RowId&) = default;
};

struct Group {
  std::vector<double> values;  // in the tidied unit
  std::vector<int> procs;
  std::vector<std::string> recorded_units;
};

using GroupKey = std::tuple<std::string, RowId, std::string>;  // condition, row, tidied unit

// condition -> rows in first-seen order, (condition, row, unit) -> values, unit order.
struct Side {
  std::vector<std::string> conditions;
  std::map<std::string, model::FirstSeen<RowId>> rows;    // per condition, first-seen
  std::map<std::string, std::vector<std::string>> units;  // per condition, tidied, first-seen
  std::map<GroupKey, Group> groups;
  // Values that are not numbers (a Google Benchmark counter) are left out, and counted.
  std::map<GroupKey, int> not_numbers;
  std::set<std::string> keys;  // the configuration keys that tell its rows apart
};

Side group_samples(const records::Samples& samples, const std::vector<std::string>& order) {
  Side side;
  side.keys = distinguishing_keys(samples);
  // The samples the table's rows hold (a paired design's rows keep one pair each).
  const std::vector<bool> kept = row_samples(samples);
  // Consecutive samples mostly share condition, name, config, variant and units; stored samples
  // share those strings, so their addresses find the groups again without building a key.
  const std::string *last_condition = nullptr, *last_name = nullptr, *last_variant = nullptr,
                    *last_config = nullptr;
  const std::string* last_unit = nullptr;
  std::size_t last_units = 0;
  std::vector<Group*> groups;   // per metric of the last key
  std::vector<double> factors;  // per metric of the last key: into the tidied unit
  std::vector<std::string> tidied;
  std::vector<std::string> seen;  // conditions of kept samples, first-seen
  RowId id;
  std::size_t i = 0;
  for (const records::SampleRef s : samples) {
    if (!kept[i++] || s.warmup) continue;
    const std::string* first_unit = s.metrics.empty() ? nullptr : &s.metrics.front().unit;
    const bool same = &s.condition == last_condition && &s.name == last_name && &s.variant == last_variant &&
                      &s.config == last_config && first_unit == last_unit && s.metrics.size() == last_units;
    if (!same) {
      id = RowId{s.name, s.config, s.variant};
      side.rows[s.condition].add(id);
      add_unique(seen, s.condition);
      groups.clear();
      factors.clear();
      tidied.clear();
      for (const auto& m : s.metrics) {
        auto [unit, factor] = text::tidy_unit(m.unit);
        Group& g = side.groups[{s.condition, id, unit}];
        add_unique(g.recorded_units, m.unit);
        groups.push_back(&g);
        factors.push_back(factor);
        tidied.push_back(std::move(unit));
      }
      last_condition = &s.condition, last_name = &s.name, last_variant = &s.variant, last_config = &s.config;
      last_unit = first_unit, last_units = s.metrics.size();
    }
    for (std::size_t k = 0; k < s.metrics.size(); ++k) {
      const double value = s.metrics[k].value;
      if (!std::isfinite(value)) {
        ++side.not_numbers[{s.condition, id, tidied[k]}];
        continue;
      }
      Group& g = *groups[k];
      if (g.values.empty()) add_unique(side.units[s.condition], tidied[k]);
      g.values.push_back(factors[k] == 1 ? value : value * factors[k]);
      if (g.procs.empty() || g.procs.back() != s.procs) add_unique(g.procs, s.procs);
    }
  }
  for (const auto& c : order)
    if (side.rows.count(c)) add_unique(side.conditions, c);
  for (const auto& c : seen) add_unique(side.conditions, c);
  for (auto& [k, g] : side.groups) std::sort(g.procs.begin(), g.procs.end());
  return side;
}

std::string join_quoted(const std::vector<std::string>& v) {
  std::vector<std::string> q;
  for (const auto& s : v) q.push_back("'" + s + "'");
  return fmt::format("{}", fmt::join(q, ", "));
}

Label label_of(const std::map<std::string, Label>& labels, const std::string& condition) {
  const auto it = labels.find(condition);
  return it == labels.end() ? Label::unknown : it->second;
}

LabelReason reason_of(const std::map<std::string, LabelReason>& reasons, const std::string& condition) {
  const auto it = reasons.find(condition);
  return it == reasons.end() ? LabelReason{} : it->second;
}

// An exact unit (no test): the place of new against old from their ranges; ratios need values > 0.
stats::Verdict exact_verdict(const CompareRow& r, double threshold) {
  const auto& o = r.old_side.summary;
  const auto& n = r.new_side.summary;
  if (o.min > 0 && n.min > 0) return stats::classify(n.min / o.max, n.max / o.min, threshold);
  if (o.min == o.max && n.min == n.max && o.min == n.min) return stats::Verdict::equivalent;
  if (n.min > o.max) return stats::Verdict::slower;  // the value went up
  if (n.max < o.min) return stats::Verdict::faster;  // down
  return stats::Verdict::inconclusive;
}

// What the test's p rests on: the sample sizes, the ties, the approximation. `sorted_a` and
// `sorted_b` ascending.
void test_warnings(CompareRow& r, const std::vector<double>& sorted_a, const std::vector<double>& sorted_b) {
  const std::size_t na = sorted_a.size(), nb = sorted_b.size();
  r.min_p_above_alpha = stats::min_attainable_p_exceeds(na, nb);
  for (const stats::TestWarning& w : r.test.warnings)
    r.warnings.push_back({.kind = CompareWarningKind::test, .test = w, .n_a = na, .n_b = nb});
  if (na < 6 || nb < 6) {
    r.warnings.push_back({.kind = CompareWarningKind::few_values, .n_a = na, .n_b = nb});
  } else if (na < 10 || nb < 10) {
    r.warnings.push_back({.kind = CompareWarningKind::low_n, .n_a = na, .n_b = nb});
  }
  const std::size_t tied = count_tied(sorted_a, sorted_b);
  const bool all_equal = tied == na + nb;
  if (tied > 0 && !all_equal) {
    CompareWarning w{.kind = r.test.exact ? CompareWarningKind::ties_exact : CompareWarningKind::ties_normal,
                     .n_a = na,
                     .n_b = nb,
                     .count = tied};
    if (r.test.exact) {
      w.p_benchstat = r.test.p_benchstat;
      w.p_slot = r.p_slot;
      w.p_absdev = r.test.p_exact_absdev;
      if (r.p_slot != r.test.p_benchstat)
        w.detail = TiesDetail::not_probability;
      else if (std::fabs(r.p_slot - r.test.p_exact_absdev) >= 0.0005)
        w.detail = TiesDetail::tails_differ;
    }
    r.warnings.push_back(w);
  } else if (!r.test.exact && !all_equal) {
    r.warnings.push_back({.kind = CompareWarningKind::normal_approximation, .n_a = na, .n_b = nb});
  }
}

// `sorted_a` and `sorted_b`: the two sides' values in ascending order, taken over.
void compute_row(CompareRow& r, const CompareSettings& st, std::vector<double> sorted_a,
                 std::vector<double> sorted_b) {
  const auto& a = r.old_side.values;
  const auto& b = r.new_side.values;
  const double co = r.old_side.center, cn = r.new_side.center;
  r.ratio_of_medians = co == cn ? 1.0 : co != 0 ? cn / co : stats::kNaN;
  const std::size_t na = a.size(), nb = b.size();
  r.ratio_of_means = stats::fieller_ratio_of_means(b, a, st.confidence);
  if (r.exact) {
    // benchfmt's `assume=exact`: the values are exact, there is nothing to test.
    r.significant = true;
    r.verdict = exact_verdict(r, st.threshold);
    if (sorted_a.front() != sorted_a.back() || sorted_b.front() != sorted_b.back())
      r.warnings.push_back({.kind = CompareWarningKind::inexact_values,
                            .n_a = na,
                            .n_b = nb,
                            .lo = std::min(sorted_a.front(), sorted_b.front()),
                            .hi = std::max(sorted_a.back(), sorted_b.back())});
    return;
  }
  r.test = stats::mann_whitney(sorted_a, sorted_b);
  const double pb = r.test.p_benchstat;
  r.p_slot = pb > 0 && pb <= 1 ? pb : r.test.exact ? r.test.p_exact_doubling : std::min(1.0, pb);
  r.significant = r.p_slot <= st.alpha;
  test_warnings(r, sorted_a, sorted_b);
  const bool positive = std::all_of(a.begin(), a.end(), [](double x) { return x > 0; }) &&
                        std::all_of(b.begin(), b.end(), [](double x) { return x > 0; });
  if (positive) {
    r.hl = stats::hodges_lehmann_ratio_sorted(std::move(sorted_a), std::move(sorted_b), st.confidence);
    r.verdict = stats::classify(r.hl->lo, r.hl->hi, st.threshold);
    if (!r.hl->bounded) {
      r.warnings.push_back(
          {.kind = CompareWarningKind::hl_unbounded, .n_a = na, .n_b = nb, .value = st.confidence});
    }
  } else if (count_tied(sorted_a, sorted_b) == na + nb) {
    r.verdict = stats::Verdict::equivalent;  // identical samples: no shift at all
  } else {
    r.verdict = stats::Verdict::inconclusive;
    r.warnings.push_back({.kind = CompareWarningKind::not_positive, .n_a = na, .n_b = nb});
  }
}

// The keys goos, goarch and cpu describe the machine: the rooms say whether two sides may be
// compared (analysis/rooms.hpp), not a configuration note.
bool room_key(const std::string& key) { return key == "goos" || key == "goarch" || key == "cpu"; }

}  // namespace

Word CompareRow::verdict_word() const { return analysis::verdict_word(verdict, better, quantity); }

namespace {

// The table's settings and the sides' keys, before any row.
CompareTable table_of(const CompareSettings& st, const Side& old_side, const Side& new_side) {
  CompareTable t;
  t.old_name = st.old_name;
  t.new_name = st.new_name;
  t.old_source = st.old_source;
  t.new_source = st.new_source;
  t.threshold = st.threshold;
  t.alpha = st.alpha;
  t.confidence = st.confidence;
  t.allow_different_hosts = st.allow_different_hosts;
  t.differences = st.differences;
  t.comparable = std::none_of(st.differences.begin(), st.differences.end(),
                              [](const Difference& d) { return d.moves_benchmarks; });
  t.notes = st.notes;
  t.config_keys = old_side.keys;
  t.config_keys.insert(new_side.keys.begin(), new_side.keys.end());
  return t;
}

// The (old, new) conditions compared: the two single ones, or those of one name; the others are
// listed as present on one side only.
std::vector<std::pair<std::string, std::string>> condition_pairs(const Side& old_side, const Side& new_side,
                                                                 const CompareSettings& st, CompareTable& t) {
  std::vector<std::pair<std::string, std::string>> pairs;
  if (old_side.conditions.size() == 1 && new_side.conditions.size() == 1) {
    pairs.emplace_back(old_side.conditions[0], new_side.conditions[0]);
    t.matched_by_condition_name = old_side.conditions[0] == new_side.conditions[0];
    return pairs;
  }
  for (const auto& c : old_side.conditions) {
    if (contains(new_side.conditions, c))
      pairs.emplace_back(c, c);
    else
      t.only_old.push_back({OneSided::Kind::condition, c, "", ""});
  }
  for (const auto& c : new_side.conditions)
    if (!contains(old_side.conditions, c)) t.only_new.push_back({OneSided::Kind::condition, c, "", ""});
  if (pairs.empty()) {
    throw ConfigError(fmt::format(
        "compare: no condition name in common: {} has {}, {} has {}; compare runs of the same experiment, "
        "or two single-condition sources (e.g. the <condition>.txt go test files of two result "
        "directories), which are matched by benchmark",
        st.old_name, join_quoted(old_side.conditions), st.new_name, join_quoted(new_side.conditions)));
  }
  return pairs;
}

// A condition's rows as the sides are matched: (match id, full id), first-seen. The match id is
// the name, the part of the configuration that tells rows apart and the variant (the
// configurations within a condition differ in a distinguishing key, so no two rows share one).
struct MatchedIds {
  std::vector<std::pair<RowId, RowId>> rows;
  std::map<RowId, std::size_t> by_match;  // match id -> its place in rows
  auto begin() const { return rows.begin(); }
  auto end() const { return rows.end(); }
};

MatchedIds match_ids(const Side& side, const std::string& condition,
                     const std::set<std::string>& config_keys) {
  MatchedIds out;
  for (const auto& id : side.rows.at(condition)) {
    RowId m{id.name, model::config_only(id.config, config_keys), id.variant};
    out.by_match.emplace(m, out.rows.size());
    out.rows.emplace_back(std::move(m), id);
  }
  return out;
}

const RowId* find_match(const MatchedIds& rows, const RowId& m) {
  const auto it = rows.by_match.find(m);
  return it == rows.by_match.end() ? nullptr : &rows.rows[it->second].second;
}

std::string match_name(const RowId& m) {
  return row_name(text::line_label(m.name), model::config_label(m.config), m.variant);
}

// Keys with one value on each side are no row key; a note says when they differ.
void side_config_note(const MatchedIds& orows, const MatchedIds& nrows, CompareTable& t) {
  std::map<std::string, std::string> oconst, nconst;
  for (const auto& [m, full] : orows)
    for (const auto& [k, v] : model::config_entries(full.config))
      if (!t.config_keys.count(k)) oconst[k] = v;
  for (const auto& [m, full] : nrows)
    for (const auto& [k, v] : model::config_entries(full.config))
      if (!t.config_keys.count(k)) nconst[k] = v;
  CompareNote note{.kind = CompareNote::Kind::configs_differ};
  for (const auto& [k, v] : oconst)
    if (const auto it = nconst.find(k); it != nconst.end() && it->second != v && !room_key(k))
      note.changes.push_back({k, v, it->second});
  if (!note.changes.empty()) t.notes.push_back(std::move(note));
}

// One side of a row: the group's values move in (each group is in one row); a comparison reads
// the summary's n, median and CI, not its per-sample vectors, which are dropped. The side is
// sorted once, here: for its summary, and for the test, the ties and the Hodges-Lehmann
// interval (compute_row).
CompareSide side_of(const std::string& condition, Group& g, bool exact, double confidence,
                    std::vector<double>& sorted) {
  CompareSide s{condition, g.procs, std::move(g.values), {}};
  sorted = s.values;
  std::sort(sorted.begin(), sorted.end());
  s.summary = stats::summarize(s.values, sorted, confidence);
  std::vector<stats::Outlier>().swap(s.summary.outliers);
  std::vector<double>().swap(s.summary.modified_z);
  if (exact) {
    s.center = mode_of_ascending(sorted), s.lo = sorted.front(), s.hi = sorted.back();
  } else {
    s.center = s.summary.median;
    s.lo = s.summary.median_ci ? s.summary.median_ci->lo : -std::numeric_limits<double>::infinity();
    s.hi = s.summary.median_ci ? s.summary.median_ci->hi : std::numeric_limits<double>::infinity();
  }
  return s;
}

// The label gate: a row whose sides carry different known labels is not compared, unless
// allowed. Returns whether to compute the row; `unrecorded` is set when a side records no load.
bool label_row(CompareRow& r, const std::string& oc, const std::string& nc, const CompareSettings& st,
               bool& unrecorded) {
  r.labels = {label_of(st.old_labels, oc), label_of(st.new_labels, nc), reason_of(st.old_label_reasons, oc),
              reason_of(st.new_label_reasons, nc)};
  const Label lo = r.labels.old_label, ln = r.labels.new_label;
  const bool differ = r.labels.differ();
  r.compared = !differ || st.allow_different_labels;
  if (!r.compared) return false;
  unrecorded = unrecorded || lo == Label::unknown || ln == Label::unknown;
  r.label = lo == Label::unknown || ln == Label::unknown || differ ? Label::unknown : lo;
  return true;
}

// The row of match id `m` in `unit`, both sides' groups given.
CompareRow matched_row(const RowId& m, const std::string& unit, const std::string& oc, Group& og,
                       const std::string& nc, Group& ng, const CompareSettings& st, bool& unrecorded) {
  CompareRow r;
  r.benchmark = m.variant.empty() ? m.name : m.name + " [" + m.variant + "]";
  r.name = m.name;
  r.variant = m.variant;
  r.config = m.config;
  r.config_label = model::config_label(m.config);
  r.unit = unit;
  r.recorded_units = og.recorded_units;
  for (const auto& u : ng.recorded_units) add_unique(r.recorded_units, u);
  r.better = model::better_of(unit, st.units);
  r.quantity = model::quantity_of(unit);
  r.exact = model::exact_samples(unit, st.units, {og.values, ng.values});
  std::vector<double> old_sorted, new_sorted;
  r.old_side = side_of(oc, og, r.exact, st.confidence, old_sorted);
  r.new_side = side_of(nc, ng, r.exact, st.confidence, new_sorted);
  if (label_row(r, oc, nc, st, unrecorded)) compute_row(r, st, std::move(old_sorted), std::move(new_sorted));
  return r;
}

// The rows of one condition pair, unit by unit; what one side lacks is listed as such.
void compare_pair(const std::string& oc, const std::string& nc, Side& old_side, Side& new_side,
                  const CompareSettings& st, CompareTable& t, bool& unrecorded) {
  const MatchedIds orows = match_ids(old_side, oc, t.config_keys);
  const MatchedIds nrows = match_ids(new_side, nc, t.config_keys);
  for (const auto& [m, full] : orows)
    if (!find_match(nrows, m)) t.only_old.push_back({OneSided::Kind::row, oc, match_name(m), ""});
  for (const auto& [m, full] : nrows)
    if (!find_match(orows, m)) t.only_new.push_back({OneSided::Kind::row, nc, match_name(m), ""});
  side_config_note(orows, nrows, t);
  const auto& ou = old_side.units.at(oc);
  const auto& nu = new_side.units.at(nc);
  for (const auto& unit : ou) {
    if (!contains(nu, unit)) continue;
    for (const auto& [m, ofull] : orows) {
      const RowId* nfull = find_match(nrows, m);
      if (nfull == nullptr) continue;
      auto og = old_side.groups.find({oc, ofull, unit});
      auto ng = new_side.groups.find({nc, *nfull, unit});
      const bool no_old = og == old_side.groups.end(), no_new = ng == new_side.groups.end();
      if (no_old && no_new) continue;
      if (no_old || no_new) {
        (no_old ? t.only_new : t.only_old)
            .push_back({OneSided::Kind::row_unit, no_old ? nc : oc, match_name(m), unit});
        continue;
      }
      t.rows.push_back(matched_row(m, unit, oc, og->second, nc, ng->second, st, unrecorded));
    }
  }
  // Units of the condition seen on one side only.
  for (const auto& unit : ou)
    if (!contains(nu, unit)) t.only_old.push_back({OneSided::Kind::unit, oc, "", unit});
  for (const auto& unit : nu)
    if (!contains(ou, unit)) t.only_new.push_back({OneSided::Kind::unit, nc, "", unit});
}

// Holm-Bonferroni over the tested rows of each unit (benchstat's p; an exact unit has no test).
void adjust_holm(CompareTable& t, const CompareSettings& st) {
  std::vector<std::string> units;
  for (const auto& r : t.rows)
    if (r.compared && !r.exact) add_unique(units, r.unit);
  CompareNote note{.kind = CompareNote::Kind::holm, .confidence = st.confidence};
  for (const auto& unit : units) {
    std::vector<std::size_t> idx;
    std::vector<double> ps;
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      if (t.rows[i].compared && !t.rows[i].exact && t.rows[i].unit == unit) {
        idx.push_back(i);
        ps.push_back(t.rows[i].p_slot);
      }
    }
    const std::vector<double> adj = ps.size() > 1 ? stats::holm_bonferroni(ps) : ps;
    for (std::size_t j = 0; j < idx.size(); ++j) {
      t.rows[idx[j]].p_adjusted = adj[j];
      t.rows[idx[j]].significant_adjusted = adj[j] <= st.alpha;
    }
    if (idx.size() > 1) note.adjusted.emplace_back(unit, idx.size());
  }
  if (!note.adjusted.empty()) t.notes.push_back(std::move(note));
}

// Sections: labels in order of first appearance (stable); rows not compared last.
void sort_by_label(CompareTable& t) {
  std::vector<Label> label_order;
  for (const auto& r : t.rows)
    if (r.compared) add_unique(label_order, r.label);
  std::stable_sort(t.rows.begin(), t.rows.end(), [&](const CompareRow& x, const CompareRow& y) {
    auto rank = [&](const CompareRow& r) {
      if (!r.compared) return label_order.size();
      return static_cast<std::size_t>(std::find(label_order.begin(), label_order.end(), r.label) -
                                      label_order.begin());
    };
    return rank(x) < rank(y);
  });
}

// Geomeans per table (label, condition pair, configuration, unit) with >= 2 compared rows, as
// benchstat: of the centres on each side (when every centre is > 0), and of the ratios of the
// centres (a ratio of equal centres is 1, so a row of zeros on both sides still counts; a zero
// old centre under another leaves no ratio).
void add_geomeans(CompareTable& t) {
  struct Sums {
    double so = 0, sn = 0, sr = 0;
    std::size_t k = 0;
    bool centres = true, ratios = true;
  };
  using Key = std::tuple<Label, std::string, std::string, std::string, std::string>;
  model::FirstSeen<Key> tables;
  std::vector<Sums> sums;
  for (const auto& r : t.rows) {  // one pass: each table's sums in row order
    if (!r.compared) continue;
    const std::size_t at =
        tables.add({r.label, r.old_side.condition, r.new_side.condition, r.config, r.unit});
    if (at == sums.size()) sums.emplace_back();
    Sums& x = sums[at];
    const double mo = r.old_side.center, mn = r.new_side.center;
    x.centres = x.centres && mo > 0 && mn > 0;
    if (x.centres) x.so += std::log(mo), x.sn += std::log(mn);
    const double ratio = mo == mn ? 1.0 : mo != 0 ? mn / mo : stats::kNaN;
    x.ratios = x.ratios && ratio > 0;
    if (x.ratios) x.sr += std::log(ratio);
    ++x.k;
  }
  for (std::size_t i = 0; i < tables.size(); ++i) {
    const auto& [label, oc, nc, config, unit] = tables[i];
    const Sums& x = sums[i];
    if (x.k < 2) continue;
    const double kd = static_cast<double>(x.k);
    const double nan = stats::kNaN;
    t.geomeans.push_back({label, oc, nc, config, unit, x.k, x.centres ? std::exp(x.so / kd) : nan,
                          x.centres ? std::exp(x.sn / kd) : nan, x.ratios ? std::exp(x.sr / kd) : nan});
    if (!x.centres)
      t.notes.push_back({.kind = CompareNote::Kind::no_geomean,
                         .old_condition = oc,
                         .new_condition = nc,
                         .config = model::config_label(config),
                         .unit = unit});
  }
}

// The table-wide notes that close it: unknown labels, benchmark sets that differ, values that
// were not numbers.
void closing_notes(CompareTable& t, bool unrecorded, const Side& old_side, const Side& new_side,
                   const CompareSettings& st) {
  if (unrecorded) t.notes.push_back({.kind = CompareNote::Kind::unknown_label});
  if (!t.only_old.empty() || !t.only_new.empty()) t.notes.push_back({.kind = CompareNote::Kind::sets_differ});
  for (const auto& [side, name] : {std::pair{&old_side, &st.old_name}, std::pair{&new_side, &st.new_name}})
    for (const auto& [key, count] : side->not_numbers) {
      const RowId& id = std::get<1>(key);
      t.notes.push_back(
          {.kind = CompareNote::Kind::not_numbers,
           .side = *name,
           .old_condition = std::get<0>(key),
           .row = row_name(id.name, model::config_label(model::config_only(id.config, t.config_keys)),
                           id.variant),
           .unit = std::get<2>(key),
           .count = static_cast<std::size_t>(count)});
    }
}

}  // namespace

CompareTable compare_samples(records::Samples old_samples, records::Samples new_samples,
                             const CompareSettings& st) {
  // Each side's samples are let go once grouped: a million per side is held once, not twice.
  Side old_side = group_samples(old_samples, st.old_conditions);
  old_samples = records::Samples();
  Side new_side = group_samples(new_samples, st.new_conditions);
  new_samples = records::Samples();
  if (old_side.conditions.empty())
    throw ConfigError(fmt::format("compare: {}: no samples (warm-up excluded)", st.old_name));
  if (new_side.conditions.empty())
    throw ConfigError(fmt::format("compare: {}: no samples (warm-up excluded)", st.new_name));
  CompareTable t = table_of(st, old_side, new_side);
  bool unrecorded = false;  // a compared row with a side that records no load
  for (const auto& [oc, nc] : condition_pairs(old_side, new_side, st, t))
    compare_pair(oc, nc, old_side, new_side, st, t, unrecorded);
  adjust_holm(t, st);
  sort_by_label(t);
  add_geomeans(t);
  closing_notes(t, unrecorded, old_side, new_side, st);
  return t;
}

namespace {

constexpr std::string_view kAbsent = "(absent)";  // rooms.hpp's side of a field one side lacks

// The go test headers that move benchmarks (a different CPU or platform).
bool gotest_header_moves(const std::string& field) {
  return field == "gotest.cpu" || field == "gotest.goos" || field == "gotest.goarch";
}

// <experiment>/<run id> for a result directory, the file name for a go test file.
std::string column_name(const records::Result& r) {
  const std::filesystem::path p(r.source);
  return r.go_test_file ? p.filename().string()
                        : p.parent_path().filename().string() + "/" + p.filename().string();
}

}  // namespace

CompareTable compare_results(records::Result old_result, records::Result new_result, double threshold,
                             bool allow_different_hosts, bool allow_different_labels) {
  CompareSettings st;
  st.allow_different_labels = allow_different_labels;
  st.old_name = column_name(old_result);
  st.new_name = column_name(new_result);
  st.old_source = old_result.source;
  st.new_source = new_result.source;
  st.old_conditions = old_result.conditions;
  st.new_conditions = new_result.conditions;
  st.threshold = threshold;
  st.allow_different_hosts = allow_different_hosts;
  for (const auto& c : old_result.conditions)
    st.old_labels[c] = condition_label(old_result, c, &st.old_label_reasons[c]);
  for (const auto& c : new_result.conditions)
    st.new_labels[c] = condition_label(new_result, c, &st.new_label_reasons[c]);
  st.units = old_result.units;
  for (auto& conflict : st.units.merge(new_result.units))
    st.notes.push_back({.kind = CompareNote::Kind::loaded,
                        .loaded = {.kind = records::RunWarningKind::unit_conflict,
                                   .detail = std::move(conflict),
                                   .file = new_result.source}});
  if (old_result.go_test_file == new_result.go_test_file) {
    st.differences = differences(old_result.fingerprint, new_result.fingerprint);
    // A header line only one side printed (a `cpu:` line one `go test` wrote and another did not)
    // is a fact only one side recorded: it does not make the rooms differ.
    if (old_result.go_test_file)
      for (auto& d : st.differences)
        d.moves_benchmarks =
            d.moves_benchmarks || (gotest_header_moves(d.field) && d.a != kAbsent && d.b != kAbsent);
  } else {
    st.notes.push_back({.kind = CompareNote::Kind::no_fingerprint,
                        .side = old_result.go_test_file ? st.old_name : st.new_name});
  }
  for (const auto* result : {&old_result, &new_result})
    for (const auto& w : result->warnings)
      st.notes.push_back({.kind = CompareNote::Kind::loaded, .loaded = w});
  CompareTable t = compare_samples(std::move(old_result.samples), std::move(new_result.samples), st);
  t.old_noise = old_result.fingerprint.noise;
  t.new_noise = new_result.fingerprint.noise;
  if (t.old_noise && t.new_noise) t.noise_change = fingerprint::noise_change(*t.old_noise, *t.new_noise);
  return t;
}

}  // namespace noisefloor::analysis
