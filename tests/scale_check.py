"""Every reading path grows linearly with the rows it reads (issue 41): a quadratic step fails here.

Writes go test files of a suite (SMALL and LARGE benchmarks x 10 samples, scripts/scale-curve.py's
generator: three metrics, values with two decimals so that ties occur as in real output, a package
every 50 benchmarks so that configurations repeat), and a second side of each for compare. Each command runs at both sizes,
alternately, three times; its CPU time (user + system of the child, wait4) is compared between the
sizes. Linear growth gives LARGE/SMALL (8); a quadratic step gives its square (64) on the part it
takes. The bound is 2.5x the linear ratio: generous for noise, since both sizes meet the same room
back to back and start-up only lowers the ratio, and still far below a quadratic step's.

    python3 tests/scale_check.py NOISEFLOOR [--small 500] [--large 4000]
"""
import argparse
import atexit
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import tempfile


def generator():
    """scripts/scale-curve.py's suite(): P7 and this test read the same kind of file."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts", "scale-curve.py")
    spec = importlib.util.spec_from_file_location("scale_curve", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.suite


def cpu_seconds(argv):
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    err = p.stderr.read().decode()
    p.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 3) or "internal error" in err:  # check: 3 when a claim is not reproduced
        sys.exit(f"FAIL: {' '.join(argv)} exited {code}: {err.strip()[:400]}")
    return usage.ru_utime + usage.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("noisefloor")
    ap.add_argument("--small", type=int, default=500)
    ap.add_argument("--large", type=int, default=4000)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    linear = a.large / a.small
    bound = 2.5 * linear
    work = tempfile.mkdtemp(prefix="nf-scale.")
    atexit.register(shutil.rmtree, work, True)
    files = {}
    suite = generator()
    for n in (a.small, a.large):
        files[n] = (os.path.join(work, f"old{n}.txt"), os.path.join(work, f"new{n}.txt"))
        suite(files[n][0], n, 10, 1.0, n)
        suite(files[n][1], n, 10, 1.02, n + 1)
    nf = a.noisefloor
    html = os.path.join(work, "report.html")
    commands = {
        "cv": lambda old, new: [nf, "cv", old],
        "cv --format markdown": lambda old, new: [nf, "cv", "--format", "markdown", old],
        "cv --format json": lambda old, new: [nf, "cv", "--format", "json", old],
        "cv --format csv": lambda old, new: [nf, "cv", "--format", "csv", old],
        "cv --format summary": lambda old, new: [nf, "cv", "--format", "summary", old],
        "cv of two files": lambda old, new: [nf, "cv", old, new],
        "compare": lambda old, new: [nf, "compare", old, new],
        "compare --format json": lambda old, new: [nf, "compare", "--format", "json", old, new],
        "compare --format csv": lambda old, new: [nf, "compare", "--format", "csv", old, new],
        "report --format json": lambda old, new: [nf, "report", "--format", "json", old],
        "report --format gotest": lambda old, new: [nf, "report", "--format", "gotest", old],
        "report --html": lambda old, new: [nf, "report", "--html", html, old, new],
        "check": lambda old, new: [nf, "check", old, new, "--claim",
                                   f"cv({os.path.basename(old)[:-4]}) < 50%"],
    }
    failures = []
    for name, argv_of in commands.items():
        times = {a.small: [], a.large: []}
        for _ in range(a.runs):
            for n in (a.small, a.large):
                times[n].append(cpu_seconds(argv_of(*files[n])))
        small, large = statistics.median(times[a.small]), statistics.median(times[a.large])
        ratio = large / max(small, 1e-3)
        verdict = "ok" if ratio <= bound else "QUADRATIC?"
        print(f"{name:24} {a.small} rows {small:.3f} s, {a.large} rows {large:.3f} s: x{ratio:.1f} "
              f"(linear x{linear:.0f}, bound x{bound:.0f}) {verdict}")
        if ratio > bound:
            failures.append(name)
    if failures:
        sys.exit(f"FAIL: grows faster than linear in rows: {', '.join(failures)}")
    print(f"scale: {len(commands)} reading paths grow at most x{bound:.0f} for x{linear:.0f} the rows")


if __name__ == "__main__":
    main()
