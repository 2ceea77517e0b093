#include "claims/evaluate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "stats/compare.hpp"
#include "stats/summary.hpp"

namespace noisefloor::claims {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

using Reason = Undefined::Reason;

// Why `call` is undefined: thrown where it is found, caught by evaluate, check_points and estimate.
Undefined undefined(Reason reason, const Expr& call, std::size_t have = 0, std::size_t need = 0) {
  return {reason, call.function, call.subject, call.benchmark, have, need};
}
Undefined undefined(Reason reason) { return {reason, Function::n, {}, {}, 0, 0}; }

double stddev_of(const std::vector<double>& v, double mean) {
  return std::sqrt(stats::sample_variance(v, mean));
}

// The statistic of a call over the given values; throws Undefined.
double statistic(const Expr& call, const std::vector<double>& v) {
  const auto need = [&](std::size_t n) {
    if (v.size() < n) throw undefined(Reason::too_few, call, v.size(), n);
  };
  switch (call.function) {
    case Function::n:
      return static_cast<double>(v.size());
    case Function::mean:
      need(1);
      return stats::mean(v);
    case Function::median:
      need(1);
      return stats::median(v);
    case Function::ratio: {  // the geometric mean of the per-repeat ratios, as the paired table prints
      need(1);
      double logs = 0;
      for (double x : v) {
        if (!(x > 0)) throw undefined(Reason::ratio_not_positive, call);
        logs += std::log(x);
      }
      return std::exp(logs / static_cast<double>(v.size()));
    }
    case Function::min:
      need(1);
      return *std::min_element(v.begin(), v.end());
    case Function::max:
      need(1);
      return *std::max_element(v.begin(), v.end());
    case Function::stddev:
      need(2);
      return stddev_of(v, stats::mean(v));
    case Function::cv: {
      need(2);
      const double m = stats::mean(v);
      if (!(m > 0)) throw undefined(Reason::mean_not_positive, call);
      return stddev_of(v, m) / m;
    }
    case Function::rcv: {
      need(2);
      const double med = stats::median(v);
      if (!(med > 0)) throw undefined(Reason::median_not_positive, call);
      return stats::kMadToSigma * stats::mad(v, med) / med;
    }
    case Function::knee:
      break;  // over several series: knee_value
  }
  return kNaN;
}

// knee(group): the axis value of the curve's knee (§3.16) over the points' current series; a
// curve without one bends past its last point, one step (the last step) beyond it.
double knee_value(const std::vector<double>& xs, const std::vector<const std::vector<double>*>& points) {
  std::vector<stats::Summary> summaries;
  summaries.reserve(points.size());
  for (const auto* p : points) summaries.push_back(stats::summarize(*p));
  std::vector<const stats::Summary*> refs;
  for (const auto& s : summaries) refs.push_back(&s);
  if (const auto k = stats::knee_of(refs)) return xs[k->index];
  return xs.back() + (xs.back() - xs[xs.size() - 2]);
}

const std::vector<double>& series(const Expr& call, const Data& data);

// Where a knee() call's samples come from: each point's row (the same benchmark), and its axis value.
std::vector<const std::vector<double>*> knee_series(const Expr& call, const Data& data,
                                                    std::vector<double>& xs) {
  const auto it = data.sweeps.find(call.subject);
  if (it == data.sweeps.end() || it->second.size() < 2) throw undefined(Reason::short_curve, call);
  std::vector<const std::vector<double>*> out;
  for (const auto& [x, condition] : it->second) {
    if (!x) throw undefined(Reason::category_axis, call);
    Expr point;
    point.kind = Expr::Kind::call;
    point.function = Function::median;
    point.subject = condition;
    point.benchmark = call.benchmark;
    out.push_back(&series(point, data));
    xs.push_back(*x);
  }
  return out;
}

// Where each call's samples come from.
const std::vector<double>& series(const Expr& call, const Data& data) {
  if (call.function == Function::ratio) {
    if (!call.benchmark.empty()) {
      const auto rows = data.ratio_rows.find(call.subject);
      if (rows != data.ratio_rows.end())
        for (const auto& [name, values] : rows->second)
          if (name == call.benchmark) return values;
      throw undefined(Reason::no_paired_samples, call);
    }
    const auto it = data.ratios.find(call.subject);
    if (it == data.ratios.end()) throw undefined(Reason::no_paired_samples, call);
    return it->second;
  }
  const auto it = data.rows.find(call.subject);
  if (it == data.rows.end() || it->second.empty()) throw undefined(Reason::no_samples, call);
  if (call.benchmark.empty()) return it->second.front().second;
  const std::vector<double>* found = nullptr;
  std::size_t matches = 0;
  for (const auto& [name, values] : it->second)
    if (name == call.benchmark) found = found ? found : &values, ++matches;
  if (matches > 1) throw undefined(Reason::ambiguous_benchmark, call, matches);
  if (found) return *found;
  throw undefined(Reason::no_such_benchmark, call);
}

// The expression's value, each call's statistic given by `of`.
template <class Of>
double value(const Expr& e, const Of& of) {
  switch (e.kind) {
    case Expr::Kind::number:
      return e.value;
    case Expr::Kind::call:
      return of(e);
    case Expr::Kind::neg:
      return -value(*e.left, of);
    case Expr::Kind::add:
      return value(*e.left, of) + value(*e.right, of);
    case Expr::Kind::sub:
      return value(*e.left, of) - value(*e.right, of);
    case Expr::Kind::mul:
      return value(*e.left, of) * value(*e.right, of);
    case Expr::Kind::div: {
      const double d = value(*e.right, of);
      if (d == 0) throw undefined(Reason::division_by_zero);
      return value(*e.left, of) / d;
    }
  }
  return kNaN;
}

// Each call's series (one; a knee() call one per point) and, for knee(), the points' axis values.
struct Bound {
  std::map<const Expr*, std::vector<const std::vector<double>*>> series;
  std::map<const Expr*, std::vector<double>> xs;
};

// The expression's value over the series `now` maps each bound series to (the series itself, or
// its resample).
template <class Now>
double value(const Expr& e, const Bound& bound, const Now& now) {
  return value(e, [&](const Expr& call) {
    const auto& ss = bound.series.at(&call);
    if (call.function == Function::knee) {
      std::vector<const std::vector<double>*> current;
      for (const auto* s : ss) current.push_back(now(s));
      return knee_value(bound.xs.at(&call), current);
    }
    return statistic(call, *now(ss.front()));
  });
}

bool has_call(const Expr& e) {
  if (e.kind == Expr::Kind::call) return true;
  return (e.left && has_call(*e.left)) || (e.right && has_call(*e.right));
}
bool has_cv(const Expr& e) {
  if (e.kind == Expr::Kind::call) return e.function == Function::cv || e.function == Function::rcv;
  return (e.left && has_cv(*e.left)) || (e.right && has_cv(*e.right));
}
bool divides_by_call(const Expr& e) {
  if (e.kind == Expr::Kind::div && has_call(*e.right)) return true;
  return (e.left && divides_by_call(*e.left)) || (e.right && divides_by_call(*e.right));
}
// A claim over CVs compares fractions, shown as percentages; not one that divides by a statistic
// (cv(a) / cv(b) is a plain ratio).
bool shown_as_percent(const Claim& c) {
  return (has_cv(c.lhs) || has_cv(c.rhs)) && !divides_by_call(c.lhs) && !divides_by_call(c.rhs);
}

// Whether `d`, the interval of lhs - rhs (or lhs/rhs - 1 for within), is on the claimed side.
Verdict decide(Op op, double tolerance, const Interval& d) {
  switch (op) {
    case Op::gt:
      return d.lo > 0 ? Verdict::reproduced : d.hi <= 0 ? Verdict::not_reproduced : Verdict::inconclusive;
    case Op::ge:
      return d.lo >= 0 ? Verdict::reproduced : d.hi < 0 ? Verdict::not_reproduced : Verdict::inconclusive;
    case Op::lt:
      return d.hi < 0 ? Verdict::reproduced : d.lo >= 0 ? Verdict::not_reproduced : Verdict::inconclusive;
    case Op::le:
      return d.hi <= 0 ? Verdict::reproduced : d.lo > 0 ? Verdict::not_reproduced : Verdict::inconclusive;
    case Op::within:
      return d.lo >= -tolerance && d.hi <= tolerance ? Verdict::reproduced
             : d.hi < -tolerance || d.lo > tolerance ? Verdict::not_reproduced
                                                     : Verdict::inconclusive;
  }
  return Verdict::undefined;
}

Interval interval(std::vector<double> v, double level) {
  const stats::Interval i = stats::percentile_interval(std::move(v), level);
  return {i.lo, i.hi};
}

// Binds every call of the claim to its series in `bound`, and returns the distinct series: each is
// resampled once per round, so a condition named twice moves as one.
std::vector<const std::vector<double>*> bind_series(const Claim& claim, const Data& data, Bound& bound) {
  std::vector<const std::vector<double>*> distinct;
  for (const Expr* call : calls(claim)) {
    std::vector<const std::vector<double>*> ss;
    if (call->function == Function::knee)
      ss = knee_series(*call, data, bound.xs[call]);
    else
      ss = {&series(*call, data)};
    for (const auto* s : ss)
      if (std::find(distinct.begin(), distinct.end(), s) == distinct.end()) distinct.push_back(s);
    bound.series[call] = std::move(ss);
  }
  return distinct;
}

// A series of one sample resamples to itself: its statistic's interval would have no width, a
// certainty no single sample gives. Every call but n() needs n ≥ 2 in each of its series to be
// judged (harness/stats/README.md §3.11); throws Undefined.
void need_spread(const Bound& bound) {
  for (const auto& [call, ss] : bound.series) {
    if (call->function == Function::n) continue;
    for (const auto* s : ss)
      if (s->size() < 2) throw undefined(Reason::no_spread, *call, s->size(), 2);
  }
}

}  // namespace

