// Go benchmark output, all of it (issue 22): rows keyed by the configuration in force as well as the
// name, every unit of a line shown, units tidied and judged in their own direction, benchfmt's unit
// metadata honoured. Real captures of Go 1.19's standard library benchmarks are in
// tests/data/gotest/real (README there); the real benchstat's own figures for them are held by the
// end-to-end oracle test (tests/integration/e2e_benchstat_test.sh).
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string>

#include "analysis/analysis.hpp"
#include "analysis/compare.hpp"
#include "analysis/history.hpp"
#include "analysis/suite.hpp"
#include "analysis/verdict.hpp"
#include "model/go_config.hpp"
#include "model/units.hpp"
#include "parsers/gotest.hpp"
#include "render/compare.hpp"
#include "render/export.hpp"
#include "render/html.hpp"
#include "render/json.hpp"
#include "render/table.hpp"
#include "render/warnings.hpp"
#include "results/decode.hpp"
#include "test_support.hpp"
#include "text/units.hpp"

using namespace noisefloor;

namespace {

// The pk.txt of the issue: BenchmarkGet-8 in package a (~100 ns) and in package b (~300 ns).
std::string two_packages() {
  std::string out = "pkg: a\n";
  for (const char* v : {"99", "100", "101", "100", "99", "101"})
    out += std::string("BenchmarkGet-8 1000 ") + v + " ns/op\n";
  out += "pkg: b\n";
  for (const char* v : {"299", "300", "301", "300", "299", "301"})
    out += std::string("BenchmarkGet-8 1000 ") + v + " ns/op\n";
  return out;
}

records::Result file(const std::string& name, const std::string& text) {
  return results::decode_gotest_file(name, text);
}

records::Result real(const std::string& name) {
  return results::decode_gotest_file(name, testing::slurp(testing::kData + "/gotest/real/" + name));
}

const analysis::CompareRow* find_row(const analysis::CompareTable& t, const std::string& name,
                                     const std::string& config, const std::string& unit) {
  for (const auto& r : t.rows)
    if (r.name == name && model::config_label(r.config) == config && r.unit == unit) return &r;
  return nullptr;
}

std::string series(const char* name, std::initializer_list<double> values, const char* unit = "ns/op") {
  std::string out;
  for (double v : values) out += fmt::format("{} 1000 {} {}\n", name, v, unit);
  return out;
}

}  // namespace

TEST_CASE("go config: one canonical text per configuration, entries sorted by key") {
  const std::string text =
      model::config_text(std::map<std::string, std::string>{{"pkg", "a"}, {"goos", "linux"}});
  CHECK(text == "goos: linux\npkg: a");
  CHECK(model::config_text(model::ConfigEntries{{"pkg", "a"}, {"goos", "x"}, {"goos", "linux"}}) == text);
  CHECK(model::config_entries(text) == model::ConfigEntries{{"goos", "linux"}, {"pkg", "a"}});
  CHECK(model::config_value(text, "pkg") == "a");
  CHECK(model::config_value(text, "cpu").empty());
  CHECK(model::config_only(text, {"pkg"}) == "pkg: a");
  CHECK(model::config_label(text) == "goos: linux, pkg: a");
  // A line break, ESC or a non-ASCII space in a key or value is written out as in a name.
  CHECK(model::config_text(std::map<std::string, std::string>{{"note", "two\nlines"}}) ==
        "note: two\\x0alines");
  CHECK(model::config_text(std::map<std::string, std::string>{{"cpu\x1b[30m", "x\u00a0\u25b8"}}) ==
        "cpu\\x1b[30m: x\\u00a0\\u25b8");
  CHECK(model::config_entries("").empty());
}

