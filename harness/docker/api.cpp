#include "docker/api.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <set>

#include "hash/sha256.hpp"
#include "jsonread/parse.hpp"
#include "text/text.hpp"

namespace noisefloor::docker {
namespace {

using text::trim;

bool parse_int(std::string_view s, int& out) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

std::string format_version(ApiVersion v) { return fmt::format("{}.{}", v.major, v.minor); }

ApiVersion require_version(std::string_view text, std::string_view what) {
  auto v = parse_api_version(text);
  if (!v) throw DockerError(fmt::format("{} '{}' is not an API version (expected e.g. 1.41)", what, text));
  return *v;
}

// HostConfig's field `key`: nullptr when absent or null.
const nlohmann::json* host_field(const nlohmann::json& host_config, const char* key) {
  const auto it = host_config.find(key);
  if (it == host_config.end() || it->is_null()) return nullptr;
  return &*it;
}

// HostConfig's whole number `key`: 0 when absent or null.
std::int64_t host_int(const nlohmann::json& host_config, const char* key) {
  const nlohmann::json* value = host_field(host_config, key);
  if (value == nullptr) return 0;
  if (!value->is_number_integer()) {
    throw ParseError(fmt::format("inspect: HostConfig.{}: expected an integer, got {}", key,
                                 jsonread::json_shown(*value)));
  }
  return value->get<std::int64_t>();
}

}  // namespace

// ---- API versions -------------------------------------------------------------------------

std::optional<ApiVersion> parse_api_version(std::string_view text) {
  if (!text.empty() && text.front() == 'v') text.remove_prefix(1);
  auto dot = text.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  ApiVersion v;
  if (!parse_int(text.substr(0, dot), v.major) || !parse_int(text.substr(dot + 1), v.minor)) {
    return std::nullopt;
  }
  return v;
}

std::string negotiate_api_version(const std::optional<std::string>& server) {
  const ApiVersion max = *parse_api_version(kMaxApiVersion);
  const ApiVersion min = *parse_api_version(kMinApiVersion);
  if (!server || trim(*server).empty()) return std::string(kMaxApiVersion);
  auto v = parse_api_version(trim(*server));
  if (!v) {
    throw DockerError(fmt::format(
        "docker: the engine's Api-Version header '{}' is not an API version (expected e.g. 1.41)", *server));
  }
  if (*v < min) {
    throw DockerError(
        fmt::format("docker: engine too old: it speaks API {} at most, noisefloor needs {} or newer "
                    "(Docker 20.10+)",
                    format_version(*v), kMinApiVersion));
  }
  return format_version(std::min(*v, max));
}

std::string fixed_api_version(const std::string& value) {
  return format_version(require_version(trim(value), "DOCKER_API_VERSION"));
}

void check_version_response(const std::string& negotiated, const nlohmann::json& version) {
  if (!version.is_object()) return;
  auto it = version.find("MinAPIVersion");
  if (it == version.end() || !it->is_string()) return;
  const std::string engine_min = it->get<std::string>();
  auto min = parse_api_version(engine_min);
  if (!min) return;  // tolerate odd engines: a real incompatibility still fails with a 400 later
  if (*parse_api_version(negotiated) < *min) {
    throw DockerError(
        fmt::format("docker: the engine requires API {} or newer but noisefloor uses {} (it speaks {}..{}; "
                    "unset DOCKER_API_VERSION if it is set)",
                    engine_min, negotiated, kMinApiVersion, kMaxApiVersion));
  }
}

// ---- errors -------------------------------------------------------------------------------

std::string engine_error_message(std::string_view method, std::string_view path, long status,
                                 std::string_view content_type, std::string_view body) {
  path = path.substr(0, path.find('?'));
  std::string message;
  std::string ct(content_type);
  std::transform(ct.begin(), ct.end(), ct.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ct.rfind("application/json", 0) == 0) {
    auto j = jsonread::parse_json_or_discarded(body);
    if (!j.is_discarded() && j.is_object() && j.contains("message") && j["message"].is_string()) {
      message = j["message"].get<std::string>();
    }
  }
  if (message.empty()) message = std::string(trim(body));
  if (message.empty()) message = "(empty response)";
  return fmt::format("docker: {} {}: {}: {}", method, path, status, message);
}

bool name_in_use(long status, std::string_view body) {
  return status == 409 || (status == 500 && body.find("is already in use") != std::string_view::npos);
}

bool kill_not_running(long status, std::string_view body) {
  return status == 409 ||
         (status == 500 && (body.find("can only kill running containers") != std::string_view::npos ||
                            body.find("container state improper") != std::string_view::npos));
}

bool removal_under_way(long status, std::string_view body) {
  return (status == 409 && body.find("already in progress") != std::string_view::npos) ||
         (status == 500 && body.find("container state improper") != std::string_view::npos);
}

AnswerHead parse_answer_head(std::string_view head) {
  AnswerHead out;
  const auto lines = text::lines(head);
  if (lines.empty()) return out;
  // "HTTP/1.1 409 Conflict"
  const std::string_view first = lines.front();
  if (const std::size_t sp = first.find(' '); sp != std::string_view::npos) {
    // an HTTP status is three digits: anything else is no status (0), never a number that overflows
    const std::string_view rest = first.substr(sp + 1);
    const std::size_t digits = std::min(rest.find_first_not_of("0123456789"), rest.size());
    if (digits == 3) std::from_chars(rest.data(), rest.data() + 3, out.status);
  }
  for (std::size_t k = 1; k < lines.size(); ++k) {
    const std::string_view line = lines[k];
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string name(trim(line.substr(0, colon)));
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    const std::string_view value = trim(line.substr(colon + 1));
    if (name == "content-type") out.content_type = std::string(value);
    if (name == "content-length") {
      // past what a size_t holds: the most there is (the reader caps what it reads anyway)
      std::size_t n = 0;
      const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), n);
      out.content_length = error == std::errc::result_out_of_range ? SIZE_MAX : n;
    }
  }
  return out;
}

