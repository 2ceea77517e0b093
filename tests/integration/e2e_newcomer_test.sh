#!/usr/bin/env bash
# A new user's mistakes (issue 15), each with the exact answer it gets and its exit code, and the
# README's promises that used to be false: raw files in Go benchmark format that cv reads back,
# one rule for results from different rooms, an unpaired design that says so, an anchor that
# says when nothing matched. Real binary, real processes, the real Docker engine (one container
# run); short commands (sleeps of 10 ms) throughout.
source "$(dirname "$0")/lib.sh"
WORK="$(realpath "$WORK")"
cd "$WORK"

lines_of() { wc -l <"$1"; }

commands='run, validate, cv, compare, report, check, errata, history, gc, fingerprint, doctor, serve, keys, publish'

# --- the command line ---
expect_exit 2 runn -- "$NF" runn
same_text runn.err "noisefloor: unknown command \"runn\" (did you mean \`noisefloor run\`?): the commands are $commands"
expect_exit 2 frob -- "$NF" frobnicate
same_text frob.err "noisefloor: unknown command \"frobnicate\": the commands are $commands (\`noisefloor --help\`)"
expect_exit 2 none -- "$NF"
same_text none.err "noisefloor: give a command: $commands (\`noisefloor --help\` says what each does; \`make bench-docker\` runs the demo)"
expect_exit 0 help -- "$NF" help
contains help.out 'Subcommands:'
contains help.out '  cv                          recompute the table'
expect_exit 0 help-cv -- "$NF" help cv
contains help-cv.out 'Usage: noisefloor cv [OPTIONS] paths...'
expect_exit 2 result -- "$NF" run --result x whatever.yaml
same_text result.err 'noisefloor: run: unknown option --result (did you mean --results?)'
expect_exit 2 thresh -- "$NF" compare --threshhold=2% a b
same_text thresh.err 'noisefloor: compare: unknown option --threshhold (did you mean --threshold?)'
expect_exit 2 cv-none -- "$NF" cv
same_text cv-none.err 'noisefloor: cv: paths is required (`noisefloor cv --help` lists what it takes)'
# doctor --help: every option's description in its column (CLI11's "Excludes:" pushed it out)
expect_exit 0 doctor-help -- "$NF" doctor --help
grep -qE '^  --apply +root: make the safe' doctor-help.out || { cat doctor-help.out >&2; fail "doctor --help: --apply"; }
grep -qE '^  --restore +root: write back' doctor-help.out || { cat doctor-help.out >&2; fail "doctor --help: --restore"; }
expect_exit 2 apply-restore -- "$NF" doctor --apply --restore
same_text apply-restore.err 'doctor: --apply and --restore undo each other: give one of them'

# --threshold as a percentage, as experiment files write it, or as a fraction
gt="$REPO/tests/data/gotest"
expect_exit 0 pct -- "$NF" compare --threshold 1% "$gt/makebuffer_go_test.txt" "$gt/makebuffer_benchmem_count3.txt"
expect_exit 0 frac -- "$NF" compare --threshold 0.01 "$gt/makebuffer_go_test.txt" "$gt/makebuffer_benchmem_count3.txt"
cmp pct.out frac.out || fail "--threshold 1% and 0.01 differ"
expect_exit 2 pct-bad -- "$NF" compare --threshold 100% "$gt/makebuffer_go_test.txt" "$gt/makebuffer_go_test.txt"
same_text pct-bad.err '--threshold: expected a percentage such as 2% (or a fraction such as 0.02), got "100%"'

