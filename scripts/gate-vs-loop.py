#!/usr/bin/env python3
"""P13: the A/B gate against the seed's 20-line loop, side by side, on a program of known cost.

Usage: python3 scripts/gate-vs-loop.py [--trials N] [--rooms still,drifting]
                                      [--changes none,5,10,50] [--out DIR] [--nf PATH]
                                      [--gate-args "..."]

The program: a C file whose one loop runs N dependent LCG steps (about 15 ms of CPU here), in a
git repository made for the run: A the base, and one branch from A per change: `none` rewords a
comment, `5`, `10` and `50` multiply N by 1.05, 1.10 and 1.50. The experiment is the one the
issue tried: `command` format, `metric: cpu`, 12 samples, one idle condition.

Each trial runs, back to back and in alternating order so that both meet the same moments of
the room:
  - the gate: `noisefloor run -q gate.yaml --base A --head X` (builds cached after the first);
    "slower" when it exits 4 (a regression);
  - the loop: the base's and the head's binaries (built once, outside the timing) alternated 10
    times (old, new, old, new, ...) in bash, the CPU time of each process from bash's `time`
    (user + system, to the millisecond), then the real benchstat
    (../shared/oracles/benchstat/build.sh) on the two files; "slower" when benchstat's row has a
    delta (not "~") and it is positive.
  - the same loop with each process's CPU time to the microsecond (wait4, no shell): the power a
    loop has when its timer does not round, reported beside (its wall time is not the seed's).
The wall time of each is measured from the start of its first process to the end of its answer
(the gate's start-up, build-cache lookups and fingerprint included; the loop's benchstat included).

Rooms: `still` (whatever the machine is doing), `drifting` (a busy loop pinned to each CPU,
switched on and off every 0.7 s for the whole room).

Prints one table (and writes DIR/p13.json): per room and change, how often each called slower,
with the Clopper-Pearson 95% interval, and the wall times (median, min-max) and their ratio.
"""
import argparse
import json
import math
import os
import re
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
LOOP_N = 10
BASE_STEPS = 10_000_000

C_SOURCE = """\
/* {comment} */
#include <stdint.h>
#include <stdio.h>

int main(void) {{
  volatile uint64_t sink;
  uint64_t x = 1;
  for (long i = 0; i < {steps}L; ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  sink = x;
  (void)sink;
  return 0;
}}
"""

GATE_YAML = """\
name: gate
benchmark:
  build: [cc, -O2, -o, burn, burn.c]
  command: [./burn]
  format: command
  metric: cpu
  samples: 12
conditions:
  - name: idle
"""

CHANGES = {"none": (1.0, "the base, with its comment reworded"), "5": (1.05, "5% more steps"),
           "10": (1.10, "10% more steps"), "50": (1.50, "50% more steps")}


def run(cmd, cwd=None, **kw):
    return subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, text=True, **kw).stdout


def make_repo(d):
    os.makedirs(d)
    git = lambda *a: run(["git", *a], cwd=d)
    git("init", "-q", "-b", "main", ".")
    git("config", "user.name", "p13")
    git("config", "user.email", "p13@noisefloor.invalid")
    git("config", "commit.gpgsign", "false")

    def write(steps, comment):
        with open(os.path.join(d, "burn.c"), "w") as f:
            f.write(C_SOURCE.format(steps=steps, comment=comment))

    write(BASE_STEPS, "burn: N dependent LCG steps")
    with open(os.path.join(d, "gate.yaml"), "w") as f:
        f.write(GATE_YAML)
    with open(os.path.join(d, ".gitignore"), "w") as f:
        f.write("burn\n")
    git("add", "-A")
    git("commit", "-qm", "A")
    refs = {"A": git("rev-parse", "HEAD").strip()}
    for change, (factor, what) in CHANGES.items():
        git("checkout", "-q", "-b", f"c{change}", refs["A"])
        comment = "burn: N dependent LCG steps, one after another" if change == "none" else "burn: N dependent LCG steps"
        write(round(BASE_STEPS * factor), comment)
        git("commit", "-qam", f"{change}: {what}")
        refs[change] = git("rev-parse", "HEAD").strip()
    git("checkout", "-q", "main")
    return refs


