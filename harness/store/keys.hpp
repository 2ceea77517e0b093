// Upload keys of the store: their text, scopes and hashes. Pure (the kernel's random bytes).
//
// A key reads `nf_<id>_<secret>`: the id (8 hex digits) names it in `keys list` and `keys revoke`
// and finds its row; the secret (32 random bytes, hex) is shown once, when the key is made. The
// store keeps the SHA-256 of the whole text, never the text.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace noisefloor::store {

// What a key may do: `admin` everything, `publish` publish any experiment's runs,
// `publish:experiment=NAME` only NAME's (a talk's audience).
struct Scope {
  enum class Kind { admin, publish, publish_experiment };
  Kind kind = Kind::publish;
  std::string experiment;  // publish_experiment only
  friend bool operator==(const Scope&, const Scope&) = default;
};
constexpr std::array<std::pair<Scope::Kind, std::string_view>, 3> names(Scope::Kind) {
  return {{{Scope::Kind::admin, "admin"},
           {Scope::Kind::publish, "publish"},
           {Scope::Kind::publish_experiment, "publish:experiment="}}};
}
std::optional<Scope> parse_scope(std::string_view text);
std::string to_string(const Scope& scope);
bool may_publish(const Scope& scope, const std::string& experiment);

// A key as the store keeps it (never its text).
struct KeyRecord {
  std::string id, hash;
  Scope scope;
  std::string created_utc, expires_utc, revoked_utc;  // "" for never / not revoked
};

struct NewKey {
  std::string id;    // 8 hex digits
  std::string text;  // nf_<id>_<secret>: shown once
  std::string hash;  // key_hash(text): stored
};
// A fresh key from the kernel's random bytes (getrandom); throws RunError when there are none.
NewKey new_key();

// The id of a key's text; nullopt when the text is not a key's shape.
std::optional<std::string> key_id(std::string_view text);
std::string key_hash(std::string_view text);  // SHA-256, hex
// The two hashes are equal, compared in constant time.
bool same_hash(std::string_view a, std::string_view b);

}  // namespace noisefloor::store
