#!/usr/bin/env bash
# The pinned-container condition end to end, against the real engine: the three-row table with
# verified limits, image reuse, static and dynamic auto images, OOM, timeout, SIGINT, gc.
source "$(dirname "$0")/lib.sh"
SOCK="${DOCKER_HOST:-unix:///var/run/docker.sock}"; SOCK="${SOCK#unix://}"
if ! curl -sf --unix-socket "$SOCK" http://localhost/_ping >/dev/null; then
  [[ "${CI:-}" == true ]] && fail "no Docker engine answers at $SOCK (CI=true: this is a failure)"
  echo "docker e2e skipped: no engine at $SOCK"; exit 77
fi
# Containers carrying label $1 (e.g. noisefloor.run=<id>), all states.
containers_labelled() {
  curl -s --unix-socket "$SOCK" -G http://localhost/containers/json --data-urlencode all=1 \
    --data-urlencode "filters={\"label\":[\"$1\"]}" | grep -o '"Id":"[0-9a-f]*"' || true
}
cd "$WORK"
(cd "$REPO/tests/integration/hog" && CGO_ENABLED=0 go build -o "$WORK/hog" .)

# --- the demo's three conditions, short ---
write_experiment trust.yaml trust 3 2000x "  - name: idle
  - name: noisy
    spinners: all
  - name: pinned
    spinners: all
    container: {cpuset: \"0\", cpus: 1, memory: 512m}" "settle: 0.1s
noise_profile: 0.2s"
"$NF" run trust.yaml --results "$WORK/results" >out.txt 2>err.txt || { cat err.txt >&2; fail "trust run failed"; }
dir="$WORK/results/trust/latest"
for c in idle noisy pinned; do contains out.txt "| $c "; done
contains "$dir/run.json" '"mismatches": []'
contains "$dir/run.json" '"cpuset": "0"'
contains "$dir/run.json" '"cfs_quota_us": 100000'
contains "$dir/run.json" '"memory_limit": 536870912'
contains "$dir/run.json" '"nproc": 1'
contains "$dir/fingerprint.json" '"server_version"'
contains "$dir/fingerprint.json" '"cgroup_version"'
contains "$dir/pinned.txt" 'container-cpuset: 0'
grep -q '^BenchmarkMakeBuffer_Correct	' "$dir/pinned.txt" || fail "pinned: GOMAXPROCS should be 1 (no -N suffix)"
[[ -z "$(containers_labelled noisefloor.run)" ]] || fail "a container was left behind"
# the second run reuses the image built from the unchanged binary
"$NF" run trust.yaml --results "$WORK/results" >/dev/null 2>err2.txt || { cat err2.txt >&2; fail "second run"; }
contains err2.txt '(reused, unchanged binary; '

# --- auto image from a dynamic executable (/bin/true: loader + libc) ---
cat >dyn.yaml <<YAML
name: dyn
benchmark: {command: [/bin/true], format: command, samples: 2}
settle: 0s
noise_profile: 0s
conditions:
  - name: boxed
    container: {cpuset: "0", memory: 64m}
YAML
"$NF" run dyn.yaml --results "$WORK/results" >out3.txt 2>err3.txt || { cat err3.txt >&2; fail "dynamic auto image"; }
if grep -q 'reused, unchanged binary' err3.txt; then
  # An earlier run on this engine built it: remove it and build it again.
  tag=$(grep -o 'noisefloor-auto:[0-9a-f]*' err3.txt | head -1)
  curl -sf -X DELETE --unix-socket "$SOCK" "http://localhost/images/$tag?force=1" >/dev/null || fail "cannot remove $tag"
  "$NF" run dyn.yaml --results "$WORK/results" >out3.txt 2>err3.txt || { cat err3.txt >&2; fail "dynamic auto image"; }
fi
contains err3.txt 'dynamic executable with its libraries'
contains out3.txt '| boxed '

# --- a tag that names another image is not trusted: the image is loaded again ---
dyn_tag=$(grep -o 'noisefloor-auto:[0-9a-f]*' err3.txt | head -1)
trust_tag=$(grep -o 'noisefloor-auto:[0-9a-f]*' err2.txt | head -1)
curl -sf -X POST --unix-socket "$SOCK" "http://localhost/images/$trust_tag/tag?repo=noisefloor-auto&tag=${dyn_tag#noisefloor-auto:}" ||
  fail "cannot retag $trust_tag as $dyn_tag"
"$NF" run dyn.yaml --results "$WORK/results" >out3b.txt 2>err3b.txt || { cat err3b.txt >&2; fail "run after a retag"; }
contains err3b.txt "image: $dyn_tag (built offline again: the tag named another image"
contains out3b.txt '| boxed '

# --- image: auto needs nothing next to the binary: a lone copy of noisefloor, run from elsewhere ---
mkdir -p "$WORK/lone" "$WORK/elsewhere"
cp "$NF" "$WORK/lone/noisefloor"
(cd "$WORK/elsewhere" && "$WORK/lone/noisefloor" run "$WORK/dyn.yaml" --results "$WORK/results-lone" >lone.txt 2>lone.err) ||
  { cat "$WORK/elsewhere/lone.err" >&2; fail "image: auto from a copied binary"; }
contains "$WORK/elsewhere/lone.err" 'image: noisefloor-auto:'
contains "$WORK/elsewhere/lone.txt" '| boxed '

# --- OOM: 256 MiB touched under a 16 MiB limit ---
cat >oom.yaml <<YAML
name: oom
benchmark: {command: [$WORK/hog, alloc], format: command, samples: 2, timeout: 60s}
conditions:
  - name: tiny
    container: {memory: 16m}
noise_profile: 0s
YAML
set +e; "$NF" run oom.yaml --results "$WORK/results" >/dev/null 2>err4.txt; code=$?; set -e
[[ $code -eq 1 ]] || { cat err4.txt; fail "OOM: exit code $code, expected 1"; }
contains err4.txt "condition 'tiny': the benchmark was OOM-killed"
[[ -z "$(containers_labelled noisefloor.run)" ]] || fail "OOM: container left behind"

# --- timeout: the container is killed and removed ---
cat >hang.yaml <<YAML
name: hang
benchmark: {command: [$WORK/hog, sleep], format: command, samples: 2, timeout: 2s}
conditions:
  - name: stuck
    container: {cpuset: "0"}
noise_profile: 0s
YAML
set +e; "$NF" run hang.yaml --results "$WORK/results" >/dev/null 2>err5.txt; code=$?; set -e
[[ $code -eq 1 ]] || { cat err5.txt; fail "timeout: exit code $code, expected 1"; }
contains err5.txt "condition 'stuck', run 1 of 2: the benchmark timed out"
[[ -z "$(containers_labelled noisefloor.run)" ]] || fail "timeout: container left behind"

# --- SIGINT during a container condition: no container, no spinner ---
cat >int.yaml <<YAML
name: int
benchmark: {command: [$WORK/hog, sleep], format: command, samples: 2, timeout: 60s}
conditions:
  - name: boxed
    spinners: 1
    container: {cpuset: "0"}
noise_profile: 0s
YAML
"$NF" run int.yaml --results "$WORK/results" >/dev/null 2>err6.txt &
pid=$!
for _ in $(seq 300); do [[ -n "$(containers_labelled noisefloor.run)" ]] && break; sleep 0.1; done
[[ -n "$(containers_labelled noisefloor.run)" ]] || { cat err6.txt; fail "no container started"; }
[[ -n "$(spinners_of $pid)" ]] || fail "no spinner during the container condition"
kill -INT "$pid"
set +e; wait "$pid"; code=$?; set -e
[[ $code -eq 130 ]] || { cat err6.txt; fail "SIGINT: exit code $code, expected 130"; }
[[ -z "$(containers_labelled noisefloor.run)" ]] || fail "SIGINT: container left behind"
[[ -z "$(spinners_of $pid)" ]] || fail "SIGINT: spinner left behind"

# --- SIGKILL of noisefloor: the benchmark stops at once (the probe sees the held stdin close) and
#     the stopped container remains; gc removes it and says so ---
"$NF" run int.yaml --results "$WORK/results" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 300); do [[ -n "$(containers_labelled noisefloor.run)" ]] && break; sleep 0.1; done
sleep 0.5
kill -KILL "$pid"; wait "$pid" 2>/dev/null || true
running() {  # containers of runs still running
  curl -s --unix-socket "$SOCK" -G http://localhost/containers/json \
    --data-urlencode 'filters={"label":["noisefloor.run"],"status":["running"]}' | grep -o '"Id":"[0-9a-f]*"' || true
}
# Within 30 s, half the benchmark's own 60 s timeout: a container that only stopped at its timeout
# fails. It stops in under a second here; once in CI at 670663b it was still running after 10 s, so
# a slow stop is reported (with the container's state) for the next look, not failed. None running
# for 2 s on end: a start the engine was still carrying out when noisefloor died runs after a
# first look found none running (beside a busy loop per CPU at 489f78a), and then stops too.
killed_at=$(date +%s.%N)
quiet=0
for _ in $(seq 320); do
  if [[ -z "$(running)" ]]; then
    quiet=$((quiet + 1))
    [[ $quiet -ge 20 ]] && break
  else
    quiet=0
  fi
  sleep 0.1