def build_binaries(repo, refs, out):
    """The loop's binaries: each commit's burn.c compiled once (as the loop's user would)."""
    bins = {}
    for name, commit in refs.items():
        src = os.path.join(out, f"burn-{name}.c")
        with open(src, "w") as f:
            f.write(run(["git", "show", f"{commit}:burn.c"], cwd=repo))
        bins[name] = os.path.join(out, f"burn-{name}")
        run(["cc", "-O2", "-o", bins[name], src])
    return bins


# The seed's loop as a user writes it: bash, old and new alternated 10 times, the CPU time of each
# process from bash's `time` (user + system, to the millisecond), then benchstat.
SEED_LOOP = r"""
set -e
old=$1 new=$2 bs=$3 dir=$4
TIMEFORMAT='%3U %3S'
: >"$dir/old.txt"; : >"$dir/new.txt"
for i in 1 2 3 4 5 6 7 8 9 10; do
  for side in old new; do
    bin=$old; [ $side = new ] && bin=$new
    t=$( { time "$bin" >/dev/null; } 2>&1 )
    set -- $t
    echo "BenchmarkBurn 1 $(echo "$1 + $2" | bc -l) cpu-sec/op" >>"$dir/$side.txt"
  done
done
"$bs" "$dir/old.txt" "$dir/new.txt"
"""


def loop_trial(old, new, benchstat, work):
    """The seed's loop (SEED_LOOP): (benchstat's answer, wall s, its output)."""
    start = time.monotonic()
    out = run(["bash", "-c", SEED_LOOP, "seed-loop", old, new, benchstat, work])
    wall = time.monotonic() - start
    return loop_verdict(out), wall, out


def cpu_of(path):
    """The CPU time (user + system) of one run of PATH, from wait4's rusage (to the microsecond)."""
    pid = os.posix_spawn(path, [path], os.environ)
    _, status, ru = os.wait4(pid, 0)
    if status != 0:
        raise RuntimeError(f"{path} exited with status {status}")
    return ru.ru_utime + ru.ru_stime


def precise_loop_trial(old, new, benchstat, work):
    """The same loop with the CPU time to the microsecond (no shell): benchstat's answer, wall s."""
    start = time.monotonic()
    values = {"old": [], "new": []}
    for _ in range(LOOP_N):
        values["old"].append(cpu_of(old))
        values["new"].append(cpu_of(new))
    files = []
    for side, vs in values.items():
        path = os.path.join(work, f"{side}.precise.txt")
        with open(path, "w") as f:
            f.writelines(f"BenchmarkBurn 1 {v:.9f} cpu-sec/op\n" for v in vs)
        files.append(path)
    out = run([benchstat, *files])
    return loop_verdict(out), time.monotonic() - start


def loop_verdict(out):
    """benchstat's answer for the one benchmark row: "slower", "faster" or "~" (no significant
    change): `Burn  14.95m ± 2%  15.80m ± 2%  +5.64% (p=0.000 n=10)`."""
    for line in out.splitlines():
        if line.split()[:1] == ["Burn"]:
            # "+5.64% (p=0.000 n=10)"; "0.00% (p=0.037 n=10)" when the medians agree to the timer's
            # resolution although the ranks differ: neither slower nor faster.
            m = re.search(r"\s([+-]?\d+(?:\.\d+)?)%\s+\(p=", line)
            if m:
                delta = float(m.group(1))
                return "slower" if delta > 0 else "faster" if delta < 0 else "~"
            if re.search(r"\s~\s+\(p=", line):
                return "~"
    raise RuntimeError(f"no Burn row in benchstat's output:\n{out}")


