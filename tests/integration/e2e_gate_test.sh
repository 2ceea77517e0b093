#!/usr/bin/env bash
# The A/B gate at git refs end to end (README: Is my change faster?), on a git repository made
# here: commit A; B makes one benchmark 1.5x slower by construction and leaves the other as it
# was; C changes only a comment; D does not build; and an uncommitted edit. The `command` gate's
# ratio is exact (nf-burn's CPU time is its argument); the Go gate's effect is large (1.5x).
# Structure and large known effects only: no duration is asserted.
source "$(dirname "$0")/lib.sh"
BURN="$(realpath "${BURN:?set BURN to the nf-burn binary}")"
export XDG_CACHE_HOME="$WORK/cache"
unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY
repo="$WORK/repo"
mkdir -p "$repo"
cd "$repo"
git init -q -b main .
git config user.name gate-test
git config user.email gate@test.invalid

# A Go module whose two benchmarks each do N dependent multiply-adds per op: known CPU work.
bench_go() {
  cat >bench_test.go <<GO
package gatebench

import "testing"

var sink uint64

func chain(n int) uint64 {
	x := uint64(1)
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

// $3
func BenchmarkSlowed(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += chain($1)
	}
}

func BenchmarkSteady(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += chain($2)
	}
}
GO
}
printf 'module gatebench\n\ngo 1.19\n' >go.mod
bench_go 400000 400000 "the slowed benchmark"
printf '#!/bin/sh\nexec %q 0.04\n' "$BURN" >burn.sh
chmod +x burn.sh
cat >gate.yaml <<'YAML'
name: gate
benchmark:
  build: [go, test, -c, -o, bench.test, .]
  command: [./bench.test, "-test.run=^$", -test.bench=., -test.benchtime=20x]
  env: {CGO_ENABLED: "0"}
  samples: auto
  max_samples: 10
conditions:
  - name: idle
YAML
cat >burn.yaml <<'YAML'
name: burn
benchmark:
  command: [./burn.sh]
  format: command
  metric: cpu-sec/op
  samples: auto
  max_samples: 10
conditions:
  - name: idle
  - name: busy
    spinners: 1
YAML
printf '%s\n' '*.txt' 'bad.*' >.gitignore  # what this test writes beside the user's files
git add -A && git commit -qm A && A=$(git rev-parse HEAD)
bench_go 600000 400000 "the slowed benchmark"
printf '#!/bin/sh\nexec %q 0.06\n' "$BURN" >burn.sh
git commit -qam B && B=$(git rev-parse HEAD)
git checkout -q -b comment "$A"
bench_go 400000 400000 "the slowed benchmark, now with a longer comment"
git commit -qam C && C=$(git rev-parse HEAD)
git checkout -q -b broken "$A"
echo 'func broken( {' >>bench_test.go
git commit -qam D && D=$(git rev-parse HEAD)
git checkout -q main
index_before=$(sha256sum .git/index)

gate_json() { PYTHONPATH="$REPO/tests/integration" python3 - "$WORK/results/$1/latest/gate.json" "${@:2}"; }
# gate_known NAME OUT ERR ARGS...: `noisefloor run ARGS` into OUT and ERR, its exit status in $status.
# A known 1.5x change is called slower at the first look whatever the room's floors say (§3.13):
# run once, no retry.
gate_known() {
  local name=$1 out=$2 err=$3
  shift 3
  status=0
  "$NF" run "$@" --results "$WORK/results" >"$out" 2>"$err" || status=$?
}

# 1. The command gate B vs A: slower by exactly 1.5 in CPU time, confirmed, exit 4; the CI files.
: >"$WORK/summary.md"
status=0
GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY="$WORK/summary.md" \
  "$NF" run burn.yaml --base "$A" --head "$B" --results "$WORK/results" --comment "$WORK/c.md" \
  --junit "$WORK/j.xml" >out1.txt 2>err1.txt || status=$?
