#!/usr/bin/env bash
# `noisefloor errata`: a superseded figure found everywhere it was quoted, and corrected.
#  1. A fixture directory (a git repository) quotes a ratio measured 1.67× that a second
#     measurement puts at 3.17×, twelve times in five files (a status markdown, a decision table, a
#     YAML, a JSON, a Go comment) in the usual spellings, beside decoys (a version 1.67.0, v1.67, a
#     bare `version: 1.67`, a date 16.7.2026). OLD and NEW are go test files (conditions once and
#     thrice), so the figures are exact. Every quotation is found at its file:line:col; decoys are
#     reported as likely or not at all; the dry run changes nothing; --apply rewrites the certain
#     ones only, the YAML and JSON still parse, the Go file still parses, the markdown carries the
#     strikethrough; a second --apply finds nothing left to do. The default search is the
#     git-tracked files.
#  2. Real runs: an unpaired run under load (CONTENDED) superseded by a paired one (run
#     --supersedes, CONTENDED-PAIRED): cv and history of the old run say so, and the erratum says why.
#  3. Bad input: one line each, exit 2.
source "$(dirname "$0")/lib.sh"
cd "$WORK"

# ---- 1. the fixture -------------------------------------------------------------------------
gotest() {  # gotest FILE FACTOR: ten results of BenchmarkRatioLoop around 100 ms × FACTOR
  python3 - "$1" "$2" <<'PY'
import sys
path, factor = sys.argv[1], float(sys.argv[2])
base = [99.0, 99.5, 100.0, 100.0, 100.0, 100.0, 100.0, 100.5, 101.0, 100.0]
with open(path, "w") as f:
    f.write("goos: linux\ngoarch: amd64\npkg: example.com/ratio\n")
    for ms in base:
        f.write(f"BenchmarkRatioLoop-2   \t      10\t {round(ms * factor * 1e6)} ns/op\n")
    f.write("PASS\n")
PY
}
mkdir -p old new
gotest old/once.txt 1 && gotest old/thrice.txt 1.67
gotest new/once.txt 1 && gotest new/thrice.txt 3.17

mkdir -p repo && cd repo
git init -q . && git config user.email t@example.com && git config user.name t
cat >STATUS.md <<'EOF'
# Status

Under contention thrice costs 1.67× once (measured 2026-11-30).
The thrice variant is +67% slower per op.
Summary: thrice ≈ 1.7× once.

Released as 1.67.0 on 16.7.2026; see the v1.67 notes.
EOF
cat >decisions.md <<'EOF'
| decision | figure | basis |
|:--|:--|:--|
| keep once as the default | thrice 1.67x slower | contended run |
| RatioLoop budget | 167% of once | contended run |
EOF
cat >results.yaml <<'EOF'
ratio:
  thrice_vs_once: "1.67×"
  note: thrice costs 1.67x once under load
version: 1.67
EOF
cat >data.json <<'EOF'
{"benchmark": "BenchmarkRatioLoop", "thrice_over_once": "1.67x", "ratio": 1.67}
EOF
cat >bench_test.go <<'EOF'
package ratio

import "testing"

// BenchmarkRatioLoop: thrice takes 1.67x the time of once under contention
// (+67% per op).
func BenchmarkRatioLoop(b *testing.B) {}
EOF
printf 'thrice 1.67x, untracked\n' >untracked.md
# A tracked symbolic link to a file outside the repository that quotes the figure: never followed,
# never replaced (--apply would otherwise publish what it points at in the next commit).
mkdir -p "$WORK/outside"
printf 'Under contention thrice costs 1.67x once.\n' >"$WORK/outside/private.md"
ln -s "$WORK/outside/private.md" linked.md
ln -s "$WORK/outside" outside-dir  # and to a directory, and to nothing: each counted, none followed
ln -s no-such-file.md dangling.md
git add STATUS.md decisions.md results.yaml data.json bench_test.go linked.md outside-dir dangling.md && git commit -qm fixture
before=$(sha256sum STATUS.md decisions.md results.yaml data.json bench_test.go)