done
stopped_after=$(python3 -c "import sys,time; print(f'{time.time() - float(sys.argv[1]) - 2:.1f}')" "$killed_at")
if [[ -n "$(running)" ]] || awk -v s="$stopped_after" 'BEGIN { exit !(s > 10) }'; then
  echo "the SIGKILLed run's container: $stopped_after s to stop; its state:"
  for id in $(containers_labelled noisefloor.run); do
    curl -s --unix-socket "$SOCK" "http://localhost/containers/$id/json" | python3 -c '
import json, sys
c = json.load(sys.stdin)
print("  ", c["Id"][:12], c["State"], c["Config"].get("OpenStdin"), c["Config"].get("StdinOnce"))'
  done
  ps -eo pid,ppid,stat,etime,args | grep -E "noisefloor|nf-probe|hog" | grep -v grep || true
fi
[[ $quiet -ge 20 && -z "$(running)" ]] || fail "the SIGKILLed run's container is still running (burning a CPU) after 30 s"
[[ -n "$(containers_labelled noisefloor.run)" ]] || fail "expected the SIGKILLed run's stopped container to remain"
"$NF" gc >gc.txt
contains gc.txt 'removed 1 container(s) left by earlier runs'
[[ -z "$(containers_labelled noisefloor.run)" ]] || fail "gc left a container"
"$NF" gc >gc2.txt
contains gc2.txt 'nothing to remove'