[ "$status" = 4 ] || { cat out1.txt err1.txt >&2; fail "gate B vs A (burn): exit $status, expected 4"; }
# The truth: base burns 0.04 s of CPU and head 0.06 s, each plus the same start-up (sh, exec,
# the loader: c), so head/base = (0.06 + c)/(0.04 + c): 1.5 less a little. c is this machine's:
# measured here, now, by starting the same script with nothing to burn, and the samples must
# agree with it; the difference head - base must be 0.02 s whatever c is.
printf '#!/bin/sh\nexec %q 0\n' "$BURN" >"$WORK/burn0.sh"
chmod +x "$WORK/burn0.sh"
gate_json burn "$WORK/results/burn/latest/samples.jsonl" "$WORK/burn0.sh" <<'PY' || fail "gate.json of the burn gate"
import json, os, resource, subprocess, sys
from statistics import median
g = json.load(open(sys.argv[1]))
samples = [json.loads(l) for l in open(sys.argv[2])]
def startup():  # the CPU time of one start of the script that burns nothing
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.argv[3]], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
c = median(startup() for _ in range(15))
print(f"start-up of sh and nf-burn here: {c * 1000:.2f} ms of CPU")
rows = {(r["condition"], r["unit"]): r for r in g["rows"]}
for cond in ("idle", "busy"):
    cpu = lambda side: [m["value"] for s in samples if s["condition"] == cond and s.get("block") == 1
                        and s["variant"].rstrip("'") == side for m in s["metrics"] if m["unit"] == "cpu-sec/op"]
    # Each sample is its burn plus a start-up that the room moves from sample to sample (CI at
    # 10e3014, busy: base 0.0513 and head 0.0679, 3.5 ms apart from the 20 ms): the difference of
    # the sides' medians is judged within the spread their own samples show, so a head that burns
    # more than 0.02 s beyond the start-ups' spread still fails.
    # The start-up c was measured after the run, in whatever the room was then: the base side's least
    # sample (the one the room disturbed least) is held to it, not its median.
    bs, hs = cpu("base"), cpu("head")
    b, h = median(bs), median(hs)
    spread = max(max(bs) - min(bs), max(hs) - min(hs))
    assert 0.04 <= min(bs) and min(bs) < 0.04 + 3 * c + 0.002, (cond, bs, c)
    assert abs((h - b) - 0.02) < 0.001 + spread, (cond, b, h, spread)
    # The truth with each side's own start-up (its median beyond its burn): (0.06 + s)/(0.04 + s)
    # for s between the two, a band that is one ratio when both sides started up alike.
    s_lo, s_hi = sorted((max(b - 0.04, 0), max(h - 0.06, 0)))
    truth_lo, truth_hi = (0.06 + s_hi) / (0.04 + s_hi), (0.06 + s_lo) / (0.04 + s_lo)
    r = rows[(cond, "cpu-sec/op")]
    assert r["verdict"] == "slower" and r["confirmed"] and r["gating"], r
    lo, hi = r["first"]["ci"]
    assert lo < truth_hi * 1.005 and hi > truth_lo * 0.995 and truth_lo <= 1.5, (cond, truth_lo, truth_hi, r["first"])
    # Two gating rows (idle, busy): one block keeps the gate's false alarms under 5%, no second.
    assert r["second"] is None, r
assert g["regression"] is True and g["confirm"] is False and g["gating_rows"] == 2, g
assert g["base"]["commit"] != g["head"]["commit"] and not g["head"]["dirty"]
PY
contains out1.txt "::error "
contains out1.txt "file=burn.yaml,line=2"  # the annotation points at burn.yaml's `benchmark:` key
contains "$WORK/summary.md" "slower"
cmp "$WORK/c.md" "$WORK/results/burn/latest/gate.md" || fail "--comment is not gate.md"
python3 - "$WORK/j.xml" <<'PY' || fail "junit.xml"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
failures = root.findall(".//failure")
assert len(failures) >= 1 and int(root.get("failures")) == len(failures), ET.tostring(root)
PY
python3 - "$WORK/results/burn/latest/fingerprint.json" "$A" "$B" <<'PY' || fail "the fingerprint records both sides"
import json, sys
g = json.load(open(sys.argv[1]))["run"]["gate"]
assert g["base"]["commit"] == sys.argv[2] and g["head"]["commit"] == sys.argv[3], g
assert len(g["base"]["tree"]) == 40 and g["head"]["dirty"] is False
PY

# cv of the gate's run shows its verdicts after the sides' table, as the run printed them.
"$NF" cv --format text "$WORK/results/burn/latest" >cv1.txt 2>cv1-err.txt || { cat cv1-err.txt >&2; fail "cv of a gate run"; }
contains cv1.txt "noisefloor gate: "
contains cv1.txt "gate: FAIL, "
grep -q "^base: ${A:0:7}" cv1.txt || { cat cv1.txt >&2; fail "cv of a gate run: no base line"; }

