#!/usr/bin/env bash
# Nothing the benchmark starts outlives noisefloor: a benchmark that leaves a busy grandchild in
# its process group and a double-forked, setsid daemon-style grandchild (outside every group of
# the run). Checked when the benchmark exits normally, when noisefloor is interrupted (SIGINT),
# and when noisefloor itself is SIGKILLed (nothing can clean up in it then: the probe sees the
# pipe from noisefloor close and ends the tree).
source "$(dirname "$0")/lib.sh"
cd "$WORK"
marker="nf-leak-$$-$RANDOM"

# The benchmark: a shell script (argv, no shell interpretation of user strings by noisefloor).
# The marker is each grandchild's \$0, so pgrep -f finds it.
cat >leaky.sh <<SH
#!/bin/sh
# a busy grandchild in the benchmark's group
sh -c 'while :; do :; done' $marker-group &
# a daemon: double fork, new session, busy
setsid sh -c 'sh -c "while :; do :; done" "\$0" &' $marker-daemon &
sleep "\$1"
SH
chmod +x leaky.sh
leftovers() { pgrep -f -- "$marker" || true; }
wait_gone() {  # wait_gone WHAT: all marked processes gone within 5 s
  for _ in $(seq 50); do [[ -z "$(leftovers)" ]] && return 0; sleep 0.1; done
  ps -o pid,ppid,pgid,sid,args -p "$(leftovers | paste -sd,)" >&2 || true
  pkill -KILL -f -- "$marker" || true
  fail "$1: the benchmark's grandchildren survived"
}
wait_started() {  # both grandchildren are running (or the run has already ended: a failure)
  for _ in $(seq 100); do
    pgrep -f -- "$marker-group" >/dev/null && pgrep -f -- "$marker-daemon" >/dev/null && return 0
    sleep 0.1
  done
  fail "the benchmark's grandchildren did not start"
}
experiment() {  # experiment FILE SECONDS
  cat >"$1" <<YAML
name: leaks
benchmark:
  command: [$WORK/leaky.sh, "$2"]
  format: command
  samples: 2
settle: 0s
conditions:
  - name: idle
noise_profile: 0s
YAML
}

# --- the benchmark exits, leaving its grandchildren behind ---
experiment short.yaml 0.3
"$NF" run -q short.yaml --results "$WORK/results" >/dev/null 2>err.txt || { cat err.txt >&2; fail "short run failed"; }
wait_gone "after a normal exit"

# --- SIGINT while the benchmark runs ---
experiment long.yaml 60
"$NF" run -q long.yaml --results "$WORK/results" >/dev/null 2>err.txt &
pid=$!
trap 'kill -KILL $pid 2>/dev/null || true; pkill -KILL -f -- "$marker" || true; cleanup_work' EXIT
wait_started
kill -INT "$pid"
set +e; wait "$pid"; code=$?; set -e
[[ $code -eq 130 ]] || { cat err.txt >&2; fail "SIGINT: exit $code, expected 130"; }
wait_gone "SIGINT"

# --- SIGINT twice ("stop now"): out within 2 s, the tree still ends ---
"$NF" run -q long.yaml --results "$WORK/results" >/dev/null 2>err2.txt &
pid=$!
wait_started
kill -INT "$pid"; kill -INT "$pid"
start=$(date +%s%N)
set +e; wait "$pid"; code=$?; set -e
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
[[ $code -eq 130 ]] || { cat err2.txt >&2; fail "SIGINT twice: exit $code, expected 130"; }
(( elapsed_ms < 3000 )) || fail "SIGINT twice: noisefloor took $elapsed_ms ms to exit (2 s promised; 3 s allowed for scheduling)"
wait_gone "SIGINT twice"

# --- SIGKILL of noisefloor itself ---
"$NF" run -q long.yaml --results "$WORK/results" >/dev/null 2>&1 &
pid=$!
wait_started
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
wait_gone "SIGKILL of noisefloor"
echo "e2e leaks: ok"
