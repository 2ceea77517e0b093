#include "report/compare.hpp"
#include "report/table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>
#include <utility>

#include "model/errors.hpp"

namespace noisefloor::report {
namespace {

using nlohmann::json;

constexpr std::size_t kWidth = 80;
constexpr const char* kBenchmarkPrefix = "Benchmark";

template <typename T>
bool contains(const std::vector<T>& v, const T& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

template <typename T>
void add_unique(std::vector<T>& v, const T& x) {
  if (!contains(v, x)) v.push_back(x);
}

std::string center(const std::string& s, std::size_t w) {
  const std::size_t have = display_width(s);
  if (have >= w) return s;
  const std::size_t left = (w - have) / 2;
  return std::string(left, ' ') + s + std::string(w - have - left, ' ');
}

std::string rstrip(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// Cuts s to at most w columns, ending with "…" when cut.
std::string truncate(const std::string& s, std::size_t w) {
  if (display_width(s) <= w || w == 0) return s;
  std::string out;
  std::size_t cols = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if ((c & 0xC0) != 0x80) {
      if (cols + 1 >= w) break;
      ++cols;
    }
    out += s[i];
  }
  return out + "…";
}

// Word-wraps one logical line to kWidth columns, keeping its leading spaces; continuation lines
// get `indent` spaces. A single word longer than the line stays whole.
std::string wrap(const std::string& text, std::size_t indent) {
  const std::size_t lead = std::min(text.find_first_not_of(' '), text.size());
  std::istringstream in(text.substr(lead));
  std::string word, out;
  std::string line(lead, ' ');
  bool empty = true;
  while (in >> word) {
    if (!empty && display_width(line) + 1 + display_width(word) > kWidth) {
      out += line + "\n";
      line = std::string(indent, ' ') + word;
    } else {
      line += (empty ? "" : " ") + word;
    }
    empty = false;
  }
  return out + line + "\n";
}

std::string display_name(const CompareRow& r) {
  std::string name = r.benchmark;
  if (name.rfind(kBenchmarkPrefix, 0) == 0 && name.size() > std::string_view(kBenchmarkPrefix).size()) {
    name = name.substr(std::string_view(kBenchmarkPrefix).size());
  }
  // benchstat keeps the -N suffix; show it when both sides ran with the same single GOMAXPROCS.
  if (r.old_side.procs.size() == 1 && r.old_side.procs == r.new_side.procs && r.old_side.procs[0] != 1) {
    name += fmt::format("-{}", r.old_side.procs[0]);
  }
  return name;
}

std::string procs_text(const std::vector<int>& procs) {
  return procs.empty() ? "?" : fmt::format("{}", fmt::join(procs, ","));
}

// ---- benchstat's number scaling (benchunit) ----

struct Factor {
  double factor;
  const char* prefix;
  double t100, t10, t1;
};

std::vector<Factor> si_factors() {
  std::vector<Factor> out;
  int exp = 12;
  for (const char* p : {"T", "G", "M", "k", "", "m", "µ", "n"}) {
    out.push_back({std::pow(10.0, exp), p, std::stod(fmt::format("99.995e{}", exp)),
                   std::stod(fmt::format("9.9995e{}", exp)), std::stod(fmt::format(".99995e{}", exp))});
    exp -= 3;
  }
  return out;
}

std::vector<Factor> iec_factors() {
  std::vector<Factor> out;
  int exp = 40;
  for (const char* p : {"Ti", "Gi", "Mi", "Ki", ""}) {
    const double f = std::ldexp(1.0, exp);
    out.push_back({f, p, 99.995 * f, 9.9995 * f, 0.99995 * f});
    exp -= 10;
  }
  return out;
}

struct Scaler {
  int prec = 3;
  double factor = 1;
  std::string prefix;
  std::string format(double v) const {
    if (std::isnan(v)) return "?";
    return fmt::format("{:.{}f}{}", v / factor, prec, prefix);
  }
};

// Tokens of a unit's numerator ("B/op" -> {"B"}, "ns/op" -> {"ns"}).
bool binary_class(const std::string& unit) {
  bool denom = false;
  std::string tok;
  auto flush = [&] {
    if (!denom && (tok == "B" || tok == "MB" || tok == "bytes")) return true;
    tok.clear();
    return false;
  };
  for (char c : unit) {
    if (c == '*' || c == '/' || c == '-' || c == ' ') {
      if (flush()) return true;
      if (c == '*') denom = false;
      if (c == '/') denom = true;
    } else {
      tok += c;
    }
  }
  return flush();
}

Scaler common_scale(const std::vector<double>& values, bool binary) {
  double min = 0;
  for (double v : values) {
    v = std::fabs(v);
    if (std::isfinite(v) && v != 0 && (min == 0 || v < min)) min = v;
  }
  if (min == 0) return {3, 1, ""};
  static const std::vector<Factor> kSi = si_factors();
  static const std::vector<Factor> kIec = iec_factors();
  const auto& factors = binary ? kIec : kSi;
  for (const auto& f : factors) {
    if (min >= f.t100) return {1, f.factor, f.prefix};
    if (min >= f.t10) return {2, f.factor, f.prefix};
    if (min >= f.t1) return {3, f.factor, f.prefix};
  }
  // Below the smallest prefix: more digits after the point (up to 10).
  const Factor& f = factors.back();
  const double v = min / f.factor;
  for (int i = 0; i < 8; ++i) {
    const double thresh = std::stod(fmt::format("9.9995e{}", -1 - i));
    if (v >= thresh || i == 7) return {i + 3, f.factor, f.prefix};
  }
  return {10, f.factor, f.prefix};
}

// ---- formatting of the statistics ----

// benchstat's "±": the median CI half-range in whole percent; "∞" without a CI.
std::string pct_range(const stats::Summary& s) {
  if (!s.median_ci) return "∞";
  const double c = s.median, lo = s.median_ci->lo, hi = s.median_ci->hi;
  auto sign = [](double x) { return (x > 0) - (x < 0); };
  if (sign(c) != sign(lo) || sign(c) != sign(hi)) return "?";
  if (c == 0) return "0%";
  return fmt::format("{:.0f}%", 100 * std::max(hi / c - 1, 1 - lo / c));
}

std::string delta_text(const CompareRow& r) {
  if (!r.significant) return "~";
  const double o = r.old_side.summary.median, n = r.new_side.summary.median;
  if (o == n) return "0.00%";
  if (o == 0) return "?";
  return fmt::format("{:+.2f}%", (n / o - 1) * 100);
}

std::string p_text(const CompareRow& r) {
  std::string s;
  if (r.p_adjusted != 0) s = fmt::format("p={:.3f} ", r.p_adjusted);
  const std::size_t n1 = r.old_side.summary.n, n2 = r.new_side.summary.n;
  return s + (n1 == n2 ? fmt::format("n={}", n1) : fmt::format("n={}+{}", n1, n2));
}

// A ratio as a signed percent change, precise enough to read against θ near zero.
std::string change_pct(double ratio) {
  if (!std::isfinite(ratio)) return ratio > 0 ? "+∞" : "?";
  const double v = (ratio - 1) * 100;
  const double a = std::fabs(v);
  const int decimals = a < 10 ? 2 : (a < 100 ? 1 : 0);
  return fmt::format("{:+.{}f}%", v, decimals);
}

std::string hl_text(const CompareRow& r) {
  if (!r.hl) return "no ratio (values <= 0)";
  const auto& h = *r.hl;
  if (!h.bounded) return change_pct(h.estimate) + " [CI unbounded]";
  return fmt::format("{} [{}, {}]", change_pct(h.estimate), change_pct(h.lo), change_pct(h.hi));
}

std::string label_reason_text(const std::string& old_reason, const std::string& new_reason) {
  if (old_reason.empty() && new_reason.empty()) return "";
  if (old_reason == new_reason) return old_reason;
  std::vector<std::string> parts;
  if (!old_reason.empty()) parts.push_back("old: " + old_reason);
  if (!new_reason.empty()) parts.push_back("new: " + new_reason);
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::size_t count_tied(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> all(a);
  all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end());
  std::size_t tied = 0;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j] == all[i]) ++j;
    if (j - i > 1) tied += j - i;
    i = j;
  }
  return tied;
}

