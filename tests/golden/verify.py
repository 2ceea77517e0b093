#!/usr/bin/env python3
"""Independent check of the golden files (tests/data/golden/) against the raw data they come from.

The goldens are what noisefloor printed once; this script recomputes their numbers from the
samples with its own code (Python's standard library only: statistics, fractions, math), so a
golden can never be "right" just because the code produced it. Run by CTest (golden_verify);
exits 1 naming every mismatch.

- export.*: tests/data/results/small/samples.jsonl (and run.json): per condition and benchmark
  n, mean, sample stddev, CV, median, the 95% median CI (benchstat's rule, with its exact level;
  ../data/compare/verify.py median_ci_orders), min, max, MAD, rCV,
  type-7 quartiles, modified-z outliers, band, warm-up count; checked in export.csv,
  export.json, export.markdown (4-significant-figure cells), export.summary (the demo's
  printf format) and export.gotest (every kept sample, in order, under its condition's header).
- compare.*.json: the go test files under tests/data: medians and their CIs, the exact
  Mann-Whitney U and p, the Hodges-Lehmann ratio with its Moses CI and the Fieller ratio of means
  with a t quantile computed here from the regularized incomplete beta function.
"""
import csv, io, json, math, os, re, statistics, sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")
sys.path.insert(0, os.path.join(DATA, "compare"))
import verify as cmp  # mann_whitney, hodges_lehmann, median_ci, gotest  # noqa: E402

failures = []


def check(what, got, want, rel=1e-12):
    if isinstance(want, float) or isinstance(got, float):
        ok = got is not None and want is not None and (
            got == want or abs(got - want) <= rel * max(abs(want), abs(got)))
    else:
        ok = got == want
    if not ok:
        failures.append(f"{what}: golden {got!r}, recomputed {want!r}")


# ---- the statistics, written again -------------------------------------------------------

def quantile7(s, p):
    h = (len(s) - 1) * p
    lo = math.floor(h)
    return s[-1] if lo + 1 >= len(s) else s[lo] + (h - lo) * (s[lo + 1] - s[lo])


def summary(x):
    n = len(x)
    s = sorted(x)
    mean = statistics.fmean(x)
    sd = statistics.stdev(x) if n >= 2 else None
    med = statistics.median(x)
    mad = statistics.median([abs(v - med) for v in x]) if n >= 2 else None
    out = {"n": n, "mean": mean, "stddev": sd, "median": med, "min": s[0], "max": s[-1], "mad": mad}
    out["cv_pct"] = 100 * sd / mean if sd is not None and mean > 0 else None
    sigma = 1.482602218505602 * mad if mad is not None else None
    out["rcv_pct"] = 100 * sigma / med if sigma is not None and med > 0 else None
    out["q1"] = quantile7(s, 0.25) if n >= 2 else None
    out["q3"] = quantile7(s, 0.75) if n >= 2 else None
    orders = cmp.median_ci_orders(n)  # benchstat's interval: (lo, hi, exact level) or None
    out["median_ci"] = (s[orders[0] - 1], s[orders[1] - 1]) if orders else None
    out["median_ci_level"] = float(orders[2]) if orders else None
    scale = sigma
    if scale == 0:
        scale = 1.2533141 * statistics.fmean([abs(v - med) for v in x])
    out["outliers"] = sum(1 for v in x if scale and abs((v - med) / scale) > 3.5)
    cv = out["cv_pct"]
    out["band"] = ("insufficient" if cv is None else "excellent" if cv <= 2 else "acceptable" if cv <= 5
                   else "noisy" if cv <= 10 else "do not trust")
    rcv = out["rcv_pct"]
    out["shape"] = bool(cv is not None and rcv is not None and (cv / rcv > 2 if rcv > 0 else cv > 0))
    return out


def format_value(v):  # 4 significant figures, never an exponent in the usual ranges
    a = abs(v)
    if a >= 1000: return f"{v:.0f}"
    if a >= 100: return f"{v:.1f}"
    if a >= 10: return f"{v:.2f}"
    if a >= 1: return f"{v:.3f}"
    return "0" if a == 0 else f"{v:.4g}"


