// `noisefloor serve`: the store's HTTP server (cpp-httplib). I/O edge.
//
//   POST /api/v1/runs                   a finished run as one gzip'd tar (Authorization: Bearer KEY):
//                                       201 stored, 200 stored before (the same id), 4xx refused
//   GET  /api/v1/runs?experiment=&machine=&limit=   the runs, newest first (JSON)
//   GET  /api/v1/runs/ID/samples.jsonl  a run's samples as published
//   GET  /api/v1/runs/ID/run.tar.gz     the upload as sent
//   GET  /raw/ID/report.html            the run's own report, sandboxed (Content-Security-Policy)
//   GET  /, /e/EXPERIMENT               the pages (store/page.hpp)
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

#include "model/callbacks.hpp"
#include "store/archive.hpp"

namespace noisefloor::store {

struct ServeOptions {
  std::string db = "sqlite:noisefloor-store.db";
  std::string listen = "127.0.0.1:8080";  // HOST:PORT; port 0: any free port (the line says which)
  bool private_reads = false;             // --private: reading needs a key too
  double publishes_per_minute = 30;       // per client address; 0: no limit
  std::size_t threads = 32;               // requests served at once (and database sessions)
  std::chrono::milliseconds idle{10000};  // --idle-timeout: a client silent this long mid-request is let go
  ArchiveLimits limits;
};

// Serves until `cancelled` says so (SIGINT, SIGTERM); `say` gets the lines a server prints (where
// it listens, then one line per publish). Throws ConfigError for a bad --listen, RunError when the
// address cannot be bound or the database opened.
void serve(const ServeOptions& options, const model::Cancelled& cancelled,
           const std::function<void(const std::string&)>& say);

// HOST:PORT as --listen takes it ("[::1]:8080" for IPv6); ConfigError otherwise.
std::pair<std::string, int> parse_listen(const std::string& listen);

}  // namespace noisefloor::store
