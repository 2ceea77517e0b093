#include "store/server.hpp"

#include <fmt/format.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include "model/errors.hpp"
#include "model/version.hpp"
#include "process/cpus.hpp"
#include "records/store.hpp"
#include "store/database.hpp"
#include "store/http_server.hpp"
#include "store/keys.hpp"
#include "store/page.hpp"
#include "store/turns.hpp"
#include "store/upload.hpp"
#include "text/text.hpp"

namespace noisefloor::store {
namespace {

using Clock = std::chrono::steady_clock;

// Pages and API answers: nothing from elsewhere, no scripts, no frames.
constexpr const char* kPagePolicy =
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors "
    "'none'";
// A run's own report.html, as its publisher wrote it: a sandbox with no scripts, no forms, no
// requests anywhere, a unique origin.
constexpr const char* kRawPolicy = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:";
constexpr const char* kRuns = "/api/v1/runs";  // the runs: POST publishes one, GET lists them
constexpr std::string_view kPost = "POST";
constexpr std::chrono::seconds kRequestDeadline{60};  // the most one request may take, answer and all
constexpr std::size_t kMostBuckets = 10000;           // addresses the rate limit remembers before it sweeps

std::string now_utc() { return text::utc(std::chrono::system_clock::now()); }

void answer(httplib::Response& res, int status, const std::string& body, const char* type,
            const char* policy = kPagePolicy) {
  res.status = status;
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Content-Security-Policy", policy);
  res.set_header("Cache-Control", "no-store");
  res.set_content(body, type);
}

void refuse(httplib::Response& res, int status, const std::string& message) {
  answer(res, status, records::error_json(message), "application/json");
}

// Publishes per client address: a bucket of `per_minute` that refills continuously.
class RateLimit {
 public:
  explicit RateLimit(double per_minute) : per_minute_(per_minute) {}
  // Whether `address` may publish now; else how many seconds until it may.
  std::optional<int> take(const std::string& address) {
    if (per_minute_ <= 0) return std::nullopt;
    const std::lock_guard lock(mutex_);
    if (buckets_.size() >= kMostBuckets) sweep();
    const double capacity = std::max(1.0, per_minute_);  // below 1 a minute, one publish waits for its token
    Bucket& b = buckets_.try_emplace(address, Bucket{capacity, Clock::now()}).first->second;
    const double elapsed = std::chrono::duration<double>(Clock::now() - b.last).count();
    b.tokens = std::min(capacity, b.tokens + elapsed * per_minute_ / 60);
    b.last = Clock::now();
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return std::nullopt;
    }
    return static_cast<int>(std::ceil((1 - b.tokens) * 60 / per_minute_));
  }