std::string_view to_string(Verdict v) { return model::name_of(v); }

Evaluation evaluate(const Claim& claim, const Data& data, std::uint64_t seed, int resamples, double level) {
  Evaluation ev;
  ev.claim = claim.text;
  ev.seed = seed;
  ev.resamples = resamples;
  ev.level = level;
  try {
    Bound bound;
    const std::vector<const std::vector<double>*> distinct = bind_series(claim, data, bound);
    const auto itself = [](const std::vector<double>* s) { return s; };
    ev.percent = shown_as_percent(claim);
    ev.lhs = value(claim.lhs, bound, itself);
    ev.rhs = value(claim.rhs, bound, itself);
    const bool within = claim.op == Op::within;
    if (within && !(ev.rhs != 0)) throw undefined(Reason::zero_reference);
    need_spread(bound);

    stats::SplitMix64 rng(seed);
    std::vector<std::vector<double>> copies(distinct.size());
    const auto resampled = [&](const std::vector<double>* s) {
      return &copies[static_cast<std::size_t>(std::find(distinct.begin(), distinct.end(), s) -
                                              distinct.begin())];
    };
    std::vector<double> lhs, rhs, decision;
    for (int b = 0; b < resamples; ++b) {
      for (std::size_t k = 0; k < distinct.size(); ++k) {
        const auto& src = *distinct[k];
        copies[k].resize(src.size());
        stats::resample(src, copies[k], rng);
      }
      try {
        const double l = value(claim.lhs, bound, resampled), r = value(claim.rhs, bound, resampled);
        if (within && r == 0) throw undefined(Reason::zero_reference);
        lhs.push_back(l);
        rhs.push_back(r);
        decision.push_back(within ? l / r - 1 : l - r);
      } catch (const Undefined&) {
        // A resample where a statistic is undefined (a division by zero, a mean or median that is
        // not positive under cv or rcv) is dropped.
      }
    }
    if (decision.empty() || 2 * decision.size() < static_cast<std::size_t>(resamples))
      throw undefined(Reason::undefined_in_resamples);
    ev.lhs_ci = interval(lhs, level);
    ev.rhs_ci = interval(rhs, level);
    ev.decision_ci = interval(decision, level);
    ev.verdict = decide(claim.op, claim.tolerance, ev.decision_ci);
  } catch (const Undefined& u) {
    ev.verdict = Verdict::undefined;
    ev.why = u;
  }
  return ev;
}

