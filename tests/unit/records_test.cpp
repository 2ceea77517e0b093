// records/: the typed records and their JSON, both directions, including what noisefloor 0.1
// wrote (tests/data/results/*: small from an early 0.1, paired-0.1 and docker-0.1 from the last).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "jsonread/parse.hpp"
#include "model/errors.hpp"
#include "records/documents.hpp"
#include "records/fingerprint.hpp"
#include "records/fleet.hpp"
#include "records/run.hpp"
#include "records/sample.hpp"
#include "records/samples.hpp"
#include "test_support.hpp"
#include "text/text.hpp"

using namespace noisefloor;
using nlohmann::json;
using testing::kData;
using testing::slurp;

namespace {

records::RunRecord full_run() {
  records::RunRecord r;
  r.experiment = "demo";
  r.description = "what it shows";
  r.experiment_file = "experiments/demo.yaml";
  r.run_id = "20261130T050436Z";
  r.status = records::RunStatus::interrupted;
  r.error = "interrupted";
  r.started_utc = "2026-11-30T05:04:36.000Z";
  r.finished_utc = "2026-11-30T05:05:36.000Z";
  r.command_line = "noisefloor run demo.yaml";
  r.conditions = {"idle", "pinned"};
  // A sweep's point, one setting on a numeric axis and one a category.
  r.sweeps["pinned"] = {"pin", {{"spinners", "2", 2.0}, {"cpus", "same", std::nullopt}}, 3};
  r.summary_header = {"# CV comparison — BenchmarkX, count=3"};
  records::ConditionRecord c;
  c.condition = "pinned";
  c.block = 1;
  c.started_utc = "2026-11-30T05:04:40.000Z";
  c.finished_utc = "2026-11-30T05:04:50.000Z";
  c.load_before = {fingerprint::LoadAverage{1.5, 1.25, 1, 3, 200}, ""};
  c.load_after = fingerprint::LoadReading{std::nullopt, "missing /proc/loadavg"};
  c.setup.spinners = records::SpinnerSetup{2, {1}, {101, 102}, 10, {}};
  c.setup.args = {"-test.cpu=2"};
  c.setup.env = {{"GOMAXPROCS", "2"}};
  c.setup.container =
      records::ContainerSetup{"noisefloor-auto:abc", "0", 1.0, 536870912, 536870912, "none", true, 1024};
  records::InvocationRecord inv;
  inv.invocation = 4;
  inv.argv = {"/bench/x.test", "-test.count=1"};
  inv.exit_code = 0;
  inv.wall_seconds = 1.25;
  inv.details.container =
      records::ContainerRun{"c0ffee", "nf-1", "noisefloor-auto:abc", "sha256:1", "s", "f", 0, false, false};
  probe::Effective limits;
  limits.cpuset = "0";
  limits.cfs_quota_us = 100000;
  limits.cfs_period_us = 100000;
  limits.memory_limit = 536870912;
  inv.details.limits_engine = limits;
  limits.nproc = 1;
  limits.cgroup_version = 2;
  inv.details.limits_inside = limits;
  inv.details.probe = {{"cpus_allowed", "0"}, {"nproc", "1"}};
  // run.json keeps a finding's words: read back, they are said as written.
  inv.details.verification =
      probe::Verification{{}, {{.kind = probe::LimitCheck::Kind::said, .asked = "swap accounting is off"}}};
  inv.pair = records::PairPosition{"fast", 3, model::PairOrder::ba, "fast"};
  c.runs.push_back(inv);
  records::InvocationRecord host;
  host.details.affinity_unknown = "the benchmark exited before it could be read back";
  c.runs.push_back(host);
  r.condition_records.push_back(c);
  r.warnings = {
      {.kind = records::RunWarningKind::benchmark_failed,
       .condition = "idle",
       .invocation = 3,
       .invocations = 10,
       .benchmark = "BenchmarkX"},
      {.kind = records::RunWarningKind::benchmark_error,
       .condition = "idle",
       .variant = "fast",
       .invocation = 2,
       .detail = "BM_X: it went wrong"},
      {.kind = records::RunWarningKind::non_finite_metric,
       .condition = "idle",
       .benchmark = "BM_X",
       .unit = "hit_ratio",
       .detail = "nan"},
      {.kind = records::RunWarningKind::container_left, .detail = "engine gone", .container = "4f2a"},
      {.kind = records::RunWarningKind::unit_conflict, .detail = "x", .file = "a.txt", .line = 4}};
  r.comparison = records::ComparisonSettings{"base", true, 0.02, false};
  r.adaptive["idle"] =
      records::AdaptiveOutcome{false, 200, 0.013, 0.01, records::StopReason::max_samples, "99% median CI"};
  return r;
}

}  // namespace

