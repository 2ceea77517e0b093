#include "docker/lease.hpp"

#include <fmt/format.h>

#include <thread>

#include "docker/api.hpp"
#include "jsonread/parse.hpp"
#include "model/errors.hpp"
#include "text/text.hpp"

namespace noisefloor::docker {
namespace {

constexpr auto kLeasePoll = std::chrono::seconds(2);
constexpr auto kStartGrace = std::chrono::seconds(30);  // created, not started: being set up

LeaseOwner owner_of(const nlohmann::json& inspect) {
  const nlohmann::json& labels = jsonread::member(jsonread::member(inspect, "Config"), "Labels");
  return {jsonread::member_string(labels, "noisefloor.lease.owner", "an unknown owner"),
          jsonread::member_string(labels, "noisefloor.lease.run", "?"),
          jsonread::member_string(labels, "noisefloor.lease.since",
                                  jsonread::member_string(inspect, "Created", "?"))};
}

// noisefloor's own lease container (its label), not another's that took the name.
bool ours(const nlohmann::json& inspect) {
  return jsonread::member_string(jsonread::member(jsonread::member(inspect, "Config"), "Labels"),
                                 "noisefloor.lease") == "1";
}

// What `existing`, a container of the lease's name that is not noisefloor's, is: its image.
DockerError squatter(const Client& client, const nlohmann::json& existing) {
  const std::string image = jsonread::member_string(jsonread::member(existing, "Config"), "Image", "?");
  return DockerError(
      fmt::format("the engine at {} has a container named '{}' that noisefloor did not create (no "
                  "noisefloor.lease label; image "
                  "{}): noisefloor takes that name as its engine lease and leaves this one alone; rename or "
                  "remove it yourself "
                  "(`docker rename {} <another name>`) if it is not needed under that name",
                  client.endpoint().display, kLeaseName, text::quote(image), kLeaseName));
}

// Held: running, or created and about to be started. Otherwise stale.
bool live(const nlohmann::json& inspect) {
  const ContainerState state = container_state(inspect);
  if (state.running) return true;
  if (state.status != "created") return false;
  const auto created = parse_rfc3339_nano(state.created.empty() ? "0001-01-01T00:00:00Z" : state.created);
  return created && std::chrono::system_clock::now() - *created < kStartGrace;
}

}  // namespace

EngineLease::EngineLease(Client& client, std::string id, std::unique_ptr<Client::StdinLease> stdin)
    : client_(client), id_(std::move(id)), stdin_(std::move(stdin)) {}

EngineLease::~EngineLease() {
  stdin_.reset();  // the probe sees end of file and exits
  try {
    client_.remove(id_);
  } catch (const std::exception&) {
    // AutoRemove removes it once it has exited; a lease left running is stale by the next check.
  }
}

std::optional<LeaseOwner> EngineLease::holder(Client& client) {
  const auto existing = client.inspect_if_exists(kLeaseName);
  if (!existing || !live(*existing)) return std::nullopt;
  if (!ours(*existing))
    return LeaseOwner{"not noisefloor (a container of another's that took the lease's name)", "?", "?"};
  return owner_of(*existing);
}

std::unique_ptr<EngineLease> EngineLease::take(Client& client, const std::string& tools_image,
                                               const LeaseOwner& me,
                                               std::optional<std::chrono::duration<double>> wait,
                                               const std::function<void(const LeaseOwner&)>& on_wait,
                                               const std::function<bool()>& cancelled) {
  const auto started = std::chrono::steady_clock::now();
  ContainerRequest request;
  request.image = tools_image;
  request.argv = {"/noisefloor/probe", "--hold"};
  request.hold_stdin = true;
  request.name = kLeaseName;
  request.labels = {{"noisefloor.lease", "1"},
                    {"noisefloor.lease.owner", me.who},
                    {"noisefloor.lease.run", me.run},
                    {"noisefloor.lease.since", me.since}};
  request.spec.pids_limit = 8;
  request.spec.memory = 16 * 1024 * 1024;
  nlohmann::json body = create_body(request);
  body["HostConfig"]["AutoRemove"] = true;
  bool told = false;
  for (int attempt = 0;; ++attempt) {
    if (cancelled && cancelled()) throw Interrupted();
    if (const auto created = client.create_container_unless_named(body, kLeaseName)) {
      std::unique_ptr<Client::StdinLease> stdin;
      try {
        stdin = client.hold_stdin(created->id);
        client.start(created->id);
      } catch (...) {
        try {
          client.remove(created->id);
        } catch (const std::exception&) {
        }
        throw;
      }
      return std::unique_ptr<EngineLease>(new EngineLease(client, created->id, std::move(stdin)));
    }
    const auto existing = client.inspect_if_exists(kLeaseName);
    if (!existing) continue;                                  // released between the two calls: try again
    if (!ours(*existing)) throw squatter(client, *existing);  // never waited for, never removed
    if (!live(*existing)) {
      // Its owner is gone: take it over (remove() also waits out a removal already under way).
      client.remove(existing->value("Id", std::string(kLeaseName)));
      if (attempt > 20)
        throw DockerError(
            fmt::format("the engine at {} keeps a stale lease container '{}' that cannot be removed: "
                        "remove it (`noisefloor gc`)",
                        client.endpoint().display, kLeaseName));
      continue;
    }
    const LeaseOwner holder = owner_of(*existing);
    if (!wait)
      throw LeaseBusy(
          fmt::format("the engine at {} is in use by another noisefloor run ({}, {}, since {}): two "
                      "experiments on one machine make both wrong; wait for it with --wait (at most "
                      "1 hour; --wait=10m says how long)",
                      client.endpoint().display, holder.run, holder.who, holder.since));
    if (std::chrono::steady_clock::now() - started >= *wait)
      throw LeaseBusy(
          fmt::format("waited {:.0f} s for the engine at {}: still in use by another noisefloor run ({}, "
                      "{}, since {}); wait longer with --wait=DURATION",
                      wait->count(), client.endpoint().display, holder.run, holder.who, holder.since));
    if (!told && on_wait) on_wait(holder);
    told = true;
    const auto until = std::chrono::steady_clock::now() + kLeasePoll;
    while (std::chrono::steady_clock::now() < until) {
      if (cancelled && cancelled()) throw Interrupted();
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    attempt = 0;
  }
}

}  // namespace noisefloor::docker
