#include "analysis/history.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "analysis/analysis.hpp"
#include "analysis/table.hpp"
#include "analysis/verdict.hpp"
#include "claims/evaluate.hpp"
#include "hash/sha256.hpp"
#include "model/errors.hpp"

namespace noisefloor::analysis {
namespace {

bool below(std::string_view field, std::string_view base) {
  return field == base ||
         (field.starts_with(base) && field.size() > base.size() && field[base.size()] == '.');
}

bool is_code_field(std::string_view field, const std::vector<std::string>& code_fields) {
  return std::any_of(code_fields.begin(), code_fields.end(),
                     [&](const std::string& c) { return below(field, c); });
}

// toolchain.source.commit ("+dirty" when toolchain.source.dirty is true); "" when not recorded.
std::string commit_of(const records::Fingerprint& fp) {
  const std::string commit = fp.toolchain.text("source.commit").value_or("");
  if (commit.empty()) return "";
  return commit + (fp.toolchain.flag("source.dirty").value_or(false) ? "+dirty" : "");
}

std::string started_of(const records::Result& r) {
  if (r.run && !r.run->started_utc.empty()) return r.run->started_utc;
  if (r.fingerprint.run) return r.fingerprint.run->started_utc;
  return "";
}

HistoryCell cell_of(const Row& row, const HistoryOptions& o, const model::UnitMetadata& units) {
  HistoryCell c;
  c.key = row.key();
  c.condition = row.condition;
  c.name = display_name(row);
  c.unit = row.unit;
  c.better = model::better_of(row.unit, units);
  c.quantity = model::quantity_of(row.unit);
  c.values = row.values;
  const stats::Summary& s = row.summary;
  c.n = s.n;
  c.median = s.median;
  c.median_ci = s.median_ci;
  c.cv_pct = s.cv_pct;
  if (s.cv_pct) c.cv_ci = bootstrap_cv(row.values, o.bootstrap, o.seed);
  return c;
}

Change change_of(const HistoryCell& before, const HistoryCell& now, const HistoryOptions& o) {
  Change ch;
  ch.kind = ChangeKind::not_compared;
  ch.n_before = before.n, ch.n_now = now.n, ch.alpha = o.alpha;
  if (before.n < 2 || now.n < 2) {
    ch.why = NotCompared::too_few;
    return ch;
  }
  if (stats::min_attainable_p_exceeds(before.n, now.n, o.alpha)) {
    ch.why = NotCompared::p_unreachable;
    return ch;
  }
  try {
    const auto mw = stats::mann_whitney(before.values, now.values);
    ch.p = mw.p;
    ch.ratio = stats::hodges_lehmann_ratio(before.values, now.values);
  } catch (const Error& e) {
    ch.why = NotCompared::test_failed;
    ch.error = e.what();
    return ch;
  }
  ch.kind = ChangeKind::unchanged;
  if (!(ch.p < o.alpha) || !ch.ratio.bounded) return ch;
  const auto verdict = stats::classify(ch.ratio.lo, ch.ratio.hi, o.threshold);
  if (verdict == stats::Verdict::slower) ch.kind = ChangeKind::higher;
  if (verdict == stats::Verdict::faster) ch.kind = ChangeKind::lower;
  if (ch.kind == ChangeKind::higher || ch.kind == ChangeKind::lower) {
    if (now.better != model::Better::unknown) ch.word = verdict_word(verdict, now.better, now.quantity);
    ch.regression = regressed(verdict, now.better);
    ch.improvement = improved(verdict, now.better);
  }
  return ch;
}

std::vector<Difference> room_changes(const records::Fingerprint& a, const records::Fingerprint& b,
                                     const std::vector<std::string>& code_fields) {
  std::vector<Difference> out;
  for (auto& d : differences(a, b))
    if (d.moves_benchmarks && !is_code_field(d.field, code_fields)) out.push_back(std::move(d));
  return out;
}

}  // namespace

std::string_view to_string(ChangeKind kind) { return model::name_of(kind); }

std::string room_digest(const records::Fingerprint& fingerprint,
                        const std::vector<std::string>& code_fields) {
  if (fingerprint.empty()) return "";
  std::string text;
  for (const auto& [field, content] : benchmark_moving_facts(fingerprint))
    if (!is_code_field(field, code_fields)) text += field + "=" + content + "\n";
  return hash::sha256_hex(text).substr(0, 8);
}

std::optional<stats::Interval> bootstrap_cv(const std::vector<double>& values, std::size_t resamples,
                                            std::uint64_t seed, double confidence) {
  if (values.size() < 6 || resamples < 2) return std::nullopt;
  // The claims' bootstrap (claims/evaluate.hpp): one resampling engine for every interval.
  const claims::Estimate e =
      claims::estimate(claims::Function::cv, values, seed, static_cast<int>(resamples), confidence);
  if (!e.defined) return std::nullopt;
  return stats::Interval{100 * e.ci.lo, 100 * e.ci.hi, confidence};
}

namespace {

// Each row's medians over the runs of one segment (a run without the row, or without a median,
// left out), and the runs where they take a new level.
void mark_level_changes(History& h, const HistorySegment& segment,
                        const stats::ChangePointSettings& settings) {
  std::map<RowKey, std::vector<HistoryCell*>> rows;
  for (std::size_t k = segment.first_run; k < segment.first_run + segment.runs; ++k)
    for (HistoryCell& c : h.runs[k].cells)
      if (std::isfinite(c.median)) rows[c.key].push_back(&c);
  for (auto& [key, cells] : rows) {
    std::vector<double> medians;
    for (const HistoryCell* c : cells) medians.push_back(c->median);
    for (const stats::ChangePoint& p : stats::change_points(medians, settings))
      cells[p.index]->level_change = p.test;
  }
}

}  // namespace

History history(const std::vector<records::Result>& results, const HistoryOptions& o) {
  History h;
  h.threshold = o.threshold;
  h.alpha = o.alpha;
  std::vector<const records::Result*> order;
  for (const auto& r : results) order.push_back(&r);
  std::stable_sort(order.begin(), order.end(), [](const records::Result* a, const records::Result* b) {
    const std::string sa = started_of(*a), sb = started_of(*b);
    if (sa != sb) return sa < sb;
    return a->label < b->label;
  });

  const records::Result* previous = nullptr;
  const fingerprint::NoiseProfile* profiled = nullptr;  // the last measured noise profile
  for (const records::Result* r : order) {
    if (h.experiment.empty()) h.experiment = r->experiment();
    HistoryRun run;
    run.run_id = r->run ? r->run->run_id : r->label;
    if (run.run_id.empty()) run.run_id = r->label;
    run.source = r->source;
    run.started_utc = started_of(*r);
    run.commit = commit_of(r->fingerprint);
    run.digest = room_digest(r->fingerprint, o.code_fields);
    if (r->run) run.status = r->run->status;
    run.warnings = r->warnings;
    run.noise = r->fingerprint.noise;
    if (run.noise && run.noise->measured()) {
      if (profiled) run.noise_change = fingerprint::noise_change(*profiled, *run.noise);
      profiled = &*r->fingerprint.noise;
    }
    // A run that recorded claims is analysed whole (its table and the claims judged with its seed);
    // any other needs its table only. The table is built once either way.
    std::optional<Analysis> judged;
    if (r->run && !r->run->claims.empty()) judged = analyze({*r});
    const Table table = judged ? std::move(judged->table) : build_table(r->samples, r->conditions, r->units);
    for (const auto& row : table.rows) run.cells.push_back(cell_of(row, o, r->units));
    if (judged && judged->judgement)
      for (const auto& c : judged->judgement->claims) run.claims.push_back({c.run.verdict, c.run.claim});

    // Segment: the first run, or a room that differs from the previous run's.
    bool starts = previous == nullptr;
    HistorySegment segment;
    if (previous != nullptr) {
      if (previous->fingerprint.empty() || r->fingerprint.empty()) {
        starts = true;
        segment.no_fingerprint = true;
      } else {
        segment.changed = room_changes(previous->fingerprint, r->fingerprint, o.code_fields);
        starts = !segment.changed.empty();
      }
    }
    if (starts) {
      segment.index = h.segments.size() + 1;
      segment.first_run = h.runs.size();
      h.segments.push_back(std::move(segment));
    }
    h.segments.back().runs += 1;
    run.segment = h.segments.back().index;

    // Changes against the previous run of the same segment.
    if (!starts) {
      const HistoryRun& before = h.runs.back();
      std::map<RowKey, const HistoryCell*> by_key;
      for (const auto& c : before.cells) by_key[c.key] = &c;
      for (auto& c : run.cells) {
        const auto it = by_key.find(c.key);
        if (it == by_key.end()) {
          c.change.kind = ChangeKind::not_compared;
          c.change.why = NotCompared::not_in_previous;
        } else {
          c.change = change_of(*it->second, c, o);
        }
      }
    }
    for (const auto& w : r->warnings) h.warnings.push_back({run.run_id, w});
    h.runs.push_back(std::move(run));
    previous = r;
  }
  for (const HistorySegment& segment : h.segments) mark_level_changes(h, segment, o.change_points);
  return h;
}

}  // namespace noisefloor::analysis