TEST_CASE("records: a sample goes to JSON and back, paired fields only when paired") {
  records::Sample s;
  s.condition = "idle";
  s.benchmark = "BenchmarkX";
  s.name = "BenchmarkX-2";
  s.procs = 2;
  s.index = 3;
  s.invocation = 1;
  s.iterations = 1000;
  s.metrics = {{11.5, "ns/op"}, {64, "B/op"}};
  s.elapsed_seconds = 1.5;
  s.utc = "2026-11-30T05:04:36.123Z";
  json j = s;
  CHECK_FALSE(j.contains("variant"));
  CHECK(j["metrics"][1] == json{{"value", 64.0}, {"unit", "B/op"}});
  CHECK(j.get<records::Sample>() == s);
  s.variant = "fast";
  s.repeat = 3;
  s.pair = "fast";
  s.order = model::PairOrder::ba;
  j = s;
  CHECK(j["order"] == "BA");
  CHECK(j.get<records::Sample>() == s);
  j["order"] = "AC";  // not an order: refused, never read as none
  CHECK_THROWS_WITH_AS(j.get<records::Sample>(), doctest::Contains("expected AB, BA, ABBA or BAAB"),
                       ParseError);
  CHECK_THROWS_AS(
      json({{"condition", "x"}, {"benchmark", "y"}, {"metrics", json::array()}}).get<records::Sample>(),
      ParseError);
}

TEST_CASE("records: names read from a sample keep no line break, colour or control of their own") {
  // Issue 42, item 4: a name with a newline printed a line of its author's choosing under check.
  // A Sample holds the file's strings as they are; the Samples that take it in keep them escaped.
  const json j = {{"condition", "idle\x1b]8;;http://x\x07"},
                  {"benchmark", "BM_x\nREPRODUCED cv(idle, h1) < 1%"},
                  {"variant",
                   "\x9b"
                   "8m"},
                  {"metrics", {{{"value", 1.0}, {"unit", "ns/op"}}}}};
  const auto raw = j.get<records::Sample>();
  CHECK(raw.benchmark == "BM_x\nREPRODUCED cv(idle, h1) < 1%");
  records::Samples samples;
  samples.push_back(raw);
  const records::Sample s = samples[0].sample();
  CHECK(s.condition == "idle\\x1b]8;;http://x\\x07");
  CHECK(s.benchmark == "BM_x\\x0aREPRODUCED cv(idle, h1) < 1%");
  CHECK(s.name == s.benchmark);
  CHECK(s.variant == "\\x9b8m");
}

TEST_CASE("records: a run record with every kind of condition and invocation goes to JSON and back") {
  const records::RunRecord r = full_run();
  const json j = r;
  CHECK(j["schema_version"] == records::kRunSchemaVersion);
  CHECK(j["status"] == "interrupted");
  CHECK(j["condition_records"][0]["setup"]["spinners"]["cpus"] == "1");
  CHECK(j["condition_records"][0]["load_before"]["value"]["one"] == 1.5);
  CHECK(j["condition_records"][0]["runs"][1]["details"]["affinity"] ==
        "unknown (the benchmark exited before it could be read back)");
  CHECK(j["comparison"]["design"] == "paired");
  CHECK(j.get<records::RunRecord>() == r);
  // Through text, as run.json holds it.
  CHECK(json::parse(j.dump(2)).get<records::RunRecord>() == r);
}