# 2. Again: both builds come from the cache (idle alone: the cache is the sides', not the conditions').
sed -e '/^  - name: busy$/,$d' -e "s|^benchmark:|benchmark:\n  workdir: $repo|" burn.yaml >"$WORK/cached.yaml"
grep -q spinners "$WORK/cached.yaml" && fail "cached.yaml still has the busy condition"
"$NF" run "$WORK/cached.yaml" --base "$A" --head "$B" --results "$WORK/results" >out2.txt 2>err2.txt || status=$?
[ "$(grep -c 'cached' err2.txt)" -ge 2 ] || { cat err2.txt >&2; fail "the second gate built again"; }

# 3. The Go gate B vs A: Slowed slower and confirmed, Steady never slower.
# --confirm here and in 4 and 5: two gating rows run one block, which calls an unchanged row slower
# in up to 2.5% of gates by design; a second block makes it 0.06%.
gate_known gate out3.txt err3.txt gate.yaml --base "$A" --head "$B" --confirm
[ "$status" = "$(gate_status gate)" ] || { cat out3.txt err3.txt >&2; fail "gate B vs A (go): exit $status, gate.json says $(gate_status gate)"; }
gate_json gate <<'PY' || fail "gate.json of the go gate"
import json, sys
g = json.load(open(sys.argv[1]))
prim = [r for r in g["rows"] if r["gating"]]
by = {r["benchmark"].split("-")[0]: r for r in prim}
from known_ratio import called
called(by["BenchmarkSlowed"], "slower", 1.5)
from known_ratio import false_alarms_within_floors
assert false_alarms_within_floors({"rows": [by["BenchmarkSteady"]]}), by["BenchmarkSteady"]
PY

# 3b. The same gate with the benchmark in a pinned container: each side runs in its own image.
sed 's/^  - name: idle$/  - name: pinned\n    container: {cpuset: "0"}/' gate.yaml >"$WORK/pinned.yaml"
sed -i "s|^benchmark:|benchmark:\n  workdir: $repo|" "$WORK/pinned.yaml"
gate_known gate out3b.txt err3b.txt "$WORK/pinned.yaml" --base "$A" --head "$B"
[ "$status" = "$(gate_status gate)" ] || { cat out3b.txt err3b.txt >&2; fail "gate B vs A (pinned container): exit $status"; }
[ "$(grep -c '^image: ' err3b.txt)" -ge 2 ] || { cat err3b.txt >&2; fail "one image per side expected"; }
python3 - "$WORK/results/gate/latest" "$REPO/tests/integration" <<'PY' || fail "the pinned gate's samples ran in each side's image"
import json, sys
g = json.load(open(sys.argv[1] + "/gate.json"))
slowed = [r for r in g["rows"] if r["gating"] and r["benchmark"].startswith("BenchmarkSlowed")][0]
assert slowed["condition"] == "pinned", slowed
sys.path.insert(0, sys.argv[2])
from known_ratio import called
called(slowed, "slower", 1.5)
run = json.load(open(sys.argv[1] + "/run.json"))
images = {}
for c in run["condition_records"]:
    for r in c["runs"]:
        images.setdefault(r["variant"].rstrip("'"), set()).add(r["details"]["container"]["image"])
assert len(images["base"]) == 1 and len(images["head"]) == 1 and images["base"] != images["head"], images
PY
docker ps -aq --filter label=noisefloor.run | grep -q . && fail "a container was left behind"

# 3c. A tool on PATH as the command (go test ./...): it builds and runs each side's own code in
# that side's checkout, so it is allowed, and its binary's hash (the same go) is not compared.
sed -e 's|^  build: .*$||' -e 's|^  command: .*$|  command: [go, test, "-run=^$", -bench=Slowed, -benchtime=20x, ./...]|' \
  gate.yaml >"$WORK/tool.yaml"
sed -i "s|^benchmark:|benchmark:\n  workdir: $repo|" "$WORK/tool.yaml"
gate_known gate out3c.txt err3c.txt "$WORK/tool.yaml" --base "$A" --head "$B"
[ "$status" = "$(gate_status gate)" ] || { cat out3c.txt err3c.txt >&2; fail "gate B vs A (go test ./...): exit $status"; }
grep -q "built the same binary" err3c.txt && fail "a tool's hash was taken for the benchmark's"
gate_json gate <<'PY' || fail "gate.json of the go test ./... gate"
import json, sys
g = json.load(open(sys.argv[1]))
rows = [r for r in g["rows"] if r["gating"]]
assert [r["benchmark"].split("-")[0] for r in rows] == ["BenchmarkSlowed"], rows
from known_ratio import called
called(rows[0], "slower", 1.5)
assert g["base"].get("binary_sha256", "") == "" and g["head"].get("binary_sha256", "") == "", g["base"]
PY

