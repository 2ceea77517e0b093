#!/usr/bin/env bash
# noisefloor run --resume: a run killed (SIGKILL: no run.json) or interrupted (SIGINT) goes on
# where it stopped, in a new session of the same run directory; what is there is kept, only what
# is missing is measured, and the record says which sample came from which session. Refused: a
# complete run, another experiment file, a run still in progress.
source "$(dirname "$0")/lib.sh"
BURN="$(realpath "${BURN:?set BURN to the nf-burn test program}")"
cd "$WORK"

cat >seq.yaml <<YAML
name: seq
benchmark:
  build: [/usr/bin/touch, $WORK/built]
  command: [$BURN, "0.02"]
  format: command
  samples: 30
  warmup: 1
  workdir: $WORK
  env: {NF_RESUME_TEST: "1"}
settle: 0s
conditions:
  - name: idle
  - name: noisy
    spinners: {count: 1}
    env: {NF_NOISY: "yes"}
noise_profile: 0s
YAML
run_dir_of() { ls -d "$WORK/results/$1"/2*/ 2>/dev/null | head -1 || true; }

# --- killed (SIGKILL) partway through the second condition: no run.json ---
"$NF" run -q seq.yaml --results "$WORK/results" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 300); do [[ -n "$(run_dir_of seq)" ]] && break; sleep 0.1; done
dir=$(run_dir_of seq)
wait_lines "$dir/samples.jsonl" 40   # idle done (31), noisy started
kill -KILL "$pid"; wait "$pid" 2>/dev/null || true
before=$(grep -c '}$' "$dir/samples.jsonl")
(( before < 62 )) || fail "the run ended before it could be killed"
[[ ! -e "$dir/run.json" ]] || fail "a SIGKILLed run should have no run.json"
# Without the experiment named, nothing runs (a result directory may come from anyone): exit 2,
# what it would run, and the command to type.
rm -f "$WORK/built"
set +e; "$NF" run --resume "$dir" >out.txt 2>err.txt; code=$?; set -e
[[ $code -eq 2 ]] || { cat err.txt >&2; fail "resume without the experiment named: exit $code, expected 2"; }
[[ ! -e "$WORK/built" ]] || fail "resume without the experiment named ran its build step"
(( $(grep -c '}$' "$dir/samples.jsonl") == before )) || fail "resume without the experiment named measured"
[[ "$(cat err.txt)" == "--resume $dir: resuming runs the commands of the experiment this run names, $WORK/seq.yaml (build: \"/usr/bin/touch\" \"$WORK/built\"; benchmark: \"$BURN\" \"0.02\"; workdir: \"$WORK\"; env: \"NF_RESUME_TEST\"=\"1\"; env of \"noisy\": \"NF_NOISY\"=\"yes\"); name it to go on: \`noisefloor run $WORK/seq.yaml --resume $dir\`" ]] ||
  { cat err.txt >&2; fail "resume without the experiment named: the message"; }
"$NF" run seq.yaml --resume "$dir" >out.txt 2>err.txt || { cat err.txt >&2; fail "resume after SIGKILL failed"; }
contains err.txt "resuming: $before sample(s) from the run's earlier session(s) are kept"
python3 - "$dir" "$before" "$WORK/results" <<'PY' || fail "resume after SIGKILL: see above"
import collections, json, sys
d, before = sys.argv[1], int(sys.argv[2])
samples = [json.loads(l) for l in open(f"{d}/samples.jsonl")]
run = json.load(open(f"{d}/run.json"))
problems = []
if len(samples) != 62: problems.append(f"{len(samples)} samples, expected 2 × (30 + 1 warm-up)")
for cond in ("idle", "noisy"):
    kept = [s for s in samples if s["condition"] == cond and not s["warmup"]]
    warm = [s for s in samples if s["condition"] == cond and s["warmup"]]
    if len(kept) != 30 or len(warm) != 1: problems.append(f"{cond}: {len(kept)} kept + {len(warm)} warm-up")
    if sorted(s["index"] for s in samples if s["condition"] == cond) != list(range(31)):
        problems.append(f"{cond}: indexes do not run 0..30")
sessions = collections.Counter(s.get("session", 0) for s in samples)
if sessions[0] != before or sessions[1] != 62 - before: problems.append(f"sessions {dict(sessions)}")
if run["status"] != "complete": problems.append(f"status {run['status']}")
if [s["status"] for s in run["sessions"]] != ["failed", "complete"]: problems.append(f"sessions {run['sessions']}")
if not run["sessions"][0]["command_line"].endswith("run -q seq.yaml --results " + sys.argv[3]):
    problems.append(f"the killed session's command line: {run['sessions'][0]['command_line']!r}")
