// Docker contexts, read from the docker CLI's context store the way the CLI reads them, and the
// one place an engine named by a user (a context name or an endpoint URL) becomes an Endpoint.
// Pure: the environment and file reads come in as functions.
//
// The store (docker/cli cli/context/store, checked against files docker 28.2 wrote, kept in
// tests/data/contexts/): the config dir is DOCKER_CONFIG, else $HOME/.docker; a context named N is
// <config>/contexts/meta/<sha256 hex of N>/meta.json,
//   {"Name":"N","Metadata":{...},"Endpoints":{"docker":{"Host":"tcp://h:2376","SkipTLSVerify":false}}}
// (keys matched without regard to case, like Go's encoding/json), and its TLS material is
// <config>/contexts/tls/<sha256 hex of N>/docker/{ca,cert,key}.pem, each file optional.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "docker/endpoint.hpp"

namespace noisefloor::docker {

// The file's bytes, or nullopt when there is no such file (or it cannot be read).
using ReadFile = std::function<std::optional<std::string>(const std::string& path)>;

struct NamedEndpoint {
  std::string name;  // short, readable, safe as a directory name: the context's name or endpoint_name()
  Endpoint endpoint;
  // Where it came from, for messages: "context 'fast-box' (/root/.docker/contexts/meta/<hash>/meta.json)",
  // "endpoint" (a URL given as is), "DOCKER_HOST" (the default context with DOCKER_HOST set),
  // "default context" (the default context without it: the local socket).
  std::string origin;
  friend bool operator==(const NamedEndpoint&, const NamedEndpoint&) = default;
};

// The CLI's config dir: DOCKER_CONFIG, else $HOME/.docker (no trailing '/'); nullopt when neither
// is set.
std::optional<std::string> docker_config_dir(const GetEnv& getenv);

// The context the docker CLI would use without --context: "default" when DOCKER_HOST is non-empty
// (it overrides every context, as in the CLI), else DOCKER_CONTEXT, else the "currentContext" of
// <config>/config.json, else "default". Throws DockerError naming config.json when it is not valid
// JSON or its currentContext is not a string (the CLI warns and ignores such a file; noisefloor
// will not guess which engine was meant).
std::string current_context(const GetEnv& getenv, const ReadFile& read);

// One engine as a user names it (a `hosts:` entry, a command-line option):
//  - an entry containing "://" is an endpoint URL, read by endpoint_from_url (DOCKER_TLS_VERIFY &
//    co apply to tcp:// as they do to `docker -H`); name: endpoint_name(), origin "endpoint";
//  - "default" is the CLI's default context, endpoint_from_environment (DOCKER_HOST & co);
//  - any other entry is a context of the store. Its tcp:// host gets TLS as the CLI decides: on
//    when the context has TLS material (any of ca.pem, cert.pem, key.pem) or SkipTLSVerify, the
//    certificate verified unless SkipTLSVerify, the files named by their paths in the store (the
//    client uses those that exist, a client certificate only with its key); a tcp:// host without
//    a port is port 443 with TLS and 80 without, as the CLI dials it (DOCKER_HOST's 2376/2375
//    defaults do not apply to contexts). unix:// and ssh:// hosts never use TLS; an empty Host is
//    the local socket. The environment's TLS variables do not apply to contexts.
// Throws DockerError with one line: an empty entry, a name the CLI could not have created, a
// missing context (naming the file looked for and how to create it), a meta.json that is not
// what the CLI writes (naming the file), a context without a docker endpoint, a bad host URL.
NamedEndpoint resolve_host(const std::string& entry, const GetEnv& getenv, const ReadFile& read);

// A short readable name for an engine, safe as a directory name ([A-Za-z0-9._-], never starting
// with '.'): the host of tcp:// and ssh:// endpoints ("fast-box", "10.0.0.5"), the socket's file
// name without its extension for unix:// ("docker"); any other byte becomes '_'.
std::string endpoint_name(const Endpoint& endpoint);

}  // namespace noisefloor::docker
