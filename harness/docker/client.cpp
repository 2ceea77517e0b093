#include "docker/client.hpp"

#include <curl/curl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <string_view>
#include <thread>

#include "docker/context.hpp"
#include "docker/demux.hpp"
#include "docker/libcurl.hpp"
#include "docker/ssh_tunnel.hpp"
#include "files/files.hpp"
#include "jsonread/parse.hpp"
#include "text/text.hpp"

namespace noisefloor::docker {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

namespace {

constexpr long kConnectTimeoutMs = 5'000;
constexpr milliseconds kSmallCallTimeout{30'000};
constexpr milliseconds kRemoveTimeout{120'000};  // force-removing a big vfs container takes a while
constexpr milliseconds kRemovalWait{30'000};     // for a removal already under way to finish
constexpr milliseconds kLogsTimeout{300'000};
constexpr milliseconds kLoadTimeout{900'000};
// What the engine may send, per kind of answer (a lying engine grew this process to 4 GB in 30 s):
// an answer held whole (JSON: inspect, lists, version), an error's body (for its message, cut
// past the cap), a container's logs (the benchmark's output, held until it is parsed).
constexpr std::size_t kAnswerLimit = 32u << 20;
constexpr std::size_t kErrorBodyLimit = 64u << 10;
constexpr std::size_t kLogsLimit = 256u << 20;

std::string mib(std::size_t bytes) { return fmt::format("{} MiB", bytes >> 20); }

// Appends to an error's body up to kErrorBodyLimit.
void append_error(std::string& body, std::string_view bytes) {
  if (body.size() < kErrorBodyLimit) body.append(bytes.substr(0, kErrorBodyLimit - body.size()));
}

// A container's output into `demuxer`, up to kLogsLimit (thrown from a sink, it ends the transfer).
void feed_logs(LogDemuxer& demuxer, std::string_view bytes, const std::string& path) {
  if (demuxer.out().size() + demuxer.err().size() + bytes.size() > kLogsLimit)
    throw DockerError(
        fmt::format("docker: GET {}: the container's output passed {}: have the benchmark print "
                    "less (its results, not a trace)",
                    std::string_view(path).substr(0, path.find('?')), mib(kLogsLimit)));
  demuxer.feed(bytes);
}

bool file_exists(const std::string& path) {
  struct stat st {};
  return !path.empty() && ::stat(path.c_str(), &st) == 0;
}

// The connection to the engine: its unix socket, or TCP with TLS as the endpoint says.
void configure_transport(CURL* curl, const Endpoint& endpoint) {
  if (!endpoint.socket_path.empty())
    libcurl().easy_setopt(curl, CURLOPT_UNIX_SOCKET_PATH, endpoint.socket_path.c_str());
  if (endpoint.tls) {
    libcurl().easy_setopt(curl, CURLOPT_SSLVERSION, static_cast<long>(CURL_SSLVERSION_TLSv1_2));
    libcurl().easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, endpoint.verify ? 1L : 0L);
    libcurl().easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, endpoint.verify ? 2L : 0L);
    if (file_exists(endpoint.ca_file)) libcurl().easy_setopt(curl, CURLOPT_CAINFO, endpoint.ca_file.c_str());
    // like the docker CLI: a client certificate only when both files are there
    if (file_exists(endpoint.cert_file) && file_exists(endpoint.key_file)) {
      libcurl().easy_setopt(curl, CURLOPT_SSLCERT, endpoint.cert_file.c_str());
      libcurl().easy_setopt(curl, CURLOPT_SSLKEY, endpoint.key_file.c_str());
    }
  }
}

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (libcurl().global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
      throw DockerError("docker: libcurl failed to initialise");
    }
  });
}

std::string escape(CURL* curl, const std::string& text) {
  char* e = libcurl().easy_escape(curl, text.c_str(), static_cast<int>(text.size()));
  if (!e) throw DockerError("docker: out of memory escaping a URL");
  std::string out(e);
  libcurl().free(e);
  return out;
}

// A name or id put into the API's URL path: what a Docker reference or container id is made of
// (letters, digits, . _ - and, for an image, / : @), no segment that is "." or "..". The ids come
// from engine answers and the image names from experiment files: neither may lead the request to
// another endpoint. Throws DockerError naming it.
std::string path_part(const std::string& name, bool image) {
  const auto fail = [&] {
    return DockerError(
        fmt::format("docker: {} {} cannot be put into an engine request (letters, digits and . _ -{} "
                    "only, no '.' or '..' part)",
                    image ? "image" : "container", text::quote(name), image ? " / : @" : ""));
  };
  if (name.empty() || name.size() > 512) throw fail();
  for (const char c : name) {
    const bool plain = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    if (!plain && !(image && (c == '/' || c == ':' || c == '@'))) throw fail();
  }
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t end = std::min(name.find('/', start), name.size());
    const std::string_view part(name.data() + start, end - start);
    if (part.empty() || part == "." || part == "..") throw fail();
    start = end + 1;
  }
  return name;
}

std::string lower_first(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

std::string seconds_text(milliseconds ms) { return fmt::format("{} s", ms.count() / 1000); }

}  // namespace

struct Client::Handle {
  CURL* curl = nullptr;
  ~Handle() {
    if (curl) libcurl().easy_cleanup(curl);
  }
};

struct Client::Request {
  const char* method = "GET";         // GET, HEAD, POST, DELETE
  std::string path;                   // "/containers/create?name=x", without the version
  bool versioned = true;              // prefix "/v<api version>"
  const std::string* body = nullptr;  // POST only; nullptr: empty body
  const char* content_type = nullptr;
  std::optional<milliseconds> timeout{};               // total, for calls that must be small
  std::optional<steady_clock::time_point> deadline{};  // -> WaitTimeout
  const std::function<bool()>* cancelled = nullptr;    // -> Interrupted
  std::function<void(std::string_view)> sink{};        // streaming body consumer
};

struct Client::Response {
  long status = 0;
  std::string body;
  std::string content_type;
  std::optional<std::string> api_version;
};

namespace {

struct Transfer {
  std::string body;
  std::string content_type;
  std::optional<std::string> api_version;
  const std::function<void(std::string_view)>* sink = nullptr;
  std::exception_ptr sink_error;
  std::optional<steady_clock::time_point> deadline;
  const std::function<bool()>* cancelled = nullptr;
  std::size_t limit = kAnswerLimit;  // of `body`
  enum class Abort { none, deadline, cancelled, too_large } abort = Abort::none;
};

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t bytes = size * n;
  if (!t->sink) {
    if (bytes > t->limit - t->body.size()) {
      t->abort = Transfer::Abort::too_large;
      return 0;  // libcurl stops the transfer
    }
    t->body.append(data, bytes);
    return bytes;
  }
  try {
    (*t->sink)(std::string_view(data, bytes));
    return bytes;
  } catch (...) {  // never throw through libcurl: keep it, abort, rethrow after perform
    t->sink_error = std::current_exception();
    return 0;
  }
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  std::string_view line(data, size * n);
  auto colon = line.find(':');
  if (colon != std::string_view::npos) {
    std::string name(line.substr(0, colon));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && std::isspace(static_cast<unsigned char>(value.front()))) {
      value.remove_prefix(1);
    }
    while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) {
      value.remove_suffix(1);
    }
    if (name == "content-type") t->content_type = std::string(value);
    if (name == "api-version") t->api_version = std::string(value);
  }
  return size * n;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  if (t->cancelled && *t->cancelled && (*t->cancelled)()) {
    t->abort = Transfer::Abort::cancelled;
    return 1;
  }
  if (t->deadline && steady_clock::now() >= *t->deadline) {
    t->abort = Transfer::Abort::deadline;
    return 1;
  }
  return 0;
}

}  // namespace

