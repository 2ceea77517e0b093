# A small fleet of real Docker engines (and one sshd) on this machine, for end-to-end tests that
# need more than the main engine: a second engine on its own unix socket, an engine behind TLS on
# 127.0.0.1, an sshd to forward an engine's socket through, and docker CLI contexts naming them.
#
# Sourced by e2e tests (after lib.sh); works under `set -euo pipefail` and changes no shell option
# of the caller. Needs root, Debian's docker.io (dockerd), curl, openssl; fleet_start_sshd installs
# openssh-server when /usr/sbin/sshd is missing. Every engine runs Debian's dockerd with the same
# restricted-machine settings as scripts/dockerd.sh (--storage-driver=vfs --iptables=false
# --bridge=none) plus what a second engine needs to stay out of the main one's way.
#
# Layout (NAME: letters, digits, '_', '.', '-'; at most 32 characters):
#   /run/nf-fleet/NAME.sock             the engine's unix socket (every engine has one)
#   /run/nf-fleet/NAME.exec/            --exec-root (its own containerd runs below it)
#   /run/nf-fleet/NAME.pid              --pidfile
#   /run/nf-fleet/NAME.json             --config-file (/etc/docker/daemon.json is not read; dockerd
#                                       < 23: its own engine-ID key /var/lib/nf-fleet/NAME/key.json)
#   /run/nf-fleet/NAME.tls/             TLS engines: ca.pem server-cert.pem server-key.pem (engine)
#                                       and ca.pem cert.pem key.pem (client: a docker CLI cert dir)
#   /run/nf-fleet/sshd/                 sshd_config, host key, sshd.pid, authorized_keys, the
#                                       client key id_ed25519 and a known_hosts line for the server
#   /var/lib/nf-fleet/NAME/             --data-root (kept by fleet_stop_all: images are reused;
#                                       the containers a killed test left are removed at start)
#   /var/log/nf-fleet/NAME.log, sshd.log  logs, appended to and kept
#
# Typical use (lib.sh already traps EXIT for its own cleanup, so chain both):
#   source "$(dirname "$0")/lib.sh"; source "$(dirname "$0")/fleet_lib.sh"
#   trap 'fleet_stop_all; cleanup_work' EXIT
#   sock=$(fleet_start_engine second)            # /run/nf-fleet/second.sock
#   fleet_start_tls_engine tls 23760 >/dev/null  # tcp://127.0.0.1:23760, certs in /run/nf-fleet/tls.tls
#   fleet_context "$WORK/home" tls tcp://127.0.0.1:23760 /run/nf-fleet/tls.tls/{ca,cert,key}.pem
#   HOME="$WORK/home" docker --context tls version
#   (docker context names need 2+ characters: [a-zA-Z0-9][a-zA-Z0-9_.+-]+, not "default")
#
# Environment (optional): NF_FLEET_WAIT  seconds to wait for an engine to answer (default 60).
#                         NF_FLEET_NO_CLI=1  fleet_context/fleet_use_context write the files by
#                         hand even when a docker CLI exists (the format is the CLI's, byte for byte).

NF_FLEET_RUN=/run/nf-fleet
NF_FLEET_DATA=/var/lib/nf-fleet
NF_FLEET_LOGS=/var/log/nf-fleet

# _fleet_err MESSAGE: prints "fleet: MESSAGE" on stderr and returns 1.
_fleet_err() { echo "fleet: $*" >&2; return 1; }

# _fleet_name NAME: returns 0 when NAME is usable in the paths above (unix socket paths of the
# engine's containerd, below its exec root, must stay under 108 bytes).
_fleet_name() {
  [[ "${1:-}" =~ ^[A-Za-z0-9_][A-Za-z0-9_.-]{0,31}$ ]] || _fleet_err "bad engine name '${1:-}' (letters, digits, _ . -; at most 32)"
}