 private:
  struct Bucket {
    double tokens;
    Clock::time_point last;
  };
  // Forgets the addresses whose buckets have refilled (nothing is lost: a new bucket is full).
  void sweep() {
    const double refill_seconds = 60 * std::max(1.0, per_minute_) / per_minute_;
    std::erase_if(buckets_, [&](const auto& entry) {
      return std::chrono::duration<double>(Clock::now() - entry.second.last).count() > refill_seconds;
    });
  }
  double per_minute_;
  std::mutex mutex_;
  std::map<std::string, Bucket> buckets_;
};

// The key a request carries (Authorization: Bearer KEY), checked: the key, or the status and reason.
struct Access {
  std::optional<KeyRecord> key;
  int status = 401;
  std::string problem;
};

Access authenticate(Database& db, const httplib::Request& req) {
  const std::string header = req.get_header_value("Authorization");
  if (!header.starts_with("Bearer "))
    return {std::nullopt, 401,
            "no key: send Authorization: Bearer KEY (noisefloor keys create; publish reads NOISEFLOOR_KEY)"};
  const std::string text = header.substr(7);
  const auto id = key_id(text);
  const auto key = id ? db.key(*id) : std::nullopt;
  if (!key || !same_hash(key->hash, key_hash(text))) return {std::nullopt, 401, "unknown key"};
  if (!key->revoked_utc.empty())
    return {std::nullopt, 403, fmt::format("key {} was revoked on {}", key->id, key->revoked_utc)};
  if (!key->expires_utc.empty() && now_utc() >= key->expires_utc)
    return {std::nullopt, 403, fmt::format("key {} expired on {}", key->id, key->expires_utc)};
  return {key, 200, ""};
}

// A key that may not publish the experiment its upload names.
class ScopeError : public Error {
 public:
  using Error::Error;
};

struct Context {
  Context(const ServeOptions& o, const std::function<void(const std::string&)>& s)
      : options(o), db(o.db, o.threads), limit(o.publishes_per_minute), say(s) {}
  const ServeOptions& options;
  Database db;
  RateLimit limit;
  const std::function<void(const std::string&)>& say;
  std::mutex say_mutex;
  // One publish a CPU this server may use (a container's cpuset and quota, not the host's CPUs), and
  // one more, so that a publish waiting on the database does not leave a CPU idle.
  Turns publishing{static_cast<unsigned>(process::usable_cpus()) + 1};
  std::string generated_by = fmt::format("noisefloor {} ({})", kVersion, kCommit);
};

// Reads are public unless --private; then any valid key reads.
bool may_read(Context& c, const httplib::Request& req, httplib::Response& res) {
  if (!c.options.private_reads) return true;
  const Access a = authenticate(c.db, req);
  if (!a.key) refuse(res, a.status, a.problem);
  return a.key.has_value();
}

// The upload of a publish admitted (a key that may publish, within the rate limit, a plain body of
// a stated length) and read up to the cap; nullopt: refused, the answer is in `res`. Nothing of the
// body is read before it is admitted.
std::optional<std::pair<KeyRecord, std::string>> admitted_body(Context& c, const httplib::Request& req,
                                                               httplib::Response& res,
                                                               const httplib::ContentReader& read) {
  if (req.has_header("Transfer-Encoding") || !req.has_header("Content-Length")) {
    refuse(res, 411, "send the archive with a Content-Length (noisefloor publish does), not chunked");
    return std::nullopt;
  }
  Access access = authenticate(c.db, req);
  if (!access.key) {
    refuse(res, access.status, access.problem);
    return std::nullopt;
  }
  if (const auto wait = c.limit.take(req.remote_addr)) {
    res.set_header("Retry-After", std::to_string(*wait));
    refuse(res, 429, fmt::format("too many publishes from {}: try again in {} s", req.remote_addr, *wait));
    return std::nullopt;
  }
  std::string body;
  if (!read([&body](const char* data, std::size_t size) {
        body.append(data, size);
        return true;
      })) {
    if (res.status == 413)  // the library's answer to a Content-Length over set_payload_max_length
      refuse(res, 413,
             fmt::format("the upload is over {} bytes, the most this server takes (send a gzip'd run "
                         "as application/gzip: noisefloor publish does)",
                         c.options.limits.max_compressed));
    else
      refuse(res, 400, "the upload was cut off before its Content-Length: send it again");
    return std::nullopt;
  }
  return std::pair{std::move(*access.key), std::move(body)};
}

// The answer to a publish of `run` (as the listing shows it): 201 stored now, 200 stored before.
void published(Context& c, const httplib::Request& req, httplib::Response& res, const RunListing& run,
               bool created) {
  const records::PublishAnswer a{run.id, created, run.experiment, run.run_id,
                                 "/e/" + url_part(run.experiment)};
  answer(res, created ? 201 : 200, records::publish_json(a), "application/json");
  const std::lock_guard lock(c.say_mutex);
  c.say(fmt::format("{} {} run {} of machine {} from {}", created ? "stored" : "already stored",
                    run.experiment, run.id.substr(0, 12), run.machine, req.remote_addr));
}

// POST /api/v1/runs. A run stored before (the same content id) is answered from the database,
// without loading it again.
void publish(Context& c, const httplib::Request& req, httplib::Response& res,
             const httplib::ContentReader& read) {
  auto admitted = admitted_body(c, req, res, read);
  if (!admitted) return;
  const KeyRecord& key = admitted->first;
  const auto admit = [&key](const std::string& experiment) {
    if (!may_publish(key.scope, experiment))
      throw ScopeError(
          fmt::format("key {} may publish {} only, not {}", key.id, key.scope.experiment, experiment));
  };
  const Turns::Turn turn(c.publishing);
  try {
    Upload upload = open_upload(std::move(admitted->second), c.options.limits);
    RunFilter same;
    same.id = upload.id;
    same.limit = 1;
    if (const auto known = c.db.runs(same); !known.empty()) {
      admit(known.front().experiment);
      return published(c, req, res, known.front(), false);
    }
    const StoredRun run = receive(std::move(upload), admit);
    const auto stored = c.db.insert_run(run, now_utc(), key.id);
    RunListing listed;
    listed.id = run.id;
    listed.experiment = run.experiment;
    listed.run_id = run.run_id;
    listed.machine = run.machine.id;
    published(c, req, res, listed, stored.created);
  } catch (const ScopeError& err) {
    refuse(res, 403, err.what());
  } catch (const ArchiveError& err) {
    refuse(res, err.too_large() ? 413 : 422, err.what());
  } catch (const UploadError& err) {
    refuse(res, 422, err.what());
  }
}

// Before any body is read: no Range (the library builds every range of an answer in memory), no
// compressed body (it would inflate it without a limit), no body where no handler takes one (a
// publish is admitted before its body is read: admitted_body).
httplib::Server::HandlerResponse before_routing(const httplib::Request& req, httplib::Response& res) {
  using Handled = httplib::Server::HandlerResponse;
  if (req.has_header("Range")) {
    refuse(res, 416, "ranges are not served: ask for the whole document");
    return Handled::Handled;
  }
  if (req.has_header("Content-Encoding")) {
    refuse(res, 415, "send the archive as it is (application/gzip), without a Content-Encoding");
    return Handled::Handled;
  }
  const bool body = req.has_header("Content-Length") || req.has_header("Transfer-Encoding");
  if (body && !(req.method == kPost && req.path == kRuns)) {
    refuse(res, 405, fmt::format("{} {}: no request here takes a body", req.method, req.path));
    return Handled::Handled;
  }
  return Handled::Unhandled;
}

std::optional<std::string> archived_file(Context& c, const std::string& run, const std::string& name) {
  const auto archive = c.db.archive(run);
  if (!archive) return std::nullopt;
  for (auto& f : unpack(*archive, c.options.limits))
    if (f.name == name) return std::move(f.content);
  return std::nullopt;
}

void routes(httplib::Server& svr, Context& c) {
  svr.Post(kRuns, [&c](const httplib::Request& req, httplib::Response& res,
                       const httplib::ContentReader& read) { publish(c, req, res, read); });
  svr.Get(kRuns, [&c](const httplib::Request& req, httplib::Response& res) {
    if (!may_read(c, req, res)) return;
    RunFilter f;
    f.experiment = req.get_param_value("experiment");
    f.machine = req.get_param_value("machine");
    if (req.has_param("limit"))
      f.limit =
          std::clamp<std::size_t>(std::strtoul(req.get_param_value("limit").c_str(), nullptr, 10), 1, 10000);
    answer(res, 200, records::runs_json(c.db.runs(f)), "application/json");
  });
  svr.Get(R"(/api/v1/runs/([0-9a-f]{64})/samples\.jsonl)",
          [&c](const httplib::Request& req, httplib::Response& res) {
            if (!may_read(c, req, res)) return;
            const auto samples = archived_file(c, req.matches[1], "samples.jsonl");
            if (!samples) return refuse(res, 404, "no such run");
            answer(res, 200, *samples, "application/x-ndjson");
          });
  svr.Get(R"(/api/v1/runs/([0-9a-f]{64})/run\.tar\.gz)",
          [&c](const httplib::Request& req, httplib::Response& res) {
            if (!may_read(c, req, res)) return;
            const auto archive = c.db.archive(req.matches[1]);
            if (!archive) return refuse(res, 404, "no such run");
            answer(res, 200, *archive, "application/gzip");
          });
  svr.Get(R"(/raw/([0-9a-f]{64})/report\.html)", [&c](const httplib::Request& req, httplib::Response& res) {
    if (!may_read(c, req, res)) return;
    const auto page = archived_file(c, req.matches[1], "report.html");
    if (!page) return refuse(res, 404, "no such run, or it holds no report.html");
    answer(res, 200, *page, "text/html; charset=utf-8", kRawPolicy);
  });
  svr.Get("/", [&c](const httplib::Request& req, httplib::Response& res) {
    if (!may_read(c, req, res)) return;
    answer(res, 200, index_page(c.db.experiments(), c.generated_by), "text/html; charset=utf-8");
  });
  svr.Get(R"(/e/([^/]+))", [&c](const httplib::Request& req, httplib::Response& res) {
    if (!may_read(c, req, res)) return;
    ExperimentPage p;
    p.experiment = req.matches[1];
    p.filter = {req.get_param_value("vendor"), req.get_param_value("cores"),
                req.get_param_value("virtualization"), req.get_param_value("engine")};
    p.machines = c.db.machines(p.experiment);
    if (p.machines.empty()) return refuse(res, 404, "no run of this experiment is stored");
    p.points = c.db.cv_points(p.experiment);
    p.claims = c.db.claim_verdicts(p.experiment);
    p.gates = c.db.gates(p.experiment);
    answer(res, 200, experiment_page(p, c.generated_by), "text/html; charset=utf-8");
  });
}

// What a handler threw, answered: the database's trouble as 503, anything else as 500. And a body
// for the answers the library gives by itself (an unknown path, a request it cannot read).
void on_exception(httplib::Server& svr, Context& c) {
  svr.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    if (res.status == 404 || res.status == 405)
      refuse(res, res.status, fmt::format("{} {}: no such page or method", req.method, req.path));
    else
      refuse(res, res.status,
             fmt::format("the request could not be read (HTTP {}): send it as noisefloor publish does",
                         res.status));
  });
  svr.set_exception_handler(
      [&c](const httplib::Request&, httplib::Response& res, std::exception_ptr failure) {
        try {
          std::rethrow_exception(failure);
        } catch (const RunError& err) {
          refuse(res, 503, err.what());
        } catch (const std::exception& err) {
          refuse(res, 500, fmt::format("internal error: {}", err.what()));
          const std::lock_guard lock(c.say_mutex);
          c.say(fmt::format("internal error: {}", err.what()));
        }
      });
}

}  // namespace

