#!/usr/bin/env bash
# Sweeps end to end, against workloads of known behaviour (nf-burn burns a known CPU time):
#  1. spinners on the benchmark's own CPU, swept 0..2: each spinner takes an equal share of that
#     CPU, so the median wall time is 1×, 2×, 3× the idle point's, and the knee is at spinners=1,
#     where a spinner first shares the benchmark's CPU; a placement sweep (the spinner on the other
#     CPU, then on the benchmark's) has its knee where the placement starts sharing;
#  2. a container's CPU quota swept 1.0 → 0.3 under a single-threaded burn (it needs one CPU):
#     from the first quota below its need the cgroup throttles it, and the knee is marked there;
#  3. what a user reads: the terminal curve, claims naming points, CSV/JSON with the sweep's
#     columns, the HTML page's section and `report --format svg` (parsed by a real XML parser);
#  4. bad points refused before anything runs, at the sweep's line:col, naming the point;
#  and a condition's own args and env (1b), swept, checked by what reached the benchmark.
source "$(dirname "$0")/lib.sh"
SOCK="${DOCKER_HOST:-unix:///var/run/docker.sock}"; SOCK="${SOCK#unix://}"
if ! curl -sf --unix-socket "$SOCK" http://localhost/_ping >/dev/null; then
  [[ "${CI:-}" == true ]] && fail "no Docker engine answers at $SOCK (CI=true: this is a failure)"
  echo "sweep e2e skipped: no engine at $SOCK"; exit 77
fi
BURN="$(realpath "${BURN:?set BURN to the nf-burn test program}")"
cd "$WORK"

# median_of RESULT CONDITION: the condition's median from summary.json's curves.
curve_json() { "$NF" report "$1" --format json >"$2" || fail "report --format json $1"; }

# ---- 1. spinners on the benchmark's CPU -------------------------------------------------------
cat >share.yaml <<YAML
name: share
benchmark:
  command: [$BURN, "0.04"]
  format: command
  samples: 8
  timeout: 1m
settle: 0.1s  # a spinner is running within it; what is asserted needs no more
noise_profile: 0s
# Round-robin over the points: other work that comes or goes during the run meets every point
# alike (one point after the other, at 26e172d beside another test, cpus=other had 0.57 of its CPU
# and cpus=same 1.20x its time, against 1.57x expected from that share).
schedule: interleaved
conditions:
  # Everything on CPU 0: n spinners leave the benchmark 1/(n+1) of it.
  - name: onecpu
    affinity: "0"
    spinners: {count: {sweep: 0..2}, cpus: "0"}
  # One spinner, on the other CPU and then on the benchmark's.
  - name: placed
    affinity: "0"
    spinners: {count: 1, cpus: {sweep: {other: "1", same: "0"}}}
claims:
  - median(onecpu[count=1]) > 1.25 * median(onecpu[count=0])
  - median(onecpu[count=2]) > median(onecpu[count=1])
  - knee(onecpu) <= 1
YAML
"$NF" validate share.yaml >validate.out 2>&1 || { cat validate.out >&2; fail "validate share.yaml"; }
contains validate.out "share.yaml: ok (5 conditions, 8 samples each, interleaved)"
contains validate.out "  sweep onecpu: 3 points, count = 0, 1, 2"
contains validate.out "  sweep placed: 2 points, cpus = other, same"
contains validate.out "40 samples of each benchmark in 40 invocations, 40 blocks: 4 s of noise profile, settle and cooldown"
"$NF" run share.yaml --results "$WORK/results" >share.out 2>share.err || { cat share.err >&2; fail "run share"; }
contains share.out "## Sweeps"
contains share.out "### onecpu over count: share (sec/op)"
curve_json "$WORK/results/share/latest" share.json
# The knee is where the rule (§3.16) puts it on this run's own points; at count=1 in a room that
# let the idle point have its CPU. Beside outside work the idle point is itself starved, its CI wide
# (a busy loop per CPU at 10e3014: [0.083, 0.192] around 0.107), and the knee may come later.
PYTHONPATH="$REPO/tests/integration" python3 - share.json "$WORK/results/share/latest/samples.jsonl" <<'PY' >share-knee.txt || { cat share-knee.txt; fail "share: the curve's figures"; }
import json, sys
d = json.load(open(sys.argv[1]))
curves = {c["group"]: c for c in d["curves"]}
one = curves["onecpu"]["points"]
med = [p["median"] for p in one]
r1, r2 = med[1] / med[0], med[2] / med[0]
# The share of CPU 0 the idle point got, s0 = its CPU time over its wall time: 1 in a quiet room,
# 1/(k+1) beside k other tasks on that CPU. Each spinner is one task more, so with fair shares the
# points take (k+1+n)/(k+1) = 1 + n·s0 times the idle point's time: 2x and 3x in a quiet room.
cpu = lambda cond: next(r["summary"]["median"] for r in d["table"]["rows"] + d["table"]["other_metrics"]
                        if r["condition"] == cond and r["unit"] == "cpu-sec/op")
