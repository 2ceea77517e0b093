// The content of noisefloor's `image: auto` container image: the benchmark executable, its
// shared-library closure and loader when it is dynamically linked, and the static nf-probe as the
// entrypoint. I/O edge: reads the executable, the libraries, /etc/ld.so.conf and the recipe.
// Turning an ImagePlan into a `docker save` tar and loading it is the docker module's job.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "docker/image_config.hpp"

namespace noisefloor::image {

// Where the probe and the benchmark live inside the image.
inline constexpr const char* kProbePathInImage = "/noisefloor/probe";
inline constexpr const char* kNoopPathInImage = "/noisefloor/noop";  // the probe's no-op, next to it
inline constexpr const char* kBenchmarkDirInImage = "/bench";

struct ImageFile {
  std::string path;    // absolute inside the image, e.g. "/bench/makebuffer.test"
  std::string data;    // the file's bytes (symlinks on the host already followed)
  std::uint32_t mode;  // permission bits only, e.g. 0755; parent directories are not listed
};

struct ImagePlan {
  std::string tag;               // "noisefloor-auto:<first 16 hex of the content hash>"
  std::vector<ImageFile> files;  // sorted by path, no duplicates
  // The image's runtime config: the recipe's, and Labels noisefloor.content-hash = the full hex
  // hash and noisefloor.benchmark = the benchmark's path in the image.
  docker::ImageConfig config;
  std::string benchmark_path_in_image;  // "/bench/<basename of executable>"
  std::vector<std::string> libraries;   // host paths copied, in discovery order (loader first)
  bool dynamic = false;
};

// A file or directory the benchmark reads (benchmark.inputs): where it is on the host, and its path
// relative to the benchmark's working directory.
struct ImageInput {
  std::filesystem::path host;
  std::string relative;
};
// Inside the auto image the inputs are under /work, which is then the working directory, read-only
// (0444), up to 1 GiB in all.
inline constexpr std::string_view kInputDirInImage = "/work";

// Plans the auto image for `executable` (and its inputs, when there are any).
//
// Reads `executable`; when it is dynamically linked, follows PT_INTERP and DT_NEEDED recursively
// like glibc's loader: a name already loaded (by SONAME) is reused; otherwise it searches the
// requesting object's DT_RPATH and then its loaders' up to the executable (only if the requester
// has no DT_RUNPATH), then the requester's DT_RUNPATH, then the /etc/ld.so.conf directories
// (with `include` globs), then /lib/<triplet>, /usr/lib/<triplet>, /lib, /usr/lib, /lib64,
// /usr/lib64; LD_LIBRARY_PATH is NOT used (the host's environment must not change the image).
// $ORIGIN is expanded (to /bench for the executable inside the image); entries with other
// tokens ($LIB, $PLATFORM) or relative paths are skipped; candidates of another ELF class or
// machine are skipped, as the loader does. Each library is copied at the path it was found by
// (content of the symlink target), as are glibc-hwcaps variants next to it. Libraries found
// through ld.so.conf or the default directories get their directories in the image's
// LD_LIBRARY_PATH, because the image has no /etc/ld.so.cache.
//
// Adds `probe_binary` and `noop_binary` (static ELFs, image/embedded.hpp) at /noisefloor/probe and
// /noisefloor/noop, and the executable at /bench/<basename>, all with mode 0755. The tag hashes (SHA-256) the
// recipe, the config and every file's path, mode and content in path order, so an unchanged binary gives the
// same tag.
//
// `recipe_json` is the text of containers/auto/image.json: {"schema_version": 1, "config": {...}}.
// Data files the benchmark needs are out of scope: only the executable and its libraries go in.
// Throws RunError: unreadable files, a non-ELF executable, a dynamic probe or no-op, a malformed recipe,
// or a library that cannot be found ("cannot find shared library 'libfoo.so.1' needed by ...").
ImagePlan plan_image(const std::filesystem::path& executable, std::string_view probe_binary,
                     std::string_view noop_binary, std::string_view recipe_json,
                     const std::vector<ImageInput>& inputs = {});

// The tools image, "noisefloor-tools:<first 16 hex of its content hash>": the static probe and
// no-op alone, entrypoint /noisefloor/probe. What noisefloor runs on an engine besides the
// benchmark: spinners (`probe --spin`), the engine lease (`probe --hold`) and the remote host
// fingerprint (`probe --facts`). Same recipe, user and hashing as the auto image.
ImagePlan plan_tools_image(std::string_view probe_binary, std::string_view noop_binary,
                           std::string_view recipe_json);

}  // namespace noisefloor::image
