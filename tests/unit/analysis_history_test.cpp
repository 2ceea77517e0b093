#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

#include "analysis/history.hpp"
#include "fingerprint/facts.hpp"
#include "fingerprint/noise.hpp"
#include "render/fingerprint.hpp"
#include "render/history.hpp"
#include "render/json.hpp"
#include "text/text.hpp"

namespace fp = noisefloor::fingerprint;
namespace analysis = noisefloor::analysis;
namespace records = noisefloor::records;
namespace render = noisefloor::render;
namespace text = noisefloor::text;
using nlohmann::json;

namespace {

json fingerprint_json(const std::string& cpu = "AMD EPYC", const std::string& binary = std::string(64, 'a'),
                      double load = 0.12) {
  json f;
  f["host"]["hostname"] = fp::known("vm");
  f["host"]["cpu"]["model_name"] = fp::known(cpu);
  f["host"]["kernel"]["release"] = fp::known("6.18.44-fc-v669");
  f["host"]["load"] = fp::known({{"one", load}, {"running", 1}});
  f["toolchain"]["go"]["version"] = fp::known("go1.19.8");
  f["toolchain"]["binary"]["sha256"] = fp::known(binary);
  // image: auto holds the binary: its image changes with it.
  f["engine"]["images"]["pinned"]["id"] = fp::known("sha256:" + binary);
  f["toolchain"]["source"]["commit"] = fp::known("2c95392c1134");
  f["toolchain"]["source"]["dirty"] = fp::known(false);
  f["env"] = json::object();
  f["benchmark_env"] = {{"CGO_ENABLED", "0"}};
  return f;
}

// 20 deterministic values around `centre` (spread about ±1.7, in a scrambled order): "~N(centre, 1)".
std::vector<double> around(double centre, std::size_t n = 20) {
  std::vector<double> v;
  for (std::size_t i = 0; i < n; ++i)
    v.push_back(centre + (static_cast<double>((i * 7) % n) - (static_cast<double>(n) - 1) / 2) / 5.5);
  return v;
}

records::Result result(const std::string& id, const std::string& started, const std::vector<double>& values,
                       const json& fingerprint = fingerprint_json()) {
  records::Result r;
  r.label = id;
  r.source = "results/t/" + id;
  records::RunRecord run;
  run.experiment = "t";
  run.run_id = id;
  run.started_utc = started;
  run.conditions = {"idle"};
  r.run = run;
  r.fingerprint = fingerprint.get<records::Fingerprint>();
  r.conditions = {"idle"};
  for (std::size_t i = 0; i < values.size(); ++i) {
    records::Sample s;
    s.condition = "idle";
    s.benchmark = "BenchmarkWork";
    s.name = "BenchmarkWork-2";
    s.procs = 2;
    s.index = static_cast<int>(i);
    s.metrics = {{values[i], "ns/op"}};
    r.samples.push_back(s);
  }
  return r;
}

}  // namespace

TEST_CASE("history: a planted step is marked, no change is not, runs in time order") {
  // Given out of order: history sorts by started_utc.
  std::vector<double> reversed = around(100);
  std::reverse(reversed.begin(), reversed.end());
  const auto h = analysis::history({result("r3", "2026-01-03T00:00:00Z", around(115)),
                                    result("r1", "2026-01-01T00:00:00Z", around(100)),
                                    result("r2", "2026-01-02T00:00:00Z", reversed)});
  REQUIRE(h.runs.size() == 3);
  CHECK(h.experiment == "t");
  CHECK(h.runs[0].run_id == "r1");
  CHECK(h.runs[1].run_id == "r2");
  CHECK(h.runs[2].run_id == "r3");
  REQUIRE(h.segments.size() == 1);
  CHECK(h.segments[0].runs == 3);
  CHECK(h.runs[0].commit == "2c95392c1134");
  {
    json dirty = fingerprint_json(), none = fingerprint_json();
    dirty["toolchain"]["source"]["dirty"] = fp::known(true);
    none["toolchain"]["source"]["commit"] = fp::unknown("not a git checkout");
    const auto d = analysis::history({result("d", "2026-01-04T00:00:00Z", around(100), dirty),
                                      result("n", "2026-01-05T00:00:00Z", around(100), none)});
    CHECK(d.runs[0].commit == "2c95392c1134+dirty");
    CHECK(d.runs[1].commit.empty());
  }
  CHECK(h.runs[0].digest.size() == 8);
  CHECK(h.runs[0].status == records::RunStatus::complete);
  CHECK(h.runs[0].claims.empty());

  REQUIRE(h.runs[0].cells.size() == 1);
  CHECK(h.runs[0].cells[0].change.kind == analysis::ChangeKind::first);
  // The same values in another order: no change.
  const auto& same = h.runs[1].cells[0].change;
  CHECK(same.kind == analysis::ChangeKind::unchanged);
  CHECK(same.p > 0.5);
  // +15%: marked higher, the HL CI entirely above +2%.
  const auto& step = h.runs[2].cells[0].change;
  CHECK(step.kind == analysis::ChangeKind::higher);
  CHECK(step.p < 1e-6);
  CHECK(step.ratio.lo > 1.02);
  CHECK(step.ratio.estimate == doctest::Approx(1.15).epsilon(0.005));
  CHECK(render::change_text(step).starts_with("▲ +15.0% [+1"));
  CHECK(render::change_text(same) == "~");

  // Every cell has its median CI and CV interval (n = 20).
  const auto& c = h.runs[2].cells[0];
  CHECK(c.n == 20);
  REQUIRE(c.median_ci);
  REQUIRE(c.cv_pct);
  REQUIRE(c.cv_ci);
  CHECK(c.cv_ci->lo <= *c.cv_pct);
  CHECK(*c.cv_pct <= c.cv_ci->hi);
  CHECK(render::history_cell_notes(c).empty());
}

