#!/usr/bin/env bash
# Suites nobody here wrote, as a new user runs them: Go's own unicode/utf8 benchmarks (23, from
# the Go distribution), a Google Benchmark program of 41 instances, and a benchmark starved by
# another job on its CPU, checked against what is known by construction.
#
# - The suite view: a line per benchmark, the conditions side by side with their labels, values
#   scaled, GOMAXPROCS 2 (idle) beside 1 (pinned) on one line; markdown a benchmark at a time;
#   the HTML overview grid (every cell a link to its plots), no clipping at 1400 px in Chromium.
# - Starvation: nf-burn spends a known CPU time; beside a busy loop on its one CPU it gets half
#   of it, so it waits as long as it runs and its samples take twice as long. That condition must
#   say so (a note with the figures), be CONTENDED and banded "do not trust"; the same burn on
#   the other CPU stays MEASURED-clean; in a container pinned to the busy CPU too.
# - Labels from what was measured: two runs of the same quiet conditions compare (exit 0); a
#   starved side is refused (exit 2) and compared with --allow-different-labels.
source "$(dirname "$0")/lib.sh"
BURN="$(realpath "${BURN:?set BURN to the nf-burn test program}")"
cd "$WORK"
busy=""
stop_busy() { [[ -n "$busy" ]] && kill "$busy" 2>/dev/null; wait "$busy" 2>/dev/null || true; busy=""; }
trap 'stop_busy; cleanup_work' EXIT

# The container half of the starvation check needs an engine (in CI it must be there).
SOCK="${DOCKER_HOST:-unix:///var/run/docker.sock}"; SOCK="${SOCK#unix://}"
have_docker=1
if ! curl -sf --unix-socket "$SOCK" http://localhost/_ping >/dev/null; then
  [[ "${CI:-}" == true ]] && fail "no Docker engine answers at $SOCK (CI=true: this is a failure)"
  have_docker=0
  echo "no Docker engine at $SOCK: the container condition is left out"
fi

