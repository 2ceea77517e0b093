// Docker Engine API client: libcurl over the unix socket (or tcp/TLS), JSON via nlohmann_json.
// Never the docker CLI. One Client owns one libcurl handle (kept alive between calls): use it
// from one thread at a time.
//
// Every call fails with one line (DockerError): "cannot reach the Docker engine at ..." when the
// engine does not answer, "docker: POST /containers/create: 404: No such image: bench:1" for an
// engine error, the errorDetail message for an error streamed inside a 200. Every call is bounded:
// a 5 s connect timeout, a total timeout for small calls, a deadline and a cancellation callback
// for wait.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "docker/api.hpp"
#include "docker/endpoint.hpp"

namespace noisefloor::docker {

class SshTunnel;

class Client {
 public:
  // The engine the docker CLI would use: DOCKER_HOST & co (see endpoint.hpp), else the context
  // DOCKER_CONTEXT or config.json's currentContext names (context.hpp), else the local socket;
  // DOCKER_API_VERSION, if non-empty, fixes the API version and disables negotiation.
  static Client from_environment();
  // This endpoint (resolve_host in context.hpp names one), DOCKER_API_VERSION as above.
  static Client for_endpoint(Endpoint endpoint);

  // fixed_api_version: "1.41" (or "v1.41") to skip negotiation; nullopt to negotiate.
  // An ssh:// endpoint (endpoint.ssh) is reached through an SshTunnel the Client opens here and
  // owns: endpoint().socket_path is the tunnel's local socket, and endpoint().display stays the
  // ssh:// URL, so messages name the real engine. Throws DockerError when the tunnel cannot be
  // opened (ssh_tunnel.hpp).
  Client(Endpoint endpoint, std::optional<std::string> fixed_api_version);
  Client(Client&&) noexcept;
  Client& operator=(Client&&) noexcept;
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;
  ~Client();

  const Endpoint& endpoint() const { return endpoint_; }

  // Holds the stdin of a created, not yet started container (created with OpenStdin and
  // StdinOnce): POST /containers/{id}/attach?stream=1&stdin=1, hijacked, on a connection of its
  // own. The container's stdin stays open while the lease lives; when the lease is destroyed, or
  // noisefloor dies by any signal (the kernel closes the socket), the engine closes it. Throws
  // DockerError when the engine does not upgrade the connection within the timeout.
  class StdinLease {
   public:
    StdinLease(const StdinLease&) = delete;
    StdinLease& operator=(const StdinLease&) = delete;
    ~StdinLease();

   private:
    friend class Client;
    explicit StdinLease(void* curl) : curl_(curl) {}
    void* curl_;  // CURL*
  };
  std::unique_ptr<StdinLease> hold_stdin(const std::string& id);

  // Containers a ContainerGuard could not remove ("<id12>: <reason>"), for the caller to report:
  // a guard runs while the stack unwinds and must neither throw nor print.
  void remember_leftover(std::string what) { leftovers_.push_back(std::move(what)); }
  const std::vector<std::string>& leftovers() const { return leftovers_; }

  // The version used in every path ("/v1.41/..."), negotiated on first use and cached:
  // min(1.47, the Api-Version of HEAD /_ping), at least 1.41, and accepted by GET /version's
  // MinAPIVersion.
  std::string api_version();

  void ping();               // HEAD /_ping (unversioned)
  nlohmann::json version();  // GET /version
  nlohmann::json info();     // GET /info
  // Podman's own GET /v4.0.0/libpod/info (unversioned: the Libpod API beside the Docker one), which
  // says what /info does not: rootless, the cgroup controllers containers get. nullopt when the
  // engine has no such endpoint (Docker).
  std::optional<nlohmann::json> libpod_info();

  // GET /images/{ref}/json; nullopt when the engine does not have the image.
  std::optional<nlohmann::json> image_inspect(const std::string& ref);

  // POST /images/load with a `docker save` tarball (see docker_save_tar); returns the loaded
  // reference ("bench:1") or, for an untagged image, its id.
  // Throws Interrupted once `cancelled` (polled while the upload runs) says so.
  std::string load_image(const std::string& tar_bytes, const std::function<bool()>& cancelled = nullptr);

  using Created = docker::Created;  // api.hpp: created_of
  // POST /containers/create?name=<name>
  Created create_container(const nlohmann::json& body, const std::string& name);
  // The same, but nullopt when a container of that name exists already (409): the engine creates
  // a name once, which makes a container a lock (docker/lease.hpp).
  std::optional<Created> create_container_unless_named(const nlohmann::json& body, const std::string& name);

  void start(const std::string& id);  // already running (304) is fine

  // POST /containers/{id}/wait?condition=not-running; call after start. Returns the exit code.
  // Throws WaitTimeout once `deadline` passes and noisefloor::Interrupted once cancelled() is
  // true (polled about once a second and whenever data arrives); the container keeps running.
  std::int64_t wait(const std::string& id, std::chrono::steady_clock::time_point deadline,
                    const std::function<bool()>& cancelled);

  nlohmann::json inspect(const std::string& id);                           // GET /containers/{id}/json
  std::optional<nlohmann::json> inspect_if_exists(const std::string& id);  // nullopt: 404

  // The CPU time the container's processes have had so far (GET /containers/{id}/stats?stream=
  // false&one-shot=true: cpu_stats.cpu_usage.total_usage, cgroup v1 and v2 alike); nullopt when
  // the container is gone or not running.
  std::optional<double> cpu_seconds(const std::string& id);

  struct Logs {
    std::string out, err;
  };
  // GET /containers/{id}/logs?stdout=1&stderr=1, demultiplexed (tty: raw, all in out).
  Logs logs(const std::string& id, bool tty);
  // Follows the logs of a running container until it exits (logs?follow=1), passing stdout to
  // on_stdout as it arrives; returns everything. Past the deadline: WaitTimeout; when
  // cancelled() turns true: noisefloor::Interrupted.
  Logs follow_logs(const std::string& id, bool tty, const std::function<void(std::string_view)>& on_stdout,
                   std::chrono::steady_clock::time_point deadline, const std::function<bool()>& cancelled);

  // POST /containers/{id}/kill; a container that is not running (409) is fine.
  void kill(const std::string& id, const std::string& signal = "SIGKILL");

  // DELETE /containers/{id}?force=1&v=1; returns once the container is gone: a missing one (404)
  // is removed, and a removal already in progress (Docker's 409, Podman's 500 "container state
  // improper") is waited for, at most 30 s; then DockerError names it.
  void remove(const std::string& id);

  // GET /containers/json?all=1 filtered by a label: "key=value" or "key" (key exists).
  std::vector<nlohmann::json> list_by_label(const std::string& label);

  // Whether the engine recorded an "oom" event for the container between the two unix times
  // (GET /events?since=&until=&filters=). `until` in the future makes the engine wait until then.
  bool oom_event(const std::string& id, std::int64_t since_unix, std::int64_t until_unix);

 private:
  struct Request;
  struct Response;
  struct Handle;
  Response perform(const Request& request);
  Response call(const Request& request, std::initializer_list<long> ok_statuses);
  nlohmann::json call_json(const Request& request, std::initializer_list<long> ok_statuses);

  std::shared_ptr<SshTunnel> tunnel_;  // ssh:// endpoints only; outlives every use of endpoint_
  Endpoint endpoint_;
  std::optional<std::string> fixed_api_version_;
  std::optional<std::string> api_version_;
  std::unique_ptr<Handle> handle_;
  std::vector<std::string> leftovers_;
};

}  // namespace noisefloor::docker
