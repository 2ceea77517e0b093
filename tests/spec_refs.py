#!/usr/bin/env python3
"""Every "§3.x" the code cites resolves to a section of harness/stats/README.md.

The statistics are specified inside the project; a reference to a section that does not exist
(or to a document outside the repository) fails this check (CTest spec_refs).
"""
import os, re, sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
spec = open(os.path.join(ROOT, "harness", "stats", "README.md"), encoding="utf-8").read()
sections = set(re.findall(r"^#+ (3(?:\.\d+)+)\b", spec, re.M))
problems, refs = [], 0
for base, _, names in os.walk(os.path.join(ROOT, "harness")):
    for name in names:
        if not name.endswith((".hpp", ".cpp")):
            continue
        path = os.path.join(base, name)
        for no, line in enumerate(open(path, encoding="utf-8"), 1):
            if "statistics.md" in line:
                problems.append(f"{os.path.relpath(path, ROOT)}:{no}: cites statistics.md, which is not in the repository")
            for m in re.finditer(r"§(3(?:\.\d+)*)(?:[–-](3(?:\.\d+)*|\d+))?", line):
                refs += 1
                first = m.group(1)
                cited = [first]
                if m.group(2):
                    last = m.group(2) if m.group(2).startswith("3") else first.rsplit(".", 1)[0] + "." + m.group(2)
                    cited.append(last)
                for c in cited:
                    if c not in sections:
                        problems.append(f"{os.path.relpath(path, ROOT)}:{no}: §{c} is not a section of harness/stats/README.md")
if problems:
    print("\n".join(problems))
    sys.exit(1)
print(f"spec references: {refs} citations resolve to the {len(sections)} sections of harness/stats/README.md")