std::pair<std::string, int> parse_listen(const std::string& listen) {
  const auto colon = listen.rfind(':');
  std::string host = colon == std::string::npos ? "" : listen.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  const std::string port = colon == std::string::npos ? "" : listen.substr(colon + 1);
  char* end = nullptr;
  const long number = std::strtol(port.c_str(), &end, 10);
  if (host.empty() || port.empty() || *end != '\0' || number < 0 || number > 65535)
    throw ConfigError(
        fmt::format("--listen {}: give HOST:PORT, e.g. 127.0.0.1:8080 (port 0: any free one)", listen));
  return {host, static_cast<int>(number)};
}

void serve(const ServeOptions& o, const model::Cancelled& cancelled,
           const std::function<void(const std::string&)>& say) {
  const auto [host, port] = parse_listen(o.listen);
  Context c(o, say);
  HttpServer svr(kRequestDeadline, o.idle);
  const std::size_t threads = std::max<std::size_t>(o.threads, 1);
  svr.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  svr.set_payload_max_length(o.limits.max_compressed);
  svr.set_pre_routing_handler(before_routing);
  routes(svr, c);
  on_exception(svr, c);
  const int bound = svr.bind(host, port);
  if (bound < 0)
    throw RunError(
        fmt::format("serve: cannot listen on {}: in use, or not this machine's address", o.listen));
  say(fmt::format("noisefloor serve: http://{}:{}/ ({}; {}; a silent client is let go after {:g} s)",
                  host.find(':') == std::string::npos ? host : "[" + host + "]", bound, c.db.url().shown,
                  o.private_reads ? "reads need a key" : "reads are public",
                  std::chrono::duration<double>(o.idle).count()));
  std::atomic<bool> done = false;
  std::thread stopper([&] {
    while (!done && !cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    svr.stop();
  });
  const bool listened = svr.listen_after_bind();
  done = true;
  stopper.join();
  if (!listened && !cancelled()) throw RunError("serve: the server stopped on its own");
  if (cancelled()) throw Interrupted("serve: stopped");
}

}  // namespace noisefloor::store