# 80 columns at most on every line of a text table.
narrow() { python3 -c '
import sys
wide = [l for l in open(sys.argv[1], encoding="utf-8").read().splitlines() if len(l) > 80]
assert not wide, wide' "$1" || fail "$1 is wider than 80 columns"; }

# --- Go's unicode/utf8: 23 benchmarks, idle (GOMAXPROCS 2) and pinned (1) ---
go test -c -o "$WORK/utf8.test" unicode/utf8 || fail "cannot build unicode/utf8's tests (golang-go)"
cat >utf8.yaml <<YAML
name: utf8
benchmark:
  command: [$WORK/utf8.test, "-test.run=^\$", "-test.bench=.", "-test.benchtime=2000x"]
  format: gotest
  samples: 3
settle: 0s
conditions:
  - name: idle
  - name: pinned
    affinity: "1"
noise_profile: 0s
YAML
"$NF" run utf8.yaml --results "$WORK/results" >utf8.md 2>utf8.err || { cat utf8.err; fail "run of unicode/utf8"; }
utf8="$(readlink -f "$WORK/results/utf8/latest")"
"$NF" cv --format text "$utf8" >utf8.txt
narrow utf8.txt
PYTHONPATH="$REPO/tests/integration" python3 - utf8.txt <<'PY' || fail "the suite view of unicode/utf8"
import re, sys
import suite_view
text = open(sys.argv[1], encoding="utf-8").read()
lines = text.splitlines()
# Above the table only the counters the run could not read, with why; then the conditions with
# their labels.
first = lines.index("conditions:")
assert all(l.startswith("not counted") or l.startswith("  ") or not l for l in lines[:first]), lines[:first]
lines = lines[first:]
assert re.match(r"  idle    (MEASURED-clean|CONTENDED)  ", lines[1]), lines[1]
# One sec/op table: a line per benchmark (23), idle and pinned side by side, procs "2 1".
# A name too long for 80 columns beside the numbers takes a line of its own above them.
body, head = suite_view.table_lines(lines)
assert "│ idle · " in lines[head - 1] and "│ pinned · " in lines[head - 1], lines[head - 1]
assert len(body) == 23, (len(body), body)
for l in body:
    name, procs = l.split()[0], l.split()[1:3]
    assert not name.startswith("Benchmark") and not name.endswith("-2"), l
    assert procs == ["2", "1"], l
    # Two cells, each a scaled value ("7.596n ± ∞"), a band.
    assert len(re.findall(r"\d[\d.]*[nµm]? ± (?:∞|[\d.]+%)", l)) == 2, l
# Far fewer lines than one block per benchmark and metric (289 lines for 20 benchmarks before).
assert len(lines) < 110, len(lines)
print(f"unicode/utf8: {len(body)} benchmarks, {len(lines)} lines")
PY
# Markdown: a benchmark at a time (its conditions next to each other), the label in every row.
"$NF" cv --format markdown "$utf8" >utf8-cv.md
python3 - utf8-cv.md <<'PY' || fail "markdown a benchmark at a time"
import sys
rows = [l.split("|")[1:-1] for l in open(sys.argv[1], encoding="utf-8") if l.startswith("| idle") or l.startswith("| pinned")]
rows = [[c.strip() for c in r] for r in rows]
assert rows[0][0] == "idle" and rows[1][0] == "pinned", rows[:2]
assert rows[0][2] == "BenchmarkRuneCountTenASCIIChars-2" and rows[1][2] == "BenchmarkRuneCountTenASCIIChars", rows[:2]
assert all(r[1] in ("MEASURED-clean", "CONTENDED") for r in rows), {r[1] for r in rows}
PY
# The HTML overview: 23 lines × 2 conditions, every cell a link to its benchmark's plots; the nav
# names no benchmark (too many) but the overview.
"$NF" report --html utf8.html "$utf8" >/dev/null
python3 - utf8.html <<'PY' || fail "the HTML overview of unicode/utf8"
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
nav = page[page.index("<nav"):page.index("</nav>")]
assert '<a href="#overview">Overview</a>' in nav and "23 benchmarks (plots)" in nav and "RuneCount" not in nav, nav
grid = page[page.index('<table class="overview">'):]
grid = grid[:grid.index("</table>")]
rows = re.findall(r'<tr><th scope="row" class="bench">([^<]*)</th>(.*?)</tr>', grid)
assert len(rows) == 23, len(rows)
for i, (name, cells) in enumerate(rows):
    assert re.findall(r'<a href="#b(\d+)">', cells) == [str(i)] * 2, (name, cells)
    assert f'<section id="b{i}"' in page
assert page.count('<section id="b') == 23
PY
CHROMIUM="$(command -v chromium || command -v chromium-browser || true)"
if [[ -n "$CHROMIUM" ]]; then
  # No table clipped and the nav inside the page, at 1400 px: measured in the browser by a copy of
  # the page with a script (the real page runs none).
  python3 - utf8.html measure.html <<'PY'
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
page = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page)
script = """<script>
const clipped = [...document.querySelectorAll(".wide")].filter(e => e.scrollWidth > e.clientWidth + 1)
  .map(e => e.firstElementChild.className);
const nav = document.querySelector("nav");
document.body.setAttribute("data-clipped", clipped.join(",") || "none");
document.body.setAttribute("data-nav", nav.scrollWidth > nav.clientWidth + 1 ? "overflows" : "fits");
</script></body>"""
open(sys.argv[2], "w", encoding="utf-8").write(page.replace("</body>", script))
PY
  timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,1000 \
    --user-data-dir="$WORK/profile" --dump-dom "file://$WORK/measure.html" >measure.dom 2>/dev/null ||
    fail "chromium --dump-dom"
  contains measure.dom 'data-clipped="none"'
  contains measure.dom 'data-nav="fits"'
elif [[ "${CI:-}" == "true" ]]; then
  fail "chromium is not installed (scripts/bootstrap.sh installs it)"
fi

# --- a Google Benchmark program of 41 instances ---
g++ -O2 -o "$WORK/gbench-suite" "$REPO/tests/integration/gbench_suite.cpp" -lbenchmark -lpthread ||
  fail "cannot build the Google Benchmark suite (libbenchmark-dev)"
