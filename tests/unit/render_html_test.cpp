// render/html and render/svg: the page of the committed small result (tests/data/results/small:
// 3 conditions x 2 benchmarks x (1 warm-up + 8 kept) samples) is self-contained, has one mark
// per sample in every plot, accessible plots, and the facts in text.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "analysis/analysis.hpp"
#include "render/html.hpp"
#include "render/json.hpp"
#include "render/svg.hpp"
#include "test_support.hpp"

using namespace noisefloor;
using nlohmann::json;

namespace {

using testing::kSmall;
using testing::load_small;
using testing::slurp;

analysis::Analysis data_of(std::vector<records::Result> sources, bool allow = false) {
  return analysis::analyze(std::move(sources), allow);
}

std::string page(const analysis::Analysis& d) { return render::html(d, "noisefloor test"); }

std::size_t count(const std::string& haystack, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = haystack.find(needle); pos != std::string::npos;
       pos = haystack.find(needle, pos + needle.size()))
    ++n;
  return n;
}

// The text of every <svg ...>...</svg> whose opening tag contains `marker`.
std::vector<std::string> svgs_with(const std::string& html, const std::string& marker) {
  std::vector<std::string> out;
  for (auto pos = html.find("<svg "); pos != std::string::npos; pos = html.find("<svg ", pos + 1)) {
    const auto tag_end = html.find('>', pos);
    const auto end = html.find("</svg>", pos);
    if (html.substr(pos, tag_end - pos).find(marker) != std::string::npos)
      out.push_back(html.substr(pos, end - pos));
  }
  return out;
}

}  // namespace

TEST_CASE("render html: self-contained: no script, no external reference, a CSP that forbids fetches") {
  const std::string html = page(data_of({load_small()}));
  CHECK(html.rfind("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n", 0) == 0);
  CHECK(html.find("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
                  "'unsafe-inline'; img-src data:\">") != std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("url(") == std::string::npos);
  CHECK(html.find("@import") == std::string::npos);
  // The only URL is the SVG namespace name, which is never fetched.
  CHECK(count(html, "http://") == count(html, "xmlns=\"http://www.w3.org/2000/svg\""));
  CHECK(html.find("https://") == std::string::npos);
  CHECK(html.find(" src=") == std::string::npos);
  CHECK(std::regex_search(html, std::regex("href=\"[^#]")) == false);
  CHECK(html.size() < 120000);
}

TEST_CASE("render html: header facts in text") {
  const std::string html = page(data_of({load_small()}));
  CHECK(html.find("<title>small — noisefloor report</title>") != std::string::npos);
  CHECK(
      html.find(
          "<h1>small</h1>\n<p class=\"description\">BenchmarkMakeBuffer_Correct and BenchmarkMakeBuffer_DCE, "
          "8 samples") != std::string::npos);
  CHECK(html.find("<dt>Date</dt><dd>2026-11-30T05:04:35Z (run 20261130T050436Z, complete)</dd>") !=
        std::string::npos);
  CHECK(html.find(
            "<dt>Host</dt><dd>vm · AMD EPYC · 2 CPUs · Linux 6.18.44-fc-v669 x86_64 · Debian GNU/Linux 12 "
            "(bookworm)</dd>") != std::string::npos);
  CHECK(html.find("<dt>Doctor</dt><dd>not checked</dd>") != std::string::npos);
  CHECK(html.find("<dt>Report by</dt><dd>noisefloor test</dd>") != std::string::npos);
}

TEST_CASE("render html: the doctor's grade, reasons and findings when the fingerprint has them") {
  auto s = load_small();
  s.fingerprint.doctor = fingerprint::DoctorReport{
      {{fingerprint::Level::warn, fingerprint::Topic::aslr, "ASLR is on", "setarch -R <cmd>"},
       {fingerprint::Level::ok, fingerprint::Topic::smt, "SMT is off", ""}},
      fingerprint::Grade::limited,
      {"a virtual machine (KVM)", "load 1.4"}};
  const std::string html = page(data_of({s}));
  CHECK(html.find("<dt>Doctor</dt><dd>limited: a virtual machine (KVM); load 1.4\n<details><summary>Findings"
                  "</summary>\n<ul class=\"notes\">\n<li><strong>WARN</strong> aslr: ASLR is on<br>fix: "
                  "<code>setarch -R &lt;cmd&gt;</code></li>\n</ul>\n</details></dd>") != std::string::npos);
  CHECK(html.substr(0, html.find("</header>")).find("SMT is off") == std::string::npos);  // OK: not listed
}

