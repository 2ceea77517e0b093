#!/usr/bin/env python3
"""The tree is formatted: every C++ file of harness/ and tests/ is as clang-format (.clang-format)
leaves it. Exits 1 naming the files that are not (`make format` formats them), 77 (a visible
skip) where clang-format is missing outside CI; in CI (CI=true) a missing clang-format fails.
"""
import os, shutil, subprocess, sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
tool = shutil.which("clang-format")
if tool is None:
    print("format: clang-format is not installed (apt-get install clang-format)")
    sys.exit(1 if os.environ.get("CI") == "true" else 77)
files = []
for top in ("harness", "tests"):
    for folder, dirs, names in os.walk(os.path.join(ROOT, top)):
        dirs[:] = sorted(d for d in dirs if d not in ("data", "corpus"))
        files += [os.path.join(folder, n) for n in sorted(names) if n.endswith((".cpp", ".hpp"))]
bad = []
for f in files:
    with open(f, encoding="utf-8") as fh:
        text = fh.read()
    out = subprocess.run([tool, "--style=file", f"--assume-filename={f}"], input=text, capture_output=True,
                         text=True, cwd=ROOT)
    if out.returncode != 0:
        bad.append(f"{os.path.relpath(f, ROOT)}: clang-format failed: {out.stderr.strip()}")
    elif out.stdout != text:
        bad.append(os.path.relpath(f, ROOT))
if bad:
    print("format: not as clang-format leaves them (run `make format`):\n  " + "\n  ".join(bad))
    sys.exit(1)
print(f"format: {len(files)} files as clang-format leaves them")