TEST_CASE("units: tidied as benchunit tidies them, ns and MB tokens of the numerator") {
  CHECK(text::tidy_unit("ns/op") == std::pair<std::string, double>{"sec/op", 1e-9});
  CHECK(text::tidy_unit("MB/s") == std::pair<std::string, double>{"B/s", 1e6});
  CHECK(text::tidy_unit("user-ns/op") == std::pair<std::string, double>{"user-sec/op", 1e-9});
  CHECK(text::tidy_unit("p50-ns") == std::pair<std::string, double>{"p50-sec", 1e-9});
  CHECK(text::tidy_unit("ns/frame") == std::pair<std::string, double>{"sec/frame", 1e-9});
  CHECK(text::tidy_unit("p95-ns/STW") == std::pair<std::string, double>{"p95-sec/STW", 1e-9});
  CHECK(text::tidy_unit("op/ns") == std::pair<std::string, double>{"op/ns", 1.0});  // a denominator stays
  CHECK(text::tidy_unit("B/op") == std::pair<std::string, double>{"B/op", 1.0});
  CHECK(text::tidy_unit("frames/op") == std::pair<std::string, double>{"frames/op", 1.0});
  CHECK(text::tidy_unit("nsamples/op") == std::pair<std::string, double>{"nsamples/op", 1.0});  // not a token
}

TEST_CASE("units: which way is better, and what the words of a verdict are") {
  using model::Better;
  CHECK(model::better_of("ns/op") == Better::lower);
  CHECK(model::better_of("sec/op") == Better::lower);
  CHECK(model::better_of("B/op") == Better::lower);
  CHECK(model::better_of("allocs/op") == Better::lower);
  CHECK(model::better_of("MB/s") == Better::higher);
  CHECK(model::better_of("B/s") == Better::higher);
  CHECK(model::better_of("items_per_second") == Better::higher);  // Google Benchmark's rate counters
  CHECK(model::better_of("bytes_per_second") == Better::higher);
  CHECK(model::better_of("cpu-sec/op") == Better::lower);  // noisefloor's command metrics
  CHECK(model::better_of("us/op") == Better::lower);       // Google Benchmark's time units
  CHECK(model::better_of("cpu-ms/op") == Better::lower);
  CHECK(model::better_of("p50-ns") == Better::lower);  // a latency
  CHECK(model::better_of("frames/s") == Better::higher);
  CHECK(model::better_of("frames/op") == Better::unknown);
  CHECK(model::better_of("GCs/op") == Better::unknown);
  // Simulated counts (§3.17): less is better, and exact without any metadata when every sample
  // of every side is the same count; a measured count never is.
  CHECK(model::better_of("simulated-instructions/op") == Better::lower);
  CHECK(model::better_of("simulated-ll-misses/op") == Better::lower);
  const std::vector<double> same{7, 7, 7}, other{8, 8}, spread{7, 7, 8};
  CHECK(model::exact_samples("simulated-cycles/op", model::UnitMetadata{}, {same, other}));
  CHECK(model::exact_samples("simulated-cycles/op", model::UnitMetadata{}, {}));
  CHECK_FALSE(model::exact_samples("simulated-cycles/op", model::UnitMetadata{}, {same, spread}));
  CHECK_FALSE(model::exact_samples("instructions/op", model::UnitMetadata{}, {same, other}));
  CHECK_FALSE(model::assume_exact("simulated-cycles/op", model::UnitMetadata{}));
  model::UnitMetadata m;
  CHECK_FALSE(m.set("frames/op", "better", "higher"));
  CHECK_FALSE(m.set("ns/op", "assume", "exact"));  // kept under the tidied unit
  CHECK(model::better_of("frames/op", m) == Better::higher);
  CHECK(model::assume_exact("sec/op", m));
  CHECK(model::assume_exact("ns/op", m));
  CHECK(model::exact_samples("ns/op", m, {spread}));  // as the metadata says, whatever the samples
  CHECK(m.set("frames/op", "better", "lower") ==
        std::optional<std::string>("metadata better of unit frames/op already set to higher"));
  CHECK(model::better_of("frames/op", m) == Better::higher);  // the first value stays

  using model::Quantity;
  using stats::Verdict;
  CHECK(analysis::verdict_word(Verdict::slower, "B/s") ==
        analysis::Word::faster);  // a throughput that went up
  CHECK(analysis::verdict_word(Verdict::faster, "B/s") == analysis::Word::slower);
  CHECK(analysis::verdict_word(Verdict::faster, "sec/op") == analysis::Word::faster);
  CHECK(analysis::verdict_word(Verdict::faster, "allocs/op") == analysis::Word::better);
  CHECK(analysis::verdict_word(Verdict::slower, "B/op") == analysis::Word::worse);
  CHECK(analysis::verdict_word(Verdict::slower, "frames/op") ==
        analysis::Word::higher);  // no direction: no judgement
  CHECK(analysis::verdict_word(Verdict::faster, "frames/op") == analysis::Word::lower);
  CHECK(analysis::verdict_word(Verdict::slower, "frames/op", m) == analysis::Word::better);
  CHECK(analysis::verdict_word(Verdict::equivalent, "B/s") == analysis::Word::equivalent);
  CHECK(analysis::verdict_word(Verdict::inconclusive, "B/s") == analysis::Word::inconclusive);
  // Each word is said as its name.
  const std::vector<std::pair<analysis::Word, std::string_view>> said{
      {analysis::Word::faster, "faster"},         {analysis::Word::slower, "slower"},
      {analysis::Word::better, "better"},         {analysis::Word::worse, "worse"},
      {analysis::Word::lower, "lower"},           {analysis::Word::higher, "higher"},
      {analysis::Word::equivalent, "equivalent"}, {analysis::Word::inconclusive, "inconclusive"}};
  for (const auto& [word, name] : said) CHECK(analysis::to_string(word) == name);
}

