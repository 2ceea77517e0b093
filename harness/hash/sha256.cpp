#include "hash/sha256.hpp"

#include <openssl/evp.h>

#include <stdexcept>

#include "model/shared_library.hpp"

namespace noisefloor::hash {
namespace {

// libcrypto, loaded the first time a digest is asked for (model/shared_library.hpp): most
// commands never hash. Its functions under their own names.
struct LibCrypto {
  model::SharedLibrary lib{{"libcrypto.so.3"}, "apt-get install libssl3"};
  decltype(&::EVP_MD_CTX_new) MD_CTX_new = lib.function<decltype(MD_CTX_new)>("EVP_MD_CTX_new");
  decltype(&::EVP_MD_CTX_free) MD_CTX_free = lib.function<decltype(MD_CTX_free)>("EVP_MD_CTX_free");
  decltype(&::EVP_sha256) sha256 = lib.function<decltype(sha256)>("EVP_sha256");
  decltype(&::EVP_DigestInit_ex) DigestInit_ex = lib.function<decltype(DigestInit_ex)>("EVP_DigestInit_ex");
  decltype(&::EVP_DigestUpdate) DigestUpdate = lib.function<decltype(DigestUpdate)>("EVP_DigestUpdate");
  decltype(&::EVP_DigestFinal_ex) DigestFinal_ex =
      lib.function<decltype(DigestFinal_ex)>("EVP_DigestFinal_ex");
  decltype(&::EVP_Digest) Digest = lib.function<decltype(Digest)>("EVP_Digest");
};

const LibCrypto& evp() {
  static const LibCrypto loaded;  // a failed load throws, and the next call tries again
  return loaded;
}

// libcrypto fails only when out of memory or on a broken provider: not a user error either.
void check(int ok, const char* what) {
  if (ok != 1) throw std::runtime_error(std::string("sha256: ") + what + " failed in libcrypto");
}

std::string to_hex(const unsigned char* digest, unsigned int size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * size);
  for (unsigned int i = 0; i < size; ++i) {
    out += kDigits[digest[i] >> 4];
    out += kDigits[digest[i] & 0xf];
  }
  return out;
}

}  // namespace

void Sha256::FreeContext::operator()(evp_md_ctx_st* context) const { evp().MD_CTX_free(context); }

Sha256::Sha256() : context_(evp().MD_CTX_new()) {
  if (!context_) throw std::runtime_error("sha256: EVP_MD_CTX_new failed in libcrypto");
  check(evp().DigestInit_ex(context_.get(), evp().sha256(), nullptr), "EVP_DigestInit_ex");
}

void Sha256::update(std::string_view bytes) {
  if (finished_) throw std::logic_error("sha256: update() after hex()");
  check(evp().DigestUpdate(context_.get(), bytes.data(), bytes.size()), "EVP_DigestUpdate");
}

std::string Sha256::hex() {
  if (finished_) throw std::logic_error("sha256: hex() called twice");
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  check(evp().DigestFinal_ex(context_.get(), digest, &size), "EVP_DigestFinal_ex");
  finished_ = true;
  return to_hex(digest, size);
}

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  check(evp().Digest(bytes.data(), bytes.size(), digest, &size, evp().sha256(), nullptr), "EVP_Digest");
  return to_hex(digest, size);
}

}  // namespace noisefloor::hash