TEST_CASE("records: a run's warnings are written by kind and fields, an older file's sentence read back") {
  const json j = full_run();
  CHECK(j["warnings"][0] == json{{"kind", "benchmark_failed"},
                                 {"condition", "idle"},
                                 {"invocation", 3},
                                 {"invocations", 10},
                                 {"benchmark", "BenchmarkX"}});
  CHECK(j["warnings"][2]["kind"] == "non_finite_metric");
  json old = j;
  old["warnings"] = {"condition 'idle', run 1 of 3: benchmark BenchmarkX failed"};
  CHECK(old.get<records::RunRecord>().warnings ==
        std::vector<records::RunWarning>{
            {.detail = "condition 'idle', run 1 of 3: benchmark BenchmarkX failed"}});
  // A kind this noisefloor does not know (a newer one's) is read as its detail, not refused.
  old["warnings"] = {{{"kind", "from_the_future"}, {"detail", "said \x1b[31mplainly"}}};
  const auto w = old.get<records::RunRecord>().warnings.at(0);
  CHECK(w.kind == records::RunWarningKind::other);
  CHECK(w.detail == text::name_safe("said \x1b[31mplainly"));
}

TEST_CASE("records: a closed set is written by its name and read back only from a name it has") {
  json j = full_run();
  CHECK(j["adaptive"]["idle"]["stopped_by"] == "max_samples");
  j["adaptive"]["idle"]["stopped_by"] = "time budget";
  CHECK(j.get<records::RunRecord>().adaptive.at("idle").stopped_by == records::StopReason::time_budget);
  j["adaptive"]["idle"]["stopped_by"] = "patience";
  CHECK_THROWS_WITH_AS(
      j.get<records::RunRecord>(),
      "stopped_by: \"patience\" is not one of: precision, max_samples, time budget, decided, futile",
      ParseError);
}

TEST_CASE("records: a newer run.json is refused with what to do") {
  json j = full_run();
  j["schema_version"] = records::kRunSchemaVersion + 1;
  CHECK_THROWS_WITH_AS(j.get<records::RunRecord>(),
                       "schema_version 2 is newer than this noisefloor reads (1): upgrade noisefloor",
                       ParseError);
}

TEST_CASE("records: run.json of every 0.1 result reads back, both load shapes") {
  // The first 0.1 results wrote the load flat; the later ones as a fact.
  const auto early = json::parse(slurp(kData + "/results/small/run.json")).get<records::RunRecord>();
  REQUIRE(early.condition_records.size() == 3);
  CHECK(early.condition_records[0].load_before.value == fingerprint::LoadAverage{1.11, 1.42, 1.2, 5, 122});
  CHECK(early.condition_records[1].setup.spinners->count == 1);
  CHECK(early.condition_records[1].setup.spinners->cpus.empty());  // "unpinned"
  CHECK(early.condition_records[2].setup.affinity == std::vector<int>{0});
  CHECK(early.condition_records[2].runs[0].details.nice == 5);

  const json late_json = json::parse(slurp(kData + "/results/paired-0.1/run.json"));
  const auto late = late_json.get<records::RunRecord>();
  REQUIRE(late.condition_records.size() == 2);
  CHECK(late.condition_records[0].load_before.value.has_value());
  CHECK(late.condition_records[0].runs[0].pair->variant == "once");
  // Written again, the record says what the file said.
  json again = late;
  for (const char* added : {"description", "experiment_file", "comparison", "adaptive"}) again.erase(added);
  CHECK(again == late_json);

  const json docker_json = json::parse(slurp(kData + "/results/docker-0.1/run.json"));
  const auto docker = docker_json.get<records::RunRecord>();
  const auto& pinned = docker.condition_records.at(1);
  REQUIRE(pinned.setup.container.has_value());
  CHECK(pinned.setup.container->cpuset == "0");
  const auto& details = pinned.runs.at(0).details;
  REQUIRE(details.limits_inside.has_value());
  CHECK(details.limits_inside->nproc == 1);
  CHECK(details.verification->mismatches.empty());
  // A typed finding is written as its words.
  const probe::Verification typed{{{.kind = probe::LimitCheck::Kind::affinity_count,
                                    .limit = "cpuset",
                                    .asked = "\"0\"",
                                    .expected = 1,
                                    .actual = 2}},
                                  {}};
  CHECK(json(typed)["mismatches"] ==
        json::array(
            {"cpuset: asked for \"0\" (1 CPU), but inside the container the affinity mask holds 2 CPUs"}));
  CHECK(details.container->exit_code == 0);
  again = docker;
  for (const char* added : {"description", "experiment_file"}) again.erase(added);
  CHECK(again == docker_json);
}

