#!/usr/bin/env bash
# Make sure a Docker engine answers on the local unix socket; start one if none does.
#
# The engine is Debian's dockerd with settings that work in restricted Linux machines (VMs and
# containers without overlayfs, iptables or a bridge): --storage-driver=vfs --iptables=false
# --bridge=none. It is started with setsid + nohup so it outlives this script, logs to its own
# file, and the script waits (bounded) until GET /_ping answers. Idempotent: when an engine
# already answers it only says so.
#
# Socket: DOCKER_HOST=unix:///path if set, else /var/run/docker.sock.
# Environment (optional):
#   NF_DOCKERD_LOG        log file            (default /var/log/noisefloor-dockerd.log)
#   NF_DOCKERD_WAIT       seconds to wait     (default 60)
#   NF_DOCKERD_DATA_ROOT  --data-root         (default: dockerd's own for the default socket,
#                                              /var/lib/noisefloor-dockerd/<name> for another one)
#   NF_DOCKERD_EXEC_ROOT  --exec-root         (same rule, /run/nf-dockerd/<name>)
# Exit status: 0 an engine answers, 1 it could not be started, 2 bad usage.
set -euo pipefail

log_file=${NF_DOCKERD_LOG:-/var/log/noisefloor-dockerd.log}
wait_seconds=${NF_DOCKERD_WAIT:-60}

die() { echo "dockerd.sh: $1" >&2; exit "${2:-1}"; }

host=${DOCKER_HOST:-}
case "$host" in
  "" | unix://) socket=/var/run/docker.sock ;;
  unix:///*) socket=${host#unix://} ;;
  unix://*) socket=/${host#unix://} ;;  # legacy unix://path, as the harness reads it
  *) die "DOCKER_HOST '$host' is not a unix socket; this script only starts a local engine (unset DOCKER_HOST or use unix:///path)" 2 ;;
esac
[[ "$wait_seconds" =~ ^[0-9]+$ ]] || die "NF_DOCKERD_WAIT '$wait_seconds' is not a number of seconds" 2

answers() {
  [ -S "$socket" ] && curl -sf --max-time 5 --unix-socket "$socket" http://localhost/_ping >/dev/null 2>&1
}

if answers; then
  echo "docker engine already answering at unix://$socket"
  exit 0
fi

args=(--host="unix://$socket" --storage-driver=vfs --iptables=false --bridge=none)
if [ "$socket" != /var/run/docker.sock ]; then
  # a second engine needs its own state, runtime dir and pid file, or it fights the first one
  name=$(basename "$socket" .sock)
  data_root=${NF_DOCKERD_DATA_ROOT:-/var/lib/noisefloor-dockerd/$name}
  exec_root=${NF_DOCKERD_EXEC_ROOT:-/run/nf-dockerd/$name}
else
  data_root=${NF_DOCKERD_DATA_ROOT:-}
  exec_root=${NF_DOCKERD_EXEC_ROOT:-}
fi
if [ -n "$data_root" ]; then args+=(--data-root="$data_root"); fi
if [ -n "$exec_root" ]; then
  args+=(--exec-root="$exec_root" --pidfile="$exec_root.pid")
  pid_file=$exec_root.pid
else
  pid_file=/var/run/docker.pid
fi

dockerd_bin=$(command -v dockerd || true)
[ -n "$dockerd_bin" ] || { [ -x /usr/sbin/dockerd ] && dockerd_bin=/usr/sbin/dockerd; } || true
[ -n "$dockerd_bin" ] || die "no docker engine answers at unix://$socket and dockerd is not installed (apt-get install docker.io)"

command_line="setsid nohup $dockerd_bin ${args[*]} >>$log_file 2>&1 </dev/null &"
if [ "$(id -u)" -ne 0 ]; then
  echo "no docker engine answers at unix://$socket; starting one needs root:" >&2
  echo "  sudo sh -c '$command_line'" >&2
  exit 1
fi

pid=""
if [ -f "$pid_file" ] && kill -0 "$(cat "$pid_file" 2>/dev/null)" 2>/dev/null; then
  # a dockerd is there but not answering yet (still starting): wait for it, do not start another
  pid=$(cat "$pid_file")
  echo "dockerd (pid $pid) is running but not answering at unix://$socket yet; waiting up to ${wait_seconds}s"
else
  mkdir -p "$(dirname "$log_file")" "$(dirname "$socket")"
  if [ -n "$exec_root" ]; then mkdir -p "$(dirname "$exec_root")"; fi
  echo "starting dockerd on unix://$socket (log: $log_file)"
  echo "--- $(date -u +%Y-%m-%dT%H:%M:%SZ) dockerd.sh: $dockerd_bin ${args[*]}" >>"$log_file"
  setsid nohup "$dockerd_bin" "${args[@]}" >>"$log_file" 2>&1 </dev/null &
  pid=$!
fi

deadline=$((SECONDS + wait_seconds))
while ((SECONDS < deadline)); do
  if answers; then
    echo "docker engine answering at unix://$socket (dockerd pid $pid)"
    exit 0
  fi
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "dockerd.sh: dockerd (pid $pid) exited before answering; last lines of $log_file:" >&2
    tail -n 20 "$log_file" >&2 || true
    exit 1
  fi
  sleep 0.5
done
echo "dockerd.sh: no answer at unix://$socket after ${wait_seconds}s (dockerd pid $pid still running); last lines of $log_file:" >&2
tail -n 20 "$log_file" >&2 || true
exit 1