def shift_interval(x, tail=0.025):
    """The gate's effect on pair log ratios (harness/stats/README.md §3.13), by brute force: the
    median of the Walsh averages and the signed-rank interval [W_(k), W_(M+1-k)]."""
    n = len(x)
    walsh = sorted((x[i] + x[j]) / 2 for i in range(n) for j in range(i, n))
    m = len(walsh)
    count = [0] * (n * (n + 1) // 2 + 1)
    count[0] = 1
    for r in range(1, n + 1):
        for w in range(len(count) - 1, r - 1, -1):
            count[w] += count[w - r]
    k, below = 0, 0
    while k < len(count) and (below + count[k]) / 2 ** n <= tail:
        below += count[k]
        k += 1
    est = walsh[m // 2] if m % 2 else (walsh[m // 2 - 1] + walsh[m // 2]) / 2
    return (est, walsh[k - 1], walsh[m - k]) if k else (est, -math.inf, math.inf)


def cuped(run_dir):
    """CUPED on one gate: the pairs' log ratios adjusted for the difference of what each run met
    (run-queue wait, preemptions, other work on its CPUs), by least squares; the interval's width
    and estimate with and without (§3.13 "Adjusting for what each run met")."""
    samples = [json.loads(l) for l in open(os.path.join(run_dir, "samples.jsonl"))]
    runs = {r["invocation"]: r for c in json.load(open(os.path.join(run_dir, "run.json")))["condition_records"]
            for r in c["runs"]}
    by = {}
    for smp in samples:
        if smp.get("warmup") or smp.get("block", 1) != 1:
            continue
        inv = runs[smp["invocation"]]
        q = inv.get("run_queue") or {}
        cov = (q.get("wait_s", 0.0), inv["usage"]["involuntary_switches"],
               max(0.0, q.get("cpus_busy_s", 0.0) - q.get("run_s", 0.0)))
        by.setdefault(smp["repeat"], {})[smp["variant"]] = (smp["metrics"][0]["value"], cov)
    x, c = [], []
    for quad in by.values():
        for h, b in (("head", "base"), ("head'", "base'")):
            if h in quad and b in quad:
                x.append(math.log(quad[h][0] / quad[b][0]))
                c.append([quad[h][1][i] - quad[b][1][i] for i in range(3)])
    if len(x) < 6:
        return None
    cols = [i for i in range(3) if statistics.pstdev(row[i] for row in c) > 0]
    adj = list(x)
    if cols:
        mx = statistics.fmean(x)
        mc = [statistics.fmean(row[i] for row in c) for i in cols]
        z = [[row[i] - mc[j] for j, i in enumerate(cols)] for row in c]
        # normal equations (Z'Z) beta = Z'(x - mean x), by Gauss-Jordan
        k = len(cols)
        a = [[sum(r[p] * r[q] for r in z) for q in range(k)] + [sum(r[p] * (xi - mx) for r, xi in zip(z, x))]
             for p in range(k)]
        for p in range(k):
            piv = max(range(p, k), key=lambda r: abs(a[r][p]))
            if abs(a[piv][p]) < 1e-300:
                return None
            a[p], a[piv] = a[piv], a[p]
            for r in range(k):
                if r != p:
                    f = a[r][p] / a[p][p]
                    a[r] = [u - f * v for u, v in zip(a[r], a[p])]
        beta = [a[p][k] / a[p][p] for p in range(k)]
        adj = [xi - sum(bj * zj for bj, zj in zip(beta, zi)) for xi, zi in zip(x, z)]
    plain, adjusted = shift_interval(x), shift_interval(adj)
    return {"width": plain[2] - plain[1], "width_adjusted": adjusted[2] - adjusted[1],
            "estimate": plain[0], "estimate_adjusted": adjusted[0],
            "slower_adjusted": adjusted[1] > 0 and adjusted[0] > math.log1p(0.02)}


def gate_trial(nf, repo, base, head, results, cache, extra):
    start = time.monotonic()
    env = dict(os.environ, XDG_CACHE_HOME=cache)
    p = subprocess.run([nf, "run", "-q", "gate.yaml", "--base", base, "--head", head, "--results", results, *extra],
                       cwd=repo, env=env, capture_output=True, text=True)
    wall = time.monotonic() - start
    if p.returncode not in (0, 4):
        raise RuntimeError(f"the gate exited {p.returncode}: {p.stderr.strip().splitlines()[-1:]}")
    latest = os.path.join(results, "gate", "latest")
    gate = json.load(open(os.path.join(latest, "gate.json")))
    samples = sum(1 for _ in open(os.path.join(latest, "samples.jsonl")))
    return ("slower" if p.returncode == 4 else "not slower"), wall, gate, samples, cuped(latest)


class Drift:
    """A busy loop pinned to each CPU, switched on and off every `period` seconds."""

    def __init__(self, period=0.7):
        self.period, self.stop, self.procs = period, threading.Event(), []
        self.thread = threading.Thread(target=self.toggle, daemon=True)

    def toggle(self):
        on = False
        while not self.stop.wait(self.period):
            on = not on
            if on:
                self.procs = [subprocess.Popen(["taskset", "-c", str(c), "sh", "-c", "while :; do :; done"],
                                               start_new_session=True)
                              for c in sorted(os.sched_getaffinity(0))]
            else:
                self.kill()

    def kill(self):
        for p in self.procs:
            p.kill()
            p.wait()
        self.procs = []

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()
        self.kill()


def binom_cdf(k, n, p):
    return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k + 1))


