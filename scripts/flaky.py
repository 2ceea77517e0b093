#!/usr/bin/env python3
"""Runs the test suite (or some of its tests) N times and prints each test's pass rate.

Usage: python3 scripts/flaky.py [-n N] [--busy] [--jobs J] [--build-dir DIR] [--keep DIR] [-- CTEST_ARGS...]

  -n N          how many times (default 10)
  --jobs J      tests side by side, as `make test` runs them (default 2, its TEST_JOBS; the two
                engines of `make engines` must answer); 1: one at a time
  --busy        one busy loop pinned to each CPU beside the tests, the whole time (the way a
                machine that is not yours breaks a test that assumed a quiet room)
  --build-dir   the build to test (default build/, made by `make build`)
  --keep DIR    where each round's JUnit file and each failure's output go (default: a
                temporary directory, printed at the end)
  CTEST_ARGS    more ctest options after `--`, e.g. `-- -R e2e_gate` (one test) or `-- -E soak`

Each round is one `ctest` of the same build, run as `make test` runs it (ctest -j with
tests/resources.json). The table gives every test's passes, failures and skips over the rounds and the first line
of its first failure; exit status 1 when any test failed at least once, 0 otherwise. A flaky test
is a defect: fix the test (or the product), never the rate.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def busy_loops():
    """One `while :; do :; done` pinned to each CPU this process may use."""
    procs = []
    for cpu in sorted(os.sched_getaffinity(0)):
        # a session of its own, as an unrelated job's (the kernel's autogroups share CPUs by session)
        procs.append(subprocess.Popen(["taskset", "-c", str(cpu), "sh", "-c", "while :; do :; done"],
                                      start_new_session=True))
    return procs


def first_failure_line(output):
    for line in output.splitlines():
        if any(word in line for word in ("FAIL", "Error", "error:", "assert")):
            return line.strip()[:160]
    lines = [l for l in output.splitlines() if l.strip()]
    return lines[-1].strip()[:160] if lines else ""


def one_round(build, junit, jobs, ctest_args):
    cmd = ["ctest", "--test-dir", build, "--timeout", "1200", "--output-junit", junit, "-j", str(jobs),
           "--resource-spec-file", os.path.join(REPO, "tests", "resources.json"), *ctest_args]
    started = time.monotonic()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    seconds = time.monotonic() - started
    if not os.path.exists(junit):
        sys.exit(f"flaky: ctest wrote no {junit}: is {build} a configured build (make build)?")
    results = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        status = case.get("status", "run")
        if case.find("failure") is not None or status == "fail":
            outcome = "fail"
        elif case.find("skipped") is not None or status in ("notrun", "disabled"):
            outcome = "skip"
        else:
            outcome = "pass"
        out = case.find("system-out")
        results[case.get("name")] = (outcome, float(case.get("time", 0)), out.text if out is not None and out.text else "")
    return results, seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=10)
    ap.add_argument("--busy", action="store_true")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--build-dir", default=os.path.join(os.path.dirname(__file__), "..", "build"))
    ap.add_argument("--keep")
    ap.add_argument("ctest_args", nargs="*")
    a = ap.parse_args()
    if a.n < 1:
        sys.exit("flaky: -n must be at least 1")
    build = os.path.abspath(a.build_dir)
    if not os.path.exists(os.path.join(build, "CTestTestfile.cmake")):
        sys.exit(f"flaky: {build} has no tests: run `make build` first (or give --build-dir)")
    keep = a.keep or tempfile.mkdtemp(prefix="nf-flaky.")
    os.makedirs(keep, exist_ok=True)
    loops = busy_loops() if a.busy else []
    tally, times, first = {}, {}, {}
    try:
        for r in range(1, a.n + 1):
            results, seconds = one_round(build, os.path.join(keep, f"round-{r}.xml"), a.jobs, a.ctest_args)
            failed = sorted(n for n, (o, _, _) in results.items() if o == "fail")
            print(f"round {r}/{a.n}: {len(results)} tests in {seconds:.0f} s, "
                  f"{len(failed)} failed{': ' + ', '.join(failed) if failed else ''}", flush=True)
            for name, (outcome, secs, output) in results.items():
                tally.setdefault(name, {"pass": 0, "fail": 0, "skip": 0})[outcome] += 1
                times.setdefault(name, []).append(secs)
                if outcome == "fail":
                    with open(os.path.join(keep, f"{name}-round-{r}.txt"), "w", encoding="utf-8") as f:
                        f.write(output)
                    first.setdefault(name, first_failure_line(output))
    finally:
        for p in loops:
            p.kill()
            p.wait()
    width = max((len(n) for n in tally), default=4)
    print(f"\n{'test':<{width}}  pass rate  pass  fail  skip  median s  first failure")
    for name in sorted(tally, key=lambda n: (-tally[n]["fail"], n)):
        t = tally[name]
        ran = t["pass"] + t["fail"]
        rate = f"{100 * t['pass'] / ran:.0f}%" if ran else "—"
        med = sorted(times[name])[len(times[name]) // 2]
        print(f"{name:<{width}}  {rate:>9}  {t['pass']:>4}  {t['fail']:>4}  {t['skip']:>4}  {med:>8.1f}  {first.get(name, '')}")
    print(f"\n{a.n} round(s){' beside a busy loop per CPU' if a.busy else ''}; outputs of failures: {keep}")
    return 1 if any(t["fail"] for t in tally.values()) else 0


if __name__ == "__main__":
    shutil.which("ctest") or sys.exit("flaky: ctest is missing (scripts/bootstrap.sh)")
    sys.exit(main())
