// The engine lease: one noisefloor experiment per Docker engine at a time — perflock for a fleet,
// because two experiments on one machine make both wrong.
//
// The lease is a container named `noisefloor-lease` (the engine creates a name once, so creating
// it is the atomic test-and-set) running `nf-probe --hold` from the tools image, labelled with who
// holds it and since when. Its stdin is held open by the owner through an attached stream: while
// the owner lives, the container runs; when the owner dies by any signal, the kernel closes the
// stream, the probe sees end of file, the container exits and the engine removes it (AutoRemove).
// A lease container that is not running (its owner died before the engine removed it) is stale
// and is taken over; one created but not started for more than 30 s likewise. A container of that
// name without noisefloor's lease label is someone else's: it is named, never waited for and
// never removed.
// I/O edge.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "docker/client.hpp"

namespace noisefloor::docker {

inline constexpr const char* kLeaseName = "noisefloor-lease";

struct LeaseOwner {
  std::string who;    // "root@box pid 1234"
  std::string run;    // "laptop-trust/20261130-234001"
  std::string since;  // RFC 3339 UTC
};

// The engine is leased by another run (and --wait was not given).
class LeaseBusy : public DockerError {
 public:
  using DockerError::DockerError;
};

class EngineLease {
 public:
  EngineLease(const EngineLease&) = delete;
  EngineLease& operator=(const EngineLease&) = delete;
  // Releases: kills and removes the lease container. Best effort, never throws.
  ~EngineLease();

  // Takes the engine's lease for `me`, with `tools_image` (already on the engine). When another
  // run holds it: throws LeaseBusy naming the holder and since when, or with `wait` calls
  // on_wait(holder) once and polls every 2 s until the lease is free (Interrupted once cancelled;
  // LeaseBusy once `wait` has passed). A foreign container of the lease's name: DockerError.
  static std::unique_ptr<EngineLease> take(Client& client, const std::string& tools_image,
                                           const LeaseOwner& me,
                                           std::optional<std::chrono::duration<double>> wait,
                                           const std::function<void(const LeaseOwner&)>& on_wait,
                                           const std::function<bool()>& cancelled);

  // The holder of the engine's lease, if any (for messages and `noisefloor doctor`).
  static std::optional<LeaseOwner> holder(Client& client);

 private:
  EngineLease(Client& client, std::string id, std::unique_ptr<Client::StdinLease> stdin);
  Client& client_;
  std::string id_;
  std::unique_ptr<Client::StdinLease> stdin_;
};

}  // namespace noisefloor::docker
