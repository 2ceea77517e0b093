#include "store/database.hpp"

#include <fmt/format.h>
#include <soci/connection-pool.h>
#include <soci/soci.h>

#include <algorithm>
#include <cstdint>
#include <mutex>

#include "model/errors.hpp"
#include "model/names.hpp"
#include "text/text.hpp"

namespace noisefloor::store {
namespace {

constexpr int kSchemaVersion = 1;

// The schema, the same SQL on SQLite and PostgreSQL: TEXT, BIGINT and DOUBLE PRECISION only,
// times as ISO 8601 UTC text (they sort as times do).
constexpr const char* kSchema[] = {
    "CREATE TABLE IF NOT EXISTS nf_schema (version BIGINT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS machines (id TEXT PRIMARY KEY, facts TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS runs (id TEXT PRIMARY KEY, experiment TEXT NOT NULL, "
    "machine TEXT NOT NULL REFERENCES machines (id), run_id TEXT NOT NULL, started_utc TEXT NOT NULL, "
    "finished_utc TEXT NOT NULL, status TEXT NOT NULL, engine TEXT NOT NULL, version TEXT NOT NULL, "
    "gate TEXT NOT NULL, gate_verdict TEXT NOT NULL, published_utc TEXT NOT NULL, key_id TEXT NOT NULL, "
    "bytes BIGINT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS runs_by_experiment ON runs (experiment, machine, started_utc)",
    "CREATE TABLE IF NOT EXISTS run_rows (run TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, "
    "seq BIGINT NOT NULL, condition_name TEXT NOT NULL, benchmark TEXT NOT NULL, unit TEXT NOT NULL, "
    "n BIGINT NOT NULL, mean DOUBLE PRECISION NOT NULL, median DOUBLE PRECISION NOT NULL, "
    "cv_pct DOUBLE PRECISION, PRIMARY KEY (run, seq))",
    "CREATE TABLE IF NOT EXISTS run_claims (run TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, "
    "seq BIGINT NOT NULL, claim TEXT NOT NULL, verdict TEXT NOT NULL, PRIMARY KEY (run, seq))",
    "CREATE TABLE IF NOT EXISTS run_archives (run TEXT PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE, "
    "gzip_base64 TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS api_keys (id TEXT PRIMARY KEY, hash TEXT NOT NULL, scope TEXT NOT NULL, "
    "created_utc TEXT NOT NULL, expires_utc TEXT NOT NULL, revoked_utc TEXT NOT NULL)",
};

// The stored archives as base64 text: one column type that SQLite and PostgreSQL read alike
// (a BLOB and a bytea differ), a third larger. libcrypto stays unloaded (hash/sha256.cpp).
constexpr std::string_view kBase64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64(std::string_view bytes) {
  std::string out;
  out.reserve(4 * ((bytes.size() + 2) / 3));
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < 3; ++k) v = v << 8 | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
    for (std::size_t k = 0; k < 4; ++k) out += k <= n ? kBase64[(v >> (18 - 6 * k)) & 63] : '=';
  }
  return out;
}

std::string unbase64(std::string_view text) {
  std::string out;
  out.reserve(text.size() / 4 * 3);
  std::uint32_t v = 0;
  int bits = 0;
  for (const char c : text) {
    if (c == '=') break;
    const auto at = kBase64.find(c);
    if (at == std::string_view::npos)
      throw RunError("store: a stored archive is not base64: the database was changed by hand");
    v = (v << 6 | static_cast<std::uint32_t>(at)) & 0xffffff;
    if ((bits += 6) >= 8) out += static_cast<char>((v >> (bits -= 8)) & 0xff);
  }
  return out;
}

std::string facts_text(const Machine& m) {
  std::string text;
  for (const auto& [name, value] : m.facts) text += fmt::format("{}={}\n", name, value);
  return text;
}

std::string first_line(std::string_view text) {
  const auto lines = text::lines(text);
  return lines.empty() ? std::string() : std::string(lines.front());
}

