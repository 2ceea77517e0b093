#!/usr/bin/env python3
"""P7: noisefloor's cv and compare beside the real benchstat, from 10^2 to 10^5 rows.

Go test files of ROWS benchmarks x 20 samples (three metrics, ns/op with two decimals so that ties
occur as in real output, B/op and allocs/op, a package every 50 benchmarks), and one benchmark x
10^6 samples; the second side of each is 2% slower. Each size runs noisefloor and benchstat
alternately (21 times up to 10^3 rows, 3 times at 10^4 and at 10^6 samples, once at 10^5 rows), wall time and peak RSS from wait4. Prints a
table with the ratios and the growth exponent of each tool (least squares of log time on log rows,
10^3 to 10^5: 1 is linear, 2 quadratic), and writes the figures as JSON.

    scripts/scale-curve.py NOISEFLOOR BENCHSTAT OUT.json [--max-rows 100000] [--work DIR]
"""
import argparse
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def suite(path, rows, samples, shift, seed):
    rng = random.Random(seed)
    with open(path, "w") as f:
        f.write("goos: linux\ngoarch: amd64\ncpu: scale curve\n")
        for r in range(rows):
            if r % 50 == 0:
                f.write(f"pkg: example.com/scale/p{r // 50:05d}\n")
            base = 100.0 * (1 + (r % 97) / 100) * shift
            f.write("".join(f"BenchmarkRow{r:06d}-2 \t 1000000\t {rng.gauss(base, base * 0.02):.2f} ns/op"
                            f"\t {64 + 8 * (r % 3)} B/op\t {1 + r % 2} allocs/op\n" for _ in range(samples)))
        f.write("PASS\nok  \texample.com/scale\t1.0s\n")


def measure(argv):
    start = time.monotonic()  # os.times().elapsed counts clock ticks: 10 ms, a 10^2-row run's whole time
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    took = time.monotonic() - start
    err = p.stderr.read().decode()
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(argv)}: exit {os.waitstatus_to_exitcode(status)}: {err[:300]}")
    return took, usage.ru_maxrss / 1024.0


def exponent(points):
    """Least-squares slope of log(time) on log(rows)."""
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(t) for _, t in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("noisefloor")
    ap.add_argument("benchstat")
    ap.add_argument("out")
    ap.add_argument("--max-rows", type=int, default=100000)
    ap.add_argument("--work")
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="nf-scale-curve.")
    sizes = [(n, 20) for n in (100, 1000, 10000, 100000) if n <= a.max_rows] + [(1, 1000000)]
    figures = []
    try:
        for rows, samples in sizes:
            old, new = os.path.join(work, f"old-{rows}x{samples}.txt"), os.path.join(work, f"new-{rows}x{samples}.txt")
            suite(old, rows, samples, 1.0, rows)
            suite(new, rows, samples, 1.02, rows + 1)
            # Start-up is most of a small suite's time, and it varies by milliseconds: more runs.
            # One benchmark of 10^6 samples takes about a second: three runs, as at 10^4 rows.
            reps = 21 if rows * samples <= 20000 else 3 if rows * samples <= 200000 or rows == 1 else 1
            for cmd in ("cv", "compare"):
                files = [old] if cmd == "cv" else [old, new]
                nf, bs = [], []
                for _ in range(reps):
                    nf.append(measure([a.noisefloor, cmd] + files))
                    bs.append(measure([a.benchstat] + files))
                figures.append({
                    "command": cmd, "rows": rows, "samples": samples, "runs": reps,
                    "noisefloor_s": statistics.median(t for t, _ in nf), "benchstat_s": statistics.median(t for t, _ in bs),
                    "noisefloor_s_range": [min(t for t, _ in nf), max(t for t, _ in nf)],
                    "benchstat_s_range": [min(t for t, _ in bs), max(t for t, _ in bs)],
                    "noisefloor_mb": max(m for _, m in nf), "benchstat_mb": max(m for _, m in bs),
                })
                f = figures[-1]
                print(f"{cmd:8} {rows:>7} x {samples:<7} noisefloor {f['noisefloor_s']:8.3f} s {f['noisefloor_mb']:6.0f} MB"
                      f"   benchstat {f['benchstat_s']:8.3f} s {f['benchstat_mb']:6.0f} MB"
                      f"   time x{f['noisefloor_s'] / f['benchstat_s']:.2f}  memory x{f['noisefloor_mb'] / f['benchstat_mb']:.2f}",
                      flush=True)
            for path in (old, new):
                os.remove(path)
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    growth = {}
    for cmd in ("cv", "compare"):
        for tool in ("noisefloor", "benchstat"):
            points = [(f["rows"], f[f"{tool}_s"]) for f in figures
                      if f["command"] == cmd and f["samples"] == 20 and f["rows"] >= 1000]
            if len(points) >= 2:
                growth[f"{cmd}/{tool}"] = exponent(points)
                print(f"growth exponent, {cmd}, {tool} (time ~ rows^k, 10^3 rows and up): k = {growth[f'{cmd}/{tool}']:.2f}")
    with open(a.out, "w") as out:
        json.dump({"figures": figures, "growth": growth}, out, indent=1)


if __name__ == "__main__":
    main()
