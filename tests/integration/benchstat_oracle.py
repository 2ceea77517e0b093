#!/usr/bin/env python3
"""noisefloor's cv and compare held against the real benchstat, row by row.

For every pair of go test files of the corpus (`compare OLD NEW` against `benchstat -format csv OLD
NEW`) and every single file (`cv FILE` against `benchstat -format csv FILE`), each row benchstat
prints is matched with noisefloor's row of the same configuration, unit and name, and compared
field by field: the centre of each side (numerically, 1e-12 relative: benchstat tidies ns to
seconds by multiplying), its "±", the delta, the p slot ("p=0.008 n=10") and so the "~" decision,
and the geomean row. What benchstat prints is read from its own CSV: live when a benchstat binary
is given, else from the captures in --captured (written by --capture from a live binary, and
checked against it whenever one is given).

A difference is either listed below as intended, by name and reason, or a failure. The summary line
gives the counts: rows compared, identical, intended differences (by name), failures.

    benchstat_oracle.py --noisefloor BIN --corpus DIR [--benchstat BIN] --captured DIR [--capture]

The corpus directory holds <case>.old.txt / <case>.new.txt pairs and single files; every *.txt in it
is also read alone.
"""
import argparse
import csv
import io
import json
import os
import subprocess
import sys

# ---- intended differences --------------------------------------------------------------------

INTENDED = {
    "p-above-1": "benchstat's tie-conditional count doubles a tail that can exceed 1/2 under asymmetric "
                 "ties and prints it (p=1.323); noisefloor prints the doubled tail capped at 1, the "
                 "p-value benchstat means (the ~ decision is the same: both are above alpha)",
    "p-zero": "benchstat's tie-conditional count returns 0 for some two-level tie patterns and then "
              "prints no p at all; noisefloor prints the doubled tail, which the mirrored comparison "
              "of the same samples gets from benchstat too",
    "config-one-side": "a configuration line only one side printed (cpu:, goos:): benchstat splits its "
                       "tables and compares nothing; noisefloor compares them, as its README says a fact "
                       "only one side recorded does not make rooms differ",
    "config-per-side": "a configuration key with one value on each side (pkg: bytes vs pkg: strings): "
                       "benchstat splits its tables and compares nothing; noisefloor matches the rows "
                       "without it and says so in a note",
    "geomean-sets": "when the two sides hold different benchmarks, benchstat's geomean of a side covers "
                    "every row of that side; noisefloor's covers the rows present on both",
    "one-side": "a benchmark only one side ran: benchstat prints that side's centre in its row; noisefloor "
                "lists the benchmark under 'only in old' or 'only in new'",
}


def fail(msg):
    print(f"benchstat_oracle: {msg}", file=sys.stderr)
    sys.exit(2)


# ---- benchstat's side --------------------------------------------------------------------------

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "compare"))
from verify import tidy  # noqa: E402  benchunit's tidying, written once for the tests (value factor too)


def parse_benchstat_csv(text):
    """The tables of benchstat's CSV: a list of {config, columns, unit, rows: {name: fields}}."""
    tables, config, table = [], {}, None
    reader = list(csv.reader(io.StringIO(text)))
    i = 0
    while i < len(reader):
        row = reader[i]
        if not row or all(c == "" for c in row):
            table = None
        elif len(row) == 1 and ": " in row[0] or (len(row) == 1 and row[0].endswith(":")):
            key, _, value = row[0].partition(":")
            config[key] = value.strip()
        elif table is None and row[0] == "":
            # the column header (file names), then the unit row
            columns = [c for c in row[1:] if c]
            unit = reader[i + 1][1]
            table = {"config": dict(config), "columns": columns, "unit": unit, "rows": {}}
            tables.append(table)
            i += 1
        elif table is not None:
            table["rows"][row[0]] = row[1:]
        i += 1
    return tables


