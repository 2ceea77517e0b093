#!/usr/bin/env bash
# The paired design end to end on the ratio workload, with few repeats: structure, not timing.
source "$(dirname "$0")/lib.sh"
cd "$WORK"
(cd "$REPO/experiments/ratio" && CGO_ENABLED=0 go build -o "$WORK/ratio" .)
cat >paired.yaml <<YAML
name: paired
benchmark:
  command: [$WORK/ratio, -work=200000]
  samples: 4
  warmup: 1
variants:
  - {name: once, args: [-loops=1]}
  - {name: thrice, args: [-loops=3]}
conditions:
  - name: clean
  - name: busy
    spinners: 1
noise_profile: 0s
YAML
"$NF" run paired.yaml --results "$WORK/results" >out.txt 2>err.txt || { cat err.txt >&2; fail "paired run failed"; }
dir="$WORK/results/paired/latest"
python3 - "$dir" <<'PY' || fail "summary.json structure"
import json, sys
d = sys.argv[1]
s = json.load(open(d + "/summary.json"))
rows = s["paired"]
# "busy" has a spinner, so it is always CONTENDED-PAIRED. "clean" is labelled from what its own
# invocations measured (run-queue waits), which a shared machine can push either way.
clean = rows[0]["label"]
assert clean in ("MEASURED-clean", "CONTENDED-PAIRED"), rows
assert [(r["condition"], r["variant"], r["label"]) for r in rows] == [
    ("clean", "thrice", clean), ("clean", "A/A", clean),
    ("busy", "thrice", "CONTENDED-PAIRED"), ("busy", "A/A", "CONTENDED-PAIRED")], rows
for r in rows:
    assert len(r["ratios"]) == 4 and r["order"] == ["AB", "BA", "BA", "AB"], r
    assert r["design"] == "paired" and len(r["gm_ci"]) == 2
assert [a["condition"] for a in s["aa"]] == ["clean", "busy"]
assert all(a["outcome"] in ("PASS", "FAIL biased", "FAIL imprecise") for a in s["aa"])
assert s["comparison"] == {"baseline": "once", "aa": True, "threshold": 0.01}
# every repeat of every pair ran both sides: 5 repeats x 2 pairs x 2 sides x 2 conditions
lines = [json.loads(l) for l in open(d + "/samples.jsonl")]
assert len(lines) == 40, len(lines)
assert sum(1 for l in lines if l["warmup"]) == 8
assert {l["variant"] for l in lines} == {"once", "thrice", "once'"}
# back to back: within a repeat and pair, the two sides are consecutive invocations
by = {}
for l in lines:
    by.setdefault((l["condition"], l["repeat"], l["pair"]), []).append(l["invocation"])
assert all(len(v) == 2 and abs(v[0] - v[1]) == 1 for v in by.values()), by
PY
# The paired comparison recomputed from the samples by `report` is the one the run wrote.
"$NF" report --format json "$dir" >report.json
python3 - "$dir/summary.json" report.json <<'PY' || fail "report --format json differs from the run's summary.json"
import json, sys
summary, report = (json.load(open(p)) for p in sys.argv[1:])
assert summary == report, [k for k in summary if summary[k] != report.get(k)]
assert len(summary["paired"]) == 4 and len(summary["aa"]) == 2
PY
contains out.txt '## Paired comparison'
grep -q '^\*\*MEASURED-clean\*\*\|^\*\*CONTENDED-PAIRED\*\*' out.txt || fail "no labelled paired table"
contains out.txt '**CONTENDED-PAIRED**'
contains "$dir/table.md" '| clean | BenchmarkRatioLoop | thrice / once | 4 |'

# the same in separate blocks: unpaired, labelled CONTENDED under load
sed -e 's/^name: paired/name: blocks/' -e 's/^conditions:/comparison: {design: blocks}\nconditions:/' paired.yaml >blocks.yaml
"$NF" run blocks.yaml --results "$WORK/results" >out2.txt 2>err2.txt || { cat err2.txt >&2; fail "blocks run failed"; }
python3 - "$WORK/results/blocks/latest" <<'PY' || fail "blocks summary structure"
import json, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
rows = s["paired"]
clean = rows[0]["label"]  # labelled from its own run-queue waits: either, on a shared machine
assert clean in ("MEASURED-clean", "CONTENDED"), rows
assert [(r["condition"], r["design"], r["label"]) for r in rows] == [
    ("clean", "blocks", clean), ("busy", "blocks", "CONTENDED")], rows
assert s["aa"] == []
lines = [json.loads(l) for l in open(sys.argv[1] + "/samples.jsonl")]
# blocks: all 5 'once' repeats of a condition run before its 5 'thrice' repeats
clean = [l["variant"] for l in lines if l["condition"] == "clean"]
assert clean == ["once"] * 5 + ["thrice"] * 5, clean
PY
# the anchor: this run's baseline against the clean one of the paired run
"$NF" run blocks.yaml --results "$WORK/results" --anchor "$dir" >out3.txt 2>&1 || { cat out3.txt >&2; fail "anchor run"; }
contains out3.txt "anchor: "
contains out3.txt "busy / BenchmarkRatioLoop: baseline "
set +e; "$NF" run blocks.yaml --results "$WORK/results" --anchor /nonexistent 2>err4.txt; code=$?; set -e
[[ $code -eq 2 ]] || fail "a bad --anchor should be a usage error (2), got $code"
echo "e2e paired: ok"