TEST_CASE("history: a step down is marked lower; a step inside the threshold is not marked") {
  const auto h = analysis::history({result("a", "2026-01-01T00:00:00Z", around(100)),
                                    result("b", "2026-01-02T00:00:00Z", around(90)),
                                    result("c", "2026-01-03T00:00:00Z", around(90.9))});
  REQUIRE(h.runs.size() == 3);
  CHECK(h.runs[1].cells[0].change.kind == analysis::ChangeKind::lower);
  CHECK(render::change_text(h.runs[1].cells[0].change).starts_with("▼ -10.0% [-"));
  // +1%: significant by Mann–Whitney, but inside ±2%.
  const auto& small = h.runs[2].cells[0].change;
  CHECK(small.p < 0.05);
  CHECK(small.kind == analysis::ChangeKind::unchanged);
  // With a 0.1% threshold the same +1% is a step (its CI is about [+0.2%, +1.8%]).
  analysis::HistoryOptions tight;
  tight.threshold = 0.001;
  const auto t = analysis::history(
      {result("b", "2026-01-02T00:00:00Z", around(90)), result("c", "2026-01-03T00:00:00Z", around(90.9))},
      tight);
  CHECK(t.runs[1].cells[0].change.kind == analysis::ChangeKind::higher);
}

TEST_CASE("history: a fingerprint change starts a segment and is never compared across") {
  const auto h =
      analysis::history({result("r1", "2026-01-01T00:00:00Z", around(100)),
                         result("r2", "2026-01-02T00:00:00Z", around(130), fingerprint_json("Intel Xeon")),
                         result("r3", "2026-01-03T00:00:00Z", around(130), fingerprint_json("Intel Xeon"))});
  REQUIRE(h.segments.size() == 2);
  CHECK(h.segments[0].runs == 1);
  CHECK(h.segments[1].index == 2);
  CHECK(h.segments[1].first_run == 1);
  CHECK(h.segments[1].runs == 2);
  REQUIRE(h.segments[1].changed.size() == 1);
  CHECK(h.segments[1].changed[0].field == "host.cpu.model_name");
  CHECK(h.runs[1].segment == 2);
  CHECK(h.runs[0].digest != h.runs[1].digest);
  CHECK(h.runs[1].digest == h.runs[2].digest);
  // +30% across the segments: not compared.
  CHECK(h.runs[1].cells[0].change.kind == analysis::ChangeKind::first);
  CHECK(h.runs[2].cells[0].change.kind == analysis::ChangeKind::unchanged);
  CHECK(render::segment_header(h.segments[1]) ==
        "── segment 2: host.cpu.model_name changed: AMD EPYC → Intel Xeon");
  CHECK(render::segment_header(h.segments[0]) == "── segment 1");
}

