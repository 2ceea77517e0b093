// An upload of a finished run, as the server receives it: unpacked, loaded with the same code
// every reading command uses, every summary recomputed from the samples and held against the one
// the run wrote. I/O edge (the files are loaded from a private temporary directory).
#pragma once

#include <functional>
#include <string>

#include "records/store.hpp"
#include "store/archive.hpp"
#include "store/keys.hpp"
#include "store/machine.hpp"

namespace noisefloor::store {

// Why an upload was refused: a reason the publisher can act on (answered as 422 or 413).
class UploadError : public InputError {
 public:
  using InputError::InputError;
};

// The files a run directory must hold to be published, and the other files it may hold.
bool required_file(const std::string& name);

// The run an upload holds, with its rows and claims as this noisefloor computes them from its
// samples; `archive` is kept as the upload's raw copy. Throws UploadError (or ArchiveError) on
// anything but a finished noisefloor run whose summary.json is what its samples give. `admit` is
// called with the experiment's name once run.json is read, before the analysis: it throws to refuse.
StoredRun receive(std::string archive, const ArchiveLimits& limits = {},
                  const std::function<void(const std::string&)>& admit = {});

// The content id of a run: SHA-256 over its required files' names, sizes and contents, by name (a
// report written or left out later does not make it another run).
std::string content_id(const std::vector<ArchiveFile>& files);

}  // namespace noisefloor::store