std::string unreachable_message(std::string_view display, std::string_view reason) {
  return fmt::format(
      "cannot reach the Docker engine at {}: {} \u2014 is dockerd (or `podman system service`) running? set "
      "DOCKER_HOST",
      display, reason);
}

// ---- JSON streams -------------------------------------------------------------------------

JsonStream scan_json_stream(std::string_view body) {
  JsonStream result;
  for (const std::string_view raw : text::lines(body)) {
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    auto j = jsonread::parse_json_or_discarded(line);
    if (j.is_discarded() || !j.is_object()) {
      if (!result.error) {
        result.error = fmt::format("unreadable line in the engine's response: '{}'", line.substr(0, 200));
      }
      continue;
    }
    if (!result.error) {
      if (auto d = j.find("errorDetail");
          d != j.end() && d->is_object() && d->contains("message") && (*d)["message"].is_string()) {
        result.error = (*d)["message"].get<std::string>();
      } else if (auto e = j.find("error"); e != j.end() && e->is_string()) {
        result.error = e->get<std::string>();
      }
    }
    if (auto s = j.find("stream"); s != j.end() && s->is_string()) {
      result.stream += s->get<std::string>();
    }
    if (auto a = j.find("aux");
        a != j.end() && a->is_object() && a->contains("ID") && (*a)["ID"].is_string()) {
      result.aux_id = (*a)["ID"].get<std::string>();
    }
    result.objects.push_back(std::move(j));
  }
  return result;
}

std::optional<std::string> loaded_image(std::string_view stream_text) {
  // The last "Loaded image" line wins: a tarball with several tags reports each.
  std::optional<std::string> found;
  for (const std::string_view raw : text::lines(stream_text)) {
    const std::string_view line = trim(raw);
    for (std::string_view prefix : {"Loaded image ID: ", "Loaded image: "}) {
      if (line.substr(0, prefix.size()) == prefix) {
        found = std::string(trim(line.substr(prefix.size())));
        break;
      }
    }
  }
  return found;
}

// ---- containers ---------------------------------------------------------------------------