# --- machine-facts containers (a remote run reads the machine with one before it has a run id; a
#     `doctor --host` reads it with one and takes no lease): gc removes a dead owner's and a stopped
#     one of no owner (a killed doctor's), and leaves a running one of no owner (a doctor reading
#     the machine now) ---
tools=$(curl -s --unix-socket "$SOCK" -G http://localhost/images/json \
  --data-urlencode 'filters={"label":["noisefloor.image=tools"]}' |
  python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["RepoTags"][0])') || fail "no tools image after the runs"
facts_container() {  # NAME OWNER ("": none) START (1: start it); prints its id
  local labels='"noisefloor.role":"facts"' id
  [[ -z "$2" ]] || labels+=",\"noisefloor.owner\":\"$2\""
  id=$(curl -s --unix-socket "$SOCK" -H 'Content-Type: application/json' -X POST \
    "http://localhost/containers/create?name=$1" -d "{\"Image\":\"$tools\",\"Cmd\":[\"/noisefloor/probe\",\"--hold\"],
      \"OpenStdin\":true,\"Labels\":{$labels},\"HostConfig\":{\"NetworkMode\":\"none\"}}" |
    python3 -c 'import json,sys; r = json.load(sys.stdin); print(r["Id"]) if "Id" in r else sys.exit(f"create: {r}")') ||
    return 1
  [[ "$3" != 1 ]] || curl -sf -o /dev/null --unix-socket "$SOCK" -X POST "http://localhost/containers/$id/start" ||
    return 1
  echo "$id"
}
remove_facts() { for n in dead killed reading; do
  curl -s -o /dev/null --unix-socket "$SOCK" -X DELETE "http://localhost/containers/nf-facts-gc-$n?force=1"; done; }
trap 'remove_facts; cleanup_work' EXIT
dead=$(facts_container nf-facts-gc-dead "nobody pid 1" 1) || fail "cannot make a facts container of a dead owner"
killed=$(facts_container nf-facts-gc-killed "" 0) || fail "cannot make a stopped facts container"
reading=$(facts_container nf-facts-gc-reading "" 1) || fail "cannot make a running facts container"
"$NF" gc >gc-facts.txt
contains gc-facts.txt "removed ${dead:0:12} nf-facts-gc-dead"
contains gc-facts.txt "removed ${killed:0:12} nf-facts-gc-killed"
contains gc-facts.txt "left 1 machine-facts container(s) still running"
curl -sf -o /dev/null --unix-socket "$SOCK" "http://localhost/containers/$reading/json" ||
  fail "gc removed the running facts container of no owner (a doctor reading the machine now)"
