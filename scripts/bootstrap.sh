#!/usr/bin/env bash
# Installs the Debian packages noisefloor needs, when missing:
#
#   bootstrap.sh            what `make` and `make bench-docker` need: the compiler, CMake, the
#                           libraries, Go (the demo benchmark) and the Docker engine
#   bootstrap.sh test       and what `make test` needs beside them: an sshd and openssl (the
#                           fleet's engines), Google Benchmark, Podman, clang-format, Chromium
#                           (in CI, or with NOISEFLOOR_WITH_BROWSER=1)
#   bootstrap.sh fuzz       and clang with libFuzzer and the sanitizers' runtimes (`make fuzz`)
#
# Words combine (`bootstrap.sh test fuzz`). Idempotent and quiet when everything is present. As
# root it runs apt-get; otherwise it prints the exact command to run and stops.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git ca-certificates curl python3 procps
  libyaml-cpp-dev libcurl4-openssl-dev nlohmann-json3-dev
  libboost-dev libboost-filesystem-dev libboost-math-dev
  libfmt-dev libcli11-dev doctest-dev libssl-dev
  golang-go docker.io
  valgrind                   # metric: simulated-instructions and its kin (cachegrind)
  libsoci-dev libcpp-httplib-dev zlib1g-dev   # the store: SOCI (SQLite, PostgreSQL), HTTP, archives
)
for want in "$@"; do
  case "$want" in
    test)
      packages+=(
        openssh-server openssl   # tests/integration/fleet_lib.sh: an sshd to forward engines, TLS certificates
        libbenchmark-dev         # a real Google Benchmark program in the end-to-end tests
        podman uidmap            # the other engine with a Docker API, rootful and rootless (e2e_podman)
        clang-format             # the `format` test: the tree is as .clang-format leaves it (make format)
        universal-ctags man-db   # the `code_metrics` test's function lengths; `man noisefloor` (e2e_readme)
        postgresql-15            # the store on a real PostgreSQL (e2e_store starts its own cluster)
      )
      # Headless Chromium for the report's browser test: always in CI, on request elsewhere
      # (NOISEFLOOR_WITH_BROWSER=1); without it that one test is skipped outside CI.
      if [[ "${CI:-}" == true || "${NOISEFLOOR_WITH_BROWSER:-0}" == 1 ]]; then packages+=(chromium); fi
      ;;
    fuzz) packages+=(clang libclang-rt-dev) ;;
    *) echo "bootstrap.sh: unknown word '$want' (expected: test, fuzz)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
if ((${#missing[@]} == 0)); then exit 0; fi

cmd=(apt-get install -y --no-install-recommends "${missing[@]}")
if [[ $(id -u) -ne 0 ]]; then
  echo "noisefloor needs these Debian packages: ${missing[*]}" >&2
  echo "run as root:  apt-get update && ${cmd[*]}" >&2
  exit 1
fi
echo "bootstrap: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# Refresh the package lists once if they are missing or older than a day.
if [[ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -1)" ]]; then
  apt-get update -qq
fi
if ! "${cmd[@]}" -qq >/tmp/noisefloor-bootstrap.log 2>&1; then
  apt-get update -qq
  "${cmd[@]}" -qq >/tmp/noisefloor-bootstrap.log 2>&1 || { tail -20 /tmp/noisefloor-bootstrap.log >&2; exit 1; }
fi
echo "bootstrap: done" >&2
