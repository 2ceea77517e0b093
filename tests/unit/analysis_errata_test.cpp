// Errata: old figures matched to new ones, their quotations found in the spellings people write,
// decoys left alone, and the certain ones rewritten with a mark in the file's own syntax.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "analysis/errata.hpp"
#include "render/errata.hpp"
#include "test_support.hpp"

using namespace noisefloor;
using analysis::Certainty;
using analysis::Correction;
using analysis::Figure;
using analysis::FigureKind;
using analysis::Syntax;

namespace {

Figure ratio(double value, analysis::Label label) {
  Figure f;
  f.condition = "contended";
  f.benchmark = "BenchmarkRatioLoop";
  f.statistic = analysis::Statistic::ratio_of_variants;
  f.of = "thrice";
  f.to = "once";
  f.unit = "×";
  f.kind = FigureKind::ratio;
  f.value = value;
  f.label = label;
  f.names = {"contended", "RatioLoop", "BenchmarkRatioLoop", "thrice", "once"};
  return f;
}

Figure value(double v, analysis::Statistic statistic = analysis::Statistic::median) {
  Figure f;
  f.condition = "idle";
  f.benchmark = "BenchmarkGet";
  f.statistic = statistic;
  f.unit = "ns/op";
  f.kind = FigureKind::value;
  f.value = v;
  f.label = analysis::Label::measured_clean;
  f.names = {"idle", "Get", "BenchmarkGet"};
  return f;
}

Figure cv(double v) {
  Figure f = value(v, analysis::Statistic::cv);
  f.unit = "%";
  f.kind = FigureKind::percent;
  return f;
}

std::vector<Correction> ratio_fix() {
  return {{ratio(1.6712, analysis::Label::contended), ratio(3.1706, analysis::Label::contended_paired)}};
}

std::vector<std::string> quoted(const std::vector<analysis::Hit>& hits) {
  std::vector<std::string> out;
  for (const auto& h : hits) out.push_back(h.quoted);
  return out;
}

}  // namespace

TEST_CASE("errata: a ratio in every usual spelling, certain with a name nearby or three digits") {
  const std::string text =
      "thrice took 1.67x as long as once\n"
      "thrice: 1.67× (contended)\n"
      "thrice: 1.7× under load\n"
      "RatioLoop got +67% slower\n"
      "RatioLoop ran at 167% of once\n"
      "\n\n"
      "a lone 1.7× here\n"
      "\n\n\nand 1.67× far from any name\n";
  const auto hits = analysis::find_quotations(text, ratio_fix(), Syntax::markdown);
  CHECK(quoted(hits) == std::vector<std::string>{"1.67x", "1.67×", "1.7×", "+67%", "167%", "1.7×", "1.67×"});
  CHECK(hits[0].certainty == Certainty::certain);
  CHECK(hits[0].replacement == "3.17x");
  CHECK(hits[1].replacement == "3.17×");
  CHECK(hits[2].certainty == Certainty::certain);  // two digits, but "thrice" is on its line
  CHECK(hits[2].replacement == "3.2×");
  CHECK(hits[3].replacement == "+217%");
  CHECK(hits[3].certainty == Certainty::certain);
  CHECK(hits[4].replacement == "317%");
  CHECK(hits[4].certainty == Certainty::certain);
  CHECK(hits[5].certainty == Certainty::likely);  // two digits and nothing that names it
  CHECK(hits[5].doubts == std::vector{analysis::Doubt::two_digits_unnamed});
  CHECK(hits[6].certainty == Certainty::certain);  // three digits stand alone
  CHECK(hits[0].line == 1);
  CHECK(hits[0].column == 13);
  CHECK(hits[5].line == 8);
  CHECK(hits[3].line == 4);
  CHECK(hits[3].column == 15);
}

TEST_CASE("errata: decoys are no quotation, bare numbers only likely") {
  const std::string text =
      "go 1.67.0 and v1.67 and x1.67 and 2026-1-67 and 1.67.2 and 11.67x\n"
      "thrice ratio: 1.67\n"
      "thrice was 1.7\n"
      "already corrected: thrice 3.17×\n";
  const auto hits = analysis::find_quotations(text, ratio_fix(), Syntax::text);
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].quoted == "1.67");
  CHECK(hits[0].line == 2);
  CHECK(hits[0].certainty == Certainty::likely);
  CHECK(hits[0].doubts == std::vector{analysis::Doubt::bare_number});
}

