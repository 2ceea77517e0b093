#include "image/recipe.hpp"

#include <errno.h>
#include <fmt/format.h>
#include <glob.h>
#include <string.h>

#include <algorithm>
#include <optional>
#include <system_error>

#include "files/files.hpp"
#include "hash/sha256.hpp"
#include "image/elf.hpp"
#include "model/errors.hpp"
#include "text/text.hpp"

namespace noisefloor::image {
namespace {

namespace fs = std::filesystem;

constexpr std::uint32_t kExecutableMode = 0755;
constexpr std::uint32_t kInputMode = 0444;
constexpr std::uintmax_t kMaxInputBytes = std::uintmax_t{1} << 30;
constexpr int kMaxIncludeDepth = 8;

std::string read_file(const fs::path& path, const char* what) {
  errno = 0;
  if (auto data = files::try_read(path)) return *std::move(data);
  throw RunError(fmt::format("image: cannot read {} '{}': {}", what, path.string(),
                             errno != 0 ? strerror(errno) : "read error"));
}

ElfInfo parse_elf_file(const std::string& bytes, const fs::path& path) {
  try {
    return parse_elf(bytes);
  } catch (const ParseError& e) {
    throw RunError(fmt::format("image: '{}': {}", path.string(), e.what()));
  }
}

bool regular_file_exists(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);  // follows symlinks
}

// Debian/Ubuntu multiarch directory names for the loader's default search.
std::optional<std::string> multiarch_triplet(const std::string& machine, int bits) {
  if (machine == "x86_64") return bits == 32 ? "x86_64-linux-gnux32" : "x86_64-linux-gnu";
  if (machine == "i386") return "i386-linux-gnu";
  if (machine == "aarch64") return "aarch64-linux-gnu";
  if (machine == "arm") return "arm-linux-gnueabihf";
  if (machine == "ppc64") return "powerpc64le-linux-gnu";
  if (machine == "s390") return "s390x-linux-gnu";
  if (machine == "riscv") return "riscv64-linux-gnu";
  return std::nullopt;
}

// ---- /etc/ld.so.conf --------------------------------------------------------------------------

void read_ld_so_conf(const fs::path& file, int depth, std::vector<std::string>& dirs) {
  if (depth > kMaxIncludeDepth) return;
  const auto contents = files::try_read(file);
  if (!contents) return;  // no ld.so.conf: the default directories still apply
  const std::string& conf = *contents;

  for (const std::string_view raw : text::lines(conf)) {
    std::string line(raw);
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    // ldconfig splits entries at whitespace, ':' and ','.
    std::vector<std::string> words;
    std::string word;
    for (const char c : line + " ") {
      if (c == ' ' || c == '\t' || c == ':' || c == ',' || c == '\r') {
        if (!word.empty()) words.push_back(word);
        word.clear();
      } else {
        word += c;
      }
    }
    if (words.empty()) continue;
    if (words[0] == "hwcap") continue;
    if (words[0] == "include") {
      for (std::size_t i = 1; i < words.size(); ++i) {
        fs::path pattern = words[i];
        if (pattern.is_relative()) pattern = file.parent_path() / pattern;
        glob_t matches{};
        if (glob(pattern.c_str(), 0, nullptr, &matches) == 0) {  // sorted by glob(3)
          for (std::size_t m = 0; m < matches.gl_pathc; ++m) {
            read_ld_so_conf(matches.gl_pathv[m], depth + 1, dirs);
          }
        }
        globfree(&matches);
      }
      continue;
    }
    for (const std::string& dir : words) {
      if (!dir.empty() && dir[0] == '/') dirs.push_back(dir);
    }
  }
}

// ---- closure ----------------------------------------------------------------------------------

enum class DirOrigin { rpath, runpath, system };

struct SearchDir {
  fs::path host;      // where to look on this machine
  std::string image;  // where the loader in the container will look
  DirOrigin origin;
};

struct Object {
  fs::path host;      // path it was found by on the host
  std::string image;  // path inside the image
  ElfInfo info;
  std::string data;
  std::optional<std::size_t> loader;  // index of the object that needed it first
  DirOrigin found_in = DirOrigin::system;
};

std::string normal(const std::string& path) { return fs::path(path).lexically_normal().string(); }

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

// A DT_RPATH/DT_RUNPATH entry of `object`, or nullopt when it cannot be followed the same way
// on the host and in the container.
std::optional<SearchDir> expand_entry(const std::string& entry, const Object& object, DirOrigin origin) {
  const std::string host_origin = object.host.parent_path().string();
  const std::string image_origin = fs::path(object.image).parent_path().string();
  std::string host = entry, image = entry;
  for (const char* token : {"${ORIGIN}", "$ORIGIN"}) {
    host = replace_all(host, token, host_origin);
    image = replace_all(image, token, image_origin);
  }
  // $LIB/$PLATFORM depend on the loader build and the CPU; relative entries on the cwd.
  if (host.find('$') != std::string::npos || host.empty() || host[0] != '/') return std::nullopt;
  return SearchDir{normal(host), normal(image), origin};
}

class ClosureResolver {
 public:
  ClosureResolver(std::vector<std::string> conf_dirs, const ElfInfo& main)
      : conf_dirs_(std::move(conf_dirs)), bits_(main.bits), machine_(main.machine) {
    if (const auto triplet = multiarch_triplet(main.machine, main.bits)) {
      default_dirs_ = {"/lib/" + *triplet, "/usr/lib/" + *triplet};
    }
    for (const char* dir : {"/lib", "/usr/lib", "/lib64", "/usr/lib64"}) {
      default_dirs_.push_back(dir);
    }
  }

