#include "analysis/judge.hpp"

#include <algorithm>
#include <cctype>

namespace noisefloor::analysis {
namespace {

// Whether a published condition name stands for `condition`: the same name, or the name followed
// by what is not part of a name ("noisy (16 spinners)", "pinned container, same spinners").
bool stands_for(const std::string& published, const std::string& condition) {
  if (published == condition) return true;
  if (published.size() <= condition.size() || published.compare(0, condition.size(), condition) != 0)
    return false;
  const auto next = static_cast<unsigned char>(published[condition.size()]);
  return !std::isalnum(next) && next != '_' && next != '-';
}

// A benchmark name without its -N (GOMAXPROCS) suffix: a publication run on 16 CPUs names
// "BenchmarkX-16" what this run names "BenchmarkX-2".
std::string_view without_procs(std::string_view name) {
  const std::size_t dash = name.rfind('-');
  if (dash == std::string_view::npos || dash + 1 == name.size()) return name;
  for (std::size_t i = dash + 1; i < name.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return name;
  return name.substr(0, dash);
}

bool same_benchmark(const std::string& a, const std::string& b) {
  return a == b || without_procs(a) == without_procs(b);
}

claims::Data data_of(const Table& table, const PairedTable& paired) {
  claims::Data d;
  for (const Row& row : table.rows) d.rows[row.condition].emplace_back(row.name, row.values);
  for (const auto& condition : table.conditions)
    if (const auto it = table.sweeps.find(condition);
        it != table.sweeps.end() && !it->second.settings.empty())
      d.sweeps[it->second.group].emplace_back(it->second.settings.front().number, condition);
  for (const PairedRow& p : paired.rows) {
    if (p.aa) continue;
    if (!d.ratios.count(p.variant)) d.ratios[p.variant] = p.paired.ratios;
    d.ratio_rows[p.variant].emplace_back(p.benchmark, p.paired.ratios);
  }
  return d;
}

const model::PublishedRow* published_row(const model::PublishedTable& t, const std::string& condition,
                                         const std::string& benchmark) {
  const model::PublishedRow* best = nullptr;
  for (const auto& r : t.rows) {
    if (!stands_for(r.condition, condition)) continue;
    if (!benchmark.empty() && !r.benchmark.empty() && !same_benchmark(r.benchmark, benchmark)) continue;
    if (!best || (r.condition == condition && best->condition != condition)) best = &r;
  }
  return best;
}

// A published row of one sample has no spread, whatever its table printed ("CV 0.00"): its
// stddev and CV are no figures, never a 0 that agrees with a claim.
model::PublishedRow without_fake_spread(model::PublishedRow r) {
  if (r.n && *r.n < 2) {
    r.stddev.reset();
    r.cv_pct.reset();
  }
  return r;
}

std::optional<double> published_statistic(const model::PublishedRow& published, claims::Function f) {
  using claims::Function;
  const model::PublishedRow r = without_fake_spread(published);
  switch (f) {
    case Function::n:
      return r.n ? std::optional<double>(*r.n) : std::nullopt;
    case Function::mean:
      return r.mean;
    case Function::stddev:
      return r.stddev;
    case Function::cv:
      return r.cv_pct ? std::optional<double>(*r.cv_pct / 100) : std::nullopt;
    case Function::median:
      return r.median;
    case Function::min:
      return r.min;
    case Function::max:
      return r.max;
    case Function::rcv:
    case Function::ratio:
    case Function::knee:
      return std::nullopt;
  }
  return std::nullopt;
}

Agreement agreement(const claims::Evaluation& run, const claims::PointCheck& published) {
  if (!published.holds) return Agreement::not_published;
  if (run.verdict == claims::Verdict::inconclusive || run.verdict == claims::Verdict::undefined)
    return Agreement::undecided;
  const bool shown = run.verdict == claims::Verdict::reproduced;
  return shown == *published.holds ? Agreement::agrees : Agreement::disagrees;
}

}  // namespace

int Judgement::count(claims::Verdict v) const {
  return static_cast<int>(
      std::count_if(claims.begin(), claims.end(), [&](const ClaimResult& r) { return r.run.verdict == v; }));
}

claims::Names names_of(const Table& table, const PairedTable& paired) {
  claims::Names names;
  names.conditions = table.conditions;
  for (const auto& [condition, point] : table.sweeps) names.points[model::claim_name(point)] = condition;
  for (const PairedRow& p : paired.rows)
    if (!p.aa && std::find(names.variants.begin(), names.variants.end(), p.variant) == names.variants.end())
      names.variants.push_back(p.variant);
  return names;
}

const Row* matching_row(const Table& table, const model::PublishedRow& published) {
  // The longest condition the published name stands for ("pinned-2" before "pinned").
  const std::string* condition = nullptr;
  for (const auto& c : table.conditions)
    if (stands_for(published.condition, c) && (!condition || c.size() > condition->size())) condition = &c;
  if (!condition) return nullptr;
  // The benchmark of the same name (with or without the -N suffix), else the condition's only row.
  std::vector<const Row*> rows;
  for (const Row& row : table.rows)
    if (row.condition == *condition) rows.push_back(&row);
  for (const Row* row : rows)
    if (!published.benchmark.empty() &&
        (same_benchmark(row->name, published.benchmark) || row->benchmark == published.benchmark))
      return row;
  return rows.size() == 1 ? rows.front() : nullptr;
}

Judgement judge(const Table& table, const PairedTable& paired, const std::vector<std::string>& claim_texts,
                std::uint64_t seed, const std::optional<model::PublishedTable>& reference) {
  Judgement j;
  j.seed = seed;
  j.reference = reference;
  const claims::Names names = names_of(table, paired);
  const claims::Data data = data_of(table, paired);
  for (const std::string& text : claim_texts) {
    const claims::Claim claim = claims::parse_claim(text, names);
    ClaimResult r;
    r.run = claims::evaluate(claim, data, seed, j.resamples, j.level);
    if (reference) {
      r.published = claims::check_points(claim,
                                         [&](claims::Function f, const std::string& subject,
                                             const std::string& benchmark) -> std::optional<double> {
                                           const model::PublishedRow* row =
                                               published_row(*reference, subject, benchmark);
                                           return row ? published_statistic(*row, f) : std::nullopt;
                                         });
      r.agreement = agreement(r.run, *r.published);
    }
    j.claims.push_back(std::move(r));
  }
  if (reference) {
    j.run_conditions = table.conditions;
    for (const auto& p : reference->rows) {
      ReferenceRow b;
      b.published = without_fake_spread(p);
      b.published_band = stats::band_for_cv(b.published.cv_pct);
      b.spread_dropped = p.n && *p.n < 2 && p.cv_pct;
      if (const Row* row = matching_row(table, p)) {
        b.condition = row->condition;
        b.name = row->name;
        b.n = row->summary.n;
        b.mean = row->summary.mean;
        b.mean_ci = row->summary.mean_ci;
        b.stddev = row->summary.stddev;
        b.band = row->summary.band;
        b.cv = claims::estimate(claims::Function::cv, row->values, seed, j.resamples, j.level);
      }
      j.beside.push_back(std::move(b));
    }
  }
  return j;
}

}  // namespace noisefloor::analysis
