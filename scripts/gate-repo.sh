#!/usr/bin/env bash
# The A/B gate's test repository for make perf (P9-P11), made in DIR (new or empty):
#
#   scripts/gate-repo.sh DIR      prints A=<id>; C=<id>; E=<id>; B=<id>  (for eval)
#
# A Go module (Go 1.19) whose two benchmarks each do N dependent multiply-adds per op: known CPU
# work, about 5 ms per op at N = 5*10^6 (a 2-CPU Xeon VM). gate.yaml runs both with
# -test.benchtime=10x, so one invocation (11 ops of each: Go's N=1 probe, then 10) takes about
# 0.12-0.13 s. Commits, each on its own branch from A so that it differs from A by one change:
#   A  main:    Slowed N = Steady N = 5*10^6
#   C  comment: a comment reworded (same lines): nothing changes, the false-alarm case
#   E  five:    Slowed N x 1.05: a known 5% regression, the power case
#   B  half:    Slowed N x 1.5: the large regression (e2e_gate's B)
# Steady is the same everywhere. The working tree is left on main (A).
set -euo pipefail
dir=${1:?usage: scripts/gate-repo.sh DIR}
if [[ -e $dir ]] && [[ -n $(ls -A "$dir") ]]; then
  echo "gate-repo.sh: $dir is not empty" >&2
  exit 2
fi
mkdir -p "$dir"
cd "$dir"
N=5000000
git init -q -b main .
git config user.name noisefloor-perf
git config user.email perf@noisefloor.invalid
git config commit.gpgsign false

# bench_go SLOWED_N STEADY_N COMMENT
bench_go() {
  cat >bench_test.go <<GO
package gatebench

import "testing"

var sink uint64

// chain: n dependent multiply-adds (a 64-bit LCG step), so the time per op is n times one step.
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
bench_go "$N" "$N" "the benchmark that the commits under test slow down"
# max_samples 20 (quads per block): the gate stops once the 99% interval of head/base is within
# its 2% threshold, which 6 quads reach when the per-quad log ratio's SD is under about 1.2% and
# 20 quads up to about 3%; a room noisier than that cannot resolve 2% in reasonable time, and the
# cap keeps one gate under about 25 s (2 blocks x 20 quads x 4 invocations of ~0.13 s) so that
# make perf's 20-odd gates per figure stay within its budget. The gate's other settings are its
# defaults (threshold 2%, confirmation on; settle 1 s).
cat >gate.yaml <<'YAML'
name: gate
benchmark:
  build: [go, test, -c, -o, bench.test, .]
  command: [./bench.test, "-test.run=^$", -test.bench=., -test.benchtime=10x]
  env: {CGO_ENABLED: "0"}
  samples: auto
  max_samples: 20
conditions:
  - name: idle
YAML
printf '%s\n' '*.test' >.gitignore
git add -A
git commit -qm "A: Slowed and Steady at N = $N"
A=$(git rev-parse HEAD)

git checkout -q -b comment "$A"
bench_go "$N" "$N" "the benchmark that the commits under test slow down (a reworded comment)"
git commit -qam "C: a comment reworded, nothing else"
C=$(git rev-parse HEAD)

git checkout -q -b five "$A"
bench_go $((N * 105 / 100)) "$N" "the benchmark that the commits under test slow down"
git commit -qam "E: Slowed N x 1.05"
E=$(git rev-parse HEAD)

git checkout -q -b half "$A"
bench_go $((N * 3 / 2)) "$N" "the benchmark that the commits under test slow down"
git commit -qam "B: Slowed N x 1.5"
B=$(git rev-parse HEAD)

git checkout -q main
echo "A=$A; C=$C; E=$E; B=$B"