json nullable(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

// ---- grouping of the input ----

struct Group {
  std::vector<double> values;
  std::vector<int> procs;
};

// condition -> benchmark order, (benchmark, unit) -> values, unit order.
struct Side {
  std::vector<std::string> conditions;
  std::map<std::string, std::vector<std::string>> benchmarks;  // per condition, first-seen
  std::map<std::string, std::vector<std::string>> units;       // per condition, first-seen
  std::map<std::tuple<std::string, std::string, std::string>, Group> groups;
};

Side group_samples(const std::vector<model::Sample>& samples, const std::vector<std::string>& order) {
  Side side;
  for (const auto& s : samples) {
    if (s.warmup) continue;
    add_unique(side.benchmarks[s.condition], s.benchmark);
    for (const auto& m : s.metrics) {
      add_unique(side.units[s.condition], m.unit);
      auto& g = side.groups[{s.condition, s.benchmark, m.unit}];
      g.values.push_back(m.value);
      add_unique(g.procs, s.procs);
    }
  }
  for (const auto& c : order)
    if (side.benchmarks.count(c)) add_unique(side.conditions, c);
  for (const auto& s : samples)
    if (!s.warmup) add_unique(side.conditions, s.condition);
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

std::string reason_of(const std::map<std::string, std::string>& reasons, const std::string& condition) {
  const auto it = reasons.find(condition);
  return it == reasons.end() ? "" : it->second;
}

void compute_row(CompareRow& r, const CompareSettings& st) {
  const auto& a = r.old_side.values;
  const auto& b = r.new_side.values;
  const double mo = r.old_side.summary.median, mn = r.new_side.summary.median;
  r.ratio_of_medians = mo != 0 ? mn / mo : stats::kNaN;
  r.test = stats::mann_whitney(a, b);
  for (const auto& w : r.test.warnings) {
    const bool min_p = w.find("minimum attainable p") != std::string::npos;
    r.warnings.push_back(min_p ? w + ": no difference can ever be significant at these sizes (4 vs 4 is the "
                                     "least; 10 per side is the floor)"
                               : w);
  }
  const std::size_t na = a.size(), nb = b.size();
  if (na < 6 || nb < 6) {
    r.warnings.push_back(fmt::format("n={} vs {}: a side has fewer than 6 values: no 95% median CI (± ∞); "
                                     "10 per side is the floor, 20 for reporting",
                                     na, nb));
  } else if (na < 10 || nb < 10) {
    r.warnings.push_back(fmt::format("n={} vs {}: low n (10 per side is the floor, 20 for reporting)", na, nb));
  }
  const std::size_t tied = count_tied(a, b);
  const bool all_equal = tied == na + nb;
  if (tied > 0 && !all_equal) {
    if (r.test.exact) {
      std::string w = fmt::format("ties: {} of {} values share a value; exact p conditional on the ties", tied,
                                  na + nb);
      if (std::fabs(r.test.p_exact_doubling - r.test.p_exact_absdev) >= 0.0005) {
        w += fmt::format(" (p={:.3f}; benchstat's doubled tail gives {:.3f})", r.test.p_exact_absdev,
                         r.test.p_exact_doubling);
      }
      r.warnings.push_back(w);
    } else {
      r.warnings.push_back(fmt::format("ties: {} of {} values share a value; normal approximation with tie "
                                       "correction (exact only up to 25 per side with ties)",
                                       tied, na + nb));
    }
  } else if (!r.test.exact && !all_equal) {
    r.warnings.push_back("p from the normal approximation (exact only up to 50 per side)");
  }
  if (r.old_side.procs != r.new_side.procs) {
    r.warnings.push_back(fmt::format("GOMAXPROCS differs ({} vs {}): the times are not comparable, their "
                                     "spread is",
                                     procs_text(r.old_side.procs), procs_text(r.new_side.procs)));
  }
  const bool positive = std::all_of(a.begin(), a.end(), [](double x) { return x > 0; }) &&
                        std::all_of(b.begin(), b.end(), [](double x) { return x > 0; });
  if (positive) {
    r.hl = stats::hodges_lehmann_ratio(a, b, st.confidence);
    r.verdict = stats::classify(r.hl->lo, r.hl->hi, st.threshold);
    if (!r.hl->bounded) {
      r.warnings.push_back(fmt::format("n={} vs {}: the Hodges-Lehmann {:.0f}% CI is unbounded: too few values",
                                       na, nb, 100 * st.confidence));
    }
  } else if (all_equal) {
    r.verdict = stats::Verdict::equivalent;  // identical samples: no shift at all
  } else {
    r.verdict = stats::Verdict::inconclusive;
    r.warnings.push_back("a value <= 0: no ratio (Hodges-Lehmann works on logs)");
  }
}

}  // namespace

std::string_view to_string(Label label) {
  switch (label) {
    case Label::measured_clean:
      return "MEASURED-clean";
    case Label::contended_paired:
      return "CONTENDED-PAIRED";
    case Label::contended:
      return "CONTENDED";
    case Label::unknown:
      break;
  }
  return "UNKNOWN";
}

Label condition_label(const json& run, const json& fp, const std::string& condition, std::string* reason) {
  bool recorded = false;
  std::string why;
  auto contended = [&](std::string r) {
    if (reason) *reason = std::move(r);
    return Label::contended;
  };
  if (run.is_object() && run.contains("condition_records") && run["condition_records"].is_array()) {
    for (const auto& rec : run["condition_records"]) {
      if (!rec.is_object() || rec.value("condition", std::string()) != condition) continue;
      recorded = true;
      const json* sp = nullptr;
      if (rec.contains("setup") && rec["setup"].is_object() && rec["setup"].contains("spinners"))
        sp = &rec["setup"]["spinners"];
      if (sp && sp->is_object()) {
        const auto count = sp->value("count", 0);
        if (count > 0) return contended(fmt::format("{} spinner{}", count, count == 1 ? "" : "s"));
      }
    }
  }
  // The doctor's verdict at run start decides when there is one ("MEASURED-clean: no spinners,
  // doctor ready or limited"); the raw 1-minute average, which lags by minutes, only stands in
  // for fingerprints without a doctor.
  bool doctor_judged = false;
  if (fp.is_object() && fp.contains("doctor") && fp["doctor"].is_object()) {
    const auto& d = fp["doctor"];
    doctor_judged = true;
    recorded = true;
    if (d.contains("findings") && d["findings"].is_array()) {
      for (const auto& f : d["findings"]) {
        if (f.is_object() && f.value("topic", std::string()) == "load" && f.value("level", std::string()) == "BAD")
          return contended("doctor: " + f.value("message", std::string("host load")));
      }
    }
    if (d.value("grade", std::string()) == "not ready") return contended("doctor: not ready");
  }
  if (!doctor_judged && fp.is_object() && fp.contains("host") && fp["host"].is_object()) {
    const auto& h = fp["host"];
    const json* load = h.contains("load") && h["load"].is_object() ? &h["load"] : nullptr;
    if (load && load->contains("value") && (*load)["value"].is_object()) {
      recorded = true;
      const auto& v = (*load)["value"];
      const json* logical = nullptr;
      if (h.contains("cpu") && h["cpu"].is_object() && h["cpu"].contains("logical") &&
          h["cpu"]["logical"].is_object() && h["cpu"]["logical"].contains("value"))
        logical = &h["cpu"]["logical"]["value"];
      if (v.contains("one") && v["one"].is_number() && logical && logical->is_number()) {
        const double one = v["one"].get<double>();
        const double cpus = logical->get<double>();
        if (cpus > 0 && one >= cpus)
          return contended(fmt::format("1-minute load {:.2f} on {:g} CPUs", one, cpus));
      }
    }
  }
  if (reason) *reason = recorded ? "" : "no load record";
  return recorded ? Label::measured_clean : Label::unknown;
}

std::pair<std::string, double> tidy_unit(const std::string& unit) {
  if (unit == "ns/op") return {"sec/op", 1e-9};
  if (unit == "MB/s") return {"B/s", 1e6};
  return {unit, 1.0};
}

std::vector<std::string> scale_values(const std::vector<double>& tidied, const std::string& tidied_unit) {
  const Scaler s = common_scale(tidied, binary_class(tidied_unit));
  std::vector<std::string> out;
  for (double v : tidied) out.push_back(s.format(v));
  return out;
}

CompareTable compare_samples(const std::vector<model::Sample>& old_samples,
                             const std::vector<model::Sample>& new_samples, const CompareSettings& st) {
  const Side old_side = group_samples(old_samples, st.old_conditions);
  const Side new_side = group_samples(new_samples, st.new_conditions);
  if (old_side.conditions.empty())
    throw ConfigError(fmt::format("compare: {}: no samples (warm-up excluded)", st.old_name));
  if (new_side.conditions.empty())
    throw ConfigError(fmt::format("compare: {}: no samples (warm-up excluded)", st.new_name));

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
                              [](const fingerprint::Difference& d) { return d.moves_benchmarks; });
  t.notes = st.notes;

  std::vector<std::pair<std::string, std::string>> pairs;
  if (old_side.conditions.size() == 1 && new_side.conditions.size() == 1) {
    pairs.emplace_back(old_side.conditions[0], new_side.conditions[0]);
    t.matched_by_condition_name = old_side.conditions[0] == new_side.conditions[0];
  } else {
    for (const auto& c : old_side.conditions) {
      if (contains(new_side.conditions, c))
        pairs.emplace_back(c, c);
      else
        t.only_old.push_back(fmt::format("condition '{}' (all benchmarks)", c));
    }
    for (const auto& c : new_side.conditions)
      if (!contains(old_side.conditions, c)) t.only_new.push_back(fmt::format("condition '{}' (all benchmarks)", c));
    if (pairs.empty()) {
      throw ConfigError(fmt::format(
          "compare: no condition name in common: {} has {}, {} has {}; compare runs of the same experiment, "
          "or two single-condition sources (e.g. the <condition>.txt go test files of two result "
          "directories), which are matched by benchmark",
          st.old_name, join_quoted(old_side.conditions), st.new_name, join_quoted(new_side.conditions)));
    }
  }

  for (const auto& [oc, nc] : pairs) {
    const auto& ob = old_side.benchmarks.at(oc);
    const auto& nb = new_side.benchmarks.at(nc);
    for (const auto& b : ob)
      if (!contains(nb, b)) t.only_old.push_back(fmt::format("{}: {}", oc, b));
    for (const auto& b : nb)
      if (!contains(ob, b)) t.only_new.push_back(fmt::format("{}: {}", nc, b));
    const auto& ou = old_side.units.at(oc);
    const auto& nu = new_side.units.at(nc);
    for (const auto& unit : ou) {
      if (!contains(nu, unit)) continue;
      for (const auto& b : ob) {
        if (!contains(nb, b)) continue;
        const auto og = old_side.groups.find({oc, b, unit});
        const auto ng = new_side.groups.find({nc, b, unit});
        if (og == old_side.groups.end() && ng == new_side.groups.end()) continue;
        if (og == old_side.groups.end() || ng == new_side.groups.end()) {
          (og == old_side.groups.end() ? t.only_new : t.only_old)
              .push_back(fmt::format("{}: {} ({})", og == old_side.groups.end() ? nc : oc, b, unit));
          continue;
        }
        CompareRow r;
        r.benchmark = b;
        r.unit = unit;
        r.old_side = {oc, og->second.procs, og->second.values, stats::summarize(og->second.values, st.confidence)};
        r.new_side = {nc, ng->second.procs, ng->second.values, stats::summarize(ng->second.values, st.confidence)};
        const Label lo = label_of(st.old_labels, oc), ln = label_of(st.new_labels, nc);
        if (lo != Label::unknown && ln != Label::unknown && lo != ln) {
          r.compared = false;
          auto why = [](const std::string& reason) { return reason.empty() ? reason : " (" + reason + ")"; };
          r.reason = fmt::format("labels differ: old '{}' is {}{}, new '{}' is {}{}", oc, to_string(lo),
                                 why(reason_of(st.old_label_reasons, oc)), nc, to_string(ln),
                                 why(reason_of(st.new_label_reasons, nc)));
          t.rows.push_back(std::move(r));
          continue;
        }
        r.label = lo == Label::unknown || ln == Label::unknown ? Label::unknown : lo;
        r.compared = true;
        r.label_reason = label_reason_text(reason_of(st.old_label_reasons, oc), reason_of(st.new_label_reasons, nc));
        compute_row(r, st);
        t.rows.push_back(std::move(r));
      }
    }
    // Units of the condition seen on one side only.
    for (const auto& unit : ou)
      if (!contains(nu, unit)) t.only_old.push_back(fmt::format("{}: unit {}", oc, unit));
    for (const auto& unit : nu)
      if (!contains(ou, unit)) t.only_new.push_back(fmt::format("{}: unit {}", nc, unit));
  }

  // Holm-Bonferroni over the compared rows of each unit.
  std::vector<std::string> units;
  for (const auto& r : t.rows)
    if (r.compared) add_unique(units, r.unit);
  std::vector<std::string> adjusted;  // "sec/op: 3 rows"
  for (const auto& unit : units) {
    std::vector<std::size_t> idx;
    std::vector<double> ps;
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      if (t.rows[i].compared && t.rows[i].unit == unit) {
        idx.push_back(i);
        ps.push_back(t.rows[i].test.p);
      }
    }
    const std::vector<double> adj = ps.size() > 1 ? stats::holm_bonferroni(ps) : ps;
    for (std::size_t j = 0; j < idx.size(); ++j) {
      t.rows[idx[j]].p_adjusted = adj[j];
      t.rows[idx[j]].significant = adj[j] <= st.alpha;
    }
    if (idx.size() > 1) adjusted.push_back(fmt::format("{} over {} rows", tidy_unit(unit).first, idx.size()));
  }
  if (!adjusted.empty()) {
    t.notes.push_back(fmt::format("p-values are Holm-Bonferroni adjusted within each unit ({}); \"~\" means "
                                  "adjusted p > {:g}; verdicts are per-row {:.0f}% CIs, not adjusted",
                                  fmt::join(adjusted, ", "), st.alpha, 100 * st.confidence));
  }

  // Sections: labels in order of first appearance (stable).
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

  // Geomeans per table (label, condition pair, unit) with >= 2 compared rows.
  std::vector<std::tuple<Label, std::string, std::string, std::string>> tables;
  for (const auto& r : t.rows)
    if (r.compared) add_unique(tables, {r.label, r.old_side.condition, r.new_side.condition, r.unit});
  for (const auto& [label, oc, nc, unit] : tables) {
    double so = 0, sn = 0, sr = 0;
    std::size_t k = 0;
    bool ok = true;
    for (const auto& r : t.rows) {
      if (!r.compared || r.label != label || r.old_side.condition != oc || r.new_side.condition != nc ||
          r.unit != unit)
        continue;
      const double mo = r.old_side.summary.median, mn = r.new_side.summary.median;
      if (!(mo > 0 && mn > 0)) ok = false;
      if (ok) {
        so += std::log(mo);
        sn += std::log(mn);
        sr += std::log(mn / mo);
      }
      ++k;
    }
    if (k < 2) continue;
    if (!ok) {
      t.notes.push_back(fmt::format("{} → {}, {}: no geomean (a median is <= 0)", oc, nc, unit));
      continue;
    }
    const double kd = static_cast<double>(k);
    t.geomeans.push_back({label, oc, nc, unit, k, std::exp(so / kd), std::exp(sn / kd), std::exp(sr / kd)});
  }

  bool unknown = false;
  for (const auto& r : t.rows) unknown = unknown || (r.compared && r.label == Label::unknown);
  if (unknown) {
    t.notes.push_back(
        "UNKNOWN label: a side records no load (a go test file has no spinner or load record), so "
        "MEASURED-clean cannot be told from CONTENDED");
  }
  if (!t.only_old.empty() || !t.only_new.empty()) {
    t.notes.push_back("the benchmark sets differ: geomeans cover the benchmarks present on both sides only");
  }
  return t;
}