# 4. A comment-only change: exit 0, nothing confirmed slower.
status=0
"$NF" run gate.yaml --base "$A" --head "$C" --confirm --results "$WORK/results" >out4.txt 2>err4.txt || status=$?
no_alarm "$status" "$WORK/results/gate/latest/gate.json" || { cat out4.txt err4.txt >&2; fail "gate C vs A: exit $status, expected 0"; }

# The gates published to a store (README: Crowd replays): its page shows each gate's commits and
# verdict as the runs decided them, B vs A a regression, C vs A none.
"$NF" keys create --db "sqlite:$WORK/store.db" >"$WORK/store.key" 2>/dev/null || fail "keys create"
"$NF" serve --db "sqlite:$WORK/store.db" --listen 127.0.0.1:0 --rate-limit 0 2>"$WORK/serve.log" &
server=$!
trap 'kill "$server" 2>/dev/null; cleanup_work' EXIT
for _ in $(seq 100); do grep -q 'http://127.0.0.1:' "$WORK/serve.log" && break; sleep 0.1; done
store=$(grep -o 'http://127.0.0.1:[0-9]*' "$WORK/serve.log" | head -1)
[[ -n $store ]] || { cat "$WORK/serve.log" >&2; fail "the store did not start"; }
NOISEFLOOR_KEY="$(cat "$WORK/store.key")" "$NF" publish "$WORK/results/burn/latest" "$WORK/results/gate/latest" \
  --to "$store" >"$WORK/publish.out" 2>"$WORK/publish.err" ||
  { cat "$WORK/publish.out" "$WORK/publish.err" >&2; fail "publishing the gates"; }
curl -sf "$store/e/burn" >"$WORK/burn-page.html" && curl -sf "$store/e/gate" >"$WORK/gate-page.html" || fail "the gates' pages"
kill -INT "$server" && wait "$server" || true
trap cleanup_work EXIT
contains "$WORK/burn-page.html" "<td><code>${A:0:12}..${B:0:12}</code></td>"
contains "$WORK/burn-page.html" ">regression</td>"
contains "$WORK/gate-page.html" "<td><code>${A:0:12}..${C:0:12}</code></td>"
contains "$WORK/gate-page.html" ">no regression</td>"

# 5. The working tree: B with Slowed put back by an uncommitted edit is faster than B.
bench_go 400000 400000 "the slowed benchmark"
status=0
# The gate named in the experiment file: the same as --base B with the working tree as head.
cp gate.yaml "$WORK/named.yaml"
printf 'variants:\n  - {name: committed, ref: %s}\n  - {name: mine, worktree: true}\n' "$B" >>"$WORK/named.yaml"
sed -i "s|^benchmark:|benchmark:\n  workdir: $repo|" "$WORK/named.yaml"
"$NF" run "$WORK/named.yaml" --confirm --results "$WORK/results" >out5.txt 2>err5.txt || status=$?
no_alarm "$status" "$WORK/results/gate/latest/gate.json" || { cat out5.txt err5.txt >&2; fail "gate worktree vs B: exit $status, expected 0"; }
# the file names the sides, so the command that runs it again names no --base (it would be refused)
grep -qx "reproduce: noisefloor run $WORK/named.yaml --confirm" out5.txt || { cat out5.txt >&2; fail "reproduce line of a named gate"; }
gate_json gate <<'PY' || fail "gate.json of the working-tree gate"
import json, sys
g = json.load(open(sys.argv[1]))
assert g["head"]["worktree"] and g["head"]["dirty"] and g["head"]["changed"] == ["bench_test.go"], g["head"]
slowed = [r for r in g["rows"] if r["gating"] and r["benchmark"].startswith("BenchmarkSlowed")][0]
# Faster (2/3 of the work), whatever the room's floors said.
from known_ratio import called
called(slowed, "faster", 2 / 3)
PY

