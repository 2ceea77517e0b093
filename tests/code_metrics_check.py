#!/usr/bin/env python3
"""The house's figures are tests: scripts/code-metrics.py's counts against the limits in
tests/code_metrics.json (CTest code_metrics).

A count may not exceed its limit, a list of modules may not grow beyond its allowed set. Lowering a
limit is one line of the JSON file; raising one needs a reason in the commit message. The check
also proves it can fail: a copy of harness/ with one function of 131 lines added (of one line said
128 times) must be refused, for its length and for its repeated lines. The duplicates pairs need
the `duplicates` command (a developer tool, not in Debian): without it that figure is said to be
unchecked, and the repeated runs of six lines, counted here, still guard the exact copies.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
LIMITS = os.path.join(ROOT, "tests", "code_metrics.json")


def figures(tree):
    out = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "code-metrics.py"), tree, "--json"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"code_metrics: scripts/code-metrics.py failed: {out.stderr.strip()}")
    return json.loads(out.stdout)


def problems(got, limits):
    found = []
    for key, limit in limits.items():
        if key == "comment":
            continue
        value = got.get(key)
        if value is None:
            if key.startswith("duplicates"):
                print(f"code_metrics: {key}: not checked here (no `duplicates` command)")
                continue
            found.append(f"{key}: not measured")
        elif isinstance(limit, list):
            extra = sorted(set(value) - set(limit))
            if extra:
                found.append(f"{key}: {', '.join(extra)} beyond the allowed {', '.join(limit)}")
        elif value > limit:
            found.append(f"{key}: {value}, the limit is {limit}")
        elif value < limit:
            print(f"code_metrics: {key}: {value}, under its limit {limit}: lower the limit in tests/code_metrics.json")
    return found


def main():
    limits = json.load(open(LIMITS))
    got = figures(ROOT)
    found = problems(got, limits)
    # The check must be able to fail: one more long function than allowed.
    with tempfile.TemporaryDirectory() as d:
        shutil.copytree(os.path.join(ROOT, "harness"), os.path.join(d, "harness"))
        with open(os.path.join(d, "harness", "cli", "main.cpp"), "a", encoding="utf-8") as f:
            f.write("\nint deliberately_long() {\n  int x = 0;\n" + "  ++x;\n" * 128 + "  return x;\n}\n")
        changed = figures(d)
        for key in ("functions over 130 lines", "repeated runs of 6 lines (harness/)"):
            if not problems(changed, {key: limits[key]}):
                found.append(f"{key}: the check did not refuse a tree with a 131-line function of one line added")
    if found:
        print("\n".join("code_metrics: " + p for p in found))
        sys.exit(1)
    print("code_metrics: every figure within its limit (tests/code_metrics.json)")


if __name__ == "__main__":
    main()
