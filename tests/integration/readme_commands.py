#!/usr/bin/env python3
"""Every command line the documents show (README.md, CONTRIBUTING.md, docs/*.md: the files given),
for e2e_readme_test.sh: one per line, "KIND<TAB>TEXT", each once.

KIND is
  run    a complete command (a line of a code block, or an inline `noisefloor ...`, `make ...`,
         `scripts/...` span without placeholders), its trailing "# comment" removed;
  usage  a command with placeholders (EXPERIMENT, [--opt], PATH..., <run>): its command and
         options must exist;
and lines that merely name something (`noisefloor.run`, `noisefloor-lease`, an error message
quoted from the output) are left out here, by rule, not by list.
"""
import re
import sys

readme = "\n".join(open(f, encoding="utf-8").read() for f in sys.argv[1:])
seen = set()


def emit(kind, text):
    text = text.strip()
    if text and (kind, text) not in seen:
        seen.add((kind, text))
        print(f"{kind}\t{text}")


def strip_comment(line):
    # a "#" that starts a comment: preceded by white space and outside quotes
    quote = None
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip()
    return line.rstrip()


COMMAND = re.compile(r"^(noisefloor|make|benchstat|scripts/|bash scripts/)")
PLACEHOLDER = re.compile(r"[A-Z]{2,}(?![a-z])|\[|<|…|\.\.\.")

# Fenced blocks (not YAML, not program output): each line that starts a command.
for lang, body in re.findall(r"```(\w*)\n(.*?)```", readme, re.S):
    if lang in ("yaml", "yml"):
        continue
    for line in body.splitlines():
        line = strip_comment(line.strip())
        if re.match(r"noisefloor [a-z]+: ", line):  # a command's output quoted ("noisefloor errata: 2 ...")
            continue
        if COMMAND.match(line):
            emit("usage" if PLACEHOLDER.search(line.replace("2>&1", "")) else "run", line)

# Inline spans: `noisefloor <command> ...`, `make ...`, `scripts/x.sh ...`.
for span in re.findall(r"`([^`\n]+)`", readme):
    span = span.replace("\\|", "|")
    if span.startswith("noisefloor "):
        word = span.split()[1]
        if not re.fullmatch(r"[a-z]+", word):  # `noisefloor: interrupted — ...`, `noisefloor __spin`
            continue
    elif not (span.startswith("make") and re.fullmatch(r"make( .*)?", span)) and not span.startswith("scripts/"):
        continue
    if span.startswith("scripts/") and span.endswith("/"):
        continue
    emit("usage" if PLACEHOLDER.search(span) else "run", span)
