#include <doctest/doctest.h>

#include "analysis/paired.hpp"
#include "analysis/table.hpp"
#include "render/json.hpp"
#include "render/paired.hpp"
#include "test_support.hpp"

using namespace noisefloor;

namespace {

using testing::add_pair;

const std::vector<double> kV6Base = {100, 102, 98, 105, 101, 99, 103, 100};
const std::vector<double> kV6Var = {97, 99, 96, 101, 98, 97, 100, 98};
const std::vector<double> kV7Base = {100.0, 101.0, 99.5, 100.5, 100.2, 99.8, 100.9, 100.1, 99.7, 100.4};
const std::vector<double> kV7Pass = {100.3, 100.6, 99.9, 100.2, 100.5, 99.6, 101.1, 99.8, 100.0, 100.6};
const std::vector<double> kV7Biased = {101.6, 102.4, 101.0, 102.1, 101.8, 101.2, 102.5, 101.4, 101.2, 102.0};

}  // namespace

TEST_CASE("paired: V6 gives the spec's geometric-mean CI and a 'faster' verdict") {
  std::vector<records::Sample> s;
  add_pair(s, "clean", "fast", "fast", kV6Base, kV6Var);
  const auto t = analysis::build_paired(s, "base", 0.01, {{"clean", analysis::Label::measured_clean}});
  REQUIRE(t.rows.size() == 1);
  const auto& r = t.rows[0];
  CHECK(r.variant == "fast");
  CHECK(r.label == analysis::Label::measured_clean);
  CHECK(r.paired.gm == doctest::Approx(0.972863164938934).epsilon(1e-12));
  CHECK(r.paired.gm_lo == doctest::Approx(0.9675088918841246).epsilon(1e-9));
  CHECK(r.paired.gm_hi == doctest::Approx(0.9782470689771752).epsilon(1e-9));
  CHECK(r.paired.p_wilcoxon == doctest::Approx(0.0078125));
  CHECK(r.verdict == stats::Verdict::faster);
  using model::PairOrder;
  CHECK(r.order == std::vector<PairOrder>{PairOrder::ab, PairOrder::ba, PairOrder::ba, PairOrder::ab,
                                          PairOrder::ab, PairOrder::ba, PairOrder::ba, PairOrder::ab});
  CHECK(r.trustworthy);
}

TEST_CASE("paired: a passing A/A keeps the verdicts trustworthy") {
  std::vector<records::Sample> s;
  add_pair(s, "c", "fast", "fast", kV7Base, kV7Pass);
  add_pair(s, "c", "A/A", "base'", kV7Base, kV7Pass);
  const auto t = analysis::build_paired(s, "base", 0.01, {{"c", analysis::Label::contended_paired}});
  REQUIRE(t.aa.size() == 1);
  CHECK(t.aa[0].check.outcome == stats::AaOutcome::pass);
  CHECK(t.aa[0].check.gm_lo == doctest::Approx(0.9982891767489086).epsilon(1e-9));
  for (const auto& r : t.rows) CHECK(r.trustworthy);
  const auto j = nlohmann::json{{"paired", t.rows}, {"aa", t.aa}};
  CHECK(j["aa"][0]["outcome"] == "PASS");
  CHECK(j["paired"][1]["aa"] == true);
  CHECK(j["paired"][0]["label"] == "CONTENDED-PAIRED");
}

TEST_CASE("paired: a biased A/A fails and marks the condition's verdicts untrustworthy") {
  std::vector<records::Sample> s;
  add_pair(s, "c", "fast", "fast", kV6Base, kV6Var);
  add_pair(s, "c", "A/A", "base'", kV7Base, kV7Biased);
  const auto t = analysis::build_paired(s, "base", 0.01, {{"c", analysis::Label::contended_paired}});
  REQUIRE(t.aa.size() == 1);
  CHECK(t.aa[0].check.outcome == stats::AaOutcome::fail_biased);
  CHECK(t.aa[0].check.gm_lo == doctest::Approx(1.0142891644309933).epsilon(1e-9));
  for (const auto& r : t.rows) CHECK_FALSE(r.trustworthy);
  const std::string md = render::paired_markdown(t);
  CHECK(md.find("faster (untrustworthy: A/A failed)") != std::string::npos);
  CHECK(md.find("FAIL biased") != std::string::npos);
  CHECK(md.find("c: the A/A check failed, so every verdict in this condition is untrustworthy") !=
        std::string::npos);
}