// ---- text ----

namespace {

struct TextRow {
  std::string name;
  std::string old_center, old_pct, new_center, new_pct;  // pct empty: geomean (no ±)
  std::string delta, p, verdict;
  std::string effect;
};

std::string render_one_table(const std::string& old_name, const std::string& new_name,
                             const std::string& unit_label, const std::vector<TextRow>& rows) {
  std::size_t wn = 0, woc = 0, wop = 0, wnc = 0, wnp = 0, wd = 0, wp = 0, wv = 0;
  for (const auto& r : rows) {
    wn = std::max(wn, display_width(r.name));
    woc = std::max(woc, display_width(r.old_center));
    wop = std::max(wop, display_width(r.old_pct));
    wnc = std::max(wnc, display_width(r.new_center));
    wnp = std::max(wnp, display_width(r.new_pct));
    wd = std::max(wd, display_width(r.delta));
    wp = std::max(wp, r.p.empty() ? 0 : display_width(r.p) + 2);
    wv = std::max(wv, display_width(r.verdict));
  }
  wv = std::max<std::size_t>(wv, display_width("verdict"));
  // A source name wider than its column is shown as "old"/"new" (the full names head the output).
  const std::string old_head = display_width(old_name) <= std::max<std::size_t>(woc + 3 + wop, 16) ? old_name : "old";
  const std::string new_head = display_width(new_name) <= std::max<std::size_t>(wnc + 3 + wnp, 16) ? new_name : "new";
  const std::size_t wo = std::max(woc + 3 + wop, display_width(old_head));
  const std::size_t wnw = std::max(wnc + 3 + wnp, display_width(new_head));
  const std::size_t wdelta = std::max(wd + 1 + wp, display_width("vs base"));
  const std::size_t rest = 2 + wo + 2 + wnw + 2 + wdelta + 2 + wv;
  const bool wrapped = wn + rest > kWidth;
  const std::size_t name_col = wrapped ? 0 : wn;

  auto cell = [](const std::string& c, std::size_t wc, const std::string& pct, std::size_t wpct, std::size_t w) {
    std::string s = pad_left(c, wc);
    s += pct.empty() ? std::string(3 + wpct, ' ') : " ± " + pad_left(pct, wpct);
    return pad_left(s, w);
  };
  std::string out;
  out += rstrip(pad_right("", name_col) + "  " + center(old_head, wo) + "  " + center(new_head, wnw)) +
         "\n";
  out += rstrip(pad_right("", name_col) + "  " + center(unit_label, wo) + "  " + center(unit_label, wnw) + "  " +
                pad_right("vs base", wdelta) + "  " + "verdict") +
         "\n";
  for (const auto& r : rows) {
    std::string line;
    if (wrapped) out += r.name + "\n";
    line = pad_right(wrapped ? "" : r.name, name_col) + "  " + cell(r.old_center, woc, r.old_pct, wop, wo) + "  " +
           cell(r.new_center, wnc, r.new_pct, wnp, wnw) + "  ";
    std::string d = pad_left(r.delta, wd);
    if (!r.p.empty()) d += " (" + r.p + ")";
    line += pad_right(d, wdelta) + "  " + r.verdict;
    out += rstrip(line) + "\n";
  }
  return out;
}

}  // namespace

