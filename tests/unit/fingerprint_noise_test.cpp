// The room's noise profile: its figures from hand-made readings (exact values worked by hand), its
// JSON both ways, its limits and the doctor's "noise" finding.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "fingerprint/doctor.hpp"
#include "fingerprint/noise.hpp"
#include "model/errors.hpp"

namespace fp = noisefloor::fingerprint;
using nlohmann::json;

namespace {

fp::NoiseReadings readings() {
  fp::NoiseReadings r;
  r.seconds = 1.0;
  r.block_seconds = {0.005, 0.004, 0.006, 0.005};
  r.loop_seconds = 0.02;
  r.sleep_seconds = {0.00105, 0.00110, 0.00100, 0.00200};
  r.run_delay_seconds = 0.002;
  r.involuntary_switches = 3;
  r.steal_seconds = 0.04;
  r.cpus = 2;
  return r;
}

}  // namespace

TEST_CASE("summarize_noise: the figures of known readings") {
  const fp::NoiseProfile p = fp::summarize_noise(readings());
  CHECK(p.measured());
  CHECK(p.blocks == 4);
  CHECK(p.block_median_ms == doctest::Approx(5.0));
  // mean 5 ms; squared deviations 1e-6 + 0 + 0 + 1e-6 over n − 1 = 3: s = 0.81650 ms, CV 16.330%
  REQUIRE(p.block_cv_pct);
  CHECK(*p.block_cv_pct == doctest::Approx(16.32993).epsilon(1e-6));
  CHECK(p.block_worst_ratio == doctest::Approx(1.2));
  // late: 50, 100, 0, 1000 µs -> sorted 0 50 100 1000: median 75; type 7 p99 at h = 2.97:
  // 100 + 0.97 × 900 = 973
  CHECK(p.sleeps == 4);
  CHECK(p.sleep_late_median_us == doctest::Approx(75.0));
  CHECK(p.sleep_late_p99_us == doctest::Approx(973.0));
  REQUIRE(p.run_delay_pct);
  CHECK(*p.run_delay_pct == doctest::Approx(10.0));  // 2 ms of a 20 ms loop
  REQUIRE(p.steal_pct);
  CHECK(*p.steal_pct == doctest::Approx(2.0));  // 40 ms of 2 CPUs × 1 s
  CHECK(p.involuntary_switches == 3);
}

TEST_CASE("summarize_noise: one block has no spread, unknown parts stay unknown") {
  fp::NoiseReadings r;
  r.seconds = 0.2;
  r.block_seconds = {0.005};
  r.loop_seconds = 0.005;
  r.unknown = {"steal: /proc/stat: Permission denied"};
  const fp::NoiseProfile p = fp::summarize_noise(r);
  CHECK_FALSE(p.block_cv_pct);
  CHECK_FALSE(p.steal_pct);
  CHECK_FALSE(p.run_delay_pct);
  CHECK(p.sleeps == 0);
  CHECK(p.unknown == std::vector<std::string>{"steal: /proc/stat: Permission denied"});
  CHECK(fp::noise_line(p) ==
        "loop CV — (one block) (5 ms × 1, worst 1.00×), run-queue delay unknown, steal unknown, over 0.2 s");
  CHECK(fp::noise_brief(p) == "CV ? · steal ? · delay ?");
  CHECK_THROWS_AS(fp::summarize_noise(fp::NoiseReadings{}), noisefloor::Error);
}