  std::vector<Object>& objects() { return objects_; }

  void add_main(Object main) { objects_.push_back(std::move(main)); }

  void resolve() {
    // Breadth-first, as the loader does: the executable's needs, then theirs.
    if (objects_[0].info.interpreter) add_interpreter(*objects_[0].info.interpreter);
    for (std::size_t i = 0; i < objects_.size(); ++i) {
      const std::vector<std::string> needed = objects_[i].info.needed;
      for (const std::string& name : needed) resolve_needed(name, i);
    }
  }

 private:
  void add_interpreter(const std::string& path) {
    if (path.empty() || path[0] != '/') {
      throw RunError(
          fmt::format("image: '{}': the loader path '{}' is not absolute", objects_[0].host.string(), path));
    }
    Object o;
    o.host = path;
    o.image = normal(path);
    o.data = read_file(o.host, "the loader");
    o.info = parse_elf_file(o.data, o.host);
    o.loader = 0;
    objects_.push_back(std::move(o));
  }

  bool compatible(const ElfInfo& info) const {
    return info.is_elf && info.bits == bits_ && info.machine == machine_;
  }

  std::optional<std::size_t> already_loaded(const std::string& name) const {
    for (std::size_t i = 0; i < objects_.size(); ++i) {
      if (objects_[i].info.soname == name || objects_[i].image == name) return i;
    }
    return std::nullopt;
  }

  std::vector<SearchDir> search_dirs(std::size_t requester) const {
    std::vector<SearchDir> dirs;
    const Object& r = objects_[requester];
    if (r.info.runpath.empty()) {
      // DT_RPATH of the requester, then of each object up the chain that loaded it.
      for (std::optional<std::size_t> at = requester; at; at = objects_[*at].loader) {
        const Object& o = objects_[*at];
        if (!o.info.runpath.empty()) continue;
        for (const std::string& entry : o.info.rpath) {
          if (auto dir = expand_entry(entry, o, DirOrigin::rpath)) dirs.push_back(*dir);
        }
      }
    }
    for (const std::string& entry : r.info.runpath) {
      if (auto dir = expand_entry(entry, r, DirOrigin::runpath)) dirs.push_back(*dir);
    }
    for (const std::string& dir : conf_dirs_) {
      dirs.push_back({normal(dir), normal(dir), DirOrigin::system});
    }
    for (const std::string& dir : default_dirs_) {
      dirs.push_back({dir, dir, DirOrigin::system});
    }
    return dirs;
  }

  void resolve_needed(const std::string& name, std::size_t requester) {
    if (already_loaded(name)) return;
    if (name.find('/') != std::string::npos) {
      if (name[0] != '/') {
        throw RunError(fmt::format("image: '{}' needs '{}', a relative path: not supported",
                                   objects_[requester].host.string(), name));
      }
      add_library(name, name, requester, DirOrigin::system, read_file(name, "the library"));
      return;
    }
    std::vector<std::string> searched;
    for (const SearchDir& dir : search_dirs(requester)) {
      const fs::path candidate = dir.host / name;
      if (std::find(searched.begin(), searched.end(), dir.host.string()) == searched.end()) {
        searched.push_back(dir.host.string());
      }
      if (!regular_file_exists(candidate)) continue;
      std::string data = read_file(candidate, "the library");
      const ElfInfo info = parse_elf_file(data, candidate);
      if (!compatible(info)) continue;  // e.g. an i386 libc in /lib32 for an x86_64 program
      const std::string image = normal(dir.image + "/" + name);
      add_library(candidate, image, requester, dir.origin, std::move(data));
      add_hwcaps_variants(dir, name, requester);
      return;
    }
    throw RunError(fmt::format("image: cannot find shared library '{}' needed by '{}' (searched: {})", name,
                               objects_[requester].host.string(), fmt::join(searched, ", ")));
  }