Client Client::from_environment() {
  const GetEnv getenv = [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (!v) return std::nullopt;
    return std::string(v);
  };
  // The engine the docker CLI would use: DOCKER_HOST, else DOCKER_CONTEXT, else config.json's
  // currentContext (`docker context use`), else the local socket.
  const ReadFile read = [](const std::string& path) { return files::try_read(path); };
  return for_endpoint(resolve_host(current_context(getenv, read), getenv, read).endpoint);
}

Client Client::for_endpoint(Endpoint endpoint) {
  std::optional<std::string> fixed;
  if (const char* v = std::getenv("DOCKER_API_VERSION"); v && *v) fixed = fixed_api_version(v);
  return Client(std::move(endpoint), std::move(fixed));
}

Client::Client(Endpoint endpoint, std::optional<std::string> fixed_api_version)
    : endpoint_(std::move(endpoint)), handle_(std::make_unique<Handle>()) {
  global_init();
  if (endpoint_.ssh) {  // the engine's socket, forwarded to a local one for as long as the Client lives
    tunnel_ = std::make_shared<SshTunnel>(*endpoint_.ssh, endpoint_.display);
    endpoint_.socket_path = tunnel_->socket_path();
    endpoint_.base_url = "http://localhost";
  }
  if (fixed_api_version) fixed_api_version_ = docker::fixed_api_version(*fixed_api_version);
  handle_->curl = libcurl().easy_init();
  if (!handle_->curl) throw DockerError("docker: libcurl could not create a handle");
}

