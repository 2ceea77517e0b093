// An upload of a finished run, as the server receives it: unpacked, loaded with the same code
// every reading command uses, every summary recomputed from the samples and held against the one
// the run wrote. I/O edge (zlib).
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

// An upload unpacked: the four required files present, the others within their size, its content
// id, and the archive as sent (kept as the run's raw copy). Throws ArchiveError or UploadError.
struct Upload {
  std::vector<ArchiveFile> files;
  std::string id;
  std::string archive;
};
Upload open_upload(std::string archive, const ArchiveLimits& limits = {});

// The run an upload holds, with its rows and claims as this noisefloor computes them from its
// samples. Throws UploadError on anything but a finished noisefloor run whose summary.json is what
// its samples give. `admit` is called with the experiment's name once run.json is read, before the
// analysis: it throws to refuse.
StoredRun receive(Upload upload, const std::function<void(const std::string&)>& admit = {});

// The content id of a run: SHA-256 over its required files' names, sizes and contents, by name (a
// report written or left out later does not make it another run).
std::string content_id(const std::vector<ArchiveFile>& files);

}  // namespace noisefloor::store