  void add_library(const fs::path& host, const std::string& image, std::size_t requester, DirOrigin origin,
                   std::string data) {
    for (const Object& o : objects_) {
      if (o.image == image) return;
    }
    Object o;
    o.host = host;
    o.image = image;
    o.info = parse_elf_file(data, host);
    o.data = std::move(data);
    o.loader = requester;
    o.found_in = origin;
    objects_.push_back(std::move(o));
  }

  // glibc ≥ 2.33 prefers <dir>/glibc-hwcaps/<level>/<name> when the CPU supports the level:
  // copy the variants that exist so the container's loader can make the host loader's choice.
  void add_hwcaps_variants(const SearchDir& dir, const std::string& name, std::size_t requester) {
    std::error_code ec;
    const fs::path hwcaps = dir.host / "glibc-hwcaps";
    if (!fs::is_directory(hwcaps, ec)) return;
    std::vector<std::string> levels;
    for (const auto& entry : fs::directory_iterator(hwcaps, ec)) {
      levels.push_back(entry.path().filename().string());
    }
    std::sort(levels.begin(), levels.end());
    for (const std::string& level : levels) {
      const fs::path candidate = hwcaps / level / name;
      if (!regular_file_exists(candidate)) continue;
      std::string data = read_file(candidate, "the library");
      if (!compatible(parse_elf_file(data, candidate))) continue;
      add_library(candidate, normal(dir.image + "/glibc-hwcaps/" + level + "/" + name), requester, dir.origin,
                  std::move(data));
    }
  }

  std::vector<Object> objects_;
  std::vector<std::string> conf_dirs_;
  std::vector<std::string> default_dirs_;
  int bits_;
  std::string machine_;
};

// ---- recipe -----------------------------------------------------------------------------------

// Content hash: everything that ends up in the image, in a fixed order with lengths so no two
// different images can produce the same byte stream. Labels the config with it and names the tag.
void seal(ImagePlan& plan, std::string_view repository, const docker::ImageRecipe& recipe) {
  hash::Sha256 sha;
  const auto put = [&sha](std::string_view kind, std::string_view bytes) {
    sha.update(fmt::format("{} {}\n", kind, bytes.size()));
    sha.update(bytes);
    sha.update("\n");
  };
  put(repository == "noisefloor-auto" ? "noisefloor-auto-image" : repository, "1");
  put("recipe", recipe.canonical);
  put("config", docker::config_text(plan.config));
  for (const ImageFile& f : plan.files) {
    put("path", f.path);
    put("mode", fmt::format("{:o}", f.mode));
    put("data", f.data);
  }
  const std::string content_hash = sha.hex();
  plan.config.labels["noisefloor.content-hash"] = content_hash;
  plan.tag = fmt::format("{}:{}", repository, content_hash.substr(0, 16));
}

// The recipe's config for a benchmark image. With inputs, the benchmark starts where they are (a
// relative path reads the same file as on the host); without, in the writable /tmp.
docker::ImageConfig benchmark_config(docker::ImageConfig config, const std::string& benchmark, bool inputs,
                                     const std::vector<std::string>& library_path) {
  if (inputs) config.working_dir = std::string(kInputDirInImage);
  if (!library_path.empty()) {
    if (!config.env) config.env.emplace();
    config.env->push_back(fmt::format("LD_LIBRARY_PATH={}", fmt::join(library_path, ":")));
  }
  config.labels["noisefloor.benchmark"] = benchmark;
  return config;
}

// The static probe and no-op, checked.
std::pair<std::string, std::string> checked_helpers(std::string_view probe_binary,
                                                    std::string_view noop_binary) {
  std::string probe_data(probe_binary);
  const ElfInfo probe_info = parse_elf_file(probe_data, "nf-probe");
  if (!probe_info.is_elf || probe_info.dynamic)
    throw RunError(
        "image: the embedded nf-probe is not a static ELF executable (build nf-probe with -static)");
  std::string noop_data(noop_binary);
  const ElfInfo noop_info = parse_elf_file(noop_data, "nf-noop");
  if (!noop_info.is_elf || noop_info.dynamic)
    throw RunError("image: the embedded nf-noop is not a static ELF executable (build nf-noop with -static)");
  return {std::move(probe_data), std::move(noop_data)};
}

}  // namespace

ImagePlan plan_tools_image(std::string_view probe_binary, std::string_view noop_binary,
                           std::string_view recipe_json) {
  const docker::ImageRecipe recipe = docker::read_image_recipe(recipe_json, kProbePathInImage);
  auto [probe_data, noop_data] = checked_helpers(probe_binary, noop_binary);
  ImagePlan plan;
  plan.files.push_back({kNoopPathInImage, std::move(noop_data), kExecutableMode});
  plan.files.push_back({kProbePathInImage, std::move(probe_data), kExecutableMode});
  plan.config = recipe.config;
  plan.config.entrypoint = {kProbePathInImage};
  plan.config.labels["noisefloor.image"] = "tools";
  seal(plan, "noisefloor-tools", recipe);
  return plan;
}