# 5b. Google Benchmark through a CMake build: a repository of its own, B 1.5x A's work in BM_Slowed.
grepo="$WORK/grepo"
mkdir -p "$grepo" && cd "$grepo"
git init -q -b main . && git config user.name gate-test && git config user.email gate@test.invalid
gbench_cc() {
  cat >bench.cc <<CC
#include <benchmark/benchmark.h>
#include <cstdint>
static std::uint64_t chain(int n) {
  std::uint64_t x = 1;
  for (int i = 0; i < n; ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  return x;
}
static void BM_Slowed(benchmark::State& s) { for (auto _ : s) benchmark::DoNotOptimize(chain($1)); }
static void BM_Steady(benchmark::State& s) { for (auto _ : s) benchmark::DoNotOptimize(chain(400000)); }
BENCHMARK(BM_Slowed);
BENCHMARK(BM_Steady);
BENCHMARK_MAIN();
CC
}
gbench_cc 400000
cat >CMakeLists.txt <<'CMAKE'
cmake_minimum_required(VERSION 3.13)
project(gatebench CXX)
find_package(benchmark REQUIRED)
add_executable(bench bench.cc)
target_compile_options(bench PRIVATE -O2)
target_link_libraries(bench benchmark::benchmark)
CMAKE
printf '#!/bin/sh\nset -e\ncmake -S . -B b -DCMAKE_BUILD_TYPE=Release >/dev/null\ncmake --build b >/dev/null\n' >build.sh
chmod +x build.sh
cat >gbench.yaml <<'YAML'
name: gbench-gate
benchmark:
  build: [./build.sh]
  command: [./b/bench, --benchmark_min_time=0.05]
  format: gbench-json
  samples: auto
  max_samples: 10
conditions:
  - name: idle
YAML
printf 'b/\nout*.txt\nerr*.txt\n' >.gitignore
git add -A && git commit -qm A && GA=$(git rev-parse HEAD)
gbench_cc 600000
git commit -qam B && GB=$(git rev-parse HEAD)
status=0
# --confirm: with two gating rows one block keeps the gate's false alarms under 5%, so BM_Steady
# would be called slower in up to 2.5% of runs by design; a second block makes that 0.06%.
"$NF" run gbench.yaml --base "$GA" --head "$GB" --confirm --results "$WORK/results" >out5b.txt 2>err5b.txt || status=$?
[ "$status" = "$(gate_status gbench-gate)" ] || { cat out5b.txt err5b.txt >&2; fail "gate B vs A (Google Benchmark): exit $status"; }
gate_json gbench-gate <<'PY' || fail "gate.json of the Google Benchmark gate"
import json, sys
from known_ratio import called
g = json.load(open(sys.argv[1]))
by = {r["benchmark"]: r for r in g["rows"] if r["gating"]}
called(by["BM_Slowed"], "slower", 1.5)
# Beside outside work the pairs need not be symmetric (a busy loop per CPU at 10e3014: BM_Steady
# +5.1% [+0.5%, +11.6%], with the B/B floor failed at ±7.1%): a regression called on the unchanged
# benchmark must then be within what the room moved between two runs of one binary.
from known_ratio import false_alarms_within_floors
assert false_alarms_within_floors({"rows": [by["BM_Steady"]]}), by["BM_Steady"]
PY
[ ! -e "$grepo/b" ] || fail "the build ran in the user's checkout"
cd "$repo"

# 6. Bad input: one line each, exit 2 (1 for a build that fails, with its output).
expect() {  # expect STATUS TEXT -- ARGS...
  local want="$1" text="$2" got=0
  shift 3
  "$NF" run "$@" --results "$WORK/results" >bad.out 2>bad.err || got=$?
  [ "$got" = "$want" ] || { cat bad.out bad.err >&2; fail "run $*: exit $got, expected $want"; }
  contains bad.err "$text"
}
expect 2 "unknown git ref 'nosuch'" -- gate.yaml --base nosuch
expect 1 "the build step failed" -- gate.yaml --base "$A" --head "$D"
contains bad.err "    | "
expect 2 "uncommitted changes (bench_test.go)" -- gate.yaml --base "$A" --head HEAD
expect 2 "add --base" -- gate.yaml --head "$B"
mkdir -p "$WORK/outside" && cp gate.yaml "$WORK/outside/"
expect 2 "is not in a git repository" -- "$WORK/outside/gate.yaml" --base main

# 7. The user's checkout is untouched: index, changes, and only the cache's worktrees.
[ "$(sha256sum .git/index)" = "$index_before" ] || fail "the user's index changed"
[ "$(git status --porcelain)" = " M bench_test.go" ] || { git status --porcelain >&2; fail "the working tree changed"; }
git worktree list --porcelain | awk '/^worktree /{print $2}' | tail -n +2 | while read -r w; do
  case "$w" in "$XDG_CACHE_HOME"/noisefloor/builds/*) ;; *) fail "a worktree outside the cache: $w" ;; esac
done
echo "e2e_gate: ok"