Machine machine_from(const std::string& id, const std::string& facts) {
  Machine m;
  m.id = id;
  for (const std::string_view line : text::lines(facts)) {
    const auto eq = line.find('=');
    if (eq != std::string_view::npos) m.facts.emplace_back(line.substr(0, eq), line.substr(eq + 1));
  }
  return m;
}

// A transaction that takes the write lock at once on SQLite (BEGIN IMMEDIATE: a deferred one that
// reads first can fail instead of waiting when two writers meet); rolled back unless committed. On
// SQLite the writers of this process also take turns on `writers` first: SQLite's own busy wait
// sleeps in steps of up to 100 ms (at 64 publishers the slowest 1% took 0.5 s with it, 0.3 s without).
class WriteTransaction {
 public:
  WriteTransaction(soci::session& s, bool sqlite, std::mutex& writers) : s_(s) {
    if (sqlite) turn_ = std::unique_lock(writers);
    s_ << (sqlite ? "BEGIN IMMEDIATE" : "BEGIN");
  }
  ~WriteTransaction() {
    if (!done_) try {
        s_ << "ROLLBACK";
      } catch (...) {
      }
  }
  WriteTransaction(const WriteTransaction&) = delete;
  WriteTransaction& operator=(const WriteTransaction&) = delete;
  void commit() {
    s_ << "COMMIT";
    done_ = true;
  }

 private:
  soci::session& s_;
  std::unique_lock<std::mutex> turn_;
  bool done_ = false;
};

}  // namespace

DatabaseUrl parse_database_url(std::string_view url) {
  DatabaseUrl u;
  if (url.starts_with("sqlite:") && url.size() > 7) {
    const std::string path(url.substr(url.starts_with("sqlite://") ? 9 : 7));
    u = {true, "sqlite3", fmt::format("db=\"{}\" timeout=30", path), std::string(url)};
    if (path.find('"') != std::string::npos)
      throw ConfigError("--db: a SQLite path may not hold a double quote");
    return u;
  }
  for (std::string_view scheme : {"postgresql://", "postgres://"})
    if (url.starts_with(scheme)) {
      const std::string rest(url.substr(scheme.size()));
      // Keywords (dbname=nf host=/run/pg) go to libpq as they are, a URI (user@host/db) whole.
      const std::size_t word = rest.find_first_not_of("abcdefghijklmnopqrstuvwxyz_");
      const bool keywords = word != std::string::npos && word > 0 && rest[word] == '=';
      u = {false, "postgresql", keywords ? rest : std::string(url), std::string(scheme) + "…"};
      return u;
    }
  throw ConfigError(
      fmt::format("--db {}: give sqlite:PATH or postgresql://... (a libpq URI or keywords)", url));
}

struct Database::Impl {
  DatabaseUrl url;
  std::size_t size;
  soci::connection_pool pool;
  std::mutex writers;  // SQLite's writers in this process, one at a time (WriteTransaction)
  Impl(DatabaseUrl u, std::size_t n) : url(std::move(u)), size(n), pool(n) {}

  // `work` on a session of the pool; the backend's error as the store's RunError.
  template <class Work>
  auto with_session(Work&& work) -> decltype(work(std::declval<soci::session&>()));
};

Database::Database(const std::string& url, std::size_t connections)
    : impl_(std::make_unique<Impl>(parse_database_url(url), std::max<std::size_t>(connections, 1))) {
  try {
    for (std::size_t i = 0; i < impl_->size; ++i) {
      soci::session& s = impl_->pool.at(i);
      s.open(impl_->url.backend, impl_->url.connect);
      if (!impl_->url.sqlite) s << "SET client_min_messages = WARNING";  // no NOTICE of a table that exists
      if (impl_->url.sqlite) {
        s << "PRAGMA journal_mode=WAL";
        s << "PRAGMA synchronous=NORMAL";
        s << "PRAGMA foreign_keys=ON";
      }
    }
    soci::session s(impl_->pool);
    WriteTransaction t(s, impl_->url.sqlite, impl_->writers);
    for (const char* statement : kSchema) s << statement;
    long long rows = 0;
    s << "SELECT COUNT(*) FROM nf_schema", soci::into(rows);
    long long version = kSchemaVersion;
    if (rows == 0) s << "INSERT INTO nf_schema (version) VALUES (:v)", soci::use(version);
    s << "SELECT MAX(version) FROM nf_schema", soci::into(version);
    if (version > kSchemaVersion)
      throw RunError(
          fmt::format("store: {} has schema {}, newer than this noisefloor's ({}): upgrade noisefloor",
                      impl_->url.shown, version, kSchemaVersion));
    t.commit();
  } catch (const soci::soci_error& err) {
    throw RunError(fmt::format("store: {}: {}", impl_->url.shown, first_line(err.what())));
  }
}

