#!/usr/bin/env python3
"""make perf P14: the gate on simulated instructions against the gate on wall time, on the same
change, beside one busy loop per CPU for the whole time (the room the simulation is for).

    scripts/simulated-gate.py --trials N --nf build/noisefloor --out DIR

A repository of one C program (tests/integration/sim_loop.c at 10,000,000 iterations) with two
gate experiments: `metric: simulated-instructions` (samples: 2, one quad: the least for its exact
counts, and the gate's default threshold for it, 0.1%) and `metric: wall` (samples: auto, the default 2%). Each trial gates two changes with
both, alternately in order: 1% more iterations (10,100,000), and a comment. Writes DIR/p14.json:
every gate (change, metric, exit status, estimate and interval, verdict, wall seconds) and per cell the count of
gates that called the head worse (exit 4), with its Clopper-Pearson 95% interval.
"""
import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASE_N, HEAD_N = "10000000", "10100000"
GATE = """name: {name}
benchmark:
  workdir: ..
  build: [cc, -O2, -o, loop, loop.c]
  command: [./loop]
  format: command
  metric: {metric}
  samples: {samples}
conditions:
  - name: host
"""


def clopper_pearson(k, n):
    """The 95% interval of k in n, as P13 computes it (scripts/gate-vs-loop.py)."""
    spec = importlib.util.spec_from_file_location("gate_vs_loop", os.path.join(REPO, "scripts/gate-vs-loop.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.clopper_pearson(k, n)


def git(repo, *args):
    subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True)


def make_repo(work):
    repo = os.path.join(work, "repo")
    os.makedirs(os.path.join(repo, "bench"))
    src = open(os.path.join(REPO, "tests/integration/sim_loop.c")).read()
    fixed = src.replace("argc > 1 ? atol(argv[1]) : 1000000", BASE_N)
    if fixed == src:
        sys.exit("simulated-gate.py: sim_loop.c no longer has the iteration count this script fixes")
    open(os.path.join(repo, "loop.c"), "w").write(fixed)
    open(os.path.join(repo, ".gitignore"), "w").write("loop\nresults/\n")
    for name, metric, samples in (("sim", "simulated-instructions", 2), ("wall", "wall", "auto")):
        open(os.path.join(repo, "bench", f"{name}.yaml"), "w").write(
            GATE.format(name=f"p14{name}", metric=metric, samples=samples))
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=p14", "-c", "user.email=p14@localhost", "commit", "-qm", "base")
    return repo


def apply(repo, change):
    git(repo, "checkout", "-q", "loop.c")
    path = os.path.join(repo, "loop.c")
    text = open(path).read()
    if change == "+1%":
        text = text.replace(f"= {BASE_N};", f"= {HEAD_N};")
    else:
        text += "// a comment only\n"
    open(path, "w").write(text)


WORDS = ("worse", "better", "slower", "faster", "within noise", "inconclusive")


def verdict(out):
    """The gating row's estimate and interval, and its verdict's word (the line may wrap)."""
    lines = out.splitlines()
    for i, line in enumerate(lines):
        m = re.search(r"[+-][0-9.]+% \[[^]]*\]", line)
        if m:
            rest = " ".join(lines[i:i + 3])
            word = next((w for w in WORDS if w in rest), "?")
            return m.group(0), word
    return (lines or ["(no output)"])[-1].strip(), "?"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--nf", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    work = os.path.join(a.out, "work")
    shutil.rmtree(work, ignore_errors=True)
    repo = make_repo(work)
    busy = [subprocess.Popen(["taskset", "-c", str(cpu), "sh", "-c", "while :; do :; done"],
                             start_new_session=True) for cpu in sorted(os.sched_getaffinity(0))]
    gates = []
    try:
        for t in range(a.trials):
            for change in ("+1%", "comment"):
                apply(repo, change)
                order = ("sim", "wall") if (t + (change == "comment")) % 2 == 0 else ("wall", "sim")
                for metric in order:
                    start = time.monotonic()
                    r = subprocess.run([a.nf, "run", f"bench/{metric}.yaml", "--base", "main"], cwd=repo,
                                       capture_output=True, text=True)
                    wall = time.monotonic() - start
                    estimate, word = verdict(r.stdout)
                    g = {"trial": t, "change": change, "metric": metric, "exit": r.returncode,
                         "estimate": estimate, "verdict": word, "wall": wall}
                    gates.append(g)
                    print(f"trial {t + 1}/{a.trials} {change:8} {metric:4}: exit {r.returncode} in {wall:.1f} s: "
                          f"{estimate} {word}", flush=True)
                    if r.returncode not in (0, 4):
                        print(r.stdout[-2000:], r.stderr[-2000:], file=sys.stderr)
    finally:
        for p in busy:
            p.kill()
            p.wait()
    summary = []
    for change in ("+1%", "comment"):
        for metric in ("sim", "wall"):
            cell = [g for g in gates if g["change"] == change and g["metric"] == metric]
            k = sum(g["exit"] == 4 for g in cell)
            lo, hi = clopper_pearson(k, len(cell))
            words = {}
            for g in cell:
                words[g["verdict"]] = words.get(g["verdict"], 0) + 1
            summary.append({"change": change, "metric": metric, "n": len(cell), "worse": [k, lo, hi],
                            "verdicts": words, "estimates": [g["estimate"] for g in cell],
                            "failed": sum(g["exit"] not in (0, 4) for g in cell),
                            "walls": [g["wall"] for g in cell]})
    json.dump({"gates": gates, "summary": summary}, open(os.path.join(a.out, "p14.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
