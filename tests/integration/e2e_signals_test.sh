#!/usr/bin/env bash
# SIGINT during a spinner condition: exit 130, no spinner left, samples already written kept.
# SIGKILL of noisefloor: spinners and the benchmark die with it (PR_SET_PDEATHSIG).
source "$(dirname "$0")/lib.sh"
cd "$WORK"
write_experiment sig.yaml sig 50 3000000x "  - name: noisy
    spinners: {count: 2}"

# --- SIGINT ---
"$NF" run sig.yaml --results "$WORK/results" >out.txt 2>err.txt &
pid=$!
run_dir=""
for _ in $(seq 600); do run_dir=$(ls -d "$WORK"/results/sig/2* 2>/dev/null | head -1 || true); [[ -n "$run_dir" ]] && break; sleep 0.1; done
[[ -n "$run_dir" ]] || fail "no run directory appeared"
wait_lines "$run_dir/samples.jsonl" 2
[[ -n "$(spinners_of $pid)" ]] || fail "no spinner running during the noisy condition"
kill -INT "$pid"
set +e; wait "$pid"; code=$?; set -e
[[ $code -eq 130 ]] || { cat err.txt; fail "exit code $code after SIGINT, expected 130"; }
sleep 0.2
[[ -z "$(spinners_of $pid)" ]] || fail "spinners survived SIGINT"
pgrep -f "$WORK/makebuffer.test" >/dev/null && fail "the benchmark survived SIGINT"
(( $(wc -l <"$run_dir/samples.jsonl") >= 2 )) || fail "samples lost"
contains "$run_dir/run.json" '"status": "interrupted"'
check "summary written" test -s "$run_dir/summary.json"
check "latest not moved to an interrupted run" test ! -e "$WORK/results/sig/latest"
# One error line, printed once, that says where the samples are kept.
[[ $(grep -c '^noisefloor: ' err.txt) -eq 1 ]] || { cat err.txt >&2; fail "the interruption should be reported once"; }
grep -q "^noisefloor: interrupted — the [0-9]* sample(s) measured so far are kept in $WORK/results/sig/2" err.txt ||
  { cat err.txt >&2; fail "the interruption does not say where the samples are kept"; }

# --- Ctrl-C on a terminal: SIGINT to the whole foreground process group ---
setsid "$NF" run sig.yaml --results "$WORK/results3" >out3.txt 2>err3.txt &
pid=$!
run_dir=""
for _ in $(seq 600); do run_dir=$(ls -d "$WORK"/results3/sig/2* 2>/dev/null | head -1 || true); [[ -n "$run_dir" ]] && break; sleep 0.1; done
wait_lines "$run_dir/samples.jsonl" 1
kill -INT -- "-$pid"
set +e; wait "$pid"; code=$?; set -e
[[ $code -eq 130 ]] || { cat err3.txt; fail "group SIGINT: exit code $code, expected 130"; }
contains "$run_dir/run.json" '"status": "interrupted"'
[[ -z "$(spinners_of $pid)" ]] || fail "spinners survived a group SIGINT"

# --- SIGKILL ---
"$NF" run sig.yaml --results "$WORK/results2" >/dev/null 2>&1 &
pid=$!
run_dir=""
for _ in $(seq 600); do run_dir=$(ls -d "$WORK"/results2/sig/2* 2>/dev/null | head -1 || true); [[ -n "$run_dir" ]] && break; sleep 0.1; done
wait_lines "$run_dir/samples.jsonl" 1
spin=$(spinners_of $pid)
[[ -n "$spin" ]] || fail "no spinner before SIGKILL"
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
for _ in $(seq 50); do
  alive=0
  for s in $spin; do kill -0 "$s" 2>/dev/null && alive=1; done
  (( alive == 0 )) && break
  sleep 0.1
done
(( alive == 0 )) || fail "spinners $spin survived SIGKILL of noisefloor"
pgrep -f "$WORK/makebuffer.test" >/dev/null && fail "the benchmark survived SIGKILL of noisefloor"
(( $(wc -l <"$run_dir/samples.jsonl") >= 1 )) || fail "samples lost after SIGKILL"
echo "e2e signals: ok"
