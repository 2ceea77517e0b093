// libcurl, loaded the first time an engine is asked (dlopen), not when noisefloor starts.
//
// Most commands never talk to an engine (cv, compare, report, history, check, errata, validate),
// and linking libcurl cost each of them the thirty libraries it pulls in: about 7 MB of resident
// memory and 20 ms of start-up, more than `cv` of a hundred benchmarks takes. The functions the
// client calls are here under their own names without the `curl_` prefix, with their own types.
#pragma once

#include <curl/curl.h>

namespace noisefloor::docker {

struct LibCurl {
  decltype(&::curl_global_init) global_init;
  decltype(&::curl_easy_init) easy_init;
  decltype(&::curl_easy_reset) easy_reset;
  decltype(&::curl_easy_cleanup) easy_cleanup;
  decltype(&::curl_easy_setopt) easy_setopt;
  decltype(&::curl_easy_getinfo) easy_getinfo;
  decltype(&::curl_easy_perform) easy_perform;
  decltype(&::curl_easy_strerror) easy_strerror;
  decltype(&::curl_easy_escape) easy_escape;
  decltype(&::curl_easy_send) easy_send;
  decltype(&::curl_easy_recv) easy_recv;
  decltype(&::curl_free) free;
  decltype(&::curl_slist_append) slist_append;
  decltype(&::curl_slist_free_all) slist_free_all;
};

// The library, loaded once (thread-safe); a DockerError naming the Debian package when it cannot
// be loaded or lacks a function.
const LibCurl& libcurl();

}  // namespace noisefloor::docker
