#include "render/judge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

#include "model/names.hpp"
#include "text/text.hpp"

namespace noisefloor::render {

namespace {
// The reasons that name no call, in words.
constexpr std::array<std::pair<claims::Undefined::Reason, std::string_view>, 4> kReasonsWithoutNames = {{
    {claims::Undefined::Reason::division_by_zero, "a division by zero"},
    {claims::Undefined::Reason::zero_reference, "`within` needs a non-zero reference"},
    {claims::Undefined::Reason::undefined_in_resamples,
     "a statistic is undefined in most resamples (a division by zero, or a mean that is not positive)"},
    {claims::Undefined::Reason::cv_undefined_in_resamples,
     "undefined in most resamples (a mean that is not positive)"},
}};
}  // namespace

std::string undefined_text(const claims::Undefined& u) {
  using Reason = claims::Undefined::Reason;
  const std::string_view f = claims::to_string(u.function);
  const std::string call = fmt::format("{}({})", f, u.subject);
  const std::string row = fmt::format("{}({}, {})", f, u.subject, u.benchmark);
  switch (u.reason) {
    case Reason::too_few:
      return fmt::format("{} needs n ≥ {} (it has {})", call, u.need, u.have);
    case Reason::no_spread:
      return fmt::format("{} has {} sample{}: an interval needs n ≥ {}", call, u.have, u.have == 1 ? "" : "s",
                         u.need);
    case Reason::ratio_not_positive:
      return call + ": a ratio that is not positive";
    case Reason::mean_not_positive:
      return call + ": the mean is not positive";
    case Reason::median_not_positive:
      return call + ": the median is not positive";
    case Reason::short_curve:
      return call + ": a curve needs two points or more";
    case Reason::category_axis:
      return fmt::format(
          "{}: its axis is not numeric (a value is a label): name the point instead, e.g. cv({}[...])", call,
          u.subject);
    case Reason::no_paired_samples:
      return u.benchmark.empty() ? call + ": no paired samples"
                                 : row + ": no paired samples of that benchmark";
    case Reason::no_samples:
      return call + ": the condition has no samples";
    case Reason::ambiguous_benchmark:
      return fmt::format(
          "{}: {} rows of that condition have that name (the same benchmark in several packages): a "
          "claim can name only a benchmark that is one row",
          row, u.have);
    case Reason::no_such_benchmark:
      return row + ": no such benchmark in that condition";
    case Reason::division_by_zero:
    case Reason::zero_reference:
    case Reason::undefined_in_resamples:
    case Reason::cv_undefined_in_resamples:
      for (const auto& [reason, words] : kReasonsWithoutNames)
        if (reason == u.reason) return std::string(words);
      break;
    case Reason::not_published:
      return call + " is not published";
    case Reason::none:
      break;
  }
  return "";
}

std::vector<std::string> judgement_notes(const analysis::Judgement& j) {
  std::vector<std::string> out;
  for (const auto& b : j.beside) {
    const auto& p = b.published;
    if (b.spread_dropped)
      out.push_back(
          fmt::format("published {}{}: n={}, so its stddev and CV are no figures (shown —)",
                      text::line_label(text::name_safe(p.condition)),
                      p.benchmark.empty() ? "" : " / " + text::line_label(text::name_safe(p.benchmark)),
                      p.n.value_or(0)));
    if (b.condition.empty())
      out.push_back(fmt::format("published condition \"{}\"{} matches none of this run's rows ({})",
                                p.condition, p.benchmark.empty() ? "" : " / " + p.benchmark,
                                fmt::join(j.run_conditions, ", ")));
  }
  return out;
}

namespace {

using claims::Verdict;

std::string side(double v, bool percent) {
  return percent ? fmt::format("{:.2f}%", 100 * v) : text::format_value(v);
}

std::string side_ci(double v, const claims::Interval& ci, bool percent) {
  if (ci.lo == v && ci.hi == v) return side(v, percent);  // a constant: nothing to resample
  return side(v, percent) + " " + text::interval(side(ci.lo, percent), side(ci.hi, percent));
}

std::string method(const analysis::Judgement& j) {
  return fmt::format("{:g}% percentile bootstrap, {} resamples, seed {}", 100 * j.level, j.resamples, j.seed);
}

// "27.01% [21.1%, 33.0%] vs 9.40% [7.0%, 12.2%]", or why the claim cannot be judged.
std::string estimates(const claims::Evaluation& e) {
  if (e.verdict == Verdict::undefined) return "cannot be judged: " + undefined_text(e.why);
  return side_ci(e.lhs, e.lhs_ci, e.percent) + " vs " + side_ci(e.rhs, e.rhs_ci, e.percent);
}

std::string published_words(const analysis::ClaimResult& r, bool percent) {
  if (!r.published) return "";
  const auto& p = *r.published;
  if (!p.holds) return "publication: " + undefined_text(p.why);
  return fmt::format("publication: {} vs {}, {} it: {}", side(p.lhs, percent), side(p.rhs, percent),
                     *p.holds ? "shows" : "does not show", model::name_of(r.agreement));
}

std::string opt(const std::optional<double>& v, int decimals) { return text::fixed(v, decimals); }
// A published figure at benchmark precision ("11.46", "0.0501"); "—" when not published.
std::string figure(const std::optional<double>& v) { return v ? text::format_value(*v) : "—"; }

std::string cv_ci(const claims::Estimate& cv) {
  if (!cv.defined) return "— (" + undefined_text(cv.why) + ")";
  return fmt::format(
      "{:.2f}% {}", 100 * cv.value,
      text::interval(fmt::format("{:.2f}", 100 * cv.ci.lo), fmt::format("{:.2f}", 100 * cv.ci.hi)));
}

std::string mean_ci(const analysis::ReferenceRow& b) {
  if (b.n == 0) return "—";
  std::string s = text::format_value(b.mean);
  if (b.mean_ci)
    s += " " + text::interval(text::format_value(b.mean_ci->lo), text::format_value(b.mean_ci->hi));
  return s;
}

// "noisy / BenchmarkX": a published row as the Beside tables name it.
std::string row_name(const model::PublishedRow& p) {
  return p.condition + (p.benchmark.empty() ? "" : " / " + p.benchmark);
}

// A claim as markdown code, on one line: its fence one backtick longer than the longest run of
// backticks in it, so none of its text can end the span and be read as markdown.
std::string claim_code_span(std::string_view claim) {
  std::string safe = text::name_safe(claim);
  std::size_t longest = 0, run = 0;
  for (const char c : safe) longest = std::max(longest, run = c == '`' ? run + 1 : 0);
  const std::string fence(longest + 1, '`');
  const char* pad = longest > 0 ? " " : "";
  return fence + pad + safe + pad + fence;
}

std::string reference_title(const model::PublishedTable& t) {
  std::string s = t.source.empty() ? "the published table" : t.source;
  if (!t.file.empty()) s += fmt::format(" ({}, {})", t.file, t.format);
  return s;
}

}  // namespace

std::string judgement_headline(const analysis::Judgement& j) {
  return fmt::format(
      "claims: {} reproduced, {} not reproduced, {} inconclusive{} (of {})", j.count(Verdict::reproduced),
      j.count(Verdict::not_reproduced), j.count(Verdict::inconclusive),
      j.count(Verdict::undefined) ? fmt::format(", {} undefined", j.count(Verdict::undefined)) : "",
      j.claims.size());
}

std::string judgement_text(const analysis::Judgement& j, const std::string& unit) {
  std::string out;
  if (!j.claims.empty()) {
    out += fmt::format("\nClaims ({}):\n", method(j));
    // Each verdict line starts with text::kVerdictMark, which no name or claim can carry.
    for (const auto& r : j.claims) {
      out += fmt::format("  {} {:<15} {}\n", text::kVerdictMark, claims::to_string(r.run.verdict),
                         text::name_safe(r.run.claim));
      out += fmt::format("    {:<15} {}\n", "", text::name_safe(estimates(r.run)));
      if (r.published)
        out += fmt::format("    {:<15} {}\n", "", text::name_safe(published_words(r, r.run.percent)));
    }
    out += "  " + judgement_headline(j) + "\n";
  }
  if (j.reference) {
    out += "\n" + text::wrap(fmt::format("Beside {}{}:", text::name_safe(reference_title(*j.reference)),
                                         unit.empty() ? "" : ", means in " + unit),
                             80, "", "    ");
    for (const auto& b : j.beside) {
      const auto& p = b.published;
      // "- " first: a row's name (data) never starts a line, where a verdict would.
      out += fmt::format("  - {}{}\n", text::line_label(text::name_safe(p.condition)),
                         p.benchmark.empty() ? "" : " / " + text::line_label(text::name_safe(p.benchmark)));
      out += fmt::format("    published  n={:<4} mean {}  sd {}  CV {}  {}\n",
                         p.n ? std::to_string(*p.n) : "—", figure(p.mean), figure(p.stddev),
                         p.cv_pct ? opt(p.cv_pct, 2) + "%" : "—", stats::to_string(b.published_band));
      if (b.condition.empty())
        out += "    this run   no matching condition\n";
      else
        out += fmt::format("    this run   n={:<4} mean {}  sd {}  CV {}  {}\n", b.n, mean_ci(b),
                           b.stddev ? text::format_value(*b.stddev) : "—", cv_ci(b.cv),
                           stats::to_string(b.band));
    }
    for (const auto& note : judgement_notes(j)) out += "  note: " + text::name_safe(note) + "\n";
  }
  return out;
}

std::string judgement_markdown(const analysis::Judgement& j, const std::string& unit) {
  std::string out;
  if (!j.claims.empty()) {
    out += fmt::format("\n## Claims\n\n{}; {}.\n\n", judgement_headline(j), method(j));
    for (const auto& r : j.claims) {
      out += fmt::format("- **{}** {}: {}", claims::to_string(r.run.verdict), claim_code_span(r.run.claim),
                         text::markdown_cell(estimates(r.run)));
      if (r.published) out += "; " + published_words(r, r.run.percent);
      out += "\n";
    }
  }
  if (j.reference) {
    out += fmt::format("\n## Beside {}\n\n", text::markdown_cell(reference_title(*j.reference)));
    out += fmt::format(
        "| condition | published n | mean{} | stddev | CV% | band | this run n | mean [95% CI] | stddev | "
        "CV% [95% CI] | band |\n",
        unit.empty() ? "" : " " + unit);
    out += "|:--|--:|--:|--:|--:|:--|--:|--:|--:|--:|:--|\n";
    for (const auto& b : j.beside) {
      const auto& p = b.published;
      out += fmt::format("| {} | {} | {} | {} | {} | {} ", text::markdown_cell(row_name(p)),
                         p.n ? std::to_string(*p.n) : "—", figure(p.mean), figure(p.stddev), opt(p.cv_pct, 2),
                         stats::to_string(b.published_band));
      if (b.condition.empty())
        out += "| — | — | — | — | no matching condition |\n";
      else
        out += fmt::format("| {} | {} | {} | {} | {} |\n", b.n, mean_ci(b),
                           b.stddev ? text::format_value(*b.stddev) : "—", cv_ci(b.cv),
                           stats::to_string(b.band));
    }
    const std::vector<std::string> notes = judgement_notes(j);
    for (const auto& note : notes) out += "\n- " + text::markdown_text(note);
    if (!notes.empty()) out += "\n";
  }
  return out;
}

std::string judgement_html(const analysis::Judgement& j, const std::string& unit) {
  using text::html_escape;
  std::string out = "<section id=\"claims\">\n";
  if (!j.claims.empty()) {
    out += fmt::format(
        "<h2>Claims</h2>\n<p class=\"headline\">{} <span class=\"method\">({})</span></p>\n<table "
        "class=\"claims\">\n",
        html_escape(judgement_headline(j)), html_escape(method(j)));
    out += "<tr><th>verdict</th><th>claim</th><th>this run (95% interval)</th>";
    if (j.reference) out += "<th>publication</th>";
    out += "</tr>\n";
    for (const auto& r : j.claims) {
      std::string cls(claims::to_string(r.run.verdict));
      for (char& c : cls) c = c == ' ' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      out += fmt::format("<tr class=\"{}\"><td class=\"verdict\">{}</td><td><code>{}</code></td><td>{}</td>",
                         cls, html_escape(claims::to_string(r.run.verdict)), html_escape(r.run.claim),
                         html_escape(estimates(r.run)));
      if (j.reference) out += fmt::format("<td>{}</td>", html_escape(published_words(r, r.run.percent)));
      out += "</tr>\n";
    }
    out += "</table>\n";
  }
  if (j.reference) {
    out += fmt::format("<h2>Beside {}</h2>\n<table class=\"reference\">\n",
                       html_escape(reference_title(*j.reference)));
    out += fmt::format(
        "<tr><th>condition</th><th>published n</th><th>mean{}</th><th>stddev</th><th>CV%</th><th>band</th>"
        "<th>this run n</th><th>mean [95% CI]</th><th>stddev</th><th>CV% [95% CI]</th><th>band</th></tr>\n",
        unit.empty() ? "" : " " + html_escape(unit));
    for (const auto& b : j.beside) {
      const auto& p = b.published;
      out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>",
                         html_escape(row_name(p)), p.n ? std::to_string(*p.n) : "—", figure(p.mean),
                         figure(p.stddev), opt(p.cv_pct, 2), stats::to_string(b.published_band));
      if (b.condition.empty())
        out += "<td colspan=\"5\">no matching condition</td></tr>\n";
      else
        out += fmt::format("<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", b.n,
                           html_escape(mean_ci(b)), b.stddev ? text::format_value(*b.stddev) : "—",
                           html_escape(cv_ci(b.cv)), stats::to_string(b.band));
    }
    out += "</table>\n";
    for (const auto& note : judgement_notes(j)) out += "<p class=\"note\">" + html_escape(note) + "</p>\n";
  }
  return out + "</section>\n";
}

}  // namespace noisefloor::render