s0 = cpu(one[0]["condition"]) / med[0]
e1, e2 = 1 + s0, 1 + 2 * s0
print(f"onecpu medians {med}: ratios {r1:.2f} {r2:.2f}; the idle point had {s0:.2f} of its CPU: "
      f"fair shares give {e1:.2f} and {e2:.2f}")
# (the settle time and the kernel's slices blur it a little). The model needs the idle point to
# have most of its CPU: outside work that is not pinned moves to the other CPU as spinners come to
# CPU 0, and the benchmark then loses less than a task's share (a busy loop per CPU and other tests
# beside it at 9d72e78: the idle point had 0.58 of its CPU, count=1 took 1.24x against the model's
# 1.58x). Under 0.8 the ratios are only checked to grow, and the test says so.
if s0 >= 0.8:
    assert 0.8 * e1 < r1 < 1.25 * e1, f"count=1: {r1:.2f}x the idle point, a fair share of one CPU is {e1:.2f}x"
    assert 0.8 * e2 < r2 < 1.2 * e2, f"count=2: {r2:.2f}x the idle point, a fair share of one CPU is {e2:.2f}x"
else:
    print(f"the room is busy (the idle point had {s0:.2f} of its CPU): the fair-share ratios need 0.8 "
          "and are left out; only their growth is checked")
    assert 1 < r1 < r2, f"count=1 {r1:.2f}x, count=2 {r2:.2f}x the idle point: each spinner should cost more"
from sweep_rule import knee  # the rule of §3.16 on the points' own figures
assert curves["onecpu"]["knee"] == knee(one), (curves["onecpu"], knee(one))
# The knee and the claims read the idle point's CI, which a few starved samples widen even where
# its median had the CPU (make test on f727346 and the label change, beside the light tests: s0
# 0.99, 2 of 8 samples at twice the median, CI ±103%, the 2x claim inconclusive): quiet means
# every sample had it.
def cpu_share(sample):
    m = {x["unit"]: x["value"] for x in sample["metrics"]}
    return m["cpu-sec/op"] / m["sec/op"]
samples = [json.loads(l) for l in open(sys.argv[2])]
def shares(condition):
    got = [cpu_share(s) for s in samples if s["condition"] == condition and not s.get("warmup")]
    assert got, f"no samples of {condition}"
    return got
idle = shares(one[0]["condition"])
quiet = min(idle) > 0.9
print(f"the idle point's samples had {min(idle):.2f} to {max(idle):.2f} of its CPU")
assert not quiet or curves["onecpu"]["knee"] == "1", curves["onecpu"]
assert curves["onecpu"]["knee_condition"] == "onecpu.count-" + curves["onecpu"]["knee"]
assert [p["x"] for p in one] == [0, 1, 2]
placed = curves["placed"]
assert placed["knee"] == knee(placed["points"]), placed
assert placed["numeric"] is False
rp = placed["points"][1]["median"] / placed["points"][0]["median"]
sp = cpu(placed["points"][0]["condition"]) / placed["points"][0]["median"]
ep = 1 + sp
print(f"placed: same/other {rp:.2f} (fair shares: {ep:.2f}); cpus=other had {sp:.2f} of its CPU")
# With the spinner on the other CPU, outside work that moves between CPUs comes to the benchmark's
# instead (a busy loop per CPU, or a build, at 3d3ea11: cpus=other had about half its CPU, and the
# two points were alike): the fair-share model holds where the cpus=other point had its CPU, and
# the knee is at "same" only where every sample of it had: the rule reads the point's CI, which a
# few starved samples widen (CI at c7670a5: median 0.046 s with 0.99 of its CPU, CI [0.045, 0.094],
# CV 39%: no knee).
other = shares(placed["points"][0]["condition"])
if sp > 0.9:
    assert 0.8 * ep < rp < 1.25 * ep, f"a spinner on the benchmark's CPU: {rp:.2f}x, a fair share is {ep:.2f}x"
