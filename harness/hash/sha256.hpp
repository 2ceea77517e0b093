// SHA-256 (FIPS 180-4): pure, no I/O. Used for content-addressed image tags.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

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
  void compress(const unsigned char* block);

  std::array<std::uint32_t, 8> state_;
  std::array<unsigned char, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t total_bytes_ = 0;
  bool finished_ = false;
};

// The lower-case hex SHA-256 of `bytes` ("" → "e3b0c442…b855").
std::string sha256_hex(std::string_view bytes);

}  // namespace noisefloor::hash