std::string render_compare_text(const CompareTable& t) {
  std::string out;
  out += wrap("old: " + (t.old_source.empty() ? t.old_name : t.old_source), 4);
  out += wrap("new: " + (t.new_source.empty() ? t.new_name : t.new_source), 4);
  std::vector<const fingerprint::Difference*> moving, other;
  for (const auto& d : t.differences) (d.moves_benchmarks ? moving : other).push_back(&d);
  auto diff_lines = [&](const std::vector<const fingerprint::Difference*>& ds) {
    std::string s;
    for (const auto* d : ds) {
      const std::size_t room = kWidth > display_width(d->field) + 9 ? (kWidth - display_width(d->field) - 9) / 2 : 8;
      s += fmt::format("  {}: {} → {}\n", d->field, truncate(d->a, std::max<std::size_t>(room, 8)),
                       truncate(d->b, std::max<std::size_t>(room, 8)));
    }
    return s;
  };
  if (!moving.empty()) {
    out += t.allow_different_hosts ? "different hosts, accepted by --allow-different-hosts (old → new):\n"
                                   : "NOT COMPARABLE: fields that move benchmarks differ (old → new):\n";
    out += diff_lines(moving);
    if (!t.allow_different_hosts) out += "(--allow-different-hosts compares anyway)\n";
  }
  if (!out.empty()) out += "\n";

  // Tables: (label, condition pair) sections, one table per unit.
  std::vector<std::tuple<Label, std::string, std::string>> sections;
  for (const auto& r : t.rows)
    if (r.compared) add_unique(sections, {r.label, r.old_side.condition, r.new_side.condition});
  bool first = true;
  for (const auto& [label, oc, nc] : sections) {
    std::vector<std::string> units;
    for (const auto& r : t.rows)
      if (r.compared && r.label == label && r.old_side.condition == oc && r.new_side.condition == nc)
        add_unique(units, r.unit);
    if (!first) out += "\n";
    first = false;
    std::string reason;
    for (const auto& r : t.rows)
      if (r.compared && r.label == label && r.old_side.condition == oc && r.new_side.condition == nc)
        reason = r.label_reason;
    out += wrap((oc == nc ? "condition: " + oc : oc + " → " + nc) + " · " + std::string(to_string(label)) +
                    (reason.empty() ? "" : " (" + reason + ")"),
                4);
    bool first_unit = true;
    for (const auto& unit : units) {
      if (!first_unit) out += "\n";
      first_unit = false;
      const auto [tunit, factor] = tidy_unit(unit);
      std::vector<TextRow> rows;
      std::vector<std::pair<std::string, std::string>> effects;
      for (const auto& r : t.rows) {
        if (!r.compared || r.label != label || r.old_side.condition != oc || r.new_side.condition != nc ||
            r.unit != unit)
          continue;
        const auto scaled = scale_values({r.old_side.summary.median * factor, r.new_side.summary.median * factor},
                                         tunit);
        TextRow tr;
        tr.name = display_name(r);
        tr.old_center = scaled[0];
        tr.old_pct = pct_range(r.old_side.summary);
        tr.new_center = scaled[1];
        tr.new_pct = pct_range(r.new_side.summary);
        tr.delta = delta_text(r);
        tr.p = p_text(r);
        tr.verdict = std::string(stats::to_string(r.verdict));
        rows.push_back(tr);
        effects.emplace_back(tr.name, hl_text(r) + "  " + tr.verdict);
      }
      for (const auto& g : t.geomeans) {
        if (g.label != label || g.old_condition != oc || g.new_condition != nc || g.unit != unit) continue;
        TextRow tr;
        tr.name = "geomean";
        tr.old_center = scale_values({g.old_value * factor}, tunit)[0];
        tr.new_center = scale_values({g.new_value * factor}, tunit)[0];
        tr.delta = fmt::format("{:+.2f}%", (g.ratio - 1) * 100);
        rows.push_back(tr);
      }
      out += render_one_table(t.old_name, t.new_name, tunit, rows);
      // Effects: the Hodges-Lehmann ratio new/old with its CI, behind the verdict.
      out += fmt::format("new/old, Hodges-Lehmann [{:.0f}% CI], verdict at θ = {:g}%:\n", 100 * t.confidence,
                         100 * t.threshold);
      std::size_t wn = 0;
      for (const auto& [name, text] : effects) wn = std::max(wn, display_width(name));
      std::size_t wt = 0;
      for (const auto& [name, text] : effects) wt = std::max(wt, display_width(text));
      const bool wrapped = 2 + wn + 2 + wt > kWidth;
      for (const auto& [name, text] : effects) {
        if (wrapped)
          out += "  " + name + "\n    " + text + "\n";
        else
          out += rstrip("  " + pad_right(name, wn) + "  " + text) + "\n";
      }
    }
  }
  if (sections.empty()) out += "no benchmark compared\n";

  std::vector<const CompareRow*> refused;
  for (const auto& r : t.rows)
    if (!r.compared) refused.push_back(&r);
  if (!refused.empty()) {
    out += "\nnot compared (different labels are never put in one comparison):\n";
    for (const auto* r : refused) out += wrap(fmt::format("  {} ({}): {}", display_name(*r), r->unit, r->reason), 4);
  }
  if (!t.only_old.empty()) {
    out += "\n" + wrap(fmt::format("only in old ({}):", t.old_name), 2);
    for (const auto& s : t.only_old) out += wrap("  " + s, 4);
  }
  if (!t.only_new.empty()) {
    out += "\n" + wrap(fmt::format("only in new ({}):", t.new_name), 2);
    for (const auto& s : t.only_new) out += wrap("  " + s, 4);
  }

  // Row warnings: one line per (benchmark, conditions, text), naming the units it applies to
  // unless it applies to every unit of that benchmark.
  std::vector<std::pair<std::string, std::string>> keys;  // (row prefix, text)
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> units_of;
  std::map<std::string, std::vector<std::string>> all_units;
  for (const auto& r : t.rows) {
    if (!r.compared) continue;
    const std::string prefix =
        fmt::format("{} ({}{})", display_name(r), r.old_side.condition,
                    r.old_side.condition == r.new_side.condition ? "" : " → " + r.new_side.condition);
    add_unique(all_units[prefix], tidy_unit(r.unit).first);
    for (const auto& w : r.warnings) {
      add_unique(keys, {prefix, w});
      add_unique(units_of[{prefix, w}], tidy_unit(r.unit).first);
    }
  }
  std::vector<std::string> unique;
  for (const auto& k : keys) {
    const auto& u = units_of[k];
    const bool every = u.size() == all_units[k.first].size();
    unique.push_back(fmt::format("{}{}: {}", k.first, every ? "" : fmt::format(" {}", fmt::join(u, ", ")), k.second));
  }
  for (const auto& n : t.notes) add_unique(unique, n);
  if (!unique.empty()) {
    out += "\nwarnings:\n";
    for (const auto& w : unique) out += wrap("- " + w, 4);
  }
  if (!other.empty()) {
    out += "\nother fingerprint differences (not known to move benchmarks):\n";
    out += diff_lines(other);
  }
  return out;
}

