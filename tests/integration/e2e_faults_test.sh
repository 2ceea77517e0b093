#!/usr/bin/env bash
# Faults around a run, made real: a results directory that cannot be written (a read-only
# tmpfs), a disk that fills up mid-run (a small tmpfs), and a Docker engine that stops in the
# middle of a container condition (a second engine of our own, stopped and restarted). Each is
# one clear error line, exit 1, nothing left running, the samples measured so far kept, and no
# partial result file. Needs root (mount, a second dockerd).
source "$(dirname "$0")/lib.sh"
if [[ $(id -u) -ne 0 ]]; then
  [[ "${CI:-}" == true ]] && fail "the fault tests need root (CI runs as root)"
  echo "fault e2e skipped: needs root"; exit 77
fi
BURN="$(realpath "${BURN:?set BURN to the nf-burn test program}")"
cd "$WORK"
mounts=()
engine_pid=""
cleanup_faults() {
  if [[ -n "$engine_pid" ]] && kill -TERM "$engine_pid" 2>/dev/null; then
    for _ in $(seq 300); do kill -0 "$engine_pid" 2>/dev/null || break; sleep 0.1; done
  fi
  for m in "${mounts[@]}"; do umount -l "$m" 2>/dev/null || true; done
  cleanup_work
}
trap cleanup_faults EXIT
tmpfs() {  # tmpfs DIR OPTIONS
  mkdir -p "$1"
  mount -t tmpfs -o "$2" tmpfs "$1" || fail "cannot mount a tmpfs on $1"
  mounts+=("$1")
}

cat >burn.yaml <<YAML
name: burn
benchmark:
  command: [$BURN, "0.001"]
  format: command
  samples: 400
settle: 0s
conditions:
  - name: idle
  - name: noisy
    spinners: {count: 1}
noise_profile: 0s
YAML

# --- the results directory cannot be written ---
tmpfs "$WORK/ro" ro,size=1m
set +e; "$NF" run -q burn.yaml --results "$WORK/ro" >out.txt 2>err.txt; code=$?; set -e
# checked before anything is built or run: a usage error (2)
[[ $code -eq 2 ]] || { cat err.txt >&2; fail "read-only results: exit $code, expected 2"; }
[[ $(wc -l <err.txt) -eq 1 ]] || { cat err.txt >&2; fail "read-only results: expected one error line"; }
contains err.txt "--results $WORK/ro: cannot create directories in $WORK/ro (Read-only file system): give a writable directory"

# --- the disk fills up mid-run ---
# 64 KiB: the experiment, the fingerprint and the first samples fit, then samples.jsonl cannot grow.
tmpfs "$WORK/full" size=64k
set +e; "$NF" run -q burn.yaml --results "$WORK/full" >out.txt 2>err.txt & pid=$!
wait "$pid"; code=$?; set -e
[[ $code -eq 1 ]] || { cat err.txt >&2; fail "full disk: exit $code, expected 1"; }
contains err.txt "No space left on device"
grep -q "sample(s) measured so far are kept in $WORK/full/burn/" err.txt ||
  { cat err.txt >&2; fail "full disk: the error does not say where the samples are kept"; }
run_dir=$(ls -d "$WORK"/full/burn/2*/)
lines=$(grep -c '}$' "$run_dir/samples.jsonl" || true)
(( lines >= 10 )) || fail "full disk: only $lines samples kept (the disk filled before the run?)"
# The sample that did not fit is cut off again (no torn line), and the count said is the count kept.
[[ $(wc -l <"$run_dir/samples.jsonl") -eq $lines && -z "$(tail -c 1 "$run_dir/samples.jsonl")" ]] ||
  fail "full disk: samples.jsonl ends with a torn line"
