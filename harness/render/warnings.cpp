#include "render/warnings.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "render/accounting.hpp"
#include "text/text.hpp"

namespace noisefloor::render {

namespace {

// The parenthesis of an exact p under ties: what benchstat printed beside the p shown.
std::string ties_detail(const analysis::CompareWarning& w) {
  switch (w.detail) {
    case analysis::TiesDetail::none:
      return "";
    case analysis::TiesDetail::not_probability:
      return fmt::format(
          " (benchstat's count gives p={:.3f}, which is no probability here: shown is the doubled tail "
          "p={:.3f}; the |U − μ| tail p={:.3f})",
          w.p_benchstat, w.p_slot, w.p_absdev);
    case analysis::TiesDetail::tails_differ:
      return fmt::format(" (benchstat's doubled lower tail p={:.3f}; the |U − μ| tail p={:.3f})", w.p_slot,
                         w.p_absdev);
  }
  return "";
}

}  // namespace

std::string summary_warning_text(const stats::SummaryWarning& w) {
  using Kind = stats::SummaryWarningKind;
  switch (w.kind) {
    case Kind::no_samples:
      return "no samples";
    case Kind::one_sample:
      return "n=1 < 2: no stddev, CV or mean CI";
    case Kind::no_median_ci:
      return fmt::format("n={} < {}: no {:g}% median CI", w.n, w.count, 100.0 * w.value);
    case Kind::mean_not_positive:
      return "mean <= 0: no CV";
    case Kind::median_not_positive:
      return "median <= 0: no rCV";
    case Kind::shape:
      return w.robust_zero
                 ? fmt::format("heavy tail / outliers / multimodal (CV = {:.2f}% with rCV = 0)", w.value)
                 : fmt::format("heavy tail / outliers / multimodal (CV/rCV = {:.1f})", w.value);
    case Kind::outliers:
      return fmt::format("{} of {} samples are outliers (|modified z| > 3.5), {} of them extreme (> 10)",
                         w.count, w.n, w.extreme);
    case Kind::drift:
      return w.value > 0.0 ? fmt::format("drift: lag-1 autocorrelation {:.2f} > {:.2f}", w.value, w.limit)
                           : fmt::format("drift: lag-1 autocorrelation {:.2f} < -{:.2f}", w.value, w.limit);
  }
  return "unknown warning";  // a value outside the enum: a cast integer
}

std::string test_warning_text(const stats::TestWarning& w) {
  using Kind = stats::TestWarningKind;
  switch (w.kind) {
    case Kind::min_p_unattainable:
      return fmt::format(
          "n={} vs {}: the minimum attainable p is {:.3g} > 0.05: no difference can ever be significant at "
          "these sizes (4 vs 4 is the least; 10 per side is the floor)",
          w.n, w.n_b, w.value);
    case Kind::all_equal:
      return "all values are equal: no test (p = 1)";
    case Kind::one_pair:
      return "n=1 < 2 pairs: no geometric-mean CI or paired t test";
    case Kind::no_log_variance:
      return "log ratios have no variance: no paired t test";
    case Kind::zeros_dropped:
      return fmt::format("{} zero log ratios dropped from the signed-rank and sign tests", w.count);
    case Kind::all_zero:
      return "all log ratios are 0: no signed-rank or sign test (p = 1)";
    case Kind::rank_tests_weak:
      return fmt::format("{} nonzero pairs: the signed-rank and sign tests cannot reach p <= {:g}", w.count,
                         w.value);
    case Kind::order_effect:
      return fmt::format(
          "order effect: log ratios of AB and BA repeats differ (Welch p = {:.3g}): warm-cache or frequency "
          "carry-over",
          w.value);
    case Kind::no_median_ratio_ci:
      return fmt::format("n={} pairs: too few for a {:g}% median-ratio CI", w.n, 100.0 * w.value);
    case Kind::baseline_drift:
      return fmt::format("baseline drift: lag-1 autocorrelation {:.2f}, |r1| > {:.2f}", w.value, w.limit);
  }
  return "unknown warning";  // a value outside the enum: a cast integer
}

std::string compare_warning_text(const analysis::CompareRow& row, const analysis::CompareWarning& w) {
  using Kind = analysis::CompareWarningKind;
  switch (w.kind) {
    case Kind::test:
      return test_warning_text(w.test);
    case Kind::few_values:
      return fmt::format(
          "n={} vs {}: a side has fewer than 6 values: no 95% median CI (± ∞); 10 per side is the floor, 20 "
          "for reporting",
          w.n_a, w.n_b);
    case Kind::low_n:
      return fmt::format("n={} vs {}: low n (10 per side is the floor, 20 for reporting)", w.n_a, w.n_b);
    case Kind::ties_exact:
      return fmt::format("ties: {} of {} values share a value; exact p conditional on the ties{}", w.count,
                         w.n_a + w.n_b, ties_detail(w));
    case Kind::ties_normal:
      return fmt::format(
          "ties: {} of {} values share a value; normal approximation with tie correction (exact only up to "
          "25 per side with ties)",
          w.count, w.n_a + w.n_b);
    case Kind::normal_approximation:
      return "p from the normal approximation (exact only up to 50 per side)";
    case Kind::inexact_values:
      return fmt::format("exact values expected (Unit {} assume=exact), but they range from {} to {}",
                         row.unit, text::shortest(w.lo), text::shortest(w.hi));
    case Kind::hl_unbounded:
      return fmt::format("n={} vs {}: the Hodges-Lehmann {:.0f}% CI is unbounded: too few values", w.n_a,
                         w.n_b, 100 * w.value);
    case Kind::not_positive:
      return "a value <= 0: no ratio (Hodges-Lehmann works on logs)";
  }
  return "unknown warning";  // a value outside the enum: a cast integer
}

std::vector<std::string> compare_warning_texts(const analysis::CompareRow& row) {
  std::vector<std::string> out;
  out.reserve(row.warnings.size());
  for (const auto& w : row.warnings) out.push_back(compare_warning_text(row, w));
  return out;
}

std::vector<std::string> summary_warning_texts(const std::vector<stats::SummaryWarning>& warnings) {
  std::vector<std::string> out;
  out.reserve(warnings.size());
  for (const auto& w : warnings) out.push_back(summary_warning_text(w));
  return out;
}

std::vector<std::string> table_notes(const analysis::Table& t) {
  std::vector<std::string> out;
  for (const auto& r : t.rows)
    for (const auto& w : r.summary.warnings)
      if (w.kind != stats::SummaryWarningKind::no_median_ci)
        out.push_back(fmt::format("{}: {}", analysis::note_where(r), summary_warning_text(w)));
  if (!t.mixed_procs.empty())
    out.push_back(fmt::format("GOMAXPROCS differs between rows ({}): compare CVs, not means",
                              fmt::join(t.mixed_procs, ", ")));
  for (auto& note : accounting_notes(t.accounting)) out.push_back(std::move(note));
  return out;
}

namespace {

// Which invocation: "condition 'c', run 3 of 10", "condition 'c', run 3" (samples: auto),
// "condition 'c', variant 'v', repeat 2".
std::string warning_invocation(const records::RunWarning& w) {
  if (!w.variant.empty())
    return fmt::format("condition '{}', variant '{}', repeat {}", w.condition, w.variant, w.invocation);
  return fmt::format("condition '{}', run {}{}", w.condition, w.invocation,
                     w.invocations > 0 ? fmt::format(" of {}", w.invocations) : "");
}

}  // namespace

namespace {

std::string run_warning_words(const records::RunWarning& w) {
  using K = records::RunWarningKind;
  switch (w.kind) {
    case K::benchmark_error:
      return fmt::format("{}: {}", warning_invocation(w), w.detail);
    case K::benchmark_failed:
      return fmt::format("{}: benchmark {} failed", warning_invocation(w), w.benchmark);
    case K::resumed_elsewhere:
      return "resumed on another host: " + w.detail;
    case K::claims_not_judged:
      return "the recorded claims are not judged: " + w.detail;
    case K::non_finite_metric:
      return fmt::format(
          "condition '{}': {} reported {} {}: kept as not a number (only the primary metric must be finite)",
          w.condition, w.benchmark, w.detail, w.unit);
    case K::paused_timing:
      return w.benchmark +
             " calls PauseTiming in its timed loop: its simulated counts include the paused code, which "
             "its timer leaves out";
    case K::container_left:
      if (w.container.empty()) break;  // a run.json before 0.9 held the sentence
      return fmt::format(
          "container {}: not removed ({}); `noisefloor gc` removes what noisefloor left behind", w.container,
          w.detail);
    case K::container_late:
      return fmt::format("container {}: the first removal failed; removed at the end of the run",
                         w.container);
    case K::torn_last_line:
      return "ignored a torn last line";
    case K::no_samples:
      return "no samples (the run stopped before its first sample, or they were removed)";
    case K::skipped:
      return w.detail + " (skipped)";
    case K::several_hosts:
      return "a run on several hosts: history reads one-host runs (skipped)";
    case K::output_note:
    case K::unit_conflict:
    case K::other:
      break;
  }
  return w.detail;  // the source's own sentence
}

}  // namespace

std::string run_warning_text(const records::RunWarning& w) {
  if (w.file.empty()) return run_warning_words(w);
  return w.line > 0 ? fmt::format("{}:{}: {}", w.file, w.line, run_warning_words(w))
                    : fmt::format("{}: {}", w.file, run_warning_words(w));
}

std::string missing_host_text(const records::FleetHost& host) {
  return fmt::format("{}: no results ({}{})", host.name, records::to_string(host.status),
                     host.error ? ": " + *host.error : "");
}

std::string warning_text(const analysis::Warning& w) {
  return (w.source.empty() ? "" : w.source + ": ") + run_warning_text(w.what);
}

namespace {
constexpr std::string_view kSuperseded = "SUPERSEDED";
std::string superseded_words(const records::Result& run, const records::Superseder& by) {
  return fmt::format(
      "this run's figures were replaced by {} (experiment {}, run {}, started {}); `noisefloor errata --old "
      "{} "
      "--new {}` finds where they were quoted",
      by.path, by.experiment, by.run_id, by.started_utc, run.source, by.path);
}
}  // namespace

std::string superseded_text(const records::Result& run, const records::Superseder& by) {
  return fmt::format("{}: {}", kSuperseded, superseded_words(run, by));
}

std::string superseded_markdown(const records::Result& run, const records::Superseder& by) {
  return fmt::format("> **{}**: {}", kSuperseded, text::markdown_text(superseded_words(run, by)));
}

std::vector<std::string> warning_texts(const analysis::Analysis& a) {
  std::vector<std::string> out;
  out.reserve(a.warnings.size());
  for (const auto& s : a.sources)
    for (const auto& by : s.superseded_by)
      out.push_back((a.merged ? s.label + ": " : "") + superseded_text(s, by));
  for (const auto& w : a.warnings) out.push_back(warning_text(w));
  return out;
}

}  // namespace noisefloor::render
