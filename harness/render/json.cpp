#include "render/json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>

#include "analysis/verdict.hpp"
#include "model/errors.hpp"
#include "model/go_config.hpp"
#include "model/names.hpp"
#include "model/pair_order.hpp"
#include "records/fingerprint.hpp"
#include "render/compare.hpp"
#include "render/diagnosis.hpp"
#include "render/fingerprint.hpp"
#include "render/gate.hpp"
#include "render/history.hpp"
#include "render/judge.hpp"
#include "render/sweep_table.hpp"
#include "render/table.hpp"
#include "render/warnings.hpp"
#include "stats/summary.hpp"

namespace noisefloor::stats {

nlohmann::json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

namespace {

nlohmann::json optional_or_null(const std::optional<double>& v) {
  return v ? number_or_null(*v) : nlohmann::json(nullptr);
}

}  // namespace

void to_json(nlohmann::json& j, const Interval& v) {
  j = {{"lo", number_or_null(v.lo)}, {"hi", number_or_null(v.hi)}, {"level", number_or_null(v.level)}};
}

void to_json(nlohmann::json& j, const Summary& s) {
  nlohmann::json outliers = nlohmann::json::array();
  for (Outlier o : s.outliers) outliers.push_back(std::string(to_string(o)));
  nlohmann::json modified_z = nlohmann::json::array();
  for (double m : s.modified_z) modified_z.push_back(number_or_null(m));
  const auto interval = [](const std::optional<Interval>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  j = {
      {"n", s.n},
      {"mean", number_or_null(s.mean)},
      {"median", number_or_null(s.median)},
      {"min", number_or_null(s.min)},
      {"max", number_or_null(s.max)},
      {"stddev", optional_or_null(s.stddev)},
      {"cv_pct", optional_or_null(s.cv_pct)},
      {"mad", number_or_null(s.mad)},
      {"sigma_mad", number_or_null(s.sigma_mad)},
      {"rcv_pct", optional_or_null(s.rcv_pct)},
      {"q1", number_or_null(s.q1)},
      {"q3", number_or_null(s.q3)},
      {"iqr", number_or_null(s.iqr)},
      {"mean_ci", interval(s.mean_ci)},
      {"median_ci", interval(s.median_ci)},
      {"median_rel_halfwidth", optional_or_null(s.median_rel_halfwidth)},
      {"outliers", std::move(outliers)},
      {"modified_z", std::move(modified_z)},
      {"tukey_mild", s.tukey_mild},
      {"tukey_severe", s.tukey_severe},
      {"lag1", optional_or_null(s.lag1)},
      {"drift", s.drift},
      {"shape", s.shape},
      {"band", std::string(to_string(s.band))},
      {"warnings", render::summary_warning_texts(s.warnings)},
  };
}

}  // namespace noisefloor::stats

namespace noisefloor::analysis {
namespace {

using nlohmann::json;

const auto or_null = stats::number_or_null;
json interval_or_null(const std::optional<stats::Interval>& i) { return i ? json(*i) : json(); }
using stats::optional_or_null;
nlohmann::json interval_json(const claims::Interval& i) {
  return {stats::number_or_null(i.lo), stats::number_or_null(i.hi)};
}

json end_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json side_json(const CompareSide& s) {
  json j = {{"condition", s.condition},
            {"procs", s.procs},
            {"n", s.summary.n},
            {"center", or_null(s.center)},
            {"range", json::array({end_or_null(s.lo), end_or_null(s.hi)})},
            {"pct_range", render::benchstat_pct_range(s)},
            {"median", or_null(s.summary.median)},
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

// A ratio with its CI; an unbounded CI has null ends.
json ratio_ci_json(const stats::RatioCI& c) {
  return {{"estimate", or_null(c.estimate)},
          {"lo", c.bounded ? or_null(c.lo) : json(nullptr)},
          {"hi", c.bounded ? or_null(c.hi) : json(nullptr)},
          {"level", or_null(c.level)},
          {"bounded", c.bounded}};
}

json compare_row_json(const CompareRow& r) {
  json config = json::object();
  for (const auto& [key, value] : model::config_entries(r.config)) config[key] = value;
  json row = {{"benchmark", r.benchmark},
              {"name", r.name},
              {"variant", r.variant},
              {"config", config},
              {"unit", r.unit},
              {"recorded_units", r.recorded_units},
              {"better", std::string(model::to_string(r.better))},
              {"exact", r.exact},
              {"label", r.compared ? json(std::string(to_string(r.label))) : json(nullptr)},
              {"label_reason", render::label_reason(r)},
              {"compared", r.compared},
              {"old", side_json(r.old_side)},
              {"new", side_json(r.new_side)}};
  if (!r.compared) {
    row["reason"] = render::not_compared_reason(r);
  } else {
    row["ratio_of_medians"] = or_null(r.ratio_of_medians);
    row["delta"] = render::benchstat_delta(r);
    row["p_text"] = render::benchstat_p_text(r);
    row["test"] = {{"u", or_null(r.test.u)},
                   {"p", or_null(r.test.p)},
                   {"p_benchstat", or_null(r.test.p_benchstat)},
                   {"p_slot", or_null(r.p_slot)},
                   {"p_exact_absdev", or_null(r.test.p_exact_absdev)},
                   {"p_exact_doubling", or_null(r.test.p_exact_doubling)},
                   {"p_normal", or_null(r.test.p_normal)},
                   {"z", or_null(r.test.z)},
                   {"exact", r.test.exact},
                   {"significant", r.significant},
                   {"p_adjusted", or_null(r.p_adjusted)},
                   {"significant_adjusted", r.significant_adjusted}};
    row["hodges_lehmann"] = r.hl ? ratio_ci_json(*r.hl) : json(nullptr);
    if (r.ratio_of_means) row["ratio_of_means"] = ratio_ci_json(*r.ratio_of_means);
    row["verdict"] = std::string(to_string(r.verdict_word()));
    row["change"] = std::string(to_string(movement(r.verdict)));
    row["warnings"] = render::compare_warning_texts(r);
  }
  return row;
}

// Each repeat's order by its name (samples.jsonl's words: "AB", "BA").
std::vector<std::string_view> order_names(const std::vector<model::PairOrder>& orders) {
  std::vector<std::string_view> names(orders.size());
  std::transform(orders.begin(), orders.end(), names.begin(),
                 [](model::PairOrder o) { return model::name_of(o); });
  return names;
}

}  // namespace

// {"missing", "contrasts", "within" (the worded lines), "conditions": [{"condition",
// "invocations", "levels": {factor: median per invocation}, "links": [{"factor", "row", "rho",
// "p", "p_adjusted", "exact", "n", "slow_quarter", "fast_quarter"}], "untested"}]}
void to_json(json& j, const Diagnosis& d) {
  json conditions = json::array(), within = json::array();
  for (const auto& c : d.conditions) {
    json levels = json::object();
    for (const auto& l : c.levels) levels[l.key] = l.median;
    json links = json::array();
    for (const auto& l : c.links)
      links.push_back({{"factor", l.key},
                       {"row", l.row},
                       {"rho", stats::number_or_null(l.association.rho)},
                       {"p", l.association.p},
                       {"p_adjusted", l.p_adjusted},
                       {"exact", l.association.exact},
                       {"n", l.association.n},
                       {"slow_quarter", l.slow_quarter},
                       {"fast_quarter", l.fast_quarter}});
    json cj = {
        {"condition", c.condition}, {"invocations", c.invocations}, {"levels", levels}, {"links", links}};
    if (c.untested) cj["untested"] = render::untested_text(*c.untested);
    conditions.push_back(std::move(cj));
    if (std::string line = render::within_text(c); !line.empty()) within.push_back(std::move(line));
  }
  json contrasts = json::array();
  for (const auto& c : d.contrasts) contrasts.push_back(render::contrast_text(c));
  j = {{"missing", render::missing_lines(d.missing)},
       {"contrasts", contrasts},
       {"within", within},
       {"conditions", conditions}};
}

void to_json(nlohmann::json& j, const Row& r) {
  j = {{"condition", r.condition}, {"name", r.name},      {"benchmark", r.benchmark},
       {"unit", r.unit},           {"procs", r.procs},    {"warmup_discarded", r.warmup_discarded},
       {"values", r.values},       {"summary", r.summary}};
  // A table keeps no scores (analysis::Row): written as summarize gives them.
  auto& scores = j["summary"]["modified_z"];
  scores = nlohmann::json::array();
  for (const double z : stats::modified_z_scores(r.values, r.summary)) scores.push_back(or_null(z));
  if (!r.variant.empty()) j["variant"] = r.variant;  // paired designs only
  if (!r.config.empty()) {
    nlohmann::json config = nlohmann::json::object();
    for (const auto& [key, value] : model::config_entries(r.config)) config[key] = value;
    j["config"] = config;
  }
  if (r.metric > 0) j["metric"] = r.metric;
  if (r.not_numbers > 0) j["not_numbers"] = r.not_numbers;
  if (r.starved) j["starved"] = true;
  if (r.exact) {
    j["exact"] = true;
    j["mode"] = stats::number_or_null(r.mode);
  }
}

// Each row of a sweep's point gets "sweep": {"spinners": "2", ...}, the table "sweeps": {condition: point}.
void add_sweeps(nlohmann::json& j, const Table& t) {
  if (t.sweeps.empty()) return;
  j["sweeps"] = t.sweeps;
  for (const char* rows : {"rows", "other_metrics"})
    for (auto& row : j[rows]) {
      const auto it = t.sweeps.find(row.at("condition").get<std::string>());
      if (it == t.sweeps.end()) continue;
      nlohmann::json settings = nlohmann::json::object();
      for (const auto& s : it->second.settings) settings[s.parameter] = s.value;
      row["sweep"] = {{"group", it->second.group}, {"settings", settings}};
    }
}

void to_json(nlohmann::json& j, const Table& t) {
  j = {{"conditions", t.conditions},
       {"config_keys", t.config_keys},
       {"rows", t.rows},
       {"other_metrics", t.other_metrics},
       {"notes", render::table_notes(t)}};
  nlohmann::json labels = nlohmann::json::object();
  for (const auto& [condition, l] : t.labels)
    labels[condition] = {{"label", to_string(l.label)}, {"reason", render::label_reason_text(l.reason)}};
  j["labels"] = labels;
  add_sweeps(j, t);
}

void to_json(nlohmann::json& j, const CurvePoint& p) {
  const auto interval = [](const std::optional<stats::Interval>& i) {
    return i ? nlohmann::json{stats::number_or_null(i->lo), stats::number_or_null(i->hi)}
             : nlohmann::json(nullptr);
  };
  j = {{"condition", p.condition},
       {"value", p.value},
       {"x", p.x ? stats::number_or_null(*p.x) : nlohmann::json(nullptr)},
       {"n", p.n},
       {"median", stats::number_or_null(p.median)},
       {"median_ci", interval(p.median_ci)},
       {"cv_pct", p.cv_pct ? stats::number_or_null(*p.cv_pct) : nlohmann::json(nullptr)},
       {"cv_pct_ci", interval(p.cv_ci)},
       {"band", stats::to_string(p.band)},
       {"room", to_string(p.room)}};
}

void to_json(nlohmann::json& j, const Curve& c) {
  j = {{"group", c.group},
       {"parameter", c.parameter},
       {"series", c.series},
       {"benchmark", c.benchmark},
       {"unit", c.unit},
       {"numeric", c.numeric},
       {"points", c.points},
       {"knee", c.knee ? nlohmann::json(c.points[c.knee->index].value) : nlohmann::json(nullptr)},
       {"knee_condition",
        c.knee ? nlohmann::json(c.points[c.knee->index].condition) : nlohmann::json(nullptr)},
       {"knee_text", render::knee_text(c)}};
}

void to_json(nlohmann::json& j, const PairedRow& r) {
  if (r.unpaired) {
    j = {{"condition", r.condition},
         {"benchmark", r.benchmark},
         {"baseline", r.baseline},
         {"variant", r.variant},
         {"label", to_string(r.label)},
         {"design", "blocks"},
         {"n", {r.n_base, r.n_variant}},
         {"median_ratio", or_null(r.median_ratio)},
         {"hl", or_null(r.hl.estimate)},
         {"hl_ci", {or_null(r.hl.lo), or_null(r.hl.hi)}},
         {"p_mann_whitney", or_null(r.p_mann_whitney)},
         {"verdict", to_string(r.verdict_word())},
         {"change", to_string(movement(r.verdict))},
         {"unit", r.unit},
         {"trustworthy", r.trustworthy},
         {"aa", false}};
    return;
  }
  const auto& p = r.paired;
  const std::vector<std::string_view> orders = order_names(r.order);
  j = {{"condition", r.condition},
       {"benchmark", r.benchmark},
       {"baseline", r.baseline},
       {"variant", r.variant},
       {"label", to_string(r.label)},
       {"design", "paired"},
       {"ratios", p.ratios},
       {"order", orders},
       {"median", or_null(p.median)},
       {"min", or_null(p.min)},
       {"max", or_null(p.max)},
       {"gm", or_null(p.gm)},
       {"gm_ci", {or_null(p.gm_lo), or_null(p.gm_hi)}},
       {"median_ci", p.median_ci ? nlohmann::json{or_null(p.median_ci->lo), or_null(p.median_ci->hi)}
                                 : nlohmann::json(nullptr)},
       {"p_wilcoxon", or_null(p.p_wilcoxon)},
       {"p_sign", or_null(p.p_sign)},
       {"p_t", or_null(p.p_t)},
       {"order_effect_p", p.order_effect_p ? or_null(*p.order_effect_p) : nlohmann::json(nullptr)},
       {"verdict", to_string(r.verdict_word())},
       {"change", to_string(movement(r.verdict))},
       {"unit", r.unit},
       {"trustworthy", r.trustworthy},
       {"aa", r.aa}};
}

void to_json(nlohmann::json& j, const AaRow& a) {
  j = {{"condition", a.condition},
       {"benchmark", a.benchmark},
       {"outcome", stats::to_string(a.check.outcome)},
       {"gm_ci", {or_null(a.check.gm_lo), or_null(a.check.gm_hi)}},
       {"median_ratio", or_null(a.check.median_ratio)},
       {"max_abs_dev", or_null(a.check.max_abs_dev)},
       {"halfwidth", or_null(a.check.halfwidth)},
       {"theta", a.theta}};
}

void to_json(nlohmann::json& j, const ConditionAccounting& a) {
  j = {{"condition", a.condition}, {"invocations", a.invocations}};
  if (!a.launcher_noop_seconds.empty() || !a.launcher_unknown.empty()) {
    nlohmann::json l = {{"n", a.launcher_noop_seconds.size()}};
    if (const auto m = a.launcher_median()) {
      const auto [lo, hi] =
          std::minmax_element(a.launcher_noop_seconds.begin(), a.launcher_noop_seconds.end());
      l["median_s"] = *m;
      l["min_s"] = *lo;
      l["max_s"] = *hi;
    }
    if (const auto c = a.command_median()) l["command_median_s"] = *c;
    if (const auto r = a.command_to_launcher()) l["ratio"] = *r;
    if (!a.launcher_unknown.empty()) l["unknown"] = a.launcher_unknown;
    j["launcher"] = l;
  }
  if (a.cgroup_invocations > 0)
    j["throttling"] = {{"invocations", a.cgroup_invocations},
                       {"throttled_invocations", a.throttled_invocations},
                       {"periods", a.periods},
                       {"throttled_periods", a.throttled_periods},
                       {"throttled_s", a.throttled_seconds}};
  if (a.spinner_min_share)
    j["spinners"] = {{"min_share", *a.spinner_min_share}, {"expected_share", a.spinner_expected_share}};
  if (a.run_queue.invocations > 0 || !a.run_queue.unknown.empty()) {
    const RunQueueEvidence& q = a.run_queue;
    const auto opt = [](const std::optional<double>& v) {
      return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
    };
    j["run_queue"] = {{"invocations", q.invocations}, {"run_s", q.run_seconds},
                      {"wait_s", q.wait_seconds},     {"wall_s", q.wall_seconds},
                      {"waited", opt(q.waited())},    {"used_cpus", opt(q.used())},
                      {"slowed", opt(q.slowed())},    {"cpus_allowed", opt(q.cpus_allowed)},
                      {"beside_s", opt(q.beside())},  {"starved", a.starved()}};
    if (!q.busy_unknown.empty()) j["run_queue"]["busy_unknown"] = q.busy_unknown;
    if (!q.unknown.empty()) j["run_queue"]["unknown"] = q.unknown;
  }
  if (const auto share = a.harness_share())
    j["harness"] = {{"invocations", a.harness_invocations},
                    {"cpu_s", a.harness_cpu_seconds},
                    {"wall_s", a.harness_wall_seconds},
                    {"share", *share}};
}

void to_json(nlohmann::json& j, const ClaimResult& r) {
  const claims::Evaluation& e = r.run;
  const bool defined = e.verdict != claims::Verdict::undefined;
  j = {{"claim", e.claim}, {"verdict", std::string(claims::to_string(e.verdict))}};
  j["why"] = e.why ? nlohmann::json(render::undefined_text(e.why)) : nlohmann::json(nullptr);
  j["lhs"] = defined ? stats::number_or_null(e.lhs) : nlohmann::json(nullptr);
  j["rhs"] = defined ? stats::number_or_null(e.rhs) : nlohmann::json(nullptr);
  j["lhs_ci"] = defined ? interval_json(e.lhs_ci) : nlohmann::json(nullptr);
  j["rhs_ci"] = defined ? interval_json(e.rhs_ci) : nlohmann::json(nullptr);
  j["decision_ci"] = defined ? interval_json(e.decision_ci) : nlohmann::json(nullptr);
  if (r.published) {
    const auto& p = *r.published;
    j["published"] = {
        {"holds", p.holds ? nlohmann::json(*p.holds) : nlohmann::json(nullptr)},
        {"lhs", p.holds ? stats::number_or_null(p.lhs) : nlohmann::json(nullptr)},
        {"rhs", p.holds ? stats::number_or_null(p.rhs) : nlohmann::json(nullptr)},
        {"why", p.why ? nlohmann::json(render::undefined_text(p.why)) : nlohmann::json(nullptr)}};
    j["agreement"] = model::name_of(r.agreement);
  }
}

void to_json(nlohmann::json& j, const ReferenceRow& r) {
  j = {{"published", r.published}, {"published_band", std::string(stats::to_string(r.published_band))}};
  if (r.condition.empty()) {
    j["condition"] = nullptr;
    return;
  }
  j["condition"] = r.condition;
  j["name"] = r.name;
  j["n"] = r.n;
  j["mean"] = stats::number_or_null(r.mean);
  j["mean_ci"] = r.mean_ci ? nlohmann::json(*r.mean_ci) : nlohmann::json(nullptr);
  j["stddev"] = r.stddev ? stats::number_or_null(*r.stddev) : nlohmann::json(nullptr);
  j["cv_pct"] = r.cv.defined ? stats::number_or_null(100 * r.cv.value) : nlohmann::json(nullptr);
  j["cv_pct_ci"] = r.cv.defined ? nlohmann::json{stats::number_or_null(100 * r.cv.ci.lo),
                                                 stats::number_or_null(100 * r.cv.ci.hi)}
                                : nlohmann::json(nullptr);
  j["band"] = std::string(stats::to_string(r.band));
}

void to_json(nlohmann::json& j, const Judgement& judgement) {
  j = {{"method", "percentile bootstrap of each claim's difference (within: relative deviation)"},
       {"seed", judgement.seed},
       {"resamples", judgement.resamples},
       {"level", judgement.level},
       {"results", judgement.claims}};
  if (judgement.reference) {
    j["reference"] = *judgement.reference;
    j["reference"]["beside"] = judgement.beside;
  }
  if (const auto notes = render::judgement_notes(judgement); !notes.empty()) j["notes"] = notes;
}

void to_json(json& j, const CompareTable& t) {
  j = json::object();
  j["schema_version"] = render::kCompareSchemaVersion;
  j["old"] = {{"name", t.old_name}, {"source", t.old_source}};
  j["new"] = {{"name", t.new_name}, {"source", t.new_source}};
  j["settings"] = {{"threshold", t.threshold}, {"alpha", t.alpha}, {"confidence", t.confidence}};
  j["comparable"] = t.comparable;
  j["allow_different_hosts"] = t.allow_different_hosts;
  j["matched_by"] = t.matched_by_condition_name ? "condition" : "benchmark";
  j["config_keys"] = t.config_keys;
  j["noise"] = {{"old", t.old_noise ? json(*t.old_noise) : json(nullptr)},
                {"new", t.new_noise ? json(*t.new_noise) : json(nullptr)},
                {"change", render::noise_change_text(t.noise_change)}};
  j["differences"] = json::array();
  for (const auto& d : t.differences)
    j["differences"].push_back(
        {{"field", d.field}, {"old", d.a}, {"new", d.b}, {"moves_benchmarks", d.moves_benchmarks}});
  j["rows"] = json::array();
  for (const auto& r : t.rows) j["rows"].push_back(compare_row_json(r));
  j["geomeans"] = json::array();
  for (const auto& g : t.geomeans)
    j["geomeans"].push_back({{"label", std::string(to_string(g.label))},
                             {"old_condition", g.old_condition},
                             {"new_condition", g.new_condition},
                             {"config", model::config_label(g.config)},
                             {"unit", g.unit},
                             {"rows", g.rows},
                             {"old", or_null(g.old_value)},
                             {"new", or_null(g.new_value)},
                             {"ratio", or_null(g.ratio)}});
  const auto lines = [](const auto& items, const auto& text_of) {
    json list = json::array();
    for (const auto& item : items) list.push_back(text_of(item));
    return list;
  };
  j["only_old"] = lines(t.only_old, render::one_sided_text);
  j["only_new"] = lines(t.only_new, render::one_sided_text);
  j["notes"] = lines(t.notes, render::compare_note_text);
}

void to_json(json& j, const Change& c) {
  j = json{{"kind", to_string(c.kind)},
           {"p", stats::number_or_null(c.p)},
           {"ratio", stats::number_or_null(c.ratio.estimate)},
           {"lo", stats::number_or_null(c.ratio.lo)},
           {"hi", stats::number_or_null(c.ratio.hi)},
           {"reason", render::change_reason(c)},
           {"word", c.word ? to_string(*c.word) : ""}};
}

void to_json(json& j, const HistoryCell& c) {
  j = json{{"condition", c.condition},
           {"name", c.name},
           {"unit", c.unit},
           {"n", c.n},
           {"median", stats::number_or_null(c.median)},
           {"median_ci", interval_or_null(c.median_ci)},
           {"cv_pct", optional_or_null(c.cv_pct)},
           {"cv_ci", interval_or_null(c.cv_ci)},
           {"notes", render::history_cell_notes(c)},
           {"change", c.change}};
  if (c.level_change)
    j["level_change"] = json{{"mean_before", c.level_change->mean_before},
                             {"mean_after", c.level_change->mean_after},
                             {"p", stats::number_or_null(c.level_change->pvalue)}};
}

void to_json(json& j, const HistoryRun& r) {
  j = json{{"run_id", r.run_id},
           {"source", r.source},
           {"started_utc", r.started_utc},
           {"commit", r.commit.empty() ? json() : json(r.commit)},
           {"digest", r.digest},
           {"status", render::history_status(r)},
           {"segment", r.segment},
           {"claims", render::history_claim_lines(r)},
           {"cells", r.cells}};
  std::vector<std::string> warnings;
  for (const auto& w : r.warnings) warnings.push_back(render::run_warning_text(w));
  j["warnings"] = warnings;
  j["noise"] = r.noise ? json(*r.noise) : json(nullptr);
  j["noise_change"] = render::noise_change_text(r.noise_change);
}

void to_json(json& j, const HistorySegment& s) {
  json changed = json::array();
  for (const auto& d : s.changed) changed.push_back(json{{"field", d.field}, {"from", d.a}, {"to", d.b}});
  j = json{{"index", s.index},
           {"first_run", s.first_run},
           {"runs", s.runs},
           {"changed", changed},
           {"reason", s.no_fingerprint ? std::string(render::kNoFingerprint) : std::string()}};
}

void to_json(json& j, const History& h) {
  j = json{{"experiment", h.experiment},
           {"threshold", h.threshold},
           {"alpha", h.alpha},
           {"segments", h.segments},
           {"runs", h.runs}};
  std::vector<std::string> warnings;
  for (const auto& w : h.warnings) warnings.push_back(render::warning_text(w));
  j["warnings"] = warnings;
}

namespace {

// A floor of the gate: a binary against itself.
json gate_floor_json(const stats::AaCheck& c) {
  return {{"outcome", stats::to_string(c.outcome)},
          {"gm", or_null(c.gm)},
          {"ci", {or_null(c.gm_lo), or_null(c.gm_hi)}},
          {"halfwidth", or_null(c.halfwidth)}};
}

std::string_view gate_finding(GateContention::Finding f) {
  using enum GateContention::Finding;
  static constexpr std::array<std::pair<GateContention::Finding, std::string_view>, 2> kWords{
      {{differs, "differs"}, {same, "same"}}};
  return model::word_of(f, kWords, "cannot_tell");
}

}  // namespace

void to_json(json& j, const GateBlock& b) {
  j = json{{"block", b.block},
           {"n", b.n},
           {"pairs", b.shift.n},
           {"ratio", or_null(b.effect())},
           {"ci", {or_null(b.lo()), or_null(b.hi())}},
           {"tail", or_null(b.shift.tail)},
           {"level", or_null(b.shift.level)},
           {"gm", or_null(b.ratio.gm)},
           {"gm_ci", {or_null(b.ratio.gm_lo), or_null(b.ratio.gm_hi)}},
           {"median", or_null(b.ratio.median)},
           {"p_wilcoxon", or_null(b.ratio.p_wilcoxon)},
           {"order_effect_p", optional_or_null(b.ratio.order_effect_p)},
           {"verdict", stats::to_string(b.verdict)},
           {"aa", gate_floor_json(b.aa)},
           {"bb", gate_floor_json(b.bb)},
           {"floor_failed", b.floor_failed},
           {"sigma0", or_null(b.sigma0)},
           {"nu0", or_null(b.nu0)},
           {"mde_slower", or_null(b.mde_slower)},
           {"mde_faster", or_null(b.mde_faster)},
           {"needs_more", b.needs_more ? json(*b.needs_more) : json(nullptr)},
           {"undecidable", b.undecidable},
           {"excess_spread", optional_or_null(b.excess_spread)}};
}

void to_json(json& j, const GateRow& r) {
  j = json{{"condition", r.condition},
           {"benchmark", r.benchmark},
           {"unit", r.unit},
           {"label", to_string(r.label)},
           {"better", model::to_string(r.better)},
           {"gating", r.gating},
           {"verdict", render::gate_verdict_word(r)},
           {"change", to_string(movement(r.verdict))},
           {"confirmed", r.confirmed},
           {"regression", r.regression()},
           {"first", r.first},
           {"second", r.second ? json(*r.second) : json(nullptr)}};
}

void to_json(json& j, const GateContention& c) {
  j = json{{"benchmark", c.benchmark},  {"unit", c.unit},
           {"condition", c.condition},  {"reference", c.reference},
           {"ratio", or_null(c.ratio)}, {"ci", {or_null(c.lo), or_null(c.hi)}},
           {"df", or_null(c.df)},       {"finding", gate_finding(c.finding)}};
}

void to_json(json& j, const GateTable& t) {
  const model::GateSettings& s = t.settings;
  j = json{{"settings",
            {{"threshold", s.threshold},
             {"confidence", s.confidence},
             {"power", s.power},
             {"confirm", s.confirm ? json(*s.confirm) : json(nullptr)},
             {"max_repeats", s.max_repeats},
             {"first_repeats", s.first_repeats},
             {"sequential", s.sequential},
             {"gating_units", s.gating_units}}},
           {"confirm", t.confirm},
           {"rows", t.rows},
           {"contention", t.contention},
           {"gating_rows", t.gating_rows},
           {"false_alarm_bound", or_null(t.false_alarm_bound)},
           {"notes", render::gate_notes(t)},
           {"regression", t.regression()}};
}

}  // namespace noisefloor::analysis

namespace noisefloor::render {
namespace {

using nlohmann::json;

// The per-sample arrays of a streamed document: written from the records where the tree holds an
// empty array in their place, found by the address of that placeholder.
using Splices = std::map<const json*, std::function<void(int depth)>>;

constexpr std::size_t kJsonChunk = 64 << 10;

// Writes like nlohmann's dump(2): two spaces a level, "key": value, empty containers as {} and [].
class PrettyWriter {
 public:
  PrettyWriter(const JsonSink& sink, const Splices& splices) : sink_(sink), splices_(splices) {}