if any(b.get("session", 0) != 1 for b in run["condition_records"]): problems.append("a new block without its session")
n = {r["condition"]: r["summary"]["n"] for r in json.load(open(f"{d}/summary.json"))["table"]["rows"]}
if n != {"idle": 30, "noisy": 30}: problems.append(f"table n {n}")
for p in problems: print("  " + p)
sys.exit(1 if problems else 0)
PY
check "latest moved to the completed run" test "$(readlink "$WORK/results/seq/latest")" = "$(basename "$dir")"

# --- a complete run has nothing to resume ---
set +e; "$NF" run --resume "$dir" >/dev/null 2>err.txt; code=$?; set -e
[[ $code -eq 2 ]] || fail "resume of a complete run: exit $code, expected 2"
contains err.txt "the run is complete: nothing to resume"

# --- a crafted directory: samples.jsonl a link to another file is never written through ---
# (the other file holds valid samples, so reading succeeds; a torn last line would be cut)
for kind in symlink hardlink; do
  crafted="$WORK/crafted-$kind"
  rm -rf "$crafted"; cp -r "$dir" "$crafted"; rm -f "$crafted/run.json"
  cp "$dir/samples.jsonl" "$WORK/victim-$kind"; printf '{"torn' >>"$WORK/victim-$kind"
  cp "$WORK/victim-$kind" "$WORK/victim-$kind.before"
  rm "$crafted/samples.jsonl"
  if [[ $kind == symlink ]]; then ln -s "$WORK/victim-$kind" "$crafted/samples.jsonl"; else ln "$WORK/victim-$kind" "$crafted/samples.jsonl"; fi
  rm -f "$WORK/built"
  set +e; "$NF" run seq.yaml --resume "$crafted" >/dev/null 2>err.txt; code=$?; set -e
  [[ $code -eq 2 ]] || { cat err.txt >&2; fail "resume through a $kind: exit $code, expected 2"; }
  # Refused before the experiment's build step runs (issue 42, item 8).
  [[ ! -e "$WORK/built" ]] || fail "resume through a $kind ran the build step before refusing"
  cmp -s "$WORK/victim-$kind" "$WORK/victim-$kind.before" || fail "resume wrote through a $kind"
  if [[ $kind == symlink ]]; then
    # read back first, as every file of a results tree is: a link is never followed
    contains err.txt "crafted-symlink/samples.jsonl: a symbolic link, never followed: a result's samples.jsonl is a file of its own"
  else
    contains err.txt "samples.jsonl: has 2 names (hard links): a run's samples.jsonl is its own file; refusing to resume through it"
  fi
done

# --- interrupted (SIGINT) paired run: run.json says interrupted; resumed, every pair is complete ---
cat >pair.yaml <<YAML
name: pair
benchmark:
  command: [$BURN]
  format: command
  samples: 12
  metric: cpu
settle: 0s
noise_profile: 0s
variants:
  - {name: once, args: ["0.05"]}
  - {name: thrice, args: ["0.15"]}
conditions:
  - name: idle
YAML
"$NF" run -q pair.yaml --results "$WORK/results" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 300); do [[ -n "$(run_dir_of pair)" ]] && break; sleep 0.1; done
dir=$(run_dir_of pair)
wait_lines "$dir/samples.jsonl" 15
kill -INT "$pid"
set +e; wait "$pid"; code=$?; set -e
[[ $code -eq 130 ]] || fail "pair: SIGINT gave exit $code"
contains "$dir/run.json" '"status": "interrupted"'
# Without the experiment named, the refusal shows each variant's own command too (the adversarial
# re-test of issue 42: a condition's or a variant's args were hidden from the preview).
set +e; "$NF" run --resume "$dir" >/dev/null 2>err.txt; code=$?; set -e
[[ $code -eq 2 ]] || fail "pair: resume without the experiment named: exit $code, expected 2"
contains err.txt "benchmark: \"$BURN\"; variant \"once\": \"$BURN\" \"0.05\"; variant \"thrice\": \"$BURN\" \"0.15\")"
# ... and a container condition's image and what it asks beyond the defaults, and the hosts (its
# copy doctored here, as a result's author could: nothing runs, all of it is shown).
cp -r "$dir" "$WORK/doctored-run"
cat >>"$WORK/doctored-run/experiment.yaml" <<'YAML'
  - name: boxed
    container: {network: host, read_only: false, user: root, env: {LD_PRELOAD: /tmp/x.so}}