else:
    print("placed: cpus=other did not have its CPU (busy room): its ratio not judged")
if min(other) > 0.9:
    assert placed["knee"] == "same", placed
else:
    print(f"placed: a sample of cpus=other had {min(other):.2f} of its CPU: the knee not judged")
# Every row of a point carries its sweep.
rows = [r for r in d["table"]["rows"] if r["condition"] == "onecpu.count-2"]
assert rows and rows[0]["sweep"] == {"group": "onecpu", "settings": {"count": "2"}}, rows
print(curves["onecpu"]["knee"], "quiet" if quiet else "busy", placed["knee"] or "none")
PY
head -n -1 share-knee.txt
read -r knee room placed_knee < <(tail -n 1 share-knee.txt)
contains share.out "knee at count=$knee:"
if [[ $placed_knee != none ]]; then contains share.out "knee at cpus=$placed_knee:"; else contains share.out "no knee"; fi
# The claims: in a room that let the idle point have its CPU, both hold (2x and a knee at 1); in
# another, count=1 is (1 + s0)x, and the knee's interval may reach later points: not judged.
if [[ $room == quiet ]]; then
  contains share.out '**REPRODUCED** `median(onecpu[count=1]) > 1.25 * median(onecpu[count=0])`'
  contains share.out '**REPRODUCED** `knee(onecpu) <= 1`: 1.000 vs 1.000'
else
  echo "the idle point did not have its CPU (busy room): the knee is at count=$knee; claims not judged"
fi
"$NF" report "$WORK/results/share/latest" --format csv >share.csv || fail "report --format csv"
head -1 share.csv | grep -q ',label,starved,sweep,count,cpus$' || fail "share.csv: no sweep columns: $(head -1 share.csv)"
grep -q '^onecpu.count-2,.*,onecpu,2,$' share.csv || fail "share.csv: the count=2 row's sweep columns"
grep -q '^placed.cpus-same,.*,placed,,same$' share.csv || fail "share.csv: the cpus=same row's sweep columns"
"$NF" cv --format text "$WORK/results/share/latest" >cv.out || fail "cv"
contains cv.out "Sweeps (one row per point; ▶ the knee, against the first point):"
grep -q "^▶ $knee " cv.out || { cat cv.out >&2; fail "cv: the knee row is not marked"; }

# ---- 1b. a condition's own args and env, swept ------------------------------------------------
# args: nf-burn's SECONDS comes from the condition (0.02, then 0.06 s of CPU: 3x); env: go test
# names a row by the GOMAXPROCS it ran under (no suffix at 1, "-2" at 2), on the host and in a
# container, so the row names are the truth of what reached the benchmark.
(cd "$REPO/experiments/makebuffer" && CGO_ENABLED=0 go test -c -o "$WORK/makebuffer.test" .)
cat >knobs.yaml <<YAML
name: knobs
benchmark:
  command: [$BURN]
  format: command
  metric: cpu
  samples: 4
settle: 0s
noise_profile: 0s
conditions:
  - name: burn
    args: {sweep: {short: ["0.02"], long: ["0.06"]}}
YAML
"$NF" run -q knobs.yaml --results "$WORK/results" >knobs.out 2>knobs.err || { cat knobs.err >&2; fail "run knobs"; }
cat >procs.yaml <<YAML
name: procs
benchmark:
  command: [$WORK/makebuffer.test, "-test.run=^\$", "-test.bench=^BenchmarkMakeBuffer_Correct\$", -test.benchtime=200x]
  samples: 2
settle: 0s
noise_profile: 0s
conditions:
  - name: host
    env: {GOMAXPROCS: {sweep: [1, 2]}}
  - name: boxed
    container: {memory: 256m}
    env: {GOMAXPROCS: {sweep: [1, 2]}}