# --- experiment files ---
# tiny FILE NAME [EXTRA_BENCHMARK_YAML] [SECONDS] [SAMPLES] [CONDITIONS_YAML]: a command benchmark
# of sleeps (3 of 10 ms, on the idle host, by default)
tiny() {
  cat >"$1" <<YAML
name: $2
benchmark:
  command: [/bin/sleep, "${4:-0.01}"]
  format: command
  samples: ${5:-3}
${3:-}
settle: 0s
conditions:
${6:-  - name: idle}
YAML
}
mkdir -p exps empty
tiny exps/a.yaml a
tiny exps/b.yaml b
expect_exit 2 dir -- "$NF" run exps --results "$WORK/never"
same_text dir.err 'exps: is a directory, not an experiment file: give one of its experiment files: exps/a.yaml, exps/b.yaml'
expect_exit 2 dir-empty -- "$NF" run empty
same_text dir-empty.err 'empty: is a directory, not an experiment file, and holds no .yaml file: give an experiment file (e.g. experiments/laptop.yaml)'
printf 'name: c\nbenchmark:\n  command: [/bin/true]\n  samples: 1\nconditions: [{name: a}]\n' >exps/c.yaml
expect_exit 2 validate -- "$NF" validate exps/a.yaml exps/c.yaml missing.yaml exps/b.yaml
same_text validate.out "exps/a.yaml: ok (1 condition, 3 samples each, sequential)
  3 samples of each benchmark in 3 invocations, 1 block: 1 s of noise profile, settle and cooldown, plus the samples' own time (not known before they run: a command's time is its own)
exps/b.yaml: ok (1 condition, 3 samples each, sequential)
  3 samples of each benchmark in 3 invocations, 1 block: 1 s of noise profile, settle and cooldown, plus the samples' own time (not known before they run: a command's time is its own)"
same_text validate.err 'exps/c.yaml:4:12: benchmark.samples: expected a whole number of samples ≥ 2 or auto, got 1
missing.yaml: cannot read the experiment file: no such file
noisefloor: 2 of 4 experiment files failed validation'
expect_exit 0 validate-good -- "$NF" validate exps/a.yaml exps/b.yaml

# workdir: a directory that does not exist, or a file, is refused at its place before anything runs
tiny wd.yaml wd "  workdir: nowhere
  build: [touch, $WORK/built]"
expect_exit 2 workdir -- "$NF" run wd.yaml --results "$WORK/never"
same_text workdir.err 'wd.yaml:6:12: benchmark.workdir: "nowhere" (nowhere) does not exist: give a directory that exists, relative to the experiment file'"'"'s directory'
touch afile
sed -i 's/workdir: nowhere/workdir: afile/' wd.yaml
expect_exit 2 workdir-file -- "$NF" run wd.yaml --results "$WORK/never"
same_text workdir-file.err 'wd.yaml:6:12: benchmark.workdir: "afile" (afile) is not a directory: give a directory that exists, relative to the experiment file'"'"'s directory'
check "the build step ran" test ! -e "$WORK/built"
check "results were written" test ! -e "$WORK/never"

# --results that cannot hold results: said before the build step runs (exit 2)
tiny res.yaml res "  build: [touch, $WORK/built]"
expect_exit 2 results-file -- "$NF" run res.yaml --results afile/sub
same_text results-file.err '--results afile/sub: afile is a file, not a directory: give a directory where noisefloor may create result directories'
check "the build step ran before --results was checked" test ! -e "$WORK/built"
# a directory named `latest` where the link to the last complete run goes: said before anything runs
mkdir -p "$WORK/lat/res/latest"
expect_exit 2 results-latest -- "$NF" run res.yaml --results "$WORK/lat"
same_text results-latest.err "--results $WORK/lat: $WORK/lat/res/latest is a directory, where noisefloor keeps the link to the last complete run: move it away (nothing has run)"
check "the build step ran before latest was checked" test ! -e "$WORK/built"

