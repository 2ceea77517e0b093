// The store's database: SQLite (WAL) or PostgreSQL through SOCI, one schema and the same SQL for
// both. I/O edge. Every method is safe to call from several threads: each takes a session of the
// pool for its own statements.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "records/store.hpp"
#include "store/keys.hpp"
#include "store/machine.hpp"

namespace noisefloor::store {

// --db: `sqlite:PATH` (the file is made when missing) or a PostgreSQL connection: a URI
// (`postgresql://user@host/db`) or keywords (`postgresql://dbname=nf host=/run/pg`).
struct DatabaseUrl {
  bool sqlite = true;
  std::string backend;  // SOCI's: "sqlite3" or "postgresql"
  std::string connect;  // what the backend is given
  std::string shown;    // the URL without a password, for messages
};
// Throws ConfigError naming --db and the accepted forms.
DatabaseUrl parse_database_url(std::string_view url);

class Database {
 public:
  // Connects `connections` sessions and makes or checks the schema. Throws RunError with the
  // backend's own message when the database cannot be opened.
  explicit Database(const std::string& url, std::size_t connections = 1);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  const DatabaseUrl& url() const;

  struct Inserted {
    std::string id;
    bool created = false;  // false: the same content was stored before, under `id`
  };
  // Stores the run, its machine, rows, claims and upload in one transaction; a run whose id is
  // already stored is left as it is.
  Inserted insert_run(const StoredRun& run, const std::string& published_utc, const std::string& key_id);
  std::vector<RunListing> runs(const RunFilter& filter);
  std::optional<std::string> archive(const std::string& run_id);  // the upload as sent
  std::size_t run_count();

  std::vector<records::ExperimentCount> experiments();
  std::vector<CvPoint> cv_points(const std::string& experiment);
  std::vector<Machine> machines(const std::string& experiment);
  std::vector<ClaimVerdict> claim_verdicts(const std::string& experiment);
  std::vector<GateResult> gates(const std::string& experiment);

  void add_key(const KeyRecord& key);
  std::vector<KeyRecord> keys();
  std::optional<KeyRecord> key(const std::string& id);
  bool revoke_key(const std::string& id, const std::string& utc);  // false: no such key

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace noisefloor::store