  void write(const json& node, int depth) {
    if (const auto it = splices_.find(&node); it != splices_.end()) return it->second(depth);
    if (node.is_object() && !node.empty()) {
      sink_("{\n");
      bool first = true;
      for (const auto& [key, value] : node.get_ref<const json::object_t&>()) {
        if (!first) sink_(",\n");
        first = false;
        indent(depth + 1);
        sink_(json(key).dump());
        sink_(": ");
        write(value, depth + 1);
      }
      sink_("\n");
      indent(depth);
      sink_("}");
    } else if (node.is_array() && !node.empty()) {
      sink_("[\n");
      bool first = true;
      for (const json& element : node.get_ref<const json::array_t&>()) {
        if (!first) sink_(",\n");
        first = false;
        indent(depth + 1);
        write(element, depth + 1);
      }
      sink_("\n");
      indent(depth);
      sink_("]");
    } else {
      sink_(node.dump());
    }
  }

  // An array of scalars from `values`, each appended by `element` as dump() writes it: as write()
  // writes the same array held as a tree. Handed on a chunk at a time: a call per element would
  // cost more than the element.
  template <class T, class Element>
  void array(const std::vector<T>& values, int depth, Element element) {
    if (values.empty()) return sink_("[]");
    const std::string separator = ",\n" + std::string(2 * static_cast<std::size_t>(depth + 1), ' ');
    std::string chunk = "[";
    chunk.append(separator, 1);
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (i > 0) chunk += separator;
      element(values[i], chunk);
      if (chunk.size() >= kJsonChunk) {
        sink_(chunk);
        chunk.clear();
      }
    }
    chunk += "\n" + std::string(2 * static_cast<std::size_t>(depth), ' ') + "]";
    sink_(chunk);
  }

