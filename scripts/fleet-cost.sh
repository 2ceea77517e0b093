#!/usr/bin/env bash
# What a fleet costs over one machine: the wall time of `noisefloor run EXPERIMENT --host default
# --host other` against `noisefloor run EXPERIMENT` alone, alternately, PAIRS times in one session;
# prints each pair and the median ratio with its min–max. "other" is a second engine started here
# behind TLS on 127.0.0.1:23761 and named by a Docker context in a temporary HOME (the test
# library's fleet_lib.sh), so both hosts share this machine's CPUs: the ratio includes that.
#
# usage: scripts/fleet-cost.sh [PAIRS] [EXPERIMENT]     (default: 3 experiments/laptop-trust.yaml)
# needs: root, a built noisefloor (make build), the main engine (make engine).
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
pairs=${1:-3}
experiment=${2:-$REPO/experiments/laptop-trust.yaml}
NF=${NF:-$REPO/build/noisefloor}
[[ -x "$NF" ]] || { echo "fleet-cost.sh: no $NF: run make build" >&2; exit 2; }
WORK="$(mktemp -d /tmp/nf-fleet-cost.XXXXXX)"
source "$REPO/tests/integration/fleet_lib.sh"
trap 'fleet_stop_all; rm -rf "$WORK"' EXIT
fleet_start_tls_engine other 23761 >/dev/null
mkdir -p "$WORK/home"
fleet_context "$WORK/home" other tcp://127.0.0.1:23761 /run/nf-fleet/other.tls/ca.pem \
  /run/nf-fleet/other.tls/cert.pem /run/nf-fleet/other.tls/key.pem >/dev/null
export GOCACHE="${GOCACHE:-/tmp/noisefloor-gocache}"

timed() {  # timed LOG ARGS...: runs noisefloor, prints its wall time in seconds
  local log="$1" t0 t1
  shift
  t0=$(date +%s.%N)
  HOME="$WORK/home" "$NF" run -q "$experiment" --results "$WORK/results" "$@" >"$log" 2>&1 ||
    { cat "$log" >&2; echo "fleet-cost.sh: the run failed" >&2; exit 1; }
  t1=$(date +%s.%N)
  awk -v a="$t1" -v b="$t0" 'BEGIN { print a - b }'
}
# One untimed fleet run first: the image is loaded into the new engine once (later runs reuse it).
timed "$WORK/warm.log" --host default --host other >/dev/null
ratios=()
for i in $(seq "$pairs"); do
  one=$(timed "$WORK/one-$i.log")
  two=$(timed "$WORK/two-$i.log" --host default --host other)
  r=$(awk -v a="$two" -v b="$one" 'BEGIN { print a / b }')
  ratios+=("$r")
  printf 'pair %d: one host %.1f s, two hosts %.1f s, ratio %.3f\n' "$i" "$one" "$two" "$r"
done
printf '%s\n' "${ratios[@]}" | sort -g | awk '{ v[NR] = $1 } END {
  m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
  printf "two hosts / one host, wall time: median %.3f (min %.3f, max %.3f, %d pairs)\n", m, v[1], v[NR], NR }'