TEST_CASE("errata: a negative change and a ratio that crossed 1") {
  const std::vector<Correction> fix = {
      {ratio(0.6, analysis::Label::contended), ratio(1.2, analysis::Label::contended_paired)}};
  const auto hits = analysis::find_quotations("thrice: -40% and −40% but not +40%\n", fix, Syntax::text);
  REQUIRE(hits.size() == 2);
  CHECK(hits[0].replacement == "+20%");
  CHECK(hits[1].quoted == "−40%");
  CHECK(hits[1].replacement == "+20%");
}

TEST_CASE("errata: values in their unit or a scaled one, CVs and CI half-widths") {
  Figure halfwidth = cv(6.4);
  halfwidth.statistic = analysis::Statistic::median_halfwidth;
  halfwidth.kind = FigureKind::halfwidth;
  Figure narrower = halfwidth;
  narrower.value = 1.2;
  const std::vector<Correction> fix = {
      {value(34.97), value(36.1)}, {cv(18.88), cv(2.31)}, {halfwidth, narrower}};
  const std::string text =
      "Get: 34.97 ns/op, 34.97ns, 0.03497 µs, 34.97n, 35.0 ns\n"
      "Get CV 18.88% or 18.9 %, median ± 6.4% or ±6.4%\n"
      "34.97 ms is another thing\n";
  const auto hits = analysis::find_quotations(text, fix, Syntax::text);
  CHECK(quoted(hits) == std::vector<std::string>{"34.97 ns/op", "34.97ns", "0.03497 µs", "34.97n", "35.0 ns",
                                                 "18.88%", "18.9 %", "± 6.4%", "±6.4%"});
  CHECK(hits[0].replacement == "36.10 ns/op");
  CHECK(hits[2].replacement == "0.03610 µs");
  CHECK(hits[5].replacement == "2.31%");
  CHECK(hits[6].replacement == "2.3 %");
  CHECK(hits[7].replacement == "± 1.2%");
  CHECK(hits[8].replacement == "±1.2%");
  for (const auto& h : hits) CHECK(h.certainty == Certainty::certain);
}

TEST_CASE("errata: a benchmark's result lines are data, not quotations") {
  const std::vector<Correction> fix = {{value(34.97), value(36.1)}};
  const std::string text =
      "//\tBenchmarkGet-48         \t  690848\t      34.97 ns/op\n"
      "BenchmarkGet-8 1000 34.97 ns/op\n"
      "BenchmarkGet is at 34.97 ns/op\n";
  const auto hits = analysis::find_quotations(text, fix, Syntax::text);
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].line == 3);
}

TEST_CASE("errata: one number, two figures: likely, both named") {
  const std::vector<Correction> fix = {
      {value(34.97), value(36.1)},
      {value(34.97, analysis::Statistic::mean), value(40.0, analysis::Statistic::mean)}};
  const auto hits = analysis::find_quotations("BenchmarkGet 34.97 ns/op\n", fix, Syntax::text);
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].certainty == Certainty::likely);
  CHECK(hits[0].doubts == std::vector{analysis::Doubt::several_figures});
  CHECK(hits[0].also == std::vector<std::size_t>{0, 1});
  // Said in words by render/ only, each figure by its name.
  render::ErrataView v;
  v.corrections = fix;
  render::QuotingFile quoting;
  quoting.path = "notes.txt";
  quoting.hits = hits;
  v.files = {quoting};
  CHECK(render::errata_text(v, 200).find(
            "notes.txt:1:14  34.97 ns/op  likely (it matches 2 figures (idle · BenchmarkGet · median; idle · "
            "BenchmarkGet · mean))\n") != std::string::npos);
}

TEST_CASE("errata: in source files only comments are certain") {
  const std::string text =
      "// thrice costs 1.67x once under load\n"
      "const note = \"thrice 1.67x\" // see 1.67×\n"
      "/* RatioLoop:\n   1.67× */\n";
  const auto hits = analysis::find_quotations(text, ratio_fix(), Syntax::source);
  REQUIRE(hits.size() == 4);
  CHECK(hits[0].certainty == Certainty::certain);
  CHECK(hits[1].certainty == Certainty::likely);
  CHECK(hits[1].doubts == std::vector{analysis::Doubt::in_code});
  CHECK(hits[2].certainty == Certainty::certain);
  CHECK(hits[3].certainty == Certainty::certain);
}