TEST_CASE("paired: labels are never mixed in one table, warm-up repeats are left out") {
  std::vector<records::Sample> s;
  add_pair(s, "clean", "fast", "fast", kV6Base, kV6Var);
  add_pair(s, "busy", "fast", "fast", kV6Base, kV6Var);
  s[0].warmup = s[1].warmup = true;  // repeat 0 of "clean"
  const auto t = analysis::build_paired(
      s, "base", 0.01,
      {{"clean", analysis::Label::measured_clean}, {"busy", analysis::Label::contended_paired}});
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[0].paired.ratios.size() == 7);
  CHECK(t.rows[1].paired.ratios.size() == 8);
  const std::string md = render::paired_markdown(t);
  const auto clean = md.find("**MEASURED-clean**");
  const auto busy = md.find("**CONTENDED-PAIRED**");
  REQUIRE(clean != std::string::npos);
  REQUIRE(busy != std::string::npos);
  // each table holds only its own condition
  CHECK(md.substr(clean, busy - clean).find("| busy |") == std::string::npos);
  CHECK(md.substr(busy).find("| clean |") == std::string::npos);
}

TEST_CASE("paired: the per-condition table shows each variant as its own row") {
  std::vector<records::Sample> s;
  add_pair(s, "c", "fast", "fast", kV6Base, kV6Var);
  const auto t = analysis::build_table(s, {"c"});
  REQUIRE(t.rows.size() == 2);
  CHECK(analysis::display_name(t.rows[0]) == "BenchmarkWork [base]");
  CHECK(t.rows[1].benchmark == "BenchmarkWork");
  CHECK(t.rows[1].variant == "fast");
  CHECK(t.rows[1].summary.n == 8);
}

TEST_CASE("paired: a row's test caveats are its table's notes, each said once") {
  // The variant looks 2% faster when it runs second (AB) and 2% slower when first (BA): an order
  // effect, which the notes say once, with the row it belongs to.
  std::vector<records::Sample> s;
  add_pair(s, "c", "fast", "fast", std::vector<double>(8, 100.0),
           {98, 102, 102.1, 98.1, 97.9, 101.9, 102.05, 98.05});
  const auto t = analysis::build_paired(s, "base", 0.01, {{"c", analysis::Label::measured_clean}});
  REQUIRE(t.rows.size() == 1);
  REQUIRE(t.rows[0].paired.warnings.size() == 1);
  CHECK(t.rows[0].paired.warnings[0].kind == stats::TestWarningKind::order_effect);
  const std::string md = render::paired_markdown(t);
  CHECK(md.find(
            "- c / BenchmarkWork / fast: order effect: log ratios of AB and BA repeats differ (Welch p = ") !=
        std::string::npos);
  CHECK(md.find("order effect") == md.rfind("order effect"));
}

TEST_CASE("paired: a pair no test can compare is skipped, and the notes say where and why") {
  // A baseline value of 0 has no log ratio: the row is left out, the skip keeps its place.
  std::vector<records::Sample> s;
  std::vector<double> base = kV6Base;
  base[3] = 0;
  add_pair(s, "c", "fast", "fast", base, kV6Var);
  const auto t = analysis::build_paired(s, "base", 0.01, {{"c", analysis::Label::measured_clean}});
  CHECK(t.rows.empty());
  REQUIRE(t.skipped.size() == 1);
  CHECK(t.skipped[0].condition == "c");
  CHECK(t.skipped[0].benchmark == "BenchmarkWork");
  CHECK(t.skipped[0].variant == "fast");
  CHECK_FALSE(t.skipped[0].error.empty());
  CHECK(render::paired_markdown(t).find("- c / BenchmarkWork / fast: not compared: " + t.skipped[0].error) !=
        std::string::npos);
}