Client::Client(Client&&) noexcept = default;
Client& Client::operator=(Client&&) noexcept = default;
Client::~Client() = default;

Client::Response Client::perform(const Request& request) {
  CURL* curl = handle_->curl;
  libcurl().easy_reset(curl);  // keeps the open connection, forgets the previous request's options

  const std::string path = request.versioned ? "/v" + api_version() + request.path : request.path;
  const std::string url = endpoint_.base_url + path;
  const std::string where =
      fmt::format("{} {}", request.method, std::string_view(request.path).substr(0, request.path.find('?')));

  Transfer t;
  t.sink = request.sink ? &request.sink : nullptr;
  t.deadline = request.deadline;
  t.cancelled = request.cancelled;
  char error_buffer[CURL_ERROR_SIZE] = {};

  libcurl().easy_setopt(curl, CURLOPT_URL, url.c_str());
  libcurl().easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  libcurl().easy_setopt(curl, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  libcurl().easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer);
  libcurl().easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, kConnectTimeoutMs);
  if (request.timeout)
    libcurl().easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout->count()));
  libcurl().easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
  libcurl().easy_setopt(curl, CURLOPT_WRITEDATA, &t);
  libcurl().easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  libcurl().easy_setopt(curl, CURLOPT_HEADERDATA, &t);
  libcurl().easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  libcurl().easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
  libcurl().easy_setopt(curl, CURLOPT_XFERINFODATA, &t);
  configure_transport(curl, endpoint_);

  curl_slist* headers = libcurl().slist_append(nullptr, "Expect:");  // no 1 s 100-continue pause
  const std::string_view method = request.method;
  if (method == "HEAD") {
    libcurl().easy_setopt(curl, CURLOPT_NOBODY, 1L);
  } else if (method == "POST") {
    static const std::string kEmpty;
    const std::string& body = request.body ? *request.body : kEmpty;
    libcurl().easy_setopt(curl, CURLOPT_POST, 1L);
    libcurl().easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    libcurl().easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
    // libcurl would send application/x-www-form-urlencoded, which the engine parses as a form
    const std::string ct = request.content_type ? fmt::format("Content-Type: {}", request.content_type)
                                                : std::string("Content-Type:");
    headers = libcurl().slist_append(headers, ct.c_str());
  } else if (method == "DELETE") {
    libcurl().easy_setopt(curl, CURLOPT_CUSTOMREQUEST, "DELETE");
  } else {
    libcurl().easy_setopt(curl, CURLOPT_HTTPGET, 1L);
  }
  libcurl().easy_setopt(curl, CURLOPT_HTTPHEADER, headers);

  const CURLcode rc = libcurl().easy_perform(curl);
  long os_errno = 0;
  libcurl().easy_getinfo(curl, CURLINFO_OS_ERRNO, &os_errno);
  long connect_code = 0;
  libcurl().easy_getinfo(curl, CURLINFO_HTTP_CONNECTCODE, &connect_code);
  curl_off_t connect_time = 0;
  libcurl().easy_getinfo(curl, CURLINFO_CONNECT_TIME_T, &connect_time);
  Response response;
  libcurl().easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
  libcurl().easy_setopt(curl, CURLOPT_HTTPHEADER, nullptr);
  libcurl().slist_free_all(headers);

  if (t.sink_error) std::rethrow_exception(t.sink_error);
  if (t.abort == Transfer::Abort::too_large)
    throw DockerError(
        fmt::format("docker: {}: the answer passed {}, the most an engine's answer may be: is {} "
                    "a Docker engine?",
                    where, mib(t.limit), endpoint_.display));
  if (rc != CURLE_OK) {
    std::string reason = error_buffer[0] ? error_buffer : libcurl().easy_strerror(rc);
    switch (rc) {
      case CURLE_ABORTED_BY_CALLBACK:
        if (t.abort == Transfer::Abort::cancelled) throw Interrupted();
        throw WaitTimeout(fmt::format("docker: {}: deadline passed", where));
      case CURLE_COULDNT_CONNECT:
      case CURLE_COULDNT_RESOLVE_HOST:
      case CURLE_COULDNT_RESOLVE_PROXY:
      case CURLE_SSL_CONNECT_ERROR:
      case CURLE_PEER_FAILED_VERIFICATION:
      case CURLE_SSL_CACERT_BADFILE:
      case CURLE_SSL_CERTPROBLEM:
        if (os_errno == EACCES) {
          throw DockerError(fmt::format(
              "cannot reach the Docker engine at {}: permission denied \u2014 run as root or join "
              "the docker group",
              endpoint_.display));
        }
        // a socket error reads better than libcurl's "Failed to connect to localhost port 80"
        if (os_errno != 0 && !endpoint_.socket_path.empty()) reason = lower_first(std::strerror(os_errno));
        throw DockerError(unreachable_message(endpoint_.display, lower_first(reason)));
      case CURLE_OPERATION_TIMEDOUT:
        if (connect_time == 0 && response.status == 0) {
          throw DockerError(unreachable_message(
              endpoint_.display, fmt::format("no connection within {} ms", kConnectTimeoutMs)));
        }
        throw DockerError(fmt::format("docker: {}: no complete answer within {}", where,
                                      seconds_text(request.timeout.value_or(milliseconds{0}))));
      default:
        throw DockerError(fmt::format("docker: {}: {}", where, lower_first(reason)));
    }
  }
  response.body = std::move(t.body);
  response.content_type = std::move(t.content_type);
  response.api_version = std::move(t.api_version);
  return response;
}