def clopper_pearson(k, n, alpha=0.05):
    def solve(f):
        lo, hi = 0.0, 1.0
        for _ in range(100):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
        return (lo + hi) / 2
    lower = 0.0 if k == 0 else solve(lambda p: (1 - binom_cdf(k - 1, n, p)) - alpha / 2)
    upper = 1.0 if k == n else solve(lambda p: alpha / 2 - binom_cdf(k, n, p))
    return lower, upper


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--rooms", default="still,drifting")
    ap.add_argument("--changes", default="none,5,10,50")
    ap.add_argument("--out")
    ap.add_argument("--nf", default=os.path.join(REPO, "build", "noisefloor"))
    ap.add_argument("--gate-args", default="", help="more options for the gate's run (shlex-split)")
    ap.add_argument("--benchstat", help="a built benchstat (default: build it from the shared oracle)")
    a = ap.parse_args()
    rooms, changes = a.rooms.split(","), a.changes.split(",")
    for c in changes:
        if c not in CHANGES:
            sys.exit(f"gate-vs-loop: unknown change {c!r} (expected one of {', '.join(CHANGES)})")
    out = a.out or tempfile.mkdtemp(prefix="nf-p13.")
    os.makedirs(out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="nf-p13-work.")
    repo = os.path.join(work, "repo")
    refs = make_repo(repo)
    bins = build_binaries(repo, refs, work)
    benchstat = a.benchstat or os.path.join(work, "benchstat")
    if not a.benchstat:
        oracle = os.path.join(REPO, "..", "shared", "oracles", "benchstat", "build.sh")
        subprocess.run(["bash", oracle, benchstat], check=True, capture_output=True)
    cache, results = os.path.join(work, "cache"), os.path.join(work, "results")
    extra = shlex.split(a.gate_args)
    # One untimed gate per change first: the build cache then holds every side.
    for c in changes:
        gate_trial(a.nf, repo, refs["A"], refs[c], results, cache, extra)
    trials = []
    for room in rooms:
        ctx = Drift() if room == "drifting" else None
        if ctx:
            ctx.__enter__()
        try:
            for t in range(a.trials):
                for c in changes:
                    gate_first = (t + changes.index(c)) % 2 == 0
                    rec = {"room": room, "change": c, "trial": t, "gate_first": gate_first}
                    for side in (("gate", "loop", "precise") if gate_first else ("loop", "precise", "gate")):
                        if side == "gate":
                            v, w, g, n, cu = gate_trial(a.nf, repo, refs["A"], refs[c], results, cache, extra)
                            rows = [r for r in g["rows"] if r["gating"]]
                            rec.update(gate=v, gate_wall=w, gate_invocations=n, cuped=cu,
                                       gate_rows=[{k: r.get(k) for k in ("verdict", "confirmed")} |
                                                  {"ratio": r["first"]["ratio"], "ci": r["first"]["ci"],
                                                   "n": r["first"]["n"]} for r in rows])
                        elif side == "loop":
                            v, w, text = loop_trial(bins["A"], bins[c], benchstat, work)
                            rec.update(loop=v, loop_wall=w)
                        else:
                            v, w = precise_loop_trial(bins["A"], bins[c], benchstat, work)
                            rec.update(precise=v, precise_wall=w)
                    trials.append(rec)
                    with open(os.path.join(out, "trials.json"), "w") as f:  # kept as it goes
                        json.dump(trials, f)
                    print(f"{room:8} {c:>4}% trial {t + 1:2}: gate {rec['gate']:10} {rec['gate_wall']:5.2f} s "
                          f"({rec['gate_invocations']} invocations)  loop {rec['loop']:6} {rec['loop_wall']:5.2f} s"
                          f"  µs loop {rec['precise']:6} {rec['precise_wall']:5.2f} s", flush=True)
        finally:
            if ctx:
                ctx.__exit__(None, None, None)
    summary = []
    for room in rooms:
        for c in changes:
            ts = [t for t in trials if t["room"] == room and t["change"] == c]
            n = len(ts)
            gk = sum(t["gate"] == "slower" for t in ts)
            lk = sum(t["loop"] == "slower" for t in ts)
            pk = sum(t["precise"] == "slower" for t in ts)
            gw = [t["gate_wall"] for t in ts]
            lw = [t["loop_wall"] for t in ts]
            ratios = [t["gate_wall"] / t["loop_wall"] for t in ts]
            cu = [t["cuped"] for t in ts if t.get("cuped")]
            summary.append({"room": room, "change": c, "n": n,
                            "gate_slower": [gk, *clopper_pearson(gk, n)], "loop_slower": [lk, *clopper_pearson(lk, n)],
                            "precise_slower": [pk, *clopper_pearson(pk, n)],
                            "precise_wall": statistics.median(t["precise_wall"] for t in ts),
                            "gate_wall": [statistics.median(gw), min(gw), max(gw)],
                            "loop_wall": [statistics.median(lw), min(lw), max(lw)],
                            "wall_ratio": [statistics.median(ratios), min(ratios), max(ratios)],
                            "gate_invocations": statistics.median(t["gate_invocations"] for t in ts),
                            "cuped": {"width_ratio": statistics.median(u["width_adjusted"] / u["width"] for u in cu
                                                                       if u["width"] > 0) if cu else None,
                                      "slower_adjusted": sum(u["slower_adjusted"] for u in cu),
                                      "estimate_shift": statistics.fmean(u["estimate_adjusted"] - u["estimate"]
                                                                         for u in cu) if cu else None}})
    head = ("| room | change | gate: slower | loop + benchstat: slower | µs loop: slower | gate wall | loop wall "
            "| gate/loop wall | gate invocations |")
    print("\n" + head + "\n|" + "---|" * 9)
    pct = lambda k, lo, hi, n: f"{k}/{n} [{100 * lo:.0f}, {100 * hi:.0f}]%"
    for s in summary:
        n = s["n"]
        print(f"| {s['room']} | {'+' + s['change'] + ' %' if s['change'] != 'none' else 'none'} "
              f"| {pct(*s['gate_slower'], n)} | {pct(*s['loop_slower'], n)} | {pct(*s['precise_slower'], n)} "
              f"| {s['gate_wall'][0]:.2f} s ({s['gate_wall'][1]:.2f}–{s['gate_wall'][2]:.2f}) "
              f"| {s['loop_wall'][0]:.2f} s ({s['loop_wall'][1]:.2f}–{s['loop_wall'][2]:.2f}) "
              f"| {s['wall_ratio'][0]:.2f} ({s['wall_ratio'][1]:.2f}–{s['wall_ratio'][2]:.2f}) "
              f"| {s['gate_invocations']:g} |")
    print("\nCUPED (§3.13): the pairs adjusted for the difference of run-queue wait, preemptions and other "
          "work on the CPUs, by least squares, per gate:")
    for s in summary:
        cu = s["cuped"]
        if cu["width_ratio"] is not None:
            print(f"  {s['room']:8} {s['change']:>4}: interval width adjusted/plain, median {cu['width_ratio']:.3f}; "
                  f"slower when adjusted {cu['slower_adjusted']}/{s['n']} (plain {s['gate_slower'][0]}); "
                  f"estimate moved by {100 * cu['estimate_shift']:+.2f}% on average")
    with open(os.path.join(out, "p13.json"), "w") as f:
        json.dump({"summary": summary, "trials": trials}, f, indent=1)
    print(f"\ntrials and summary: {os.path.join(out, 'p13.json')}")
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.default_int_handler)
    main()