TEST_CASE("history: the code under test and volatile facts do not split the series") {
  // Another binary (a new commit, so another image: auto) and another load: the same room.
  const auto h = analysis::history({result("r1", "2026-01-01T00:00:00Z", around(100)),
                                    result("r2", "2026-01-02T00:00:00Z", around(115),
                                           fingerprint_json("AMD EPYC", std::string(64, 'b'), 3.5))});
  REQUIRE(h.segments.size() == 1);
  CHECK(h.runs[0].digest == h.runs[1].digest);
  CHECK(h.runs[1].cells[0].change.kind == analysis::ChangeKind::higher);
  // Unless the binary is declared part of the room.
  analysis::HistoryOptions strict;
  strict.code_fields.clear();
  const auto s = analysis::history(
      {result("r1", "2026-01-01T00:00:00Z", around(100)),
       result("r2", "2026-01-02T00:00:00Z", around(115), fingerprint_json("AMD EPYC", std::string(64, 'b')))},
      strict);
  CHECK(s.segments.size() == 2);
}

TEST_CASE("history: too few samples show a dash and the reason, never a number") {
  const auto h = analysis::history({result("r1", "2026-01-01T00:00:00Z", {100}),
                                    result("r2", "2026-01-02T00:00:00Z", {100, 101, 102}),
                                    result("r3", "2026-01-03T00:00:00Z", {130, 131, 132})});
  const auto& one = h.runs[0].cells[0];
  CHECK(one.n == 1);
  CHECK_FALSE(one.cv_pct);
  CHECK_FALSE(one.cv_ci);
  CHECK(render::history_cell_notes(one) ==
        std::vector<std::string>{"n=1 < 6: no median CI", "n=1 < 2: no CV"});
  CHECK(h.runs[1].cells[0].change.kind == analysis::ChangeKind::not_compared);
  CHECK(h.runs[1].cells[0].change.why == analysis::NotCompared::too_few);
  CHECK(render::change_reason(h.runs[1].cells[0].change) == "n=1 vs 3: too few samples");
  // 3 vs 3 can never reach p < 0.05.
  CHECK(h.runs[2].cells[0].change.kind == analysis::ChangeKind::not_compared);
  CHECK(render::change_reason(h.runs[2].cells[0].change) == "n=3 vs 3 cannot reach p < 0.05");
  CHECK(h.runs[2].cells[0].cv_pct);
  CHECK_FALSE(h.runs[2].cells[0].cv_ci);

  const std::string text = render::history_text(h, "results/t");
  CHECK(text.find("\n  BenchmarkWork-2 (ns/op)\n    idle  median 100.0 —  CV     — —\n      (n=1 < 6: no "
                  "median CI; n=1 < "
                  "2: no CV)\n") != std::string::npos);
  // A terminal's 80 columns, every line.
  for (std::size_t at = 0, nl; at < text.size(); at = nl + 1) {
    nl = std::min(text.find('\n', at), text.size());
    CHECK(text::width(text.substr(at, nl - at)) <= 80);
  }
}

TEST_CASE("history: the CV bootstrap is seeded and deterministic") {
  const auto v = around(100);
  const auto a = analysis::bootstrap_cv(v, 2000, 7);
  const auto b = analysis::bootstrap_cv(v, 2000, 7);
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->lo == b->lo);
  CHECK(a->hi == b->hi);
  CHECK(a->lo < a->hi);
  CHECK_FALSE(analysis::bootstrap_cv({1, 2, 3, 4, 5}, 2000, 7));
}

TEST_CASE("history: rendered lines") {
  analysis::Change c;
  c.kind = analysis::ChangeKind::higher;
  c.ratio.estimate = 1.123;
  c.ratio.lo = 1.091;
  c.ratio.hi = 1.150;
  CHECK(render::change_text(c) == "▲ +12.3% [+9.1, +15.0]");
  c.kind = analysis::ChangeKind::lower;
  c.ratio.estimate = 0.92;
  c.ratio.lo = 0.91;
  c.ratio.hi = 0.929;
  CHECK(render::change_text(c) == "▼ -8.0% [-9.0, -7.1]");
  c.kind = analysis::ChangeKind::not_compared;
  CHECK(render::change_text(c) == "—");
  c.kind = analysis::ChangeKind::first;
  CHECK(render::change_text(c).empty());

  const auto h = analysis::history(
      {result("r1", "2026-01-01T00:00:00Z", around(100)), result("r2", "2026-01-02T00:00:00Z", around(115))});
  const std::string text = render::history_text(h, "results/t");
  CHECK(text.find("\n── segment 1\n2026-01-01T00:00:00Z  commit 2c95392c1134  room " + h.runs[0].digest +
                  "  complete  r1\n") != std::string::npos);
  CHECK(text.find("▲ +15.0%") != std::string::npos);
  CHECK(text.find("claims") == std::string::npos);

  // The claims column appears only when a run has verdicts.
  auto with_claims = h;
  with_claims.runs[1].claims = {{noisefloor::claims::Verdict::reproduced, "cv(idle) < 5"},
                                {noisefloor::claims::Verdict::not_reproduced, "cv(idle) < 1"}};
  CHECK(render::history_text(with_claims, "results/t")
            .find("  claims: REPRODUCED: cv(idle) < 5; NOT REPRODUCED: cv(idle) < 1\n") != std::string::npos);
  CHECK(json(with_claims)["runs"][1]["claims"] ==
        json::array({"REPRODUCED: cv(idle) < 5", "NOT REPRODUCED: cv(idle) < 1"}));
  CHECK(render::history_csv(h).find("claims") == std::string::npos);
  CHECK(render::history_csv(with_claims).find(",claims\n") != std::string::npos);

  const json j = h;
  CHECK(j["runs"][1]["cells"][0]["change"]["kind"] == "higher");
  CHECK(j["segments"].size() == 1);
  const std::string page = render::history_html(h, "results/t", "noisefloor test");
  CHECK(page.find("data-plot=\"history\"") != std::string::npos);
  CHECK(page.find("data-step=\"higher\"") != std::string::npos);
  CHECK(page.find("src=") == std::string::npos);  // nothing fetched
}

