// Claims and the published reference as text, markdown and HTML (render/judge.hpp).
#include <doctest/doctest.h>

#include <string>
#include <utility>

#include "analysis/anchor.hpp"
#include "render/judge.hpp"
#include "render/run.hpp"

using namespace noisefloor;

namespace {

analysis::Judgement fabricated() {
  analysis::Judgement j;
  j.seed = 7;
  analysis::ClaimResult a;
  a.run.claim = "cv(noisy) > 2 * cv(idle)";
  a.run.verdict = claims::Verdict::reproduced;
  a.run.percent = true;
  a.run.lhs = 0.2;
  a.run.lhs_ci = {0.15, 0.25};
  a.run.rhs = 0.02;
  a.run.rhs_ci = {0.018, 0.024};
  a.published = claims::PointCheck{true, 0.1888, 0.095, {}};
  a.agreement = analysis::Agreement::agrees;
  analysis::ClaimResult b;
  b.run.claim = "cv(one) < 5%";
  b.run.verdict = claims::Verdict::undefined;
  b.run.why = {claims::Undefined::Reason::too_few, claims::Function::cv, "one", "", 1, 2};
  j.claims = {a, b};
  model::PublishedTable t;
  t.source = "the talk";
  t.file = "published/cv.txt";
  t.format = "cv-summary";
  t.rows = {{"idle", "", 20, 11.46, 0.54, 4.75, {}, {}, {}},
            {"shielded", "", 20, 12.0, 0.5, 4.2, {}, {}, {}}};
  j.reference = t;
  analysis::ReferenceRow idle;
  idle.published = t.rows[0];
  idle.published_band = stats::Band::acceptable;
  idle.condition = "idle";
  idle.name = "BenchmarkX";
  idle.n = 20;
  idle.mean = 12.5;
  idle.mean_ci = stats::Interval{12.0, 13.0, 0.95};
  idle.stddev = 0.25;
  idle.cv = claims::Estimate{true, 0.02, {0.015, 0.026}, {}};
  idle.band = stats::Band::acceptable;
  analysis::ReferenceRow shielded;
  shielded.published = t.rows[1];
  shielded.published_band = stats::Band::acceptable;
  j.beside = {idle, shielded};
  j.run_conditions = {"idle"};  // shielded matches none of them
  return j;
}

}  // namespace

TEST_CASE("render judge: the verdicts and the published table as text") {
  CHECK(render::judgement_text(fabricated(), "ns/op") ==
        "\nClaims (95% percentile bootstrap, 10000 resamples, seed 7):\n"
        "  ▸ REPRODUCED      cv(noisy) > 2 * cv(idle)\n"
        "                    20.00% [15.00%, 25.00%] vs 2.00% [1.80%, 2.40%]\n"
        "                    publication: 18.88% vs 9.50%, shows it: agrees\n"
        "  ▸ UNDEFINED       cv(one) < 5%\n"
        "                    cannot be judged: cv(one) needs n ≥ 2 (it has 1)\n"
        "  claims: 1 reproduced, 0 not reproduced, 0 inconclusive, 1 undefined (of 2)\n"
        "\nBeside the talk (published/cv.txt, cv-summary), means in ns/op:\n"
        "  - idle\n"
        "    published  n=20   mean 11.46  sd 0.54  CV 4.75%  acceptable\n"
        "    this run   n=20   mean 12.50 [12.00, 13.00]  sd 0.25  CV 2.00% [1.50, 2.60]  acceptable\n"
        "  - shielded\n"
        "    published  n=20   mean 12.00  sd 0.5  CV 4.20%  acceptable\n"
        "    this run   no matching condition\n"
        "  note: published condition \"shielded\" matches none of this run's rows (idle)\n");
}

