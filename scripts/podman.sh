#!/usr/bin/env bash
# Make sure a rootful Podman API service answers on a unix socket; start one if none does.
# `podman.sh stop` stops the one this script started (and only that one).
#
# Podman serves the Docker Engine API (`podman system service`); noisefloor talks to it like to
# any engine: --host unix:///run/podman/podman.sock, a docker context pointing there, or
# DOCKER_HOST. The service is started with setsid + nohup so it outlives this script, logs to its
# own file, and the script waits (bounded) until GET /_ping answers. Idempotent. It runs beside
# dockerd (scripts/dockerd.sh): they share nothing but the kernel.
#
# Where the kernel refuses Podman's default rlimits for root (nofile=1048576 and nproc=4194304,
# above this machine's hard limits, need CAP_SYS_RESOURCE, which containers and some CI sandboxes
# lack: runc fails with "error setting rlimit type 7"), the service gets a containers.conf of its
# own (CONTAINERS_CONF) whose default_ulimits are this shell's hard limits; the machine's own
# /etc/containers files are left as they are.
#
# Rootless: NF_PODMAN_USER=<user> starts that user's own service (run as root; the user needs
# subordinate ids in /etc/subuid and /etc/subgid), on /run/user/<uid>/podman/podman.sock, with
# XDG_RUNTIME_DIR=/run/user/<uid>. `stop` then also ends the user's `podman pause` process, the
# holder of its user namespace.
#
# Environment (optional):
#   NF_PODMAN_USER    a user: that user's rootless service (default: rootful)
#   NF_PODMAN_SOCKET  the socket        (default /run/podman/podman.sock, rootless: as above)
#   NF_PODMAN_LOG     log file          (default /var/log/noisefloor-podman.log)
#   NF_PODMAN_WAIT    seconds to wait   (default 60)
# Exit status: 0 a service answers (or was stopped), 1 it could not be started, 2 bad usage.
set -euo pipefail

die() { echo "podman.sh: $1" >&2; exit "${2:-1}"; }

user=${NF_PODMAN_USER:-}
as_user=()
if [[ -n "$user" ]]; then
  uid=$(id -u "$user" 2>/dev/null) || die "NF_PODMAN_USER '$user' is no user here" 2
  home=$(getent passwd "$user" | cut -d: -f6)
  runtime_dir=/run/user/$uid
  as_user=(runuser -u "$user" -- env HOME="$home" XDG_RUNTIME_DIR="$runtime_dir")
  default_socket=$runtime_dir/podman/podman.sock
  state=/run/nf-podman/user-$uid
else
  default_socket=/run/podman/podman.sock
