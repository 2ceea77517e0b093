#include "render/warnings.hpp"

#include <fmt/format.h>

namespace noisefloor::render {

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
  out.insert(out.end(), t.notes.begin(), t.notes.end());
  return out;
}

}  // namespace noisefloor::render