// ---- CSV and JSON ----

namespace {


std::string num(double v) { return std::isfinite(v) ? fmt::format("{}", v) : ""; }

json side_json(const CompareSide& s) {
  json j = {{"condition", s.condition},
            {"procs", s.procs},
            {"n", s.summary.n},
            {"median", nullable(s.summary.median)},
            {"median_ci", nullptr},
            {"median_ci_level", nullptr},
            {"rel_halfwidth", nullptr},
            {"values", s.values}};
  if (s.summary.median_ci) {
    j["median_ci"] = {s.summary.median_ci->lo, s.summary.median_ci->hi};
    j["median_ci_level"] = s.summary.median_ci->level;
  }
  if (s.summary.median_rel_halfwidth) j["rel_halfwidth"] = *s.summary.median_rel_halfwidth;
  return j;
}

}  // namespace

std::string render_compare_csv(const CompareTable& t) {
  std::string out =
      "old_condition,new_condition,benchmark,unit,label,compared,old_n,old_median,old_ci_lo,old_ci_hi,"
      "new_n,new_median,new_ci_lo,new_ci_hi,ratio_of_medians,delta_pct,u,p,p_exact_doubling,p_normal,"
      "exact,p_adjusted,significant,hl_ratio,hl_lo,hl_hi,hl_level,verdict,note\n";
  for (const auto& r : t.rows) {
    std::vector<std::string> f = {r.old_side.condition, r.new_side.condition, r.benchmark, r.unit,
                                  r.compared ? std::string(to_string(r.label)) : "",
                                  r.compared ? "true" : "false"};
    auto side = [&](const CompareSide& s) {
      f.push_back(std::to_string(s.summary.n));
      f.push_back(num(s.summary.median));
      f.push_back(s.summary.median_ci ? num(s.summary.median_ci->lo) : "");
      f.push_back(s.summary.median_ci ? num(s.summary.median_ci->hi) : "");
    };
    side(r.old_side);
    side(r.new_side);
    if (r.compared) {
      f.push_back(num(r.ratio_of_medians));
      f.push_back(num((r.ratio_of_medians - 1) * 100));
      f.push_back(num(r.test.u));
      f.push_back(num(r.test.p));
      f.push_back(num(r.test.p_exact_doubling));
      f.push_back(num(r.test.p_normal));
      f.push_back(r.test.exact ? "true" : "false");
      f.push_back(num(r.p_adjusted));
      f.push_back(r.significant ? "true" : "false");
      f.push_back(r.hl ? num(r.hl->estimate) : "");
      f.push_back(r.hl && r.hl->bounded ? num(r.hl->lo) : "");
      f.push_back(r.hl && r.hl->bounded ? num(r.hl->hi) : "");
      f.push_back(r.hl ? num(r.hl->level) : "");
      f.push_back(std::string(stats::to_string(r.verdict)));
      f.push_back("");
    } else {
      for (int i = 0; i < 14; ++i) f.push_back("");
      f.push_back(r.reason);
    }
    std::vector<std::string> q;
    for (const auto& x : f) q.push_back(csv_field(x));
    out += fmt::format("{}\n", fmt::join(q, ","));
  }
  return out;
}