# --- errors: one line, quoted output below it ---
tiny fb.yaml fb "  build: [/bin/false]"
expect_exit 1 build-fails -- "$NF" run -q fb.yaml --results "$WORK/r"
same_text build-fails.err 'noisefloor: the build step failed (exit code 1); its output was empty'
tiny bf.yaml bf
sed -i 's|command: \[/bin/sleep, "0.01"\]|command: [/bin/sh, -c, "echo oops >\&2; exit 3"]|' bf.yaml
expect_exit 1 bench-fails -- "$NF" run -q bf.yaml --results "$WORK/r"
[[ $(lines_of bench-fails.err) -eq 2 ]] || { cat bench-fails.err >&2; fail "a failed benchmark: expected the error line and one quoted line"; }
run_dir="$(ls -d "$WORK"/r/bf/2*)"
same_text bench-fails.err "noisefloor: condition 'idle', run 1 of 3: the benchmark exited with code 3 (0 sample(s) arrived before it); the 0 sample(s) measured so far are kept in $run_dir; last lines of its stderr:
    | oops"

# --- raw files: Go benchmark format, read back by cv ---
tiny exps/tiny.yaml tiny
expect_exit 0 tiny-run -- "$NF" run -q exps/tiny.yaml --results "$WORK/results"
raw="$WORK/results/tiny/latest/idle.txt"
python3 - "$raw" <<'PY' || fail "idle.txt is not Go benchmark format"
import re, sys
# golang.org/x/perf/benchfmt: a result line is Benchmark<Name> <iterations> (<value> <unit>)+, the
# name starting with "Benchmark" and then not a lower-case letter; a configuration line is
# "key: value" with a key of no upper-case letters or spaces.
result = re.compile(r"^Benchmark(?![a-z])\S*\t\d+(\t[-+0-9.eE]+ \S+)+$")
config = re.compile(r"^[^A-Z\s:]+: .*$")
results = 0
for line in open(sys.argv[1]).read().splitlines():
    if line.startswith("#") or not line:
        continue
    if line.startswith("Benchmark"):
        if not result.match(line):
            sys.exit(f"not a result line: {line!r}")
        if not line.startswith("BenchmarkTiny\t1\t") or " sec/op\t" not in line:
            sys.exit(f"unexpected name or unit: {line!r}")
        results += 1
    elif not config.match(line):
        sys.exit(f"neither configuration nor result: {line!r}")
if results != 3:
    sys.exit(f"{results} result lines, expected 3")
PY
expect_exit 0 cv-raw -- "$NF" cv --format csv "$raw"
contains cv-raw.out 'idle,BenchmarkTiny,'
expect_exit 0 export -- "$NF" report "$WORK/results/tiny" --format gotest
grep -q $'^BenchmarkTiny\t1\t' export.out || { cat export.out >&2; fail "report --format gotest: names"; }

# --- cv on what is not one result ---
# an experiment whose only run was interrupted, beside a completed one
tiny exps/slow.yaml slow "" 0.2 20 "  - name: idle
  - name: noisy
    spinners: 1"
"$NF" run -q exps/slow.yaml --results "$WORK/results" >slow.out 2>slow.err &
pid=$!
for _ in $(seq 600); do
  f="$(ls "$WORK"/results/slow/*/samples.jsonl 2>/dev/null | head -1 || true)"
  [[ -n "$f" && $(wc -l <"$f") -ge 2 ]] && break
  sleep 0.05
done
kill -INT "$pid"
set +e; wait "$pid"; code=$?; set -e
[[ $code -eq 130 ]] || { cat slow.err >&2; fail "interrupted run: exit $code"; }
slow="$(ls -d "$WORK"/results/slow/2*)"
expect_exit 2 cv-experiment -- "$NF" cv results/slow
same_text cv-experiment.err "results/slow: no run of this experiment completed (no \`latest\` here); its 1 run(s): $(basename "$slow") (interrupted): read one with \`noisefloor cv results/slow/$(basename "$slow")\`, or finish it with \`noisefloor run EXPERIMENT --resume results/slow/$(basename "$slow")\` (EXPERIMENT: the file it was started with)"
expect_exit 2 cv-top -- "$NF" cv results
same_text cv-top.err 'results: a directory of experiments'"'"' results, not one result: it holds slow (no completed run), tiny: give one, e.g. `noisefloor cv results/tiny` (its latest run)'
expect_exit 0 cv-interrupted -- "$NF" cv --format csv "$slow"
kept="$(grep -c '"condition":"idle"' "$slow/samples.jsonl" || true)"
same_text cv-interrupted.err "warning: $slow: this run did not complete (interrupted); samples kept per condition: idle $kept of 20 (short); not measured: noisy; \`noisefloor run exps/slow.yaml --resume $slow\` measures the rest"