TEST_CASE("records: fingerprint.json of 0.1 reads back into the typed fingerprint and writes the same") {
  for (const char* result : {"small", "paired-0.1", "docker-0.1"}) {
    CAPTURE(result);
    json file = json::parse(slurp(kData + "/results/" + result + "/fingerprint.json"));
    const auto fp = file.get<records::Fingerprint>();
    REQUIRE(fp.run.has_value());
    CHECK(fp.host.text("cpu.model_name").has_value());
    // 0.1 said how pairs were ordered in words only: not read back (its schedule is, a name;
    // the first results said neither).
    CHECK(fp.run->schedule.has_value() == file["run"].contains("schedule"));
    CHECK_FALSE(fp.run->pairing.has_value());
    file["run"].erase("paired_order");
    CHECK(json(fp) == file);
  }
  // Now the pairing's name beside its words; the words written from the name, never read.
  records::RunFacts facts;
  facts.schedule = model::Schedule::interleaved;
  facts.pairing = model::Pairing::quads;
  json j = facts;
  CHECK(j["schedule"] == "interleaved");
  CHECK(j["order"] == "round-robin over conditions in file order (deterministic: no random seed)");
  CHECK(j["pairing"] == "quads");
  CHECK(j["paired_order"] == "quads b h h' b' / h b b' h', ABBA over the kept repeats (deterministic)");
  j["paired_order"] = "anything";
  CHECK(j.get<records::RunFacts>() == facts);
  j["pairing"] = "abba";
  CHECK(j.get<records::RunFacts>().pairing == model::Pairing::abba);
  const auto docker =
      json::parse(slurp(kData + "/results/docker-0.1/fingerprint.json")).get<records::Fingerprint>();
  REQUIRE(docker.engine.has_value());
  CHECK(docker.engine->images.count("pinned") == 1);
  REQUIRE(docker.doctor.has_value());
  CHECK(docker.host_load().has_value());
}

TEST_CASE("records: a fingerprint without an engine says why; unknown parts are refused") {
  records::Fingerprint fp;
  fp.engine_unknown = "cannot reach the Docker engine";
  const json j = fp;
  CHECK(j["engine"] == json{{"value", nullptr}, {"unknown", "cannot reach the Docker engine"}});
  CHECK(j.get<records::Fingerprint>().engine_unknown == "cannot reach the Docker engine");
  CHECK(records::Fingerprint{}.host_line() == "unknown host");
  CHECK_THROWS_AS(json({{"doctor", {{"grade", "great"}}}}).get<records::Fingerprint>(), ParseError);
  CHECK_THROWS_AS(json({{"schema_version", 9}}).get<records::Fingerprint>(), ParseError);
}

TEST_CASE("records: a counter that is not a number is written as null and read back as NaN") {
  records::Sample s;
  s.condition = "idle";
  s.benchmark = s.name = "BM_Rate";
  s.metrics = {{12.5, "ns/op"}, {std::numeric_limits<double>::quiet_NaN(), "items_per_second"}};
  const nlohmann::json j = s;
  CHECK(j["metrics"][1]["value"].is_null());
  const auto back = nlohmann::json::parse(j.dump()).get<records::Sample>();
  CHECK(back.metrics[0].value == 12.5);
  CHECK(std::isnan(back.metrics[1].value));
  CHECK(back.metrics[1].unit == "items_per_second");
}

TEST_CASE("records: a spinner is starved below a tenth of its expected share, over at least 0.2 s") {
  records::SpinnerLoad load;
  load.expected_share = 0.5;  // two spinners on one CPU
  load.wall_seconds = 1.0;
  load.cpu_seconds = 0.06;  // 6% of a CPU: above 5%
  CHECK_FALSE(load.starved());
  load.cpu_seconds = 0.04;  // 4%: below a tenth of 50%
  CHECK(load.starved());
  load.wall_seconds = 0.1;  // too short a window to judge
  load.cpu_seconds = 0.0;
  CHECK_FALSE(load.starved());
  load.cpu_seconds.reset();  // unreadable: no verdict
  load.wall_seconds = 1.0;
  CHECK_FALSE(load.starved());
  CHECK_FALSE(load.share().has_value());
}

