// The store's commands: serve, keys and publish (README: Crowd replays).
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>

#include "config/experiment_file.hpp"
#include "files/files.hpp"
#include "model/errors.hpp"
#include "model/names.hpp"
#include "pipeline/commands.hpp"
#include "results/load.hpp"
#include "store/client.hpp"
#include "store/database.hpp"
#include "store/keys.hpp"
#include "text/text.hpp"

namespace noisefloor::pipeline {
namespace {

constexpr std::uintmax_t kLargestKeyFile = 4096;

std::string key_for_publish(const PublishOptions& o) {
  if (!o.key_file.empty())
    return std::string(text::trim(files::read_regular(o.key_file, kLargestKeyFile, "a key file")));
  const char* key = std::getenv("NOISEFLOOR_KEY");
  if (key == nullptr || *key == '\0')
    throw ConfigError(
        "publish: no key: set NOISEFLOOR_KEY or give --key-file (the store's admin makes one: "
        "noisefloor keys create --scope publish)");
  return key;
}

std::string key_line(const store::KeyRecord& k) {
  const std::string state = !k.revoked_utc.empty()   ? "revoked " + k.revoked_utc
                            : !k.expires_utc.empty() ? "expires " + k.expires_utc
                                                     : "never expires";
  return fmt::format("{}  {:<32}  created {}  {}\n", k.id, store::to_string(k.scope), k.created_utc, state);
}

Output keys_create(const KeysOptions& o) {
  const auto scope = store::parse_scope(o.scope);
  if (!scope)
    throw ConfigError(
        fmt::format("keys create --scope {}: give admin, publish or publish:experiment=NAME", o.scope));
  if (o.expires_days && *o.expires_days <= 0)
    throw ConfigError("keys create --expires: give a number of days, 1 or more");
  store::Database db(o.db);
  const store::NewKey made = store::new_key();
  const auto now = std::chrono::system_clock::now();
  const std::string expires = o.expires_days ? text::utc(now + std::chrono::hours(24) * *o.expires_days) : "";
  db.add_key({made.id, made.hash, *scope, text::utc(now), expires, ""});
  Output out;
  out.out = made.text + "\n";
  out.err = fmt::format(
      "key {} ({}{}): shown once, the store keeps only its hash; publishers set NOISEFLOOR_KEY to it\n",
      made.id, store::to_string(*scope), expires.empty() ? "" : ", expires " + expires);
  return out;
}

Output keys_list(const KeysOptions& o) {
  store::Database db(o.db);
  Output out;
  for (const auto& k : db.keys()) out.out += key_line(k);
  if (out.out.empty()) out.err = "no keys: noisefloor keys create --scope publish\n";
  return out;
}

Output keys_revoke(const KeysOptions& o) {
  store::Database db(o.db);
  if (!db.revoke_key(o.id, text::utc(std::chrono::system_clock::now())))
    throw ConfigError(fmt::format("keys revoke {}: no such key (noisefloor keys list shows them)", o.id));
  Output out;
  out.err = fmt::format("key {} revoked: it publishes nothing from now on\n", o.id);
  return out;
}

}  // namespace

std::chrono::milliseconds serve_idle_timeout(const std::string& text) {
  const std::optional<model::Seconds> idle = config::parse_duration(text);
  if (!idle || idle->count() < 0.1 || idle->count() > 60)
    throw ConfigError(
        fmt::format("serve --idle-timeout {}: expected a duration from 100ms to 60s, the most a request may "
                    "take (10s, 2s)",
                    text));
  return std::chrono::duration_cast<std::chrono::milliseconds>(*idle);
}

Output keys(const KeysOptions& o) {
  const auto action = model::from_name<KeysAction>(o.action);
  if (!action) throw ConfigError(fmt::format("keys {}: give create, list or revoke ID", o.action));
  if (*action == KeysAction::create) return keys_create(o);
  if (*action == KeysAction::list) return keys_list(o);
  if (o.id.empty()) throw ConfigError("keys revoke: give the key's id (keys list shows them)");
  return keys_revoke(o);
}

Output publish(const PublishOptions& o) {
  if (o.results.empty()) throw ConfigError("publish: give a run directory (results/<experiment>/<run>)");
  if (!o.to.starts_with("http://") && !o.to.starts_with("https://"))
    throw ConfigError(
        fmt::format("publish --to {}: give the store's URL, http://HOST:PORT or https://...", o.to));
  const std::string key = key_for_publish(o);
  Output out;
  for (const auto& path : o.results) {
    const auto dir = results::resolve(path);
    const auto answer = store::publish(o.to, key, store::pack_run(dir));
    std::string to = o.to;
    while (to.ends_with("/")) to.pop_back();
    out.out += fmt::format("{} {} run {} as {}: {}{}\n", answer.created ? "published" : "already published",
                           answer.experiment, answer.run_id, answer.id.substr(0, 12), to, answer.page);
  }
  return out;
}

}  // namespace noisefloor::pipeline