Database::~Database() = default;

const DatabaseUrl& Database::url() const { return impl_->url; }

namespace {

constexpr std::size_t kRowsAStatement = 200;  // rows one INSERT carries (both databases take 32,766 values)
constexpr auto kOnce = soci::details::st_one_time_query;  // not prepared: one round trip to PostgreSQL

// INSERT INTO `table` (`columns`) of `count` rows in statements of kRowsAStatement: one round trip
// for a run's rows, where a bulk bind is one a row on PostgreSQL. `bind(st, i)` binds row i's values
// in the columns' order (references that outlive the statement).
template <class Bind>
void insert_many(soci::session& s, std::string_view table, std::string_view columns, std::size_t count,
                 const Bind& bind) {
  const std::size_t width = static_cast<std::size_t>(std::count(columns.begin(), columns.end(), ',')) + 1;
  for (std::size_t first = 0; first < count; first += kRowsAStatement) {
    const std::size_t last = std::min(count, first + kRowsAStatement);
    std::string sql = fmt::format("INSERT INTO {} ({}) VALUES ", table, columns);
    soci::statement st(s);
    for (std::size_t i = first; i < last; ++i) {
      sql += i == first ? "(" : ", (";
      for (std::size_t k = 0; k < width; ++k)
        sql += fmt::format("{}:v{}", k ? ", " : "", (i - first) * width + k);
      sql += ")";
      bind(st, i);
    }
    st.alloc();
    st.prepare(sql, kOnce);
    st.define_and_bind();
    st.execute(true);
  }
}

void insert_rows(soci::session& s, const StoredRun& run) {
  std::vector<long long> numbers;  // seq and n of each row, bound by reference: reserved, never moved
  std::vector<double> cvs;
  std::vector<soci::indicator> cv_known;
  numbers.reserve(2 * run.rows.size());
  cvs.reserve(run.rows.size());
  cv_known.reserve(run.rows.size());
  insert_many(s, "run_rows", "run, seq, condition_name, benchmark, unit, n, mean, median, cv_pct",
              run.rows.size(), [&](soci::statement& st, std::size_t i) {
                const StoredRow& r = run.rows[i];
                numbers.push_back(static_cast<long long>(i));
                st.exchange(soci::use(run.id));
                st.exchange(soci::use(numbers.back()));
                st.exchange(soci::use(r.condition));
                st.exchange(soci::use(r.benchmark));
                st.exchange(soci::use(r.unit));
                numbers.push_back(r.n);
                st.exchange(soci::use(numbers.back()));
                st.exchange(soci::use(r.mean));
                st.exchange(soci::use(r.median));
                cvs.push_back(r.cv_pct.value_or(0));
                cv_known.push_back(r.cv_pct ? soci::i_ok : soci::i_null);
                st.exchange(soci::use(cvs.back(), cv_known.back()));
              });
}

void insert_claims(soci::session& s, const StoredRun& run) {
  std::vector<long long> seqs;
  seqs.reserve(run.claims.size());
  insert_many(s, "run_claims", "run, seq, claim, verdict", run.claims.size(),
              [&](soci::statement& st, std::size_t i) {
                seqs.push_back(static_cast<long long>(i));
                st.exchange(soci::use(run.id));
                st.exchange(soci::use(seqs.back()));
                st.exchange(soci::use(run.claims[i].claim));
                st.exchange(soci::use(run.claims[i].verdict));
              });
}

// The backend's message as the store's error: its first line, naming the database.
[[noreturn]] void database_failed(const DatabaseUrl& url, const soci::soci_error& err) {
  throw RunError(fmt::format("store: {}: {}", url.shown, first_line(err.what())));
}

}  // namespace