TEST_CASE(
    "records: a whole-number field holding a float or a number beyond its type is an error, not a cast") {
  // Found by fuzzing the results loader: "procs": 5.5e67 went through nlohmann's static_cast.
  const auto sample = [](const std::string& procs) {
    return nlohmann::json::parse(R"({"condition": "idle", "benchmark": "B", "procs": )" + procs +
                                 R"(, "metrics": [{"unit": "ns/op", "value": 1}]})")
        .get<records::Sample>();
  };
  CHECK(sample("3").procs == 3);
  CHECK_THROWS_WITH_AS(sample("5.5e67"),
                       "procs: expected a whole number from -2147483648 to 2147483647, got 5.5e+67",
                       ParseError);
  CHECK_THROWS_WITH_AS(sample("2.5"),
                       "procs: expected a whole number from -2147483648 to 2147483647, got 2.5", ParseError);
  CHECK_THROWS_WITH_AS(sample("4294967296"),
                       "procs: expected a whole number from -2147483648 to 2147483647, got 4294967296",
                       ParseError);
}

TEST_CASE("records: fleet.json goes to JSON and back; a newer one is refused") {
  using namespace noisefloor::records;
  FleetRecord f{"laptop-trust",
                "experiments/laptop-trust.yaml",
                "20261130T230102Z",
                "2026-11-30T23:01:02.000Z",
                "2026-11-30T23:05:00.000Z",
                "noisefloor run x --host default --host ci",
                {}};
  f.hosts.push_back({"default",
                     "default",
                     "unix:///var/run/docker.sock",
                     "default context",
                     true,
                     RunStatus::complete,
                     std::nullopt,
                     {"pinned"},
                     41.5});
  f.hosts.push_back({"ci",
                     "ci",
                     "tcp://10.0.0.7:2376",
                     "context 'ci' (/root/.docker/contexts/meta/x/meta.json)",
                     false,
                     RunStatus::failed,
                     std::string("cannot reach the Docker engine"),
                     {"idle", "noisy", "pinned"},
                     3});
  const nlohmann::json j = f;
  CHECK(j["schema_version"] == 1);
  CHECK(j["hosts"][1]["status"] == "failed");
  CHECK(j.get<FleetRecord>() == f);
  nlohmann::json newer = j;
  newer["schema_version"] = 2;
  CHECK_THROWS_WITH_AS(newer.get<FleetRecord>(),
                       "schema_version 2 is newer than this noisefloor reads (1): upgrade noisefloor",
                       noisefloor::ParseError);
  nlohmann::json bad = j;
  bad["hosts"] = "x";
  CHECK_THROWS_AS(bad.get<FleetRecord>(), noisefloor::ParseError);
}

namespace {
records::Sample plain(const std::string& condition, const std::string& name, int index, double ns,
                      std::int64_t iterations = 1000) {
  records::Sample s;
  s.condition = condition;
  s.name = name;
  s.benchmark = name.substr(0, name.rfind('-'));
  s.procs = 2;
  s.index = index;
  s.iterations = iterations;
  s.metrics = {{ns, "ns/op"}, {64, "B/op"}};
  return s;
}
}  // namespace

