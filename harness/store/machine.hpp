// A machine of the store: the facts that identify it and their digest. Pure.
//
// Two runs are from one machine when these facts are equal, whatever the host is called: the CPU
// (vendor, model name, family, model, stepping, sockets, cores, logical CPUs), the kernel release,
// the virtualization (hypervisor, or none) and the memory in GiB. A fact a run could not read counts
// as "unknown", itself a value: two machines that both hide their hypervisor may share a digest, two
// different CPUs never do (conbench#1412). The hostname is left out on purpose: it is neither
// stable (containers, CI runners) nor anybody's business on a public page.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "records/fingerprint.hpp"
#include "records/store.hpp"

namespace noisefloor::store {

// The store's records (records/store.hpp), by their short names in this module.
using records::ClaimVerdict;
using records::CvPoint;
using records::GateResult;
using records::Machine;
using records::RunFilter;
using records::RunListing;
using records::StoredClaim;
using records::StoredRow;
using records::StoredRun;

// The facts' names, in the digest's order.
const std::vector<std::string>& machine_fact_names();

// The machine a run's fingerprint describes.
Machine machine_of(const records::Fingerprint& fingerprint);

}  // namespace noisefloor::store
