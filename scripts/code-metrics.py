#!/usr/bin/env python3
"""The figures of the code's shape that issue 25 asks for, read from a tree as text.

Usage: python3 scripts/code-metrics.py [TREE] [--json]

TREE is a checkout (default: this one). Prints lines of pipeline/run.cpp and cli/, the longest
functions (Universal Ctags' start and end lines; lambdas count with the function around them),
string comparisons with a literal, to_string functions with a switch of their own, the modules
(folders under harness/) that include nlohmann/json.hpp or name nlohmann:: at all, lines over 110
columns, repeated runs of six lines under harness/ (counted here, on every machine), and the
duplicates pairs under harness/ (the `duplicates` command, where the machine has it, which also
finds lines of the same shape with other names). Nothing is built or run.
"""
import json
import os
import re
import shutil
import subprocess
import sys


def sources(root):
    for folder, _, files in os.walk(os.path.join(root, "harness")):
        for name in sorted(files):
            if name.endswith((".cpp", ".hpp")):
                yield os.path.join(folder, name)


def lines(path):
    with open(path, encoding="utf-8") as f:
        return sum(1 for _ in f)


# Lines that say nothing of their own: blank, a comment, a lone brace, an include, a label.
TRIVIAL = re.compile(r"^(|//.*|[{}()\[\];,]*|#\s*include\b.*|(public|private|protected):|namespace .*|}\s*//.*)$")


def repeated_runs(root, run=6):
    """Runs of `run` significant lines (whitespace trimmed, trivial lines skipped) that appear more
    than once under harness/: each occurrence after the first counts once, overlapping runs each."""
    seen = {}
    for path in sources(root):
        significant = [l.strip() for l in open(path, encoding="utf-8")]
        significant = [l for l in significant if not TRIVIAL.match(l)]
        for i in range(len(significant) - run + 1):
            key = "\n".join(significant[i:i + run])
            seen[key] = seen.get(key, 0) + 1
    return sum(n - 1 for n in seen.values() if n > 1)


def longest_functions(root, most):
    if not shutil.which("ctags"):
        sys.exit("code-metrics: Universal Ctags is missing (apt-get install universal-ctags)")
    out = subprocess.run(["ctags", "--c++-kinds=f", "--fields=+ne", "-o", "-", *sources(root)],
                         capture_output=True, text=True, check=True).stdout
    found = []
    for row in out.splitlines():
        cols = row.split("\t")
        if cols[0].startswith("__anon"):
            continue
        fields = dict(c.split(":", 1) for c in cols[3:] if ":" in c)
        if "line" not in fields or "end" not in fields:
            continue
        length = int(fields["end"]) - int(fields["line"]) + 1
        found.append((length, os.path.relpath(cols[1], os.path.join(root, "harness")), cols[0]))
    found.sort(key=lambda f: (-f[0], f[1], f[2]))
    return (found[:most], sum(1 for f in found if f[0] > 130), sum(1 for f in found if f[0] > 100),
            sum(1 for f in found if f[0] > 60))


LITERAL_COMPARE = re.compile(r'[=!]=\s*"|"\s*[=!]=')
# A to_string that spells its enum's words in a switch of its own (not through model/names.hpp).
TO_STRING_SWITCH = re.compile(r'^(?:std::string(?:_view)?|const char\s*\*)\s+to_string\s*\([^)]*\)\s*\{\s*switch', re.M)
NLOHMANN = re.compile(r'#include\s*[<"]nlohmann/json\.hpp[>"]')
# Random generators other than stats::SplitMix64 (§3.10: one deterministic generator).
GENERATORS = re.compile(r'std::(?:mt19937(?:_64)?|minstd_rand0?|ranlux\w*|knuth_b|default_random_engine|random_device)\b'
                        r'|\b(?:s?rand|random|drand48)\(')
