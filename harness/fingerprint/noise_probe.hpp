// The edge of the noise profile (fingerprint/noise.hpp): runs the calibrated loop and the sleeps
// on the calling thread and reads the kernel's accounting around them.
#pragma once

#include "fingerprint/noise.hpp"
#include "model/callbacks.hpp"
#include "model/experiment.hpp"

namespace noisefloor::fingerprint {

// Measures this machine for about `duration` (80% loop, 20% sleeps) on the calling thread and
// summarises it. Throws Interrupted once `cancelled` says so (checked between blocks and sleeps).
NoiseProfile measure_noise(model::Seconds duration, const model::Cancelled& cancelled);

}  // namespace noisefloor::fingerprint
