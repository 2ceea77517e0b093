#!/usr/bin/env bash
# `noisefloor history` on a fabricated series of runs: five copies of the committed small result
# (tests/data/results/small) with rewritten run ids, start times, samples and fingerprints:
#   r1, r2  the same values (r2 in another order): no change
#   r3      idle / BenchmarkMakeBuffer_Correct-2 planted +15% (every other row unchanged)
#   r4, r5  another CPU (host.cpu.model_name): a new segment, values +30% (never compared with r3)
# plus a torn directory (warning, not fatal) and the `latest` symlink. No durations are asserted.
source "$(dirname "$0")/lib.sh"
cd "$WORK"

exp="$WORK/results/small"
mkdir -p "$exp"
python3 - "$REPO/tests/data/results/small" "$exp" <<'PY'
import json, shutil, sys, os
src, dst = sys.argv[1], sys.argv[2]
runs = [  # id, day, factor for the stepped row, factor for every row, cpu
    ("r1", 1, 1.00, 1.00, "AMD EPYC"),
    ("r2", 2, 1.00, 1.00, "AMD EPYC"),
    ("r3", 3, 1.15, 1.00, "AMD EPYC"),
    ("r4", 4, 1.00, 1.30, "Intel Xeon"),
    ("r5", 5, 1.00, 1.30, "Intel Xeon"),
]
for rid, day, step, room, cpu in runs:
    d = os.path.join(dst, rid)
    shutil.copytree(src, d)
    started = f"2026-12-{day:02d}T10:00:00Z"
    run = json.load(open(os.path.join(d, "run.json")))
    run["run_id"], run["started_utc"], run["finished_utc"] = rid, started, f"2026-12-{day:02d}T10:00:05Z"
    # Claims per run: one that holds everywhere (±1% spread), one that fails from the new room on.
    run["claims"], run["claims_seed"] = ["cv(idle) < 5%", "median(idle) < 55"], 1
    json.dump(run, open(os.path.join(d, "run.json"), "w"), indent=2)
    fp = json.load(open(os.path.join(d, "fingerprint.json")))
    fp["run"]["started_utc"] = started
    fp["host"]["cpu"]["model_name"]["value"] = cpu
    fp["toolchain"]["source"]["commit"] = {"value": f"c0ffee{day}"}
    json.dump(fp, open(os.path.join(d, "fingerprint.json"), "w"), indent=2)
    out = []
    for line in open(os.path.join(d, "samples.jsonl")):
        s = json.loads(line)
        i = s["index"]
        base = 50.0 if "Correct" in s["benchmark"] else 20.0
        # Deterministic spread of about ±1%; r2 takes the same values in reverse order.
        k = (i * 3) % 9 if rid != "r2" else (8 - (i * 3) % 9)
        v = base * (1 + (k - 4) / 400) * room
        if s["condition"] == "idle" and s["name"] == "BenchmarkMakeBuffer_Correct-2":
            v *= step
        s["metrics"][0]["value"] = round(v, 4)
        out.append(json.dumps(s))
    open(os.path.join(d, "samples.jsonl"), "w").write("\n".join(out) + "\n")
PY
ln -s r5 "$exp/latest"
mkdir "$exp/torn" && echo '{not json' >"$exp/torn/run.json" && : >"$exp/torn/samples.jsonl"

# Text: one line per run, the step and the segment found.
"$NF" history "$exp" >text.out 2>text.err || { cat text.err >&2; fail "history failed"; }
cat text.out
contains text.err 'warning: '
contains text.err 'torn'
[[ $(grep -cE '^2026-12-0[1-5]T10:00:00Z  commit c0ffee[1-5]  room [0-9a-f]{8}  complete  r[1-5]$' text.out) -eq 5 ]] ||
  fail "expected one line per run"
grep -E '^2026-12-0[1-5]' text.out | cut -d' ' -f1 | sort -c || fail "runs not in time order"
contains text.out '── segment 1'
contains text.out '── segment 2: host.cpu.model_name changed: AMD EPYC → Intel Xeon'
# The planted step: exactly one ▲, on r3's stepped row; nothing else is marked.
[[ $(grep -c '^  .*▲' text.out) -eq 1 ]] || fail "expected exactly one ▲"
[[ $(grep -c '^  .*▼' text.out) -eq 0 ]] || fail "expected no ▼"
# (each run's cells sit under a heading per benchmark, one line per condition)
# (a change too wide for the condition's line goes on the next, indented)
awk '/^2026-12-03/{on=1; next} /^2026/{on=0} on && /^  [^ ]/{bench=$1} /^    [^ ]/{cond=$1}
     on && bench == "BenchmarkMakeBuffer_Correct-2" && cond == "idle"' \
  text.out | grep -qE '▲ \+1[45]\.[0-9]% \[\+1[0-9]\.[0-9], \+1[0-9]\.[0-9]\] slower' || fail "r3's planted +15% is not marked"
