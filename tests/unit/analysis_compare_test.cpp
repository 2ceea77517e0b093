#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>

#include "analysis/analysis.hpp"
#include "analysis/compare.hpp"
#include "fingerprint/doctor.hpp"
#include "model/errors.hpp"
#include "parsers/gotest.hpp"
#include "render/compare.hpp"
#include "render/json.hpp"
#include "render/table.hpp"
#include "render/warnings.hpp"
#include "test_support.hpp"
#include "text/units.hpp"

using namespace noisefloor;
using nlohmann::json;

namespace {

using testing::check_golden;
using testing::gotest_samples;

std::vector<records::Sample> make(const std::string& condition, const std::string& benchmark,
                                  const std::vector<double>& ns, const std::string& unit = "ns/op") {
  std::vector<records::Sample> out;
  int i = 0;
  for (double v : ns) {
    records::Sample s;
    s.condition = condition;
    s.benchmark = benchmark;
    s.name = benchmark;
    s.index = i++;
    s.metrics = {{v, unit}};
    out.push_back(s);
  }
  return out;
}

void append(std::vector<records::Sample>& to, const std::vector<records::Sample>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

std::size_t max_columns(const std::string& text) {
  std::size_t best = 0, cols = 0;
  for (unsigned char c : text) {
    if (c == '\n') {
      best = std::max(best, cols);
      cols = 0;
    } else if ((c & 0xC0) != 0x80) {
      ++cols;
    }
  }
  return std::max(best, cols);
}

const analysis::CompareRow& row(const analysis::CompareTable& t, const std::string& benchmark,
                                const std::string& unit) {
  for (const auto& r : t.rows)
    if (r.benchmark == benchmark && r.unit == unit) return r;
  FAIL("no row " << benchmark << " " << unit);
  return t.rows.front();
}

analysis::CompareSettings demo_settings() {
  analysis::CompareSettings st;
  st.old_name = "idle.txt";
  st.new_name = "noisy.txt";
  st.old_source = "tests/data/compare/idle.txt";
  st.new_source = "tests/data/compare/noisy.txt";
  return st;
}

}  // namespace

TEST_CASE("compare: the demo's idle vs noisy line reads like benchstat's") {
  const auto t = analysis::compare_samples(gotest_samples("idle", "compare/idle.txt"),
                                           gotest_samples("noisy", "compare/noisy.txt"), demo_settings());
  CHECK_FALSE(t.matched_by_condition_name);
  REQUIRE(t.rows.size() == 3);  // sec/op, B/op, allocs/op
  // Units are tidied as benchstat tidies them: ns/op is sec/op, its values in seconds.
  const auto& r = row(t, "BenchmarkMakeBuffer_Correct-16", "sec/op");
  CHECK(r.recorded_units == std::vector<std::string>{"ns/op"});
  CHECK(r.compared);
  CHECK(r.label == analysis::Label::unknown);
  CHECK(r.old_side.summary.n == 20);
  CHECK(r.old_side.summary.median == doctest::Approx(11.322e-9).epsilon(1e-15));
  CHECK(r.new_side.summary.median == doctest::Approx(37.401e-9).epsilon(1e-15));
  CHECK(r.test.exact);
  CHECK(r.test.u == 0.0);
  // 2 / C(40, 20), checked by enumeration in Python (tests/data/compare/README.md).
  CHECK(r.test.p == doctest::Approx(2.0 / 137846528820.0).epsilon(1e-12));
  CHECK(r.test.p_benchstat == r.test.p);      // no ties: benchstat's doubled tail is the |U − μ| tail
  CHECK(r.p_adjusted == r.test.p_benchstat);  // one row per unit: no adjustment
  REQUIRE(r.hl);
  CHECK(r.hl->estimate == doctest::Approx(3.201866268271755).epsilon(1e-12));
  CHECK(r.hl->lo == doctest::Approx(2.7061895385669046).epsilon(1e-12));
  CHECK(r.hl->hi == doctest::Approx(3.400123631225716).epsilon(1e-12));
  CHECK(r.verdict == stats::Verdict::slower);

  const std::string text = render::compare_text(t);
  // benchstat: "MakeBuffer_Correct-16   11.32n ± 5%   37.40n ± 25%  +230.34% (p=0.000 n=20)"; with the
  // verdict the row would take 81 columns, so the name goes on its own line.
  CHECK(
      text.find("\nMakeBuffer_Correct-16\n  11.32n ± 5%  37.40n ± 25%  +230.34% (p=0.000 n=20)  slower\n") !=
      std::string::npos);
  CHECK(max_columns(text) <= 80);
  check_golden("compare.demo.txt", text);
  check_golden("compare.demo.csv", render::compare_csv(t));
  check_golden("compare.demo.json", json(t).dump(2) + "\n");

  // All-equal secondary metrics: no test, p = 1, "~", identical samples are equivalent.
  const auto& b = row(t, "BenchmarkMakeBuffer_Correct-16", "B/op");
  CHECK(b.test.p == 1.0);
  CHECK_FALSE(b.significant);
  CHECK(b.verdict == stats::Verdict::equivalent);
  CHECK_FALSE(b.min_p_above_alpha);
  CHECK(text.find("MakeBuffer_Correct-16  64.00 ± 0%  64.00 ± 0%  ~ (p=1.000 n=20)  equivalent\n") !=
        std::string::npos);
}

TEST_CASE("compare: rows are keyed by the full name: GOMAXPROCS values are never pooled") {
  analysis::CompareSettings st;
  st.old_name = "makebuffer_benchmem_count3.txt";
  st.new_name = "makebuffer_cpu_1_2.txt";
  // Old ran BenchmarkMakeBuffer_Correct-2 3 times; new ran it 2 times under GOMAXPROCS=2 and twice
  // under GOMAXPROCS=1 (printed without a suffix): a row of its own, present on the new side only.
  const auto t = analysis::compare_samples(gotest_samples("count3", "gotest/makebuffer_benchmem_count3.txt"),
                                           gotest_samples("cpu12", "gotest/makebuffer_cpu_1_2.txt"), st);
  const auto& r = row(t, "BenchmarkMakeBuffer_Correct-2", "sec/op");
  CHECK(r.old_side.summary.n == 3);
  CHECK(r.new_side.summary.n == 2);
  CHECK(r.old_side.procs == std::vector<int>{2});
  CHECK(r.new_side.procs == std::vector<int>{2});
  CHECK(r.test.u == 4.0);
  CHECK(r.test.p == doctest::Approx(4.0 / 5.0).epsilon(1e-12));  // enumeration of the 10 splits
  CHECK(r.verdict == stats::Verdict::inconclusive);
  for (const auto& x : t.rows) CHECK(x.benchmark != "BenchmarkMakeBuffer_Correct");  // never matched with -2
  using Kind = analysis::OneSided::Kind;
  CHECK(t.only_old ==
        std::vector<analysis::OneSided>{{Kind::row, "count3", "BenchmarkMakeBuffer_DCE-2", ""}});
  CHECK(t.only_new ==
        std::vector<analysis::OneSided>{{Kind::row, "cpu12", "BenchmarkMakeBuffer_Correct", ""}});
  CHECK(render::one_sided_text(t.only_old[0]) == "count3: BenchmarkMakeBuffer_DCE-2");
  const std::string text = render::compare_text(t);
  CHECK(text.find("GOMAXPROCS differs") == std::string::npos);  // nothing pooled, nothing to warn about
  CHECK(r.warnings.at(0).kind == analysis::CompareWarningKind::test);
  CHECK(r.warnings.at(0).test.kind == stats::TestWarningKind::min_p_unattainable);
  CHECK(render::compare_warning_text(r, r.warnings.at(0)) ==
        "n=3 vs 2: the minimum attainable p is 0.2 > 0.05: no difference can ever be significant at these "
        "sizes (4 vs 4 is the least; 10 per side is the floor)");
  CHECK(r.min_p_above_alpha);  // said by a flag: nothing reads the warning's words
  CHECK(max_columns(text) <= 80);
  check_golden("compare.gotest.txt", text);
  check_golden("compare.gotest.csv", render::compare_csv(t));
  check_golden("compare.gotest.json", json(t).dump(2) + "\n");
}

TEST_CASE(
    "compare: asymmetric ties: the p slot is benchstat's doubled lower tail, the |U - mu| tail is said") {
  // Values checked by enumerating the 210 splits in Python (tests/data/compare/README.md).
  const auto t = analysis::compare_samples(make("a", "BenchmarkT", {10, 10, 10, 10}),
                                           make("a", "BenchmarkT", {10, 10, 11, 12, 12, 12}), {});
  const auto& r = t.rows.at(0);
  CHECK(r.test.exact);
  CHECK(r.test.u == 4.0);
  CHECK(r.test.p == doctest::Approx(11.0 / 105.0).epsilon(1e-12));
  CHECK(r.test.p_exact_doubling == doctest::Approx(1.0 / 7.0).epsilon(1e-12));
  const std::string text = render::compare_text(t);
  CHECK(r.test.p_benchstat == doctest::Approx(1.0 / 7.0).epsilon(1e-12));
  CHECK(render::benchstat_p_text(r) == "p=0.143 n=4+6");
  CHECK(text.find("(benchstat's doubled lower tail p=0.143; the |U − μ| tail p=0.105)") != std::string::npos);
}

TEST_CASE("compare: Holm-Bonferroni over several rows, geomean, matching by condition name") {
  std::vector<records::Sample> o, n;
  const std::vector<double> base = {10.0, 10.1, 10.2, 10.3, 10.4, 10.5, 10.6, 10.7, 10.8, 10.9};
  std::vector<double> slower, same;
  for (double v : base) slower.push_back(v * 1.2);
  for (double v : base) same.push_back(v + 0.05);
  append(o, make("idle", "BenchmarkA", base));
  append(o, make("idle", "BenchmarkB", base));
  append(o, make("noisy", "BenchmarkA", base));
  append(n, make("idle", "BenchmarkA", slower));
  append(n, make("idle", "BenchmarkB", same));
  append(n, make("pinned", "BenchmarkA", base));
  const auto t = analysis::compare_samples(o, n, {});
  CHECK(t.matched_by_condition_name);
  REQUIRE(t.rows.size() == 2);
  const auto& a = row(t, "BenchmarkA", "sec/op");
  const auto& b = row(t, "BenchmarkB", "sec/op");
  // Exact p: A is fully separated (2/C(20,10)); Holm multiplies the smaller p by 2.
  CHECK(a.test.p == doctest::Approx(2.0 / 184756.0).epsilon(1e-12));
  CHECK(a.p_adjusted == doctest::Approx(4.0 / 184756.0).epsilon(1e-12));
  CHECK(b.p_adjusted == doctest::Approx(std::max(b.test.p, a.p_adjusted)).epsilon(1e-12));
  CHECK(a.significant);
  CHECK_FALSE(b.significant);
  CHECK(a.verdict == stats::Verdict::slower);
  REQUIRE(t.geomeans.size() == 1);
  CHECK(t.geomeans[0].rows == 2);
  CHECK(t.geomeans[0].ratio == doctest::Approx(std::sqrt(1.2 * (10.5 / 10.45))).epsilon(1e-12));
  using Kind = analysis::OneSided::Kind;
  CHECK(t.only_old == std::vector<analysis::OneSided>{{Kind::condition, "noisy", "", ""}});
  CHECK(t.only_new == std::vector<analysis::OneSided>{{Kind::condition, "pinned", "", ""}});
  CHECK(render::one_sided_text(t.only_new[0]) == "condition 'pinned' (all benchmarks)");
  const std::string text = render::compare_text(t);
  CHECK(t.notes.at(0).kind == analysis::CompareNote::Kind::holm);
  CHECK(
      render::compare_note_text(t.notes.at(0)) ==
      "\"p=\" and \"~\" are benchstat's, row by row; \"Holm p\" beside each effect is that p Holm-Bonferroni "
      "adjusted within its unit (sec/op over 2 rows); verdicts are per-row 95% CIs, not adjusted");
  CHECK(a.significant_adjusted);
  CHECK(text.find(fmt::format("(Holm p={:.3f})", a.p_adjusted)) != std::string::npos);
  CHECK(text.find("geomean") != std::string::npos);
}

TEST_CASE("compare: a paired result's variants are rows of their own, as in its table") {
  const auto paired = testing::load_result(testing::kData + "/results/paired-0.1");
  const analysis::CompareTable t = analysis::compare_results(paired, paired, 0.01, false);
  const analysis::Analysis a = analysis::analyze({paired});
  // Every side of the primary metric holds exactly the values of one table row: same n, same
  // median (before, baseline, variant and A/A copy were pooled into one side).
  std::size_t matched = 0;
  for (const auto& r : t.rows) {
    const auto row = std::find_if(a.table.rows.begin(), a.table.rows.end(), [&](const analysis::Row& x) {
      return x.condition == r.old_side.condition && analysis::display_name(x) == r.benchmark &&
             text::tidy_unit(x.unit).first == r.unit;
    });
    if (row == a.table.rows.end()) continue;  // another metric of the same row
    CHECK(r.old_side.values.size() == row->values.size());
    CHECK(r.old_side.summary.median ==
          doctest::Approx(row->summary.median * text::tidy_unit(row->unit).second));
    ++matched;
  }
  CHECK(matched == a.table.rows.size());
  CHECK(a.table.rows.size() == 6);  // 2 conditions × (once, thrice, once')
}

TEST_CASE("compare: no condition in common is a usage error that says how to choose") {
  std::vector<records::Sample> o = make("idle", "BenchmarkA", {1, 2, 3});
  append(o, make("noisy", "BenchmarkA", {1, 2, 3}));
  const auto n = make("pinned", "BenchmarkA", {1, 2, 3});
  CHECK_THROWS_AS(analysis::compare_samples(o, n, {}), ConfigError);
  CHECK_THROWS_WITH(
      analysis::compare_samples(o, n, {}),
      doctest::Contains("no condition name in common: old has 'idle', 'noisy', new has 'pinned'"));
  CHECK_THROWS_AS(analysis::compare_samples({}, n, {}), ConfigError);
}

TEST_CASE("compare: labels come from spinners and load; different labels are never compared") {
  const json run = {
      {"condition_records",
       {{{"condition", "idle"}, {"setup", json::object()}},
        {{"condition", "noisy"}, {"setup", {{"spinners", {{"count", 2}, {"cpus", "unpinned"}}}}}}}}};
  // One load rule (fingerprint::judge_load, the doctor's): runnable tasks other than the reader
  // at or above the logical CPUs is CONTENDED; the lagging 1-minute average alone never is.
  const auto host = [](double one, int running) {
    return json{{"host",
                 {{"load", {{"value", {{"one", one}, {"running", running}}}}},
                  {"cpu", {{"logical", {{"value", 2}}}}}}}};
  };
  const json calm = host(0.5, 1);
  const json busy = host(2.5, 3);     // 2 others on 2 CPUs
  const json lagging = host(2.5, 1);  // a busy minute behind, nothing runnable now
  const auto result = [](const json& run_json, const json& fp) {
    records::Result r;
    if (!run_json.is_null()) r.run = run_json.get<records::RunRecord>();
    r.fingerprint = fp.get<records::Fingerprint>();
    return r;
  };
  analysis::LabelReason why;
  CHECK(analysis::condition_label(result(run, calm), "idle", &why) == analysis::Label::measured_clean);
  CHECK(analysis::condition_label(result(run, calm), "noisy", &why) == analysis::Label::contended);
  CHECK(render::label_reason_text(why) == "2 spinners");
  CHECK(analysis::condition_label(result(run, busy), "idle", &why) == analysis::Label::contended);
  CHECK(render::label_reason_text(why) ==
        "2 other runnable task(s) now, 1-minute load average 2.50, on 2 logical CPUs when the run started");
  CHECK(analysis::condition_label(result(run, lagging), "idle", &why) == analysis::Label::measured_clean);
  // What was read over the condition outweighs the reading at the start: the load after each block
  // settled (a majority of BAD readings is CONTENDED) ...
  const auto settled = [](std::vector<int> running) {
    json blocks = json::array();
    for (const int r : running)
      blocks.push_back({{"condition", "idle"},
                        {"setup", json::object()},
                        {"load_settled", {{"value", {{"one", 0.5}, {"running", r}}}}}});
    return json{{"condition_records", blocks}};
  };
  CHECK(analysis::condition_label(result(settled({1, 1, 3}), busy), "idle", &why) ==
        analysis::Label::measured_clean);
  CHECK(render::label_reason_text(why) == "1 of 3 settled load readings busy");
  CHECK(analysis::condition_label(result(settled({3, 1, 3}), calm), "idle", &why) ==
        analysis::Label::contended);
  CHECK(render::label_reason_text(why) ==
        "2 of 3 settled load readings: 2 other runnable task(s) now, 1-minute load average 0.50, on 2 "
        "logical CPUs");
  // ... and the benchmark's own run-queue delay outweighs both: starved is CONTENDED whatever the
  // readings said, measured and not starved is MEASURED-clean.
  const auto measured = [&](double run_s, double wait_s, int busy_settled) {
    json r = settled({busy_settled});
    r["condition_records"][0]["runs"] = {{{"invocation", 0},
                                          {"usage", {{"wall_s", run_s + wait_s}}},
                                          {"measured_by", "host"},
                                          {"run_queue", {{"run_s", run_s}, {"wait_s", wait_s}, {"tasks", 1}}},
                                          {"details", {{"affinity", "0"}}}}};
    return r;
  };
  CHECK(analysis::condition_label(result(measured(1.0, 1.0, 1), calm), "idle", &why) ==
        analysis::Label::contended);
  CHECK(render::label_reason_text(why) ==
        "starved: its threads waited for a CPU 50% of the time they were runnable");
  CHECK(analysis::condition_label(result(measured(1.0, 0.02, 3), busy), "idle", &why) ==
        analysis::Label::measured_clean);
  CHECK(render::label_reason_text(why) == "its threads waited for a CPU 2.0% of the time they were runnable");
  // The same rule as the doctor's finding on the same reading.
  fingerprint::LoadAverage reading;
  reading.one = 2.5;
  reading.running = 3;
  CHECK(fingerprint::judge_load(reading, 2).level == fingerprint::Level::bad);
  reading.running = 1;
  CHECK(fingerprint::judge_load(reading, 2).level == fingerprint::Level::warn);
  reading.one = 0.2;
  CHECK(fingerprint::judge_load(reading, 2).level == fingerprint::Level::ok);
  CHECK(analysis::condition_label(result(nullptr, {{"gotest", {{"cpu", "x"}}}}), "f", &why) ==
        analysis::Label::unknown);
  CHECK(render::label_reason_text(why) == "no load record");
  // Waits of its own threads for each other, with next to no other work beside them: said so.
  using Basis = analysis::LabelReason::Basis;
  analysis::LabelReason own{.basis = Basis::run_queue, .waited_percent = 31.25, .for_each_other = true};
  CHECK(render::label_reason_text(own) ==
        "its threads waited for a CPU 31.2% of the time they were runnable, for each other: no other work "
        "measured beside it");
  own.beside_s = 0.0123;
  CHECK(render::label_reason_text(own).ends_with(", for each other: other work ran only 12.3 ms beside it"));
  own.beside_s = 2.5;
  CHECK(render::label_reason_text(own).ends_with(", for each other: other work ran only 2.5 s beside it"));
  CHECK(render::label_reason_text({.basis = Basis::start_load}) == "the load when the run started");
  CHECK(render::label_reason_text({.basis = Basis::spinners, .spinners = 1}) == "1 spinner");
  CHECK(render::label_reason_text({}).empty());
  CHECK(analysis::to_string(analysis::Label::contended_paired) == "CONTENDED-PAIRED");

  analysis::CompareSettings st;
  st.old_labels = {{"idle", analysis::Label::measured_clean}};
  st.new_labels = {{"idle", analysis::Label::contended}};
  st.new_label_reasons = {{"idle", {.basis = analysis::LabelReason::Basis::spinners, .spinners = 2}}};
  const auto t = analysis::compare_samples(make("idle", "BenchmarkA", {1, 2, 3, 4, 5, 6}),
                                           make("idle", "BenchmarkA", {2, 3, 4, 5, 6, 7}), st);
  REQUIRE(t.rows.size() == 1);
  CHECK_FALSE(t.rows[0].compared);
  CHECK(t.rows[0].labels.differ());
  CHECK(render::not_compared_reason(t.rows[0]) ==
        "labels differ: old 'idle' is MEASURED-clean, new 'idle' is CONTENDED (2 spinners)");
  CHECK(render::label_differences(t) ==
        std::vector<std::string>{"old 'idle' is MEASURED-clean, new 'idle' is CONTENDED (2 spinners)"});
  const std::string text = render::compare_text(t);
  CHECK(text.find("no benchmark compared") != std::string::npos);
  CHECK(text.find("not compared (different labels") != std::string::npos);
  CHECK(json(t)["rows"][0]["label"].is_null());
  // Compared anyway when asked: the row says why, and no note blames a missing load record.
  st.allow_different_labels = true;
  const auto allowed = analysis::compare_samples(make("idle", "BenchmarkA", {1, 2, 3, 4, 5, 6}),
                                                 make("idle", "BenchmarkA", {2, 3, 4, 5, 6, 7}), st);
  REQUIRE(allowed.rows.size() == 1);
  CHECK(allowed.rows[0].compared);
  CHECK(render::label_reason(allowed.rows[0]) ==
        "old 'idle' is MEASURED-clean, new 'idle' is CONTENDED (2 spinners); compared "
        "because of --allow-different-labels");
  CHECK(render::not_compared_reason(allowed.rows[0]).empty());
  // One label on both sides: the row says what each side's rests on, once when they are the same.
  st.new_labels = {{"idle", analysis::Label::measured_clean}};
  st.old_label_reasons = {{"idle", {.basis = analysis::LabelReason::Basis::run_queue, .waited_percent = 2}}};
  const auto same = analysis::compare_samples(make("idle", "BenchmarkA", {1, 2, 3, 4, 5, 6}),
                                              make("idle", "BenchmarkA", {2, 3, 4, 5, 6, 7}), st);
  REQUIRE(same.rows.size() == 1);
  CHECK(same.rows[0].label == analysis::Label::measured_clean);
  CHECK(render::label_reason(same.rows[0]) ==
        "old: its threads waited for a CPU 2.0% of the time they were runnable; new: 2 spinners");
  st.new_label_reasons = st.old_label_reasons;
  CHECK(render::label_reason(analysis::compare_samples(make("idle", "BenchmarkA", {1, 2, 3}),
                                                       make("idle", "BenchmarkA", {2, 3, 4}), st)
                                 .rows[0]) ==
        "its threads waited for a CPU 2.0% of the time they were runnable");
  for (const auto& note : allowed.notes) CHECK(note.kind != analysis::CompareNote::Kind::unknown_label);
}

TEST_CASE("compare: benchmark-moving fingerprint differences mark the table not comparable") {
  analysis::CompareSettings st = demo_settings();
  st.differences = {{"host.cpu.model_name", "AMD EPYC", "Apple M4 Max", true},
                    {"host.hostname", "vm", "laptop", false},
                    {"toolchain.binary.sha256", std::string(64, 'a'), std::string(64, 'b'), true}};
  auto t = analysis::compare_samples(gotest_samples("idle", "compare/idle.txt"),
                                     gotest_samples("noisy", "compare/noisy.txt"), st);
  CHECK_FALSE(t.comparable);
  std::string text = render::compare_text(t);
  // The moving fields are the command's to say, once, on stderr; the page keeps the others.
  CHECK(text.find("NOT COMPARABLE") == std::string::npos);
  CHECK(text.find("host.cpu.model_name") == std::string::npos);
  CHECK(text.find("  host.hostname: vm → laptop\n") != std::string::npos);
  CHECK(max_columns(text) <= 80);
  CHECK(json(t)["comparable"] == false);
  st.allow_different_hosts = true;
  t = analysis::compare_samples(gotest_samples("idle", "compare/idle.txt"),
                                gotest_samples("noisy", "compare/noisy.txt"), st);
  text = render::compare_text(t);
  CHECK(text.find("NOT COMPARABLE") == std::string::npos);
  CHECK(json(t)["allow_different_hosts"] == true);
}

TEST_CASE("compare: a long benchmark name goes on its own line and the table stays within 80 columns") {
  const std::string name = "BenchmarkCRC32/poly=Castagnoli/size=32kB/align=1/with-a-long-tail";
  const auto t = analysis::compare_samples(make("x", name, {10, 11, 12, 13, 14, 15, 16, 17, 18, 19}),
                                           make("x", name, {20, 21, 22, 23, 24, 25, 26, 27, 28, 29}), {});
  const std::string text = render::compare_text(t);
  CHECK(max_columns(text) <= 80);
  CHECK(text.find("\nCRC32/poly=Castagnoli/size=32kB/align=1/with-a-long-tail\n  ") != std::string::npos);
}

TEST_CASE("compare: several conditions share one table per unit, as benchstat -col prints them") {
  std::vector<records::Sample> o, n;
  const std::vector<double> base = {10.0, 10.1, 10.2, 10.3, 10.4, 10.5, 10.6, 10.7, 10.8, 10.9};
  std::vector<double> slower;
  for (double v : base) slower.push_back(v * 1.2);
  append(o, make("idle", "BenchmarkA", base));
  append(o, make("noisy", "BenchmarkA", base));
  append(n, make("idle", "BenchmarkA", base));
  append(n, make("noisy", "BenchmarkA", slower));
  const std::string text = render::compare_text(analysis::compare_samples(o, n, {}));
  // One header (the conditions' labels above), one table: both conditions' rows in it.
  CHECK(text.find("idle: UNKNOWN") != std::string::npos);
  CHECK(text.find("noisy: UNKNOWN") != std::string::npos);
  const auto tables = [&] {
    std::size_t k = 0;
    for (std::size_t at = text.find("vs base"); at != std::string::npos; at = text.find("vs base", at + 1))
      ++k;
    return k;
  }();
  CHECK(tables == 1);
  const std::size_t idle = text.find("\nidle: A "), noisy = text.find("\nnoisy: A ");
  REQUIRE(idle != std::string::npos);
  REQUIRE(noisy != std::string::npos);
  CHECK(idle < noisy);
  CHECK(text.find("+20.00%", noisy) != std::string::npos);
}