// A session whose server went away (PostgreSQL restarted) reconnects and the work runs once more;
// any other failure is the store's RunError.
template <class Work>
auto Database::Impl::with_session(Work&& work) -> decltype(work(std::declval<soci::session&>())) {
  try {
    soci::session s(pool);
    try {
      return work(s);
    } catch (const soci::soci_error&) {
      if (url.sqlite || s.is_connected()) throw;
      s.reconnect();
      if (!url.sqlite) s << "SET client_min_messages = WARNING";
      return work(s);
    }
  } catch (const soci::soci_error& err) {
    database_failed(url, err);
  }
}

Database::Inserted Database::insert_run(const StoredRun& run, const std::string& published_utc,
                                        const std::string& key_id) {
  return impl_->with_session([&](soci::session& s) -> Inserted {
    WriteTransaction t(s, impl_->url.sqlite, impl_->writers);
    const std::string facts = facts_text(run.machine);
    s << "INSERT INTO machines (id, facts) VALUES (:id, :facts) ON CONFLICT (id) DO NOTHING",
        soci::use(run.machine.id), soci::use(facts);
    const long long bytes = static_cast<long long>(run.archive.size());
    const std::string gate_verdict(model::name_of(run.gate_verdict));
    soci::statement insert(s);
    for (const std::string* value :
         {&run.id, &run.experiment, &run.machine.id, &run.run_id, &run.started_utc, &run.finished_utc,
          &run.status, &run.engine, &run.version, &run.gate, &gate_verdict, &published_utc, &key_id})
      insert.exchange(soci::use(*value));
    insert.exchange(soci::use(bytes));
    insert.alloc();
    insert.prepare(
        "INSERT INTO runs (id, experiment, machine, run_id, started_utc, finished_utc, status, engine, "
        "version, "
        "gate, gate_verdict, published_utc, key_id, bytes) VALUES (:id, :experiment, :machine, :run_id, "
        ":started, :finished, :status, :engine, :version, :gate, :verdict, :published, :key, :bytes) ON "
        "CONFLICT (id) DO NOTHING",
        kOnce);
    insert.define_and_bind();
    insert.execute(true);
    if (insert.get_affected_rows() == 0) return {run.id, false};  // stored before: rolled back
    insert_rows(s, run);
    insert_claims(s, run);
    const std::string encoded = base64(run.archive);
    s << "INSERT INTO run_archives (run, gzip_base64) VALUES (:run, :data)", soci::use(run.id),
        soci::use(encoded);
    t.commit();
    return {run.id, true};
  });
}

std::vector<RunListing> Database::runs(const RunFilter& filter) {
  return impl_->with_session([&](soci::session& s) {
    std::string where;
    if (!filter.experiment.empty()) where += " AND experiment = :experiment";
    if (!filter.machine.empty()) where += " AND machine = :machine";
    if (!filter.id.empty()) where += " AND id = :id";
    const long long limit = static_cast<long long>(filter.limit);
    RunListing r;
    soci::statement st(s);
    for (std::string* column : {&r.id, &r.experiment, &r.machine, &r.run_id, &r.started_utc, &r.status,
                                &r.engine, &r.published_utc})
      st.exchange(soci::into(*column));
    if (!filter.experiment.empty()) st.exchange(soci::use(filter.experiment));
    if (!filter.machine.empty()) st.exchange(soci::use(filter.machine));
    if (!filter.id.empty()) st.exchange(soci::use(filter.id));
    st.exchange(soci::use(limit));
    st.alloc();
    st.prepare(
        "SELECT id, experiment, machine, run_id, started_utc, status, engine, published_utc FROM runs "
        "WHERE 1 = 1" +
            where + " ORDER BY published_utc DESC, id LIMIT :limit",
        kOnce);
    st.define_and_bind();
    st.execute();
    std::vector<RunListing> out;
    while (st.fetch()) out.push_back(r);
    return out;
  });
}

