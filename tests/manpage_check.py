#!/usr/bin/env python3
"""noisefloor(1) says what --help says: every command `noisefloor --help` lists and every option
and argument each command's --help lists is in the manual page the binary writes (`noisefloor
__manpage FILE`, what `make install` installs), each command's usage line is in its SYNOPSIS, the
exit statuses --help lists are its EXIT STATUS, and man(1) renders it.

Usage: python3 tests/manpage_check.py NOISEFLOOR
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

nf = sys.argv[1]
help_text = lambda *args: subprocess.run([nf, *args, "--help"], capture_output=True, text=True, check=True).stdout
top = help_text()
commands = re.findall(r"^\s{2}([a-z][a-z-]*)\s{2,}", re.split(r"^Subcommands:", top, flags=re.M | re.I)[-1], re.M)
if len(commands) < 10:
    sys.exit(f"manpage: only {len(commands)} commands found in `noisefloor --help`:\n{top}")
with tempfile.TemporaryDirectory() as d:
    page_file = os.path.join(d, "noisefloor.1")
    subprocess.run([nf, "__manpage", page_file], check=True)
    page = open(page_file, encoding="utf-8").read()
    plain = page.replace("\\-", "-").replace("\\fB", "").replace("\\fI", "").replace("\\fR", "")
    problems = []
    for c in commands:
        section = re.search(rf"^\.SS {re.escape(c)}\n(.*?)(?=^\.SS |^\.SH )", plain, re.M | re.S)
        if not section:
            problems.append(f"command {c}: no section in the page")
            continue
        body = section.group(1)
        sub = help_text(c)
        usage = re.search(r"^Usage: (.*)$", sub, re.M)
        synopsis = re.search(r"^\.SH SYNOPSIS\n(.*?)(?=^\.SH )", plain, re.M | re.S).group(1)
        if not usage or usage.group(1) not in synopsis.replace("\n.br\n", "\n").replace(".B ", "").replace(c + "\n", c + " "):
            problems.append(f"command {c}: its usage line ({usage and usage.group(1)}) is not in the SYNOPSIS")
        options = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", sub)) - {"--help"}
        positionals = set(re.findall(r"^Positionals:\n((?:  \S.*\n)+)", sub, re.M | re.I))
        for o in sorted(options):
            if o not in body:
                problems.append(f"command {c}: {o} is in --help, not in the page")
        for block in positionals:
            for name in re.findall(r"^\s{2}(\S+)", block, re.M):
                if name not in body:
                    problems.append(f"command {c}: argument {name} is in --help, not in the page")
    footer = re.search(r"^Exit status:\n((?:  \S.*\n)+)", top, re.M)
    statuses = re.findall(r"^  (\d+)\s+(.*)$", footer.group(1), re.M) if footer else []
    if len(statuses) < 5:
        problems.append(f"--help lists {len(statuses)} exit statuses")
    exit_section = re.search(r"^\.SH EXIT STATUS\n(.*?)(?=^\.SH )", plain, re.M | re.S)
    page_statuses = re.findall(r"^\.TP\n(\d+)\n(.*)$", exit_section.group(1), re.M) if exit_section else []
    if page_statuses != statuses:
        problems.append(f"the EXIT STATUS of the page is not --help's: {page_statuses} vs {statuses}")
    if shutil.which("man"):
        r = subprocess.run(["man", "-l", page_file], capture_output=True, text=True,
                           env=dict(os.environ, MANWIDTH="80", MAN_KEEP_FORMATTING="", PAGER="cat"))
        if r.returncode != 0 or "noisefloor" not in r.stdout:
            problems.append(f"man -l could not render the page: {r.stderr.strip()[:200]}")
    if problems:
        print("\n".join(problems))
        sys.exit(1)
    print(f"manpage: {len(commands)} commands, every usage line, option and exit status of --help in noisefloor(1)")