cat >gbs.yaml <<YAML
name: gbsuite
benchmark: {command: [$WORK/gbench-suite, --benchmark_min_time=0.002], format: gbench-json, samples: 3}
settle: 0s
conditions:
  - name: idle
  - name: pinned
    affinity: "0"
noise_profile: 0s
YAML
"$NF" run gbs.yaml --results "$WORK/results" >gbs.md 2>gbs.err || { cat gbs.err; fail "run of the Google Benchmark suite"; }
"$NF" cv --format text "$WORK/results/gbsuite/latest" >gbs.txt
narrow gbs.txt
PYTHONPATH="$REPO/tests/integration" python3 - gbs.txt <<'PY' || fail "the suite view of the Google Benchmark suite"
import sys
import suite_view
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
body, head = suite_view.table_lines(lines)
assert "threads" in lines[head], lines[head]  # Google Benchmark's word, not GOMAXPROCS
# 41 instances: BM_Chain at 1 and 2 threads is two lines of one name, its count beside it.
assert len(body) == 41, len(body)
chain = [l.split() for l in body if l.startswith("BM_Chain/1000 ")]
assert [c[1] for c in chain] == ["1", "2"], chain
# A name with spaces in it (a template argument list) stays whole.
assert any(l.startswith("BM_Lookup<std::map<std::uint32_t, std::uint32_t>>/16 ") for l in body), body
assert not any("threads:" in l for l in body), "the thread count is a column, not in the name"
print(f"Google Benchmark suite: {len(body)} lines, {len(lines)} lines in all")
PY

# --- starvation, against known truth ---
cat >burn.yaml <<YAML
name: burn
benchmark: {command: [$BURN, "0.15"], format: command, samples: 4}
settle: 0s
noise_profile: 0s
conditions:
  - name: quiet
    affinity: "1"
  - name: starved
    affinity: "0"
YAML
if [[ $have_docker -eq 1 ]]; then
  cat >>burn.yaml <<YAML
  - name: boxed
    container: {cpuset: "0"}
YAML
fi
# In a session of its own, as another user's job would be: with the kernel's autogroup scheduling a
# session's share of a CPU shrinks with what the session runs on the other CPUs (the tests beside
# this one), so a loop in the test's session could take less than half of CPU 0.
setsid taskset -c 0 sh -c 'while :; do :; done' &
busy=$!
"$NF" run burn.yaml --results "$WORK/results" >burn.md 2>burn.err || { cat burn.err; fail "run beside a busy loop"; }
stop_busy
starved="$(readlink -f "$WORK/results/burn/latest")"
"$NF" cv --format json "$starved" >burn.json
"$NF" cv --format text "$starved" >burn.txt
python3 - burn.json burn.txt <<'PY' || fail "starvation: figures, label, band"
import json, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2], encoding="utf-8").read()
t = d["table"]
rows = {r["condition"]: r for r in t["rows"] if r["unit"] == "sec/op"}
acc = {a["condition"]: a["run_queue"] for a in d["accounting"]}
quiet, starved = rows["quiet"]["summary"]["median"], rows["starved"]["summary"]["median"]
wq, ws = acc["quiet"]["waited"], acc["starved"]["waited"]
print(f"quiet {quiet:.3f} s (waited {wq:.1%}), starved {starved:.3f} s (waited {ws:.1%}): ratio "
      f"{starved / quiet:.2f} (truth in a quiet room: 2, half a CPU)")
