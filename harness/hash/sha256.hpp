// SHA-256 (FIPS 180-4) from libcrypto's EVP interface: pure, no I/O. Used for content-addressed
// image tags.
#pragma once

#include <memory>
#include <string>
#include <string_view>

struct evp_md_ctx_st;  // OpenSSL's EVP_MD_CTX: <openssl/evp.h> stays out of every includer

namespace noisefloor::hash {

// Incremental SHA-256. Feed bytes with update() in any number of pieces; hex() pads, finishes and
// returns the 64-character lower-case digest. After hex() the object is finished: a further
// update() or hex() throws std::logic_error (a programming error, not a user error).
class Sha256 {
 public:
  Sha256();
  void update(std::string_view bytes);
  std::string hex();

 private:
  struct FreeContext {
    void operator()(evp_md_ctx_st* context) const;
  };
  std::unique_ptr<evp_md_ctx_st, FreeContext> context_;
  bool finished_ = false;
};

// The lower-case hex SHA-256 of `bytes` ("" → "e3b0c442…b855").
std::string sha256_hex(std::string_view bytes);

}  // namespace noisefloor::hash