YAML
"$NF" run -q procs.yaml --results "$WORK/results" >procs.out 2>procs.err || { cat procs.err >&2; fail "run procs"; }
curve_json "$WORK/results/knobs/latest" knobs.json
curve_json "$WORK/results/procs/latest" procs.json
python3 - knobs.json procs.json <<'PY' || fail "a condition's args and env: what reached the benchmark"
import json, sys
knobs, procs = (json.load(open(f)) for f in sys.argv[1:3])
med = {p["value"]: p["median"] for p in knobs["curves"][0]["points"]}
print("knobs cpu-sec/op", med)
# nf-burn burns 0.02 and 0.06 s of CPU by its own clock, each plus the same start-up (the loader:
# a few ms, more on a busy machine): never less, and 0.04 s apart whatever the start-up costs.
assert 0.02 <= med["short"] < 0.04 and 0.06 <= med["long"], med
assert abs((med["long"] - med["short"]) - 0.04) < 0.003, med
names = {(r["condition"], r["name"]) for r in procs["table"]["rows"]}
print("procs rows", sorted(names))
for c in ("host", "boxed"):
    assert (f"{c}.GOMAXPROCS-1", "BenchmarkMakeBuffer_Correct") in names, names
    assert (f"{c}.GOMAXPROCS-2", "BenchmarkMakeBuffer_Correct-2") in names, names
# One benchmark on each curve, whatever -N its GOMAXPROCS gave its name.
curves = [(c["group"], c["benchmark"], [p["value"] for p in c["points"]]) for c in procs["curves"]]
assert curves == [("host", "BenchmarkMakeBuffer_Correct", ["1", "2"]),
                  ("boxed", "BenchmarkMakeBuffer_Correct", ["1", "2"])], curves
PY
python3 - "$WORK/results/procs/latest/run.json" <<'PY' || fail "procs: run.json does not record the condition's env"
import json, sys
run = json.load(open(sys.argv[1]))
setups = {c["condition"]: c["setup"] for c in run["condition_records"]}
assert setups["boxed.GOMAXPROCS-2"]["env"] == {"GOMAXPROCS": "2"}, setups
PY

# ---- 2. a CPU quota below the work's need ----------------------------------------------------
cat >quota.yaml <<YAML
name: quota
benchmark:
  command: [$BURN, "0.25"]
  format: command
  samples: 6
  timeout: 1m
settle: 0.2s
noise_profile: 0s
conditions:
  - name: capped
    container:
      cpus: {sweep: [1.0, 0.6, 0.3]}
      memory: 256m
YAML
"$NF" run -q quota.yaml --results "$WORK/results" >quota.out 2>quota.err || { cat quota.err >&2; fail "run quota"; }
curve_json "$WORK/results/quota/latest" quota.json
PYTHONPATH="$REPO/tests/integration" python3 - quota.json <<'PY' || fail "quota: the curve's figures"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["curves"][0]
med = {p["value"]: p["median"] for p in c["points"]}
print("capped medians", med, "knee", c["knee"], "-", c["knee_text"])
# One thread needs one CPU: a quota of 1.0 does not throttle it (the reference); it gets the share
# s of a CPU the room leaves it (its CPU time over its wall time: 1 in a quiet room). A quota q
# below s caps it at q, so q stretches its time by about s/min(q, s): 1/0.6 and 1/0.3 in a quiet
# room (whole CFS periods of 100 ms blur it), less where other work already took part of the CPU.
cpu = {r["condition"]: r["summary"]["median"] for r in d["table"]["rows"] + d["table"]["other_metrics"]
       if r["unit"] == "cpu-sec/op"}
ref = next(p for p in c["points"] if p["value"] == "1.0")
share = min(1.0, cpu[ref["condition"]] / ref["median"])
want = {q: share / min(float(q), share) for q in ("0.6", "0.3")}
print(f"the 1.0 point had {share:.2f} of a CPU: expected {want['0.6']:.2f}x and {want['0.3']:.2f}x")
for q in ("0.6", "0.3"):
    got = med[q] / med["1.0"]
    assert 0.75 * want[q] < got < 1.38 * want[q], f"quota {q}: {got:.2f}x, expected {want[q]:.2f}x"
