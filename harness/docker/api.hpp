// Pure pieces of the Docker Engine client: errors, API version negotiation, error-message
// formatting, JSON-stream scanning, the container create body, RFC3339Nano timestamps and a
// deterministic `docker save` tarball writer. No I/O here; client.cpp does the HTTP.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "docker/image_config.hpp"
#include "model/errors.hpp"
#include "model/experiment.hpp"

namespace noisefloor::docker {

// Any failure talking to the engine: "docker: POST /containers/create: 404: No such image: x:1",
// "cannot reach the Docker engine at unix:///var/run/docker.sock: ...", a bad DOCKER_HOST.
class DockerError : public noisefloor::RunError {
 public:
  using RunError::RunError;
};

// Client::wait gave up because its deadline passed (the container may still be running).
class WaitTimeout : public DockerError {
 public:
  using DockerError::DockerError;
};

// ---- API versions -------------------------------------------------------------------------

// The range of API versions noisefloor speaks (schemas checked against moby's v1.41..v1.47 docs).
inline constexpr std::string_view kMinApiVersion = "1.41";
inline constexpr std::string_view kMaxApiVersion = "1.47";

struct ApiVersion {
  int major = 0;
  int minor = 0;
  friend auto operator<=>(const ApiVersion&, const ApiVersion&) = default;
};

// "1.41" or "v1.41" -> {1, 41}; nullopt for anything else ("1", "1.x", "", "1.41.2").
std::optional<ApiVersion> parse_api_version(std::string_view text);

// The version to use with an engine whose /_ping answered `server` (the Api-Version header;
// nullopt or empty when the header was missing, which means kMaxApiVersion):
// min(kMaxApiVersion, server). Throws DockerError "engine too old" below kMinApiVersion and on a
// malformed header.
std::string negotiate_api_version(const std::optional<std::string>& server);

// DOCKER_API_VERSION as given ("1.41" or "v1.41") -> "1.41"; it disables negotiation, like the
// docker CLI. Throws DockerError when it is not a version.
std::string fixed_api_version(const std::string& value);

// Checks GET /version against the negotiated version: the engine's MinAPIVersion must not exceed
// it. Throws DockerError naming both versions.
void check_version_response(const std::string& negotiated, const nlohmann::json& version);

// ---- errors -------------------------------------------------------------------------------

// "docker: <method> <path without query>: <status>: <message>". `message` is the JSON body's
// "message" when the body is JSON, else the raw body (trimmed); "(empty response)" if empty.
std::string engine_error_message(std::string_view method, std::string_view path, long status,
                                 std::string_view content_type, std::string_view body);

// Answers that mean the same on Docker and on Podman's Docker API, where Podman says with a 500
// and words what Docker says with a 409 (its messages as Podman 4.3 gives them):
// the name is taken ("... that name is already in use");
bool name_in_use(long status, std::string_view body);
// POST /kill of a container that is not running ("can only kill running containers ... container
// state improper");
bool kill_not_running(long status, std::string_view body);
// DELETE ?force=1 of a container that is already on its way out: Docker's 409 "removal ... already
// in progress", Podman's 500 "cannot remove container ... could not be stopped ... container state
// improper" (it exited, and AutoRemove or another removal is under way). The caller looks again.
bool removal_under_way(long status, std::string_view body);

// The head of a raw HTTP answer (a hijacked connection's): its status code (0 when unreadable),
// Content-Type and Content-Length (0 when absent).
struct AnswerHead {
  long status = 0;
  std::string content_type;
  std::size_t content_length = 0;
};
AnswerHead parse_answer_head(std::string_view head);

// "cannot reach the Docker engine at <display>: <reason> — is dockerd (or `podman system service`) running?
// set DOCKER_HOST"
std::string unreachable_message(std::string_view display, std::string_view reason);

// ---- JSON streams (images/load, images/create, build, events) ----------------------------

struct JsonStream {
  std::string stream;                   // the "stream" texts, concatenated
  std::optional<std::string> error;     // errorDetail.message, else "error", of the first error
  std::optional<std::string> aux_id;    // aux.ID (build)
  std::vector<nlohmann::json> objects;  // every parsed line, in order
};

// Splits a newline-delimited JSON stream and collects the above. A line that is not JSON becomes
// the error (a proxy cut the stream), so a 200 can never hide a failure.
JsonStream scan_json_stream(std::string_view body);

// The reference in "Loaded image: bench:1\n" or the id in "Loaded image ID: sha256:..\n";
// nullopt when the stream says neither.
std::optional<std::string> loaded_image(std::string_view stream_text);

// ---- reading answers -----------------------------------------------------------------------

// An engine's answer is data from outside noisefloor: read through jsonread::member and its kin
// (jsonread/parse.hpp), a member that is missing or of another type reads as absent.

// POST /containers/create's answer: the new container's Id and the engine's warnings (limits it
// accepted but will not enforce). Throws DockerError without an Id.
struct Created {
  std::string id;
  std::vector<std::string> warnings;
};
Created created_of(const nlohmann::json& answer);

// POST /containers/ID/wait's answer: the exit status. Throws DockerError with the engine's
// Error.Message, or when there is no whole StatusCode.
std::int64_t wait_status(const nlohmann::json& answer, std::string_view id);

// GET /containers/ID/json, as far as a run reads it.
struct ContainerState {
  std::string id, image, created;                         // Id, Image, Created
  std::string started_at, finished_at;                    // State.StartedAt, State.FinishedAt (RFC3339Nano)
  std::string status;                                     // State.Status: "created", "running", "exited", ...
  bool running = false, oom_killed = false, tty = false;  // State.Running, State.OOMKilled, Config.Tty
  int pid = 0;                                // State.Pid (0 when not running, or not a process id)
  std::map<std::string, std::string> labels;  // Config.Labels whose values are strings
};
ContainerState container_state(const nlohmann::json& inspect);

// GET /containers/ID/json: the limits HostConfig reports (absent or null fields are 0). Throws
// ParseError "inspect: ..." when HostConfig is missing or a field has the wrong type.
model::EngineLimits engine_limits(const nlohmann::json& inspect);

// GET /containers/ID/stats?stream=false: the container's CPU time in seconds (cpu_stats.cpu_usage
// .total_usage); nullopt when the answer does not say, or says zeros for a container that is not
// running (its "read" time is Go's zero time).
std::optional<double> cpu_seconds_of(const nlohmann::json& stats);

// Whether GET /events' objects hold an "oom" event of the container `id` (a full id or a prefix).
bool oom_event_among(const std::vector<nlohmann::json>& events, std::string_view id);

// ---- containers ---------------------------------------------------------------------------

// The engine's CPUs from its /info answer (NCPU): nullopt when it does not say; a DockerError
// naming the engine at `where` when it says something else than a whole number from 1 to 65536
// (a string, 0, 2^31: a lying engine would size a loop or an allocation with it).
std::optional<int> engine_cpus(const nlohmann::json& info, const std::string& where);

// One benchmark invocation inside a container (see container.hpp: run_container).
struct ContainerRequest {
  std::string image;
  std::vector<std::string> argv;  // argv[0] is the executable inside the image: Entrypoint=[argv0], Cmd=rest
  std::map<std::string, std::string> env;     // the benchmark's env; spec.env overrides it
  model::ContainerSpec spec;                  // limits, network, user, read-only (spec.image unused)
  std::map<std::string, std::string> labels;  // noisefloor.run=<id>, noisefloor.condition=<name>
  std::string name;                           // unique, e.g. nf-<runid>-<condition>-<n>
  std::chrono::duration<double> timeout{600};
  // Keep the container's stdin open through an attached stream for as long as noisefloor runs it
  // (OpenStdin, StdinOnce): when noisefloor dies the stream closes and the container's first
  // process (nf-probe --watch-stdin) sees end of file and ends the benchmark.
  bool hold_stdin = false;
  // The engine removes the container once it exits (HostConfig.AutoRemove): a spinner's, whose
  // output nobody reads.
  bool auto_remove = false;
};

// The POST /containers/create body with safe defaults: no network unless spec.network says so,
// all capabilities dropped, no-new-privileges, read-only root with a 64 MiB noexec /tmp tmpfs
// (when spec.read_only), PidsLimit, no swap beyond Memory unless spec.memory_swap says so,
// json-file logs (so logs can be read back), no init, no auto-remove unless asked, no restart; with
// hold_stdin, OpenStdin, StdinOnce and AttachStdin. Keys that the spec leaves unset are omitted
// (engine defaults). Throws DockerError if argv is empty.
nlohmann::json create_body(const ContainerRequest& request);

// ---- timestamps ---------------------------------------------------------------------------

using Timestamp = std::chrono::sys_time<std::chrono::nanoseconds>;

// RFC3339Nano ("2026-11-30T03:38:08.103801088Z", "...+01:00", 0..9 fractional digits) -> UTC.
// nullopt for Go's zero time "0001-01-01T00:00:00Z" (never started / never finished).
// Throws DockerError on anything else that does not parse or lies outside 1678..2261.
std::optional<Timestamp> parse_rfc3339_nano(std::string_view text);

// ---- offline images -----------------------------------------------------------------------

struct TarFile {
  std::string path;  // inside the image, e.g. "/probe" or "etc/passwd"; parents are created
  std::string data;
  std::uint32_t mode = 0644;
};

// A ustar archive of regular files, sorted by path, parent directories added (0755), mtime 0,
// uid/gid 0: the same input always gives the same bytes. Throws DockerError on an empty, "..",
// duplicate or too long (> 255 bytes) path.
std::string tar_archive(const std::vector<TarFile>& files);

// A `docker save` tarball for POST /images/load with one layer made of `files`. `config` is the
// image's runtime config ({"Entrypoint":[..],"Env":[..],"WorkingDir":..,"Labels":{..}}); the image
// is created at the epoch with this build's architecture, so its id (sha256 of the config JSON)
// depends only on the inputs. `repo_tag` must be lower-case "name:tag".
std::string docker_save_tar(const std::string& repo_tag, const std::vector<TarFile>& files,
                            const ImageConfig& config);

// The image id docker_save_tar's image gets on a classic image store: "sha256:<hex>".
std::string docker_save_image_id(const std::vector<TarFile>& files, const ImageConfig& config);

// The value of noisefloor.role on a machine-facts container; the State of a running container in
// the engine's list.
inline constexpr std::string_view kFactsRole = "facts";
inline constexpr std::string_view kStateRunning = "running";

// A container a noisefloor run made (label noisefloor.run), or one that read a machine's facts
// (label noisefloor.role=facts: a remote run's, before it has a run id, or `doctor --host`'s), as
// the engine lists it.
struct RunContainer {
  std::string id;      // full
  std::string name;    // without the leading '/'
  std::string run;     // noisefloor.run: the run id ("" for a facts container)
  std::string owner;   // noisefloor.owner: who held the engine's lease for it; "" before 0.2 labelled
                       // it, and for `doctor --host`'s facts container (it takes no lease)
  std::string state;   // "running", "exited", ...
  bool facts = false;  // noisefloor.role=facts
};
// One entry of GET /containers/json as a RunContainer; nullopt without an Id.
std::optional<RunContainer> run_container_of(const nlohmann::json& listed);

// What `noisefloor gc` does with each: a container whose owner holds the engine's lease belongs to
// a living run and is kept; so is one of unknown owner while some run holds the lease (it may be
// that run's); a facts container of no owner is kept while it runs (a `doctor --host` reading the
// machine now: it lives a second); every other is an orphan and is removed. Pure.
struct GcPlan {
  std::vector<RunContainer> remove;
  std::vector<RunContainer> keep;     // of the living run (or of unknown owner while a run is alive)
  std::vector<RunContainer> reading;  // facts containers of no owner, running
};
GcPlan plan_gc(const std::vector<RunContainer>& containers, const std::optional<std::string>& lease_holder);

}  // namespace noisefloor::docker