TEST_CASE("records: samples stored by column read back as they went in, in arrival order") {
  // Two benchmarks interleaved (two series), then a paired sample with bookkeeping (every
  // earlier sample's implied bookkeeping becomes explicit), a 64-bit iteration count, a NaN.
  std::vector<records::Sample> in = {
      plain("idle", "BenchmarkA-2", 0, 10), plain("idle", "BenchmarkB-2", 0, 20),
      plain("idle", "BenchmarkA-2", 1, 11), plain("idle", "BenchmarkB-2", 1, 21)};
  records::Samples stored(in);
  REQUIRE(stored.size() == 4);
  CHECK(stored.to_vector() == in);
  CHECK(stored[3].name == "BenchmarkB-2");
  CHECK(stored[3].index == 1);  // implied: the second BenchmarkB of idle
  CHECK_FALSE(stored.any_pair());
  records::Sample paired = plain("idle", "BenchmarkA-2", 7, 12, std::int64_t{1} << 40);
  paired.variant = "new";
  paired.pair = "new";
  paired.order = model::PairOrder::ba;
  paired.repeat = 7;
  paired.warmup = true;
  paired.elapsed_seconds = 1.5;
  paired.utc = "2026-12-01T07:00:00.000Z";
  paired.session = 1;
  paired.metrics.push_back({std::nan(""), "x/op"});
  stored.push_back(paired);
  in.push_back(paired);
  CHECK(stored.any_pair());
  CHECK(stored == records::Samples(in));  // Samples' == counts a NaN equal to a NaN; Sample's does not
  const records::SampleRef last = stored.back();
  CHECK(last.iterations == std::int64_t{1} << 40);
  CHECK(last.order == model::PairOrder::ba);
  CHECK(last.utc == "2026-12-01T07:00:00.000Z");
  CHECK(std::isnan(last.metrics[2].value));
  CHECK(last.metrics[2].unit == "x/op");
  // A copy owns its strings: the original can go.
  records::Samples copy;
  {
    records::Samples original(in);
    copy = original;
  }
  CHECK(copy == stored);
  CHECK(copy.front().condition == "idle");
  // Conditions renamed in place, samples unchanged otherwise.
  copy.rename_conditions([](const std::string& c) { return "run1:" + c; });
  for (const records::SampleRef s : copy) CHECK(s.condition == "run1:idle");
  CHECK(copy.size() == 5);
}

TEST_CASE(
    "records: a go test result costs a series row, not a record, and reads back with its implied index") {
  records::Samples s;
  const std::string_view units[] = {"ns/op", "B/op"};
  for (int i = 0; i < 3; ++i) {
    const double values[] = {10.0 + i, 64};
    s.push_result("old", "BenchmarkX", "BenchmarkX-2", 2, 1000 + i, values, units);
  }
  REQUIRE(s.size() == 3);
  int expected = 0;
  for (const records::SampleRef r : s) {
    CHECK(r.index == expected);
    CHECK(r.iterations == 1000 + expected);
    CHECK(r.metrics.front().value == 10.0 + expected);
    CHECK(r.metrics[1].unit == "B/op");
    CHECK_FALSE(r.warmup);
    CHECK(r.repeat == -1);
    ++expected;
  }
  CHECK(s[2].index == 2);
  // A count beyond 32 bits widens the series' column; the counts before it stay.
  const double values[] = {13.0, 64};
  s.push_result("old", "BenchmarkX", "BenchmarkX-2", 2, std::int64_t{3} << 33, values, units);
  CHECK(s[0].iterations == 1000);
  CHECK(s[2].iterations == 1002);
  CHECK(s[3].iterations == std::int64_t{3} << 33);
}