Client::Response Client::call(const Request& request, std::initializer_list<long> ok_statuses) {
  Response r = perform(request);
  for (long ok : ok_statuses) {
    if (r.status == ok) return r;
  }
  throw DockerError(engine_error_message(request.method, request.path, r.status, r.content_type, r.body));
}

nlohmann::json Client::call_json(const Request& request, std::initializer_list<long> ok_statuses) {
  Response r = call(request, ok_statuses);
  auto j = jsonread::parse_json_or_discarded(r.body);
  if (j.is_discarded()) {
    throw DockerError(fmt::format("docker: {} {}: {} with a body that is not JSON: '{}'", request.method,
                                  request.path.substr(0, request.path.find('?')), r.status,
                                  r.body.substr(0, 200)));
  }
  return j;
}

std::string Client::api_version() {
  if (api_version_) return *api_version_;
  std::string negotiated;
  if (fixed_api_version_) {
    negotiated = *fixed_api_version_;
  } else {
    Request ping{.method = "HEAD", .path = "/_ping", .versioned = false, .timeout = kSmallCallTimeout};
    Response r = call(ping, {200});
    negotiated = negotiate_api_version(r.api_version);
  }
  Request version{.method = "GET",
                  .path = "/v" + negotiated + "/version",
                  .versioned = false,
                  .timeout = kSmallCallTimeout};
  Response r = perform(version);
  if (r.status != 200) {
    // a 400 "client version 1.99 is too new" names the problem; add where the version came from
    std::string message = engine_error_message("GET", "/version", r.status, r.content_type, r.body);
    if (fixed_api_version_) message += " (the version comes from DOCKER_API_VERSION)";
    throw DockerError(message);
  }
  auto j = jsonread::parse_json_or_discarded(r.body);
  if (!j.is_discarded()) check_version_response(negotiated, j);
  api_version_ = negotiated;
  return negotiated;
}