// Issue 42's re-test: a claim, a reason or a published source can hold what looks like a verdict
// (a newline, U+00A0 padding, the words and the mark); only noisefloor's own verdict lines start
// with the mark, and text noisefloor wraps goes on deeper than they start.
TEST_CASE("render judge: why a claim is UNDEFINED, in words, for every reason") {
  using R = claims::Undefined::Reason;
  using claims::Function;
  const auto words = [](R r, Function f, std::string s, std::string b = "", std::size_t have = 0,
                        std::size_t need = 0) {
    return render::undefined_text({r, f, std::move(s), std::move(b), have, need});
  };
  CHECK(words(R::too_few, Function::cv, "one", "", 1, 2) == "cv(one) needs n ≥ 2 (it has 1)");
  CHECK(words(R::no_spread, Function::mean, "one", "", 1, 2) ==
        "mean(one) has 1 sample: an interval needs n ≥ 2");
  CHECK(words(R::no_spread, Function::max, "none", "", 0, 2) ==
        "max(none) has 0 samples: an interval needs n ≥ 2");
  CHECK(words(R::ratio_not_positive, Function::ratio, "fast") == "ratio(fast): a ratio that is not positive");
  CHECK(words(R::mean_not_positive, Function::cv, "zero") == "cv(zero): the mean is not positive");
  CHECK(words(R::median_not_positive, Function::rcv, "zero") == "rcv(zero): the median is not positive");
  CHECK(words(R::short_curve, Function::knee, "q") == "knee(q): a curve needs two points or more");
  CHECK(words(R::category_axis, Function::knee, "q") ==
        "knee(q): its axis is not numeric (a value is a label): name the point instead, e.g. cv(q[...])");
  CHECK(words(R::no_paired_samples, Function::ratio, "fast") == "ratio(fast): no paired samples");
  CHECK(words(R::no_paired_samples, Function::ratio, "fast", "BenchmarkC") ==
        "ratio(fast, BenchmarkC): no paired samples of that benchmark");
  CHECK(words(R::no_samples, Function::median, "idle") == "median(idle): the condition has no samples");
  CHECK(words(R::ambiguous_benchmark, Function::median, "idle", "BenchmarkA", 2) ==
        "median(idle, BenchmarkA): 2 rows of that condition have that name (the same benchmark in several "
        "packages): a claim can name only a benchmark that is one row");
  CHECK(words(R::no_such_benchmark, Function::cv, "idle", "BenchmarkZ") ==
        "cv(idle, BenchmarkZ): no such benchmark in that condition");
  CHECK(words(R::division_by_zero, Function::n, "") == "a division by zero");
  CHECK(words(R::zero_reference, Function::n, "") == "`within` needs a non-zero reference");
  CHECK(words(R::undefined_in_resamples, Function::n, "") ==
        "a statistic is undefined in most resamples (a division by zero, or a mean that is not positive)");
  CHECK(words(R::cv_undefined_in_resamples, Function::cv, "") ==
        "undefined in most resamples (a mean that is not positive)");
  CHECK(words(R::not_published, Function::median, "noisy") == "median(noisy) is not published");
  CHECK(words(R::none, Function::n, "").empty());
}

TEST_CASE("render judge: no claim, reason or source prints a verdict line of its own") {
  analysis::Judgement j = fabricated();
  j.claims[0].run.claim = "cv(x) < 1%\n  \u25b8 REPRODUCED\u00a0\u00a0cv(idle) < 1%";
  j.claims[1].run.why = {claims::Undefined::Reason::no_samples,
                         claims::Function::cv,
                         "a\u00a0\u00a0\u25b8 REPRODUCED",
                         "",
                         0,
                         0};
  j.reference->source = std::string(66, 'x') + " REPRODUCED      cv(noisy) < 1% and more words";
  const std::string out = render::judgement_text(j, "ns/op");
  std::size_t marks = 0;
  for (std::size_t at = out.find("\u25b8"); at != std::string::npos; at = out.find("\u25b8", at + 1)) {
    ++marks;
    CHECK((out.compare(at - 2, 5, "  \u25b8") == 0 && out[at - 3] == '\n'));  // a line's start
  }
  CHECK(marks == 2);
  CHECK(out.find("\\u25b8 REPRODUCED\\u00a0\\u00a0cv(idle)") != std::string::npos);
  // The source, wrapped, goes on at 4 columns, deeper than any verdict line.
  CHECK(out.find("\n    REPRODUCED cv(noisy) < 1%") != std::string::npos);
  CHECK(out.find("\n  \\u25b8") == std::string::npos);
  CHECK(out.find("\n  REPRODUCED") == std::string::npos);
  const std::string md = render::judgement_markdown(j, "ns/op");
  CHECK(md.find("`cv(x) < 1%\\x0a  \\u25b8 REPRODUCED\\u00a0\\u00a0cv(idle) < 1%`") != std::string::npos);
  j.claims[0].run.claim = "a ` b `` c";
  CHECK(render::judgement_markdown(j, "ns/op").find("``` a ` b `` c ```:") != std::string::npos);
}