TEST_CASE("errata: the correction mark in each syntax; likely hits untouched") {
  const std::string text = "thrice: 1.67×\n\n\nand a lone 1.7×\n";
  const auto hits = analysis::find_quotations(text, ratio_fix(), Syntax::markdown);
  REQUIRE(hits.size() == 2);
  CHECK(analysis::apply_corrections(text, hits, Syntax::markdown, "2026-12-03", "PR 12") ==
        "thrice: ~~1.67×~~ 3.17× (corrected 2026-12-03; see PR 12)\n\n\nand a lone 1.7×\n");
  CHECK(analysis::apply_corrections(text, hits, Syntax::html, "2026-12-03", "") ==
        "thrice: <del>1.67×</del> <ins>3.17×</ins> (corrected 2026-12-03)\n\n\nand a lone 1.7×\n");
  CHECK(analysis::apply_corrections(text, hits, Syntax::yaml, "2026-12-03", "a, \"b\"") ==
        "thrice: 3.17× (corrected from 1.67× on 2026-12-03; see a b)\n\n\nand a lone 1.7×\n");
}

TEST_CASE("errata: a corrected file is found corrected: nothing is marked twice") {
  const std::string text = "thrice: 1.67× and 1.67x\n";
  for (const Syntax syntax : {Syntax::markdown, Syntax::html, Syntax::yaml}) {
    const auto hits = analysis::find_quotations(text, ratio_fix(), syntax);
    REQUIRE(hits.size() == 2);
    const std::string once = analysis::apply_corrections(text, hits, syntax, "2026-12-03", "PR 12");
    CHECK(analysis::find_quotations(once, ratio_fix(), syntax).empty());
  }
}

TEST_CASE("errata: old figures meet new ones by condition, benchmark and statistic") {
  std::vector<Figure> old_figures = {ratio(1.67, analysis::Label::contended), value(34.97), cv(5)};
  Figure other = value(30);
  other.condition = "noisy";
  std::vector<Figure> new_figures = {other, ratio(3.17, analysis::Label::contended_paired), cv(4)};
  const auto fixes = analysis::match_figures(old_figures, new_figures);
  REQUIRE(fixes.size() == 2);
  CHECK(fixes[0].old_figure.value == 1.67);
  CHECK(fixes[0].new_figure.value == 3.17);
  CHECK(fixes[1].new_figure.condition == "idle");
  CHECK(fixes[1].new_figure.statistic == analysis::Statistic::cv);
  // The same statistic in another unit, or a ratio of other sides, is another figure.
  Figure in_us = value(0.035);
  in_us.unit = "µs/op";
  Figure other_sides = ratio(2, analysis::Label::contended);
  other_sides.to = "twice";
  CHECK(analysis::match_figures({value(34.97), ratio(1.67, analysis::Label::contended)}, {in_us, other_sides})
            .empty());
}

TEST_CASE("errata: syntax by extension") {
  CHECK(analysis::syntax_of("docs/STATUS.md") == Syntax::markdown);
  CHECK(analysis::syntax_of("a/b.yml") == Syntax::yaml);
  CHECK(analysis::syntax_of("x.json") == Syntax::json);
  CHECK(analysis::syntax_of("bench_test.go") == Syntax::source);
  CHECK(analysis::syntax_of("decisions.csv") == Syntax::csv);
  CHECK(analysis::syntax_of("page.html") == Syntax::html);
  CHECK(analysis::syntax_of("notes.v1/README") == Syntax::text);
}

TEST_CASE("errata: a ratio's verdict is its row's word, marked when the A/A check failed") {
  // paired-0.1: thrice/once is slower in both conditions, and its A/A check failed in both.
  const auto a = analysis::analyze({testing::load_result(testing::kData + "/results/paired-0.1")});
  const auto figures = analysis::published_figures(a);
  const auto it = std::find_if(figures.begin(), figures.end(), [](const Figure& f) {
    return f.condition == "clean" && f.statistic == analysis::Statistic::ratio_of_variants &&
           f.of == "thrice" && f.to == "once";
  });
  REQUIRE(it != figures.end());
  CHECK(it->verdict == analysis::Word::slower);
  CHECK(it->untrustworthy);
  render::ErrataView v;
  v.corrections = {{*it, *it}};
  render::QuotingFile quoting;  // a place that quotes it (correction 0), so that the erratum lists it
  quoting.path = "README.md";
  quoting.hits.push_back(analysis::Hit{});
  v.files = {quoting};
  CHECK(render::errata_json(v).find("\"slower (untrustworthy: A/A failed)\"") != std::string::npos);
  CHECK(render::errata_markdown(v).find("| slower (untrustworthy: A/A failed) |") != std::string::npos);
  CHECK(render::errata_markdown(v).find("| clean | BenchmarkRatioLoop | ratio thrice/once |") !=
        std::string::npos);
}