# ---- exports of the small result -------------------------------------------------------------

SMALL = os.path.join(DATA, "results", "small")
GOLDEN = os.path.join(DATA, "golden")
samples = [json.loads(line) for line in open(os.path.join(SMALL, "samples.jsonl")) if line.strip()]
run = json.load(open(os.path.join(SMALL, "run.json")))
rows = {}  # (condition, full name, unit) -> kept values of that metric in run order
warm = {}
order = []  # each (condition, full name)'s metrics in line order, rows in first-seen order
for s in samples:
    for m in s["metrics"]:
        key = (s["condition"], s["name"], m["unit"])  # benchstat's key: GOMAXPROCS values are rows of their own
        if key not in rows:
            rows[key], warm[key] = [], 0
            order.append(key)
        if s["warmup"]:
            warm[key] += 1
        else:
            rows[key].append(m["value"])
primary = {(s["condition"], s["name"]): s["metrics"][0]["unit"] for s in samples}
row_order = list(dict.fromkeys((c, n) for c, n, u in order))
order.sort(key=lambda k: row_order.index((k[0], k[1])))  # stable: each row's metrics together
expected = {key: summary(v) for key, v in rows.items()}
procs = {key: sorted({s["procs"] for s in samples if (s["condition"], s["name"]) == key[:2]}) for key in order}
base = {key: next(s["benchmark"] for s in samples if (s["condition"], s["name"]) == key[:2]) for key in order}

got_csv = list(csv.DictReader(open(os.path.join(GOLDEN, "export.csv"))))
check("export.csv rows", [(r["condition"], r["benchmark"], r["unit"]) for r in got_csv], order)
for r in got_csv:
    key = (r["condition"], r["benchmark"], r["unit"])
    e = expected[key]
    what = f"export.csv {key}"
    check(f"{what} n", int(r["n"]), e["n"])
    for f in ("mean", "stddev", "cv_pct", "median", "min", "max", "mad", "rcv_pct", "q1", "q3"):
        check(f"{what} {f}", float(r[f]) if r[f] != "" else None, e[f])
    check(f"{what} median CI", (float(r["median_ci_lo"]), float(r["median_ci_hi"])), e["median_ci"])
    check(f"{what} band", r["band"], e["band"])
    check(f"{what} outliers", int(r["outliers"]), e["outliers"])
    check(f"{what} shape", r["shape"] == "true", e["shape"])
    check(f"{what} warm-up", int(r["warmup_discarded"]), warm[key])

got_json = json.load(open(os.path.join(GOLDEN, "export.json")))
check("export.json conditions", got_json["table"]["conditions"], run["conditions"])
json_rows = got_json["table"]["rows"] + got_json["table"]["other_metrics"]
check("export.json rows", sorted((r["condition"], r["name"], r["unit"]) for r in json_rows), sorted(order))
check("export.json primary rows", [(r["condition"], r["name"], r["unit"]) for r in got_json["table"]["rows"]],
      [k for k in order if primary[k[:2]] == k[2]])
for r in json_rows:
    key = (r["condition"], r["name"], r["unit"])
    check(f"export.json {key} benchmark", r["benchmark"], base[key])
    e, s = expected[key], r["summary"]
    what = f"export.json {key}"
    check(f"{what} values", r["values"], rows[key])
    check(f"{what} procs", r["procs"], procs[key])
    for f in ("n", "mean", "stddev", "cv_pct", "median", "min", "max", "mad", "rcv_pct", "q1", "q3", "band", "shape"):
        check(f"{what} {f}", s[f], e[f])
    check(f"{what} median CI", (s["median_ci"]["lo"], s["median_ci"]["hi"]), e["median_ci"])
    check(f"{what} median CI level", s["median_ci"]["level"], e["median_ci_level"])
    check(f"{what} outliers", sum(1 for o in s["outliers"] if o != "none"), e["outliers"])

