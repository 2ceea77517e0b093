#!/usr/bin/env bash
# The engine lease across machines, and a machine lost in the middle, on the engines of e2e_fleet
# (fleet_three_hosts): a run on an engine another run holds is refused and names the holder;
# --wait waits for it, and takes over a lease whose owner died (kill -9), completing; gc removes
# what the dead owner left there; an engine stopped in the middle of a run on three hosts fails
# that host only. Exit statuses, messages and what is left: what the room does changes none of it
# (e2e_fleet, which judges the spinners' shares of a CPU, measures the room; this test loads it).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fleet_lib.sh"
fleet_three_hosts "fleet lease e2e"

# --- a second run on an engine whose lease is held: refused, names the holder ------------------
sed 's/samples: 3/samples: 40/; s/^name: fleet/name: long/' fleet.yaml >long.yaml
HOME="$H" "$NF" run long.yaml --host tlsbox --results "$WORK/results" >long.out 2>long.err &
long=$!
for _ in $(seq 300); do
  tls_curl "/containers/json?all=1" | grep -q '"/noisefloor-lease"' && break
  sleep 0.1
done
tls_curl "/containers/json?all=1" | grep -q '"/noisefloor-lease"' || { cat long.err >&2; fail "no lease on tlsbox"; }
set +e
HOME="$H" "$NF" run fleet.yaml --host tlsbox --results "$WORK/results" >busy.out 2>busy.err
rc=$?
set -e
[[ $rc == 1 ]] || { cat busy.err >&2; fail "a run on a leased engine: exit $rc, want 1"; }
contains busy.err "is in use by another noisefloor run (long/"
contains busy.err "--wait"
# --wait: waits for the holder, says for whom; the owner then dies without a word (kill -9): its
# lease goes stale and the waiting run takes it over and completes (two samples a condition: what
# is checked is that it waits, then takes over and completes)
sed 's/samples: 3/samples: 2/' fleet.yaml >wait.yaml
HOME="$H" "$NF" run wait.yaml --host tlsbox --wait --results "$WORK/results" >wait.out 2>wait.err &
waiting=$!
for _ in $(seq 300); do grep -q "waiting for the engine" wait.err 2>/dev/null && break; sleep 0.1; done
contains wait.err "waiting for the engine at tcp://127.0.0.1:23760: long/"
kill -0 "$waiting" 2>/dev/null || fail "the --wait run did not wait"
kill -9 "$long"; wait "$long" 2>/dev/null || true
wait "$waiting" || { cat wait.err >&2; fail "the --wait run after the holder died"; }
contains wait.out "== host tlsbox · tcp://127.0.0.1:23760 · complete =="
# The holder, killed with -9, removed nothing: what it had on tlsbox then (its machine-facts
# container, most often: it reads the machine just after it takes the lease; 37 of them had piled
# up on this engine over a day of runs before 23c6662) is left. gc, run as a user would, removes
# each and names it; the waiting run removed its own. (e2e_docker checks gc's choices one by one,
# on containers made for it.)
left=$(for l in noisefloor.run noisefloor.role=facts; do containers_on /run/nf-fleet/nfc.sock label "$l"; done |
  cut -d'"' -f4)
HOME="$H" "$NF" gc --host tlsbox >gc.txt 2>&1 || { cat gc.txt >&2; fail "gc --host tlsbox"; }
for id in $left; do contains gc.txt "removed ${id:0:12} "; done
echo "the killed holder left $(echo $left | wc -w) container(s) on tlsbox; gc removed them"
for l in noisefloor.run noisefloor.role=facts; do
  [[ -z "$(containers_on /run/nf-fleet/nfc.sock label "$l")" ]] || { cat gc.txt >&2; fail "$l left after gc"; }
done

# --- an engine stopped in the middle: its host fails, the others complete ---------------------
# 3 samples a condition (12 invocations a host, about 0.7 s each on these engines): the engine is
# stopped after the second, and the other two hosts measure all of theirs (with 5, this section
# took 17 s; with 12, 45 s; with 40, two minutes).
rm -rf "$WORK/results/long"
sed 's/^name: fleet/name: long/' fleet.yaml >stop.yaml
HOME="$H" "$NF" run stop.yaml --results "$WORK/results" >stop.out 2>stop.err &
pid=$!
for _ in $(seq 600); do
  n=$({ cat "$WORK"/results/long/*/hosts/127.0.0.1/samples.jsonl 2>/dev/null || true; } | wc -l)
  (( n >= 2 )) && break
  sleep 0.1
done
fleet_stop_engine nfb
set +e
wait "$pid"
rc=$?
set -e
[[ $rc == 1 ]] || { cat stop.err >&2; fail "a fleet run with a stopped engine: exit $rc, want 1"; }
contains stop.err "1 of 3 host(s) failed: 127.0.0.1"
[[ ! -e "$WORK/results/long/latest" ]] || fail "latest moved for a run whose host failed"
python3 - "$WORK"/results/long/2* <<'PY' || fail "the stopped engine's fleet.json"
import json, sys
fleet = json.load(open(sys.argv[1] + "/fleet.json"))
st = {h["name"]: h["status"] for h in fleet["hosts"]}
assert st == {"default": "complete", "127.0.0.1": "failed", "tlsbox": "complete"}, st
PY
contains stop.out "== host tlsbox · tcp://127.0.0.1:23760 · complete =="
echo "fleet lease e2e: ok"
