#!/usr/bin/env python3
"""Every "§N.x" the code and the tests cite resolves to a section of harness/stats/README.md.

The statistics are specified inside the project; a reference to a section that does not exist
(or to a document outside the repository) fails this check (CTest spec_refs).
"""
import os, re, sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
spec = open(os.path.join(ROOT, "harness", "stats", "README.md"), encoding="utf-8").read()
sections = set(re.findall(r"^#+ (\d+(?:\.\d+)+)\b", spec, re.M))
problems, refs = [], 0
walked = [w for top in ("harness", "tests") for w in os.walk(os.path.join(ROOT, top))]
for base, _, names in walked:
    for name in names:
        if not name.endswith((".hpp", ".cpp", ".py", ".sh")) or name == "spec_refs.py":
            continue
        path = os.path.join(base, name)
        for no, line in enumerate(open(path, encoding="utf-8"), 1):
            if "statistics.md" in line:
                problems.append(f"{os.path.relpath(path, ROOT)}:{no}: cites statistics.md, which is not in the repository")
            for m in re.finditer(r"§(\d+(?:\.\d+)*)(?:[–-](\d+(?:\.\d+)*))?", line):
                refs += 1
                first = m.group(1)
                cited = [first]
                if m.group(2):
                    # "§3.2–3.4" names both ends; "§3.6–7" abbreviates the second to its last part.
                    second = m.group(2)
                    last = second if "." in second else first.rsplit(".", 1)[0] + "." + second
                    cited.append(last)
                for c in cited:
                    if c not in sections:
                        problems.append(f"{os.path.relpath(path, ROOT)}:{no}: §{c} is not a section of harness/stats/README.md")
if problems:
    print("\n".join(problems))
    sys.exit(1)
print(f"spec references: {refs} citations resolve to the {len(sections)} sections of harness/stats/README.md")
