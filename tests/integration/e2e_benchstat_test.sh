#!/usr/bin/env bash
# Go benchmark output, all of it (issue 22), end to end:
# 1. The real benchstat as the oracle: cv and compare held against it row by row (centre, ±,
#    delta, p and the ~ decision, geomeans) on real captures of Go's standard library benchmarks
#    (tests/data/gotest/real: several packages, -benchmem, b.SetBytes, b.ReportMetric, -cpu 1,2,
#    -count) and on generated edge cases (tests/integration/benchstat_corpus.py: every n from 2 to
#    70, heavy ties, one iteration, long names, units and unit metadata). benchstat is built from
#    ../shared/oracles/benchstat (about 20 s) when that is there, and its output is then also held
#    against the captures in tests/data/benchstat; without it the captures stand in for it.
# 2. A real `go test ./...` over two packages that both have BenchmarkGet (one does three times the
#    work of the other: a known ratio), through run, cv, compare, report, check and history: one
#    row per package and benchmark everywhere, and the ratio of the two rows near 3.
source "$(dirname "$0")/lib.sh"

# ---- 1. the oracle ------------------------------------------------------------------------------
oracle_src=""
for d in "${NF_BENCHSTAT_ORACLE:-}" "$REPO/../shared/oracles/benchstat" /work/shared/oracles/benchstat; do
  [[ -n "$d" && -x "$d/build.sh" ]] && { oracle_src="$d"; break; }
done
benchstat_args=()
if [[ -n "$oracle_src" ]]; then
  "$oracle_src/build.sh" "$WORK/benchstat" >/dev/null || fail "the benchstat oracle did not build ($oracle_src/build.sh)"
  benchstat_args=(--benchstat "$WORK/benchstat")
  echo "oracle: benchstat built from $oracle_src"
else
  echo "oracle: no ../shared/oracles/benchstat here: benchstat's output is read from its captures (tests/data/benchstat)"
fi
mkdir -p "$WORK/corpus"
python3 "$REPO/tests/integration/benchstat_corpus.py" "$WORK/corpus"
python3 "$REPO/tests/integration/benchstat_oracle.py" --noisefloor "$NF" "${benchstat_args[@]}" \
  --corpus "$WORK/corpus" --corpus "$REPO/tests/data/gotest/real" --corpus "$REPO/tests/data/gotest" \
  --corpus "$REPO/tests/data/compare" --captured "$REPO/tests/data/benchstat" | tee "$WORK/oracle.txt"
contains "$WORK/oracle.txt" "failures: 0"

# ---- 2. go test ./... over two packages ----------------------------------------------------------
mod="$WORK/twopkg"
mkdir -p "$mod/a" "$mod/b"
printf 'module example.com/twopkg\n\ngo 1.19\n' >"$mod/go.mod"
for p in a b; do
  work=1; [[ $p == b ]] && work=3
  cat >"$mod/$p/get_test.go" <<GO
package $p

import "testing"

var sink uint64

// Get does $work unit(s) of the same work: package b's is three times package a's.
func BenchmarkGet(b *testing.B) {
	for i := 0; i < b.N; i++ {
		x := uint64(i)
		for j := 0; j < $work*20000; j++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
		sink += x
	}
}
GO
done
cat >"$WORK/twopkg.yaml" <<YAML
name: twopkg
benchmark:
  workdir: $mod
  # -p 1: one package at a time, so that a's and b's samples meet the same room (in parallel, b
  # ran on alone after a finished, and its ratio to a depended on what else the machine did)
  command: [go, test, -p, "1", -run, "^\$", -bench, "^BenchmarkGet\$", -benchtime=300x, ./...]
  env: {GOFLAGS: -mod=mod, GOPROXY: "off", CGO_ENABLED: "0"}
  samples: 8
  timeout: 5m
conditions:
  - name: idle
claims:
  - cv(idle) < 50%
noise_profile: 0s
YAML
runs=()
for i in 1 2; do
  "$NF" run "$WORK/twopkg.yaml" --results "$WORK/results" >"$WORK/run$i.txt" 2>&1 || { cat "$WORK/run$i.txt"; fail "run $i"; }
  runs+=("$(readlink -f "$WORK/results/twopkg/latest")")
done
r1="${runs[0]}"
r2="${runs[1]}"
[[ "$r1" != "$r2" ]] || fail "two runs, two directories"
contains "$WORK/run2.txt" "pkg: example.com/twopkg/a"
contains "$WORK/run2.txt" "pkg: example.com/twopkg/b"

# cv: one row per package, every format; the known ratio between them.
"$NF" cv --format json "$r1" >"$WORK/cv.json"
python3 - "$WORK/cv.json" <<'PY' || fail "cv --format json: two rows, pkg a and b, ratio near 3"
import json, sys
t = json.load(open(sys.argv[1]))["table"]
rows = {r["config"]["pkg"]: r for r in t["rows"]}
assert t["config_keys"] == ["pkg"], t["config_keys"]
assert sorted(rows) == ["example.com/twopkg/a", "example.com/twopkg/b"], sorted(rows)
a, b = rows["example.com/twopkg/a"], rows["example.com/twopkg/b"]
assert a["name"] == b["name"] and a["name"].startswith("BenchmarkGet"), (a["name"], b["name"])
open(sys.argv[1] + ".name", "w").write(a["name"])
assert a["summary"]["n"] == 8 and b["summary"]["n"] == 8, (a["summary"]["n"], b["summary"]["n"])
# Each invocation of `go test ./...` printed one sample of each package, a's then b's: their ratio
# is taken invocation by invocation (in run order), so that a load beside the test that comes and
# goes between invocations meets both sides of a ratio alike.
ratios = sorted(vb / va for va, vb in zip(a["values"], b["values"]))
ratio = (ratios[3] + ratios[4]) / 2
label = t["labels"].get("idle", {}).get("label", "UNKNOWN")
print(f"package b / package a, median of 8 invocations: {ratio:.3f} (the work is 3x; the room: {label})")
if label == "CONTENDED":
    # Other work came and went while a's and b's benchmarks took turns (beside a busy loop per CPU
    # the median was 9.8; beside a reader flooding 10 GB of memory at 8841013, 1.49 with ratios
    # from 0.81 to 4.34): b is still the slower, which is all a contended room can promise (a's
    # and b's rows swapped would give a third).
    assert ratio > 1.0, (ratio, ratios)