TEST_CASE("Unit lines: benchfmt's metadata syntax") {
  const auto u = model::parse_unit_line("Unit frames/op better=higher assume=exact");
  REQUIRE(u);
  CHECK(u->unit == "frames/op");
  CHECK(u->pairs ==
        std::vector<std::pair<std::string, std::string>>{{"better", "higher"}, {"assume", "exact"}});
  CHECK(u->errors.empty());
  CHECK_FALSE(model::parse_unit_line("Units are fun"));
  CHECK_FALSE(model::parse_unit_line(" Unit x better=higher"));
  CHECK(model::parse_unit_line("Unit x oops")->errors == std::vector<std::string>{"expected key=value"});
  const auto out =
      parsers::parse_gotest("Unit ns/op better=higher\nUnit ns/op better=lower\nBenchmarkX 1 2 ns/op\n");
  CHECK(out.units.get("sec/op", "better") == "higher");
  CHECK(out.unit_errors ==
        std::vector<std::string>{"line 2: metadata better of unit ns/op already set to higher"});
}

TEST_CASE("go test ./...: each result keeps the configuration it was printed under") {
  const auto out = parsers::parse_gotest(
      "goos: linux\npkg: a\nBenchmarkGet-8 1 1 ns/op\npkg: b\nBenchmarkGet-8 1 3 ns/op\n"
      "pkg:\nBenchmarkGet-8 1 5 ns/op\n");
  REQUIRE(out.measurements.size() == 3);
  CHECK(out.measurements[0].config == "goos: linux\npkg: a");
  CHECK(out.measurements[1].config == "goos: linux\npkg: b");
  CHECK(out.measurements[2].config == "goos: linux");  // an empty value deletes the key
}

