#!/usr/bin/env python3
"""Checks a sweep figure written by `noisefloor report DIR --format svg` with a real XML parser.

usage: sweep_svg_check.py FILE.svg [--parameter NAME]

The file must parse as XML (xml.etree.ElementTree); its root must be an SVG <svg> element (in the
SVG namespace) with a viewBox and a <title>; at least one <text> must mention the knee ("knee");
the figure's texts must include the axis labels: "median (<unit>)" (or "median relative to ..."
when the curves have different units), "CV (%)" and, with --parameter, the swept parameter's
name (e.g. spinners) under the panels.

Exit status: 0 every check passed, 1 a check failed (the file does not parse, or says what is
wrong on stderr), 2 usage (bad arguments, or the file cannot be read).
"""

import sys
import xml.etree.ElementTree as ET

SVG_NS = "{http://www.w3.org/2000/svg}"
USAGE = "usage: sweep_svg_check.py FILE.svg [--parameter NAME]"


def texts_of(root):
    """The text of every <text> element, whitespace-normalised, in document order."""
    out = []
    for element in root.iter(SVG_NS + "text"):
        out.append(" ".join("".join(element.itertext()).split()))
    return out


def check(path, parameter):
    """The problems found in the figure at `path` (empty: it is fine)."""
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as err:
        return [f"{path}: not well-formed XML: {err}"]
    problems = []
    if root.tag != SVG_NS + "svg":
        problems.append(f"{path}: the root element is {root.tag}, not an svg in the SVG namespace")
    view_box = root.get("viewBox", "").split()
    if len(view_box) != 4:
        problems.append(f"{path}: the root svg has no viewBox of four numbers (got {root.get('viewBox')!r})")
    else:
        try:
            if float(view_box[2]) <= 0 or float(view_box[3]) <= 0:
                problems.append(f"{path}: the viewBox {root.get('viewBox')!r} has no area")
        except ValueError:
            problems.append(f"{path}: the viewBox {root.get('viewBox')!r} is not numbers")
    title = root.find(SVG_NS + "title")
    if title is None or not "".join(title.itertext()).strip():
        problems.append(f"{path}: the svg has no (non-empty) <title> child")
    texts = texts_of(root)
    if not any("knee" in t for t in texts):
        problems.append(f"{path}: no <text> mentions the knee")
    if not any(t.startswith("median (") or t.startswith("median relative to") for t in texts):
        problems.append(f"{path}: no axis label \"median (<unit>)\" among the texts")
    if "CV (%)" not in texts:
        problems.append(f"{path}: no axis label \"CV (%)\" among the texts")
    if parameter is not None and parameter not in texts:
        problems.append(f"{path}: no axis label {parameter!r} (the swept parameter) among the texts")
    return problems


def main(argv):
    args = argv[1:]
    parameter = None
    if "--parameter" in args:
        at = args.index("--parameter")
        if at + 1 >= len(args):
            print(USAGE, file=sys.stderr)
            return 2
        parameter = args[at + 1]
        del args[at : at + 2]
    if len(args) != 1 or args[0].startswith("-"):
        print(USAGE, file=sys.stderr)
        return 2
    path = args[0]
    try:
        with open(path, "rb"):
            pass
    except OSError as err:
        print(f"sweep_svg_check.py: cannot read {path}: {err.strerror}", file=sys.stderr)
        return 2
    problems = check(path, parameter)
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