for c in [c for c in ("starved", "boxed") if c in rows]:
    q = acc[c]
    print(f"{c}: waited {q['waited']:.1%} of its runnable time, used {q['used_cpus']:.2f} of {q['cpus_allowed']} CPU, "
          f"other work beside it {q['beside_s']:.3f} s over {q['wall_s']:.3f} s")
    # The busy loop shares its CPU the whole time: it takes at least about half, whatever else runs.
    assert q["beside_s"] > 0.3 * q["wall_s"], q
    assert q["waited"] > 0.35, q
    # nf-burn runs 0.15 s of CPU (and a few ms of start-up): its wall time is that plus its waits.
    per = q["run_s"] / q["invocations"]
    assert 0.15 <= per < 0.2, q
    assert q["starved"] is True, q
    assert t["labels"][c]["label"] == "CONTENDED" and t["labels"][c]["reason"].startswith("starved: "), t["labels"][c]
    bands = [(r["unit"], r["summary"]["band"], r.get("starved"), r["summary"].get("cv"))
             for r in t["rows"] + t["other_metrics"] if r["condition"] == c]
    # Capped at "do not trust"; a metric without a CV (sys-sec/op all 0: a mean of 0) stays
    # "insufficient", which is worse, never better.
    assert all(s and (b == "do not trust" or (b == "insufficient" and cv is None)) for _, b, s, cv in bands), (c, bands)
    assert bands[0][1] == "do not trust", (c, bands)
    assert f"{c}: STARVED by other work: the benchmark's threads waited for a CPU" in " ".join(text.split()), c
# A sample is the wall time: each condition's samples are its CPU time over the share of runnable
# time it was not waiting, as the scheduler's own counters say (R/(1 − w) for one thread). w is
# counted over all its invocations, so the identity holds for their mean: in a room whose load
# comes and goes, one invocation may wait far longer than the others, and the median stays put.
for c, w in (("quiet", wq), ("starved", ws)):
    q = acc[c]
    expected = q["run_s"] / q["invocations"] / (1 - w)
    assert 0.85 < rows[c]["summary"]["mean"] / expected < 1.2, (c, rows[c]["summary"]["mean"], expected, q)
if wq < 0.10:
    # A quiet CPU 1: one busy loop beside the benchmark leaves it half of CPU 0, twice the time.
    assert 1.6 < starved / quiet < 2.5, starved / quiet
    assert acc["quiet"]["starved"] is False, acc["quiet"]
    assert t["labels"]["quiet"]["label"] == "MEASURED-clean", t["labels"]["quiet"]
    assert "starved" not in rows["quiet"]
else:
    # Other work kept CPU 1 busy too: the quiet condition waited, and its label says what was measured.
    print(f"the room was busy: the quiet condition waited {wq:.1%} of its runnable time")
    want = "CONTENDED" if acc["quiet"]["starved"] else "MEASURED-clean"
    assert t["labels"]["quiet"]["label"] == want, (t["labels"]["quiet"], acc["quiet"])
PY
# The same experiment with nothing beside it: every condition clean; two such runs compare. On a
# shared machine other work may starve a condition of a calm run too, and then it must say so with
# the work that ran beside it, and the test's own reads of /proc/stat during the run must bear that
# out (room_witness.py); a quiet moment is waited for (3 tries per run).
calm_run() {  # calm_run OUT: the directory of a run whose every label is MEASURED-clean
  local try dir
  for try in 1 2 3; do
    sleep 1
    cpu_timeline calm.room "$NF" run burn.yaml --results "$WORK/results" >calm.md 2>calm.err ||
      { cat calm.err; fail "run without the busy loop"; }
    dir="$(readlink -f "$WORK/results/burn/latest")"
    "$NF" cv --format json "$dir" >calm.json
    python3 - calm.json <<'PY' || fail "a calm run's CONTENDED label without other work beside it"
import json, sys
d = json.load(open(sys.argv[1]))
acc = {a["condition"]: a["run_queue"] for a in d["accounting"]}
for c, l in d["table"]["labels"].items():
    if l["label"] != "MEASURED-clean":
        q = acc[c]
        print(f"calm run, {c}: {l['label']} ({l['reason']}): other work {q['beside_s']:.3f} s over {q['wall_s']:.3f} s")
        assert l["reason"].startswith("starved: ") and q["beside_s"] >= 0.05 * q["wall_s"], (l, q)
PY
    if python3 -c 'import json, sys; sys.exit(any(l["label"] != "MEASURED-clean" for l in json.load(open("calm.json"))["table"]["labels"].values()))'; then
      eval "$1=\$dir"
      return
    fi
    python3 "$REPO/tests/integration/room_witness.py" calm.room "$dir" calm.json quiet=1 starved=0 boxed=0 ||
      fail "a calm run's CONTENDED label that the room, read beside it, does not bear out"
  done
  echo "the room is busy (3 runs starved by other work, each borne out by /proc/stat read beside it): the" \
    "checks that need a quiet machine (a MEASURED-clean run, its refusal beside a starved one, waits" \
    "among a benchmark's own processes) are left out"
  busy_room=1
  eval "$1=\$dir"
}
busy_room=0
calm_run calm
calm_run calm2
# Its own processes waiting for each other, nothing else running: three of them on two CPUs for a
# while (nf-burn 0.4 with two 0.1 s children). They wait (15% of their runnable time when captured,
# tests/data/probe/host-result-own-threads.txt), but nothing ran beside them: not starved.
cat >own.yaml <<YAML
name: own
benchmark: {command: [$BURN, "0.4", "2", "0.1"], format: command, samples: 4}
settle: 0s
conditions:
  - name: both
    affinity: "0,1"
