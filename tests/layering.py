#!/usr/bin/env python3
"""The tree shows the pipeline: every #include of harness/ goes down the layers of harness/README.md.

Reads the ```layers block of harness/README.md ("module: allowed modules"), checks that it is a
layering (each module after everything it may include, every harness/ folder listed once), then
that every quoted #include "<module>/..." in harness/<module>/ names the module itself or one it
may include. Exits 1 naming each violation.
"""
import os, re, sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness")
readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
block = re.search(r"```layers\n(.*?)```", readme, re.S)
problems = []
if not block:
    sys.exit("harness/README.md has no ```layers block")
allowed, order = {}, []
for line in block.group(1).splitlines():
    if not line.strip():
        continue
    module, _, deps = line.partition(":")
    module = module.strip()
    if module in allowed:
        problems.append(f"layers: {module} is listed twice")
    allowed[module] = set(deps.split())
    for d in allowed[module]:
        if d not in order:
            problems.append(f"layers: {module} may include {d}, which is not listed before it")
    order.append(module)

folders = sorted(d for d in os.listdir(ROOT) if os.path.isdir(os.path.join(ROOT, d)))
for f in folders:
    if f not in allowed:
        problems.append(f"layers: harness/{f}/ is not in the layers of harness/README.md")
for m in allowed:
    if m not in folders:
        problems.append(f"layers: {m} has no folder harness/{m}/")

include = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"', re.M)
checked = 0
for module in folders:
    for name in sorted(os.listdir(os.path.join(ROOT, module))):
        if not name.endswith((".hpp", ".cpp", ".cpp.in")):
            continue
        path = os.path.join(ROOT, module, name)
        text = open(path, encoding="utf-8").read()
        for m in include.finditer(text):
            checked += 1
            target = m.group(1)
            if target != module and target not in allowed.get(module, set()):
                line = text[: m.start()].count("\n") + 1
                problems.append(f"harness/{module}/{name}:{line}: includes {target}/, "
                                f"which {module}/ may not (an upward or sideways dependency)")

if problems:
    print("\n".join(problems))
    sys.exit(1)
print(f"layering: {checked} includes in {len(folders)} modules go down the layers")
