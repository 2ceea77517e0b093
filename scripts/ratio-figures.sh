#!/usr/bin/env bash
# The ratio workload's figures for a note: clean paired, contended paired and contended in
# separate blocks (unpaired), RUNS times each, with the geometric-mean (paired) or Hodges–Lehmann
# (blocks) ratio of every run, then the median and min–max over runs. True ratio: 3.000.
#   scripts/ratio-figures.sh [RUNS]     (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${1:-3}"
NF=build/noisefloor
out="$(mktemp -d /tmp/nf-ratio.XXXXXX)"
for i in $(seq "$RUNS"); do
  "$NF" run -q experiments/ratio.yaml --results "$out" >/dev/null
  "$NF" run -q experiments/ratio-blocks.yaml --results "$out" >/dev/null
done
python3 - "$out" <<'PY'
import json, os, statistics, sys
root = sys.argv[1]
series = {}
for exp in ("ratio", "ratio-blocks"):
    for run in sorted(os.listdir(os.path.join(root, exp))):
        if run == "latest":
            continue
        s = json.load(open(os.path.join(root, exp, run, "summary.json")))
        for r in s["paired"]:
            if r["variant"] != "thrice":
                continue
            key = (exp, r["condition"], r["label"])
            series.setdefault(key, []).append(r["gm"] if r["design"] == "paired" else r["hl"])
for (exp, cond, label), v in series.items():
    print(f"{exp:13s} {cond:10s} {label:17s} ratio median {statistics.median(v):.3f} "
          f"(min {min(v):.3f}, max {max(v):.3f}) over {len(v)} runs; "
          f"off the true 3.000 by {100 * (statistics.median(v) / 3 - 1):+.1f}%")
PY
echo "results: $out"
