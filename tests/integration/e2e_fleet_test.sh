#!/usr/bin/env bash
# Many machines end to end, on real engines started here: the main engine (this machine, host
# processes), a second engine reached through ssh:// (an sshd on 127.0.0.1 forwarding its socket),
# and a third behind TLS on 127.0.0.1:23760 named by a Docker context in a temporary HOME. One
# experiment across the three; every condition kind on the remote ones runs as containers (the
# spinners too, their CPU time recorded); nf-burn's known CPU time checks the samples, and the
# spinners' shares of CPU 1 are judged against a busy process's share in this room (a test that
# measures the room). The lease and an engine lost in the middle: e2e_fleet_lease.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fleet_lib.sh"
fleet_three_hosts "fleet e2e"

# --- one experiment across three engines -------------------------------------------------
# The share of CPU 1 a busy process gets in this room now, to scale the spinners' shares below.
export ROOM_SHARE="$(cpu_share 1)" CONDITIONS=4
set +e
HOME="$H" "$NF" run fleet.yaml --results "$WORK/results" >out.txt 2>err.txt
rc=$?
set -e
# And once more after it: the room is the less of the two readings (outside work that came only
# during the run shows in one of them at least; CI at 6234ac2 read 0.1285 of CPU 1 for a spinner
# against a bound made of a reading taken before).
ROOM_SHARE=$(python3 -c 'import sys; print(min(map(float, sys.argv[1:])))' "$ROOM_SHARE" "$(cpu_share 1)")
export ROOM_SHARE
# The three hosts' spinners all sit on CPU 1 of this one machine. Beside other work there (a busy
# loop per CPU, at 865ea5c on an AMD EPYC guest: a busy process got half of CPU 1), a remote one
# got 8% of a CPU where it could expect all of it, and noisefloor rightly refused that condition:
# its load was not there (exit 1, the other hosts' results kept). In a room measured busy before
# the run that refusal is the right answer; the run is then made again without the spinners.
# (`latest` moves only when every host completed: the failed run is the newest directory.)
if [[ $rc != 0 ]]; then
  failed_run=$(ls -d "$WORK"/results/fleet/2*/ | tail -n 1)
  python3 - "$failed_run/fleet.json" "$ROOM_SHARE" <<'PY' || { cat err.txt out.txt >&2; fail "the fleet run failed"; }
import json, sys
room = float(sys.argv[2])
hosts = json.load(open(sys.argv[1]))["hosts"]
failed = [h for h in hosts if h["status"] != "complete"]
assert room < 0.9, f"a busy process had {room} of CPU 1 before and after the run: the room was quiet"
assert failed and all("the background load was not there" in (h.get("error") or "") for h in failed), failed
print(f"the room was busy (a busy process had {room} of CPU 1 before or after): {len(failed)} host(s) refused a starved "
      "spinner, as they should; the run is made again without the spinners")
PY
  [[ $rc == 1 ]] || fail "a fleet run with a starved spinner: exit $rc, want 1"
  sed -i '/- name: noisy/,+1d' fleet.yaml
  export CONDITIONS=3
  HOME="$H" "$NF" run fleet.yaml --results "$WORK/results" >out.txt 2>err.txt ||
    { cat err.txt out.txt >&2; fail "the fleet run without spinners failed"; }
fi
run="$WORK/results/fleet/latest"
[[ -f "$run/fleet.json" ]] || fail "no fleet.json in $run"
contains err.txt "hosts (3), in parallel"
contains out.txt "== side by side =="
if [[ $CONDITIONS == 4 ]]; then
  contains out.txt "ran as containers: idle, noisy, pinned, box"
else
  contains out.txt "ran as containers: idle, pinned, box"
fi
python3 - "$run" <<'PY' || fail "fleet results"
import json, os, sys
run = sys.argv[1]
fleet = json.load(open(os.path.join(run, "fleet.json")))
problems = []
def check(ok, what):
    if not ok: problems.append(what)