TEST_CASE(
    "render html: the condition table has one row per condition, benchmark and metric, bands coloured and "
    "named") {
  const std::string html = page(data_of({load_small()}));
  CHECK(count(html, "<tr data-condition=") == 18);  // 6 rows × ns/op, B/op and allocs/op
  CHECK(count(html, "<td class=\"band band-do-not-trust\">do not trust</td>") == 5);
  CHECK(count(html, "<td class=\"band band-noisy\">noisy</td>") == 1);
  CHECK(html.find("<td class=\"num\">34.41 ± 45.8%</td>") !=
        std::string::npos);  // benchstat's interval at n = 8
  CHECK(html.find(">2 outliers</abbr>, <abbr") != std::string::npos);
  CHECK(html.find("<dt>drift</dt><dd>lag-1 autocorrelation above 2/√n") != std::string::npos);
  CHECK(html.find("<li>GOMAXPROCS differs between rows (1, 2): compare CVs, not means</li>") !=
        std::string::npos);
}

TEST_CASE("render html: per benchmark a strip plot and a run-order plot with one mark per sample") {
  const std::string html = page(data_of({load_small()}));
  // idle and noisy ran BenchmarkX-2 (GOMAXPROCS 2), pinned to one CPU ran BenchmarkX (GOMAXPROCS
  // 1): one benchmark in three conditions, the counts in its title, one set of plots each.
  CHECK(html.find("<h2>BenchmarkMakeBuffer_Correct (GOMAXPROCS: idle 2, noisy 2, pinned 1) <small>") !=
        std::string::npos);
  CHECK(html.find("<h2>BenchmarkMakeBuffer_DCE (GOMAXPROCS: idle 2, noisy 2, pinned 1) <small>") !=
        std::string::npos);
  for (const char* kind : {"data-plot=\"strip\"", "data-plot=\"run-order\""}) {
    const auto plots = svgs_with(html, kind);
    REQUIRE(plots.size() == 2);
    for (std::size_t i = 0; i < plots.size(); ++i) {
      const auto& p = plots[i];
      const int conditions = 3;
      CHECK(count(p, "data-sample=") == 9 * conditions);  // 8 kept + 1 warm-up each
      CHECK(count(p, "data-warmup=\"true\"") == conditions);
      CHECK(count(p, "data-median=") == conditions);
      CHECK(p.find("role=\"img\"") != std::string::npos);
      CHECK(std::regex_search(p, std::regex("aria-labelledby=\"(p\\d[so])-t \\1-d\"")));
      CHECK(std::regex_search(p, std::regex("<title id=\"p\\d[so]-t\">BenchmarkMakeBuffer_")));
      CHECK(std::regex_search(p,
                              std::regex("<desc id=\"p\\d[so]-d\">[^<]*: 8 samples plus 1 warm-up, median")));
    }
  }
  // Every sample's value is also text: a tooltip and a cell of the samples table.
  CHECK(html.find("<title>idle #0: 52.86 ns/op (warm-up, not in the statistics)</title>") !=
        std::string::npos);
  CHECK(html.find("<td class=\"num warm\">52.86 (warm-up)</td>") != std::string::npos);
  CHECK(count(svgs_with(html, "data-plot=\"strip\"")[0], "data-ci=") == 3);
}

TEST_CASE("render html: a paired design's variants get one series each (condition colour, variant shape)") {
  auto s = load_small();
  auto edited = s.samples.to_vector();
  for (auto& sample : edited)
    if (sample.condition == "idle") sample.variant = sample.index < 5 ? "old" : "new";
  s.samples = edited;
  const std::string html = page(data_of({s}));
  for (const char* kind : {"data-plot=\"strip\"", "data-plot=\"run-order\""}) {
    const auto plots = svgs_with(html, kind);
    REQUIRE(plots.size() == 2);
    CHECK(count(plots[0], "data-sample=") == 27);
    CHECK(count(plots[0], "data-median=") == 4);  // idle · old, idle · new, noisy, pinned
    CHECK(count(plots[0], "data-sample=\"idle/old#") == 5);
    CHECK(count(plots[0], "data-sample=\"idle/new#") == 4);
    CHECK(plots[0].find(">idle · old</text>") != std::string::npos);
  }
  // idle · old holds the warm-up and kept samples 1..4: n = 4, below the 6 a median CI needs.
  CHECK(html.find("idle · old: 4 samples plus 1 warm-up, median") != std::string::npos);
}