noise_profile: 0s
YAML
# It needs nothing else running: a busy process beside it is other work, rightly called so. The room
# is measured during each try, from /proc/stat and the run's own CPU time (outside_cpu, lib.sh): a
# try with more than a tenth of a CPU of other work is not this check's quiet room.
quiet_own=0
for try in 1 2 3; do
  [[ $busy_room == 0 ]] || break
  outside_cpu own.room "$NF" run own.yaml --results "$WORK/results" >own.md 2>own.err ||
    { cat own.err; fail "run of the self-contending burn"; }
  if awk -v o="$(cat own.room)" 'BEGIN { exit !(o < 0.1) }'; then quiet_own=1; break; fi
  echo "own processes, try $try: other work used $(cat own.room) of a CPU beside the run"
  sleep 1
done
[[ $quiet_own == 1 ]] || echo "no quiet moment for the waits among a benchmark's own processes: that check is left out"
if [[ $quiet_own == 1 ]]; then
"$NF" cv --format json "$WORK/results/own/latest" >own.json
python3 - own.json <<'PY' || fail "waits among its own processes called starvation"
import json, sys
d = json.load(open(sys.argv[1]))
q = d["accounting"][0]["run_queue"]
label = d["table"]["labels"]["both"]
print(f"own processes: waited {q['waited']:.1%}, used {q['used_cpus']:.2f} of 2 CPUs, "
      f"other work beside it {q['beside_s']:.3f} s over {q['wall_s']:.2f} s; {label['label']} ({label['reason']})")
assert q["waited"] > 0.03, q  # the waits are there
assert q["beside_s"] < 0.05 * q["wall_s"] + 0.10 * q["run_s"], q  # within what the clocks disagree by
assert q["starved"] is False and label["label"] == "MEASURED-clean", (q, label)
assert q["waited"] < 0.05 or ", for each other: " in label["reason"], label
PY
fi
# (in a busy room the two runs' labels follow what each met, so they may differ: compared anyway)
"$NF" compare $([[ $busy_room == 1 ]] && echo --allow-different-labels) "$calm" "$calm2" >calm-compare.txt \
  2>calm-compare.err || { cat calm-compare.err; fail "two calm runs do not compare"; }
if grep -q 'no benchmark compared' calm-compare.txt; then fail "two calm runs: nothing compared"; fi
if [[ $busy_room == 1 ]]; then echo "e2e suites: ok (busy room)"; exit 0; fi
set +e; "$NF" compare "$calm" "$starved" >refused.txt 2>refused.err; code=$?; set -e
[[ $code -eq 2 ]] || fail "a starved side: exit $code, expected 2"
[[ ! -s refused.txt ]] || fail "a refused comparison printed a table"
contains refused.err "new 'starved' is CONTENDED (starved: its threads waited for a CPU"
"$NF" compare --allow-different-labels "$calm" "$starved" >allowed.txt || fail "--allow-different-labels"
python3 - allowed.txt <<'PY' || fail "--allow-different-labels: said in the table, no UNKNOWN-load note"
import sys
text = " ".join(open(sys.argv[1], encoding="utf-8").read().split())
assert "compared because of --allow-different-labels" in text, text
assert "a side records no load" not in text, text
PY
echo "e2e suites: ok"