status=0
"$NF" errata --old ../old/once.txt ../old/thrice.txt --new ../new/once.txt ../new/thrice.txt >../dry.txt 2>../dry.err || status=$?
[ "$status" = 0 ] || { cat ../dry.txt ../dry.err >&2; fail "errata (dry run): exit $status"; }
cd "$WORK"
contains dry.txt "noisefloor errata: 12 quotations of 1 superseded figure in 5 of 5 files searched (10 certain, 2 likely)"
for line in \
  "STATUS.md:3:31  1.67×  certain" \
  "STATUS.md:4:23  +67%  certain" \
  "STATUS.md:5:19  1.7×  certain" \
  "decisions.md:3:37  1.67x  certain" \
  "decisions.md:4:22  167%  certain" \
  "results.yaml:2:20  1.67×  certain" \
  "results.yaml:3:22  1.67x  certain" \
  "results.yaml:4:10  1.67  likely (a bare number, which may mean something else)" \
  "data.json:1:58  1.67x  certain" \
  "data.json:1:75  1.67  likely (a bare number, which may mean something else)" \
  "bench_test.go:5:37  1.67x  certain" \
  "bench_test.go:6:5  +67%  certain"; do
  contains dry.txt "$line"
done
contains dry.txt "thrice · BenchmarkRatioLoop · ratio to once: was 1.6700× UNKNOWN, is 3.1700×"
grep -q "untracked" dry.txt && fail "an untracked file was searched by default"
grep -qE "1\.67\.0|16\.7|v1\.67" dry.txt && fail "a decoy was taken for a quotation"
(cd repo && echo "$before" | sha256sum -c --quiet) || fail "the dry run changed a file"

# The erratum, and the JSON.
"$NF" errata --old old/once.txt old/thrice.txt --new new/once.txt new/thrice.txt --in repo --format markdown >erratum.md
contains erratum.md "## Erratum: once + thrice superseded by once + thrice"
contains erratum.md "| thrice | BenchmarkRatioLoop | ratio to once | 1.6700× UNKNOWN | 3.1700× UNKNOWN |  |"
contains erratum.md '| `repo/STATUS.md:3:31` | 1.67× | thrice · BenchmarkRatioLoop · ratio to once | 3.17× | certain |'
"$NF" errata --old old/once.txt old/thrice.txt --new new/once.txt new/thrice.txt --in repo --format json >errata.json
python3 - errata.json <<'PY' || fail "errata JSON"
import json, sys
d = json.load(open(sys.argv[1]))
q = d["quotations"]
assert len(q) == 13 and sum(x["certainty"] == "certain" for x in q) == 11, q  # + untracked.md under --in
assert all(x["figure"] == "thrice · BenchmarkRatioLoop · ratio to once" for x in q)
assert not d["applied"] and d["searched"] == 6 and d["links_skipped"] == 3, d  # the walk of --in too
PY

# --apply: the certain ones only, each with its mark, every file still parsing.
# A tracked file under a directory that is now a link out of the repository (issue 42's third
# re-test: --apply rewrote the file out there): a link on its way, left alone.
mkdir -p "$WORK/outdir" repo/docs
printf 'Under contention thrice costs 1.67x once.\n' | tee repo/docs/d.md >"$WORK/outdir/d.md"
(cd repo && git add docs/d.md && git commit -qm docs && rm -r docs && ln -s "$WORK/outdir" docs)
cd repo
"$NF" errata --old ../old/once.txt ../old/thrice.txt --new ../new/once.txt ../new/thrice.txt --apply \
  --date 2026-12-03 --see PR-42 >../apply.txt 2>&1 || { cat ../apply.txt >&2; fail "errata --apply"; }
cd "$WORK"
contains apply.txt "applied: 10 certain quotations corrected in place, each with a visible mark; 2"
contains apply.txt "4 symbolic links left alone (never followed"
[[ "$(cat "$WORK/outdir/d.md")" == "Under contention thrice costs 1.67x once." ]] ||
  fail "errata --apply wrote through a linked directory"
[[ -L repo/linked.md ]] || fail "errata --apply replaced a tracked symbolic link"
[[ "$(cat "$WORK/outside/private.md")" == "Under contention thrice costs 1.67x once." ]] ||
  fail "errata --apply changed a file outside the repository"