TEST_CASE("noise profile: lines, limits and the doctor's finding") {
  const fp::NoiseProfile p = fp::summarize_noise(readings());
  CHECK(fp::noise_line(p) ==
        "loop CV 16.33% (5 ms × 4, worst 1.20×), 1 ms sleep +75 µs late (p99 +973 µs), run-queue delay "
        "10.00%, steal 2.00%, over 1.0 s");
  CHECK(fp::noise_brief(p) == "CV 16.33% · steal 2.00% · delay 10.00%");
  CHECK(fp::noise_above_limits(p) ==
        std::vector<std::string>{"loop CV 16.33% > 1%", "steal 2.00% > 1%", "run-queue delay 10.00% > 1%",
                                 "a 1 ms sleep woke 973 µs late (p99) > 500 µs"});

  const fp::FactTree host;
  const fp::DoctorReport noisy = fp::diagnose(host, std::nullopt, {}, p);
  const auto finding = [](const fp::DoctorReport& r) -> const fp::Finding* {
    for (const auto& f : r.findings)
      if (f.topic == fp::Topic::noise) return &f;
    return nullptr;
  };
  REQUIRE(finding(noisy));
  CHECK(finding(noisy)->level == fp::Level::warn);
  CHECK(finding(noisy)->message.starts_with("loop CV 16.33% > 1%; steal 2.00% > 1%"));
  CHECK(noisy.grade != fp::Grade::ready);

  fp::NoiseReadings quiet = readings();
  quiet.block_seconds = {0.005, 0.005, 0.00501, 0.005};
  quiet.sleep_seconds = {0.00105};
  quiet.run_delay_seconds = 0;
  quiet.steal_seconds = 0;
  const fp::NoiseProfile q = fp::summarize_noise(quiet);
  CHECK(fp::noise_above_limits(q).empty());
  const fp::DoctorReport calm = fp::diagnose(host, std::nullopt, {}, q);
  REQUIRE(finding(calm));
  CHECK(finding(calm)->level == fp::Level::ok);
  CHECK(finding(calm)->message.starts_with("quiet: loop CV 0.10%"));

  // Not measured, or not given: no finding at all.
  using Why = fp::NoiseNotTaken;
  CHECK_FALSE(finding(fp::diagnose(host, std::nullopt, {}, fp::noise_not_measured(Why::profile_off))));
  CHECK_FALSE(finding(fp::diagnose(host, std::nullopt, {})));
  // Each reason in its words.
  CHECK(fp::noise_line(fp::noise_not_measured(Why::profile_off)) == "not measured: noise_profile: 0s");
  CHECK(fp::noise_line(fp::noise_not_measured(Why::option_off)) == "not measured: --noise-profile 0s");
  CHECK(fp::noise_line(fp::noise_not_measured(Why::other_machine, "ssh://bench@lab")) ==
        "not measured: the profile measures this machine only, not ssh://bench@lab");
  CHECK(fp::noise_line(fp::noise_not_measured(Why::gate)) ==
        "not measured: a gate: its A/A and B/B floors measure the room on the benchmark itself "
        "(noise_profile: 1s adds the profile)");
  CHECK(fp::noise_brief(fp::noise_not_measured(Why::gate)) == "—");
}

TEST_CASE("noise profile: JSON both ways, and what it refuses") {
  const fp::NoiseProfile p = fp::summarize_noise(readings());
  const json j = p;
  CHECK(j.at("block_iterations") == fp::kNoiseBlockIterations);
  CHECK(j.at("blocks") == 4);
  CHECK(j.get<fp::NoiseProfile>() == p);

  fp::NoiseReadings r = readings();
  r.steal_seconds.reset();
  r.run_delay_seconds.reset();
  r.involuntary_switches.reset();
  const fp::NoiseProfile unknown = fp::summarize_noise(r);
  const json u = unknown;
  CHECK(u.at("steal_pct").is_null());
  CHECK(u.at("involuntary_switches").is_null());
  CHECK(u.get<fp::NoiseProfile>() == unknown);

  // Not taken: the reason by name beside its words, read back by the name.
  const fp::NoiseProfile none = fp::noise_not_measured(fp::NoiseNotTaken::profile_off);
  CHECK(json(none) == json{{"not_measured", "noise_profile: 0s"}, {"why", "profile_off"}});
  CHECK(json(none).get<fp::NoiseProfile>() == none);
  const fp::NoiseProfile away = fp::noise_not_measured(fp::NoiseNotTaken::other_machine, "tcp://lab:2376");
  CHECK(json(away).at("where") == "tcp://lab:2376");
  CHECK(json(away).get<fp::NoiseProfile>() == away);
  // An older fingerprint's words alone (or a name this noisefloor does not know): said as written.
  for (const json& old_one : {json{{"not_measured", "the run's room is ssh://x"}},
                              json{{"not_measured", "the run's room is ssh://x"}, {"why", "later_reason"}}}) {
    const auto read = old_one.get<fp::NoiseProfile>();
    CHECK(read.not_measured == fp::NoiseNotTaken::said);
    CHECK(fp::noise_line(read) == "not measured: the run's room is ssh://x");
    CHECK(json(read) == json{{"not_measured", "the run's room is ssh://x"}});
  }

  CHECK_THROWS_AS(json::array().get<fp::NoiseProfile>(), noisefloor::ParseError);
  CHECK_THROWS_AS((json{{"not_measured", ""}}.get<fp::NoiseProfile>()), noisefloor::ParseError);
  json bad = j;
  bad["seconds"] = "1";
  CHECK_THROWS_AS(bad.get<fp::NoiseProfile>(), noisefloor::ParseError);
  bad = j;
  bad["blocks"] = 1.5;
  CHECK_THROWS_AS(bad.get<fp::NoiseProfile>(), noisefloor::ParseError);
  bad = j;
  bad["unknown"] = json::array({1});
  CHECK_THROWS_AS(bad.get<fp::NoiseProfile>(), noisefloor::ParseError);
}
