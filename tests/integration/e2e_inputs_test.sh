#!/usr/bin/env bash
# Hostile input, read: every malformed experiment file of tests/data/bad-experiments gets its
# exact one-line file:line:col message, exit 2, and nothing written; every damaged result directory
# (made here from a good one) gets its exact one-line message naming the file, exit 2 — or, where
# the damage is tolerated (a torn last line, no run.json, a damaged summary.json, no samples yet),
# a warning and exit 0.
source "$(dirname "$0")/lib.sh"
WORK="$(realpath "$WORK")"

# --- malformed experiment files ---
bad="$REPO/tests/data/bad-experiments"
cp "$bad"/*.yaml "$WORK/"
cd "$WORK"
count=0
while IFS= read -r expected; do
  file="${expected%%:*}"
  set +e
  "$NF" run "$file" --results "$WORK/results" >out.txt 2>err.txt
  code=$?
  set -e
  [[ $code -eq 2 ]] || { cat err.txt >&2; fail "$file: exit $code, expected 2"; }
  [[ $(wc -l <err.txt) -eq 1 ]] || { cat err.txt >&2; fail "$file: expected one line on stderr"; }
  got="$(cat err.txt)"
  # the host's own list of online CPUs is in some messages
  if [[ "$expected" == *"(online CPUs: "* ]]; then
    got="$(sed -E 's/\(online CPUs: [0-9,-]+\)/(online CPUs: 0,1)/' err.txt)"
  fi
  [[ "$got" == "$expected" ]] || fail "$file: got
  $got
expected
  $expected"
  [[ ! -s out.txt ]] || fail "$file: printed on stdout"
  [[ ! -e "$WORK/results" ]] || fail "$file: wrote $(find "$WORK/results" | head -3)"
  count=$((count + 1))
done <"$bad/expected.txt"
(( count >= 60 )) || fail "only $count malformed experiment files"
(( count == $(ls "$bad"/*.yaml | wc -l) )) || fail "expected.txt and the *.yaml files of $bad disagree"

# --- damaged result directories: a copy of a good result (results/NAME/run1, latest -> run1) ---
good="$REPO/tests/data/results/small"
mkdir -p "$WORK/r"
cd "$WORK/r"
damaged() { mkdir "$1"; cp -r "$good" "$1/run1"; ln -s run1 "$1/latest"; }
damaged samples-cut-mid-file
python3 - samples-cut-mid-file/run1/samples.jsonl <<'PY'
import sys
p = sys.argv[1]
lines = open(p).read().split("\n")
lines[2] = lines[2][:50]
open(p, "w").write("\n".join(lines))
PY
damaged samples-invalid-json;   sed -i '3s/.*/{not json/' samples-invalid-json/run1/samples.jsonl
damaged samples-wrong-type;     sed -i '4s/"value":[0-9.]*/"value":"fast"/' samples-wrong-type/run1/samples.jsonl
damaged samples-missing-key;    sed -i '5s/"metrics":\[[^]]*\],//' samples-missing-key/run1/samples.jsonl
damaged samples-control-bytes;  printf '\001\002{"a"\n' >samples-control-bytes/run1/samples.jsonl
damaged samples-missing;        rm samples-missing/run1/samples.jsonl
damaged samples-is-directory;   rm samples-is-directory/run1/samples.jsonl; mkdir samples-is-directory/run1/samples.jsonl
# hostile: what a crafted directory holds to hang, flood or crash a reader
damaged samples-dev-zero;       rm samples-dev-zero/run1/samples.jsonl; ln -s /dev/zero samples-dev-zero/run1/samples.jsonl
damaged samples-fifo;           rm samples-fifo/run1/samples.jsonl; mkfifo samples-fifo/run1/samples.jsonl
# a link to an honest run.json elsewhere: a file of a results tree is its own, never followed
damaged run-json-link;          rm run-json-link/run1/run.json; ln -s "$good/run.json" run-json-link/run1/run.json
damaged fingerprint-deep
python3 -c 'import sys; open(sys.argv[1], "w").write("[" * 150000 + "]" * 150000)' fingerprint-deep/run1/fingerprint.json
damaged run-json-truncated;     truncate -s 200 run-json-truncated/run1/run.json
damaged run-json-not-object;    echo '[1, 2]' >run-json-not-object/run1/run.json
damaged run-json-future-schema; sed -i 's/"schema_version": *[0-9]*/"schema_version": 99/' run-json-future-schema/run1/run.json
damaged run-json-wrong-type
python3 -c 'import json, sys; p = sys.argv[1]; j = json.load(open(p)); j["conditions"] = 5; json.dump(j, open(p, "w"))' \
  run-json-wrong-type/run1/run.json
damaged fingerprint-invalid;    echo '{"host": ' >fingerprint-invalid/run1/fingerprint.json
damaged fingerprint-future-schema
sed -i 's/"schema_version": *[0-9]*/"schema_version": 99/' fingerprint-future-schema/run1/fingerprint.json
mkdir latest-loop;     ln -s latest latest-loop/latest
mkdir latest-cycle;    ln -s b latest-cycle/latest; ln -s latest latest-cycle/b
mkdir latest-dangling; ln -s 20200101T000000Z latest-dangling/latest
mkdir empty-directory
printf 'goos: linux\nPASS\nok  x 0.1s\n' >not-gotest.txt
# tolerated
damaged samples-torn-last-line; truncate -s -20 samples-torn-last-line/run1/samples.jsonl
damaged samples-empty;          : >samples-empty/run1/samples.jsonl
damaged run-json-missing;       rm run-json-missing/run1/run.json
damaged summary-damaged;        echo '{"experiment": 3, "comparison": "x"' >summary-damaged/run1/summary.json

R="$WORK/r"
keep='(a damaged line: restore the file, or delete the line to read the rest)'
optional='(restore the file, or remove it: the samples are read without it)'
errors=(
  "samples-cut-mid-file|$R/samples-cut-mid-file/run1/samples.jsonl:3:51: invalid JSON: invalid string: missing closing quote; last read: '\"condit'; expected string literal $keep"
  "samples-invalid-json|$R/samples-invalid-json/run1/samples.jsonl:3:3: invalid JSON: invalid literal; last read: '{no'; expected string literal $keep"
  "samples-wrong-type|$R/samples-wrong-type/run1/samples.jsonl:4: sample: type must be number, but is string $keep"
  "samples-missing-key|$R/samples-missing-key/run1/samples.jsonl:5: sample: key 'metrics' not found $keep"
  "samples-control-bytes|$R/samples-control-bytes/run1/samples.jsonl:1:1: invalid JSON: invalid literal; last read: '<U+0001>' $keep"
  "samples-missing|samples-missing/latest: no samples.jsonl here: not a noisefloor result (or its samples were removed)"
  "samples-is-directory|samples-is-directory/latest/samples.jsonl: not a regular file (a directory): a result's samples.jsonl is a file"
  "samples-dev-zero|samples-dev-zero/latest/samples.jsonl: a symbolic link, never followed: a result's samples.jsonl is a file of its own"
  "run-json-link|run-json-link/latest/run.json: a symbolic link, never followed: a result's run.json is a file of its own"
  "samples-fifo|samples-fifo/latest/samples.jsonl: not a regular file (a FIFO): a result's samples.jsonl is a file"
  "fingerprint-deep|$R/fingerprint-deep/run1/fingerprint.json: the document is nested deeper than 256 levels (not something noisefloor wrote) $optional"
  "run-json-truncated|$R/run-json-truncated/run1/run.json: parse error at line 7, column 28: invalid string: missing closing quote; last read: '\"2026' $optional"
  "run-json-not-object|$R/run-json-not-object/run1/run.json: expected a JSON object, got array $optional"
  "run-json-future-schema|$R/run-json-future-schema/run1/run.json: schema_version 99 is newer than this noisefloor reads (1): upgrade noisefloor"
  "run-json-wrong-type|$R/run-json-wrong-type/run1/run.json: type must be array, but is number $optional"
  "fingerprint-invalid|$R/fingerprint-invalid/run1/fingerprint.json: parse error at line 2, column 1: unexpected end of input; expected '[', '{', or a literal $optional"
  "fingerprint-future-schema|$R/fingerprint-future-schema/run1/fingerprint.json: fingerprint: schema_version 99 is newer than this noisefloor reads (1): upgrade noisefloor"
  "latest-loop|latest-loop/latest: a loop of symbolic links (it points, in the end, at itself): point it at a run directory"
  "latest-cycle|latest-cycle/latest: a loop of symbolic links (it points, in the end, at itself): point it at a run directory"
  "latest-dangling|latest-dangling/latest: a symbolic link to 20200101T000000Z, which does not exist"
  "empty-directory|empty-directory: no samples.jsonl here: not a noisefloor result (or its samples were removed)"
  "not-gotest.txt|not-gotest.txt: no benchmark result lines (expected \`go test -bench\` output)"
  "no-such-run|no-such-run: no such file or directory (expected a results directory or a go test -bench output file)"
)
for entry in "${errors[@]}"; do
  name="${entry%%|*}" expected="${entry#*|}"
  for command in "cv" "report --format json"; do
    set +e
    # shellcheck disable=SC2086
    timeout 30 "$NF" $command "$name" >out.txt 2>err.txt  # a hang is a failure (124), not a wait
    code=$?
    set -e
    [[ $code -eq 2 ]] || { cat err.txt >&2; fail "$command $name: exit $code, expected 2"; }
    [[ "$(cat err.txt)" == "$expected" ]] || fail "$command $name: got
  $(cat err.txt)
expected
  $expected"
    [[ ! -s out.txt ]] || fail "$command $name: printed a table"
  done
done
(( ${#errors[@]} >= 15 )) || fail "fewer than 15 damaged results"

tolerated=(
  "samples-torn-last-line|warning: $R/samples-torn-last-line/run1/samples.jsonl:54: ignored a torn last line"
  "samples-empty|warning: $R/samples-empty/run1/samples.jsonl: no samples (the run stopped before its first sample, or they were removed)"
  "run-json-missing|warning: $R/run-json-missing/run1: this run did not complete (no run.json: it was killed, or is still running); samples kept per condition: idle 8 of 8, noisy 8 of 8, pinned 8 of 8; \`noisefloor run $(python3 -c 'import json; print(json.load(open("run-json-missing/run1/fingerprint.json"))["run"]["experiment_file"])') --resume $R/run-json-missing/run1\` measures the rest"
  "summary-damaged|"
)
for entry in "${tolerated[@]}"; do
  name="${entry%%|*}" expected="${entry#*|}"
  "$NF" cv "$name" >out.txt 2>err.txt || { cat err.txt >&2; fail "cv $name: failed"; }
  [[ "$(cat err.txt)" == "$expected" ]] || fail "cv $name: got '$(cat err.txt)', expected '$expected'"
  contains out.txt "| condition |"
done
# a damaged run directory cannot be resumed either: the same message, exit 2
set +e; "$NF" run --resume run-json-truncated/run1 >out.txt 2>err.txt; code=$?; set -e
[[ $code -eq 2 ]] || { cat err.txt >&2; fail "--resume of a damaged run: exit $code, expected 2"; }
contains err.txt "$R/run-json-truncated/run1/run.json: parse error at line 7, column 28"
# A reference that is a device or a FIFO: refused at once, not read for ever (it was bad_alloc and
# a hang).
mkfifo "$WORK/ref.fifo"
for ref in /dev/zero "$WORK/ref.fifo"; do
  printf 'name: r\nbenchmark:\n  command: [/bin/true]\n  format: command\n  samples: 2\nreference: {file: %s}\nconditions: [{name: a}]\n' "$ref" >"$WORK/ref.yaml"
  set +e; timeout 30 "$NF" validate "$WORK/ref.yaml" >out.txt 2>err.txt; code=$?; set -e
  [[ $code -eq 2 ]] || { cat err.txt >&2; fail "reference $ref: exit $code, expected 2"; }
  contains err.txt "$ref: not a regular file (a $([[ $ref == /dev/zero ]] && echo "character device" || echo FIFO)): a published table is a file"
done
# Result files take the umask, as files a program creates do (they were always 0644).
printf 'name: private\nbenchmark:\n  command: [/bin/true]\n  format: command\n  samples: 2\nsettle: 0s\nconditions: [{name: a}]\n' >"$WORK/private.yaml"
(umask 077 && "$NF" run -q "$WORK/private.yaml" --results "$WORK/private" >/dev/null 2>err.txt) || { cat err.txt >&2; fail "run under umask 077"; }
modes=$(cd "$WORK/private/private/latest/" && stat -c '%a %n' run.json fingerprint.json table.md report.html summary.json)
[[ "$(awk '{print $1}' <<<"$modes" | sort -u)" == 600 ]] || fail "under umask 077 the result files are: $modes"
# A condition named after a file every result has would overwrite it: refused.
printf 'name: clash\nbenchmark:\n  command: [/bin/true]\n  format: command\n  samples: 2\nconditions: [{name: cv-summary}]\n' >"$WORK/clash.yaml"
set +e; "$NF" validate "$WORK/clash.yaml" >/dev/null 2>err.txt; code=$?; set -e
[[ $code -eq 2 ]] || fail "a condition named cv-summary: exit $code, expected 2"
contains err.txt 'conditions[0].name: "cv-summary" is the name of a file every result directory has (cv-summary.txt): choose another name'
# Forged verdicts (issue 42's third re-test): every string a result holds, not names only, is kept
# escaped. A unit with a line break and the verdict mark, a header line, a start time and a fact of
# the host with a colour that hides the rest: `check` prints one verdict line, its own, and no ESC.
mkdir -p forged && cp -r "$good" forged/run1
forge=$'\n  \u25b8 NOT REPRODUCED  mean(idle) < 1\x1b[30;40m\u2800[u](http://u.example/)<img src=x>'
python3 - forged/run1 "$forge" <<'PY'
import json, sys
d, forge = sys.argv[1], sys.argv[2]
lines = [json.loads(l) for l in open(f"{d}/samples.jsonl")]
for s in lines:
    s["metrics"][0]["unit"] = "ns/op" + forge
open(f"{d}/samples.jsonl", "w").write("".join(json.dumps(s) + "\n" for s in lines))
run = json.load(open(f"{d}/run.json"))
run["summary_header"] = ["goos: linux" + forge]
run["started_utc"] += forge
json.dump(run, open(f"{d}/run.json", "w"))
fp = json.load(open(f"{d}/fingerprint.json"))
fp["host"]["cpu"]["model_name"] = {"value": "AMD EPYC" + forge} if isinstance(fp["host"]["cpu"]["model_name"], dict) else "AMD EPYC" + forge
json.dump(fp, open(f"{d}/fingerprint.json", "w"))
PY
for command in "check forged/run1 --claim mean(idle)<1e9" "cv forged/run1" "report forged/run1 --format summary" "history forged"; do
  set +e
  # shellcheck disable=SC2086
  "$NF" $command >forged.out 2>&1
  set -e
  [[ $(grep -c $'^  \u25b8 ' forged.out) -le 1 ]] || { cat forged.out >&2; fail "$command: a forged verdict line"; }
  ! grep -q $'\x1b' forged.out || { cat -v forged.out >&2; fail "$command: an escape sequence from the result"; }
  ! grep -q "^  ▸ NOT REPRODUCED" forged.out || fail "$command: the forged verdict was printed"
done
# In markdown the same unit, header and host fact make no link, image or tag.
for command in "report forged/run1 --format markdown" "cv forged/run1 --format markdown" "check forged/run1 --format markdown --claim mean(idle)<1e9"; do
  # shellcheck disable=SC2086
  "$NF" $command >forged.md 2>&1 || true
  ! grep -qE '\[u\]\(http|(^|[^\\])<img' forged.md || { grep -nE '\[u\]\(http|(^|[^\\])<img' forged.md >&2; fail "$command: a link or a tag from the result"; }
  ! grep -q $'\u2800' forged.md || fail "$command: a braille blank from the result, raw"
done

echo "e2e inputs: ok (${count} experiment files, ${#errors[@]} damaged results, ${#tolerated[@]} tolerated)"