TEST_CASE("go test ./...: the same name in two packages is two rows (the issue's pk.txt)") {
  auto r = file("pk.txt", two_packages());
  // pkg varies within the file: it tells rows apart, it is no fact of the room.
  CHECK(r.fingerprint.gotest.count("pkg") == 0);
  const auto a = analysis::analyze({r});
  REQUIRE(a.table.rows.size() == 2);
  CHECK(a.table.config_keys == std::set<std::string>{"pkg"});
  CHECK(a.table.rows[0].summary.n == 6);
  CHECK(a.table.rows[0].summary.median == 100);
  CHECK(a.table.rows[1].summary.median == 300);
  CHECK(analysis::display_name(a.table.rows[0]) == "BenchmarkGet-8 (pkg: a)");
  CHECK(a.table.rows[1].summary.band == stats::Band::excellent);
  const std::string text = render::table_text(a.table);
  // One condition: a table per package and unit, as benchstat prints a file.
  CHECK(text.find("pkg: a\nns/op ") != std::string::npos);
  CHECK(text.find("pkg: b\nns/op ") != std::string::npos);
  CHECK(text.find("\nGet-8        6      100.0    0.8944    0.89      100.0 ± 1.0%  excellent\n") !=
        std::string::npos);
  CHECK(text.find("\nGet-8        6      300.0    0.8944    0.30      300.0 ± 0.3%  excellent\n") !=
        std::string::npos);
  CHECK(text.find("  do not trust\n") ==
        std::string::npos);  // no row is banded so (the legend names the band)
  // Every format says which package a row is.
  CHECK(render::table_markdown(a.table).find("BenchmarkGet-8 (pkg: b)") != std::string::npos);
  CHECK(render::table_csv(a.table).find(",pkg: a,false,,,false\n") != std::string::npos);
  const auto json = nlohmann::json(a.table);
  CHECK(json["rows"][1]["config"] == nlohmann::json{{"pkg", "b"}});
  // The report: a section of plots per package, never one of both.
  const std::string html = render::html(a, "test");
  CHECK(html.find("<h2>BenchmarkGet-8 (pkg: a) <small>(ns/op)</small></h2>") != std::string::npos);
  CHECK(html.find("<h2>BenchmarkGet-8 (pkg: b) <small>(ns/op)</small></h2>") != std::string::npos);
}

TEST_CASE("go test ./...: the gotest export keeps the configuration, so a reader keys the same rows") {
  const auto a = analysis::analyze({file("pk.txt", two_packages())});
  const std::string exported = render::export_as(a, model::PrintFormat::gotest);
  CHECK(exported.find("pkg: a\nBenchmarkGet-8\t1000\t99 ns/op") != std::string::npos);
  CHECK(exported.find("pkg: b\nBenchmarkGet-8\t1000\t299 ns/op") != std::string::npos);
  const auto again = analysis::analyze({file("all.txt", exported)});
  REQUIRE(again.table.rows.size() == 2);
  CHECK(again.table.rows[0].values == a.table.rows[0].values);
  CHECK(again.table.rows[1].values == a.table.rows[1].values);
}

TEST_CASE("compare: rows are matched by package; the same name in two packages is two rows") {
  const auto t = analysis::compare_results(real("bytes_strings_benchmem.old.txt"),
                                           real("bytes_strings_benchmem.new.txt"), 0.01, false);
  CHECK(t.config_keys == std::set<std::string>{"pkg"});
  CHECK(t.rows.size() == 17 * 2 * 3);  // 17 names in bytes and in strings, ns/op B/op allocs/op
  const auto* bytes = find_row(t, "BenchmarkTrimSpace/ASCII-2", "pkg: bytes", "sec/op");
  const auto* strings = find_row(t, "BenchmarkTrimSpace/ASCII-2", "pkg: strings", "sec/op");
  REQUIRE(bytes);
  REQUIRE(strings);
  CHECK(bytes->old_side.summary.n == 6);
  CHECK(strings->old_side.summary.n == 6);
  CHECK(bytes->old_side.center != strings->old_side.center);
  CHECK(bytes->recorded_units == std::vector<std::string>{"ns/op"});
  const std::string text = render::compare_text(t);
  CHECK(text.find("\npkg: bytes\n") != std::string::npos);
  CHECK(text.find("\npkg: strings\n") != std::string::npos);
  // Two sides each of one package: pkg describes the sides, the rows are matched without it.
  const auto vs = analysis::compare_results(real("bytes_vs_strings.old.txt"),
                                            real("bytes_vs_strings.new.txt"), 0.01, false);
  CHECK(vs.config_keys.empty());
  CHECK(vs.rows.size() == 21 * 3);
  CHECK(std::any_of(vs.notes.begin(), vs.notes.end(), [](const analysis::CompareNote& n) {
    return n.kind == analysis::CompareNote::Kind::configs_differ &&
           render::compare_note_text(n).find(
               "printed under different configurations (pkg: bytes → strings)") != std::string::npos;
  }));
}