 private:
  void indent(int depth) { sink_(std::string(2 * static_cast<std::size_t>(depth), ' ')); }

  const JsonSink& sink_;
  const Splices& splices_;
};

// A row without its per-sample vectors (values, outliers, modified_z): they are streamed.
analysis::Row without_samples(const analysis::Row& row) {
  analysis::Row shell = row;
  std::vector<double>().swap(shell.values);
  std::vector<stats::Outlier>().swap(shell.summary.outliers);
  std::vector<double>().swap(shell.summary.modified_z);
  return shell;
}

json rows_tree(const std::vector<analysis::Row>& rows, bool samples) {
  json out = json::array();
  for (const auto& r : rows) out.push_back(samples ? json(r) : json(without_samples(r)));
  return out;
}

json table_tree(const analysis::Table& t, bool samples) {
  if (samples) return t;
  analysis::Table fields;  // the table's own fields; its rows as shells
  fields.conditions = t.conditions;
  fields.config_keys = t.config_keys;
  fields.accounting = t.accounting;
  fields.labels = t.labels;
  json j = fields;
  j["notes"] = render::table_notes(t);  // the rows' warnings too, which `fields` has no rows for
  j["rows"] = rows_tree(t.rows, false);
  j["other_metrics"] = rows_tree(t.other_metrics, false);
  analysis::add_sweeps(j, t);
  return j;
}

// summary_document; without `samples` the table's per-sample arrays are left empty.
json summary_tree(const analysis::Analysis& a, bool samples) {
  const records::Result& first = a.sources.front();
  json j = {{"schema_version", kSummarySchemaVersion},
            {"table", table_tree(a.table, samples)},
            {"warnings", warning_texts(a)}};
  // A go test text file has no run record: nothing is made up for it.
  if (first.run) {
    const records::RunRecord& run = *first.run;
    j["experiment"] = {
        {"name", run.experiment}, {"description", run.description}, {"file", run.experiment_file}};
    j["run"] = {{"id", run.run_id},
                {"status", std::string(records::to_string(run.status))},
                {"started_utc", run.started_utc},
                {"finished_utc", run.finished_utc}};
  }
  if (a.comparison) {
    j["paired"] = a.paired.rows;
    j["aa"] = a.paired.aa;
    j["comparison"] = {{"baseline", a.comparison->baseline},
                       {"aa", a.comparison->aa},
                       {"threshold", a.comparison->threshold}};
  }
  if (!a.adaptive.empty()) j["adaptive"] = a.adaptive;
  if (!a.curves.empty()) j["curves"] = a.curves;
  if (!a.accounting.empty()) j["accounting"] = a.accounting;
  if (!a.diagnosis.empty() || !a.diagnosis.missing.empty()) j["diagnosis"] = a.diagnosis;
  if (a.judgement) j["claims"] = *a.judgement;
  if (a.merged) {
    json labels = json::array();
    for (const auto& s : a.sources) labels.push_back(s.label);
    j["sources"] = labels;
  }
  return j;
}

// A double as dump() writes it (nlohmann's own shortest round-trip digits, null when not finite),
// without a serializer per value.
void append_number(double v, std::string& out) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  std::array<char, 64> digits{};
  char* end = nlohmann::detail::to_chars(digits.data(), digits.data() + digits.size(), v);
  out.append(digits.data(), static_cast<std::size_t>(end - digits.data()));
}

// "none", "outlier", "extreme": nothing in them to escape.
void append_outlier(stats::Outlier o, std::string& out) {
  out += '"';
  out += stats::to_string(o);
  out += '"';
}

// Where the shells' per-sample arrays go: the rows' own vectors.
void splice_rows(const json& shells, const std::vector<analysis::Row>& rows, PrettyWriter& writer,
                 Splices& splices) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const analysis::Row& r = rows[i];
    const json& shell = shells.at(i);
    splices[&shell.at("values")] = [&writer, &r](int depth) { writer.array(r.values, depth, append_number); };
    const json& summary = shell.at("summary");
    splices[&summary.at("outliers")] = [&writer, &r](int depth) {
      writer.array(r.summary.outliers, depth, append_outlier);
    };
    splices[&summary.at("modified_z")] = [&writer, &r](int depth) {
      writer.array(stats::modified_z_scores(r.values, r.summary), depth, append_number);  // not kept
    };
  }
}

}  // namespace