def run(argv, cwd=None):
    p = subprocess.run(argv, capture_output=True, text=True, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def benchstat_output(args, name, files):
    captured = os.path.join(args.captured, name + ".csv")
    if args.benchstat:
        # From the files' directory, by name: benchstat heads its columns with the paths it is given.
        code, out, err = run([os.path.abspath(args.benchstat), "-format", "csv"] + [os.path.basename(f) for f in files],
                             cwd=os.path.dirname(os.path.abspath(files[0])))
        if code != 0:
            fail(f"benchstat {' '.join(files)} exited {code}: {err}")
        if args.capture:
            with open(captured, "w") as f:
                f.write(out)
        elif os.path.exists(captured) and open(captured).read() != out:
            fail(f"{captured}: the capture differs from what {args.benchstat} prints now: recapture "
                 f"(benchstat_oracle.py --capture) and review the diff")
        return out
    if not os.path.exists(captured):
        fail(f"{captured}: no capture and no benchstat binary to run")
    return open(captured).read()


# ---- noisefloor's side -------------------------------------------------------------------------

def short(name):
    return name[len("Benchmark"):] if name.startswith("Benchmark") and len(name) > len("Benchmark") else name


def pct_range(center, lo, hi):
    import math
    if lo is None or hi is None or math.isinf(lo) or math.isinf(hi):
        return "∞"
    sign = lambda x: (x > 0) - (x < 0)
    if sign(center) != sign(lo) or sign(center) != sign(hi):
        return "?"
    if center == 0:
        return "0%"
    return "%.0f%%" % (100 * max(hi / center - 1, 1 - lo / center))


def cv_rows(args, path):
    code, out, err = run([args.noisefloor, "cv", "--format", "json", path])
    if code == 2 and "no benchmark result lines" in err:
        return None, None  # a file with no result line: benchstat prints nothing either (checked by the caller)
    if code != 0:
        fail(f"noisefloor cv {path} exited {code}: {err}")
    doc = json.loads(out)
    table = doc["table"]
    keys = set(table.get("config_keys", []))
    rows = {}
    for r in table["rows"] + table["other_metrics"]:
        unit, factor = tidy(r["unit"])
        config = tuple(sorted((k, v) for k, v in r.get("config", {}).items() if k in keys))
        s = r["summary"]
        if r.get("exact"):
            center, lo, hi = r["mode"], s["min"], s["max"]
        else:
            center = s["median"]
            ci = s["median_ci"]
            lo, hi = (ci["lo"], ci["hi"]) if ci else (None, None)
        scale = lambda v: None if v is None else v * factor
        rows[(config, unit, short(r["name"]))] = {"center": scale(center), "pct": pct_range(center, lo, hi)}
    return keys, rows


def compare_rows(args, old, new):
    code, out, err = run([args.noisefloor, "compare", "--format", "json", old, new])
    if code != 0:
        fail(f"noisefloor compare {old} {new} exited {code}: {err}")
    doc = json.loads(out)
    rows, geomeans = {}, {}
    for r in doc["rows"]:
        if not r["compared"]:
            continue
        config = tuple(sorted(r["config"].items()))
        rows[(config, r["unit"], short(r["name"]))] = r
    for g in doc["geomeans"]:
        geomeans[(g["config"], g["unit"])] = g
    return set(doc["config_keys"]), rows, geomeans, doc


# ---- the comparison ----------------------------------------------------------------------------

class Tally:
    def __init__(self):
        self.compared = self.identical = self.verdicts = 0
        self.intended = {}
        self.failures = []

    def row(self, what, diffs, reason=None):
        self.compared += 1
        if not diffs:
            self.identical += 1
        elif reason:
            self.intended.setdefault(reason, []).append(what)
        else:
            self.failures.append(f"{what}: " + "; ".join(diffs))


def close(a, b):
    if a is None or b is None:
        return a is b
    return a == b or abs(a - b) <= 1e-12 * max(abs(a), abs(b))


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def check_single(args, tally, path, name):
    tables = parse_benchstat_csv(benchstat_output(args, name, [path]))
    keys, rows = cv_rows(args, path)
    if rows is None:
        tally.row(f"cv {name}: no result line", [] if not tables else ["benchstat printed rows"])
        return
    seen = set()
    for t in tables:
        config = tuple(sorted((k, v) for k, v in t["config"].items() if k in keys))
        for bname, fields in t["rows"].items():
            if bname == "geomean":
                continue  # cv prints no geomean
            key = (config, t["unit"], bname)
            what = f"cv {name}: {bname} ({t['unit']}{', ' + str(dict(config)) if config else ''})"
            got = rows.get(key)
            seen.add(key)
            if got is None:
                tally.row(what, ["no noisefloor row"])
                continue
            diffs = []
            if not close(got["center"], number(fields[0])):
                diffs.append(f"centre {got['center']!r} vs benchstat {fields[0]}")
            if got["pct"] != fields[1]:
                diffs.append(f"± {got['pct']} vs benchstat {fields[1]}")
            tally.row(what, diffs)
    for key in rows:
        if key not in seen:
            tally.row(f"cv {name}: {key}", ["a noisefloor row benchstat does not print"])


def check_pair(args, tally, old, new, name):
    tables = parse_benchstat_csv(benchstat_output(args, name, [old, new]))
    keys, rows, geomeans, doc = compare_rows(args, old, new)
    one_side = any(len(t["columns"]) == 1 for t in tables)
    differing_notes = any("printed under different configurations" in n for n in doc["notes"])
    seen = set()
    for t in tables:
        if len(t["columns"]) != 2:
            continue
        config = tuple(sorted((k, v) for k, v in t["config"].items() if k in keys))
        for bname, f in t["rows"].items():
            what = f"compare {name}: {bname} ({t['unit']}{', ' + str(dict(config)) if config else ''})"
            if bname == "geomean":
                if len(t["rows"]) < 3:
                    continue  # one benchmark: benchstat's CSV still has a geomean row, its text has none (as ours)
                g = geomeans.get((", ".join(f"{k}: {v}" for k, v in config), t["unit"]))
                sets_differ = bool(doc["only_old"] or doc["only_new"])
                if g is None:
                    tally.row(what, ["no noisefloor geomean"], "geomean-sets" if sets_differ else None)
                    continue
                diffs = []
                if not close(g["old"], number(f[0]) if f[0] else None):
                    diffs.append(f"old {g['old']!r} vs benchstat {f[0]!r}")
                if not close(g["new"], number(f[2]) if f[2] else None):
                    diffs.append(f"new {g['new']!r} vs benchstat {f[2]!r}")
                delta = "?" if g["ratio"] is None else "%+.2f%%" % ((g["ratio"] - 1) * 100)
                if delta != f[4]:
                    diffs.append(f"delta {delta} vs benchstat {f[4]}")
                tally.row(what, diffs, "geomean-sets" if sets_differ else None)
                continue
            key = (config, t["unit"], bname)
            seen.add(key)
            r = rows.get(key)
            if r is None and (f[0] == "" or len(f) < 3 or f[2] == ""):
                listed = any(x.endswith(": Benchmark" + bname) or ": Benchmark" + bname + " (" in x
                             for x in doc["only_old"] + doc["only_new"])
                tally.row(what, ["one side only"], "one-side" if listed else None)
                continue
            if r is None:
                tally.row(what, ["no noisefloor row"])
                continue
            diffs, reason = [], None
            fields = {"old centre": (r["old"]["center"], number(f[0])), "new centre": (r["new"]["center"], number(f[2]))}
            for label, (a, b) in fields.items():
                if not close(a, b):
                    diffs.append(f"{label} {a!r} vs benchstat {b!r}")
            for label, a, b in (("old ±", r["old"]["pct_range"], f[1]), ("new ±", r["new"]["pct_range"], f[3]),
                                ("delta", r["delta"], f[4]), ("p", r["p_text"], f[5])):
                if a != b:
                    diffs.append(f"{label} {a!r} vs benchstat {b!r}")
            pb = r["test"].get("p_benchstat")
            if diffs and pb is not None and pb > 1 and all(d.startswith("p ") for d in diffs):
                reason = "p-above-1"
            elif diffs and pb == 0 and all(d.startswith("p ") or d.startswith("delta") for d in diffs) \
                    and (r["delta"] == "~") == (f[4] == "~"):
                reason = "p-zero"
            tally.row(what, diffs, reason)
    # No verdict contradicts its unit's direction.
    for key, r in rows.items():
        better, change, word = r["better"], r["change"], r["verdict"]
        if change in ("equivalent", "inconclusive") or better == "unknown":
            want = {change}
        elif change == better:
            want = {"faster", "better"}
        else:
            want = {"slower", "worse"}
        tally.verdicts += 1
        if word not in want:
            tally.failures.append(f"compare {name}: {key}: verdict {word!r} for a {better}-is-better unit that went {change}")
    for key, r in rows.items():
        if key not in seen:
            what = f"compare {name}: {key}"
            reason = "config-per-side" if differing_notes else "config-one-side" if one_side else None
            tally.row(what, ["a noisefloor row benchstat does not compare"], reason)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--noisefloor", required=True)
    ap.add_argument("--benchstat")
    ap.add_argument("--corpus", action="append", required=True)
    ap.add_argument("--captured", required=True)
    ap.add_argument("--capture", action="store_true")
    args = ap.parse_args()
    if args.capture and not args.benchstat:
        fail("--capture needs --benchstat")
    os.makedirs(args.captured, exist_ok=True)
    tally = Tally()
    for corpus in args.corpus:
        files = sorted(f for f in os.listdir(corpus) if f.endswith(".txt"))
        prefix = os.path.basename(os.path.normpath(corpus))
        for f in files:
            check_single(args, tally, os.path.join(corpus, f), f"{prefix}.{f[:-4]}")
        for f in files:
            if f.endswith(".old.txt") and f[:-8] + ".new.txt" in files:
                case = f[:-8]
                check_pair(args, tally, os.path.join(corpus, f), os.path.join(corpus, case + ".new.txt"),
                           f"{prefix}.{case}")
    for reason, rows in sorted(tally.intended.items()):
        print(f"intended difference {reason} ({len(rows)} rows): {INTENDED[reason]}")
        for w in rows[:3]:
            print(f"  e.g. {w}")
    for f in tally.failures[:40]:
        print(f"DIFFERS {f}")
    intended = sum(len(v) for v in tally.intended.values())
    print(f"rows compared: {tally.compared}, identical: {tally.identical}, intended differences: {intended}, "
          f"verdicts checked against their unit's direction: {tally.verdicts}, failures: {len(tally.failures)}")
    sys.exit(1 if tally.failures else 0)


if __name__ == "__main__":
    main()
