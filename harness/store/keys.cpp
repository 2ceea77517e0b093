#include "store/keys.hpp"

#include <fmt/format.h>
#include <sys/random.h>

#include <array>

#include "hash/sha256.hpp"
#include "model/errors.hpp"
#include "model/names.hpp"

namespace noisefloor::store {
namespace {

constexpr std::string_view kPublishExperiment = model::name_of(Scope::Kind::publish_experiment);

std::string random_hex(std::size_t bytes) {
  std::array<unsigned char, 64> buffer{};
  if (bytes > buffer.size() || ::getrandom(buffer.data(), bytes, 0) != static_cast<ssize_t>(bytes))
    throw RunError("keys: the system gave no random bytes for a key");
  std::string hex;
  for (std::size_t i = 0; i < bytes; ++i) hex += fmt::format("{:02x}", buffer[i]);
  return hex;
}

bool is_hex(std::string_view text) {
  return text.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

}  // namespace

std::optional<Scope> parse_scope(std::string_view text) {
  if (text.starts_with(kPublishExperiment))
    return text.size() > kPublishExperiment.size()
               ? std::optional<Scope>(
                     {Scope::Kind::publish_experiment, std::string(text.substr(kPublishExperiment.size()))})
               : std::nullopt;
  const auto kind = model::from_name<Scope::Kind>(text);
  if (!kind) return std::nullopt;
  return Scope{*kind, ""};
}

std::string to_string(const Scope& scope) {
  return std::string(model::name_of(scope.kind)) + scope.experiment;
}

bool may_publish(const Scope& scope, const std::string& experiment) {
  return scope.kind != Scope::Kind::publish_experiment || scope.experiment == experiment;
}

NewKey new_key() {
  NewKey key;
  key.id = random_hex(4);
  key.text = fmt::format("nf_{}_{}", key.id, random_hex(32));
  key.hash = key_hash(key.text);
  return key;
}

std::optional<std::string> key_id(std::string_view text) {
  if (text.size() != 3 + 8 + 1 + 64 || !text.starts_with("nf_") || text[11] != '_') return std::nullopt;
  const std::string_view id = text.substr(3, 8);
  if (!is_hex(id) || !is_hex(text.substr(12))) return std::nullopt;
  return std::string(id);
}

std::string key_hash(std::string_view text) { return hash::sha256_hex(text); }

bool same_hash(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char differ = 0;  // every byte compared, whatever the first difference
  for (std::size_t i = 0; i < a.size(); ++i) differ |= static_cast<unsigned char>(a[i] ^ b[i]);
  return differ == 0;
}

}  // namespace noisefloor::store