TEST_CASE("render judge: markdown and HTML carry the same verdicts") {
  const std::string md = render::judgement_markdown(fabricated(), "ns/op");
  CHECK(md.find("## Claims\n\nclaims: 1 reproduced, 0 not reproduced, 0 inconclusive, 1 undefined (of 2); "
                "95% percentile") != std::string::npos);
  CHECK(
      md.find("- **REPRODUCED** `cv(noisy) > 2 * cv(idle)`: 20.00% [15.00%, 25.00%] vs 2.00% [1.80%, 2.40%]; "
              "publication: 18.88% vs 9.50%, shows it: agrees\n") != std::string::npos);
  CHECK(md.find("| idle | 20 | 11.46 | 0.54 | 4.75 | acceptable | 20 | 12.50 [12.00, 13.00] | 0.25 | 2.00% "
                "[1.50, 2.60] | "
                "acceptable |\n") != std::string::npos);
  const std::string html = render::judgement_html(fabricated(), "ns/op");
  CHECK(
      html.find("<tr class=\"reproduced\"><td class=\"verdict\">REPRODUCED</td><td><code>cv(noisy) &gt; 2 * "
                "cv(idle)</code></td>") != std::string::npos);
  CHECK(html.find("<tr class=\"undefined\">") != std::string::npos);
}

TEST_CASE("anchor_text: the word only when every sample says it, and a range that shows the side") {
  using noisefloor::analysis::Anchor;
  using noisefloor::analysis::AnchorRow;
  Anchor a;
  a.source = "results/t/1";
  a.condition = "idle";
  a.rows = {AnchorRow{"idle", "t", "sec/op", 0.70, 1.71, 1.02},
            AnchorRow{"idle", "u", "ns/op", 0.985, 0.998, 0.991},
            AnchorRow{"idle", "v", "ns/op", 1.0004, 1.2, 1.1},
            AnchorRow{"idle", "w", "ns/op", 1.10, 1.30, 1.20},
            AnchorRow{"idle", "x", "MB/s", 1.10, 1.30, 1.20},
            AnchorRow{"idle", "y", "frames/op", 0.5, 0.6, 0.55}};
  CHECK(noisefloor::render::anchor_text(a) ==
        "anchor: results/t/1 (condition 'idle', its baseline)\n"
        "  idle / t: baseline / anchor 0.70–1.71× (median 1.02×): sometimes faster, sometimes slower than "
        "the anchor\n"
        "  idle / u: baseline / anchor 0.985–0.998× (median 0.991×): faster than the anchor in every sample\n"
        "  idle / v: baseline / anchor 1.0004–1.2000× (median 1.1000×): slower than the anchor in every "
        "sample\n"
        "  idle / w: baseline / anchor 1.10–1.30× (median 1.20×): slower than the anchor in every sample\n"
        // A throughput above the anchor is faster; a unit of no known direction only goes lower.
        "  idle / x: baseline / anchor 1.10–1.30× (median 1.20×): faster than the anchor in every sample\n"
        "  idle / y: baseline / anchor 0.50–0.60× (median 0.55×): lower than the anchor in every sample\n");
  a.rows.clear();
  a.anchor_benchmarks = {"tiny"};
  a.run_benchmarks = {"a"};
  CHECK(noisefloor::render::anchor_text(a) ==
        "anchor: results/t/1 (condition 'idle', its baseline)\n"
        "  nothing compared: no benchmark of the anchor's 'idle' is in this run (anchor: tiny; this run: a): "
        "give an "
        "anchor run of the same benchmark\n");
}
