#!/usr/bin/env bash
# Does noisefloor's orchestration cost more than the shell way? Runs the replay experiment's three
# conditions both ways, alternating (A B B A ...), in one session on one machine, and prints the
# wall-time ratio noisefloor/shell per pair with the median and min–max.
#
#   scripts/orchestration-bench.sh [PAIRS] [COUNT] [BENCHTIME] [SETTLE]   (defaults: 3 5 100ms 1s)
#
# SETTLE is noisefloor's pause before each condition's first sample (the experiment's `settle:`,
# 1 s by default). The shell way has none: SETTLE=0s compares the orchestration alone, at the
# same measurement protocol; the default compares the demo as noisefloor runs it.
#
# The shell way is what the demo did: `go test` binary on the host, bash busy-loop spinners, and
# `docker run --cpuset-cpus=0 --cpus=1 --memory=512m` for the pinned condition (the docker CLI is
# used here only as the baseline being measured; noisefloor itself never calls it).
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS="${1:-3}" COUNT="${2:-5}" BENCHTIME="${3:-100ms}" SETTLE="${4:-1s}"
NF=build/noisefloor
WORK="$(mktemp -d /tmp/nf-orch.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
export GOCACHE="${GOCACHE:-/tmp/noisefloor-gocache}"

(cd experiments/makebuffer && CGO_ENABLED=0 go test -c -o "$WORK/makebuffer.test" .)
NCPU=$(nproc)
BENCH_ARGS=("-test.run=^\$" "-test.bench=^BenchmarkMakeBuffer_Correct\$" -test.benchmem "-test.benchtime=$BENCHTIME")

cat >"$WORK/exp.yaml" <<YAML
name: orchestration
benchmark:
  command: [$WORK/makebuffer.test, "-test.run=^\$", "-test.bench=^BenchmarkMakeBuffer_Correct\$", -test.benchmem, -test.benchtime=$BENCHTIME]
  samples: $COUNT
settle: $SETTLE
conditions:
  - name: idle
  - name: noisy
    spinners: all
  - name: pinned
    spinners: all
    container: {cpuset: "0", cpus: 1, memory: 512m}
YAML
# One noisefloor run first builds (or reuses) the auto image; the shell way then uses the same image.
"$NF" run -q "$WORK/exp.yaml" --results "$WORK/results" >/dev/null
IMAGE=$(grep -o '"ref": "noisefloor-auto:[0-9a-f]*"' "$WORK/results/orchestration/latest/fingerprint.json" | head -1 | cut -d'"' -f4)

shell_way() {
  "$WORK/makebuffer.test" "${BENCH_ARGS[@]}" "-test.count=$COUNT" >"$WORK/idle.txt"
  local pids=()
  for _ in $(seq "$NCPU"); do (while :; do :; done) & pids+=($!); done
  "$WORK/makebuffer.test" "${BENCH_ARGS[@]}" "-test.count=$COUNT" >"$WORK/noisy.txt"
  kill "${pids[@]}"; wait "${pids[@]}" 2>/dev/null || true
  pids=()
  for _ in $(seq "$NCPU"); do (while :; do :; done) & pids+=($!); done
  docker run --rm --cpuset-cpus=0 --cpus=1 --memory=512m --network=none --entrypoint /bench/makebuffer.test \
    "$IMAGE" "${BENCH_ARGS[@]}" "-test.count=$COUNT" >"$WORK/pinned.txt"
  kill "${pids[@]}"; wait "${pids[@]}" 2>/dev/null || true
}
noisefloor_way() { "$NF" run -q "$WORK/exp.yaml" --results "$WORK/results" >/dev/null; }
seconds() { local s e; s=$(date +%s.%N); "$@"; e=$(date +%s.%N); awk -v s="$s" -v e="$e" 'BEGIN {print e - s}'; }

ratios=()
for i in $(seq "$PAIRS"); do
  if (( i % 2 )); then a=$(seconds noisefloor_way); b=$(seconds shell_way); else b=$(seconds shell_way); a=$(seconds noisefloor_way); fi
  r=$(awk -v a="$a" -v b="$b" 'BEGIN {print a / b}')
  ratios+=("$r")
  printf 'pair %d: noisefloor %.2f s, shell %.2f s, ratio %.3f\n' "$i" "$a" "$b" "$r"
done
printf '%s\n' "${ratios[@]}" | sort -g | awk '{v[NR]=$1} END {m = (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2;
  printf "noisefloor/shell wall-time ratio: median %.3f (min %.3f, max %.3f) over %d pairs\n", m, v[1], v[NR], NR}'