# The knee: where the rule (§3.16) puts it on these points; the first quota below what the work got
# at 1.0 where that caps it (0.6 in a quiet room). Where the room left it under half a CPU, 0.6
# caps nothing and 0.3 does; a 0.6 point a few per cent off the reference's narrow CI may still be
# the knee (beside a busy loop per CPU at 489f78a: 2.8% below it), but not a capped one.
from sweep_rule import knee
assert c["knee"] == knee(c["points"]), (c, knee(c["points"]))
if share > 0.75:
    assert c["knee"] == "0.6", c
elif share < 0.5:
    assert c["knee"] == "0.3" or (c["knee"] == "0.6" and abs(med["0.6"] / med["1.0"] - 1) < 0.1), c
thr = {a["condition"]: a for a in d.get("accounting", [])}
PY

# ---- 3. the pictures ------------------------------------------------------------------------
"$NF" report "$WORK/results/share/latest" --html share.html >/dev/null || fail "report --html"
contains share.html "Sweeps"
contains share.html "knee at count=$knee"
"$NF" report "$WORK/results/quota/latest" --format svg >svg.out 2>svg.err || { cat svg.err >&2; fail "report --format svg"; }
svg="$(head -1 svg.out)"
[[ -f "$svg" ]] || fail "report --format svg printed no file: $(cat svg.out)"
python3 "$REPO/tests/integration/sweep_svg_check.py" "$svg" || fail "$svg is not the figure"
grep -q "knee" "$svg" || fail "$svg: the knee is not marked"
# --format png: a picture of the figure's own size, by whichever converter is installed (CI has
# Chromium, which screenshots a window that must be sized to the figure).
if command -v rsvg-convert >/dev/null || command -v inkscape >/dev/null || command -v chromium >/dev/null; then
  mkdir -p home
  HOME="$WORK/home" "$NF" report "$WORK/results/quota/latest" --format png >png.out 2>png.err ||
    { cat png.err >&2; fail "report --format png"; }
  # A browser's profile of its own, removed: the user's home is left as it was.
  [[ -z "$(ls -A home)" ]] || fail "report --format png wrote into the user's home: $(find home | head -5)"
  ! ls -d "${TMPDIR:-/tmp}"/nf-convert-* 2>/dev/null || fail "report --format png left its converter's home"
  png="$(head -1 png.out)"
  [[ -f "$png" ]] || fail "report --format png printed no file: $(cat png.out)"
  python3 - "$svg" "$png" <<'PY' || fail "$png is not the figure's picture"
import struct, sys, xml.etree.ElementTree as ET
svg = ET.parse(sys.argv[1]).getroot()
want = (round(float(svg.get("width"))), round(float(svg.get("height"))))
head = open(sys.argv[2], "rb").read(24)
assert head[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
got = struct.unpack(">II", head[16:24])
assert got == want, f"the PNG is {got}, the figure {want}"
PY
elif [[ "${CI:-}" == true ]]; then
  fail "no SVG converter installed (scripts/bootstrap.sh installs chromium)"
fi

# ---- 4. bad points ----------------------------------------------------------------------------
cat >bad-cpuset.yaml <<YAML
name: bad
benchmark: {command: [$BURN, "0.01"], format: command}
conditions:
  - name: pinned
    container: {cpuset: {sweep: ["0", "1", "1023"]}}
YAML
cat >bad-quota.yaml <<YAML
name: bad
benchmark: {command: [$BURN, "0.01"], format: command}
conditions:
  - name: capped
    container:
      cpus: {sweep: [1, 0]}
YAML
for f in bad-cpuset bad-quota; do
  set +e; "$NF" run "$f.yaml" --results "$WORK/bad-results" >"$f.out" 2>"$f.err"; rc=$?; set -e
  [[ $rc == 2 ]] || fail "$f: exit $rc, want 2 (a config error)"
  [[ ! -e "$WORK/bad-results" ]] || fail "$f: a result directory was made for a refused experiment"
done
contains bad-cpuset.err "bad-cpuset.yaml:5:44: conditions[0].container.cpuset: CPU 1023 is not available on this host"
contains bad-cpuset.err "(in the sweep point pinned[cpuset=1023])"
contains bad-quota.err "bad-quota.yaml:6:25: conditions[0].container.cpus: expected at least 0.01 CPUs, got 0 (in the sweep point capped[cpus=0])"
echo "sweep e2e: ok"