TEST_CASE("compare: a cpu: or goos: line on one side only does not make the rooms differ") {
  const std::string body = series("BenchmarkA-2", {100, 101, 99, 100, 102, 98});
  const auto t = analysis::compare_results(file("old.txt", "goos: linux\ncpu: Xeon\n" + body),
                                           file("new.txt", "goos: linux\n" + body), 0.01, false);
  CHECK(t.comparable);
  REQUIRE(t.rows.size() == 1);
  CHECK(t.rows[0].compared);
  const auto moved = analysis::compare_results(file("old.txt", "cpu: Xeon\n" + body),
                                               file("new.txt", "cpu: EPYC\n" + body), 0.01, false);
  CHECK_FALSE(moved.comparable);  // both recorded a cpu, and they differ
}

TEST_CASE("compare: ns/op on one side meets sec/op on the other, in seconds") {
  const auto t = analysis::compare_results(
      file("old.txt", series("BenchmarkA", {100, 101, 99, 100, 102, 98})),
      file("new.txt", series("BenchmarkA", {2e-7, 2.01e-7, 1.99e-7, 2e-7, 2.02e-7, 1.98e-7}, "sec/op")), 0.01,
      false);
  REQUIRE(t.rows.size() == 1);
  const auto& r = t.rows[0];
  CHECK(r.unit == "sec/op");
  CHECK(r.recorded_units == std::vector<std::string>{"ns/op", "sec/op"});
  CHECK(r.old_side.center == doctest::Approx(1.0e-7));
  CHECK(render::benchstat_delta(r) == "+100.00%");
  CHECK(r.verdict_word() == analysis::Word::slower);
  // A time in another numerator: *-ns/op becomes *-sec/op.
  const auto u = analysis::compare_results(
      file("old.txt", series("BenchmarkA", {14.82e9, 14.8e9, 14.9e9}, "user-ns/op")),
      file("new.txt", series("BenchmarkA", {14.82, 14.8, 14.9}, "user-sec/op")), 0.01, false);
  REQUIRE(u.rows.size() == 1);
  CHECK(u.rows[0].unit == "user-sec/op");
  CHECK(text::scale_values({u.rows[0].old_side.center}, u.rows[0].unit)[0] == "14.82");
}

TEST_CASE("compare: a throughput gain is faster, its unit's direction decides every word") {
  std::string o, n;
  for (double v : {2.0, 2.1, 1.95, 2.05, 2.0, 1.98})
    o += fmt::format("BenchmarkCopy-8 100 500 ns/op {} MB/s\n", v * 1073.741824);
  for (double v : {8.4, 8.5, 8.3, 8.45, 8.35, 8.42})
    n += fmt::format("BenchmarkCopy-8 100 125 ns/op {} MB/s\n", v * 1073.741824);
  const auto t = analysis::compare_results(file("old.txt", o), file("new.txt", n), 0.01, false);
  const auto* bps = find_row(t, "BenchmarkCopy-8", "", "B/s");
  REQUIRE(bps);
  CHECK(bps->better == model::Better::higher);
  CHECK(bps->verdict_word() == analysis::Word::faster);
  CHECK(analysis::movement(bps->verdict) == analysis::Word::higher);
  const std::string text = render::compare_text(t);
  CHECK(text.find("slower") == std::string::npos);
  CHECK(nlohmann::json(t)["rows"][1]["verdict"] == "faster");
  // A unit with no known direction is never faster or slower.
  const auto f = analysis::compare_results(
      file("old.txt", series("BenchmarkF", {10, 11, 10, 12, 11, 10}, "frames/op")),
      file("new.txt", series("BenchmarkF", {20, 21, 20, 22, 21, 20}, "frames/op")), 0.01, false);
  REQUIRE(f.rows.size() == 1);
  CHECK(f.rows[0].verdict_word() == analysis::Word::higher);
}