TEST_CASE("render html: the sample table keeps a column per variant when they share repeat numbers") {
  auto s = load_small();
  // A paired design numbers each variant's samples by repeat: both variants have #0, #1, ...
  auto edited = s.samples.to_vector();
  for (auto& sample : edited)
    if (sample.condition == "idle") {
      sample.variant = sample.index % 2 == 0 ? "old" : "new";
      sample.index /= 2;
    }
  s.samples = edited;
  const std::string html = page(data_of({s}));
  CHECK(html.find("<th scope=\"col\">idle · old</th><th scope=\"col\">idle · new</th>") != std::string::npos);
  // Each of idle's 10 samples is in the table once (before, "new" overwrote "old" at each #).
  for (const auto& sample : s.samples)
    if (sample.condition == "idle")
      CHECK(html.find(fmt::format("<td class=\"num{}\">{}", sample.warmup ? " warm" : "",
                                  sample.metrics.front().value)) != std::string::npos);
}

TEST_CASE("render html: the page of the small result is its golden file, byte for byte") {
  // Deterministic (no time, no address, no random choice in the page) and unchanged unless on
  // purpose: tests/data/golden/report.small.html (rewrite with NF_UPDATE_GOLDEN=1, then review).
  testing::check_golden("report.small.html", page(data_of({load_small()})));
}

TEST_CASE("render html: user text is escaped") {
  auto s = load_small();
  auto edited = s.samples.to_vector();
  for (auto& sample : edited)
    if (sample.condition == "idle") sample.condition = "<b>&\"idle\"";
  s.samples = edited;
  s.conditions[0] = "<b>&\"idle\"";
  s.run->description = "a <script>alert(1)</script> & more";
  const std::string html = page(data_of({s}));
  CHECK(html.find("<b>") == std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("a &lt;script&gt;alert(1)&lt;/script&gt; &amp; more") != std::string::npos);
  CHECK(html.find("data-condition=\"&lt;b&gt;&amp;&quot;idle&quot;\"") != std::string::npos);
}

TEST_CASE("render html: paired ratios with the A/A band and tables") {
  records::Result r;
  r.label = "p";
  r.conditions = {"idle"};
  r.run.emplace();
  r.run->comparison = records::ComparisonSettings{"old", true, 0.03, false};
  // ratios 0.90, 0.95, 0.92, 0.93; and an A/A pair within ±0.1%
  std::vector<records::Sample> samples;
  testing::add_pair(samples, "idle", "new", "new", {100, 100, 100, 100}, {90, 95, 92, 93}, "old",
                    "BenchmarkX");
  testing::add_pair(samples, "idle", "A/A", "old'", std::vector<double>(6, 100),
                    {100.1, 99.9, 100.05, 99.95, 100.0, 100.02}, "old", "BenchmarkX");
  r.samples = samples;
  const std::string html = page(data_of({r}));
  const auto plots = svgs_with(html, "data-plot=\"ratio\"");
  REQUIRE(plots.size() == 1);
  CHECK(count(plots[0], "data-sample=") == 10);
  CHECK(count(plots[0], "data-aa-band=") == 2);  // theta of (idle, BenchmarkX) on both rows
  CHECK(count(plots[0], "data-gm=") == 2);
  CHECK(plots[0].find("<title>A/A band: 1 ± 0.0300 (differences inside it are noise)</title>") !=
        std::string::npos);
  CHECK(html.find("<a href=\"#paired\">Paired</a>") != std::string::npos);
  // The geometric mean of the ratios and its t interval on the logs, df = 3.
  CHECK(html.find("<td class=\"num\">0.9248</td><td class=\"num\">[0.8923, 0.9586]</td>") !=
        std::string::npos);
  CHECK(html.find("<td class=\"outcome-pass\">PASS</td>") != std::string::npos);
}