PointCheck check_points(const Claim& claim, const Lookup& lookup) {
  PointCheck pc;
  try {
    const auto of = [&](const Expr& call) {
      const auto v = lookup(call.function, call.subject, call.benchmark);
      if (!v) throw undefined(Reason::not_published, call);
      return *v;
    };
    pc.lhs = value(claim.lhs, of);
    pc.rhs = value(claim.rhs, of);
    if (claim.op == Op::within && pc.rhs == 0) throw undefined(Reason::zero_reference);
    const double d = claim.op == Op::within ? pc.lhs / pc.rhs - 1 : pc.lhs - pc.rhs;
    pc.holds = decide(claim.op, claim.tolerance, {d, d}) == Verdict::reproduced;
  } catch (const Undefined& u) {
    pc.why = u;
  }
  return pc;
}

Estimate estimate(Function f, const std::vector<double>& series, std::uint64_t seed, int resamples,
                  double level) {
  Estimate e;
  Expr call;
  call.kind = Expr::Kind::call;
  call.function = f;
  try {
    e.value = statistic(call, series);
    stats::SplitMix64 rng(seed);
    std::vector<double> copy(series.size()), values;
    for (int b = 0; b < resamples; ++b) {
      stats::resample(series, copy, rng);
      try {
        values.push_back(statistic(call, copy));
      } catch (const Undefined&) {
      }
    }
    if (values.empty() || 2 * values.size() < static_cast<std::size_t>(resamples))
      throw undefined(Reason::cv_undefined_in_resamples, call);
    e.ci = interval(values, level);
    e.defined = true;
  } catch (const Undefined& u) {
    e.why = u;
  }
  return e;
}

}  // namespace noisefloor::claims