TEST_CASE("history: a run without a fingerprint starts a segment: its room cannot be compared") {
  auto bare = result("r2", "2026-01-02T00:00:00Z", around(100));
  bare.fingerprint = records::Fingerprint{};
  const auto h = analysis::history({result("r1", "2026-01-01T00:00:00Z", around(100)), bare,
                                    result("r3", "2026-01-03T00:00:00Z", around(100))});
  REQUIRE(h.segments.size() == 3);
  CHECK(h.runs[1].digest.empty());
  CHECK(h.segments[1].no_fingerprint);
  CHECK(render::segment_header(h.segments[1]) ==
        "── segment 2: no fingerprint recorded: the room cannot be compared");
  CHECK(h.runs[1].cells[0].change.kind == analysis::ChangeKind::first);
  CHECK(h.runs[2].cells[0].change.kind == analysis::ChangeKind::first);
  CHECK(render::history_text(h, "results/t").find("  room —  complete  r2\n") != std::string::npos);
}

TEST_CASE("history: each run's room noise is shown, and a clearly noisier room is marked") {
  const auto profile = [](double cv, double delay) {
    fp::NoiseReadings r;
    r.seconds = 1;
    r.loop_seconds = 0.8;
    // Four blocks with the given CV: 5 ms ± d, d chosen so that 100·s/mean = cv.
    const double d = cv / 100 * 0.005 * std::sqrt(3.0 / 2.0);
    r.block_seconds = {0.005 - d, 0.005, 0.005, 0.005 + d};
    r.run_delay_seconds = delay / 100 * 0.8;
    r.steal_seconds = 0;
    r.cpus = 2;
    return fp::summarize_noise(r);
  };
  json quiet = fingerprint_json(), noisy = fingerprint_json();
  quiet["noise"] = profile(0.3, 0.05);
  noisy["noise"] = profile(3.0, 20);
  json none = fingerprint_json();
  none["noise"] = fp::noise_not_measured(fp::NoiseNotTaken::profile_off);
  const std::vector<records::Result> runs = {
      result("r1", "2026-12-01T10:00:00Z", around(100), fingerprint_json()),  // before profiles existed
      result("r2", "2026-12-01T11:00:00Z", around(100), quiet),
      result("r3", "2026-12-01T12:00:00Z", around(100), noisy),
      result("r4", "2026-12-01T13:00:00Z", around(100), none),
      result("r5", "2026-12-01T14:00:00Z", around(100), quiet)};
  const analysis::History h = analysis::history(runs);
  REQUIRE(h.runs.size() == 5);
  CHECK_FALSE(h.runs[0].noise);
  REQUIRE(h.runs[1].noise);
  using Change = fp::NoiseChange;
  CHECK_FALSE(h.runs[1].noise_change.changed());  // the first profiled run has nothing to compare with
  const Change& up = h.runs[2].noise_change;
  CHECK(up.direction == Change::Direction::noisier);
  REQUIRE(up.moved.size() == 2);
  CHECK(up.moved[0].figure == Change::Figure::loop_cv);
  CHECK(up.moved[0].after == doctest::Approx(3.0));
  CHECK(up.moved[1].figure == Change::Figure::run_delay);
  CHECK(render::noise_change_text(h.runs[2].noise_change) ==
        "room noisier: loop CV 0.30% → 3.00%, run-queue delay 0.05% → 20.00%");
  CHECK_FALSE(h.runs[3].noise_change.changed());  // not measured: no change claimed
  CHECK(render::noise_change_text(h.runs[4].noise_change) ==
        "room quieter: loop CV 3.00% → 0.30%, run-queue delay 20.00% → 0.05%");
  CHECK(render::noise_change_text(h.runs[3].noise_change).empty());
  // The profile is a measurement of the room, not a fact of it: it never starts a segment.
  CHECK(h.segments.size() == 1);

  const std::string t = render::history_text(h, "results/t");
  CHECK(t.find("room noise: not recorded (an older noisefloor)") != std::string::npos);
  CHECK(t.find("room noise: loop CV 0.30% (5 ms × 4") != std::string::npos);
  CHECK(t.find("◆ room noisier: loop CV 0.30% → 3.00%") != std::string::npos);
  CHECK(t.find("room noise: not measured: noise_profile: 0s") != std::string::npos);
  const std::string md = render::history_markdown(h, "results/t");
  CHECK(md.find("| room noise |") != std::string::npos);
  CHECK(md.find("| CV 3.00% · steal 0.00% · delay 20.00% ◆ room noisier:") != std::string::npos);
  const std::string csv = render::history_csv(h);
  CHECK(csv.find(",noise_cv_pct,noise_steal_pct,noise_run_delay_pct,noise_change\n") != std::string::npos);
  const json j = json::parse(render::history_json(h));
  CHECK(j["runs"][0]["noise"].is_null());
  CHECK(j["runs"][2]["noise"]["block_cv_pct"].get<double>() == doctest::Approx(3.0));
  CHECK(j["runs"][2]["noise_change"] == render::noise_change_text(h.runs[2].noise_change));
  const std::string page = render::history_html(h, "results/t", "noisefloor test");
  CHECK(page.find("<th>room noise</th>") != std::string::npos);
  CHECK(page.find("<td colspan=\"7\">") != std::string::npos);  // a segment row spans the new column
  CHECK(page.find(">CV 3.00% · steal 0.00% · delay 20.00% ◆ room noisier: loop CV 0.30% → 3.00%") !=
        std::string::npos);

  // Without any profile, nothing about noise is shown (older histories read as they did).
  const analysis::History old = analysis::history({runs[0]});
  CHECK(render::history_text(old, "results/t").find("room noise") == std::string::npos);
  CHECK(render::history_csv(old).find("noise_cv_pct") == std::string::npos);
  CHECK(render::history_html(old, "results/t", "noisefloor test").find("room noise") == std::string::npos);
}