nlohmann::json summary_document(const analysis::Analysis& a) { return summary_tree(a, true); }

void write_summary_json(const analysis::Analysis& a, const JsonSink& sink) {
  const json tree = summary_tree(a, false);
  Splices splices;
  PrettyWriter writer(sink, splices);
  const json& table = tree.at("table");
  splice_rows(table.at("rows"), a.table.rows, writer, splices);
  splice_rows(table.at("other_metrics"), a.table.other_metrics, writer, splices);
  writer.write(tree, 0);
  sink("\n");
}

std::string summary_json(const analysis::Analysis& a) {
  std::string out;
  write_summary_json(a, [&out](std::string_view piece) { out += piece; });
  return out;
}

model::PublishedTable published_table(const analysis::Analysis& a) {
  model::PublishedTable t;
  t.format = "summary.json";
  // As summary.json's numbers read back: a number that is not finite is written as null, and read
  // as absent.
  const auto finite = [](double v) { return std::isfinite(v) ? std::optional<double>(v) : std::nullopt; };
  const auto finite_optional = [&](const std::optional<double>& v) { return v ? finite(*v) : std::nullopt; };
  for (const auto& r : a.table.rows) {
    if (r.condition.empty()) throw ParseError("summary.json: a table row without a condition");
    model::PublishedRow row;
    row.condition = r.condition;
    row.benchmark = r.name;
    if (r.summary.n > 1'000'000'000)
      throw ParseError(
          fmt::format("summary.json: a row's n is not a whole number of samples ({})", r.summary.n));
    row.n = static_cast<int>(r.summary.n);
    row.mean = finite(r.summary.mean);
    row.stddev = finite_optional(r.summary.stddev);
    row.cv_pct = finite_optional(r.summary.cv_pct);
    row.median = finite(r.summary.median);
    row.min = finite(r.summary.min);
    row.max = finite(r.summary.max);
    if (t.unit.empty()) t.unit = r.unit;
    t.rows.push_back(std::move(row));
  }
  if (t.rows.empty()) throw ParseError("summary.json: the table has no rows");
  return t;
}

std::string cv_json(const analysis::Analysis& a, const std::vector<std::string>& given_paths) {
  json j = {{"schema_version", kCvSchemaVersion}, {"sources", given_paths}, {"table", a.table}};
  j["comparable"] = a.comparable();
  if (!a.curves.empty()) j["curves"] = a.curves;
  if (!a.accounting.empty()) j["accounting"] = a.accounting;  // what the labels and starvation rest on
  if (!a.diagnosis.empty() || !a.diagnosis.missing.empty()) j["diagnosis"] = a.diagnosis;
  if (a.judgement) j["claims"] = *a.judgement;
  if (!a.differences.empty()) {
    json differences = json::array();
    for (std::size_t i = 0; i < a.differences.size(); ++i) {
      const auto& d = a.differences[i];
      differences.push_back(
          {{"sources", {a.sources.front().source, a.sources[a.difference_source[i]].source}},
           {"field", d.field},
           {"values", {d.a, d.b}},
           {"moves_benchmarks", d.moves_benchmarks}});
    }
    j["differences"] = differences;
  }
  return j.dump(2) + "\n";
}

std::string compare_json(const std::vector<std::pair<std::string, analysis::CompareTable>>& tables) {
  json document = json::object();
  for (const auto& [host, table] : tables) {
    if (host.empty())
      document = json(table);
    else
      document[host] = json(table);
  }
  return document.dump(2) + "\n";
}

std::string judgement_json(const analysis::Judgement& judgement) { return json(judgement).dump(2) + "\n"; }

std::string fingerprint_json(const records::Fingerprint& fingerprint) {
  return json(fingerprint).dump(2) + "\n";
}

std::string doctor_json(const DoctorDocument& d) {
  json j = d.report;
  j["experiment_cpus"] = d.experiment_cpus ? json(*d.experiment_cpus) : json(nullptr);
  j["engine"] = d.engine ? json(*d.engine) : fingerprint::unknown(d.engine_unknown);
  j["tuning"] = d.tuning;
  j["noise"] = d.noise;
  if (d.applied) {
    j["applied"] = d.applied->applied;
    j["unchanged"] = d.applied->unchanged;
  }
  if (d.restored) {
    j["restored"] = d.restored->restored;
    j["failed"] = d.restored->failed;
  }
  if (d.lease) j["lease"] = *d.lease;
  if (d.transport_warning) j["transport_warning"] = *d.transport_warning;
  return j.dump(2) + "\n";
}

std::string gate_json(const analysis::GateTable& table, const GateContext& c) {
  json j = table;
  j["schema"] = std::string(kGateSchema);
  j["base"] = records::gate_side_json(c.base);
  j["head"] = records::gate_side_json(c.head);
  j["identical_binaries"] = !c.base.binary_sha256.empty() && c.base.binary_sha256 == c.head.binary_sha256;
  j["experiment_file"] = c.experiment_file;
  j["benchmark_line"] = c.benchmark_line;
  j["room"] = gate_room_line(table, c);
  j["reproduce"] = c.reproduce;
  j["seconds"] = c.seconds;
  j["exit_code"] = c.exit_code;
  return j.dump(2) + "\n";
}

}  // namespace noisefloor::render