else:
    assert 2.2 < ratio < 4.0, (ratio, ratios)
PY
"$NF" cv --format text "$r1" >"$WORK/cv.txt"
contains "$WORK/cv.txt" "pkg: example.com/twopkg/a"
contains "$WORK/cv.txt" "pkg: example.com/twopkg/b"
"$NF" cv --format csv "$r1" >"$WORK/cv.csv"
[[ $(grep -c "pkg: example.com/twopkg/" "$WORK/cv.csv") == 2 ]] || fail "cv --format csv: a row per package"
"$NF" cv --format markdown "$r1" >"$WORK/cv.md"
contains "$WORK/cv.md" "(pkg: example.com/twopkg/b)"

# compare: rows matched by package. The two runs may meet rooms of different cleanliness (a busy
# process beside one of them): what is checked here is the matching, so the labels may differ.
"$NF" compare --allow-different-labels --format json "$r1" "$r2" >"$WORK/compare.json"
"$NF" cv --format json "$r2" >"$WORK/cv2.json"
python3 - "$WORK/compare.json" "$WORK/cv.json" "$WORK/cv2.json" <<'PY' || fail "compare: one row per package"
import json, sys
d = json.load(open(sys.argv[1]))
rows = [r for r in d["rows"] if r["unit"] == "sec/op"]
assert sorted(r["config"]["pkg"] for r in rows) == ["example.com/twopkg/a", "example.com/twopkg/b"], rows
for r in rows:
    assert r["old"]["n"] == 8 and r["new"]["n"] == 8
# The same work in both runs: whatever steady room each run met (a busy process beside one of them
# doubles its wall times), its two packages met it alike, so their new/old ratios agree. A room the
# run itself labelled CONTENDED promises no such thing: beside a busy loop per CPU at cbe048e the
# packages' new/old ratios were 1.88 and 0.71 (other work came and went between a's and b's
# benchmarks, as the cv check above says); there only the matching is checked.
labels = [json.load(open(f))["table"]["labels"].get("idle", {}).get("label", "UNKNOWN") for f in sys.argv[2:]]
ra, rb = (r["ratio_of_medians"] for r in sorted(rows, key=lambda r: r["config"]["pkg"]))
print(f"compare: new/old of package a {ra:.3f}, of package b {rb:.3f} (the rooms: {', '.join(labels)})")
if not any(label.startswith("CONTENDED") for label in labels):
    assert 0.5 < rb / ra < 2, (ra, rb, labels)
PY
"$NF" compare --allow-different-labels "$r1" "$r2" >"$WORK/compare.txt"
contains "$WORK/compare.txt" "pkg: example.com/twopkg/a"

# report: the gotest export keeps the pkg lines, so benchstat keys the same two rows.
"$NF" report --format gotest "$r1" >"$WORK/all.txt"
[[ $(grep -c "^pkg: example.com/twopkg/" "$WORK/all.txt") -ge 2 ]] || fail "report --format gotest: pkg lines"
"$NF" cv --format json "$WORK/all.txt" | python3 -c '
import json, sys
t = json.load(sys.stdin)["table"]
assert len(t["rows"]) == 2 and t["config_keys"] == ["pkg"], t["rows"]' || fail "the export read back: two rows"
if [[ -n "$oracle_src" ]]; then
  "$WORK/benchstat" "$WORK/all.txt" >"$WORK/bs.txt" 2>&1
  [[ $(grep -c "^Get-" "$WORK/bs.txt") == 2 ]] || { cat "$WORK/bs.txt"; fail "benchstat reads one row per package from the export"; }
fi
"$NF" report --html "$WORK/report.html" "$r1" >/dev/null
[[ $(grep -c "BenchmarkGet-[0-9]* (pkg: example.com/twopkg/" "$WORK/report.html") -ge 2 ]] || fail "report.html: a row per package"

# check: the recorded claim over the condition; a claim naming the benchmark is refused as ambiguous.
"$NF" check "$r1" >"$WORK/check.txt" || true
contains "$WORK/check.txt" "cv(idle) < 50%"
set +e
"$NF" check "$r1" --claim "cv(idle, $(cat "$WORK/cv.json.name")) < 50%" >"$WORK/check2.txt" 2>&1
set -e
contains "$WORK/check2.txt" "2 rows of that condition have that name"

# history: both runs, a cell per package, compared package to package.
"$NF" history --format json "$WORK/results/twopkg" >"$WORK/history.json"
python3 - "$WORK/history.json" <<'PY' || fail "history: a cell per package, matched by package"
import json, sys
h = json.load(open(sys.argv[1]))
assert len(h["runs"]) == 2, len(h["runs"])
for run in h["runs"]:
    names = sorted(c["name"] for c in run["cells"])
    assert len(names) == 2 and names[0] != names[1], names
second = h["runs"][1]["cells"]
assert all(c["change"]["kind"] != "not compared" or "n=" in c["change"]["reason"] for c in second), second
PY
echo "e2e_benchstat: ok"