nlohmann::json create_body(const ContainerRequest& request) {
  if (request.argv.empty() || request.argv.front().empty()) {
    throw DockerError(fmt::format("container '{}': no command to run (argv is empty)", request.name));
  }
  const model::ContainerSpec& spec = request.spec;
  std::map<std::string, std::string> env = request.env;
  for (const auto& [k, v] : spec.env) env[k] = v;  // the condition is more specific than the benchmark
  nlohmann::json env_list = nlohmann::json::array();
  for (const auto& [k, v] : env) env_list.push_back(k + "=" + v);

  nlohmann::json host = {
      {"NetworkMode", spec.network.empty() ? std::string("none") : spec.network},
      {"CapDrop", {"ALL"}},
      {"SecurityOpt", {"no-new-privileges"}},
      {"ReadonlyRootfs", spec.read_only},
      {"PidsLimit", spec.pids_limit},
      {"Privileged", false},
      {"Init", false},
      {"AutoRemove", request.auto_remove},
      {"RestartPolicy", {{"Name", "no"}}},
      {"LogConfig", {{"Type", "json-file"}, {"Config", nlohmann::json::object()}}},
  };
  if (spec.perf_events) host["CapAdd"] = {"CAP_PERFMON"};
  if (spec.read_only) host["Tmpfs"] = {{"/tmp", "rw,noexec,nosuid,size=64m"}};
  if (spec.cpuset) host["CpusetCpus"] = *spec.cpuset;
  if (spec.cpus) host["NanoCpus"] = static_cast<std::int64_t>(std::llround(*spec.cpus * 1e9));
  if (spec.memory) {
    host["Memory"] = *spec.memory;
    // Swapping would measure the disk, not the benchmark: no swap unless the spec asks for it.
    host["MemorySwap"] = spec.memory_swap.value_or(*spec.memory);
  } else if (spec.memory_swap) {
    host["MemorySwap"] = *spec.memory_swap;  // the engine rejects this with a clear 400
  }

  nlohmann::json body = {
      {"Image", request.image},
      {"Entrypoint", {request.argv.front()}},
      {"Cmd", std::vector<std::string>(request.argv.begin() + 1, request.argv.end())},
      {"Env", env_list},
      {"Labels", request.labels},
      {"Tty", false},
      {"OpenStdin", request.hold_stdin},
      {"StdinOnce", request.hold_stdin},
      {"AttachStdin", request.hold_stdin},
      {"AttachStdout", false},
      {"AttachStderr", false},
      {"HostConfig", host},
  };
  if (spec.user) body["User"] = *spec.user;
  return body;
}

// ---- timestamps ---------------------------------------------------------------------------

namespace {

// Reads an RFC 3339 timestamp's parts left to right; a part that is not there throws the one
// error that names the whole text.
class Rfc3339Reader {
 public:
  explicit Rfc3339Reader(std::string_view text) : text_(text) {}

