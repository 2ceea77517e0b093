#!/usr/bin/env bash
# Bad input: one clear file:line:col line, exit 2, nothing written; validate without running.
source "$(dirname "$0")/lib.sh"
cd "$WORK"
write_experiment good.yaml small 3 100x "  - name: idle"
"$NF" validate good.yaml >v.txt || fail "validate of a good file"
contains v.txt 'good.yaml: ok (1 condition, 3 samples each, sequential)'

printf 'name: t\nbenchmark:\n  command: [./b]\n  samples: 1\nconditions: [{name: a}]\n' >bad.yaml
set +e
"$NF" run bad.yaml --results "$WORK/results" >out.txt 2>err.txt
code=$?
set -e
[[ $code -eq 2 ]] || fail "exit code $code, expected 2"
[[ $(wc -l <err.txt) -eq 1 ]] || { cat err.txt; fail "expected one line on stderr"; }
contains err.txt 'bad.yaml:4:12: benchmark.samples: expected a whole number of samples ≥ 2 or auto, got 1'
check "nothing written" test ! -e "$WORK/results"

set +e; "$NF" validate bad.yaml 2>err2.txt; code=$?; set -e
[[ $code -eq 2 ]] || fail "validate exit code $code, expected 2"
contains err2.txt 'bad.yaml:4:12:'
set +e; "$NF" run missing.yaml 2>err3.txt; code=$?; set -e
[[ $code -eq 2 ]] || fail "missing file exit code $code"
contains err3.txt 'missing.yaml: cannot read the experiment file'
# A device or a FIFO named as the experiment: one line, exit 2, at once (issue 42's fourth re-test:
# `run /dev/zero` grew to 10 GB and ignored SIGTERM while it read).
mkfifo exp.fifo
for f in /dev/zero exp.fifo; do
  for command in run validate; do
    set +e; timeout 20 "$NF" $command "$f" >/dev/null 2>err5.txt; code=$?; set -e
    [[ $code -eq 2 ]] || { cat err5.txt >&2; fail "$command $f: exit $code, expected 2"; }
    contains err5.txt "$f: not a regular file"
  done
done
head -c 5000000 /dev/zero | tr '\0' '#' >huge.yaml
set +e; timeout 20 "$NF" validate huge.yaml 2>err6.txt; code=$?; set -e
[[ $code -eq 2 ]] || { cat err6.txt >&2; fail "validate of a 5 MB file: exit $code, expected 2"; }
contains err6.txt "huge.yaml: 4.8 MiB, more than an experiment file may hold (4.0 MiB)"
set +e; "$NF" frobnicate 2>/dev/null; code=$?; set -e
[[ $code -eq 2 ]] || fail "unknown subcommand exit code $code, expected 2"
# a benchmark that fails is a run failure (1) that quotes its stderr
write_experiment fails.yaml fails 3 100x "  - name: idle"
sed -i 's/-test.bench=^BenchmarkMakeBuffer_Correct\$/-test.bench=^NoSuchBenchmark$/' fails.yaml
set +e; "$NF" run fails.yaml --results "$WORK/r2" >/dev/null 2>err4.txt; code=$?; set -e
[[ $code -eq 1 ]] || { cat err4.txt; fail "no result lines: exit code $code, expected 1"; }
contains err4.txt "condition 'idle', run 1 of 1: the benchmark printed no result lines"
# printed once, by main, with where the (zero) samples measured so far are kept
[[ $(grep -c '^noisefloor: ' err4.txt) -eq 1 ]] || { cat err4.txt >&2; fail "the run failure should be reported once"; }
contains err4.txt "the 0 sample(s) measured so far are kept in $WORK/r2/fails/"
echo "e2e config: ok"
