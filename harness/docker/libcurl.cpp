#include "docker/libcurl.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "docker/api.hpp"
#include "model/shared_library.hpp"

namespace noisefloor::docker {
namespace {

LibCurl load() {
  try {
    // libcurl 7.16 and later: Debian's libcurl4, or libcurl3-gnutls's build of it
    const model::SharedLibrary lib({"libcurl.so.4", "libcurl-gnutls.so.4"}, "apt-get install libcurl4");
    LibCurl c{};
    c.global_init = lib.function<decltype(c.global_init)>("curl_global_init");
    c.easy_init = lib.function<decltype(c.easy_init)>("curl_easy_init");
    c.easy_reset = lib.function<decltype(c.easy_reset)>("curl_easy_reset");
    c.easy_cleanup = lib.function<decltype(c.easy_cleanup)>("curl_easy_cleanup");
    c.easy_setopt = lib.function<decltype(c.easy_setopt)>("curl_easy_setopt");
    c.easy_getinfo = lib.function<decltype(c.easy_getinfo)>("curl_easy_getinfo");
    c.easy_perform = lib.function<decltype(c.easy_perform)>("curl_easy_perform");
    c.easy_strerror = lib.function<decltype(c.easy_strerror)>("curl_easy_strerror");
    c.easy_escape = lib.function<decltype(c.easy_escape)>("curl_easy_escape");
    c.easy_send = lib.function<decltype(c.easy_send)>("curl_easy_send");
    c.easy_recv = lib.function<decltype(c.easy_recv)>("curl_easy_recv");
    c.free = lib.function<decltype(c.free)>("curl_free");
    c.slist_append = lib.function<decltype(c.slist_append)>("curl_slist_append");
    c.slist_free_all = lib.function<decltype(c.slist_free_all)>("curl_slist_free_all");
    return c;
  } catch (const std::runtime_error& e) {
    throw DockerError(fmt::format("docker: libcurl, which noisefloor talks to engines with: {}", e.what()));
  }
}

}  // namespace

const LibCurl& libcurl() {
  static const LibCurl loaded = load();  // a failed load throws, and the next call tries again
  return loaded;
}

}  // namespace noisefloor::docker
