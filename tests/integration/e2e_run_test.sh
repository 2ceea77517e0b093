#!/usr/bin/env bash
# End to end on the host: a small experiment through the binary, then the result files.
source "$(dirname "$0")/lib.sh"
cd "$WORK"
write_experiment exp.yaml small 3 2000x "  - name: idle
  - name: noisy
    spinners: {count: 1}
  - name: pinned
    affinity: \"0\"
    nice: 5"
"$NF" run exp.yaml --results "$WORK/results" >out.txt 2>err.txt || { cat err.txt >&2; fail "run failed"; }
dir="$WORK/results/small/latest"
check "latest points at a run" test -d "$dir"
for f in experiment.yaml samples.jsonl summary.json table.md run.json fingerprint.json idle.txt noisy.txt pinned.txt cv-summary.txt; do
  check "result file $f exists" test -s "$dir/$f"
done
check "no temporary file left" bash -c "! ls -a '$dir' | grep -q '\.tmp'"
check "experiment copied verbatim" cmp exp.yaml "$dir/experiment.yaml"
[[ $(wc -l <"$dir/samples.jsonl") -eq 9 ]] || fail "expected 9 samples, got $(wc -l <"$dir/samples.jsonl")"
contains "$dir/summary.json" '"schema_version": 1'
contains "$dir/run.json" '"status": "complete"'
contains "$dir/idle.txt" 'condition: idle'
contains "$dir/idle.txt" 'go-version: go1.'
contains "$dir/noisy.txt" 'spinners: 1'
contains "$dir/pinned.txt" 'affinity: 0'
contains "$dir/run.json" '"affinity": "0"'
contains "$dir/run.json" '"nice": 5'
[[ $(grep -c '^BenchmarkMakeBuffer_Correct' "$dir/idle.txt") -eq 3 ]] || fail "idle.txt should hold 3 result lines"
contains "$dir/fingerprint.json" '"noisefloor_version"'
contains "$dir/fingerprint.json" '"sha256"'
contains out.txt '| idle '
contains out.txt '| noisy '
contains out.txt '| pinned '
contains err.txt '[3/3 pinned] 3/3 '
# noisefloor's own CPU while it sampled: recorded per invocation, positive and below the
# invocation's wall time (one process's CPU over a span cannot exceed the span by much on 2 CPUs,
# and noisefloor only waits while the benchmark runs), and said under the table.
python3 - "$dir/run.json" <<'PY' || fail "run.json: harness_cpu_s missing or out of bounds"
import json, sys
runs = [r for c in json.load(open(sys.argv[1]))["condition_records"] for r in c["runs"]]
assert runs and all(0 < r["harness_cpu_s"] < r["wall_s"] for r in runs), runs
PY
contains out.txt "idle: noisefloor's own CPU while it sampled:"
# cv recomputes the same table from the saved files
"$NF" cv "$dir" >cv.txt
diff <(sed -n '/^| condition/,/^$/p' out.txt) <(sed -n '/^| condition/,/^$/p' cv.txt) || fail "cv table differs from run table"
"$NF" cv --format summary "$dir" >summary.txt
cmp summary.txt "$dir/cv-summary.txt" || fail "cv --format summary differs from cv-summary.txt"
contains summary.txt '## pinned'
# (to files, not pipes: `grep -q` closing a pipe early would SIGPIPE noisefloor under pipefail)
"$NF" cv --format json "$dir" >cv.json
contains cv.json '"schema_version": 1'
# One analysis path: the same result gives the same numbers through every output.
"$NF" report --format json "$dir" >report.json
python3 - "$dir/summary.json" cv.json report.json <<'PY' || fail "summary.json, cv --format json and report --format json disagree"
import json, sys
summary, cv, report = (json.load(open(p)) for p in sys.argv[1:])
assert summary["table"] == cv["table"], "cv --format json differs from summary.json"
assert summary == report, "report --format json differs from summary.json"
assert len(summary["table"]["rows"]) == 3 and all(r["summary"]["n"] == 3 for r in summary["table"]["rows"])
PY
"$NF" cv --format csv "$dir" >cv.csv
head -1 cv.csv | grep -q '^condition,benchmark,unit,n,mean' || fail "cv csv header"
# plain go test -bench files: one condition per file, named after it
"$NF" cv --format summary "$REPO/tests/data/gotest/makebuffer_benchmem_count3.txt" >plain.txt
contains plain.txt '## makebuffer_benchmem_count3'
# the fingerprint: recorded, and a different room is never silently compared
contains "$dir/fingerprint.json" '"doctor"'
contains "$dir/fingerprint.json" '"go"'
other="$WORK/other-run"
cp -r "$(readlink -f "$dir")" "$other"
python3 - "$other/fingerprint.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
f["toolchain"]["go"]["version"]["value"] = "go1.99.0"
json.dump(f, open(sys.argv[1], "w"))
PY
# another room: refused (exit 2), the fields once on stderr; accepted with the flag, under a warning
set +e; "$NF" cv "$dir" "$other" >merged.txt 2>merged.err; code=$?; set -e
[[ $code -eq 2 && ! -s merged.txt ]] || { cat merged.err >&2; fail "cv of two rooms: exit $code"; }
contains merged.err 'NOT COMPARABLE'
contains merged.err 'toolchain.go.version: go1.19'
"$NF" cv --allow-different-hosts "$dir" "$other" >merged2.txt 2>merged2.err
contains merged2.err 'different rooms, used together because of --allow-different-hosts'
contains merged2.txt '| other-run:idle '
set +e; "$NF" compare "$dir" "$other" >cmp.txt 2>cmp.err; code=$?; set -e
[[ $code -eq 2 ]] || fail "compare of two rooms: exit $code"
contains cmp.err 'NOT COMPARABLE'
contains cmp.err 'toolchain.go.version'
"$NF" cv "$dir" "$dir" >same.txt 2>/dev/null
grep -q 'NOT COMPARABLE' same.txt && fail "the same room reported as different"
[[ -z "$(spinners_of $$)" ]] || fail "spinners left behind"
echo "e2e run: ok"