contains err.txt "the $lines sample(s) measured so far are kept"
for f in summary.json table.md cv-summary.txt; do
  [[ ! -e "$run_dir/$f" ]] || [[ -s "$run_dir/$f" ]] || fail "full disk: an empty $f"
  if [[ -e "$run_dir/$f" ]]; then python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$run_dir/summary.json" ||
    fail "full disk: a partial summary.json"; fi
done
ls -a "$run_dir" | grep -q '\.tmp' && fail "full disk: a temporary file was left in $run_dir"
[[ -z "$(spinners_of "$pid")" ]] || fail "full disk: a spinner was left running"
# The samples that were written still read back (the full disk still mounted: reading needs no room).
"$NF" cv --format json "$run_dir" >cv.json 2>cv.err || { cat cv.err >&2; fail "full disk: cv cannot read the samples"; }

# --- the Docker engine stops mid-run ---
sock="$WORK/engine.sock"
export DOCKER_HOST="unix://$sock"
NF_DOCKERD_LOG="$WORK/dockerd.log" NF_DOCKERD_DATA_ROOT=/var/lib/noisefloor-dockerd/faults \
  NF_DOCKERD_EXEC_ROOT=/run/nf-dockerd/faults bash "$REPO/scripts/dockerd.sh" >/dev/null ||
  { tail -20 "$WORK/dockerd.log" >&2; fail "cannot start a second engine"; }
engine_pid=$(cat /run/nf-dockerd/faults.pid)
cat >engine.yaml <<YAML
name: engine
benchmark:
  command: [$BURN, "0.2"]
  format: command
  samples: 200
settle: 0s
conditions:
  - name: pinned
    spinners: {count: 1}
    container: {cpuset: "0", cpus: 1}
noise_profile: 0s
YAML
"$NF" run -q engine.yaml --results "$WORK/results" >out.txt 2>err.txt &
pid=$!
run_dir=""
for _ in $(seq 600); do run_dir=$(ls -d "$WORK"/results/engine/2*/ 2>/dev/null | head -1 || true); [[ -n "$run_dir" ]] && break; sleep 0.1; done
wait_lines "$run_dir/samples.jsonl" 2
kill -TERM "$engine_pid"
stopped=$(date +%s)
set +e; wait "$pid"; code=$?; set -e
took=$(( $(date +%s) - stopped ))
[[ $code -eq 1 ]] || { cat err.txt >&2; fail "engine stopped: exit $code, expected 1"; }
(( took <= 10 )) || fail "engine stopped: noisefloor took $took s to give up (at most 10 s)"
head -1 err.txt | grep -q "^noisefloor: .*$sock" || { cat err.txt >&2; fail "engine stopped: the error does not name the engine"; }
echo "engine stopped after $took s: $(head -1 err.txt)"
[[ -z "$(spinners_of "$pid")" ]] || fail "engine stopped: a spinner was left running"
(( $(grep -c '}$' "$run_dir/samples.jsonl") >= 2 )) || fail "engine stopped: samples lost"
contains "$run_dir/run.json" '"status": "failed"'
for _ in $(seq 300); do kill -0 "$engine_pid" 2>/dev/null || break; sleep 0.1; done  # not our child
kill -0 "$engine_pid" 2>/dev/null && fail "the second engine did not stop"
engine_pid=""
# Restarted, the engine may still list the run's container: gc removes it.
NF_DOCKERD_LOG="$WORK/dockerd.log" NF_DOCKERD_DATA_ROOT=/var/lib/noisefloor-dockerd/faults \
  NF_DOCKERD_EXEC_ROOT=/run/nf-dockerd/faults bash "$REPO/scripts/dockerd.sh" >/dev/null ||
  fail "cannot restart the second engine"
engine_pid=$(cat /run/nf-dockerd/faults.pid)
"$NF" gc >gc.txt 2>&1 || { cat gc.txt >&2; fail "gc failed after the engine restarted"; }
"$NF" gc >gc2.txt 2>&1
contains gc2.txt 'nothing to remove'
echo "e2e faults: ok"