void Client::ping() {
  call({.method = "HEAD", .path = "/_ping", .versioned = false, .timeout = kSmallCallTimeout}, {200});
}

nlohmann::json Client::version() {
  return call_json({.method = "GET", .path = "/version", .timeout = kSmallCallTimeout}, {200});
}

nlohmann::json Client::info() {
  return call_json({.method = "GET", .path = "/info", .timeout = kSmallCallTimeout}, {200});
}

std::optional<nlohmann::json> Client::libpod_info() {
  const Request request{
      .method = "GET", .path = "/v4.0.0/libpod/info", .versioned = false, .timeout = kSmallCallTimeout};
  const Response r = perform(request);
  if (r.status != 200) return std::nullopt;
  auto j = jsonread::parse_json_or_discarded(r.body);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  return j;
}

std::optional<nlohmann::json> Client::image_inspect(const std::string& ref) {
  Request request{
      .method = "GET", .path = "/images/" + path_part(ref, true) + "/json", .timeout = kSmallCallTimeout};
  Response r = perform(request);
  if (r.status == 404) return std::nullopt;
  if (r.status != 200) {
    throw DockerError(engine_error_message(request.method, request.path, r.status, r.content_type, r.body));
  }
  auto j = jsonread::parse_json_or_discarded(r.body);
  if (j.is_discarded()) {
    throw DockerError(fmt::format("docker: GET {}: 200 with a body that is not JSON", request.path));
  }
  return j;
}

std::string Client::load_image(const std::string& tar_bytes, const std::function<bool()>& cancelled) {
  Request request{.method = "POST",
                  .path = "/images/load?quiet=1",
                  .body = &tar_bytes,
                  .content_type = "application/x-tar",
                  .timeout = kLoadTimeout,
                  .cancelled = cancelled ? &cancelled : nullptr};
  Response r = call(request, {200});
  JsonStream stream = scan_json_stream(r.body);
  if (stream.error) throw DockerError(fmt::format("docker: POST /images/load: {}", *stream.error));
  if (auto loaded = loaded_image(stream.stream)) return *loaded;
  throw DockerError(
      fmt::format("docker: POST /images/load: the engine did not say which image it loaded: '{}'",
                  r.body.substr(0, 200)));
}

Client::Created Client::create_container(const nlohmann::json& body, const std::string& name) {
  auto created = create_container_unless_named(body, name);
  if (!created)
    throw DockerError(
        fmt::format("docker: POST /containers/create: 409: the name '{}' is already in use", name));
  return *created;
}

std::optional<Client::Created> Client::create_container_unless_named(const nlohmann::json& body,
                                                                     const std::string& name) {
  const std::string text = body.dump();
  std::string path = "/containers/create";
  if (!name.empty()) path += "?name=" + escape(handle_->curl, name);
  const Request request{.method = "POST",
                        .path = path,
                        .body = &text,
                        .content_type = "application/json",
                        .timeout = kSmallCallTimeout};
  const Response r = perform(request);
  if (name_in_use(r.status, r.body)) return std::nullopt;  // (Podman: a 500 that says so)
  if (r.status != 201 && r.status != 200)
    throw DockerError(engine_error_message(request.method, request.path, r.status, r.content_type, r.body));
  auto j = jsonread::parse_json_or_discarded(r.body);
  if (j.is_discarded())
    throw DockerError("docker: POST /containers/create: 201 with a body that is not JSON");
  return created_of(j);
}

void Client::start(const std::string& id) {
  call({.method = "POST",
        .path = "/containers/" + path_part(id, false) + "/start",
        .timeout = kSmallCallTimeout},
       {204, 304});
}

