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
import json, math, os, statistics, sys
root = sys.argv[1]
# Per run: paired → geometric mean of the per-repeat ratios thrice/once; blocks → ratio of the
# medians. For the thread CPU time (the experiments' metric) and for the wall time (recorded too).
series = {}
for exp in ("ratio", "ratio-blocks"):
    for run in sorted(os.listdir(os.path.join(root, exp))):
        if run == "latest":
            continue
        lines = [json.loads(l) for l in open(os.path.join(root, exp, run, "samples.jsonl"))]
        label = {r["condition"]: r["label"] for r in json.load(open(os.path.join(root, exp, run, "summary.json")))["paired"]}
        for unit in ("cpu-ns/op", "ns/op"):
            for cond in sorted({l["condition"] for l in lines}):
                kept = [l for l in lines if l["condition"] == cond and not l["warmup"]]
                val = lambda l: next(m["value"] for m in l["metrics"] if m["unit"] == unit)
                if exp == "ratio":
                    by = {}
                    for l in kept:
                        if l["pair"] == "thrice":
                            by.setdefault(l["repeat"], {})[l["variant"]] = val(l)
                    r = [v["thrice"] / v["once"] for v in by.values() if len(v) == 2]
                    x = math.exp(statistics.mean(math.log(y) for y in r))
                else:
                    once = [val(l) for l in kept if l["variant"] == "once"]
                    thrice = [val(l) for l in kept if l["variant"] == "thrice"]
                    x = statistics.median(thrice) / statistics.median(once)
                series.setdefault((unit, exp, cond), []).append((x, label[cond]))
for (unit, exp, cond), v in series.items():
    xs = [x for x, _ in v]
    labels = ",".join(sorted({l for _, l in v}))
    print(f"{unit:10s} {exp:13s} {cond:10s} {labels:33s} ratio median {statistics.median(xs):.3f} "
          f"(min {min(xs):.3f}, max {max(xs):.3f}) over {len(xs)} runs; vs true 3.000: "
          f"{100 * (statistics.median(xs) / 3 - 1):+.1f}%")
PY
echo "results: $out"