TEST_CASE("compare: the p slot is benchstat's p and its decision; Holm's is labelled apart") {
  // Three rows of one unit: Holm multiplies the smallest p by 3.
  std::string o, n;
  o += series("BenchmarkA", {100, 101, 102, 103, 104, 105, 106, 107, 108, 109});
  n += series("BenchmarkA", {95, 96, 97, 98, 99, 100, 101, 102, 103, 104});
  o += series("BenchmarkB", {100, 101, 102, 103, 104, 105, 106, 107, 108, 109});
  n += series("BenchmarkB", {100, 101, 102, 103, 104, 105, 106, 107, 108, 109});
  o += series("BenchmarkC", {100, 101, 102, 103, 104, 105, 106, 107, 108, 109});
  n += series("BenchmarkC", {101, 102, 103, 104, 105, 106, 107, 108, 109, 110});
  const auto t = analysis::compare_results(file("old.txt", o), file("new.txt", n), 0.01, false);
  const auto* a = find_row(t, "BenchmarkA", "", "sec/op");
  REQUIRE(a);
  CHECK(a->p_slot == a->test.p_benchstat);
  CHECK(a->significant == (a->test.p_benchstat <= 0.05));
  CHECK(a->p_adjusted >= a->test.p_benchstat);
  CHECK(render::benchstat_p_text(*a) == fmt::format("p={:.3f} n=10", a->test.p_benchstat));
  if (a->significant) CHECK(render::benchstat_delta(*a) != "~");
  const std::string text = render::compare_text(t);
  if (a->p_adjusted != a->p_slot)
    CHECK(text.find(fmt::format("Holm p={:.3f}", a->p_adjusted)) != std::string::npos);
}

TEST_CASE("compare: Unit <unit> assume=exact: the mode, no test, the delta always (as benchstat)") {
  const std::string meta = "Unit allocs/op assume=exact\n";
  const auto t =
      analysis::compare_results(file("old.txt", meta + "BenchmarkX 1 100 ns/op 20 allocs/op\n"),
                                file("new.txt", "BenchmarkX 1 105 ns/op 21 allocs/op\n"), 0.01, false);
  const auto* r = find_row(t, "BenchmarkX", "", "allocs/op");
  REQUIRE(r);
  CHECK(r->exact);
  CHECK(render::benchstat_delta(*r) == "+5.00%");
  CHECK(render::benchstat_p_text(*r) == "n=1");
  CHECK(render::benchstat_pct_range(r->old_side) == "0%");
  CHECK(r->verdict_word() == analysis::Word::worse);
  // The sec/op row of the same line is not exact: one sample a side has no interval and no test.
  const auto* s = find_row(t, "BenchmarkX", "", "sec/op");
  REQUIRE(s);
  CHECK_FALSE(s->exact);
  CHECK(render::benchstat_pct_range(s->old_side) == "∞");
  CHECK(render::benchstat_delta(*s) == "~");
}