std::int64_t Client::wait(const std::string& id, steady_clock::time_point deadline,
                          const std::function<bool()>& cancelled) {
  // no total timeout: the deadline and cancellation bound it (and the progress callback runs
  // about once a second while the engine says nothing)
  Request request{.method = "POST",
                  .path = "/containers/" + path_part(id, false) + "/wait?condition=not-running",
                  .deadline = deadline,
                  .cancelled = cancelled ? &cancelled : nullptr};
  return wait_status(call_json(request, {200}), id);
}

nlohmann::json Client::inspect(const std::string& id) {
  return call_json({.method = "GET",
                    .path = "/containers/" + path_part(id, false) + "/json",
                    .timeout = kSmallCallTimeout},
                   {200});
}

std::optional<nlohmann::json> Client::inspect_if_exists(const std::string& id) {
  const Request request{
      .method = "GET", .path = "/containers/" + path_part(id, false) + "/json", .timeout = kSmallCallTimeout};
  const Response r = call(request, {200, 404});
  if (r.status == 404) return std::nullopt;
  auto j = jsonread::parse_json_or_discarded(r.body);
  if (j.is_discarded())
    throw DockerError(fmt::format("docker: GET {}: 200 with a body that is not JSON", request.path));
  return j;
}

std::optional<double> Client::cpu_seconds(const std::string& id) {
  const Request request{.method = "GET",
                        .path = "/containers/" + path_part(id, false) + "/stats?stream=false&one-shot=true",
                        .timeout = kSmallCallTimeout};
  const Response r = call(request, {200, 404});
  if (r.status == 404) return std::nullopt;
  const auto j = jsonread::parse_json_or_discarded(r.body);
  if (j.is_discarded()) return std::nullopt;
  return cpu_seconds_of(j);
}

Client::Logs Client::logs(const std::string& id, bool tty) {
  LogDemuxer demuxer(tty);
  Request request{.method = "GET",
                  .path = "/containers/" + path_part(id, false) + "/logs?stdout=1&stderr=1",
                  .timeout = kLogsTimeout};
  // Only a 200 body is a log stream; an error body must reach the message untouched.
  std::string error_body;
  long status = 0;
  request.sink = [&](std::string_view bytes) {
    if (status == 0) libcurl().easy_getinfo(handle_->curl, CURLINFO_RESPONSE_CODE, &status);
    if (status == 200) {
      feed_logs(demuxer, bytes, request.path);
    } else {
      append_error(error_body, bytes);
    }
  };
  Response r = perform(request);
  if (r.status != 200) {
    throw DockerError(engine_error_message("GET", request.path, r.status, r.content_type, error_body));
  }
  demuxer.finish();
  return Logs{demuxer.take_out(), demuxer.take_err()};
}

Client::Logs Client::follow_logs(const std::string& id, bool tty,
                                 const std::function<void(std::string_view)>& on_stdout,
                                 steady_clock::time_point deadline, const std::function<bool()>& cancelled) {
  LogDemuxer demuxer(tty);
  Request request{.method = "GET",
                  .path = "/containers/" + path_part(id, false) + "/logs?stdout=1&stderr=1&follow=1",
                  .deadline = deadline,
                  .cancelled = cancelled ? &cancelled : nullptr};
  std::string error_body;
  long status = 0;
  std::size_t passed = 0;  // stdout bytes already handed to on_stdout
  request.sink = [&](std::string_view bytes) {
    if (status == 0) libcurl().easy_getinfo(handle_->curl, CURLINFO_RESPONSE_CODE, &status);
    if (status != 200) {
      append_error(error_body, bytes);
      return;
    }
    feed_logs(demuxer, bytes, request.path);
    if (on_stdout && demuxer.out().size() > passed) {
      on_stdout(std::string_view(demuxer.out()).substr(passed));
      passed = demuxer.out().size();
    }
  };
  Response r = perform(request);
  if (r.status != 200) {
    throw DockerError(engine_error_message("GET", request.path, r.status, r.content_type, error_body));
  }
  demuxer.finish();
  return Logs{demuxer.take_out(), demuxer.take_err()};
}