json render_compare_json(const CompareTable& t) {
  json j;
  j["schema_version"] = 1;
  j["old"] = {{"name", t.old_name}, {"source", t.old_source}};
  j["new"] = {{"name", t.new_name}, {"source", t.new_source}};
  j["settings"] = {{"threshold", t.threshold}, {"alpha", t.alpha}, {"confidence", t.confidence}};
  j["comparable"] = t.comparable;
  j["allow_different_hosts"] = t.allow_different_hosts;
  j["matched_by"] = t.matched_by_condition_name ? "condition" : "benchmark";
  j["differences"] = json::array();
  for (const auto& d : t.differences)
    j["differences"].push_back({{"field", d.field}, {"old", d.a}, {"new", d.b}, {"moves_benchmarks", d.moves_benchmarks}});
  j["rows"] = json::array();
  for (const auto& r : t.rows) {
    json row = {{"benchmark", r.benchmark},
                {"unit", r.unit},
                {"label", r.compared ? json(std::string(to_string(r.label))) : json(nullptr)},
                {"label_reason", r.label_reason},
                {"compared", r.compared},
                {"old", side_json(r.old_side)},
                {"new", side_json(r.new_side)}};
    if (!r.compared) {
      row["reason"] = r.reason;
    } else {
      row["ratio_of_medians"] = nullable(r.ratio_of_medians);
      row["test"] = {{"u", nullable(r.test.u)},
                     {"p", nullable(r.test.p)},
                     {"p_exact_absdev", nullable(r.test.p_exact_absdev)},
                     {"p_exact_doubling", nullable(r.test.p_exact_doubling)},
                     {"p_normal", nullable(r.test.p_normal)},
                     {"z", nullable(r.test.z)},
                     {"exact", r.test.exact},
                     {"p_adjusted", nullable(r.p_adjusted)},
                     {"significant", r.significant}};
      if (r.hl) {
        row["hodges_lehmann"] = {{"estimate", nullable(r.hl->estimate)},
                                 {"lo", r.hl->bounded ? nullable(r.hl->lo) : json(nullptr)},
                                 {"hi", r.hl->bounded ? nullable(r.hl->hi) : json(nullptr)},
                                 {"level", nullable(r.hl->level)},
                                 {"bounded", r.hl->bounded}};
      } else {
        row["hodges_lehmann"] = nullptr;
      }
      row["verdict"] = std::string(stats::to_string(r.verdict));
      row["warnings"] = r.warnings;
    }
    j["rows"].push_back(row);
  }
  j["geomeans"] = json::array();
  for (const auto& g : t.geomeans)
    j["geomeans"].push_back({{"label", std::string(to_string(g.label))},
                             {"old_condition", g.old_condition},
                             {"new_condition", g.new_condition},
                             {"unit", g.unit},
                             {"rows", g.rows},
                             {"old", g.old_value},
                             {"new", g.new_value},
                             {"ratio", g.ratio}});
  j["only_old"] = t.only_old;
  j["only_new"] = t.only_new;
  j["notes"] = t.notes;
  return j;
}

}  // namespace noisefloor::report
