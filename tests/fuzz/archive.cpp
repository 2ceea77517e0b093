// An upload's archive as the store's server reads it (store::unpack): any bytes are refused with
// one line or give plain files, and what it gives packs and unpacks back to the same files.
#include "store/archive.hpp"

#include <algorithm>
#include <cstdlib>

#include "fuzz.hpp"

int noisefloor::fuzz::archive(const std::uint8_t* data, std::size_t size) {
  namespace store = noisefloor::store;
  // Small limits: a bomb is judged within the fuzzer's memory, and each limit is reached.
  const store::ArchiveLimits limits{1u << 20, 4u << 20, 16, 200};
  std::vector<store::ArchiveFile> files;
  try {
    files = store::unpack(as_text(data, size), limits);
  } catch (const noisefloor::Error&) {
    return 0;
  }
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  auto again = store::unpack(store::pack(files), {1u << 30, 1u << 30, 16, 1u << 30});
  if (again.size() != files.size()) std::abort();
  for (std::size_t i = 0; i < files.size(); ++i)
    if (again[i].name != files[i].name || again[i].content != files[i].content) std::abort();
  return 0;
}