hosts = {h["name"]: h for h in fleet["hosts"]}
check(sorted(hosts) == sorted(["default", "127.0.0.1", "tlsbox"]), f"hosts {sorted(hosts)}")
for name, h in hosts.items():
    check(h["status"] == "complete", f"{name}: {h['status']} {h.get('error')}")
    d = os.path.join(run, "hosts", name)
    samples = [json.loads(l) for l in open(os.path.join(d, "samples.jsonl"))]
    check(len([s for s in samples if not s["warmup"]]) == 3 * int(os.environ["CONDITIONS"]),
          f"{name}: {len(samples)} samples")
    # nf-burn burns 0.05 s of CPU by its own clock: never less, and not much more (the least sample
    # of each condition: an over-count of the product moves every sample; single samples on a
    # crowded machine have read 0.13, two of three at bafd672 beside e2e_readme's build).
    by = {}
    for s in samples:
        units = [m["unit"] for m in s["metrics"]]
        check(units[:2] == ["cpu-sec/op", "sec/op"], f"{name}: metrics {units}")
        cpu, wall = s["metrics"][0]["value"], s["metrics"][1]["value"]
        check(cpu >= 0.05, f"{name}/{s['condition']}: cpu-sec/op {cpu} < 0.05")
        # one thread: its wall time holds its CPU time, so never less than the 0.05 s it burns
        check(wall >= 0.05 and wall >= 0.95 * cpu, f"{name}/{s['condition']}: sec/op {wall} for cpu {cpu}")
        by.setdefault(s["condition"], []).append(cpu)
    for c, v in by.items():
        check(min(v) < 0.08, f"{name}/{c}: least cpu-sec/op of {v}")
    r = json.load(open(os.path.join(d, "run.json")))
    check(r.get("host") == name, f"{name}: run.json host {r.get('host')}")
    fp = json.load(open(os.path.join(d, "fingerprint.json")))
    remote = name != "default"
    check(h["local"] == (not remote), f"{name}: local {h['local']}")
    for b in r["condition_records"]:
        want = "container" if (remote or b["condition"] == "box") else "host"
        where = {inv.get("measured_by") for inv in b["runs"]}
        check(where == {want}, f"{name}/{b['condition']}: measured by {where}, want {want}")
        if b["condition"] == "noisy":
            loads = b.get("spinner_load", [])
            check(len(loads) == 1 and loads[0]["alive"] and (loads[0]["cpu_s"] or 0) > 0,
                  f"{name}: spinner load {loads}")
            if remote:
                check(bool(loads and loads[0].get("container")), f"{name}: the spinner ran as no container: {loads}")
                # Really loading its CPU: the three hosts' spinners all sit on CPU 1 of this one
                # machine, so each gets about a third of it (a starved one gets under a tenth) in a
                # quiet room, and as much less as other work there leaves (ROOM_SHARE, measured
                # before and after the run: the less of the shares of CPU 1 one busy process got).
                room = float(os.environ["ROOM_SHARE"])
                check(loads and (loads[0]["share"] or 0) > 0.15 * room,
                      f"{name}: spinner share {loads} (a busy process got {room} of CPU 1 before or after the run)")
    if remote:
        check(fp["host"]["cpu"]["logical"]["value"] >= 1, f"{name}: remote CPU count {fp['host']['cpu']}")
        check(fp["host"]["kernel"]["cmdline"]["value"] is not None, f"{name}: no kernel command line")
        check("server_version" in fp.get("engine", {}), f"{name}: no engine facts")
if problems:
    print("\n".join(problems)); sys.exit(1)
PY
# the remote spinners ran as containers, recorded as such (the busy room's run has no spinners)
if [[ $CONDITIONS == 4 ]]; then
  for h in 127.0.0.1 tlsbox; do contains "$run/hosts/$h/run.json" '"containers": ['; done
fi
# nothing left on any engine but the images
for s in "$SOCK" /run/nf-fleet/nfb.sock /run/nf-fleet/nfc.sock; do
  [[ -z "$(containers_on "$s" label noisefloor.run)" ]] || fail "containers left on $s"
  [[ -z "$(containers_on "$s" label noisefloor.role=facts)" ]] || fail "a machine-facts container left on $s"
  [[ -z "$(containers_on "$s" name noisefloor-lease)" ]] || fail "a lease left on $s"
done
# the readers understand it
"$NF" cv "$WORK/results/fleet" >cv.txt 2>cv.err || { cat cv.err >&2; fail "cv of a fleet run"; }
contains cv.txt "fleet · run"
contains cv.txt "tlsbox"
"$NF" report "$WORK/results/fleet" >/dev/null 2>rep.err || { cat rep.err >&2; fail "report of a fleet run"; }
[[ -s "$run/report.html" ]] || fail "no report.html for the fleet run"
"$NF" compare "$run" "$run" >cmp.txt 2>cmp.err || { cat cmp.err >&2; fail "compare of two fleet runs"; }
contains cmp.txt "== host tlsbox =="
# a host that left no samples is named with how its run ended, by cv and report alike; with no
# host left, one line lists them all (exit 2)
cp -r "$(readlink -f "$run")" "$WORK/lost"
rm "$WORK/lost/hosts/tlsbox/samples.jsonl"
python3 - "$WORK/lost/fleet.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for h in doc["hosts"]:
    if h["name"] == "tlsbox":
        h["status"], h["error"] = "failed", "cannot reach the engine"
json.dump(doc, open(sys.argv[1], "w"))
PY
"$NF" cv "$WORK/lost" >cv.txt 2>cv.err || { cat cv.err >&2; fail "cv of a fleet run with a host lost"; }
contains cv.err "warning: host tlsbox: no results (failed: cannot reach the engine)"
"$NF" report "$WORK/lost" >/dev/null 2>rep.err || { cat rep.err >&2; fail "report of a fleet run with a host lost"; }
contains rep.err "warning: host tlsbox: no results (failed: cannot reach the engine)"
rm "$WORK"/lost/hosts/*/samples.jsonl
set +e
"$NF" cv "$WORK/lost" >cv.txt 2>cv.err
rc=$?
set -e
[[ $rc == 2 ]] || { cat cv.err >&2; fail "cv of a fleet run with no host left: exit $rc, want 2"; }
contains cv.err "no host measured anything"
contains cv.err "tlsbox: no results (failed: cannot reach the engine)"

# a run on several hosts, or one host of it, is not resumed (it would run elsewhere): exit 2
for d in "$run" "$run/hosts/tlsbox"; do
  set +e
  HOME="$H" "$NF" run --resume "$d" >resume.out 2>resume.err
  rc=$?
  set -e
  [[ $rc == 2 ]] || { cat resume.err >&2; fail "run --resume $d: exit $rc, want 2"; }
  contains resume.err "cannot be resumed yet"
done

# the doctor grades another machine (its facts from a facts container) and says who holds it
set +e
HOME="$H" "$NF" doctor --host tlsbox >doc.txt 2>doc.err
rc=$?
set -e
[[ $rc == 0 || $rc == 1 ]] || { cat doc.err >&2; fail "doctor --host tlsbox: exit $rc"; }
contains doc.txt "(tcp://127.0.0.1:23760)"
contains doc.txt "lease:   free"
grep -q "^grade: " doc.txt || { cat doc.txt >&2; fail "doctor --host: no grade"; }

echo "fleet e2e: ok"