# a missing path is a usage error (2) for every reader
for verb in cv report; do
  expect_exit 2 "missing-$verb" -- "$NF" "$verb" nowhere
  same_text "missing-$verb.err" 'nowhere: no such file or directory (expected a results directory or a go test -bench output file)'
done
expect_exit 2 missing-compare -- "$NF" compare nowhere "$raw"
same_text missing-compare.err 'compare: old side "nowhere": no such file or directory (expected a result directory or a go test -bench output file)'

# --- rooms ---
# The same sleep on the host and in a container, this machine: the container run recorded the
# engine's facts, the host run did not need them; neither they nor the image id make another room.
tiny exps/boxed.yaml boxed "" 0.01 3 "  - name: boxed
    container: {cpuset: \"0\", cpus: 1}"
expect_exit 0 boxed-run -- "$NF" run -q exps/boxed.yaml --results "$WORK/results"
expect_exit 0 same-room -- "$NF" cv --format csv results/tiny results/boxed
[[ ! -s same-room.err ]] || { cat same-room.err >&2; fail "the same machine called another room"; }
expect_exit 0 same-room-compare -- "$NF" compare results/tiny results/boxed
if grep -q 'NOT COMPARABLE' same-room-compare.out same-room-compare.err; then fail "compare: same room called different"; fi
# Another room (a copy whose CPU is another): refused, the fields listed once on stderr.
cp -r "$(realpath results/tiny/latest)" elsewhere
python3 - elsewhere/fingerprint.json <<'PY'
import json, sys
p = sys.argv[1]
j = json.load(open(p))
j["host"]["cpu"]["model_name"]["value"] = "Apple M4 Max"
json.dump(j, open(p, "w"))
PY
here="$(realpath results/tiny/latest)"
model="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["host"]["cpu"]["model_name"]["value"])' "$here/fingerprint.json")"
# Every reader, and cv in each of its formats: refused with nothing on stdout and the block once
# on stderr; with the flag, the output on stdout and the warning once on stderr.
for case in cv:text cv:markdown cv:json cv:csv cv:summary report:json check compare; do
  verb="${case%%:*}" name="rooms-${case/:/-}" extra=()
  [[ $case == *:* ]] && extra=(--format "${case#*:}")
  [[ $verb == check ]] && extra=(--claim 'n(elsewhere:idle) >= 2')
  expect_exit 2 "$name" -- "$NF" "$verb" "$here" elsewhere "${extra[@]}"
  [[ ! -s "$name.out" ]] || fail "$case: printed on stdout although it refused"
  [[ $(grep -c 'NOT COMPARABLE' "$name.err") -eq 1 ]] || { cat "$name.err" >&2; fail "$case: the block once"; }
  contains "$name.err" "host.cpu.model_name: $model"
  contains "$name.err" "Apple M4 Max"
  contains "$name.err" "noisefloor: $verb: the results come from different rooms (the fields above): their numbers are not comparable; pass --allow-different-hosts to"
  expect_exit 0 "$name-allowed" -- "$NF" "$verb" "$here" elsewhere "${extra[@]}" --allow-different-hosts
  [[ -s "$name-allowed.out" ]] || fail "$case --allow-different-hosts: nothing on stdout"
  [[ $(grep -c '^warning: different rooms, used together because of --allow-different-hosts:$' "$name-allowed.err") -eq 1 ]] ||
    { cat "$name-allowed.err" >&2; fail "$case --allow-different-hosts: the warning once"; }
  if grep -q 'NOT COMPARABLE\|different rooms' "$name-allowed.out"; then fail "$case: the rooms block on stdout"; fi
done

# cv's JSON carries the differences as data (as compare's does), not the warning's text
python3 - rooms-cv-json-allowed.out "$here" "$model" "$WORK/elsewhere" <<'PY' || fail "cv --format json: the differences"
import json, sys
doc = json.load(open(sys.argv[1]))
moving = [d for d in doc["differences"] if d["moves_benchmarks"]]
assert moving == [{"sources": [sys.argv[2], sys.argv[4]], "field": "host.cpu.model_name",
                   "values": [sys.argv[3], "Apple M4 Max"], "moves_benchmarks": True}], moving
PY

# doctor and fingerprint read the same fact about running in a container
expect_exit 0 fp -- "$NF" fingerprint --json
set +e; "$NF" doctor --json >doctor.json 2>/dev/null; set -e
python3 - fp.out doctor.json <<'PY' || fail "doctor and fingerprint disagree about the container"
import json, sys
fp = json.load(open(sys.argv[1]))
inside = fp["host"]["container"]["inside"]["value"]
doctor = json.load(open(sys.argv[2]))
findings = [f for f in doctor["findings"] if f["topic"] == "container"]
if inside:
    assert findings and findings[0]["level"] == "WARN", (inside, findings)
else:
    assert all("not in a container" in f["message"] and f["level"] == "OK" for f in findings), (inside, findings)
print(f"container: fingerprint says {inside}, doctor {[f['message'] for f in findings]}")
PY

# --- the paired design's outputs ---
cat >exps/blocks.yaml <<YAML
name: blocks
benchmark:
  command: [/bin/sleep]
  format: command
  samples: 3
settle: 0s
variants:
  - {name: short, args: ["0.01"]}
  - {name: long, args: ["0.02"]}
comparison: {design: blocks, aa: false}
conditions:
  - name: idle
YAML
expect_exit 0 blocks -- "$NF" run -q exps/blocks.yaml --results "$WORK/results"
contains blocks.out '## Unpaired comparison (variant / baseline, each variant'"'"'s repeats in a block of its own: design: blocks)'
if grep -q 'back to back' blocks.out; then fail "design: blocks called paired"; fi

# --anchor of another benchmark: nothing matched, and it says so
expect_exit 0 anchored -- "$NF" run -q exps/a.yaml --results "$WORK/results" --anchor results/tiny
contains anchored.out "  nothing compared: no benchmark of the anchor's 'idle' is in this run (anchor: tiny; this run: a): give an anchor run of the same benchmark"
expect_exit 0 anchored-same -- "$NF" run -q exps/tiny.yaml --results "$WORK/results" --anchor results/tiny
grep -qE '^  idle / tiny: baseline / anchor [0-9.]+–[0-9.]+× \(median [0-9.]+×\): (slower than the anchor in every sample|faster than the anchor in every sample|sometimes faster, sometimes slower than the anchor)$' anchored-same.out ||
  { cat anchored-same.out >&2; fail "anchor row"; }

# Merged on a terminal (the text format): 80 columns, and the runs' rows told apart.
expect_exit 0 merged -- "$NF" cv --format text results/tiny results/a results/boxed
python3 - merged.out <<'PY' || fail "the merged text table"
import sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
wide = [l for l in lines if len(l) > 80]
assert not wide, wide
# The conditions and their labels come first, names whole; then the blocks.
assert lines[0] == "conditions:", lines[:3]
legend = lines[1:lines.index("")]
named = [l for l in legend if not l.startswith("   ")]
assert len(named) == 3 and all(" MEASURED-clean " in l or " CONTENDED " in l for l in named), legend
lines = lines[lines.index(""):]
rows = [l.split()[0] for l in lines if l.split() and l.split()[0].endswith(":idle")]
# A block per metric that varies (a command's sec/op, cpu-sec/op, ...): the two runs' rows keep
# two names, whichever blocks they are in.
assert len(rows) >= 2 and len(set(rows)) == 2, rows
PY
echo "e2e newcomer: ok"