md = open(os.path.join(GOLDEN, "export.markdown")).read()
# Cells by their heading, wherever the columns are.
md_head = next([c.strip() for c in l.strip("|").split("|")] for l in md.splitlines() if l.startswith("| condition |"))
md_cols = ["condition", "benchmark", "n", "mean", "stddev", "CV%", "median ± 95% CI", "min", "max", "rCV%", "band"]
for key in order:
    e = expected[key]
    name = key[1]
    lo, hi = e["median_ci"]
    # A median of 0 has no relative width: the interval itself is shown.
    center = (f"{format_value(e['median'])} ± {100 * max(hi / e['median'] - 1, 1 - lo / e['median']):.1f}%"
              if e["median"] > 0 else "0 ± 0.0%" if e["median"] == lo == hi == 0
              else f"{format_value(e['median'])} [{format_value(lo)}, {format_value(hi)}]")
    opt = lambda v: "—" if v is None else f"{v:.2f}"
    cells = [key[0], name, str(e["n"]), f"{format_value(e['mean'])} {key[2]}", format_value(e["stddev"]),
             opt(e["cv_pct"]), center, format_value(e["min"]), format_value(e["max"]), opt(e["rcv_pct"]), e["band"]]
    line = next((l for l in md.splitlines() if l.startswith(f"| {key[0]} ") and f" {name} " in l and f" {key[2]} " in l),
                None)
    got = dict(zip(md_head, [c.strip() for c in line.strip("|").split("|")])) if line else {}
    check(f"export.markdown {key}", [got.get(c) for c in md_cols], cells)
    # Every row says its condition's label (what it rests on is listed above the table).
    check(f"export.markdown {key} label", got.get("label") in ("MEASURED-clean", "CONTENDED", "CONTENDED-PAIRED", "UNKNOWN"),
          True)

summary_text = open(os.path.join(GOLDEN, "export.summary")).read()
for key in order:
    if primary[key[:2]] != key[2]:
        continue  # the demo's format holds the primary metric only
    e = expected[key]
    # The demo's rows drop the -N suffix when the condition ran the benchmark under one GOMAXPROCS.
    several = sum(1 for k in order if k[0] == key[0] and base[k] == base[key] and k[2] == key[2]) > 1
    want = f"{key[1] if several else base[key]:<46} {e['n']:>6} {e['mean']:>12.4f} {e['stddev']:>12.4f} {e['cv_pct']:>8.2f}"
    block = summary_text.split(f"## {key[0]}\n")[1].split("\n## ")[0]
    check(f"export.summary {key}", want in block.splitlines(), True)

go = open(os.path.join(GOLDEN, "export.gotest")).read()
blocks = {}
keys = {}  # benchstat's .config: every file-level key but `condition` must keep one value (one table)
for block in go.split("\n\n"):
    for k, v in re.findall(r"^([a-z][^ :]*): (.*)$", block, re.M):
        keys.setdefault(k, set()).add(v)
    found = re.search(r"^condition: (.*)$", block, re.M)
    if found:  # the first block holds the keys every condition shares
        blocks[found.group(1)] = [l for l in block.splitlines() if l.startswith("Benchmark")]
check("export.gotest keys that differ", sorted(k for k, v in keys.items() if len(v) > 1), ["condition"])
for cond in run["conditions"]:
    want = [f"{s['name']}\t{s['iterations']}\t" + "\t".join(f"{m['value']:g} {m['unit']}" for m in s["metrics"])
            for s in samples if s["condition"] == cond and not s["warmup"]]
    check(f"export.gotest {cond}", blocks.get(cond), want)


# ---- compare goldens ------------------------------------------------------------------------

def betacf(a, b, x):  # continued fraction of the incomplete beta (Lentz), Numerical Recipes 6.4
    qab, qap, qam = a + b, a + 1, a - 1
    c, d = 1.0, 1 - qab * x / qap
    d = 1 / d
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1 / (1 + aa * d)
        c = 1 + aa / c
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1 / (1 + aa * d)
        c = 1 + aa / c
        de = d * c
        h *= de
        if abs(de - 1) < 1e-16:
            break
    return h