void Client::kill(const std::string& id, const std::string& signal) {
  const Request request{
      .method = "POST",
      .path = "/containers/" + path_part(id, false) + "/kill?signal=" + escape(handle_->curl, signal),
      .timeout = kSmallCallTimeout};
  const Response r = perform(request);
  if (r.status == 204 || kill_not_running(r.status, r.body)) return;  // not running: nothing to kill
  throw DockerError(engine_error_message(request.method, request.path, r.status, r.content_type, r.body));
}

void Client::remove(const std::string& id) {
  Request request{.method = "DELETE",
                  .path = "/containers/" + path_part(id, false) + "?force=1&v=1",
                  .timeout = kRemoveTimeout};
  const auto removed = [](const Response& r) {
    return r.status == 204 || r.status == 200 || r.status == 404;
  };
  Response r = perform(request);
  if (removed(r)) return;
  // A removal already under way (AutoRemove after its exit, or another removal: Docker's 409,
  // Podman's "state improper"): removed means gone, so wait for it, looking less often as it
  // lasts, and ask again (Podman leaves some to be removed once more). A container still listed
  // when noisefloor exits would be one left behind to every check after it.
  const auto until = std::chrono::steady_clock::now() + kRemovalWait;
  milliseconds pause{20};
  while (removal_under_way(r.status, r.body) && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, milliseconds{500});
    if (!inspect_if_exists(id)) return;
    r = perform(request);
    if (removed(r)) return;
  }
  if (removal_under_way(r.status, r.body))
    throw DockerError(fmt::format("docker: container {} was still being removed after {} s", id.substr(0, 12),
                                  std::chrono::duration_cast<std::chrono::seconds>(kRemovalWait).count()));
  throw DockerError(engine_error_message(request.method, request.path, r.status, r.content_type, r.body));
}

std::vector<nlohmann::json> Client::list_by_label(const std::string& label) {
  const nlohmann::json filters = {{"label", {label}}};
  auto j = call_json({.method = "GET",
                      .path = "/containers/json?all=1&filters=" + escape(handle_->curl, filters.dump()),
                      .timeout = kSmallCallTimeout},
                     {200});
  if (!j.is_array()) throw DockerError("docker: GET /containers/json: the answer is not a list");
  return std::vector<nlohmann::json>(j.begin(), j.end());
}

bool Client::oom_event(const std::string& id, std::int64_t since_unix, std::int64_t until_unix) {
  const nlohmann::json filters = {{"type", {"container"}}, {"container", {id}}, {"event", {"oom"}}};
  const std::int64_t now =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  const milliseconds timeout =
      kSmallCallTimeout + std::chrono::seconds(std::max<std::int64_t>(0, until_unix - now));
  auto r = call({.method = "GET",
                 .path = fmt::format("/events?since={}&until={}&filters={}", since_unix, until_unix,
                                     escape(handle_->curl, filters.dump())),
                 .timeout = timeout},
                {200});
  JsonStream stream = scan_json_stream(r.body);
  if (stream.error) throw DockerError(fmt::format("docker: GET /events: {}", *stream.error));
  return oom_event_among(stream.objects, id);
}

Client::StdinLease::~StdinLease() { libcurl().easy_cleanup(static_cast<CURL*>(curl_)); }

