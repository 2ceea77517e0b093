#!/usr/bin/env bash
# The A/B gate on another machine's engine (README: Is my change faster?, In CI): a second Docker
# engine behind TLS on 127.0.0.1, named by a Docker context, stands for the quiet benchmark box;
# the same engine is then reached through an sshd on 127.0.0.1 (ssh://), as the README's workflow does.
# Both sides are built here (scripts/gate-repo.sh: B makes BenchmarkSlowed 1.5x the work of A, C
# changes a comment) and every invocation runs as a container on that engine, each side in an
# image of its own. Known effects only (1.5x by construction): no duration is asserted.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fleet_lib.sh"
SOCK="${DOCKER_HOST:-unix:///var/run/docker.sock}"; SOCK="${SOCK#unix://}"
if ! curl -sf --unix-socket "$SOCK" http://localhost/_ping >/dev/null; then
  [[ "${CI:-}" == true ]] && fail "no Docker engine answers at $SOCK (CI=true: this is a failure)"
  echo "gate host e2e skipped: no engine at $SOCK"; exit 77
fi
trap 'fleet_stop_all; cleanup_work' EXIT
export XDG_CACHE_HOME="$WORK/cache"
unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY
eval "$(bash "$REPO/scripts/gate-repo.sh" "$WORK/repo")"
cd "$WORK/repo"
# Fewer repeats than make perf's: a 1.5x change is resolved at the 6-quad minimum.
sed -i 's/^  max_samples: 20$/  max_samples: 10/' gate.yaml
grep -q '^  max_samples: 10$' gate.yaml || fail "gate-repo.sh's gate.yaml changed: max_samples"

fleet_start_tls_engine nfgate 23761 >/dev/null || fail "cannot start the TLS engine"
H="$WORK/home"
mkdir -p "$H"
fleet_context "$H" quietbox tcp://127.0.0.1:23761 /run/nf-fleet/nfgate.tls/ca.pem \
  /run/nf-fleet/nfgate.tls/cert.pem /run/nf-fleet/nfgate.tls/key.pem >/dev/null || fail "cannot create the context"
REMOTE=/run/nf-fleet/nfgate.sock
labelled_on() {  # labelled_on SOCKET WHAT LABEL: the ids of WHAT (containers, images) with LABEL
  curl -s --unix-socket "$1" -G "http://localhost/$2/json" --data-urlencode all=1 \
    --data-urlencode "filters={\"label\":[\"$3\"]}" | grep -o '"Id":"[^"]*"' || true
}
images_before=$(labelled_on "$SOCK" images noisefloor.image | sort)

# Every gate here runs --confirm: with two gating rows one block allows a false alarm in 4.9% of
# gates by design, and three gates of no change or an unchanged row would fail this test one run
# in ten; a second block makes it about 0.1% a gate. Beside outside work a regression called on
# no change must lie within the floors the gate measured (no_alarm in lib.sh).

# 1. B vs A on quietbox: slower, confirmed, exit 4, every sample measured in a container there.
status=0
HOME="$H" "$NF" run gate.yaml --base "$A" --head "$B" --host quietbox --threshold 5% --confirm \
  --results "$WORK/results" --comment "$WORK/c.md" >out1.txt 2>err1.txt || status=$?
# Wall times of Go benchmarks: in a room the run labels CONTENDED the gate may rightly leave the
# known 1.5x inconclusive (exit 0); the exit must be what its gate.json says, and known_ratio.called
# judges the row by its room.
[ "$status" = "$(gate_status gate)" ] || { cat out1.txt err1.txt >&2; fail "gate B vs A on quietbox: exit $status, gate.json says $(gate_status gate)"; }
contains err1.txt "gate: on quietbox (tcp://127.0.0.1:23761"
contains err1.txt "every condition runs as containers on tcp://127.0.0.1:23761"
[ "$status" != 4 ] || contains out1.txt "regression"
# the command that reproduces it keeps the machine and the threshold
contains out1.txt "reproduce: noisefloor run gate.yaml --base ${A:0:7} --head ${B:0:7} --host quietbox --threshold 5% --confirm"
cmp "$WORK/c.md" "$WORK/results/gate/latest/gate.md" || fail "--comment is not gate.md"
PYTHONPATH="$REPO/tests/integration" python3 - "$WORK/results/gate/latest" "$A" "$B" <<'PY' || fail "the gate on quietbox"
import json, sys
d, A, B = sys.argv[1:]
g = json.load(open(d + "/gate.json"))
by = {r["benchmark"].split("-")[0]: r for r in g["rows"] if r["gating"]}
slowed, steady = by["BenchmarkSlowed"], by["BenchmarkSteady"]
from known_ratio import called
called(slowed, "slower", 1.5)
lo, hi = slowed["first"]["ci"]
if "CONTENDED" not in slowed["label"] and not slowed["first"].get("floor_failed"):
    assert lo < 1.5 * 1.02 and hi > 1.5 * 0.98, slowed["first"]  # 1.5x the work, to within Go's overhead