python3 -c '
import sys
wide = [l for l in open(sys.argv[1], encoding="utf-8").read().splitlines() if len(l) > 80]
print("\n".join("too wide: " + l for l in wide)); sys.exit(1 if wide else 0)' text.out || fail "history is wider than 80 columns"
# r4 (+30%, another room) is the first of its segment: not compared; r5 vs r4: ~.
awk '/^2026-12-04/{on=1; next} /^2026/{on=0} on' text.out | grep -qE '~|▲|▼' && fail "r4 compared across segments"
awk '/^2026-12-05/{on=1; next} /^2026/{on=0} on' text.out | grep -q '~' || fail "r5 not compared with r4"

# The other formats parse, and say the same.
"$NF" history --format json "$exp" >h.json 2>/dev/null
python3 - h.json <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))
assert [r["run_id"] for r in h["runs"]] == ["r1", "r2", "r3", "r4", "r5"], h["runs"]
assert len(h["segments"]) == 2 and h["segments"][1]["changed"][0]["field"] == "host.cpu.model_name"
kinds = [(r["run_id"], c["condition"], c["name"], c["change"]["kind"]) for r in h["runs"] for c in r["cells"]]
assert [k for k in kinds if k[3] in ("higher", "lower")] == [("r3", "idle", "BenchmarkMakeBuffer_Correct-2", "higher")], kinds
assert all(k[3] == "first" for k in kinds if k[0] in ("r1", "r4")), kinds
assert all(r["claims"][0] == "REPRODUCED: cv(idle) < 5%" for r in h["runs"]), [r["claims"] for r in h["runs"]]
# median(idle) is the first row's: BenchmarkMakeBuffer_Correct-2 (50, then 57.5 in r3, 65 after the room change)
assert [r["claims"][1].split(":")[0] for r in h["runs"]] == ["REPRODUCED", "REPRODUCED", "NOT REPRODUCED",
                                                            "NOT REPRODUCED", "NOT REPRODUCED"], [r["claims"] for r in h["runs"]]
PY
"$NF" history --format csv "$exp" >h.csv 2>/dev/null
python3 - h.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert rows and rows[0]["claims"].startswith("REPRODUCED: cv(idle) < 5%"), rows[0]
steps = [(r["run_id"], r["condition"], r["benchmark"]) for r in rows if r["change"] == "higher"]
assert steps == [("r3", "idle", "BenchmarkMakeBuffer_Correct-2")], steps
assert float([r for r in rows if r["change"] == "higher"][0]["change_lo_pct"]) > 2
assert {r["segment"] for r in rows} == {"1", "2"}
PY
"$NF" history --format markdown "$exp" >h.md 2>/dev/null
contains h.md '## segment 2: host.cpu.model_name changed: AMD EPYC → Intel Xeon'
python3 - h.md <<'PY'
import sys
tables = [l for l in open(sys.argv[1]) if l.startswith("|")]
widths = {l.count("|") - l.count("\\|") for l in tables}
assert len(widths) == 1, widths  # every row has the header's cells
PY
[[ $(grep -c '▲ +1[45]\.' h.md) -eq 1 ]] || fail "markdown: the step is not marked once"

# --threshold: 20% hides the +15% step.
"$NF" history --threshold 20% "$exp" >t20.out 2>/dev/null
[[ $(grep -c '^  .*▲' t20.out) -eq 0 ]] || fail "--threshold 20% still marks the +15% step"

# --html writes a page, nothing on stdout.
"$NF" history --html "$WORK/history.html" "$exp" >html.out 2>/dev/null
check "--html writes the page" test -s "$WORK/history.html"
check "--html alone prints nothing" test ! -s html.out
contains "$WORK/history.html" 'data-plot="history"'
contains "$WORK/history.html" 'data-segment-boundary="2"'