ImagePlan plan_image(const fs::path& executable, std::string_view probe_binary, std::string_view noop_binary,
                     std::string_view recipe_json, const std::vector<ImageInput>& inputs) {
  const docker::ImageRecipe recipe = docker::read_image_recipe(recipe_json, kProbePathInImage);
  auto [probe_data, noop_data] = checked_helpers(probe_binary, noop_binary);

  std::error_code ec;
  const fs::path canonical = fs::canonical(executable, ec);
  if (ec) {
    throw RunError(fmt::format("image: cannot read the benchmark executable '{}': {}", executable.string(),
                               ec.message()));
  }
  ImagePlan plan;
  plan.benchmark_path_in_image = std::string(kBenchmarkDirInImage) + "/" + canonical.filename().string();
  Object main;
  main.host = canonical;  // the loader's $ORIGIN for the executable is its real directory
  main.image = plan.benchmark_path_in_image;
  main.data = read_file(canonical, "the benchmark executable");
  main.info = parse_elf_file(main.data, canonical);
  if (!main.info.is_elf) {
    throw RunError(
        fmt::format("image: '{}' is not an ELF executable: `image: auto` needs a "
                    "compiled benchmark (scripts need an image with their interpreter)",
                    executable.string()));
  }
  plan.dynamic = main.info.dynamic;

  std::vector<std::string> conf_dirs;
  if (plan.dynamic) read_ld_so_conf("/etc/ld.so.conf", 0, conf_dirs);
  ClosureResolver resolver(conf_dirs, main.info);
  resolver.add_main(std::move(main));
  if (plan.dynamic) resolver.resolve();

  std::vector<std::string> library_path;  // image dirs the loader must be told about
  for (Object& o : resolver.objects()) {
    if (o.loader) {
      plan.libraries.push_back(o.host.string());
      const bool is_loader = o.image == normal(*resolver.objects()[0].info.interpreter);
      if (!is_loader && o.found_in == DirOrigin::system) {
        const std::string dir = fs::path(o.image).parent_path().string();
        if (std::find(library_path.begin(), library_path.end(), dir) == library_path.end()) {
          library_path.push_back(dir);
        }
      }
    }
    plan.files.push_back({o.image, std::move(o.data), kExecutableMode});
  }
  plan.files.push_back({kProbePathInImage, std::move(probe_data), kExecutableMode});
  plan.files.push_back({kNoopPathInImage, std::move(noop_data), kExecutableMode});
  // The benchmark's inputs, read-only under the working directory (a directory with every file
  // below it; symbolic links followed).
  std::uintmax_t input_bytes = 0;
  for (const ImageInput& in : inputs) {
    const auto add = [&](const fs::path& host, const std::string& rel) {
      plan.files.push_back(
          {std::string(kInputDirInImage) + "/" + rel, read_file(host, "the input"), kInputMode});
      input_bytes += plan.files.back().data.size();
      if (input_bytes > kMaxInputBytes)
        throw RunError(
            fmt::format("image: benchmark.inputs hold more than {} MiB: an image is not the place for them",
                        kMaxInputBytes >> 20));
    };
    if (fs::is_directory(in.host, ec)) {
      for (auto it =
               fs::recursive_directory_iterator(in.host, fs::directory_options::follow_directory_symlink, ec);
           it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec) break;
        if (it->is_regular_file(ec))
          add(it->path(),
              (fs::path(in.relative) / fs::relative(it->path(), in.host, ec)).lexically_normal().string());
      }
      if (ec)
        throw RunError(
            fmt::format("image: cannot read the input directory '{}': {}", in.host.string(), ec.message()));
    } else {
      add(in.host, fs::path(in.relative).lexically_normal().string());
    }
  }
  std::sort(plan.files.begin(), plan.files.end(),
            [](const ImageFile& a, const ImageFile& b) { return a.path < b.path; });
  for (std::size_t i = 1; i < plan.files.size(); ++i) {
    if (plan.files[i].path == plan.files[i - 1].path) {
      throw RunError(
          fmt::format("image: two files want the path '{}' in the image (rename the "
                      "benchmark executable)",
                      plan.files[i].path));
    }
  }

  plan.config = benchmark_config(recipe.config, plan.benchmark_path_in_image, !inputs.empty(), library_path);

  seal(plan, "noisefloor-auto", recipe);
  return plan;
}

}  // namespace noisefloor::image