std::unique_ptr<Client::StdinLease> Client::hold_stdin(const std::string& id) {
  const std::string path =
      "/v" + api_version() + "/containers/" + path_part(id, false) + "/attach?stream=1&stdin=1";
  // The engine is named: an engine that stops while noisefloor attaches is reported like any other.
  const std::string where =
      fmt::format("POST /containers/{}/attach on {}", id.substr(0, 12), endpoint_.display);
  CURL* curl = libcurl().easy_init();
  if (!curl) throw DockerError("docker: libcurl could not create a handle");
  std::unique_ptr<StdinLease> lease(new StdinLease(curl));
  char error_buffer[CURL_ERROR_SIZE] = {};
  libcurl().easy_setopt(curl, CURLOPT_URL, (endpoint_.base_url + path).c_str());
  libcurl().easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  libcurl().easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer);
  libcurl().easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, kConnectTimeoutMs);
  libcurl().easy_setopt(curl, CURLOPT_CONNECT_ONLY, 1L);  // the HTTP exchange is ours: it is hijacked
  configure_transport(curl, endpoint_);
  if (const CURLcode rc = libcurl().easy_perform(curl); rc != CURLE_OK)
    throw DockerError(unreachable_message(
        endpoint_.display, lower_first(error_buffer[0] ? error_buffer : libcurl().easy_strerror(rc))));
  curl_socket_t socket = CURL_SOCKET_BAD;
  libcurl().easy_getinfo(curl, CURLINFO_ACTIVESOCKET, &socket);
  const auto deadline = steady_clock::now() + std::chrono::milliseconds(kConnectTimeoutMs);
  const auto wait_for = [&](short events) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - steady_clock::now()).count();
    if (left <= 0 || socket == CURL_SOCKET_BAD)
      throw DockerError(fmt::format("docker: {}: no answer in time", where));
    pollfd p{socket, events, 0};
    ::poll(&p, 1, static_cast<int>(left));
  };
  // Host: the socket's "localhost", or the host and port of a TCP endpoint, as in the URL.
  std::string host = endpoint_.base_url.substr(endpoint_.base_url.find("://") + 3);
  std::string prefix;
  if (const auto slash = host.find('/'); slash != std::string::npos) {
    prefix = host.substr(slash);
    host.resize(slash);
  }
  const std::string request = fmt::format(
      "POST {}{} HTTP/1.1\r\nHost: {}\r\nUser-Agent: noisefloor\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n"
      "Content-Length: 0\r\n\r\n",
      prefix, path, host);
  for (std::size_t sent = 0; sent < request.size();) {
    std::size_t n = 0;
    const CURLcode rc = libcurl().easy_send(curl, request.data() + sent, request.size() - sent, &n);
    if (rc == CURLE_AGAIN) {
      wait_for(POLLOUT);
      continue;
    }
    if (rc != CURLE_OK) throw DockerError(fmt::format("docker: {}: {}", where, libcurl().easy_strerror(rc)));
    sent += n;
  }
  // The engine answers "101 UPGRADED" (or 200 from old engines) and then the stream is raw.
  std::string answer;
  while (answer.find("\r\n\r\n") == std::string::npos) {
    char buffer[512];
    std::size_t n = 0;
    const CURLcode rc = libcurl().easy_recv(curl, buffer, sizeof buffer, &n);
    if (rc == CURLE_AGAIN) {
      wait_for(POLLIN);
      continue;
    }
    if (rc != CURLE_OK || n == 0)
      throw DockerError(fmt::format("docker: {}: the engine closed the connection", where));
    answer.append(buffer, n);
    if (answer.size() > 65536) throw DockerError(fmt::format("docker: {}: an answer without an end", where));
  }
  const std::string status = answer.substr(0, answer.find("\r\n"));
  if (status.find(" 101 ") == std::string::npos && status.find(" 200 ") == std::string::npos) {
    // Its reason is in the body (Podman prepares the container here: runc's errors come back on
    // the attach, e.g. "error setting rlimit type 7: operation not permitted"): read what it says.
    const std::size_t end = answer.find("\r\n\r\n");
    const AnswerHead head = parse_answer_head(std::string_view(answer).substr(0, end));
    std::string body = answer.substr(end + 4);
    const std::size_t want = std::min<std::size_t>(head.content_length, 65536);
    while (body.size() < want) {
      char buffer[512];
      std::size_t n = 0;
      const CURLcode rc = libcurl().easy_recv(curl, buffer, sizeof buffer, &n);
      if (rc == CURLE_AGAIN) {
        if (steady_clock::now() >= deadline) break;
        wait_for(POLLIN);
        continue;
      }
      if (rc != CURLE_OK || n == 0) break;
      body.append(buffer, n);
    }
    if (head.status == 0 || body.empty())
      throw DockerError(fmt::format("docker: {}: the engine answered \"{}\"", where, status));
    throw DockerError(engine_error_message("POST", path, head.status, head.content_type, body));
  }
  return lease;
}

}  // namespace noisefloor::docker