hosts: ["tcp://evil.example:2375"]
YAML
set +e; "$NF" run --resume "$WORK/doctored-run" >/dev/null 2>err.txt; code=$?; set -e
[[ $code -eq 2 ]] || { cat err.txt >&2; fail "a doctored run's resume: exit $code, expected 2"; }
contains err.txt "container of \"boxed\": image \"auto\", network \"host\", user \"root\", writable root, env \"LD_PRELOAD\"=\"/tmp/x.so\""
contains err.txt "; hosts: \"tcp://evil.example:2375\")"
# Another experiment file is refused; the same one (here given explicitly) is accepted.
sed 's/samples: 12/samples: 13/' pair.yaml >other.yaml
set +e; "$NF" run other.yaml --resume "$dir" >/dev/null 2>err.txt; code=$?; set -e
[[ $code -eq 2 ]] || fail "resume with another experiment: exit $code, expected 2"
contains err.txt "other.yaml: not the experiment the run in $dir was started with"
# A run whose copy of its experiment is a FIFO: named as such in one line, never read (no hang).
cp -r "$dir" "$WORK/fifo-run" && rm "$WORK/fifo-run/experiment.yaml" && mkfifo "$WORK/fifo-run/experiment.yaml"
set +e; timeout 20 "$NF" run pair.yaml --resume "$WORK/fifo-run" >/dev/null 2>err.txt; code=$?; set -e
[[ $code -eq 2 ]] || { cat err.txt >&2; fail "resume of a run whose experiment.yaml is a FIFO: exit $code, expected 2"; }
contains err.txt "$WORK/fifo-run/experiment.yaml: not a regular file (a FIFO)"
"$NF" run -q pair.yaml --resume "$dir" >/dev/null 2>err.txt || { cat err.txt >&2; fail "pair: resume failed"; }
python3 - "$dir" <<'PY' || fail "pair resume: see above"
import json, sys
d = sys.argv[1]
summary = json.load(open(f"{d}/summary.json"))
run = json.load(open(f"{d}/run.json"))
problems = []
pairs = {(r["variant"]): len(r["ratios"]) for r in summary["paired"]}
if pairs != {"thrice": 12, "A/A": 12}: problems.append(f"pairs {pairs}")
gm = next(r["gm"] for r in summary["paired"] if r["variant"] == "thrice")
# Each invocation costs its burn (0.05 s, 0.15 s) and a start-up of this machine's, o: the ratio is
# (0.15 + o) / (0.05 + o), 3 at o = 0. o is bounded by the wall time of the no-ops the run launched
# the same way (run.json's launcher noop_s; beside a busy loop per CPU at 4313c45 and its review the
# ratio was 2.61, o about 12 ms).
def noops(x):
    if isinstance(x, dict):
        for k, v in x.items():
            yield from (v if k == "noop_s" else noops(v))
    elif isinstance(x, list):
        for v in x:
            yield from noops(v)
o = sorted(noops(run))
o = o[len(o) // 2] if o else 0.0
least = (0.15 + o) / (0.05 + o)
if not 0.9 * least < gm < 3.3:
    problems.append(f"thrice/once CPU-time ratio {gm}, nf-burn's is 3 ({least:.2f} with the run's no-op {o:.4f} s)")
if [s["status"] for s in run["sessions"]] != ["interrupted", "complete"]: problems.append(f"sessions {run['sessions']}")
for p in problems: print("  " + p)
sys.exit(1 if problems else 0)
PY

# --- a run still going on cannot be resumed ---
sed 's/samples: 30/samples: 400/' seq.yaml >long.yaml
"$NF" run -q long.yaml --results "$WORK/results2" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 300); do dir=$(ls -d "$WORK"/results2/seq/2*/ 2>/dev/null | head -1 || true); [[ -n "$dir" ]] && break; sleep 0.1; done
wait_lines "$dir/samples.jsonl" 2
set +e; "$NF" run long.yaml --resume "$dir" >/dev/null 2>err.txt; code=$?; set -e
kill -INT "$pid"; wait "$pid" 2>/dev/null || true
[[ $code -eq 1 ]] || { cat err.txt >&2; fail "resume of a running run: exit $code, expected 1"; }
contains err.txt "a noisefloor run is still writing it"
echo "e2e resume: ok"