def betai(a, b, x):
    if x <= 0: return 0.0
    if x >= 1: return 1.0
    bt = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1 - x))
    return bt * betacf(a, b, x) / a if x < (a + 1) / (a + b + 2) else 1 - bt * betacf(b, a, 1 - x) / b


def t_quantile(p, df):  # bisection on the t CDF
    cdf = lambda t: 1 - 0.5 * betai(df / 2, 0.5, df / (df + t * t)) if t >= 0 else 0.5 * betai(df / 2, 0.5, df / (df + t * t))
    lo, hi = 0.0, 1000.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cdf(mid) < p else (lo, mid)
    return (lo + hi) / 2


def fieller(num, den, conf=0.95):
    a, b = statistics.fmean(num), statistics.fmean(den)
    va, vb = statistics.variance(num) / len(num), statistics.variance(den) / len(den)
    q = a / b
    if va + vb == 0:
        return q, q, q, True
    df = (va + vb) ** 2 / (va * va / (len(num) - 1) + vb * vb / (len(den) - 1))
    t = t_quantile(0.5 * (1 + conf), df)
    g = t * t * vb / (b * b)
    if g >= 1:  # the denominator's interval contains 0: no bounded interval
        return q, None, None, False
    half = t / abs(b) * math.sqrt(va * (1 - g) + q * q * vb)
    return q, (q - half) / (1 - g), (q + half) / (1 - g), True


check("t quantile (0.975, 9)", t_quantile(0.975, 9), 2.2621571627982055, rel=1e-9)

for golden, old_file, new_file in (("compare.demo.json", "compare/idle.txt", "compare/noisy.txt"),
                                   ("compare.gotest.json", "gotest/makebuffer_benchmem_count3.txt",
                                    "gotest/makebuffer_cpu_1_2.txt")):
    old, new = cmp.gotest(os.path.join(DATA, old_file)), cmp.gotest(os.path.join(DATA, new_file))
    doc = json.load(open(os.path.join(GOLDEN, golden)))
    # Go test files carry no room record, so every row present on both sides is compared.
    check(f"{golden} compared rows", sorted((r["benchmark"], r["unit"]) for r in doc["rows"] if r["compared"]),
          sorted(set(old) & set(new)))
    if not any(r["compared"] for r in doc["rows"]):
        failures.append(f"{golden}: no compared row: nothing would be checked")
    for r in doc["rows"]:
        if not r["compared"]:
            continue
        key = (r["benchmark"], r["unit"])
        a, b = old[key], new[key]
        what = f"{golden} {key}"
        for side, x in (("old", a), ("new", b)):
            med, lo, hi, _ = cmp.median_ci(x)
            check(f"{what} {side} median", r[side]["median"], float(med))
            check(f"{what} {side} median CI", r[side]["median_ci"], None if lo is None else [float(lo), float(hi)])
        u, p, p2 = cmp.mann_whitney(a, b)
        check(f"{what} U", r["test"]["u"], float(u))
        if r["test"]["exact"]:
            check(f"{what} p", r["test"]["p"], float(p))
            check(f"{what} doubled-tail p", r["test"]["p_exact_doubling"], float(p2))
        if all(v > 0 for v in a + b):
            est, lo, hi = cmp.hodges_lehmann(a, b)
            check(f"{what} Hodges-Lehmann", r["hodges_lehmann"]["estimate"], est)
            if lo is not None:
                check(f"{what} Hodges-Lehmann CI", [r["hodges_lehmann"]["lo"], r["hodges_lehmann"]["hi"]], [lo, hi])
        f = r["ratio_of_means"]
        want = fieller(b, a)
        check(f"{what} ratio of means", f["estimate"], want[0])
        check(f"{what} Fieller bounded", f["bounded"], want[3])
        if f["bounded"] and want[3]:
            check(f"{what} Fieller CI", f["lo"], want[1], rel=1e-9)
            check(f"{what} Fieller CI", f["hi"], want[2], rel=1e-9)

if failures:
    print("golden files disagree with the independent computation:")
    for f in failures:
        print("  " + f)
    sys.exit(1)
print(f"golden files verified: export.* over {len(order)} rows (every metric), compare.*.json")