TEST_CASE("cv: every metric of a line is a row, the primary one first") {
  const auto a = analysis::analyze({results::decode_gotest_file(
      "idle.txt", testing::slurp(testing::kData + "/gotest/makebuffer_benchmem_count3.txt"))});
  REQUIRE(!a.table.rows.empty());
  CHECK(a.table.rows.front().unit == "ns/op");
  const auto all = analysis::all_rows(a.table);
  REQUIRE(all.size() == 3 * a.table.rows.size());
  CHECK(all[0]->unit == "ns/op");
  CHECK(all[1]->unit == "B/op");
  CHECK(all[2]->unit == "allocs/op");
  CHECK(all[1]->metric == 1);
  const std::string text = render::table_text(a.table);
  CHECK(text.find("\nB/op ") != std::string::npos);
  CHECK(text.find("\nallocs/op ") != std::string::npos);
  const std::string csv = render::table_csv(a.table);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == static_cast<long>(1 + all.size()));
}

TEST_CASE("cv: an exact unit shows its mode and range, as benchstat") {
  const auto a =
      analysis::analyze({file("x.txt",
                              "Unit allocs/op assume=exact\nBenchmarkX 1 10 ns/op 5 allocs/op\n"
                              "BenchmarkX 1 11 ns/op 5 allocs/op\nBenchmarkX 1 12 ns/op 7 allocs/op\n")});
  REQUIRE(a.table.other_metrics.size() == 1);
  const auto& r = a.table.other_metrics[0];
  CHECK(r.exact);
  CHECK(r.mode == 5);
  CHECK(render::row_center_text(r) == "5.000 ± 40% exact");
}

TEST_CASE("history: a throughput that rose is faster; rows are matched by their key") {
  auto run = [](const std::string& id, double scale, const std::string& started) {
    std::string text = "goos: linux\npkg: a\n";
    for (double v : {100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 100.1, 99.9, 100.3, 99.7})
      text += fmt::format("BenchmarkCopy-8 100 {} MB/s\n", v * scale);
    text += "pkg: b\n";
    for (double v : {100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 100.1, 99.9, 100.3, 99.7})
      text += fmt::format("BenchmarkCopy-8 100 {} MB/s\n", v);
    auto r = results::decode_gotest_file("bench.txt", text);  // one condition name for both runs
    r.label = id;
    records::RunRecord rec;
    rec.run_id = id;
    rec.started_utc = started;
    r.run = rec;
    return r;
  };
  const auto h =
      analysis::history({run("r1", 1.0, "2026-01-01T00:00:00Z"), run("r2", 1.5, "2026-01-02T00:00:00Z")});
  REQUIRE(h.runs.size() == 2);
  REQUIRE(h.runs[1].cells.size() == 2);
  const auto& a = h.runs[1].cells[0];
  const auto& b = h.runs[1].cells[1];
  CHECK(a.name == "BenchmarkCopy-8 (pkg: a)");
  CHECK(a.change.kind == analysis::ChangeKind::higher);
  CHECK(a.change.word == analysis::Word::faster);
  CHECK(a.change.improvement);
  CHECK_FALSE(a.change.regression);
  CHECK(b.change.kind == analysis::ChangeKind::unchanged);
}

TEST_CASE("table: Google Benchmark's thread count is called so, not GOMAXPROCS") {
  std::vector<records::Sample> samples;
  for (const auto& [name, threads] : {std::pair{"BM_Pi/threads:1", 1}, std::pair{"BM_Pi/threads:2", 2}}) {
    records::Sample s;
    s.condition = "c";
    s.benchmark = s.name = name;
    s.procs = threads;
    s.metrics = {{1.0, "ns/op"}};
    samples.push_back(s);
  }
  const auto t = analysis::build_table(samples, {"c"});
  // Each thread count is an instance of its own, its count on every line: no GOMAXPROCS note.
  for (const auto& note : render::table_notes(t))
    CHECK(note.find("differs between rows") == std::string::npos);
  CHECK(analysis::threads_not_procs(t));
  const std::string text = render::table_text(t);
  CHECK(text.find("threads") != std::string::npos);
  CHECK(text.find("GOMAXPROCS") == std::string::npos);
}