fi
socket=${NF_PODMAN_SOCKET:-$default_socket}
log_file=${NF_PODMAN_LOG:-/var/log/noisefloor-podman${user:+-$user}.log}
wait_seconds=${NF_PODMAN_WAIT:-60}
state=${state:-/run/nf-podman/$(basename "$socket" .sock)}
pid_file=$state.pid
[[ "$socket" == /* ]] || die "NF_PODMAN_SOCKET '$socket' is not an absolute path" 2
[[ "$wait_seconds" =~ ^[0-9]+$ ]] || die "NF_PODMAN_WAIT '$wait_seconds' is not a number of seconds" 2

answers() {
  [ -S "$socket" ] && curl -sf --max-time 5 --unix-socket "$socket" http://localhost/_ping >/dev/null 2>&1
}

if [[ "${1:-}" == stop ]]; then
  [[ -f "$pid_file" ]] || { echo "podman.sh: no service of this script at unix://$socket"; exit 0; }
  pid=$(cat "$pid_file")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
  fi
  rm -f "$pid_file"
  if [[ -n "$user" && -f "$runtime_dir/libpod/tmp/pause.pid" ]]; then
    pause=$(cat "$runtime_dir/libpod/tmp/pause.pid")
    kill -KILL "$pause" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pause" 2>/dev/null || break; sleep 0.1; done
  fi
  echo "podman service (pid $pid) stopped"
  exit 0
fi
[[ $# -eq 0 ]] || die "usage: podman.sh [stop]" 2

if answers; then
  echo "podman service already answering at unix://$socket"
  exit 0
fi
podman_bin=$(command -v podman || true)
[ -n "$podman_bin" ] || die "no podman service answers at unix://$socket and podman is not installed (apt-get install podman)"
command_line="setsid nohup $podman_bin system service --time=0 unix://$socket >>$log_file 2>&1 </dev/null &"
if [ "$(id -u)" -ne 0 ]; then
  echo "no podman service answers at unix://$socket; starting a rootful one needs root:" >&2
  echo "  sudo sh -c '$command_line'" >&2
  exit 1
fi

mkdir -p "$(dirname "$log_file")" "$(dirname "$state")"
chmod 755 "$(dirname "$state")"
if [[ -n "$user" ]]; then
  install -d -m 700 -o "$user" -g "$(id -g "$user")" "$runtime_dir"
  "${as_user[@]}" mkdir -p "$(dirname "$socket")"
  touch "$log_file" && chown "$user" "$log_file"
else
  mkdir -p "$(dirname "$socket")"
fi
env=()
cap_eff=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
if (((0x$cap_eff >> 24 & 1) == 0)); then  # no CAP_SYS_RESOURCE
  conf=$state.containers.conf
  nofile=$(ulimit -Hn) nproc=$(ulimit -Hu)
  [[ "$nofile" == unlimited ]] && nofile=-1
  # podman 4.3 lowers its own nproc limit to 32768 at start (/proc/<pid>/limits), and runc cannot
  # give a container more than podman has
  if [[ "$nproc" == unlimited ]] || ((nproc > 32768)); then nproc=32768; fi
  printf '# scripts/podman.sh: no CAP_SYS_RESOURCE here, so the rlimits stay within the hard limits\n[containers]\ndefault_ulimits = ["nofile=%s:%s", "nproc=%s:%s"]\n' \
    "$nofile" "$nofile" "$nproc" "$nproc" >"$conf"
  chmod 644 "$conf"
  env=(CONTAINERS_CONF="$conf")
  echo "podman.sh: no CAP_SYS_RESOURCE: default_ulimits lowered to the hard limits ($conf)"
fi
echo "starting podman system service${user:+ (rootless, as $user)} on unix://$socket (log: $log_file)"
echo "--- $(date -u +%Y-%m-%dT%H:%M:%SZ) podman.sh: ${as_user[*]} ${env[*]} $podman_bin system service --time=0 unix://$socket" >>"$log_file"
# From a directory of its own: the service and its conmon monitors inherit it, and conmon 2.1
# writes a file named `oom` into it when a container's memory cgroup kills (seen with 4.3.1), and a
# rootless service could not enter the caller's directory anyway.
if [[ -n "$user" ]]; then cd "$runtime_dir"; else cd "$(dirname "$state")"; fi
setsid nohup "${as_user[@]}" env "${env[@]}" "$podman_bin" system service --time=0 "unix://$socket" >>"$log_file" 2>&1 </dev/null &
pid=$!
echo "$pid" >"$pid_file"

deadline=$((SECONDS + wait_seconds))
while ((SECONDS < deadline)); do
  if answers; then
    echo "podman service answering at unix://$socket (pid $pid)"
    exit 0
  fi
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "podman.sh: the service (pid $pid) exited before answering; last lines of $log_file:" >&2
    tail -n 20 "$log_file" >&2 || true
    rm -f "$pid_file"
    exit 1
  fi
  sleep 0.2
done
echo "podman.sh: no answer at unix://$socket after ${wait_seconds}s (pid $pid still running); last lines of $log_file:" >&2
tail -n 20 "$log_file" >&2 || true
exit 1