std::optional<std::string> Database::archive(const std::string& run_id) {
  return impl_->with_session([&](soci::session& s) -> std::optional<std::string> {
    std::string data;
    soci::indicator found = soci::i_null;
    s << "SELECT gzip_base64 FROM run_archives WHERE run = :run", soci::into(data, found), soci::use(run_id);
    if (!s.got_data() || found != soci::i_ok) return std::nullopt;
    return unbase64(data);
  });
}

std::size_t Database::run_count() {
  return impl_->with_session([&](soci::session& s) {
    long long n = 0;
    s << "SELECT COUNT(*) FROM runs", soci::into(n);
    return static_cast<std::size_t>(n);
  });
}

std::vector<records::ExperimentCount> Database::experiments() {
  return impl_->with_session([&](soci::session& s) {
    records::ExperimentCount e;
    long long runs = 0, machines = 0;
    soci::statement st =
        (s.prepare << "SELECT experiment, COUNT(*), COUNT(DISTINCT machine) FROM runs GROUP BY "
                      "experiment ORDER BY experiment",
         soci::into(e.name), soci::into(runs), soci::into(machines));
    st.execute();
    std::vector<records::ExperimentCount> out;
    while (st.fetch()) {
      e.runs = runs;
      e.machines = machines;
      out.push_back(e);
    }
    return out;
  });
}

// Fetched a thousand rows at a time: row by row, SOCI's per-fetch cost was most of the page's time
// at 10^4 runs (6 x 10^4 rows).
std::vector<CvPoint> Database::cv_points(const std::string& experiment) {
  return impl_->with_session([&](soci::session& s) {
    constexpr std::size_t kBatch = 1000;
    std::vector<std::string> run(kBatch), machine(kBatch), started(kBatch), engine(kBatch), condition(kBatch),
        benchmark(kBatch), unit(kBatch);
    std::vector<long long> n(kBatch);
    std::vector<double> median(kBatch), cv(kBatch);
    std::vector<soci::indicator> cv_known(kBatch);
    soci::statement st =
        (s.prepare
             << "SELECT r.id, r.machine, r.started_utc, r.engine, w.condition_name, w.benchmark, w.unit, "
                "w.n, w.median, w.cv_pct FROM runs r JOIN run_rows w ON w.run = r.id WHERE r.experiment = "
                ":e ORDER BY r.machine, r.started_utc, r.id, w.seq",
         soci::into(run), soci::into(machine), soci::into(started), soci::into(engine), soci::into(condition),
         soci::into(benchmark), soci::into(unit), soci::into(n), soci::into(median), soci::into(cv, cv_known),
         soci::use(experiment));
    std::vector<CvPoint> out;
    for (bool more = st.execute(true); more && !run.empty(); more = st.fetch()) {
      for (std::size_t i = 0; i < run.size(); ++i)
        out.push_back({std::move(run[i]), std::move(machine[i]), std::move(started[i]),
                       std::move(condition[i]), std::move(benchmark[i]), std::move(unit[i]),
                       std::move(engine[i]), n[i], median[i],
                       cv_known[i] == soci::i_ok ? std::optional<double>(cv[i]) : std::nullopt});
      if (run.size() < kBatch) break;
      for (auto* column : {&run, &machine, &started, &engine, &condition, &benchmark, &unit})
        column->resize(kBatch);
      n.resize(kBatch);
      median.resize(kBatch);
      cv.resize(kBatch);
      cv_known.resize(kBatch);
    }
    return out;
  });
}

std::vector<Machine> Database::machines(const std::string& experiment) {
  return impl_->with_session([&](soci::session& s) {
    std::string id, facts;
    soci::statement st =
        (s.prepare << "SELECT m.id, m.facts FROM machines m WHERE m.id IN (SELECT machine FROM "
                      "runs WHERE experiment = :e) ORDER BY m.id",
         soci::into(id), soci::into(facts), soci::use(experiment));
    st.execute();
    std::vector<Machine> out;
    while (st.fetch()) out.push_back(machine_from(id, facts));
    return out;
  });
}