# A link named with --in, or a path through one (the adversarial re-test of issue 42 rewrote a file
# outside the repository so): refused before anything is read, exit 2, the real place named.
ln -s "$WORK/outside" repo/linkdir
for place in linkdir linkdir/private.md; do
  status=0
  (cd repo && "$NF" errata --old ../old/once.txt ../old/thrice.txt --new ../new/once.txt ../new/thrice.txt \
    --in "$place" --apply >../via-link.txt 2>&1) || status=$?
  [ "$status" = 2 ] || { cat via-link.txt >&2; fail "errata --in $place (through a link): exit $status, expected 2"; }
  contains via-link.txt "errata --in $place: goes through a symbolic link (to $WORK/outside"
done
[[ "$(cat "$WORK/outside/private.md")" == "Under contention thrice costs 1.67x once." ]] ||
  fail "errata --in through a link changed a file outside the repository"
rm repo/linkdir
contains repo/STATUS.md "Under contention thrice costs ~~1.67×~~ 3.17× (corrected 2026-12-03; see PR-42) once"
contains repo/STATUS.md "The thrice variant is ~~+67%~~ +217% (corrected 2026-12-03; see PR-42) slower per op."
contains repo/STATUS.md "Summary: thrice ≈ ~~1.7×~~ 3.2× (corrected 2026-12-03; see PR-42) once."
contains repo/STATUS.md "Released as 1.67.0 on 16.7.2026; see the v1.67 notes."
contains repo/decisions.md "| RatioLoop budget | ~~167%~~ 317% (corrected 2026-12-03; see PR-42) of once | contended run |"
contains repo/bench_test.go "// BenchmarkRatioLoop: thrice takes 3.17x (corrected from 1.67x on 2026-12-03; see PR-42) the time"
python3 - repo <<'PY' || fail "the corrected YAML and JSON"
import json, sys, yaml
d = sys.argv[1]
y = yaml.safe_load(open(f"{d}/results.yaml"))
assert y["ratio"]["thrice_vs_once"] == "3.17× (corrected from 1.67× on 2026-12-03; see PR-42)", y
assert y["ratio"]["note"] == "thrice costs 3.17x (corrected from 1.67x on 2026-12-03; see PR-42) once under load", y
assert y["version"] == 1.67, y
j = json.load(open(f"{d}/data.json"))
assert j["thrice_over_once"] == "3.17x (corrected from 1.67x on 2026-12-03; see PR-42)" and j["ratio"] == 1.67, j
PY
gofmt -e repo/bench_test.go >/dev/null || fail "the corrected Go file does not parse"
# Run again: what is left is the two likely ones; nothing is marked twice.
cp -r repo again
(cd again && "$NF" errata --old ../old/once.txt ../old/thrice.txt --new ../new/once.txt ../new/thrice.txt --apply >../again.txt)
contains again.txt "2 quotations of 1 superseded figure in 2 of 5 files searched (0 certain, 2 likely)"
diff -r --no-dereference -x .git repo again >/dev/null || fail "a second --apply changed a corrected file"

# ---- 2. real runs: an unpaired run superseded by a paired one ----------------------------------
cost() {  # cost FILE DESIGN: the experiment "cost" (a command's rows are named after the experiment)
  cat >"$1.yaml" <<YAML
name: cost
benchmark:
  command: [/bin/sleep]
  format: command
  samples: 6
settle: 0s
variants:
  - {name: once, args: ["0.02"]}
  - {name: thrice, args: ["0.06"]}
comparison: {baseline: once, design: $2, threshold: 1%}
conditions:
  - name: contended
    spinners: all
noise_profile: 0s
YAML
}
cost cost-blocks blocks
cost cost paired
"$NF" run -q cost-blocks.yaml --results results >/dev/null 2>blocks.err || { cat blocks.err >&2; fail "the unpaired run"; }
old_run=$(readlink -f results/cost/latest)
status=0
"$NF" run -q cost.yaml --results results --supersedes results/nothing-here >/dev/null 2>bad.err || status=$?
[ "$status" = 2 ] || fail "--supersedes of a missing run: exit $status, expected 2"
[ "$(wc -l <bad.err)" = 1 ] || { cat bad.err >&2; fail "--supersedes of a missing run: not one line"; }
contains bad.err "--supersedes results/nothing-here: not a run directory"
[ "$(ls results/cost | wc -l)" = 2 ] || fail "a refused --supersedes left a run directory"
"$NF" run -q cost.yaml --results results --supersedes results/cost >/dev/null 2>paired.err ||
  { cat paired.err >&2; fail "the paired run"; }
