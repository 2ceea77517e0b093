#!/usr/bin/env bash
# Podman as the engine (README: Many machines), end to end: its Docker API service beside dockerd
# (scripts/podman.sh), named by a docker context called `podman`. The demo's pinned condition with
# every limit read back from the engine and from inside; a sleep of known length under every
# container option; an OOM kill Podman does not report on cgroup v1, caught by the cgroup's own
# counter; the lease and gc; nothing left (containers, conmon monitors, the service's children)
# after a normal end, an interrupt and a kill. Then rootless Podman (CI, or NF_ROOTLESS_USER=<user>
# with subordinate ids): the limits it cannot enforce refused before anything runs, a plain
# container condition measured.
source "$(dirname "$0")/lib.sh"
if ! command -v podman >/dev/null; then
  [[ "${CI:-}" == true ]] && fail "podman is not installed (CI=true: this is a failure; scripts/bootstrap.sh installs it)"
  echo "podman e2e skipped: podman is not installed"; exit 77
fi
[[ $(id -u) -eq 0 ]] || { echo "podman e2e skipped: starting a rootful podman service needs root"; exit 77; }
cd "$WORK"
bash "$REPO/scripts/podman.sh" >podman-start.txt 2>&1 || { cat podman-start.txt; fail "scripts/podman.sh"; }
PSOCK=/run/podman/podman.sock
service=$(cat /run/nf-podman/podman.pid 2>/dev/null || pgrep -f "podman system service.*unix://$PSOCK\$" | head -1)
export DOCKER_CONFIG="$WORK/docker-config"
docker context create podman --docker "host=unix://$PSOCK" >ctx.txt 2>&1 || { cat ctx.txt; fail "docker context create"; }  # what a user types

api() { curl -s --unix-socket "$PSOCK" "$@"; }
# Every container of every run on the engine (noisefloor's carry the label noisefloor.run, the
# lease noisefloor.lease), all states.
ours() {
  api -G http://localhost/containers/json --data-urlencode all=1 |
    python3 -c 'import json,sys; print("\n".join(c["Id"][:12] + " " + c["Names"][0] for c in json.load(sys.stdin) if any(k in (c.get("Labels") or {}) for k in ("noisefloor.run", "noisefloor.lease"))))'
}
conmons() { pgrep -x conmon | sort || true; }
children() { [[ -n "$service" ]] && pgrep -P "$service" -l || true; }
conmon_before=$(conmons)
nothing_left() {  # $1: after what
  local left
  left=$(ours)
  [[ -z "$left" ]] || fail "$1: container(s) left on Podman: $left"
  for _ in $(seq 50); do [[ "$(conmons)" == "$conmon_before" ]] && break; sleep 0.1; done
  [[ "$(conmons)" == "$conmon_before" ]] || fail "$1: conmon monitor(s) left: $(comm -13 <(echo "$conmon_before") <(conmons))"
  [[ -z "$(children)" ]] || fail "$1: the service has children left: $(children)"
  [[ -z "$(spinners_of "${2:-none}")" ]] || fail "$1: spinner left"
}
[[ -z "$(ours)" ]] || fail "containers of an earlier run are on the Podman engine: $(ours)"
# sleep_median RESULT_DIR WHAT: condition boxed's `sleep 0.3`, a known length: no sample shorter,
# and the sample the room disturbed least within 60 ms of it (a cost the path adds is in every
# sample; a late wake-up in a busy room is not)
sleep_median() {
  "$NF" cv --format json "$1" >"$WORK/median.json"
  python3 - "$WORK/median.json" "$2" <<'PY' || fail "the sleep on $2"
import json, sys
rows = {(r["condition"], r["unit"]): r for r in json.load(open(sys.argv[1]))["table"]["rows"]}
row = rows[("boxed", "sec/op")]
least = min(row["values"])
print(f"sleep 0.3 on {sys.argv[2]}: median {row['summary']['median']:.4f} s, least {least:.4f} s")
assert 0.3 <= least < 0.36, row["values"]
PY
}
# A run left in the background by a failed check must not outlive the test (it holds the lease):
# SIGINT, so that it removes its containers.
stop_jobs() { local j; j=$(jobs -p); [[ -z "$j" ]] || { kill -INT $j 2>/dev/null; wait 2>/dev/null; } || true; }
trap 'stop_jobs; cleanup_work' EXIT