  DockerError fail() const {
    return DockerError(fmt::format(
        "docker: timestamp '{}' is not RFC 3339 (expected e.g. 2026-11-30T03:38:08.103801088Z)", text_));
  }
  int digits(std::size_t n) {
    if (pos_ + n > text_.size()) throw fail();
    int v = 0;
    for (const std::size_t end = pos_ + n; pos_ < end; ++pos_) {
      if (text_[pos_] < '0' || text_[pos_] > '9') throw fail();
      v = v * 10 + (text_[pos_] - '0');
    }
    return v;
  }
  void expect(char c) {
    if (pos_ >= text_.size() || text_[pos_] != c) throw fail();
    ++pos_;
  }
  bool next_is(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  // ".103801088" as nanoseconds (1 to 9 digits); 0 when there is no fraction.
  std::int64_t fraction_ns() {
    if (!next_is('.')) return 0;
    ++pos_;
    std::int64_t frac = 0;
    std::size_t n = 0;
    for (; pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9'; ++pos_, ++n) {
      if (n == 9) throw fail();
      frac = frac * 10 + (text_[pos_] - '0');
    }
    if (n == 0) throw fail();
    for (; n < 9; ++n) frac *= 10;
    return frac;
  }
  // "Z" as 0, "+01:30" as 90, "-05:00" as -300: the offset from UTC in minutes.
  int offset_minutes() {
    if (next_is('Z')) {
      ++pos_;
      return 0;
    }
    if (!next_is('+') && !next_is('-')) throw fail();
    const int sign = next_is('-') ? -1 : 1;
    ++pos_;
    const int oh = digits(2);
    expect(':');
    const int om = digits(2);
    if (oh > 23 || om > 59) throw fail();
    return sign * (oh * 60 + om);
  }
  bool done() const { return pos_ == text_.size(); }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace

std::optional<Timestamp> parse_rfc3339_nano(std::string_view text) {
  using namespace std::chrono;
  if (text == "0001-01-01T00:00:00Z") return std::nullopt;
  Rfc3339Reader r(text);
  const int y = r.digits(4);
  r.expect('-');
  const int mo = r.digits(2);
  r.expect('-');
  const int d = r.digits(2);
  r.expect('T');
  const int h = r.digits(2);
  r.expect(':');
  const int mi = r.digits(2);
  r.expect(':');
  const int s = r.digits(2);
  const std::int64_t frac = r.fraction_ns();
  const int offset = r.offset_minutes();
  if (!r.done()) throw r.fail();
  if (h > 23 || mi > 59 || s > 60) throw r.fail();  // 60: a leap second, as RFC 3339 allows
  const year_month_day ymd{year{y}, month{static_cast<unsigned>(mo)}, day{static_cast<unsigned>(d)}};
  if (!ymd.ok()) throw r.fail();
  if (y < 1678 || y > 2261) throw r.fail();  // outside what int64 nanoseconds since 1970 can hold
  const sys_days days{ymd};
  return Timestamp{duration_cast<nanoseconds>(days.time_since_epoch()) + hours{h} + minutes{mi} + seconds{s} -
                   minutes{offset} + nanoseconds{frac}};
}

// ---- offline images -----------------------------------------------------------------------

namespace {

// "/a//b/./c" -> "a/b/c"; throws on "..", empty.
std::string clean_path(const std::string& path) {
  std::string out;
  std::size_t i = 0;
  while (i <= path.size()) {
    std::size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    std::string_view part(path.data() + i, j - i);
    if (part == "..") throw DockerError(fmt::format("image file path '{}' contains '..'", path));
    if (!part.empty() && part != ".") {
      if (!out.empty()) out += '/';
      out += part;
    }
    i = j + 1;
  }
  if (out.empty()) throw DockerError(fmt::format("image file path '{}' is empty", path));
  return out;
}

void put_octal(char* field, std::size_t width, std::uint64_t value) {
  // width includes the terminating NUL
  std::string s = fmt::format("{:0{}o}", value, width - 1);
  if (s.size() != width - 1) throw DockerError("tar field overflow");
  std::memcpy(field, s.data(), s.size());
  field[width - 1] = '\0';
}

void append_entry(std::string& out, const std::string& name, char type, std::uint32_t mode,
                  std::string_view data) {
  char h[512] = {};
  std::string n = name;
  std::string prefix;
  if (n.size() > 100) {
    // ustar: split at a '/' so that prefix <= 155 and name <= 100 bytes
    std::size_t cut = n.rfind('/', 155);
    if (cut != std::string::npos && n.size() - cut - 1 > 100) cut = std::string::npos;
    if (cut == std::string::npos || cut == 0) {
      throw DockerError(fmt::format("image file path '{}' is too long for a tar header", name));
    }
    prefix = n.substr(0, cut);
    n = n.substr(cut + 1);
  }
  std::memcpy(h, n.data(), n.size());
  put_octal(h + 100, 8, mode & 07777);
  put_octal(h + 108, 8, 0);
  put_octal(h + 116, 8, 0);
  put_octal(h + 124, 12, data.size());
  put_octal(h + 136, 12, 0);
  std::memset(h + 148, ' ', 8);
  h[156] = type;
  std::memcpy(h + 257, "ustar", 6);
  std::memcpy(h + 263, "00", 2);
  put_octal(h + 329, 8, 0);
  put_octal(h + 337, 8, 0);
  std::memcpy(h + 345, prefix.data(), prefix.size());
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  std::string chk = fmt::format("{:06o}", sum);
  std::memcpy(h + 148, chk.data(), 6);
  h[154] = '\0';
  h[155] = ' ';
  out.append(h, sizeof h);
  out.append(data);
  out.append((512 - data.size() % 512) % 512, '\0');
}

std::string architecture() {
#if defined(__x86_64__)
  return "amd64";
#elif defined(__aarch64__)
  return "arm64";
#elif defined(__arm__)
  return "arm";
#elif defined(__powerpc64__)
  return "ppc64le";
#elif defined(__s390x__)
  return "s390x";
#elif defined(__riscv)
  return "riscv64";
#else
  return "386";
#endif
}

struct ImageParts {
  std::string layer;
  std::string config;  // JSON text, hashed for the id
};

ImageParts image_parts(const std::vector<TarFile>& files, const ImageConfig& config) {
  ImageParts parts;
  parts.layer = tar_archive(files);
  const nlohmann::json image_config = {
      {"architecture", architecture()},
      {"os", "linux"},
      {"created", "1970-01-01T00:00:00Z"},
      {"config", config},
      {"rootfs", {{"type", "layers"}, {"diff_ids", {"sha256:" + hash::sha256_hex(parts.layer)}}}},
      {"history", {{{"created", "1970-01-01T00:00:00Z"}, {"created_by", "noisefloor"}}}},
  };
  parts.config = image_config.dump();  // object keys are sorted: stable bytes
  return parts;
}

}  // namespace

std::string tar_archive(const std::vector<TarFile>& files) {
  std::map<std::string, const TarFile*> regular;
  std::set<std::string> dirs;
  for (const TarFile& f : files) {
    std::string path = clean_path(f.path);
    if (!regular.emplace(path, &f).second) {
      throw DockerError(fmt::format("image file path '{}' is given twice", f.path));
    }
    for (std::size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1)) {
      dirs.insert(path.substr(0, slash));
    }
  }
  for (const auto& d : dirs) {
    if (regular.count(d)) {
      throw DockerError(fmt::format("image file path '{}' is also a directory", d));
    }
  }
  // One sorted sequence of entries; a directory "a" sorts before "a/x" because it is a prefix.
  std::map<std::string, const TarFile*> entries = regular;
  for (const auto& d : dirs) entries.emplace(d, nullptr);
  std::string out;
  for (const auto& [path, file] : entries) {
    if (file) {
      append_entry(out, path, '0', file->mode, file->data);
    } else {
      append_entry(out, path + "/", '5', 0755, {});
    }
  }
  out.append(1024, '\0');
  return out;
}

std::string docker_save_tar(const std::string& repo_tag, const std::vector<TarFile>& files,
                            const ImageConfig& config) {
  if (repo_tag.empty() || std::any_of(repo_tag.begin(), repo_tag.end(), [](unsigned char c) {
        return !(std::islower(c) || std::isdigit(c) || c == '.' || c == '_' || c == '-' || c == '/' ||
                 c == ':');
      })) {
    throw DockerError(fmt::format(
        "image name '{}' is not a lower-case reference (expected e.g. noisefloor-bench:1)", repo_tag));
  }
  ImageParts parts = image_parts(files, config);
  const std::string config_hex = hash::sha256_hex(parts.config);
  const std::string layer_dir = hash::sha256_hex(parts.layer);
  const nlohmann::json manifest = nlohmann::json::array(
      {{{"Config", config_hex + ".json"}, {"RepoTags", {repo_tag}}, {"Layers", {layer_dir + "/layer.tar"}}}});
  return tar_archive({
      {"manifest.json", manifest.dump(), 0644},
      {config_hex + ".json", parts.config, 0644},
      {layer_dir + "/layer.tar", parts.layer, 0644},
  });
}

std::string docker_save_image_id(const std::vector<TarFile>& files, const ImageConfig& config) {
  return "sha256:" + hash::sha256_hex(image_parts(files, config).config);
}

std::optional<RunContainer> run_container_of(const nlohmann::json& listed) {
  if (!listed.is_object()) return std::nullopt;
  RunContainer r;
  r.id = jsonread::member_string(listed, "Id");
  if (r.id.empty()) return std::nullopt;
  if (const nlohmann::json& names = jsonread::member(listed, "Names");
      names.is_array() && !names.empty() && names.front().is_string()) {
    r.name = names.front().get<std::string>();
    if (!r.name.empty() && r.name.front() == '/') r.name.erase(0, 1);
  }
  const nlohmann::json& labels = jsonread::member(listed, "Labels");
  r.run = jsonread::member_string(labels, "noisefloor.run");
  r.owner = jsonread::member_string(labels, "noisefloor.owner");
  r.state = jsonread::member_string(listed, "State");
  r.facts = jsonread::member_string(labels, "noisefloor.role") == kFactsRole;
  return r;
}

GcPlan plan_gc(const std::vector<RunContainer>& containers, const std::optional<std::string>& lease_holder) {
  GcPlan plan;
  for (const auto& c : containers) {
    if (c.facts && c.owner.empty()) {
      (c.state == kStateRunning ? plan.reading : plan.remove).push_back(c);
      continue;
    }
    const bool alive = lease_holder && (c.owner == *lease_holder || c.owner.empty());
    (alive ? plan.keep : plan.remove).push_back(c);
  }
  return plan;
}

std::optional<int> engine_cpus(const nlohmann::json& info, const std::string& where) {
  if (!info.is_object()) return std::nullopt;
  const auto it = info.find("NCPU");
  if (it == info.end() || it->is_null()) return std::nullopt;
  if (it->is_number_integer() && it->get<std::int64_t>() >= 1 && it->get<std::int64_t>() <= 65536)
    return static_cast<int>(it->get<std::int64_t>());
  throw DockerError(
      fmt::format("docker: GET /info: NCPU is {}, not a number of CPUs from 1 to 65536: is {} a "
                  "Docker engine?",
                  jsonread::json_shown(*it), where));
}

// ---- reading answers ----

Created created_of(const nlohmann::json& answer) {
  Created created;
  created.id = jsonread::member_string(answer, "Id");
  if (created.id.empty()) throw DockerError("docker: POST /containers/create: 201 without an Id");
  if (const nlohmann::json& w = jsonread::member(answer, "Warnings"); w.is_array())
    for (const auto& item : w)
      if (item.is_string() && !item.get<std::string>().empty()) created.warnings.push_back(item);
  return created;
}

std::int64_t wait_status(const nlohmann::json& answer, std::string_view id) {
  if (const std::string message = jsonread::member_string(jsonread::member(answer, "Error"), "Message");
      !message.empty())
    throw DockerError(fmt::format("docker: POST /containers/{}/wait: {}", id, message));
  const auto code = jsonread::member_int(answer, "StatusCode");
  if (!code) {
    throw DockerError(fmt::format("docker: POST /containers/{}/wait: no StatusCode in '{}'", id,
                                  jsonread::json_shown(answer, 200)));
  }
  return *code;
}

model::EngineLimits engine_limits(const nlohmann::json& inspect) {
  const nlohmann::json* host_config = inspect.is_object() ? host_field(inspect, "HostConfig") : nullptr;
  if (host_config == nullptr || !host_config->is_object()) {
    throw ParseError("inspect: missing object 'HostConfig'");
  }
  const nlohmann::json& hc = *host_config;
  model::EngineLimits limits;
  if (const nlohmann::json* cpuset = host_field(hc, "CpusetCpus")) {
    if (!cpuset->is_string()) {
      throw ParseError(fmt::format("inspect: HostConfig.CpusetCpus: expected a string, got {}",
                                   jsonread::json_shown(*cpuset)));
    }
    if (!cpuset->get<std::string>().empty()) limits.cpuset = cpuset->get<std::string>();
  }
  limits.nano_cpus = host_int(hc, "NanoCpus");
  limits.cpu_quota = host_int(hc, "CpuQuota");
  limits.cpu_period = host_int(hc, "CpuPeriod");
  limits.memory = host_int(hc, "Memory");
  limits.memory_swap = host_int(hc, "MemorySwap");
  limits.pids_limit = host_int(hc, "PidsLimit");
  return limits;
}

ContainerState container_state(const nlohmann::json& inspect) {
  ContainerState c;
  c.id = jsonread::member_string(inspect, "Id");
  c.image = jsonread::member_string(inspect, "Image");
  c.created = jsonread::member_string(inspect, "Created");
  const nlohmann::json& state = jsonread::member(inspect, "State");
  c.started_at = jsonread::member_string(state, "StartedAt");
  c.finished_at = jsonread::member_string(state, "FinishedAt");
  c.status = jsonread::member_string(state, "Status");
  c.running = jsonread::member_true(state, "Running");
  c.oom_killed = jsonread::member_true(state, "OOMKilled");
  if (const auto pid = jsonread::member_int(state, "Pid");
      pid && *pid > 0 && *pid <= std::numeric_limits<int>::max())
    c.pid = static_cast<int>(*pid);
  const nlohmann::json& config = jsonread::member(inspect, "Config");
  c.tty = jsonread::member_true(config, "Tty");
  if (const nlohmann::json& labels = jsonread::member(config, "Labels"); labels.is_object())
    for (const auto& [key, value] : labels.items())
      if (value.is_string()) c.labels[key] = value.get<std::string>();
  return c;
}

std::optional<double> cpu_seconds_of(const nlohmann::json& stats) {
  const nlohmann::json& total =
      jsonread::member(jsonread::member(jsonread::member(stats, "cpu_stats"), "cpu_usage"), "total_usage");
  if (!total.is_number()) return std::nullopt;
  // A container that is not running reports zeros: no reading.
  if (jsonread::member_string(stats, "read").starts_with("0001-01-01")) return std::nullopt;
  return total.get<double>() / 1e9;
}

bool oom_event_among(const std::vector<nlohmann::json>& events, std::string_view id) {
  for (const auto& event : events) {
    const bool oom = jsonread::member_string(event, "Action") == "oom" ||
                     jsonread::member_string(event, "status") == "oom";  // legacy field (< 1.52)
    std::string actor = jsonread::member_string(jsonread::member(event, "Actor"), "ID");
    if (actor.empty()) actor = jsonread::member_string(event, "id");
    if (oom && !id.empty() && (actor == id || actor.starts_with(id))) return true;
  }
  return false;
}

}  // namespace noisefloor::docker