new_run=$(readlink -f results/cost/latest)
[ "$new_run" != "$old_run" ] || fail "the paired run has no directory of its own"
python3 - "$new_run/run.json" "$old_run" <<'PY' || fail "run.json records what it supersedes"
import json, os, sys
s = json.load(open(sys.argv[1]))["supersedes"]
assert s["path"] == sys.argv[2] and s["run_id"] == os.path.basename(sys.argv[2]) and s["experiment"] == "cost", s
PY
"$NF" cv "$old_run" >old-cv.md 2>old-cv.err
head -1 old-cv.md | grep -qF "> **SUPERSEDED**: this run's figures were replaced by $new_run (experiment cost, run" ||
  { head -3 old-cv.md >&2; fail "cv of the superseded run does not say so first"; }
contains old-cv.err "warning: SUPERSEDED: "
"$NF" cv "$new_run" >new-cv.md 2>&1
grep -q SUPERSEDED new-cv.md && fail "the superseding run is called superseded"
"$NF" history results/cost >history.txt
contains history.txt "complete · SUPERSEDED by cost/$(basename "$new_run")  $(basename "$old_run")"
[ "$(grep -c SUPERSEDED history.txt)" = 1 ] || { cat history.txt >&2; fail "history: one run is superseded"; }
"$NF" report "$old_run" >/dev/null 2>report.err
grep -q "SUPERSEDED" "$old_run/report.html" || fail "the old run's report page does not say it was superseded"
# The old ratio, quoted at four decimals, found and explained by its labels.
"$NF" errata --old "$old_run" --new "$new_run" --in repo --format json >figures.json
mkdir -p notes
python3 - figures.json >notes/status.md <<'PY'
import json, sys
f = [x for x in json.load(open(sys.argv[1]))["figures"] if x["statistic"] == "ratio thrice/once"][0]
assert f["old"]["label"] == "CONTENDED" and f["new"]["label"] == "CONTENDED-PAIRED", f
print(f"Under load thrice costs {f['old']['value']:.4f}× once.")
PY
"$NF" errata --old "$old_run" --new "$new_run" --in notes --format markdown >cost-erratum.md
contains cost-erratum.md "The old figures are **CONTENDED** (measured under load with baseline and variant at different times (unpaired)); the new ones are **CONTENDED-PAIRED**"
contains cost-erratum.md '| `notes/status.md:1:25` |'
contains cost-erratum.md "Found with: \`noisefloor errata --old $old_run --new $new_run --in notes\`."
contains cost-erratum.md "| contended | "

# ---- 3. bad input ------------------------------------------------------------------------------
bad() {  # bad WHAT EXPECTED ARGS...: exit 2 and one line on stderr
  local what=$1 expected=$2 s=0
  shift 2
  "$NF" errata "$@" >/dev/null 2>bad.err || s=$?
  [ "$s" = 2 ] || { cat bad.err >&2; fail "$what: exit $s, expected 2"; }
  [ "$(wc -l <bad.err)" = 1 ] || { cat bad.err >&2; fail "$what: not one line"; }
  contains bad.err "$expected"
}
bad "no shared figure" "errata: --old and --new share no figure (old: conditions once, thrice" \
  --old old/once.txt old/thrice.txt --new "$new_run" --in notes
bad "a missing --old" "old/nothing.txt" --old old/nothing.txt --new new/once.txt --in notes
bad "a missing --in" "errata --in nowhere: no such file or directory" \
  --old old/once.txt old/thrice.txt --new new/once.txt new/thrice.txt --in nowhere
mkfifo notes.fifo
bad "a FIFO as --in (it said: no such file)" "errata --in notes.fifo: not a regular file or a directory" \
  --old old/once.txt old/thrice.txt --new new/once.txt new/thrice.txt --in notes.fifo
bad "outside a repository without --in" "is not in a git repository" \
  --old "$WORK/old/once.txt" "$WORK/old/thrice.txt" --new "$WORK/new/once.txt" "$WORK/new/thrice.txt"
echo "e2e_errata: ok"