TEST_CASE("history: a new level over many runs is marked where it starts (E-Divisive, §3.18)") {
  // 24 runs in one room: medians about 100 (±0.3 from run to run), then about 110 from the 13th.
  std::vector<records::Result> runs, flat;
  for (int k = 0; k < 24; ++k) {
    const double wobble = 0.3 * ((k * 5) % 3 - 1);
    const std::string id = fmt::format("r{:02}", k + 1), day = fmt::format("2026-01-{:02}T00:00:00Z", k + 1);
    runs.push_back(result(id, day, around((k < 12 ? 100 : 110) + wobble)));
    flat.push_back(result(id, day, around(100 + wobble)));
  }
  const auto h = analysis::history(runs);
  REQUIRE(h.runs.size() == 24);
  REQUIRE(h.segments.size() == 1);
  for (std::size_t k = 0; k < 24; ++k) {
    CAPTURE(k);
    CHECK(h.runs[k].cells.at(0).level_change.has_value() == (k == 12));
  }
  const auto& level = *h.runs[12].cells[0].level_change;
  CHECK(level.mean_before == doctest::Approx(100).epsilon(0.005));
  CHECK(level.mean_after == doctest::Approx(110).epsilon(0.005));
  CHECK(level.pvalue < 1e-9);
  CHECK(render::level_text(h.runs[12].cells[0]).starts_with("new level +10.0%: medians 100"));
  CHECK(render::level_text(h.runs[11].cells[0]).empty());
  CHECK(render::history_text(h, "results/t").find("◀ new level +10.0%") != std::string::npos);
  const std::string page = render::history_html(h, "results/t", "noisefloor test");
  CHECK(page.find("data-level-change=\"r13\"") != std::string::npos);
  CHECK(page.find("data-level-change=\"r12\"") == std::string::npos);
  CHECK(json::parse(render::history_json(h))["runs"][12]["cells"][0]["level_change"]["p"].get<double>() <
        1e-9);
  // The same wobble without the step: no new level anywhere.
  for (const auto& r : analysis::history(flat).runs) CHECK_FALSE(r.cells.at(0).level_change);
}