# A label, verdict or order parsed from its own word where words are made (model::from_name):
# render/errata.cpp once read a figure's label back from its name.
READ_BACK = re.compile(r'\bfrom_name<')
# The places issue 25 names where one module reads another's prose or a name is made of strings.
PROSE = {
    "warning text searched (\"minimum attainable p\")": re.compile(r'find\("minimum attainable p'),
    "error text parsed (\"; last lines of \")": re.compile(r'find\("; last lines of '),
    "merged condition named \"<label>:<condition>\"": re.compile(r'label\s*\+\s*":"\s*\+'),
    "A/A copy named \"<baseline>'\"": re.compile(r'name\s*\+\s*"\'"'),
}


def main():
    args = [a for a in sys.argv[1:] if a != "--json"]
    root = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), ".."))
    harness = os.path.join(root, "harness")
    cli = os.path.join(harness, "cli")
    figures = {
        "pipeline/run.cpp lines": lines(os.path.join(harness, "pipeline", "run.cpp")),
        "cli/ lines": sum(lines(p) for p in sources(root) if p.startswith(cli + os.sep)),
        "cli/main.cpp lines": lines(os.path.join(cli, "main.cpp")),
        "harness lines (.cpp, .hpp)": sum(lines(p) for p in sources(root)),
    }
    top, over130, over100, over60 = longest_functions(root, 10)
    figures["functions over 130 lines"] = over130
    figures["functions over 100 lines"] = over100
    figures["functions over 60 lines"] = over60
    figures["longest functions"] = [f"{n} {path} {name}" for n, path, name in top]
    compares = to_strings = generators = read_back = 0
    modules, naming = set(), set()
    prose = {k: 0 for k in PROSE}
    for path in sources(root):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        compares += len(LITERAL_COMPARE.findall(text))
        to_strings += len(TO_STRING_SWITCH.findall(text))
        generators += len(GENERATORS.findall(text))
        module = os.path.relpath(path, harness).split(os.sep)[0]
        if module in ("analysis", "render"):  # they make the words: they never read one back
            read_back += len(READ_BACK.findall(text))
        if NLOHMANN.search(text):
            modules.add(module)
        if "nlohmann::" in text:
            naming.add(module)
        for k, rx in PROSE.items():
            prose[k] += len(rx.findall(text))
    figures["comparisons of a string with a literal"] = compares
    figures["to_string functions with a switch of their own"] = to_strings
    figures["random generators other than SplitMix64"] = generators
    figures["prose read or names made of strings"] = prose
    figures["names read back into a value in analysis/ or render/"] = read_back
    figures["modules including nlohmann/json.hpp"] = sorted(modules)
    figures["modules naming nlohmann:: at all"] = sorted(naming)
    figures["lines over 110 columns (harness/)"] = sum(
        1 for p in sources(root) for line in open(p, encoding="utf-8") if len(line.rstrip("\n")) > 110)
    figures["repeated runs of 6 lines (harness/)"] = repeated_runs(root)
    if shutil.which("duplicates"):
        out = subprocess.run(["duplicates", "--repo", harness, "--most", "1", "--seconds", "120"],
                             capture_output=True, text=True).stdout
        figures["duplicates (harness/)"] = out.splitlines()[0] if out else "?"
        m = re.match(r"(\d+) pairs", figures["duplicates (harness/)"])
        figures["duplicates pairs (harness/)"] = int(m.group(1)) if m else (0 if out.startswith("no duplicates") else None)
    if "--json" in sys.argv:
        json.dump(figures, sys.stdout, indent=1)
        print()
        return
    for k, v in figures.items():
        if isinstance(v, list):
            print(f"{k} ({len(v)}):")
            for item in v:
                print(f"  {item}")
        elif isinstance(v, dict):
            print(f"{k}:")
            for kk, vv in v.items():
                print(f"  {vv:4d}  {kk}")
        else:
            print(f"{k}: {v}")


if __name__ == "__main__":
    main()