# --- the demo's three conditions, the pinned one on Podman, through the context ---
write_experiment trust.yaml trust 3 2000x "  - name: idle
  - name: noisy
    spinners: all
  - name: pinned
    spinners: all
    container: {cpuset: \"0\", cpus: 1, memory: 512m}"
"$NF" run trust.yaml --host podman --results "$WORK/results" >out.txt 2>err.txt || { cat err.txt >&2; fail "trust run on podman"; }
dir="$WORK/results/trust/latest/hosts/podman"
for c in idle noisy pinned; do contains out.txt "| $c "; done
contains "$dir/run.json" '"mismatches": []'
python3 - "$dir/run.json" "$dir/fingerprint.json" <<'PY' || fail "the pinned condition's limits on Podman"
import json, sys
run, fp = (json.load(open(p)) for p in sys.argv[1:3])
engine = fp["engine"]
assert engine["product"] == "Podman", engine.get("product")
assert engine["server_version"].startswith("4."), engine["server_version"]
runs = [r for c in run["condition_records"] if c["condition"] == "pinned" for r in c["runs"]]
assert runs, "no invocation of the pinned condition"
for r in runs:
    d = r["details"]
    assert d["verification"]["mismatches"] == [], d["verification"]
    for side in ("limits_engine", "limits_inside"):
        l = d[side]
        assert (l["cpuset"], l["cfs_quota_us"], l["cfs_period_us"], l["memory_limit"], l["pids_max"]) == \
            ("0", 100000, 100000, 536870912, 1024), (side, l)
    assert d["limits_inside"]["nproc"] == 1, d["limits_inside"]
    assert d["probe"]["uid"] != "unknown", d["probe"]
    assert r["measured_by"] == "container", r["measured_by"]
print("pinned on Podman: every limit read back from both sides; engine", engine["server_version"])
PY
nothing_left "the demo"

# --- a sleep of known length under every container option: its samples are 0.3 s ---
cat >sleep.yaml <<'YAML'
name: nap
benchmark: {command: [sleep, "0.3"], format: command, samples: 4}
settle: 0s
conditions:
  - name: boxed
    container: {cpuset: "1", cpus: 0.5, memory: 64m, memory_swap: 128m, pids_limit: 32, user: "1000:1000",
                read_only: true, network: none}
noise_profile: 0s
YAML
"$NF" run sleep.yaml --host podman --results "$WORK/results" >nap.out 2>nap.err || { cat nap.err >&2; fail "sleep on podman"; }
sleep_median "$WORK/results/nap/latest/hosts/podman" Podman
python3 - "$WORK/results/nap/latest/hosts/podman/run.json" <<'PY' || fail "the sleep's limits on Podman"
import json, sys
run = json.load(open(sys.argv[1]))
for r in (r for c in run["condition_records"] for r in c["runs"]):
    d = r["details"]
    assert d["verification"]["mismatches"] == [], d["verification"]
    e, i = d["limits_engine"], d["limits_inside"]
    assert (e["cpuset"], e["cfs_quota_us"], e["memory_limit"], e["memsw_limit"], e["pids_max"]) == \
        ("1", 50000, 67108864, 134217728, 32), e
    assert (i["cpuset"], i["cfs_quota_us"], i["memory_limit"], i["pids_max"]) == ("1", 50000, 67108864, 32), i
    assert d["probe"]["uid"] == "1000", d["probe"]["uid"]
PY
nothing_left "the sleep"

# --- swap Podman applies differently (-1 becomes twice the memory): the limit is read back and
#     the condition fails, naming Podman and the field ---
cat >swap.yaml <<'YAML'
name: swap
benchmark: {command: [sleep, "0.01"], format: command, samples: 2}
conditions:
  - name: boxed
    container: {memory: 64m, memory_swap: -1}
noise_profile: 0s
YAML
set +e; "$NF" run swap.yaml --host podman --results "$WORK/results" >/dev/null 2>swap.err; code=$?; set -e
[[ $code -eq 1 ]] || { cat swap.err; fail "memory_swap -1 on Podman: exit $code, expected 1"; }
contains swap.err "the Podman engine at unix://$PSOCK took them through its Docker-compatible API and applied them differently"
contains swap.err "memory_swap: asked for -1 (no limit), the engine reports 134217728"
nothing_left "the swap refusal"

# --- OOM: Podman on cgroup v1 leaves OOMKilled false; the memory cgroup's oom_kill count tells ---
(cd "$REPO/tests/integration/hog" && CGO_ENABLED=0 go build -o "$WORK/hog" .)
cat >oom.yaml <<YAML
name: oom
benchmark: {command: [$WORK/hog, alloc], format: command, samples: 2, timeout: 60s}
conditions:
  - name: tiny
    container: {memory: 16m}
noise_profile: 0s
YAML
set +e; "$NF" run oom.yaml --host "unix://$PSOCK" --results "$WORK/results" >/dev/null 2>oom.err; code=$?; set -e
[[ $code -eq 1 ]] || { cat oom.err; fail "OOM on Podman: exit $code, expected 1"; }
contains oom.err "condition 'tiny': the benchmark was OOM-killed (memory limit 16777216 bytes)"
nothing_left "the OOM kill"

# --- SIGINT during the container condition: exit 130, nothing left; SIGKILL: the probe sees its
#     held stdin close and ends the benchmark, the stopped container stays until gc ---
cat >int.yaml <<YAML
name: int
benchmark: {command: [$WORK/hog, sleep], format: command, samples: 2, timeout: 60s}
conditions:
  - name: boxed
    spinners: 1
    container: {cpuset: "0"}
noise_profile: 0s
YAML
started() { for _ in $(seq 300); do api http://localhost/containers/json | grep -q '"/nf-' && return 0; sleep 0.1; done; return 1; }
"$NF" run int.yaml --host podman --results "$WORK/results" >/dev/null 2>int.err &
pid=$!
started || { cat int.err; fail "no container started on Podman"; }
[[ -n "$(spinners_of $pid)" ]] || fail "no spinner during the container condition"
# no capabilities, no new privileges, no network: read from the kernel, for the running container
cid=$(api http://localhost/containers/json | python3 -c 'import json,sys; print(next(c["Id"] for c in json.load(sys.stdin) if c["Names"][0].startswith("/nf-")))')
cpid=$(api "http://localhost/containers/$cid/json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["State"]["Pid"])')
grep -q '^CapEff:[[:space:]]*0000000000000000$' "/proc/$cpid/status" || fail "the container has capabilities: $(grep CapEff "/proc/$cpid/status")"
grep -q '^NoNewPrivs:[[:space:]]*1$' "/proc/$cpid/status" || fail "the container may gain privileges"
[[ "$(awk 'NR > 2 {printf "%s", $1}' "/proc/$cpid/net/dev")" == "lo:" ]] ||
  fail "the container has a network: $(cat "/proc/$cpid/net/dev")"
# the engine's lease: a second run on Podman, named by DOCKER_HOST this time, is refused at once
set +e; DOCKER_HOST="unix://$PSOCK" "$NF" run sleep.yaml --results "$WORK/busy" >/dev/null 2>busy.err; code=$?; set -e
[[ $code -eq 1 ]] || { cat busy.err; fail "a second run on a leased Podman: exit $code, expected 1"; }
contains busy.err "the engine at unix://$PSOCK is in use by another noisefloor run"
kill -INT "$pid"
set +e; wait "$pid"; code=$?; set -e
[[ $code -eq 130 ]] || { cat int.err; fail "SIGINT: exit $code, expected 130"; }
nothing_left "SIGINT" "$pid"

"$NF" run int.yaml --host podman --results "$WORK/results" >/dev/null 2>kill.err &
pid=$!
started || { cat kill.err; fail "no container started on Podman (kill)"; }
sleep 0.5
kill -KILL "$pid"; wait "$pid" 2>/dev/null || true
for _ in $(seq 100); do api http://localhost/containers/json | grep -q '"/nf-' || break; sleep 0.1; done
! api http://localhost/containers/json | grep -q '"/nf-' || fail "the SIGKILLed run's container still runs on Podman after 10 s"
"$NF" gc --host podman >gc.txt 2>&1 || { cat gc.txt; fail "gc on podman"; }
contains gc.txt 'left by earlier runs'
nothing_left "SIGKILL and gc" "$pid"
echo "e2e podman (rootful): ok"

# --- rootless: the same service as a user without privileges ---
user=${NF_ROOTLESS_USER:-}
if [[ -z "$user" && "${CI:-}" == true ]]; then
  user=nf-rootless
  id "$user" >/dev/null 2>&1 || useradd --create-home --shell /usr/sbin/nologin "$user"
  grep -q "^$user:" /etc/subuid || echo "$user:200000:65536" >>/etc/subuid
  grep -q "^$user:" /etc/subgid || echo "$user:200000:65536" >>/etc/subgid
fi
if [[ -z "$user" ]]; then
  echo "e2e podman: rootless part skipped (CI=true, or NF_ROOTLESS_USER=<user with subordinate ids>)"
  exit 0
fi
stop_rootless() { NF_PODMAN_USER="$user" bash "$REPO/scripts/podman.sh" stop >/dev/null 2>&1 || true; cleanup_work; }
trap 'stop_jobs; stop_rootless' EXIT
NF_PODMAN_USER="$user" bash "$REPO/scripts/podman.sh" >rootless-start.txt 2>&1 || { cat rootless-start.txt; fail "rootless service"; }
RSOCK=/run/user/$(id -u "$user")/podman/podman.sock
docker context create podless --docker "host=unix://$RSOCK" >ctx2.txt 2>&1 || { cat ctx2.txt; fail "docker context create podless"; }
set +e; "$NF" run sleep.yaml --host podless --results "$WORK/rootless" >/dev/null 2>rl.err; code=$?; set -e
[[ $code -eq 2 ]] || { cat rl.err; fail "rootless Podman with cpuset: exit $code, expected 2"; }
contains rl.err "sleep.yaml:6:16: conditions[0].container.cpuset: the engine at unix://$RSOCK is rootless Podman"
cat >plain.yaml <<'YAML'
name: plain
benchmark: {command: [sleep, "0.3"], format: command, samples: 3}
settle: 0s
conditions:
  - name: boxed
    container: {user: "1000:1000"}
noise_profile: 0s
YAML
"$NF" run plain.yaml --host podless --results "$WORK/rootless" >rl.out 2>rl2.err || { cat rl2.err; fail "rootless plain container"; }
contains rl2.err "its containers get no pids cgroup controller: the default pids_limit (1024) is not asked for"
# the doctor grades it like any engine, and says which limits it would drop, and why
set +e; "$NF" doctor --host podless --noise-profile 0s --json >doctor.json 2>doctor.err; code=$?; set -e
[[ $code -eq 0 || $code -eq 1 ]] || { cat doctor.err; fail "doctor --host podless: exit $code"; }
python3 - doctor.json <<'PY' || fail "doctor --host podless: the engine-limits finding"
import json, sys
found = [f for f in json.load(open(sys.argv[1]))["findings"] if f["topic"] == "engine-limits"]
assert any("the Podman engine is rootless and gives its containers no cpuset, cpu, memory, pids cgroup "
           "controller (cgroup v1)" in f["message"] and f["level"] == "WARN" for f in found), found
PY
sleep_median "$WORK/rootless/plain/latest/hosts/podless" "rootless Podman"
python3 - "$WORK/rootless/plain/latest/hosts/podless/fingerprint.json" <<'PY' || fail "rootless Podman's fingerprint"
import json, sys
engine = json.load(open(sys.argv[1]))["engine"]
assert engine["product"] == "Podman" and engine["rootless"] is True, engine
PY
echo "e2e podman (rootless): ok"