# _fleet_port PORT: returns 0 when PORT is a TCP port number.
_fleet_port() {
  if [[ "${1:-}" =~ ^[0-9]{1,5}$ ]] && ((10#$1 >= 1 && 10#$1 <= 65535)); then return 0; fi
  _fleet_err "bad port '${1:-}'"
}

# _fleet_cmdline_has PID TEXT: returns 0 when process PID is alive and its command line (NULs read
# as spaces) contains TEXT. Guards every kill: a pid file may name a recycled pid.
_fleet_cmdline_has() {
  local cmd
  [[ "${1:-}" =~ ^[0-9]+$ ]] || return 1
  cmd=$(tr '\0' ' ' 2>/dev/null <"/proc/$1/cmdline") || return 1
  [[ "$cmd" == *"$2"* ]]
}

# _fleet_alive PID: returns 0 when process PID exists and is not a zombie (a zombie waits for its
# parent, or for PID 1 when orphaned, which some init processes reap only every second or so).
_fleet_alive() {
  local st
  st=$(cat 2>/dev/null "/proc/$1/stat") || return 1
  st=${st##*) }
  [[ -n "$st" && "${st:0:1}" != Z ]]
}

# _fleet_engine_pid NAME: prints the pid of the dockerd this library started for NAME (read from
# its pid file, checked against its command line); returns 1 when there is none.
_fleet_engine_pid() {
  local pidfile="$NF_FLEET_RUN/$1.pid" pid
  pid=$(cat "$pidfile" 2>/dev/null) || return 1
  _fleet_cmdline_has "$pid" "--pidfile=$pidfile" || return 1
  echo "$pid"
}

# _fleet_ping_unix SOCKET: returns 0 when GET /_ping answers on the unix socket.
_fleet_ping_unix() {
  [ -S "$1" ] && curl -sf --noproxy '*' --max-time 5 --unix-socket "$1" http://localhost/_ping >/dev/null 2>&1
}

# _fleet_ping_tls NAME PORT: returns 0 when GET https://127.0.0.1:PORT/_ping answers with the
# client certificate of engine NAME (the server certificate verified against its CA).
_fleet_ping_tls() {
  local tls="$NF_FLEET_RUN/$1.tls"
  curl -sf --noproxy '*' --max-time 5 --cacert "$tls/ca.pem" --cert "$tls/cert.pem" --key "$tls/key.pem" \
    "https://127.0.0.1:$2/_ping" >/dev/null 2>&1
}

# _fleet_engine_up NAME [PORT]: the engine answers on its unix socket, and with TLS on PORT if given.
_fleet_engine_up() {
  _fleet_ping_unix "$NF_FLEET_RUN/$1.sock" && { [ -z "${2:-}" ] || _fleet_ping_tls "$1" "$2"; }
}

# _fleet_wait_engine NAME PID [PORT]: waits (NF_FLEET_WAIT seconds, default 60) until the engine
# answers; returns 1 with the log's tail when it does not or its dockerd exits first.
_fleet_wait_engine() {
  local name=$1 pid=$2 port=${3:-} wait=${NF_FLEET_WAIT:-60} log="$NF_FLEET_LOGS/$1.log"
  local deadline=$((SECONDS + wait))
  while ((SECONDS < deadline)); do
    _fleet_engine_up "$name" "$port" && return 0
    # (with job control on, setsid forks and $! is gone at once: follow the pid file then)
    if ! _fleet_alive "$pid" && ! pid=$(_fleet_engine_pid "$name"); then
      echo "fleet: dockerd '$name' exited before answering; last lines of $log:" >&2
      tail -n 20 "$log" >&2 || true
      return 1
    fi
    sleep 0.2
  done
  echo "fleet: dockerd '$name' (pid $pid) does not answer after ${wait}s; last lines of $log:" >&2
  tail -n 20 "$log" >&2 || true
  return 1
}

# _fleet_clear_stale NAME: removes the pid files of NAME's dockerd and of its containerd whose
# process is gone or a zombie. A zombie still has a /proc entry (this machine's PID 1 reaps orphans
# only about once a second), and dockerd takes that for a live process: it refuses to start ("pid
# file found") or waits for that containerd instead of starting its own.
_fleet_clear_stale() {
  local f pid
  for f in "$NF_FLEET_RUN/$1.pid" "$NF_FLEET_RUN/$1.exec/containerd/containerd.pid"; do
    pid=$(cat 2>/dev/null "$f") || continue
    _fleet_alive "$pid" || rm -f "$f"
  done
}

# _fleet_launch_dockerd NAME [EXTRA_DOCKERD_ARG...]: starts (or waits for) the dockerd of NAME with
# its own socket, data root, exec root, pid file, config file, containerd namespaces (they matter
# when a system containerd at /run/containerd/containerd.sock is shared) and (dockerd < 23)
# engine-ID key, plus the extra arguments (a tcp host and TLS flags). Returns once GET /_ping answers on the unix socket (and with TLS on
# tcp when the caller's local variable `port` is set).
# The environment of the test (DOCKER_TLS_VERIFY, DOCKER_CERT_PATH, ... which dockerd reads as
# flag defaults) is not passed on.
_fleet_launch_dockerd() {
  local name=$1; shift
  local sock="$NF_FLEET_RUN/$name.sock" exec_root="$NF_FLEET_RUN/$name.exec" pidfile="$NF_FLEET_RUN/$name.pid"
  local data_root="$NF_FLEET_DATA/$name" config="$NF_FLEET_RUN/$name.json" log="$NF_FLEET_LOGS/$name.log"
  local pid dockerd major
  if pid=$(_fleet_engine_pid "$name"); then
    echo "fleet: dockerd '$name' (pid $pid) is running; waiting for it to answer" >&2
    _fleet_wait_engine "$name" "$pid" "${port:-}"
    return
  fi
  dockerd=$(command -v dockerd 2>/dev/null || true)
  [ -n "$dockerd" ] || { [ -x /usr/sbin/dockerd ] && dockerd=/usr/sbin/dockerd; } ||
    _fleet_err "dockerd is not installed (apt-get install docker.io)" || return
  [ "$(id -u)" -eq 0 ] || _fleet_err "starting an engine needs root" || return
  mkdir -p "$NF_FLEET_RUN" "$NF_FLEET_LOGS" "$data_root" || return
  _fleet_clear_stale "$name"
  local args=(--host="unix://$sock" "$@"
    --storage-driver=vfs --iptables=false --bridge=none
    --data-root="$data_root" --exec-root="$exec_root" --pidfile="$pidfile" --config-file="$config"
    --containerd-namespace="nf-fleet-$name" --containerd-plugins-namespace="nf-fleet-$name-plugins")
  # dockerd before 23 keeps its engine ID in /etc/docker/key.json, shared by every engine: give
  # each one its own, so `docker info` tells them apart (a config-file key only, not a flag).
  major=$("$dockerd" --version 2>/dev/null | sed -n 's/^Docker version \([0-9]*\)\..*/\1/p')
  if [[ "$major" =~ ^[0-9]+$ ]] && ((major < 23)); then
    printf '{"deprecated-key-path": "%s"}\n' "$data_root/key.json" >"$config" || return
  else
    echo '{}' >"$config" || return
  fi
  echo "--- $(date -u +%Y-%m-%dT%H:%M:%SZ) fleet_lib.sh: $dockerd ${args[*]}" >>"$log"
  setsid nohup env -u DOCKER_HOST -u DOCKER_TLS_VERIFY -u DOCKER_CERT_PATH -u DOCKER_TLS -u DOCKER_CONFIG \
    -u DOCKER_CONTEXT "$dockerd" "${args[@]}" >>"$log" 2>&1 </dev/null &
  pid=$!
  disown "$pid" 2>/dev/null || true  # no "Killed" job notice in the test's shell when it is stopped
  _fleet_wait_engine "$name" "$pid" "${port:-}" || return
  _fleet_clear_containers "$name"
}

# _fleet_container_ids SOCKET [QUERY]: the ids of an engine's containers (the running ones; QUERY
# "?all=1": every one), one per line; none when the engine does not answer.
_fleet_container_ids() {
  curl -s --noproxy '*' --max-time 30 --unix-socket "$1" "http://localhost/containers/json${2:-}" 2>/dev/null |
    grep -o '"Id":"[0-9a-f]*"' | cut -d'"' -f4 || true
}

# _fleet_clear_containers NAME: an engine launched here serves no one yet; whatever containers its
# data root still lists were left by a test killed on an earlier run (its engine stopped with
# them). Each test starts from an empty engine: they are removed, and said so.
_fleet_clear_containers() {
  local sock="$NF_FLEET_RUN/$1.sock" id n=0
  for id in $(_fleet_container_ids "$sock" "?all=1"); do
    curl -sf --max-time 120 -o /dev/null --unix-socket "$sock" -X DELETE \
      "http://localhost/containers/$id?force=1&v=1" && n=$((n + 1))
  done
  ((n == 0)) || echo "fleet: removed $n container(s) that a killed earlier run left on engine '$1'" >&2
}

# fleet_start_engine NAME
#   Starts a dockerd of its own on unix socket /run/nf-fleet/NAME.sock (data root
#   /var/lib/nf-fleet/NAME, exec root /run/nf-fleet/NAME.exec, pid file /run/nf-fleet/NAME.pid,
#   log /var/log/nf-fleet/NAME.log) and waits (NF_FLEET_WAIT, 60 s) until GET /_ping answers.
#   Prints the socket path (use DOCKER_HOST=unix://<path>); exports nothing. Idempotent: an engine
#   already answering there is left as it is (a TLS engine of that NAME included).
#   Returns 1 (with the log's tail on stderr) when the engine does not come up.
fleet_start_engine() {
  [ $# -eq 1 ] || _fleet_err "usage: fleet_start_engine NAME" || return
  _fleet_name "$1" || return
  local port=""
  if ! _fleet_engine_up "$1"; then
    echo "fleet: starting dockerd '$1' on unix://$NF_FLEET_RUN/$1.sock" >&2
    _fleet_launch_dockerd "$1" || return
  fi
  echo "$NF_FLEET_RUN/$1.sock"
}

# _fleet_make_certs NAME: makes, with openssl, a CA, a server certificate for 127.0.0.1/localhost
# and a client certificate (clientAuth), all EC P-256 and valid 365 days, in /run/nf-fleet/NAME.tls
# (ca.pem server-cert.pem server-key.pem cert.pem key.pem; the CA's key is not kept). Keeps a
# complete existing set, so a running engine's certificates never change under it.
_fleet_make_certs() {
  local dir="$NF_FLEET_RUN/$1.tls" tmp f
  local all=(ca.pem server-cert.pem server-key.pem cert.pem key.pem) missing=0
  for f in "${all[@]}"; do [ -s "$dir/$f" ] || missing=1; done
  ((missing)) || return 0
  command -v openssl >/dev/null || _fleet_err "openssl is not installed (apt-get install openssl)" || return
  mkdir -p "$NF_FLEET_RUN" || return
  tmp=$(mktemp -d "$dir.new.XXXXXX") || return
  (
    set -e
    cd "$tmp"
    umask 077
    key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
    serial() { echo "0x$(openssl rand -hex 8)"; }
    printf '%s\n' basicConstraints=critical,CA:TRUE keyUsage=critical,keyCertSign,cRLSign \
      subjectKeyIdentifier=hash >ca.ext
    printf '%s\n' basicConstraints=critical,CA:FALSE keyUsage=critical,digitalSignature \
      extendedKeyUsage=serverAuth subjectAltName=IP:127.0.0.1,DNS:localhost \
      subjectKeyIdentifier=hash authorityKeyIdentifier=keyid >server.ext
    printf '%s\n' basicConstraints=critical,CA:FALSE keyUsage=critical,digitalSignature \
      extendedKeyUsage=clientAuth subjectKeyIdentifier=hash authorityKeyIdentifier=keyid >client.ext
    key ca-key.pem
    openssl req -new -key ca-key.pem -subj "/CN=nf-fleet $1 CA" -out ca.csr
    openssl x509 -req -in ca.csr -signkey ca-key.pem -days 365 -set_serial "$(serial)" -extfile ca.ext -out ca.pem 2>/dev/null
    key server-key.pem
    openssl req -new -key server-key.pem -subj "/CN=localhost" -out server.csr
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -days 365 -set_serial "$(serial)" \
      -extfile server.ext -out server-cert.pem 2>/dev/null
    key key.pem
    openssl req -new -key key.pem -subj "/CN=nf-fleet client" -out client.csr
    openssl x509 -req -in client.csr -CA ca.pem -CAkey ca-key.pem -days 365 -set_serial "$(serial)" \
      -extfile client.ext -out cert.pem 2>/dev/null
    openssl verify -CAfile ca.pem server-cert.pem cert.pem >/dev/null
    rm -f ca-key.pem ./*.csr ./*.ext
    chmod 0644 ca.pem server-cert.pem cert.pem
  ) || { rm -rf "$tmp"; _fleet_err "openssl could not make the certificates of '$1'"; return; }
  rm -rf "$dir" && mv "$tmp" "$dir" && chmod 0700 "$dir"
}

# fleet_start_tls_engine NAME PORT
#   Like fleet_start_engine NAME, and the engine also listens on tcp://127.0.0.1:PORT with
#   --tlsverify: only clients with a certificate from its CA get in. Certificates (made by openssl
#   on first use, kept while /run/nf-fleet lives) are in /run/nf-fleet/NAME.tls: ca.pem,
#   server-cert.pem, server-key.pem for the engine; ca.pem, cert.pem, key.pem for clients, named as
#   the docker CLI expects in a cert dir (DOCKER_CERT_PATH=/run/nf-fleet/NAME.tls). The server
#   certificate names IP:127.0.0.1 and DNS:localhost. The unix socket stays plain (for cleanup).
#   Waits until both GET /_ping on the socket and curl --cacert --cert --key
#   https://127.0.0.1:PORT/_ping answer. Prints the unix socket path. Idempotent; returns 1 when
#   NAME already runs without TLS on PORT (fleet_stop_engine NAME first) or does not come up.
fleet_start_tls_engine() {
  [ $# -eq 2 ] || _fleet_err "usage: fleet_start_tls_engine NAME PORT" || return
  _fleet_name "$1" || return
  _fleet_port "$2" || return
  local name=$1 port=$2 tls="$NF_FLEET_RUN/$1.tls"
  if _fleet_engine_up "$name"; then
    _fleet_ping_tls "$name" "$port" ||
      _fleet_err "engine '$name' runs but does not answer with TLS on 127.0.0.1:$port (fleet_stop_engine $name first)" ||
      return
  else
    _fleet_engine_pid "$name" >/dev/null || _fleet_make_certs "$name" || return
    echo "fleet: starting dockerd '$name' on unix://$NF_FLEET_RUN/$name.sock and tcp://127.0.0.1:$port (TLS)" >&2
    _fleet_launch_dockerd "$name" --host="tcp://127.0.0.1:$port" --tlsverify --tlscacert="$tls/ca.pem" \
      --tlscert="$tls/server-cert.pem" --tlskey="$tls/server-key.pem" || return
  fi
  echo "$NF_FLEET_RUN/$name.sock"
}

# _fleet_wait_reaped SECONDS PID...: waits (bounded) while any of the PIDs is a zombie, so that
# `pgrep dockerd` right after a stop does not list "[dockerd] <defunct>" awaiting PID 1.
_fleet_wait_reaped() {
  local deadline=$(($(_fleet_ms) + $1 * 1000)) p st zombie
  shift
  while :; do
    zombie=0
    for p in "$@"; do
      st=$(cat 2>/dev/null "/proc/$p/stat") || continue
      st=${st##*) }
      [[ "${st:0:1}" != Z ]] || zombie=1
    done
    ((zombie)) || return 0
    (($(_fleet_ms) < deadline)) || return 1
    sleep 0.1
  done
}

# _fleet_kill_tree SIGNAL PID...: sends SIGNAL to each PID and all its descendants (children first
# collected, so a parent's death does not hide them).
_fleet_kill_tree() {
  local sig=$1 p kids=()
  shift
  for p in "$@"; do
    mapfile -t kids < <(ps -o pid= --ppid "$p" 2>/dev/null | tr -d ' ')
    ((${#kids[@]} == 0)) || _fleet_kill_tree "$sig" "${kids[@]}"
    kill "-$sig" "$p" 2>/dev/null || true
  done
}

# _fleet_ms: milliseconds since the epoch (SECONDS counts whole seconds: a 10 s wait would last 9.x).
_fleet_ms() {
  local t=${EPOCHREALTIME/[.,]/}
  echo $((t / 1000))
}

# _fleet_wait_gone SECONDS PID...: waits until none of the PIDs is alive (zombies count as gone);
# returns 1 on timeout.
_fleet_wait_gone() {
  local deadline=$(($(_fleet_ms) + $1 * 1000)) p alive
  shift
  while :; do
    alive=0
    for p in "$@"; do _fleet_alive "$p" && alive=1; done
    ((alive)) || return 0
    (($(_fleet_ms) < deadline)) || return 1
    sleep 0.1
  done
}

# _fleet_reap NAME: kills what a dockerd of NAME left behind when it did not stop cleanly (it was
# SIGKILLed or crashed): its own containerd (command line names NAME's exec root) and that
# containerd's shims with their containers (shims name its socket in -address).
_fleet_reap() {
  local exec_root="$NF_FLEET_RUN/$1.exec" p pids=()
  for p in $(pgrep -f -- "$exec_root/containerd/" 2>/dev/null || true); do
    _fleet_cmdline_has "$p" "$exec_root/containerd/" && pids+=("$p")
  done
  ((${#pids[@]} == 0)) && return 0
  echo "fleet: killing what dockerd '$1' left behind: pids ${pids[*]}" >&2
  _fleet_kill_tree KILL "${pids[@]}"
  _fleet_wait_gone 5 "${pids[@]}" || true
}

# fleet_stop_engine NAME
#   Stops the dockerd this library started for NAME: SIGTERM (its API closes at once; it then stops
#   its containers, giving each its stop timeout, 10 s by default, and its containerd), SIGKILL
#   after 10 s, then kills what a killed engine leaves behind (its containerd, shims and their
#   containers), and waits (bounded, 10 s more) until its socket no longer answers. With no running
#   container it takes about 1 s; with one that ignores SIGTERM, about 10 s. Keeps its data root, certificates and state files (fleet_start_engine NAME
#   starts it again with the same images). Returns 0 once the socket is silent, 1 otherwise (e.g.
#   something this library did not start answers there: it is never signalled).
fleet_stop_engine() {
  [ $# -eq 1 ] || _fleet_err "usage: fleet_stop_engine NAME" || return
  _fleet_name "$1" || return
  local name=$1 sock="$NF_FLEET_RUN/$1.sock" pid deadline
  if pid=$(_fleet_engine_pid "$name"); then
    kill -TERM "$pid" 2>/dev/null || true
    if ! _fleet_wait_gone 10 "$pid"; then
      echo "fleet: dockerd '$name' (pid $pid) still running 10 s after SIGTERM; SIGKILL" >&2
      kill -KILL "$pid" 2>/dev/null || true
      _fleet_wait_gone 5 "$pid" || true
    fi
  fi
  _fleet_reap "$name"
  _fleet_clear_stale "$name"
  deadline=$((SECONDS + 10))
  while _fleet_ping_unix "$sock"; do
    ((SECONDS < deadline)) || _fleet_err "something still answers on $sock (not started by fleet_lib.sh?)" || return
    sleep 0.2
  done
  return 0
}

# _fleet_sshd_pid: prints the pid of the sshd this library started; returns 1 when there is none.
_fleet_sshd_pid() {
  local pid
  pid=$(cat "$NF_FLEET_RUN/sshd/sshd.pid" 2>/dev/null) || return 1
  _fleet_cmdline_has "$pid" "$NF_FLEET_RUN/sshd/sshd_config" || return 1
  echo "$pid"
}

# _fleet_ssh_ok PORT: returns 0 when root logs in on 127.0.0.1:PORT with the fleet's client key
# and the server's host key is the one in /run/nf-fleet/sshd/known_hosts.
_fleet_ssh_ok() {
  local d="$NF_FLEET_RUN/sshd"
  ssh -F none -o BatchMode=yes -o IdentitiesOnly=yes -i "$d/id_ed25519" -o UserKnownHostsFile="$d/known_hosts" \
    -o GlobalKnownHostsFile=/dev/null -o StrictHostKeyChecking=yes -o UpdateHostKeys=no -o ConnectTimeout=5 \
    -p "$1" root@127.0.0.1 true </dev/null >/dev/null 2>&1
}

# _fleet_stop_sshd: stops the sshd this library started, with its sessions (SIGTERM, then SIGKILL
# after 5 s). Never fails.
_fleet_stop_sshd() {
  local pid
  pid=$(_fleet_sshd_pid) || return 0
  _fleet_kill_tree TERM "$pid"
  _fleet_wait_gone 5 "$pid" || { _fleet_kill_tree KILL "$pid"; _fleet_wait_gone 5 "$pid" || true; }
  rm -f "$NF_FLEET_RUN/sshd/sshd.pid"
}

# fleet_start_sshd PORT
#   Starts an OpenSSH server on 127.0.0.1:PORT only (installs openssh-server with apt-get when
#   /usr/sbin/sshd is missing), with its own config, ed25519 host key and pid file under
#   /run/nf-fleet/sshd/ and log /var/log/nf-fleet/sshd.log: root logs in by key only
#   (PermitRootLogin prohibit-password, PasswordAuthentication no; authorized keys read from
#   /run/nf-fleet/sshd/authorized_keys, never from /root/.ssh), AllowStreamLocalForwarding yes.
#   Makes the client key /run/nf-fleet/sshd/id_ed25519 (authorized) and known_hosts (the server's
#   host key as [127.0.0.1]:PORT). Waits until `ssh -o BatchMode=yes -p PORT root@127.0.0.1 true`
#   succeeds with them. Prints nothing. Idempotent; a running one on another port is restarted
#   on PORT (keys kept). Returns 1 when sshd does not come up.
fleet_start_sshd() {
  [ $# -eq 1 ] || _fleet_err "usage: fleet_start_sshd PORT" || return
  _fleet_port "$1" || return
  local port=$1 d="$NF_FLEET_RUN/sshd" log="$NF_FLEET_LOGS/sshd.log" pid use_pam=no deadline
  if pid=$(_fleet_sshd_pid); then
    if [ "$(cat "$d/port" 2>/dev/null)" = "$port" ] && _fleet_ssh_ok "$port"; then return 0; fi
    echo "fleet: restarting sshd (pid $pid) on port $port" >&2
    _fleet_stop_sshd
  fi
  [ "$(id -u)" -eq 0 ] || _fleet_err "starting sshd needs root" || return
  if [ ! -x /usr/sbin/sshd ]; then
    echo "fleet: installing openssh-server" >&2
    mkdir -p "$NF_FLEET_LOGS" || return
    { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openssh-server ||
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openssh-server; }
    } >>"$NF_FLEET_LOGS/apt.log" 2>&1 || true
    [ -x /usr/sbin/sshd ] || _fleet_err "could not install openssh-server (see $NF_FLEET_LOGS/apt.log)" || return
  fi
  command -v ssh >/dev/null || _fleet_err "ssh (openssh-client) is not installed" || return
  mkdir -p "$d" "$NF_FLEET_LOGS" && chmod 0700 "$d" || return
  mkdir -p /run/sshd && chmod 0755 /run/sshd || return  # sshd's privilege separation directory
  [ -s "$d/ssh_host_ed25519_key" ] ||
    ssh-keygen -q -t ed25519 -N '' -C nf-fleet-sshd -f "$d/ssh_host_ed25519_key" </dev/null || return
  [ -s "$d/id_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C nf-fleet-client -f "$d/id_ed25519" </dev/null || return
  cp "$d/id_ed25519.pub" "$d/authorized_keys" && chmod 0600 "$d/authorized_keys" || return
  echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$d/ssh_host_ed25519_key.pub")" >"$d/known_hosts" || return
  # Without PAM, sshd refuses an account whose password is locked ('!...'); with PAM it does not,
  # but PAM sessions may fail in containers (pam_loginuid): use PAM only for a locked root.
  [[ "$(getent shadow root 2>/dev/null | cut -d: -f2)" == '!'* ]] && use_pam=yes
  cat >"$d/sshd_config" <<EOF || return
# written by tests/integration/fleet_lib.sh
Port $port
ListenAddress 127.0.0.1:$port
AddressFamily inet
HostKey $d/ssh_host_ed25519_key
PidFile $d/sshd.pid
AuthorizedKeysFile $d/authorized_keys
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM $use_pam
AllowStreamLocalForwarding yes
AllowTcpForwarding yes
X11Forwarding no
AllowAgentForwarding no
PrintMotd no
UseDNS no
LogLevel VERBOSE
EOF
  /usr/sbin/sshd -t -f "$d/sshd_config" || _fleet_err "sshd rejects $d/sshd_config" || return
  echo "$port" >"$d/port"
  echo "--- $(date -u +%Y-%m-%dT%H:%M:%SZ) fleet_lib.sh: /usr/sbin/sshd -f $d/sshd_config (127.0.0.1:$port)" >>"$log"
  # sshd forks into the background itself once it listens; -E keeps its log in a file
  /usr/sbin/sshd -f "$d/sshd_config" -E "$log" </dev/null >/dev/null 2>&1 ||
    { tail -n 20 "$log" >&2; _fleet_err "sshd did not start on 127.0.0.1:$port"; return; }
  deadline=$((SECONDS + 10))
  until _fleet_ssh_ok "$port"; do
    if ((SECONDS >= deadline)); then tail -n 20 "$log" >&2; _fleet_err "ssh root@127.0.0.1 -p $port fails"; return; fi
    sleep 0.2
  done
}

# fleet_ssh_home HOME
#   Sets up ssh for the test user (root) under HOME, for the sshd of fleet_start_sshd: HOME/.ssh/
#   id_ed25519(.pub) (the fleet's client key), known_hosts (the server's host key, so
#   StrictHostKeyChecking=yes works) and config (Host 127.0.0.1: Port, User root, IdentityFile,
#   IdentitiesOnly, UserKnownHostsFile, StrictHostKeyChecking yes, BatchMode yes; absolute paths).
#   OpenSSH reads ~/.ssh from the passwd entry, not from $HOME: use `ssh -F HOME/.ssh/config`, or put
#   HOME/bin (written too: an `ssh` that adds that -F) first in PATH for programs that run `ssh`.
#   Returns 1 when fleet_start_sshd has not run.
fleet_ssh_home() {
  [ $# -eq 1 ] || _fleet_err "usage: fleet_ssh_home HOME" || return
  local home=$1 d="$NF_FLEET_RUN/sshd" port
  port=$(cat "$d/port" 2>/dev/null) && [ -s "$d/id_ed25519" ] ||
    _fleet_err "no sshd of the fleet (fleet_start_sshd PORT first)" || return
  mkdir -p "$home/.ssh" "$home/bin" && chmod 0700 "$home/.ssh" || return
  cp "$d/id_ed25519" "$d/id_ed25519.pub" "$d/known_hosts" "$home/.ssh/" && chmod 0600 "$home/.ssh/id_ed25519" || return
  cat >"$home/.ssh/config" <<EOF || return
Host 127.0.0.1
  HostName 127.0.0.1
  Port $port
  User root
  IdentityFile $home/.ssh/id_ed25519
  IdentitiesOnly yes
  UserKnownHostsFile $home/.ssh/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  UpdateHostKeys no
  BatchMode yes
EOF
  chmod 0600 "$home/.ssh/config" || return
  # shellcheck disable=SC2016  # "$@" belongs to the wrapper
  printf '#!/bin/sh\n# ssh with the client config under %s (OpenSSH ignores $HOME)\nexec %q -F %q "$@"\n' \
    "$home" "$(command -v ssh)" "$home/.ssh/config" >"$home/bin/ssh" && chmod 0755 "$home/bin/ssh"
}

# fleet_forward LOCAL_SOCKET REMOTE_SOCKET
#   Forwards unix socket LOCAL_SOCKET to REMOTE_SOCKET through the fleet's sshd (OpenSSH -L with
#   ExitOnForwardFailure and StreamLocalBindUnlink), waits (10 s) until GET /_ping answers on
#   LOCAL_SOCKET and prints the pid of the ssh process (kill it to end the forward;
#   fleet_stop_all ends it too). Returns 1 when the forward does not answer.
fleet_forward() {
  [ $# -eq 2 ] || _fleet_err "usage: fleet_forward LOCAL_SOCKET REMOTE_SOCKET" || return
  local d="$NF_FLEET_RUN/sshd" port pid deadline
  port=$(cat "$d/port" 2>/dev/null) || _fleet_err "no sshd of the fleet (fleet_start_sshd PORT first)" || return
  ssh -F none -o BatchMode=yes -o IdentitiesOnly=yes -i "$d/id_ed25519" -o UserKnownHostsFile="$d/known_hosts" \
    -o GlobalKnownHostsFile=/dev/null -o StrictHostKeyChecking=yes -o UpdateHostKeys=no \
    -o ExitOnForwardFailure=yes -o StreamLocalBindUnlink=yes -o ServerAliveInterval=10 \
    -nNT -L "$1:$2" -p "$port" root@127.0.0.1 </dev/null >>"$NF_FLEET_LOGS/forward.log" 2>&1 &
  pid=$!
  echo "$pid" >>"$d/forwards"
  deadline=$((SECONDS + 10))
  until _fleet_ping_unix "$1"; do
    if ! _fleet_alive "$pid" || ((SECONDS >= deadline)); then
      kill "$pid" 2>/dev/null || true
      tail -n 5 "$NF_FLEET_LOGS/forward.log" >&2 || true
      _fleet_err "the forward $1 -> $2 does not answer"
      return
    fi
    sleep 0.1
  done
  echo "$pid"
}

# _fleet_json_str TEXT: TEXT as a JSON string, the way Go's encoding/json writes it (only what a
# context name or a docker host can hold; refuses quotes, backslashes, <, >, & and control bytes).
_fleet_json_str() {
  [[ "$1" != *[\"\\\<\>\&]* && "$1" != *[[:cntrl:]]* ]] || _fleet_err "cannot write '$1' into meta.json" || return
  printf '"%s"' "$1"
}

# _fleet_docker_cli: prints the docker CLI to use for contexts, or returns 1 (none, or
# NF_FLEET_NO_CLI=1).
_fleet_docker_cli() {
  [ "${NF_FLEET_NO_CLI:-0}" != 1 ] && command -v docker 2>/dev/null
}

# _fleet_cli HOME ARG...: runs the docker CLI with HOME and none of the test's DOCKER_* settings;
# its output ("Successfully created context", on stderr) is shown only when it fails.
_fleet_cli() {
  local home=$1 out
  shift
  out=$(env -u DOCKER_CONFIG -u DOCKER_CONTEXT -u DOCKER_HOST -u DOCKER_TLS_VERIFY -u DOCKER_CERT_PATH \
    -u DOCKER_TLS HOME="$home" "$(_fleet_docker_cli)" "$@" 2>&1) || { echo "$out" >&2; return 1; }
}

# fleet_context HOME NAME HOST [CA CERT KEY] [skip]
#   Creates docker CLI context NAME in the store under HOME/.docker, exactly as
#   `HOME=HOME docker context create NAME --docker host=HOST[,ca=CA,cert=CERT,key=KEY][,skip-tls-verify=true]`
#   does (that command is run when a docker CLI exists; otherwise the same files are written:
#   HOME/.docker/contexts/meta/<sha256 of NAME>/meta.json, no trailing newline, 0644, and copies of
#   the three PEM files as HOME/.docker/contexts/tls/<sha256 of NAME>/docker/{ca,cert,key}.pem,
#   0600, directories 0700). A trailing `skip` sets SkipTLSVerify. An existing NAME is replaced
#   (and stays the current context if it was). Prints nothing; returns 1 on bad arguments.
fleet_context() {
  local usage="usage: fleet_context HOME NAME HOST [CA CERT KEY] [skip]"
  (($# >= 3)) || _fleet_err "$usage" || return
  local home=$1 name=$2 host=$3 ca="" cert="" key="" skip=false id meta tls was_current=0 f
  shift 3
  if (($# >= 3)); then ca=$1 cert=$2 key=$3; shift 3; fi
  if (($# == 1)) && [ "$1" = skip ]; then skip=true; shift; fi
  (($# == 0)) || _fleet_err "$usage" || return
  [[ "$name" =~ ^[a-zA-Z0-9][a-zA-Z0-9_.+-]+$ && "$name" != default ]] ||
    _fleet_err "'$name' is not a valid context name for the docker CLI" || return
  if [ -n "$ca" ]; then
    for f in "$ca" "$cert" "$key"; do [ -r "$f" ] || _fleet_err "cannot read $f" || return; done
  fi
  id=$(printf %s "$name" | sha256sum | cut -d' ' -f1)
  meta="$home/.docker/contexts/meta/$id"
  tls="$home/.docker/contexts/tls/$id"
  grep -q "\"currentContext\": \"$name\"" "$home/.docker/config.json" 2>/dev/null && was_current=1
  if _fleet_docker_cli >/dev/null; then
    local spec="host=$host"
    [ -z "$ca" ] || spec+=",ca=$ca,cert=$cert,key=$key"
    [ "$skip" = false ] || spec+=",skip-tls-verify=true"
    mkdir -p "$home" || return
    if [ -e "$meta" ]; then _fleet_cli "$home" context rm --force "$name" || return; fi
    _fleet_cli "$home" context create "$name" --docker "$spec" || return
    ((was_current == 0)) || fleet_use_context "$home" "$name"
    return
  fi
  local name_json host_json
  name_json=$(_fleet_json_str "$name") && host_json=$(_fleet_json_str "$host") || return
  rm -rf "$meta" "$tls" || return
  mkdir -p "$meta" && chmod 0755 "$home/.docker" "$home/.docker/contexts" "$home/.docker/contexts/meta" "$meta" || return
  (umask 022; printf '{"Name":%s,"Metadata":{},"Endpoints":{"docker":{"Host":%s,"SkipTLSVerify":%s}}}' \
    "$name_json" "$host_json" "$skip" >"$meta/meta.json") && chmod 0644 "$meta/meta.json" || return
  if [ -n "$ca" ]; then
    mkdir -p "$tls/docker" && chmod 0700 "$home/.docker/contexts/tls" "$tls" "$tls/docker" || return
    cp "$ca" "$tls/docker/ca.pem" && cp "$cert" "$tls/docker/cert.pem" && cp "$key" "$tls/docker/key.pem" &&
      chmod 0600 "$tls/docker/ca.pem" "$tls/docker/cert.pem" "$tls/docker/key.pem" || return
  fi
}

# fleet_use_context HOME NAME
#   Makes NAME the current context of HOME/.docker/config.json (`docker context use NAME`; NAME
#   "default" removes currentContext), keeping every other key of the file. Without a docker CLI
#   (or with NF_FLEET_NO_CLI=1) the file is rewritten by python3 as the CLI writes it (tab indents,
#   0600, "auths": {} in a new file). Returns 1 when NAME is not a context under HOME.
fleet_use_context() {
  [ $# -eq 2 ] || _fleet_err "usage: fleet_use_context HOME NAME" || return
  local home=$1 name=$2 id
  if _fleet_docker_cli >/dev/null; then
    _fleet_cli "$home" context use "$name"
    return
  fi
  id=$(printf %s "$name" | sha256sum | cut -d' ' -f1)
  [ "$name" = default ] || [ -f "$home/.docker/contexts/meta/$id/meta.json" ] ||
    _fleet_err "context '$name' not found under $home/.docker" || return
  mkdir -p "$home/.docker" || return
  python3 - "$home/.docker/config.json" "$name" <<'PY'
import json, os, sys
path, name = sys.argv[1], sys.argv[2]
try:
    with open(path) as f:
        cfg = json.load(f)
except FileNotFoundError:
    cfg = {"auths": {}}
cfg.pop("currentContext", None)
if name != "default":
    cfg["currentContext"] = name
tmp = path + ".tmp"
with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
    f.write(json.dumps(cfg, indent="\t"))
os.replace(tmp, path)
PY
}

# _fleet_unmount_below DIR: lazily unmounts every mount point at or below DIR (deepest first), so
# that removing DIR can never reach into a mounted file system (a killed engine can leave netns and
# shm mounts behind).
_fleet_unmount_below() {
  local m
  while read -r m; do
    umount -l "$m" 2>/dev/null || true
  done < <(awk -v d="$1" '{ p = $5; gsub(/\\040/, " ", p); if (p == d || index(p, d "/") == 1) print p }' \
             /proc/self/mountinfo | sort -r)
}

# _fleet_kill_containers NAME: SIGKILLs (POST /containers/ID/kill) every running container of
# engine NAME, so that its dockerd stops at once instead of giving each one 10 s after SIGTERM.
_fleet_kill_containers() {
  local sock="$NF_FLEET_RUN/$1.sock" id
  _fleet_ping_unix "$sock" || return 0
  for id in $(_fleet_container_ids "$sock"); do
    curl -s --noproxy '*' --max-time 5 --unix-socket "$sock" -X POST "http://localhost/containers/$id/kill" >/dev/null 2>&1
  done
  return 0
}

# fleet_stop_all [--wipe]
#   Stops everything this library started, found by its pid files (never by process name; the main
#   engine on /var/run/docker.sock is never touched): every engine (its running containers killed
#   first through its API, so that it stops in about a second, then fleet_stop_engine: bounded),
#   the ssh forwards of fleet_forward, and the sshd with its sessions. Then removes /run/nf-fleet
#   (sockets, exec roots, pid files, certificates, ssh keys; leftover mounts below it are unmounted
#   first, and rm never crosses a mount). Keeps the data roots /var/lib/nf-fleet/NAME (the vfs
#   image layers: the next run reuses its images) and the logs in /var/log/nf-fleet; --wipe removes
#   the data roots too. Never fails (returns 0): meant for `trap 'fleet_stop_all; ...' EXIT`.
fleet_stop_all() {
  local - p name pid wipe=0 stopped=()
  set +e
  [ "${1:-}" = --wipe ] && wipe=1
  for p in "$NF_FLEET_RUN"/*.pid; do
    name=$(basename "$p" .pid)
    [ -e "$p" ] && _fleet_name "$name" 2>/dev/null && pid=$(_fleet_engine_pid "$name") && stopped+=("$pid")
  done
  pid=$(_fleet_sshd_pid) && stopped+=("$pid")
  if [ -f "$NF_FLEET_RUN/sshd/forwards" ]; then
    while read -r p; do _fleet_cmdline_has "$p" "$NF_FLEET_RUN/sshd/id_ed25519" && kill "$p" 2>/dev/null; done \
      <"$NF_FLEET_RUN/sshd/forwards"
  fi
  for p in "$NF_FLEET_RUN"/*.pid "$NF_FLEET_RUN"/*.exec; do
    [ -e "$p" ] || continue
    name=$(basename "$p"); name=${name%.pid}; name=${name%.exec}
    _fleet_name "$name" 2>/dev/null || continue
    _fleet_engine_pid "$name" >/dev/null && _fleet_kill_containers "$name"
    fleet_stop_engine "$name" || echo "fleet: could not stop engine '$name'" >&2
  done
  _fleet_stop_sshd
  ((${#stopped[@]} == 0)) || _fleet_wait_reaped 3 "${stopped[@]}"
  if [ -d "$NF_FLEET_RUN" ]; then
    _fleet_unmount_below "$NF_FLEET_RUN"
    rm -rf --one-file-system "$NF_FLEET_RUN" || echo "fleet: could not remove all of $NF_FLEET_RUN" >&2
  fi
  if ((wipe)) && [ -d "$NF_FLEET_DATA" ]; then
    _fleet_unmount_below "$NF_FLEET_DATA"
    rm -rf --one-file-system "$NF_FLEET_DATA" || echo "fleet: could not remove all of $NF_FLEET_DATA" >&2
  fi
  return 0
}

# The three hosts of e2e_fleet and e2e_fleet_lease: the second engine nfb reached through an sshd on
# 127.0.0.1:22222 ($SSH_HOST; noisefloor's ssh is $NF_SSH), the TLS engine nfc on 127.0.0.1:23760
# named tlsbox by a Docker context in $H (noisefloor's HOME), and fleet.yaml in the working
# directory: one experiment across the three and this machine ($BURN its workload). Works in
# $WORK; stops all of it on exit (and any run a failed check left in the background). Skips the
# test NAME (exit 77) without a main engine, outside CI; fails it when an engine or the sshd does
# not start. fleet_three_hosts NAME
fleet_three_hosts() {
  BURN="$(realpath "${BURN:?set BURN to the nf-burn test program}")"
  SOCK="${DOCKER_HOST:-unix:///var/run/docker.sock}"  # the main engine's socket
  SOCK="${SOCK#unix://}"
  if ! curl -sf --unix-socket "$SOCK" http://localhost/_ping >/dev/null; then
    [[ "${CI:-}" == true ]] && fail "no Docker engine answers at $SOCK (CI=true: this is a failure)"
    echo "$1 skipped: no engine at $SOCK"; exit 77
  fi
  # A run left in the background by a failed check must not outlive the test (it holds leases).
  trap 'kill -9 $(jobs -p) 2>/dev/null || true; fleet_stop_all; cleanup_work' EXIT
  cd "$WORK"
  fleet_start_engine nfb >/dev/null || fail "cannot start the second engine"
  fleet_start_tls_engine nfc 23760 >/dev/null || fail "cannot start the TLS engine"
  fleet_start_sshd 22222 >/dev/null || fail "cannot start sshd"
  H="$WORK/home"
  mkdir -p "$H"
  fleet_ssh_home "$H" >/dev/null
  fleet_context "$H" tlsbox tcp://127.0.0.1:23760 /run/nf-fleet/nfc.tls/ca.pem /run/nf-fleet/nfc.tls/cert.pem \
    /run/nf-fleet/nfc.tls/key.pem >/dev/null || fail "cannot create the context"
  # The ssh client reads ~/.ssh of root's passwd entry, not $HOME: the wrapper passes -F.
  export NF_SSH="$H/bin/ssh"
  SSH_HOST="ssh://root@127.0.0.1:22222/run/nf-fleet/nfb.sock"
  cat >fleet.yaml <<YAML
name: fleet
benchmark:
  command: [$BURN, "0.05"]
  format: command
  metric: cpu
  samples: 3
  samples_per_run: 1
  timeout: 2m
settle: 0.1s
hosts: [default, "$SSH_HOST", tlsbox]
conditions:
  - name: idle
  - name: noisy
    spinners: {count: 1, cpus: [1]}
  - name: pinned
    affinity: "0"
    nice: 5
  - name: box
    container: {cpuset: "0", cpus: 1, memory: 256m}
noise_profile: 0s
YAML
}
# GET PATH from the TLS engine of fleet_three_hosts: tls_curl "/containers/json?all=1".
tls_curl() {
  curl -sf --cacert /run/nf-fleet/nfc.tls/ca.pem --cert /run/nf-fleet/nfc.tls/cert.pem \
    --key /run/nf-fleet/nfc.tls/key.pem "https://127.0.0.1:23760$1"
}
# Containers of an engine (its unix socket) whose name or label matches, all states.
containers_on() {
  curl -s --unix-socket "$1" -G http://localhost/containers/json --data-urlencode all=1 \
    --data-urlencode "filters={\"$2\":[\"$3\"]}" | grep -o '"Id":"[0-9a-f]*"' || true
}
