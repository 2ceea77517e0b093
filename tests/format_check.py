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
# One clang-format per 64 files (--dry-run -Werror names each file it would change), not one per
# file: the check took 40 s of CPU that way, beside tests that measure the room.
for at in range(0, len(files), 64):
    chunk = files[at:at + 64]
    out = subprocess.run([tool, "--style=file", "--dry-run", "-Werror", *chunk], capture_output=True, text=True,
                         cwd=ROOT)
    named = set()
    for line in out.stderr.splitlines():
        if "clang-format-violations" in line:
            named.add(line.split(":", 1)[0])
    bad += sorted(os.path.relpath(f, ROOT) for f in named)
    if out.returncode != 0 and not named:
        bad.append(f"clang-format failed on {len(chunk)} files: {out.stderr.strip()[:300]}")
if bad:
    print("format: not as clang-format leaves them (run `make format`):\n  " + "\n  ".join(bad))
    sys.exit(1)
print(f"format: {len(files)} files as clang-format leaves them")