TEST_CASE("records: JSON nested deeper than 256 levels is refused before it is parsed") {
  // 150 000 nested arrays (300 KB) crashed cv, report and compare with SIGSEGV (a recursive copy).
  const std::string deep = std::string(150000, '[') + std::string(150000, ']');
  CHECK(noisefloor::jsonread::json_depth(deep) == 150000);
  CHECK_THROWS_WITH_AS(noisefloor::jsonread::parse_json(deep, "fingerprint.json"),
                       "fingerprint.json is nested deeper than 256 levels (not something noisefloor wrote)",
                       noisefloor::ParseError);
  CHECK(noisefloor::jsonread::parse_json_or_discarded(deep).is_discarded());
  // Brackets inside strings do not count; 256 levels are fine.
  CHECK(noisefloor::jsonread::json_depth(R"({"a": "[[[[{{{{\"]]"})") == 1);
  const std::string ok = std::string(256, '[') + std::string(256, ']');
  CHECK(noisefloor::jsonread::parse_json(ok, "x").is_array());
  CHECK_THROWS_AS(noisefloor::jsonread::parse_json("{", "x"), nlohmann::json::parse_error);
}

TEST_CASE("records: a few members of a large object are read as the whole parse reads them") {
  using noisefloor::jsonread::parse_json;
  using noisefloor::jsonread::parse_json_members;
  // Strings holding quotes, escapes, brackets and commas; nested values; spaces around everything.
  const std::string doc = R"( { "table" : {"rows": [1, {"a": "}],\"{"}], "x": "\\"} ,
    "paired":[ {"design": "blocks", "n": [1,2]} ], "experiment": {"description": "a, \"b\" [c]"},
    "comparison": {"alpha": 0.05}, "run": "r" , "adaptive": {} } )";
  const nlohmann::json whole = parse_json(doc, "x");
  const nlohmann::json some =
      parse_json_members(doc, "x", {"adaptive", "comparison", "experiment", "paired"});
  CHECK(some.size() == 4);
  for (const char* key : {"adaptive", "comparison", "experiment", "paired"}) CHECK(some[key] == whole[key]);
  CHECK(parse_json_members(doc, "x", {"run"}) == nlohmann::json{{"run", "r"}});
  CHECK(parse_json_members("{}", "x", {"run"}) == nlohmann::json::object());
  CHECK(parse_json_members(R"({"run": 1, "run": 2})", "x", {"run"}) ==
        parse_json(R"({"run": 1, "run": 2})", "x"));
  // Not an object of that shape: parsed whole, its own error or its own value.
  CHECK_THROWS_AS(parse_json_members(R"({"run": "r")", "x", {"run"}), nlohmann::json::parse_error);
  CHECK_THROWS_AS(parse_json_members(R"({"run": "r"} x)", "x", {"run"}), nlohmann::json::parse_error);
  CHECK(parse_json_members("[1]", "x", {"run"}) == nlohmann::json::array({1}));
  // A kept member that is not JSON is refused; one passed over is never parsed.
  CHECK_THROWS_AS(parse_json_members(R"({"run": tru, "b": 1})", "x", {"run"}), nlohmann::json::parse_error);
  CHECK(parse_json_members(R"({"run": tru, "b": 1})", "x", {"b"}) == nlohmann::json{{"b", 1}});
  // The nesting bound holds for what is parsed.
  const std::string deep = R"({"run": )" + std::string(300, '[') + std::string(300, ']') + "}";
  CHECK_THROWS_AS(parse_json_members(deep, "x", {"run"}), noisefloor::ParseError);
}

TEST_CASE("documents: what a results directory holds is read as untrusted, its errors said plainly") {
  // A run.json nested past the bound is refused before the JSON library recurses into it.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  CHECK_THROWS_WITH_AS(records::run_from_text(deep, "r/run.json"),
                       doctest::Contains("r/run.json: the document is nested deeper than 256 levels"),
                       InputError);
  // Every string read is made name-safe: a terminal escape in a description prints nothing of its own.
  const records::RunRecord run =
      records::run_from_text(R"({"schema_version": 1, "description": "a\u001b[31mred"})", "r/run.json");
  CHECK(run.description.find('\x1b') == std::string::npos);
  CHECK(run.description == text::name_safe("a\x1b[31mred"));
  // A damaged line of samples.jsonl: the library's message without its tags, the column apart.
  try {
    (void)records::sample_from_line("{\"condition\": ");
    FAIL("accepted a torn line");
  } catch (const records::SampleLineError& e) {
    CHECK(e.column == 15);  // one past the 14 characters: where the input ended
    CHECK(std::string(e.what()) == "invalid JSON: unexpected end of input; expected '[', '{', or a literal");
    CHECK(std::string(e.what()).find("[json.exception") == std::string::npos);
  }
  // JSON, but not a sample: no column.
  try {
    (void)records::sample_from_line(R"({"condition": 1})");
    FAIL("accepted a number for a name");
  } catch (const records::SampleLineError& e) {
    CHECK(e.column == 0);
    CHECK(std::string(e.what()).find("[json.exception") == std::string::npos);
  }
  CHECK(records::run_status_from_text(R"({"status": "interrupted"})") == "interrupted");
  CHECK(records::run_status_from_text("{}") == "unknown");
  // What is written reads back the same.
  records::RunRecord written;
  written.run_id = "20261206-0801-abc";
  CHECK(records::run_from_text(records::document_text(written), "x").run_id == written.run_id);
  CHECK(records::document_text(written).ends_with("}\n"));
}