from known_ratio import false_alarms_within_floors
assert false_alarms_within_floors({"rows": [steady]}), steady
assert g["base"]["commit"] == A and g["head"]["commit"] == B
fp = json.load(open(d + "/fingerprint.json"))
assert fp["engine"]["endpoint"] == "tcp://127.0.0.1:23761", fp["engine"]
assert fp["run"]["gate"]["base"]["commit"] == A, fp["run"]["gate"]
run = json.load(open(d + "/run.json"))
images = {}
for c in run["condition_records"]:
    for r in c["runs"]:
        assert r.get("measured_by") == "container", r
        images.setdefault(r["variant"].rstrip("'"), set()).add(r["details"]["container"]["image"])
assert len(images["base"]) == 1 and len(images["head"]) == 1 and images["base"] != images["head"], images
PY
[[ -z "$(labelled_on "$REMOTE" containers noisefloor.run)" ]] || fail "containers left on quietbox"
[[ -n "$(labelled_on "$REMOTE" images noisefloor.image)" ]] || fail "no noisefloor image on quietbox"
[[ "$(labelled_on "$SOCK" images noisefloor.image | sort)" == "$images_before" ]] ||
  fail "the gate made images on this machine's engine: it was to run on quietbox"

# 2. The host named in the file (hosts:), reached over ssh as the README's workflow does: the same
# engine's unix socket, forwarded through an sshd on 127.0.0.1. C vs A: exit 0, both builds cached,
# measured on that engine. (A Docker context's name in hosts: is e2e_fleet's; gate 1 names one.)
fleet_start_sshd 22223 >/dev/null || fail "cannot start sshd"
fleet_ssh_home "$H" >/dev/null
SSH_HOST="ssh://root@127.0.0.1:22223$REMOTE"
cp gate.yaml "$WORK/hosted.yaml"
printf 'hosts: ["%s"]\n' "$SSH_HOST" >>"$WORK/hosted.yaml"
sed -i "s|^benchmark:|benchmark:\n  workdir: $WORK/repo|" "$WORK/hosted.yaml"
status=0
HOME="$H" NF_SSH="$H/bin/ssh" "$NF" run "$WORK/hosted.yaml" --base "$A" --head "$C" --threshold 5% --confirm \
  --results "$WORK/results" >out2.txt 2>err2.txt || status=$?
no_alarm "$status" "$WORK/results/gate/latest/gate.json" || { cat out2.txt err2.txt >&2; fail "gate C vs A over ssh (hosts:): exit $status, expected 0"; }
contains err2.txt "gate: on 127.0.0.1 ($SSH_HOST, endpoint)"
contains err2.txt "build base ($(echo "$A" | cut -c1-7)): cached"
contains err2.txt "every condition runs as containers on $SSH_HOST"
[[ -z "$(labelled_on "$REMOTE" containers noisefloor.run)" ]] || fail "containers left on the engine behind ssh"

# 3. A gate runs on one machine: two hosts are refused before anything is built, exit 2.
status=0
HOME="$H" "$NF" run gate.yaml --base "$A" --head "$B" --host quietbox --host default \
  --results "$WORK/results" >bad.out 2>bad.err || status=$?
[ "$status" = 2 ] || { cat bad.out bad.err >&2; fail "a gate on two hosts: exit $status, expected 2"; }
contains bad.err "a gate runs on one machine and 2 are named (quietbox, default)"
status=0
HOME="$H" "$NF" run gate.yaml --base "$A" --host nosuchbox --results "$WORK/results" >bad.out 2>bad.err || status=$?
[ "$status" = 2 ] || { cat bad.out bad.err >&2; fail "a gate on an unknown host: exit $status, expected 2"; }
contains bad.err "nosuchbox"
echo "e2e_gate_host: ok"
