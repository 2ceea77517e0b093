#include "hash/sha256.hpp"

#include <openssl/evp.h>

#include <stdexcept>

namespace noisefloor::hash {
namespace {

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

void Sha256::FreeContext::operator()(evp_md_ctx_st* context) const { EVP_MD_CTX_free(context); }

Sha256::Sha256() : context_(EVP_MD_CTX_new()) {
  if (!context_) throw std::runtime_error("sha256: EVP_MD_CTX_new failed in libcrypto");
  check(EVP_DigestInit_ex(context_.get(), EVP_sha256(), nullptr), "EVP_DigestInit_ex");
}

void Sha256::update(std::string_view bytes) {
  if (finished_) throw std::logic_error("sha256: update() after hex()");
  check(EVP_DigestUpdate(context_.get(), bytes.data(), bytes.size()), "EVP_DigestUpdate");
}

std::string Sha256::hex() {
  if (finished_) throw std::logic_error("sha256: hex() called twice");
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  check(EVP_DigestFinal_ex(context_.get(), digest, &size), "EVP_DigestFinal_ex");
  finished_ = true;
  return to_hex(digest, size);
}

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  check(EVP_Digest(bytes.data(), bytes.size(), digest, &size, EVP_sha256(), nullptr), "EVP_Digest");
  return to_hex(digest, size);
}

}  // namespace noisefloor::hash