TEST_CASE("render html: no paired section without paired data") {
  const std::string html = page(data_of({load_small()}));
  CHECK(html.find("id=\"paired\"") == std::string::npos);
  CHECK(svgs_with(html, "data-plot=\"ratio\"").empty());
}

// The contents links every section the page has, and only those: a run whose counters were
// missing, with no sentence of why the numbers moved, still has its "Why" section (it says what
// was not counted), so it is linked.
TEST_CASE("render html: the contents links the Why section exactly when the page has it") {
  analysis::Analysis d = data_of({load_small()});
  const auto linked = [](const std::string& html) {
    return html.find("<a href=\"#why\">Why</a>") != std::string::npos;
  };
  const std::string none = page(d);
  CHECK(none.find("id=\"why\"") == std::string::npos);
  CHECK_FALSE(linked(none));
  d.diagnosis.missing.gaps = {{.counters = {"instructions", "cycles"}, .why = "no PMU"}};
  const std::string missing = page(d);
  CHECK(missing.find("<section id=\"why\">") != std::string::npos);
  CHECK(missing.find("<li>not counted: instructions, cycles: no PMU</li>") != std::string::npos);
  CHECK(linked(missing));
}

TEST_CASE("render html: merged results show differences and say not comparable unless allowed") {
  auto a = load_small();
  auto b = load_small();
  a.label = "a";
  b.label = "b";
  nlohmann::json toolchain = b.fingerprint.toolchain.document();
  toolchain["go"]["version"]["value"] = "go1.22.0";
  b.fingerprint.toolchain = fingerprint::FactTree(toolchain);
  const std::string html = page(data_of({a, b}));
  CHECK(html.find("Not comparable: the merged results come from different hosts") != std::string::npos);
  CHECK(html.find(
            "<tr class=\"moves\"><td>toolchain.go.version</td><td>go1.19.8</td><td>go1.22.0</td><td>b</td>"
            "<td>⚠ yes</td></tr>") != std::string::npos);
  CHECK(count(html, "<summary>Fingerprint of ") == 2);
  CHECK(count(svgs_with(html, "data-plot=\"strip\"")[0], "data-sample=") ==
        54);  // a and b: idle, noisy, pinned
  const std::string allowed = page(data_of({a, b}, true));
  CHECK(allowed.find("Not comparable") == std::string::npos);
  CHECK(allowed.find("Compared anyway (--allow-different-hosts)") != std::string::npos);
}

TEST_CASE("render html: the full fingerprint is in a collapsed details element, unknown facts say why") {
  const std::string html = page(data_of({load_small()}));
  CHECK(html.find("<details>\n<summary>Full fingerprint (") != std::string::npos);
  CHECK(html.find("<tr><td>host.cpu.model_name</td><td>AMD EPYC</td></tr>") != std::string::npos);
  CHECK(html.find("<tr><td>host.frequency.amd_pstate_status</td><td><span class=\"unknown\">unknown (missing "
                  "/sys/devices/system/cpu/amd_pstate/status)</span></td></tr>") != std::string::npos);
}

TEST_CASE("svg: jitter is a fixed hash in [-0.5, 0.5)") {
  // One SplitMix64 draw seeded by the position (V15: seed 0 first gives 0xe220a8397b1dcdaf).
  CHECK(render::svg::jitter(0, 0) == 0.3833108082136426);
  CHECK(render::svg::jitter(3, 5) == 0.038573117643415866);
  CHECK(render::svg::jitter(0, 1) != render::svg::jitter(0, 0));
  CHECK(render::svg::jitter(1, 0) != render::svg::jitter(0, 0));
  double lo = 1, hi = -1, sum = 0;
  for (int i = 0; i < 1000; ++i) {
    const double j = render::svg::jitter(3, i);
    lo = std::min(lo, j), hi = std::max(hi, j), sum += j;
  }
  CHECK(lo >= -0.5);
  CHECK(hi < 0.5);
  CHECK(lo < -0.45);  // spread over the whole band
  CHECK(hi > 0.45);
  CHECK(std::abs(sum / 1000) < 0.05);
}