remove_facts
trap cleanup_work EXIT

# --- gc while a run is in its container condition: the living run's container is left, the run
#     completes; an orphan beside it (a container of a run that holds no lease) is removed ---
# One invocation of about 4 s (two samples of 2 s in one container): gc runs while it lives.
write_experiment live.yaml live 2 2s "  - name: boxed
    container: {cpuset: \"0\"}"
"$NF" run live.yaml --results "$WORK/results" >live.out 2>live.err &
pid=$!
for _ in $(seq 300); do [[ -n "$(containers_labelled noisefloor.run)" ]] && break; sleep 0.1; done
[[ -n "$(containers_labelled noisefloor.run)" ]] || { cat live.err; fail "no container of the live run"; }
orphan=$(curl -s --unix-socket "$SOCK" -H 'Content-Type: application/json' -X POST \
  "http://localhost/containers/create?name=nf-orphan-gc-test" \
  -d "{\"Image\":\"$(curl -s --unix-socket "$SOCK" http://localhost/containers/noisefloor-lease/json | python3 -c 'import json,sys; print(json.load(sys.stdin)["Config"]["Image"])')\",\"Labels\":{\"noisefloor.run\":\"gone\",\"noisefloor.owner\":\"nobody pid 1\"}}" |
  python3 -c 'import json,sys; r = json.load(sys.stdin); print(r["Id"]) if "Id" in r else sys.exit(f"create: {r}")') ||
  fail "could not create the orphan container beside the live run"
"$NF" gc >gc-live.txt
contains gc-live.txt "removed ${orphan:0:12} nf-orphan-gc-test"
contains gc-live.txt "container(s) of the run that holds the engine's lease (live, "
set +e; wait "$pid"; code=$?; set -e
[[ $code -eq 0 ]] || { cat live.err; fail "the run gc ran beside failed (exit $code)"; }
[[ -z "$(containers_labelled noisefloor.run)" ]] || fail "gc beside a live run: a container was left behind"

# --- a command found on PATH that reads an input file, in a pinned container: the file is put into
#     the auto image (benchmark.inputs); validate checks what run would refuse; the figures agree
#     with the same command pinned on the host ---
python3 -c "
import random; r = random.Random(1)
open('words.txt', 'w').write(''.join(''.join(r.choice('abcdefghij') for _ in range(8)) + '\n' for _ in range(100000)))"
cat >sort.yaml <<YAML
name: sortin
benchmark: {command: [sort, -o, /dev/null, words.txt], format: command, inputs: [words.txt], samples: 8, env: {LC_ALL: C}}
settle: 0s
schedule: interleaved
conditions:
  - name: host
    affinity: "0"
  - name: pinned
    container: {cpuset: "0"}
noise_profile: 0s
YAML
"$NF" validate sort.yaml >val.txt 2>&1 || { cat val.txt; fail "validate of the sort experiment"; }
sed 's/inputs: \[words.txt\]/inputs: [nowords.txt]/' sort.yaml >sort-bad.yaml
set +e; "$NF" validate sort-bad.yaml >val-bad.txt 2>&1; code=$?; set -e
[[ $code -eq 2 ]] || fail "validate of a missing input: exit $code"
contains val-bad.txt 'sort-bad.yaml:2:'
contains val-bad.txt '"nowords.txt"'
"$NF" run sort.yaml --results "$WORK/results" >sort.out 2>sort.err || { cat sort.err; fail "sort in a pinned container"; }
python3 - "$WORK/results/sortin/latest/samples.jsonl" <<'PY' || fail "sort in the container against sort pinned on the host"
import json, statistics, sys
# Both sides measured the same way in the same run (the probe's accounting of the command, on CPU
# 0), judged on known truths: the same work, so about the same CPU time; one CPU, so no sample's
# wall time is below its CPU time; and the container adds no wall time beyond the command's CPU
# time that the host does not. That last is judged on the container's least wall/CPU over its
# samples, the sample the room disturbed least (a cost the container adds is in every sample, the
# room's is not), against the host's median: in a quiet room both are about 1; where a busy loop
# shares CPU 0 the whole run no sample is undisturbed and the host's leave room for what the room
# does (at 37e8f38, four rounds so: least 1.61, 1.38, 1.75 in the container against least 1.64,
# 1.65, 1.18 on the host). (Medians against medians failed on the room at 62f45af: CI's gave the
# host's 1.43 times the container's wall/CPU.) The sides alternate (interleaved), so a
# room that moves during the run moves both: at 10e3014, one side after the other, CI's CPU ratio
# was 0.707.
side = {}
for line in open(sys.argv[1]):
    s = json.loads(line)
    if not s["warmup"]:
        m = {x["unit"]: x["value"] for x in s["metrics"]}
        side.setdefault(s["condition"], []).append((m["sec/op"], m["cpu-sec/op"]))
assert sorted(side) == ["host", "pinned"] and all(len(v) == 8 for v in side.values()), side
for name, pairs in side.items():
    for wall, cpu in pairs:
        assert wall >= cpu - 0.002, f"{name}: a sample's wall time {wall} is below its CPU time {cpu}"
cpu = {k: statistics.median(c for _, c in v) for k, v in side.items()}
least = {k: min(w / c for w, c in v) for k, v in side.items()}
typical = {k: statistics.median(w / c for w, c in v) for k, v in side.items()}
print(f"sort: pinned container / pinned on the host = {cpu['pinned'] / cpu['host']:.3f} in CPU time; "
      f"wall/CPU least {least['pinned']:.3f} and median {typical['pinned']:.3f} in the container, "
      f"least {least['host']:.3f} and median {typical['host']:.3f} on the host")
assert 0.75 < cpu["pinned"] / cpu["host"] < 1.33, cpu
assert least["pinned"] < typical["host"] * 1.25, (least, typical)
PY

# --- a squatter: a container named noisefloor-lease that noisefloor did not create is named in one
#     line, never waited for (even with --wait) and never removed ---
tools_image=$(curl -s --unix-socket "$SOCK" http://localhost/images/json |
  python3 -c 'import json,sys; print(next(t for i in json.load(sys.stdin) for t in (i.get("RepoTags") or []) if t.startswith("noisefloor-tools:")))')
squat=$(curl -s --unix-socket "$SOCK" -H 'Content-Type: application/json' -X POST \
  "http://localhost/containers/create?name=noisefloor-lease" -d "{\"Image\":\"$tools_image\",\"Cmd\":[\"/noisefloor/probe\",\"--hold\"]}" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["Id"])')
for wait_flag in "" "--wait=5s"; do
  set +e; timeout 60 "$NF" run live.yaml $wait_flag --results "$WORK/squat" >/dev/null 2>squat.err; code=$?; set -e
  [[ $code -eq 1 ]] || { cat squat.err; fail "a squatter lease ($wait_flag): exit $code, expected 1"; }
  contains squat.err "has a container named 'noisefloor-lease' that noisefloor did not create (no noisefloor.lease label"
  curl -sf --unix-socket "$SOCK" "http://localhost/containers/$squat/json" >/dev/null || fail "the squatter was removed ($wait_flag)"
done
"$NF" gc >gc-squat.txt
curl -sf --unix-socket "$SOCK" "http://localhost/containers/$squat/json" >/dev/null || fail "gc removed the squatter"
curl -sf -X DELETE --unix-socket "$SOCK" "http://localhost/containers/$squat?force=1" >/dev/null

# --- an image name that is no reference never reaches the engine's API: a config error ---
write_experiment badimage.yaml badimage 2 0.01s "  - name: boxed
    container: {image: \"../../info?x=\"}"
set +e; "$NF" validate badimage.yaml >/dev/null 2>badimage.err; code=$?; set -e
[[ $code -eq 2 ]] || { cat badimage.err; fail "an image name with ..: exit $code, expected 2"; }
contains badimage.err 'is not an image reference'

# --- an unreachable engine is one clear line ---
set +e; DOCKER_HOST=unix:///nonexistent.sock "$NF" run trust.yaml --results "$WORK/r9" >/dev/null 2>err7.txt; code=$?; set -e
[[ $code -eq 1 ]] || fail "unreachable engine: exit code $code"
contains err7.txt 'cannot reach the Docker engine at unix:///nonexistent.sock'
check "nothing written without an engine" test ! -e "$WORK/r9"
echo "e2e docker: ok"