std::vector<ClaimVerdict> Database::claim_verdicts(const std::string& experiment) {
  return impl_->with_session([&](soci::session& s) {
    ClaimVerdict v;
    soci::statement st =
        (s.prepare << "SELECT r.id, r.machine, c.claim, c.verdict FROM runs r JOIN run_claims c ON "
                      "c.run = r.id WHERE r.experiment = :e ORDER BY r.machine, r.started_utc, c.seq",
         soci::into(v.run), soci::into(v.machine), soci::into(v.claim), soci::into(v.verdict),
         soci::use(experiment));
    st.execute();
    std::vector<ClaimVerdict> out;
    while (st.fetch()) out.push_back(v);
    return out;
  });
}

std::vector<GateResult> Database::gates(const std::string& experiment) {
  return impl_->with_session([&](soci::session& s) {
    GateResult g;
    std::string verdict;
    soci::statement st =
        (s.prepare
             << "SELECT id, machine, started_utc, gate, gate_verdict FROM runs WHERE experiment = :e AND "
                "gate <> '' ORDER BY started_utc",
         soci::into(g.run), soci::into(g.machine), soci::into(g.started_utc), soci::into(g.gate),
         soci::into(verdict), soci::use(experiment));
    st.execute();
    std::vector<GateResult> out;
    while (st.fetch()) {
      g.verdict = model::from_name<records::GateOutcome>(verdict).value_or(records::GateOutcome::none);
      out.push_back(g);
    }
    return out;
  });
}

void Database::add_key(const KeyRecord& key) {
  return impl_->with_session([&](soci::session& s) {
    const std::string scope = to_string(key.scope);
    s << "INSERT INTO api_keys (id, hash, scope, created_utc, expires_utc, revoked_utc) VALUES (:id, :hash, "
         ":scope, :created, :expires, :revoked)",
        soci::use(key.id), soci::use(key.hash), soci::use(scope), soci::use(key.created_utc),
        soci::use(key.expires_utc), soci::use(key.revoked_utc);
  });
}

namespace {

std::vector<KeyRecord> select_keys(soci::session& s, const std::string* id) {
  KeyRecord k;
  std::string scope;
  soci::statement st(s);
  for (std::string* column : {&k.id, &k.hash, &scope, &k.created_utc, &k.expires_utc, &k.revoked_utc})
    st.exchange(soci::into(*column));
  if (id) st.exchange(soci::use(*id));
  st.alloc();
  st.prepare(std::string("SELECT id, hash, scope, created_utc, expires_utc, revoked_utc FROM api_keys") +
                 (id ? " WHERE id = :id" : "") + " ORDER BY created_utc, id",
             kOnce);
  st.define_and_bind();
  st.execute();
  std::vector<KeyRecord> out;
  while (st.fetch()) {
    k.scope = parse_scope(scope).value_or(Scope{Scope::Kind::publish_experiment, "(unreadable scope)"});
    out.push_back(k);
  }
  return out;
}

}  // namespace

std::vector<KeyRecord> Database::keys() {
  return impl_->with_session([&](soci::session& s) { return select_keys(s, nullptr); });
}

std::optional<KeyRecord> Database::key(const std::string& id) {
  return impl_->with_session([&](soci::session& s) -> std::optional<KeyRecord> {
    auto found = select_keys(s, &id);
    if (found.empty()) return std::nullopt;
    return found.front();
  });
}

bool Database::revoke_key(const std::string& id, const std::string& utc) {
  return impl_->with_session([&](soci::session& s) {
    soci::statement st =
        (s.prepare << "UPDATE api_keys SET revoked_utc = :utc WHERE id = :id AND revoked_utc = ''",
         soci::use(utc), soci::use(id));
    st.execute(true);
    if (st.get_affected_rows() > 0) return true;
    return !select_keys(s, &id).empty();  // revoked before: still revoked
  });
}

}  // namespace noisefloor::store