# Exit 2 with one line for a missing directory, a run's own directory, a bad option.
expect2() {  # expect2 NAME ARGS...: exit 2, one line on stderr
  local name="$1"; shift
  set +e; "$NF" history "$@" >/dev/null 2>"$name.err"; local rc=$?; set -e
  [[ $rc -eq 2 ]] || { cat "$name.err" >&2; fail "$name: exit $rc, expected 2"; }
  [[ $(wc -l <"$name.err") -eq 1 ]] || { cat "$name.err" >&2; fail "$name: expected one line on stderr"; }
}
expect2 missing "$WORK/results/nope"
contains missing.err 'no such directory'
expect2 rundir "$exp/r1"
contains rundir.err "one run's directory"
expect2 format --format yaml "$exp"
expect2 threshold --threshold 2 "$exp"
mkdir "$WORK/empty"
expect2 empty "$WORK/empty"
# Nothing loads: one line per broken run, exit 2.
mkdir -p "$WORK/broken/x" && echo '{' >"$WORK/broken/x/run.json" && : >"$WORK/broken/x/samples.jsonl"
set +e; "$NF" history "$WORK/broken" >/dev/null 2>broken.err; rc=$?; set -e
[[ $rc -eq 2 ]] || fail "nothing loadable: exit $rc, expected 2"
contains broken.err 'none of its 1 run directories could be loaded'

# A new level over many runs (§3.18, E-Divisive means as Apache Otava computes it; known truth: a
# +10% level planted from the 13th of 24 runs in one room, each run's medians wobbling ±0.3%): the
# 13th run of every row is marked, and no other.
lvl="$WORK/results/level"
mkdir -p "$lvl"
python3 - "$REPO/tests/data/results/small" "$lvl" <<'PY'
import json, shutil, sys, os
src, dst = sys.argv[1], sys.argv[2]
for k in range(24):
    rid, d = f"r{k + 1:02d}", os.path.join(dst, f"r{k + 1:02d}")
    shutil.copytree(src, d)
    started = f"2026-11-{k + 1:02d}T10:00:00Z"
    run = json.load(open(os.path.join(d, "run.json")))
    run["run_id"], run["started_utc"], run["finished_utc"] = rid, started, f"2026-11-{k + 1:02d}T10:00:05Z"
    json.dump(run, open(os.path.join(d, "run.json"), "w"), indent=2)
    fp = json.load(open(os.path.join(d, "fingerprint.json")))
    fp["run"]["started_utc"] = started
    json.dump(fp, open(os.path.join(d, "fingerprint.json"), "w"), indent=2)
    level = (1.10 if k >= 12 else 1.0) * (1 + 0.003 * ((k * 5) % 3 - 1))
    out = []
    for line in open(os.path.join(d, "samples.jsonl")):
        s = json.loads(line)
        base = 50.0 if "Correct" in s["benchmark"] else 20.0
        s["metrics"][0]["value"] = round(base * (1 + ((s["index"] * 3) % 9 - 4) / 400) * level, 4)
        out.append(json.dumps(s))
    open(os.path.join(d, "samples.jsonl"), "w").write("\n".join(out) + "\n")
PY
"$NF" history --format json "$lvl" >level.json 2>/dev/null || fail "history of 24 runs"
python3 - level.json <<'PY' || fail "the planted level is not marked at the 13th run alone"
import json, sys
h = json.load(open(sys.argv[1]))
assert len(h["runs"]) == 24 and len(h["segments"]) == 1, (len(h["runs"]), h["segments"])
marked = {(r["run_id"], c["condition"], c["name"]) for r in h["runs"] for c in r["cells"] if "level_change" in c}
rows = {(c["condition"], c["name"]) for c in h["runs"][12]["cells"]}
assert len(rows) >= 2, rows
assert marked == {("r13",) + row for row in rows}, sorted(marked)
for c in h["runs"][12]["cells"]:
    lc = c["level_change"]
    assert abs(lc["mean_after"] / lc["mean_before"] - 1.10) < 0.005 and lc["p"] < 0.001, (c["name"], lc)
print(f"level: {len(rows)} rows marked at r13 alone (+10% planted)")
PY
rows=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["runs"][12]["cells"]))' level.json)
"$NF" history "$lvl" >level.out 2>/dev/null
[[ $(grep -c '◀ new level +10\.0%: medians' level.out) -eq $rows ]] || { cat level.out; fail "text: one new-level line per row of r13"; }
"$NF" history --html "$WORK/level.html" "$lvl" >/dev/null 2>&1
contains "$WORK/level.html" 'data-level-change="r13"'

echo "e2e history: ok"
