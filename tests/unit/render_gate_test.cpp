// The A/B gate's renderings (render/gate.hpp) and gate.json (render/json.hpp) over a table built
// by hand: a confirmed regression, a row within noise, an inconclusive row, a throughput that went
// up (faster), and a condition whose floor failed.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "render/gate.hpp"
#include "render/json.hpp"
#include "text/text.hpp"

using namespace noisefloor;
using analysis::GateBlock;
using analysis::GateRow;
using analysis::GateTable;
using stats::Verdict;

namespace {

GateBlock gate_block(int block, double gm, double lo, double hi, Verdict v) {
  GateBlock b;
  b.block = block;
  b.n = 6;
  b.ratio.gm = gm;
  b.ratio.gm_lo = lo;
  b.ratio.gm_hi = hi;
  b.shift.n = 12;
  b.shift.estimate = std::log(gm);
  b.shift.lo = std::log(lo);
  b.shift.hi = std::log(hi);
  b.shift.tail = 0.025;
  b.verdict = v;
  b.aa.outcome = stats::AaOutcome::pass;
  b.aa.halfwidth = 0.006;
  b.bb.outcome = stats::AaOutcome::pass;
  b.bb.halfwidth = 0.007;
  b.mde_slower = 0.023;
  b.mde_faster = 0.022;
  return b;
}

GateRow gate_row(std::string condition, std::string benchmark, std::string unit, GateBlock first) {
  GateRow r;
  r.condition = std::move(condition);
  r.benchmark = std::move(benchmark);
  r.unit = std::move(unit);
  r.label = analysis::Label::measured_clean;
  r.better = model::Better::lower;
  r.quantity = model::Quantity::time;
  r.gating = true;
  r.verdict = first.verdict;
  r.first = std::move(first);
  return r;
}

GateRow slowed() {
  GateRow r = gate_row("idle", "BenchmarkSlowed", "sec/op", gate_block(1, 1.5, 1.471, 1.53, Verdict::slower));
  r.second = gate_block(2, 1.498, 1.46, 1.531, Verdict::slower);
  r.confirmed = true;
  return r;
}

GateTable fixture() {
  GateTable t;
  t.confirm = true;  // five gating rows: flagged rows need a second block (§3.13)
  t.rows.push_back(slowed());
  t.rows.push_back(
      gate_row("idle", "BenchmarkSteady", "sec/op", gate_block(1, 1.001, 0.991, 1.011, Verdict::equivalent)));
  GateRow wobbly = gate_row("idle", "BenchmarkWobbly", "sec/op",
                            gate_block(1, 1.019, 0.995, 1.044, Verdict::inconclusive));
  wobbly.first.needs_more = 9;
  t.rows.push_back(wobbly);
  // items/s up by 25%: stats says "slower" (the value went up), the unit's direction says faster.
  GateRow parse =
      gate_row("idle", "BenchmarkParse", "items/s", gate_block(1, 1.25, 1.2, 1.3, Verdict::slower));
  parse.better = model::Better::higher;
  parse.quantity = model::Quantity::rate;
  t.rows.push_back(parse);
  GateRow noisy = gate_row("spinners", "BenchmarkSlowed", "sec/op",
                           gate_block(1, 1.06, 0.97, 1.16, Verdict::inconclusive));
  noisy.first.bb.outcome = stats::AaOutcome::fail_imprecise;
  noisy.first.bb.halfwidth = 0.041;
  noisy.first.floor_failed = true;
  noisy.label = analysis::Label::contended_paired;
  t.rows.push_back(noisy);
  analysis::GateContention c;
  c.benchmark = "BenchmarkSlowed";
  c.unit = "sec/op";
  c.condition = "spinners";
  c.reference = "idle";
  c.ratio = 1.067;
  c.lo = 0.87;
  c.hi = 1.31;
  t.contention.push_back(c);
  t.gating_rows = 5;
  t.false_alarm_bound = 1 - std::pow(1 - 0.025 * 0.025, 5);  // 0.31%
  return t;
}

render::GateContext context() {
  render::GateContext c;
  c.base.ref = "main";
  c.base.commit = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678";
  c.base.tree = "0f1e2d3c4b5a69788796a5b4c3d2e1f001234567";
  c.base.cached = true;
  c.base.binary_sha256 = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
  c.head.worktree = true;
  c.head.dirty = true;
  c.head.changed = {"a.go", "b_test.go"};
  c.head.commit = "4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f70";
  c.head.tree = "9a8b7c6d5e4f30211203f4e5d6c7b8a900112233";
  c.head.binary_sha256 = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
  c.experiment_file = "bench/gate.yaml";
  c.benchmark_line = 4;
  c.doctor = fingerprint::Grade::limited;
  c.host = "2 CPUs, Xeon, Linux 6.18";
  c.reproduce = "noisefloor run bench/gate.yaml --base a1b2c3d --head 4d5e6f7";
  c.seconds = 41.2;
  return c;
}

bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

std::vector<std::string> all_lines(std::string_view s) {
  std::vector<std::string> out;
  for (std::string_view l : text::lines(s)) out.emplace_back(l);
  return out;
}

// A small XML well-formedness check: one root, tags nested and closed, attributes quoted, '&' only
// in a known entity, '<' only opening markup, no control character but tab and newline. Returns
// the first problem, "" when there is none.
std::string xml_problem(std::string_view x) {
  std::vector<std::string> open;
  std::size_t roots = 0, i = 0;
  const auto entity_ok = [&](std::size_t at) {
    for (std::string_view e : {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;", "&#10;", "&#9;"})
      if (x.substr(at, e.size()) == e) return true;
    return false;
  };
  const auto name_at = [&](std::size_t& at) {
    const std::size_t from = at;
    while (at < x.size() && (std::isalnum(static_cast<unsigned char>(x[at])) || x[at] == '-' || x[at] == '_'))
      ++at;
    return std::string(x.substr(from, at - from));
  };
  if (!x.starts_with("<?xml ")) return "no declaration";
  i = x.find("?>") + 2;
  while (i < x.size()) {
    const char c = x[i];
    if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') return "control character";
    if (c == '&' && !entity_ok(i)) return "bare & at " + std::to_string(i);
    if (c != '<') {
      if (open.empty() && c != '\n') return "text outside the root";
      ++i;
      continue;
    }
    ++i;
    if (i < x.size() && x[i] == '/') {
      ++i;
      const std::string name = name_at(i);
      if (open.empty() || open.back() != name || x[i] != '>') return "bad close </" + name + ">";
      open.pop_back();
      ++i;
      continue;
    }
    if (open.empty() && roots++ > 0) return "a second root";
    const std::string name = name_at(i);
    if (name.empty()) return "empty tag name at " + std::to_string(i);
    while (i < x.size() && x[i] == ' ') {
      ++i;
      if (name_at(i).empty() || x.substr(i, 2) != "=\"") return "bad attribute in <" + name + ">";
      i += 2;
      for (; i < x.size() && x[i] != '"'; ++i) {
        if (x[i] == '<' || static_cast<unsigned char>(x[i]) < 0x20) return "raw < or control in an attribute";
        if (x[i] == '&' && !entity_ok(i)) return "bare & in an attribute";
      }
      ++i;
    }
    if (x.substr(i, 2) == "/>") {
      i += 2;
    } else if (i < x.size() && x[i] == '>') {
      open.push_back(name);
      ++i;
    } else {
      return "unterminated <" + name + ">";
    }
  }
  return open.empty() ? "" : "unclosed <" + open.back() + ">";
}

}  // namespace

TEST_CASE("gate: the markdown comment leads with the counts and the verdicts that matter") {
  const std::string md = render::gate_markdown(fixture(), context());
  const auto lines = all_lines(md);
  REQUIRE(!lines.empty());
  CHECK(lines[0] == "### noisefloor: 1 slower (confirmed) · 1 faster · 1 within noise · 2 inconclusive");
  CHECK(contains(md, "**The gate fails**: 1 confirmed regression (BenchmarkSlowed sec/op in idle).\n"));
  const std::string slowed_line =
      "| BenchmarkSlowed | sec/op | idle | +50.0% | [+47.1%, +53.0%] | +2.3% | **slower**, confirmed "
      "(block 2: +49.8% [+46.0%, +53.1%]) |";
  const std::string wobbly_line =
      "| BenchmarkWobbly | sec/op | idle | +1.9% | [-0.5%, +4.4%] | +2.3% | inconclusive: needs about 9 more "
      "repeats |";
  const std::string noisy_line =
      "| BenchmarkSlowed | sec/op | spinners | +6.0% | [-3.0%, +16.0%] | +2.3% | inconclusive |";
  const std::string parse_line =
      "| BenchmarkParse | items/s | idle | +25.0% | [+20.0%, +30.0%] | -2.2% | faster |";
  const std::string steady_line =
      "| BenchmarkSteady | sec/op | idle | +0.1% | [-0.9%, +1.1%] | +2.3% | within noise |";
  for (const auto& l : {slowed_line, wobbly_line, noisy_line, parse_line, steady_line})
    CHECK(contains(md, l + "\n"));
  // Regressions first, then the undecided, then improvements; within noise only inside <details>.
  CHECK(md.find(slowed_line) < md.find(wobbly_line));
  CHECK(md.find(wobbly_line) < md.find(noisy_line));
  CHECK(md.find(noisy_line) < md.find(parse_line));
  CHECK(md.find("<details><summary>1 row within noise (±2%)</summary>") < md.find(steady_line));
  CHECK(md.find(steady_line) < md.find("</details>"));
}

TEST_CASE("gate: the markdown comment's floors, load, sides, room, bound and reproduction") {
  const std::string md = render::gate_markdown(fixture(), context());
  CHECK(
      contains(md,
               "- idle (MEASURED-clean): A/A (base vs base) up to ±0.6%, B/B (head vs head) up to ±0.7%: all "
               "PASS\n"));
  CHECK(contains(
      md,
      "- spinners (CONTENDED-PAIRED): A/A (base vs base) ±0.6%, B/B (head vs head) ±4.1%: 1 of 1 gating row "
      "FAIL (the room moved by more than ±2%; each verdict rests on its own interval, which carries that "
      "noise)\n"));
  // A failed floor is said there, never in the row's verdict (it decides nothing).
  CHECK_FALSE(contains(md, "- spinners BenchmarkSlowed sec/op: block 1:"));
  CHECK_FALSE(contains(md, "the floor failed"));
  CHECK(contains(
      md,
      "- BenchmarkSlowed sec/op: +50.0% [+47.1%, +53.0%] in idle, +6.0% [-3.0%, +16.0%] in spinners: "
      "×1.07 [0.87, 1.31] under load, cannot tell\n"));
  CHECK(contains(md, "- base: `main` at `a1b2c3d` (tree `0f1e2d3`), build cached\n"));
  CHECK(
      contains(md,
               "- head: working tree with uncommitted changes: `a.go`, `b_test.go` (snapshot `4d5e6f7`, tree "
               "`9a8b7c6`)\n"));
  CHECK_FALSE(contains(md, "identical binaries"));
  // The rows' labels, first seen, then the doctor's grade and the host.
  CHECK(contains(md,
                 "- room: MEASURED-clean, CONTENDED-PAIRED · doctor: limited · 2 CPUs, Xeon, Linux 6.18\n"));
  CHECK(
      contains(md,
               "\nAt most 0.31% chance that this gate reports a confirmed regression when nothing changed (5 "
               "gating rows; §3.13).\n"));
  CHECK(contains(md, "```sh\nnoisefloor run bench/gate.yaml --base a1b2c3d --head 4d5e6f7\n```\n"));
}

TEST_CASE("gate: markdown escapes benchmark names and says when the binaries are identical") {
  GateTable t;
  t.rows.push_back(
      gate_row("idle", "Bench|x*y_z<T>", "sec/op", gate_block(1, 1.3, 1.2, 1.4, Verdict::slower)));
  t.rows[0].confirmed = true;
  render::GateContext c = context();
  c.head.binary_sha256 = c.base.binary_sha256;
  const std::string md = render::gate_markdown(t, c);
  CHECK(contains(md, "| Bench\\|x\\*y\\_z\\<T\\> | sec/op | idle |"));
  CHECK(contains(md, "- identical binaries (SHA-256 `aaaaaaaaaaaa`…): the code and its layout are the same"));
  c.base.binary_sha256 = c.head.binary_sha256 = "";
  CHECK_FALSE(contains(render::gate_markdown(t, c), "identical binaries"));
}

TEST_CASE("gate: --no-confirm and a clean head change the words") {
  GateTable t = fixture();
  t.settings.confirm = false;
  t.confirm = false;
  render::GateContext c = context();
  c.head = c.base;
  c.head.ref = "feature";
  c.head.cached = false;
  const std::string md = render::gate_markdown(t, c);
  CHECK(md.starts_with("### noisefloor: 1 slower · 1 faster · 1 within noise · 2 inconclusive\n"));
  CHECK(contains(md, "| **slower** |"));
  CHECK(contains(md, "chance that this gate reports a regression when"));
  CHECK(contains(md, "- head: `feature` at `a1b2c3d` (tree `0f1e2d3`)\n"));
}

TEST_CASE("gate: an inconclusive row says what would decide it") {
  GateTable t;
  t.settings.max_repeats = 40;
  GateRow one =
      gate_row("idle", "BenchmarkOne", "sec/op", gate_block(1, 1.02, 0.99, 1.05, Verdict::inconclusive));
  one.first.needs_more = 1;
  GateRow never = one;
  never.benchmark = "BenchmarkNever";
  never.first.needs_more.reset();
  never.first.undecidable = true;
  t.rows = {one, never};
  const std::string md = render::gate_markdown(t, context());
  CHECK(contains(md, "| inconclusive: needs about 1 more repeat |\n"));
  CHECK(
      contains(md,
               "| inconclusive: no number of repeats in reach decides it (on the threshold, or more than 400 "
               "repeats) |\n"));
  CHECK(contains(md, "No row moved beyond") == false);
  CHECK(md.starts_with("### noisefloor: 0 slower · 0 faster · 0 within noise · 2 inconclusive\n"));
  // A real change (the interval clears 1) smaller than the threshold: said as such.
  GateRow small =
      gate_row("idle", "BenchmarkSmall", "sec/op", gate_block(1, 1.012, 1.004, 1.021, Verdict::inconclusive));
  GateTable u;
  u.rows = {small};
  CHECK(contains(render::gate_markdown(u, context()),
                 "| inconclusive: a change, but under the ±2% threshold |\n"));
  CHECK(contains(md,
                 "The gate passes: no confirmed regression, but 2 of 2 gating rows are inconclusive: this "
                 "run could not resolve ±2%.\n"));
  CHECK(contains(render::gate_text(t, context(), 200),
                 "gate: PASS, no confirmed regression, but 2 of 2 gating rows are inconclusive"));
}

TEST_CASE("gate: annotations, errors first, with the file and line of the experiment") {
  const std::string a = render::gate_annotations(fixture(), context());
  const std::string expected =
      "::error file=bench/gate.yaml,line=4,title=BenchmarkSlowed slower (noisefloor)::sec/op +50.0%25 "
      "[+47.1%25, "
      "+53.0%25] in idle, confirmed by a second block (+49.8%25 [+46.0%25, +53.1%25]); floor A/A ±0.6%25, "
      "B/B "
      "±0.7%25\n"
      "::warning file=bench/gate.yaml,line=4,title=BenchmarkWobbly inconclusive (noisefloor)::sec/op +1.9%25 "
      "[-0.5%25, +4.4%25] in idle: needs about 9 more repeats\n"
      "::warning file=bench/gate.yaml,line=4,title=BenchmarkSlowed inconclusive (noisefloor)::sec/op +6.0%25 "
      "[-3.0%25, +16.0%25] in spinners\n"
      "::warning file=bench/gate.yaml,line=4,title=BenchmarkSlowed floor failed (noisefloor)::sec/op in "
      "spinners, block 1: B/B FAIL imprecise ±4.1%25: a binary against itself moved by more than the "
      "threshold; the verdict rests on the row's own interval, which carries that noise\n";
  CHECK(a == expected);
}

TEST_CASE("gate: an unconfirmed regression is a warning, never an error") {
  GateTable t;
  GateRow r = slowed();
  r.confirmed = false;
  r.second = gate_block(2, 1.004, 0.994, 1.014, Verdict::equivalent);
  t.rows.push_back(r);
  render::GateContext c;  // no file: no file= nor line=
  CHECK(render::gate_annotations(t, c) ==
        "::warning title=BenchmarkSlowed slower%2C not confirmed (noisefloor)::sec/op +50.0%25 [+47.1%25, "
        "+53.0%25] in idle; block 2 did not confirm it: +0.4%25 [-0.6%25, +1.4%25]\n");
}

TEST_CASE("gate: annotations escape as actions/toolkit does") {
  GateTable t;
  t.confirm = true;
  GateRow r = slowed();
  r.benchmark = "Bench%a,b:c\nd";
  r.condition = "load: 50%\r\nx";
  t.rows.push_back(r);
  render::GateContext c;
  c.experiment_file = "dir,a:b/gate%.yaml";
  const std::string a = render::gate_annotations(t, c);
  // Properties: % CR LF , : escaped; the message keeps , and : but not % CR LF.
  CHECK(a.starts_with(
      "::error file=dir%2Ca%3Ab/gate%25.yaml,title=Bench%25a%2Cb%3Ac%0Ad slower (noisefloor)::"));
  CHECK(contains(a, " in load: 50%25%0D%0Ax, confirmed"));
  CHECK(std::count(a.begin(), a.end(), '\n') == 1);
  CHECK(a.back() == '\n');
}

TEST_CASE("gate: JUnit counts one suite per condition and a failure per confirmed regression") {
  const std::string x = render::gate_junit(fixture(), context());
  CHECK(xml_problem(x) == "");
  CHECK(contains(x,
                 "<testsuites name=\"noisefloor gate\" tests=\"5\" failures=\"1\" errors=\"0\" skipped=\"2\" "
                 "time=\"41.2\">\n"));
  CHECK(contains(x, "<testsuite name=\"idle\" tests=\"4\" failures=\"1\" errors=\"0\" skipped=\"1\">\n"));
  CHECK(contains(x, "<testsuite name=\"spinners\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\">\n"));
  CHECK(contains(x,
                 "<testcase classname=\"noisefloor.gate.idle\" name=\"BenchmarkSlowed sec/op\">\n"
                 "      <failure type=\"regression\" message=\"slower: +50.0% [+47.1%, +53.0%], confirmed\">"
                 "block 1: +50.0% [+47.1%, +53.0%], n = 6; floor A/A ±0.6% PASS, B/B ±0.7% PASS\n"
                 "block 2: +49.8% [+46.0%, +53.1%], n = 6; floor A/A ±0.6% PASS, B/B ±0.7% PASS\n"
                 "MDE +2.3%\n</failure>\n"));
  CHECK(contains(x, "<skipped message=\"inconclusive: needs about 9 more repeats\"/>\n"));
  CHECK(contains(x, "<system-out>faster\nblock 1: +25.0% [+20.0%, +30.0%], n = 6;"));
  CHECK(std::count(x.begin(), x.end(), '<') - std::count(x.begin(), x.end(), '>') == 0);
}

TEST_CASE("gate: JUnit escapes names, drops control characters, and is whole for one row") {
  GateTable t;
  t.rows.push_back(
      gate_row("idle", "B<&\"'\x01x", "sec/op", gate_block(1, 1.001, 0.991, 1.011, Verdict::equivalent)));
  render::GateContext c;
  const std::string x = render::gate_junit(t, c);
  CHECK(xml_problem(x) == "");
  CHECK(x ==
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<testsuites name=\"noisefloor gate\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"0\" "
        "time=\"0.0\">\n"
        "  <testsuite name=\"idle\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"0\">\n"
        "    <testcase classname=\"noisefloor.gate.idle\" name=\"B&lt;&amp;&quot;&#39;x sec/op\">\n"
        "      <system-out>within noise\n"
        "block 1: +0.1% [-0.9%, +1.1%], n = 6; floor A/A ±0.6% PASS, B/B ±0.7% PASS\n"
        "MDE +2.3%\n"
        "</system-out>\n"
        "    </testcase>\n"
        "  </testsuite>\n"
        "</testsuites>\n");
  // The checker itself refuses what the escaping prevents.
  CHECK(xml_problem("<?xml version=\"1.0\"?>\n<a>&</a>\n") != "");
  CHECK(xml_problem("<?xml version=\"1.0\"?>\n<a><b></a>\n") != "");
}

TEST_CASE("gate: the step summary is cut at a line end, closes what is open, and points to gate.md") {
  const std::string small = "### noisefloor\n\nall fine\n";
  CHECK(render::step_summary(small, 1000) == small);
  std::string big = "### noisefloor: 1 slower\n\n<details><summary>rows</summary>\n\n```\n";
  for (int i = 0; i < 200; ++i) big += "| BenchmarkRow" + std::to_string(i) + " | sec/op | idle |\n";
  const std::size_t limit = 2000;
  const std::string cut = render::step_summary(big, limit);
  CHECK(cut.size() <= limit);
  CHECK(cut.size() > limit - 200);  // not cut further than it needs
  CHECK(cut.ends_with("The whole comment is gate.md in the run directory._\n"));
  const std::size_t pointer = cut.find("\n_Cut here");
  REQUIRE(pointer != std::string::npos);
  const std::string kept = cut.substr(0, pointer);
  CHECK(kept.ends_with(" | sec/op | idle |\n```\n</details>\n"));
  CHECK(big.starts_with(kept.substr(0, kept.size() - std::string("```\n</details>\n").size())));
  // A limit smaller than the pointer still holds.
  CHECK(render::step_summary(big, 10).size() == 10);
}

TEST_CASE("gate: gate.json holds the schema, the sides and every row's figures") {
  const nlohmann::json j = nlohmann::json::parse(render::gate_json(fixture(), context()));
  CHECK(j["schema"] == "noisefloor.gate/1");
  CHECK(j["base"]["commit"] == "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678");
  CHECK(j["base"]["cached"] == true);
  CHECK(j["head"]["dirty"] == true);
  CHECK(j["head"]["changed"] == nlohmann::json::array({"a.go", "b_test.go"}));
  CHECK(j["identical_binaries"] == false);
  CHECK(j["experiment_file"] == "bench/gate.yaml");
  CHECK(j["benchmark_line"] == 4);
  CHECK(j["room"] == "MEASURED-clean, CONTENDED-PAIRED · doctor: limited · 2 CPUs, Xeon, Linux 6.18");
  CHECK(j["regression"] == true);
  CHECK(j["gating_rows"] == 5);
  CHECK(j["settings"]["threshold"] == 0.02);
  CHECK(j["settings"]["confirm"] == nullptr);  // as many rows decide: 5 > 2, so confirmed
  CHECK(j["confirm"] == true);
  CHECK(j["false_alarm_bound"].get<double>() == doctest::Approx(0.003121).epsilon(1e-3));
  REQUIRE(j["rows"].size() == 5);
  const auto& slowed = j["rows"][0];
  CHECK(slowed["verdict"] == "slower");
  CHECK(slowed["regression"] == true);
  CHECK(slowed["confirmed"] == true);
  CHECK(slowed["first"]["ratio"] == 1.5);
  CHECK(slowed["first"]["ci"] == nlohmann::json::array({1.471, 1.53}));
  CHECK(slowed["first"]["aa"]["halfwidth"] == 0.006);
  CHECK(slowed["first"]["sigma0"].is_null());  // NaN: null, never a fake number
  CHECK(slowed["second"]["block"] == 2);
  CHECK(slowed["second"]["ratio"] == 1.498);
  CHECK(j["rows"][1]["verdict"] == "within noise");
  CHECK(j["rows"][1]["second"].is_null());
  CHECK(j["rows"][2]["first"]["needs_more"] == 9);
  CHECK(j["rows"][3]["verdict"] == "faster");
  CHECK(j["rows"][3]["change"] == "higher");
  CHECK(j["rows"][3]["regression"] == false);
  CHECK(j["rows"][4]["first"]["bb"]["outcome"] == "FAIL imprecise");
  CHECK(j["rows"][4]["first"]["floor_failed"] == true);
  CHECK(j["contention"][0]["finding"] == "cannot_tell");
  CHECK(j["contention"][0]["ci"] == nlohmann::json::array({0.87, 1.31}));
}

TEST_CASE("gate: the terminal text fits its width and ends with the decision") {
  const GateTable t = fixture();
  const render::GateContext c = context();
  const std::string narrow = render::gate_text(t, c, 80);
  for (const std::string& l : all_lines(narrow)) CHECK_MESSAGE(text::width(l) <= 80, l);
  CHECK(narrow.starts_with(
      "noisefloor gate: 1 slower (confirmed) · 1 faster · 1 within noise · 2\n  inconclusive\n"));
  // Too wide for columns: each row's name on a line of its own, its figures wrapped under it.
  CHECK(contains(narrow,
                 "\nidle  BenchmarkSlowed  sec/op\n"
                 "    +50.0% [+47.1%, +53.0%] · MDE +2.3% · slower, confirmed (block 2: +49.8%\n"
                 "      [+46.0%, +53.1%])\n"));
  CHECK(all_lines(narrow).back() ==
        "gate: FAIL, 1 confirmed regression: BenchmarkSlowed sec/op in idle (0:41)");
  const std::string wide = render::gate_text(t, c, 160);
  CHECK(contains(wide,
                 "\ncondition  benchmark        unit     head vs base                CI    MDE  verdict\n"));
  CHECK(contains(
      wide, "\nidle       BenchmarkSteady  sec/op          +0.1%    [-0.9%, +1.1%]  +2.3%  within noise\n"));
  for (const std::string& l : all_lines(wide)) CHECK_MESSAGE(text::width(l) <= 160, l);
  GateTable clean;
  clean.rows.push_back(t.rows[1]);
  CHECK(all_lines(render::gate_text(clean, c, 80)).back() == "gate: PASS, no confirmed regression (0:41)");
}

TEST_CASE("gate: a failed floor is said on the floor line and never changes a verdict") {
  GateTable t;
  t.confirm = true;
  GateRow far =
      gate_row("idle", "BenchmarkFar", "ns/op", gate_block(1, 1.496, 1.443, 1.552, Verdict::slower));
  far.first.bb.outcome = stats::AaOutcome::fail_imprecise;
  far.first.bb.halfwidth = 0.049;
  far.first.floor_failed = true;
  far.second = gate_block(2, 1.532, 1.471, 1.596, Verdict::slower);
  far.confirmed = true;
  t.rows = {far};
  const std::string md = render::gate_markdown(t, context());
  CHECK(contains(md, "**slower**, confirmed (block 2: +53.2%"));
  CHECK(contains(md, "1 of 1 gating row FAIL (the room moved by more than ±2%"));
  CHECK_FALSE(contains(md, "reach"));
  CHECK(contains(render::gate_text(t, context(), 120), "slower, confirmed (block 2: +53.2%"));
}