TEST_CASE("svg: nice ticks") {
  const auto t = render::svg::nice_ticks(15.12, 23.23);
  CHECK(t.step == 2);
  CHECK(t.values == std::vector<double>{14, 16, 18, 20, 22, 24});
  CHECK(t.decimals == 0);
  const auto r = render::svg::nice_ticks(0.9, 1.06);
  CHECK(r.step == doctest::Approx(0.05));
  CHECK(r.values.size() == 5);  // 0.9 .. 1.1
  CHECK(r.decimals == 2);
  CHECK(render::svg::format_tick(r.values[1], r.decimals) == "0.95");
  const auto q = render::svg::nice_ticks(0, 10, 4);
  CHECK(q.step == 2.5);
  CHECK(q.decimals == 1);
  CHECK(render::svg::format_tick(100, 0) == "100");
  CHECK(render::svg::format_tick(15000, 0) == "15k");
  CHECK(render::svg::format_tick(2.5e8, 0) == "250M");
  CHECK(render::svg::format_tick(1.75e9, 0) == "1.75G");
  CHECK(render::svg::format_tick(-2e6, 0) == "-2M");
}

TEST_CASE("svg: markers, shapes and palette") {
  using render::svg::Shape;
  CHECK(render::svg::colour_for(0) == "#0072B2");
  CHECK(render::svg::colour_for(8) == "#0072B2");
  CHECK(render::svg::shape_for(1) == Shape::square);
  CHECK(render::svg::shape_for(6) == Shape::circle);
  CHECK(render::svg::marker(Shape::circle, "#0072B2", 10, 20.26, 4.5, false, " data-sample=\"x\"", "a<b") ==
        "<circle cx=\"10\" cy=\"20.3\" r=\"4.5\" fill=\"#0072B2\" stroke=\"#fff\" stroke-width=\"0.6\" "
        "data-sample=\"x\"><title>a&lt;b</title></circle>");
  CHECK(render::svg::marker(Shape::square, "#000", 10, 10, 5, true) ==
        "<rect x=\"5.5\" y=\"5.5\" width=\"9\" height=\"9\" fill=\"#fff\" stroke=\"#000\" "
        "stroke-width=\"1.6\"/>");
}

TEST_CASE("render html: the run order lists every block as it ran, settled load and spinner share") {
  auto r = load_small();
  // An interleaved run: idle, noisy, idle, noisy, each settled 1 s, noisy's spinner got 48% of a CPU.
  std::vector<records::ConditionRecord> blocks;
  for (int b = 0; b < 4; ++b) {
    records::ConditionRecord c;
    c.condition = b % 2 == 0 ? "idle" : "noisy";
    c.block = b;
    c.started_utc = fmt::format("2026-11-30T05:00:0{}.000Z", b);
    c.settle_seconds = 1;
    c.load_before.value = fingerprint::LoadAverage{0.5 + b, 0, 0, 1 + b, 100};
    c.load_settled = fingerprint::LoadReading{fingerprint::LoadAverage{0.75 + b, 0, 0, 2, 100}, ""};
    c.runs.resize(2);
    if (b % 2 == 1) {
      records::SpinnerLoad load;
      load.pid = 42;
      load.cpu_seconds = 0.48;
      load.wall_seconds = 1.0;
      load.expected_share = 1.0;
      c.spinner_load = {load};
    }
    blocks.push_back(c);
  }
  r.run->condition_records = blocks;
  const std::string html = page(data_of({r}));
  CHECK(html.find("<a href=\"#run-order\">Run order</a>") != std::string::npos);
  const auto at = [&](const std::string& needle) { return html.find(needle); };
  const auto first =
      at("<tr><td class=\"num\">1</td><td>idle</td><td>2026-11-30T05:00:00.000Z</td><td class=\"num\">1 "
         "s</td><td>0.50 (1 running)</td><td>0.75 (2 running)</td><td class=\"num\">2</td><td>—</td></tr>");
  const auto second =
      at("<tr><td class=\"num\">2</td><td>noisy</td><td>2026-11-30T05:00:01.000Z</td><td class=\"num\">1 "
         "s</td><td>1.50 (2 running)</td><td>1.75 (2 running)</td><td class=\"num\">2</td><td>48% (of "
         "100% possible)</td></tr>");
  const auto fourth = at("<tr><td class=\"num\">4</td><td>noisy</td>");
  REQUIRE(first != std::string::npos);
  REQUIRE(second != std::string::npos);
  REQUIRE(fourth != std::string::npos);
  CHECK(first < second);
  CHECK(second < fourth);
}
