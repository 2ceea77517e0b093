#include "store/client.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <memory>
#include <string_view>

#include "docker/libcurl.hpp"
#include "files/files.hpp"
#include "model/errors.hpp"
#include "store/archive.hpp"
#include "store/upload.hpp"

namespace noisefloor::store {
namespace {

namespace fs = std::filesystem;

constexpr std::uintmax_t kLargestFile = 256u << 20;

// What a run directory holds beside the required files that is worth publishing.
constexpr std::array<std::string_view, 4> kPublishedBeside = {".html", ".md", ".txt", ".yaml"};
bool published_beside(const fs::path& file) {
  const std::string name = file.filename().string();
  const std::string ext = file.extension().string();
  return !name.starts_with(".") &&
         std::find(kPublishedBeside.begin(), kPublishedBeside.end(), ext) != kPublishedBeside.end();
}

size_t on_body(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

}  // namespace

std::string pack_run(const fs::path& dir) {
  std::vector<ArchiveFile> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || entry.is_symlink() ||
        !(required_file(name) || published_beside(entry.path())))
      continue;
    files.push_back({name, files::read_regular(entry.path(), kLargestFile, "a result file")});
  }
  if (ec) throw InputError(fmt::format("publish: {}: {}", dir.string(), ec.message()));
  for (const char* name : {"samples.jsonl", "run.json", "fingerprint.json", "summary.json"})
    if (std::none_of(files.begin(), files.end(), [&](const ArchiveFile& f) { return f.name == name; }))
      throw InputError(
          fmt::format("publish: {} has no {}: give a finished run's directory (results/<experiment>/<run>, "
                      "or results/<experiment> for its latest)",
                      dir.string(), name));
  return pack(std::move(files));
}

records::PublishAnswer publish(const std::string& url, const std::string& key, const std::string& archive) {
  const auto& curl_lib = docker::libcurl();
  std::unique_ptr<CURL, decltype(curl_lib.easy_cleanup)> curl(curl_lib.easy_init(), curl_lib.easy_cleanup);
  if (!curl) throw RunError("publish: libcurl could not start a transfer");
  std::string target = url;
  while (target.ends_with("/")) target.pop_back();
  target += "/api/v1/runs";
  curl_slist* headers = curl_lib.slist_append(nullptr, ("Authorization: Bearer " + key).c_str());
  headers = curl_lib.slist_append(headers, "Content-Type: application/gzip");
  const std::unique_ptr<curl_slist, decltype(curl_lib.slist_free_all)> header_list(headers,
                                                                                   curl_lib.slist_free_all);
  std::string body;
  char error[CURL_ERROR_SIZE] = {};
  curl_lib.easy_setopt(curl.get(), CURLOPT_URL, target.c_str());
  curl_lib.easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
  curl_lib.easy_setopt(curl.get(), CURLOPT_HTTPHEADER, headers);
  curl_lib.easy_setopt(curl.get(), CURLOPT_POSTFIELDS, archive.data());
  curl_lib.easy_setopt(curl.get(), CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(archive.size()));
  curl_lib.easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, on_body);
  curl_lib.easy_setopt(curl.get(), CURLOPT_WRITEDATA, &body);
  curl_lib.easy_setopt(curl.get(), CURLOPT_ERRORBUFFER, error);
  curl_lib.easy_setopt(curl.get(), CURLOPT_CONNECTTIMEOUT_MS, 10000L);
  curl_lib.easy_setopt(curl.get(), CURLOPT_TIMEOUT_MS, 120000L);
  const CURLcode rc = curl_lib.easy_perform(curl.get());
  if (rc != CURLE_OK)
    throw RunError(fmt::format("publish: {}: {}", target, *error ? error : curl_lib.easy_strerror(rc)));
  long status = 0;
  curl_lib.easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &status);
  std::string refused;
  records::PublishAnswer a;
  try {
    a = records::parse_publish_answer(body, &refused);
  } catch (const ParseError&) {
    throw RunError(fmt::format("publish: {} answered {} with no noisefloor answer: is it a noisefloor serve?",
                               target, status));
  }
  if (status != 200 && status != 201)
    throw RunError(fmt::format("publish: {} refused the run ({}): {}", target, status,
                               refused.empty() ? body : refused));
  return a;
}

}  // namespace noisefloor::store
