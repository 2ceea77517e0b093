#!/usr/bin/env python3
"""Every link between the project's documents leads somewhere (CTest doc_links).

In README.md, CONTRIBUTING.md, docs/*.md and every README.md under harness/: a relative link
[text](path) names a file or folder that exists, and a #fragment (of the same page or of another
.md) is the anchor of one of that page's headings, as GitHub makes them (lower case, punctuation
dropped, spaces as '-'). Links to the web and to mailto: are not followed. Exits 1 naming each.
"""
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def anchors(path, cache={}):
    if path not in cache:
        text = FENCE.sub("", open(path, encoding="utf-8").read())
        found, seen = set(), {}
        for heading in re.findall(r"^#{1,6} +(.+?) *#*$", text, re.M):
            slug = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", "")).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            found.add(slug if n == 0 else f"{slug}-{n}")
        cache[path] = found
    return cache[path]


def documents():
    for name in ("README.md", "CONTRIBUTING.md"):
        yield os.path.join(ROOT, name)
    for folder in ("docs", "harness"):
        for base, _, names in os.walk(os.path.join(ROOT, folder)):
            for name in sorted(names):
                if name.endswith(".md") and (folder == "docs" or name == "README.md"):
                    yield os.path.join(base, name)


problems, links = [], 0
for doc in documents():
    text = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), open(doc, encoding="utf-8").read())
    for m in LINK.finditer(text):
        target = m.group(1)
        if re.match(r"^[a-z][a-z+.-]*:", target):
            continue
        links += 1
        where = f"{os.path.relpath(doc, ROOT)}:{text[:m.start()].count(chr(10)) + 1}"
        path, _, fragment = target.partition("#")
        full = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
        if not os.path.exists(full):
            problems.append(f"{where}: {target}: no such file")
        elif fragment and full.endswith(".md") and fragment not in anchors(full):
            problems.append(f"{where}: {target}: {os.path.relpath(full, ROOT)} has no heading #{fragment}")
if problems:
    print("\n".join(problems))
    sys.exit(1)
print(f"doc_links: {links} links between the documents, each to a file and heading that exist")
