// store/database: a run stored and read back on a real SQLite file, with more rows than one INSERT
// carries (the rows go in statements of 200): every value where it was put, the unknown CVs
// unknown, the claims whole, and the same run stored twice one run.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <string>

#include "store/database.hpp"
#include "temp_root.hpp"

namespace noisefloor::store {
namespace {

StoredRun run_of(std::size_t rows) {
  StoredRun run;
  run.id = std::string(64, 'a');
  run.experiment = "many";
  run.run_id = "r1";
  run.started_utc = "2026-12-06T00:00:00Z";
  run.finished_utc = "2026-12-06T00:01:00Z";
  run.status = "complete";
  run.engine = "none";
  run.version = "test";
  run.machine.id = "0123456789abcdef";
  run.machine.facts = {{"cpu_vendor", "GenuineIntel"}, {"logical_cpus", "2"}};
  for (std::size_t i = 0; i < rows; ++i)
    run.rows.push_back({fmt::format("c{}", i % 3), fmt::format("Benchmark{}", i), "ns/op",
                        static_cast<std::int64_t>(i + 2), 10.0 + static_cast<double>(i),
                        20.5 + static_cast<double>(i),
                        i % 7 == 0 ? std::nullopt : std::optional<double>(0.25 * static_cast<double>(i))});
  run.claims = {{"cv(c0) < 5%", "REPRODUCED"}, {"cv(c1) < cv(c2)", "INCONCLUSIVE"}};
  run.archive = std::string("\x1f\x8b not really a gzip", 20);
  return run;
}

TEST_CASE("store database: 450 rows stored in statements of 200 come back whole and in order") {
  testing::TempRoot root;
  Database db("sqlite:" + (root.path() / "store.db").string(), 2);
  const StoredRun run = run_of(450);
  CHECK(db.insert_run(run, "2026-12-06T00:02:00Z", "key1").created);
  const auto points = db.cv_points("many");
  REQUIRE(points.size() == run.rows.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    const StoredRow& r = run.rows[i];
    CAPTURE(i);
    CHECK(points[i].condition == r.condition);
    CHECK(points[i].benchmark == r.benchmark);
    CHECK(points[i].unit == r.unit);
    CHECK(points[i].n == r.n);
    CHECK(points[i].median == r.median);
    CHECK(points[i].cv_pct == r.cv_pct);
    CHECK(points[i].machine == run.machine.id);
  }
  const auto claims = db.claim_verdicts("many");
  REQUIRE(claims.size() == 2);
  CHECK(claims[1].claim == "cv(c1) < cv(c2)");
  CHECK(claims[1].verdict == "INCONCLUSIVE");
  CHECK(db.archive(run.id) == run.archive);

  // The same run again: one run, the rows not doubled; found by its id.
  CHECK_FALSE(db.insert_run(run, "2026-12-06T00:03:00Z", "key1").created);
  CHECK(db.run_count() == 1);
  CHECK(db.cv_points("many").size() == 450);
  RunFilter same;
  same.id = run.id;
  const auto found = db.runs(same);
  REQUIRE(found.size() == 1);
  CHECK(found.front().run_id == "r1");
  same.id = std::string(64, 'b');
  CHECK(db.runs(same).empty());
}

}  // namespace
}  // namespace noisefloor::store
