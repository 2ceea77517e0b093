#!/usr/bin/env python3
"""Generate edge-case `go test -bench` outputs for comparing noisefloor with benchstat.

Usage: python3 benchstat_corpus.py OUTDIR

Writes pairs OUTDIR/<case>.old.txt and OUTDIR/<case>.new.txt (and single
files OUTDIR/<case>.txt where a case needs only one input).  The output is
deterministic: every case draws from its own random.Random(seed) with a fixed
seed, and only random.random() is used (no gauss()/shuffle() internals), so the
bytes do not depend on the Python version.  Prints nothing on success.

Lines are formatted the way Go 1.19's testing package prints them
(testing.prettyPrint for ns/op and custom metrics, "%7.2f MB/s",
"%8d B/op", "%8d allocs/op", names padded and followed by a tab), except where
a case deliberately writes values at full precision (Python repr, which
round-trips to the same IEEE double) so that the exact input values are known.

Cases (see CASES at the bottom):
  n_sweep            one benchmark per n = 2..70 on each side, ~100 ns/op,
                     lognormal noise, new side shifted 0..5%; go-test
                     rounding (4 significant digits), so large n have ties
  n_sweep_distinct   same sweep, values printed with 4 decimals and no value
                     repeated within a benchmark (old+new), so the
                     Mann-Whitney test takes its no-ties paths (exact up to
                     n=50, normal approximation above)
  geometric_exact    the exact series 100*1.05**i, i in range(n), for
                     n = 8, 11, 14, 16, 19, 22, 27, 29, 32 (full precision),
                     new side identical, shifted by 2 steps, scaled by 1.1 or by 2
  unequal_sizes      different sample counts per side: 4/11, 1/38, 2/7, 3/3,
                     5/50, 11/4, 38/1, 1/1, 1/2, 6/20, 10/70, 25/26, 50/51
  ties               values from only 2, 3 or 5 levels (integer ns/op),
                     4 vs 11 on two levels, all-equal both sides (same and
                     different values), all-equal on one side, asymmetric
                     tie patterns, tie sets either side of n=25
  iterations         one iteration per line (`BenchmarkX 1 123456 ns/op`),
                     huge iteration counts (1e9, 2^32, 2^53, 2^63-1),
                     sub-nanosecond ns/op
  names              long names with `/` and `=`, -N suffixes (-1 ... -64,
                     -cpu style variants, a dash inside the name), the same
                     benchmark name in two `pkg:` blocks, unicode and `#01`
                     names
  missing_rows       benchmarks present on one side only
  multi_unit         ns/op, MB/s, custom units (frames/op, p50-ns,
                     p99-ns), B/op and allocs/op on every line, zero B/op
  unit_metadata      `Unit frames/op better=higher` and
                     `Unit allocs/op assume=exact` lines in both files
  unit_metadata_old_only   the same metadata lines in the old file only
                     (benchfmt accumulates unit metadata across files)
  sec_vs_ns          ns/op on the old side vs sec/op on the new side (also
                     exponent notation), user-ns/op vs user-sec/op, MB/s vs
                     B/s, ns/frame
  cpu_one_side       a `cpu:` line in the old file only
  goos_one_side      a `goos:` line in the new file only
  summary            a single file (no comparison): n = 1..12 and 20, with
                     and without ties
"""

import math
import os
import random
import sys

DEFAULT_CPU = "Intel(R) Xeon(R) Processor @ 2.20GHz"


# ---------------------------------------------------------------------------
# Formatting, mirroring Go 1.19 src/testing/benchmark.go


def pretty(x):
    """testing.prettyPrint without the unit."""
    y = abs(x)
    if y == 0 or y >= 999.95:
        return "%10.0f" % x
    if y >= 99.995:
        return "%12.1f" % x
    if y >= 9.9995:
        return "%13.2f" % x
    if y >= 0.99995:
        return "%14.3f" % x
    if y >= 0.099995:
        return "%15.4f" % x
    if y >= 0.0099995:
        return "%16.5f" % x
    if y >= 0.00099995:
        return "%17.6f" % x
    return "%18.7f" % x


def m_ns(x):
    return pretty(x) + " ns/op"


def m_extra(x, unit):
    return pretty(x) + " " + unit


def m_mbs(x):
    return "%7.2f MB/s" % x


def m_mem(b, a):
    return "%8d B/op\t%8d allocs/op" % (b, a)


def m_raw(x, unit):
    """Full precision (shortest repr that round-trips)."""
    return "%s %s" % (repr(float(x)), unit)


def m_fixed(x, unit, digits):
    return "%.*f %s" % (digits, x, unit)


class Out:
    """Accumulates one go-test-like output file."""

    def __init__(self):
        self.parts = []

    def text(self, line):
        self.parts.append(line + "\n")

    def header(self, pkg, goos="linux", goarch="amd64", cpu=DEFAULT_CPU):
        if goos is not None:
            self.text("goos: " + goos)
        if goarch is not None:
            self.text("goarch: " + goarch)
        if pkg is not None:
            self.text("pkg: " + pkg)
        if cpu is not None:
            self.text("cpu: " + cpu)

    def rows(self, rows):
        """rows: list of (name, iters, [metric strings])."""
        if not rows:
            return
        pad = max(len(r[0]) for r in rows)
        for name, iters, metrics in rows:
            self.text("%-*s\t%8d\t%s" % (pad, name, iters, "\t".join(metrics)))

    def footer(self, pkg, secs):
        self.text("PASS")
        self.text("ok  \t%s\t%.3fs" % (pkg, secs))

    def block(self, pkg, rows, secs, **hdr):
        self.header(pkg, **hdr)
        self.rows(rows)
        self.footer(pkg, secs)

    def data(self):
        return "".join(self.parts)


# ---------------------------------------------------------------------------
# Random helpers (only rng.random(), so the stream is stable across versions)


def normal(rng):
    """Standard normal deviate via Box-Muller from two rng.random() draws."""
    u1 = rng.random()
    u2 = rng.random()
    return math.sqrt(-2.0 * math.log(1.0 - u1)) * math.cos(2.0 * math.pi * u2)


def lognormal(rng, center, sigma):
    return center * math.exp(sigma * normal(rng))


def noisy(rng, center, sigma, outlier_rate=0.0):
    v = lognormal(rng, center, sigma)
    if outlier_rate and rng.random() < outlier_rate:
        v *= 1.0 + 0.2 * rng.random() + 0.1
    return v


def iters_for(rng, ns_per_op, benchtime_ns=1e9):
    """An iteration count of the kind go test picks for a 1s benchtime."""
    n = benchtime_ns / ns_per_op * (0.95 + 0.3 * rng.random())
    return max(1, min(1000000000, int(n)))


def pick(rng, seq):
    return seq[int(rng.random() * len(seq))]


def shuffled(rng, seq):
    seq = list(seq)
    for i in range(len(seq) - 1, 0, -1):
        j = int(rng.random() * (i + 1))
        seq[i], seq[j] = seq[j], seq[i]
    return seq


# ---------------------------------------------------------------------------
# Cases. Each returns {"old": Out, "new": Out} or {"": Out} (single file).

SWEEP_SHIFTS = [0.0, 0.005, 0.01, 0.02, 0.03, 0.05]


def case_n_sweep():
    pkg = "example.com/corpus/nsweep"
    rng = random.Random(20240101)
    old, new = [], []
    for n in range(2, 71):
        shift = SWEEP_SHIFTS[n % len(SWEEP_SHIFTS)]
        name = "BenchmarkN%d" % n
        for _ in range(n):
            v = noisy(rng, 100.0, 0.02, outlier_rate=0.03)
            old.append((name, iters_for(rng, v), [m_ns(v)]))
        for _ in range(n):
            v = noisy(rng, 100.0 * (1.0 + shift), 0.02, outlier_rate=0.03)
            new.append((name, iters_for(rng, v), [m_ns(v)]))
    o, w = Out(), Out()
    o.block(pkg, old, 187.204)
    w.block(pkg, new, 189.911)
    return {"old": o, "new": w}


def case_n_sweep_distinct():
    pkg = "example.com/corpus/nsweepdistinct"
    rng = random.Random(20240102)
    old, new = [], []
    for n in range(2, 71):
        shift = SWEEP_SHIFTS[(n * 5) % len(SWEEP_SHIFTS)]
        name = "BenchmarkDistinct/n=%d" % n
        seen = set()

        def draw(center):
            while True:
                v = round(noisy(rng, center, 0.025), 4)
                if v not in seen:
                    seen.add(v)
                    return v

        for _ in range(n):
            v = draw(100.0)
            old.append((name, 10000000, [m_fixed(v, "ns/op", 4)]))
        for _ in range(n):
            v = draw(100.0 * (1.0 + shift))
            new.append((name, 10000000, [m_fixed(v, "ns/op", 4)]))
    o, w = Out(), Out()
    o.block(pkg, old, 250.001)
    w.block(pkg, new, 251.002)
    return {"old": o, "new": w}


GEOMETRIC_NS = [8, 11, 14, 16, 19, 22, 27, 29, 32]


def case_geometric_exact():
    pkg = "example.com/corpus/geometric"
    old, new = [], []
    for n in GEOMETRIC_NS:
        series = [100 * 1.05 ** i for i in range(n)]
        # variant same: new side is the identical series.
        name = "BenchmarkGeometric/n=%d/new=same" % n
        old += [(name, 1000000, [m_raw(v, "ns/op")]) for v in series]
        new += [(name, 1000000, [m_raw(v, "ns/op")]) for v in series]
        # variant shift2: new side is 100*1.05**i for i in range(2, n+2).
        name = "BenchmarkGeometric/n=%d/new=shift2" % n
        old += [(name, 1000000, [m_raw(v, "ns/op")]) for v in series]
        new += [(name, 1000000, [m_raw(100 * 1.05 ** i, "ns/op")])
                for i in range(2, n + 2)]
        # variant x1.1: every value times 1.1 (old side in reverse order).
        name = "BenchmarkGeometric/n=%d/new=x1.1" % n
        old += [(name, 1000000, [m_raw(v, "ns/op")]) for v in reversed(series)]
        new += [(name, 1000000, [m_raw(v * 1.1, "ns/op")]) for v in series]
        # variant x2: every value doubled (disjoint samples for small n).
        name = "BenchmarkGeometric/n=%d/new=x2" % n
        old += [(name, 1000000, [m_raw(v, "ns/op")]) for v in series]
        new += [(name, 1000000, [m_raw(v * 2, "ns/op")]) for v in series]
    o, w = Out(), Out()
    o.block(pkg, old, 3.5)
    w.block(pkg, new, 3.6)
    return {"old": o, "new": w}


UNEQUAL = [(4, 11), (1, 38), (2, 7), (3, 3), (5, 50), (11, 4), (38, 1),
           (1, 1), (1, 2), (6, 20), (10, 70), (25, 26), (50, 51)]


def case_unequal_sizes():
    pkg = "example.com/corpus/unequal"
    rng = random.Random(20240103)
    old, new = [], []
    for k, (n1, n2) in enumerate(UNEQUAL):
        for shift in (0.0, 0.04):
            name = "BenchmarkSizes/old=%d/new=%d/shift=%g%%" % (n1, n2, shift * 100)
            for _ in range(n1):
                v = noisy(rng, 2500.0, 0.015)
                old.append((name, iters_for(rng, v), [m_ns(v)]))
            for _ in range(n2):
                v = noisy(rng, 2500.0 * (1 + shift), 0.015)
                new.append((name, iters_for(rng, v), [m_ns(v)]))
    o, w = Out(), Out()
    o.block(pkg, old, 44.1)
    w.block(pkg, new, 77.7)
    return {"old": o, "new": w}


def case_ties():
    pkg = "example.com/corpus/ties"
    rng = random.Random(20240104)
    old, new = [], []

    def add(name, olds, news, fmt=m_ns):
        old.extend((name, 1000, [fmt(v)]) for v in olds)
        new.extend((name, 1000, [fmt(v)]) for v in news)

    def levels_draw(levels, weights, n):
        total = float(sum(weights))
        out = []
        for _ in range(n):
            u = rng.random() * total
            acc = 0.0
            for lv, w in zip(levels, weights):
                acc += w
                if u < acc:
                    out.append(lv)
                    break
            else:
                out.append(levels[-1])
        return out

    # 4 vs 11 on two levels, several arrangements.
    add("BenchmarkTwoLevels/4v11/same-mix", [1000, 1000, 1001, 1001],
        [1000] * 5 + [1001] * 6)
    add("BenchmarkTwoLevels/4v11/old-low", [1000] * 4, [1000] * 2 + [1001] * 9)
    add("BenchmarkTwoLevels/4v11/disjoint", [1000] * 4, [1001] * 11)
    add("BenchmarkTwoLevels/11v4/disjoint", [1001] * 11, [1000] * 4)
    # All values equal on both sides (same value, then different values).
    add("BenchmarkAllEqual/both-same/n=6", [1200] * 6, [1200] * 6)
    add("BenchmarkAllEqual/both-same/n=10", [100] * 10, [100] * 10)
    add("BenchmarkAllEqual/both-differ/n=6", [1200] * 6, [1260] * 6)
    add("BenchmarkAllEqual/both-differ/n=10", [1200] * 10, [1100] * 10)
    add("BenchmarkAllEqual/both-differ/n=3", [1200] * 3, [1300] * 3)
    # All equal on one side only.
    add("BenchmarkOneSideEqual/old-const", [1500] * 8,
        levels_draw([1499, 1500, 1501, 1502], [1, 2, 2, 1], 8))
    add("BenchmarkOneSideEqual/new-const",
        levels_draw([1500, 1510, 1520], [1, 1, 1], 10), [1505] * 10)
    add("BenchmarkOneSideEqual/new-const-above", [1000, 1001, 1002, 1003, 1004, 1005],
        [1010] * 6)
    # Asymmetric tie patterns.
    add("BenchmarkAsym/9low1high-vs-1low9high", [2000] * 9 + [2001],
        [2000] + [2001] * 9)
    add("BenchmarkAsym/ladder", [3000, 3000, 3000, 3001, 3001, 3002],
        [3001, 3002, 3002, 3002, 3003, 3003, 3003, 3003])
    add("BenchmarkAsym/middle-block", [4000, 4001, 4001, 4001, 4001, 4002],
        [4000, 4000, 4001, 4002, 4002, 4002])
    add("BenchmarkAsym/one-shared-level", [5000] * 5 + [5005] * 2,
        [5005] * 3 + [5010] * 4)
    # Random draws from 2, 3 or 5 levels, n either side of the
    # ties-exact limit (25) and larger.
    spec = [
        ("2", [1000, 1001], [1, 1], [1, 2]),
        ("3", [1000, 1001, 1002], [1, 2, 1], [1, 1, 2]),
        ("5", [996, 998, 1000, 1002, 1004], [1, 2, 3, 2, 1], [1, 1, 2, 3, 3]),
    ]
    for label, levels, wold, wnew in spec:
        for n1, n2 in [(6, 6), (10, 10), (20, 20), (25, 25), (25, 26), (26, 25),
                       (40, 40), (8, 30)]:
            name = "BenchmarkLevels/k=%s/n=%dv%d/same" % (label, n1, n2)
            add(name, levels_draw(levels, wold, n1), levels_draw(levels, wold, n2))
            name = "BenchmarkLevels/k=%s/n=%dv%d/shifted" % (label, n1, n2)
            add(name, levels_draw(levels, wold, n1), levels_draw(levels, wnew, n2))
    # Ties in go-test rounding: values around 10 ns print as 10.00 .. 10.10.
    for n in (6, 12, 30):
        name = "BenchmarkRounded/n=%d" % n
        add(name, [noisy(rng, 10.03, 0.002) for _ in range(n)],
            [noisy(rng, 10.05, 0.002) for _ in range(n)])
    o, w = Out(), Out()
    o.block(pkg, old, 12.0)
    w.block(pkg, new, 12.1)
    return {"old": o, "new": w}


def case_iterations():
    pkg = "example.com/corpus/iterations"
    rng = random.Random(20240105)
    old, new = [], []
    # One iteration per line (-benchtime 1x or slow benchmarks).
    for name, center in [("BenchmarkOneShot", 123456.0),
                         ("BenchmarkOneShot/slow", 2.5e9),
                         ("BenchmarkOneShot/fast", 850.0)]:
        for _ in range(8):
            old.append((name, 1, [m_ns(round(noisy(rng, center, 0.03)))]))
        for _ in range(8):
            new.append((name, 1, [m_ns(round(noisy(rng, center * 1.06, 0.03)))]))
    # Huge iteration counts with sub-nanosecond results.
    for name, it, center in [("BenchmarkHuge/1e9", 1000000000, 0.2513),
                             ("BenchmarkHuge/2^32", 4294967296, 0.0625),
                             ("BenchmarkHuge/2^53", 9007199254740993, 0.00031),
                             ("BenchmarkHuge/2^63-1", 9223372036854775807, 0.0000004)]:
        for _ in range(6):
            old.append((name, it, [m_ns(noisy(rng, center, 0.01))]))
        for _ in range(6):
            new.append((name, it, [m_ns(noisy(rng, center * 0.97, 0.01))]))
    # Iteration counts that differ wildly between lines of one benchmark.
    name = "BenchmarkVaryingN"
    for it in (1, 10, 100, 1000, 10000, 100000):
        old.append((name, it, [m_ns(noisy(rng, 5000.0, 0.02))]))
        new.append((name, it * 3, [m_ns(noisy(rng, 5000.0, 0.02))]))
    o, w = Out(), Out()
    o.block(pkg, old, 61.0)
    w.block(pkg, new, 63.0)
    return {"old": o, "new": w}


def case_names():
    rng = random.Random(20240106)
    o, w = Out(), Out()

    def series(name, center, shift, n=6):
        a = [(name, iters_for(rng, center), [m_ns(noisy(rng, center, 0.02))])
             for _ in range(n)]
        b = [(name, iters_for(rng, center), [m_ns(noisy(rng, center * (1 + shift), 0.02))])
             for _ in range(n)]
        return a, b

    # Block 1: long names with / and =, -N suffixes.
    pkg1 = "example.com/corpus/names/codec"
    old1, new1 = [], []
    long_tail = "/".join("k%d=v%d" % (i, i * i) for i in range(12))
    names = [
        ("BenchmarkEncode/size=1024/codec=zstd-8", 3100.0, 0.05),
        ("BenchmarkEncode/size=1024/codec=gzip-8", 9800.0, 0.0),
        ("BenchmarkEncode/size=1048576/codec=zstd/level=19/window=23-8", 8.1e6, -0.03),
        ("BenchmarkDecode/size=64/codec=snappy/pool=true/parallel=false-8", 210.0, 0.0),
        ("BenchmarkLong/" + long_tail + "-8", 777.0, 0.02),
        ("BenchmarkKV/a=1=2/b==/=c/d=-8", 55.0, 0.0),
        ("BenchmarkNegative/n=-1-8", 12.5, 0.04),
        ("BenchmarkDash-in-name-8", 64.0, 0.0),
        ("BenchmarkDash-in-name", 61.0, 0.0),
        ("BenchmarkTrailingNumber123-8", 99.0, 0.01),
        ("BenchmarkSub/#00-8", 40.0, 0.0),
        ("BenchmarkSub/#01-8", 41.0, 0.05),
        ("BenchmarkUnicode/ⱯⱯⱯ/size=ɐ-8", 150.0, 0.03),
        ("BenchmarkEmptyKey/=5-8", 33.0, 0.0),
    ]
    for name, center, shift in names:
        a, b = series(name, center, shift)
        old1 += a
        new1 += b
    # -cpu 1,2,4,8,16,64 style suffixes on one benchmark.
    for procs in (1, 2, 4, 8, 16, 64):
        name = "BenchmarkParallel/op=get" + ("" if procs == 1 else "-%d" % procs)
        a, b = series(name, 400.0 / min(procs, 8), 0.03 if procs >= 8 else 0.0)
        old1 += a
        new1 += b
    o.block(pkg1, old1, 40.2)
    w.block(pkg1, new1, 41.9)

    # Blocks 2 and 3: the same benchmark names in two pkg blocks.
    for pkg, center, shift, secs in [("example.com/corpus/names/a", 120.0, 0.0, 3.3),
                                     ("example.com/corpus/names/b", 480.0, 0.05, 4.4)]:
        old2, new2 = [], []
        for name in ("BenchmarkShared-8", "BenchmarkShared/mode=fast-8"):
            a, b = series(name, center, shift)
            old2 += a
            new2 += b
        o.block(pkg, old2, secs)
        w.block(pkg, new2, secs + 0.1)
    return {"old": o, "new": w}


def case_missing_rows():
    pkg = "example.com/corpus/missing"
    rng = random.Random(20240107)
    old, new = [], []
    for name, sides in [("BenchmarkBoth-8", "on"), ("BenchmarkOldOnly-8", "o"),
                        ("BenchmarkNewOnly-8", "n"), ("BenchmarkBoth2-8", "on")]:
        for _ in range(6):
            if "o" in sides:
                v = noisy(rng, 800.0, 0.02)
                old.append((name, iters_for(rng, v), [m_ns(v), m_mem(64, 1)]))
            if "n" in sides:
                v = noisy(rng, 760.0, 0.02)
                new.append((name, iters_for(rng, v), [m_ns(v), m_mem(64, 1)]))
    o, w = Out(), Out()
    o.block(pkg, old, 5.0)
    w.block(pkg, new, 5.0)
    return {"old": o, "new": w}


def multi_unit_rows(rng, side):
    """Rows with ns/op, MB/s, custom metrics (sorted, as go test prints them),
    B/op and allocs/op."""
    rows = []
    specs = [
        # name, bytes per op, ns, frames/op, p50, p99, B/op, allocs/op, shift
        ("BenchmarkRender/scene=small-8", 4096, 15000.0, 3.0, 4100.0, 9000.0, 2048, 12, 0.0),
        ("BenchmarkRender/scene=large-8", 1 << 20, 2.1e6, 60.0, 30000.0, 95000.0, 1 << 18, 310, 0.04),
        ("BenchmarkRender/scene=empty-8", 64, 95.0, 0.0, 90.0, 130.0, 0, 0, 0.0),
    ]
    for name, nbytes, ns, frames, p50, p99, bop, aop, shift in specs:
        for _ in range(10):
            f = 1.0 + (shift if side == "new" else 0.0)
            v = noisy(rng, ns * f, 0.02)
            # Custom metrics: frames/op is higher-is-better in unit_metadata.
            fr = frames / f if frames else 0.0
            fr = round(fr * (1 + 0.002 * normal(rng)), 2)
            rows.append((name, iters_for(rng, v), [
                m_ns(v),
                m_mbs(nbytes / v * 1e3),
                m_extra(fr, "frames/op"),
                m_extra(round(noisy(rng, p50 * f, 0.03)), "p50-ns"),
                m_extra(round(noisy(rng, p99 * f, 0.08)), "p99-ns"),
                m_mem(bop, aop if side == "old" else aop - (1 if aop > 100 else 0)),
            ]))
    return rows


def case_multi_unit():
    pkg = "example.com/corpus/multiunit"
    rng = random.Random(20240108)
    o, w = Out(), Out()
    o.block(pkg, multi_unit_rows(rng, "old"), 31.0)
    w.block(pkg, multi_unit_rows(rng, "new"), 30.5)
    return {"old": o, "new": w}


def metadata_rows(rng, side):
    rows = []
    # frames/op: higher is better; new side renders more frames.
    for _ in range(8):
        v = noisy(rng, 1.6e6 if side == "old" else 1.5e6, 0.02)
        fr = 40.0 if side == "old" else 44.0
        fr = round(fr * (1 + 0.01 * normal(rng)), 1)
        rows.append(("BenchmarkFrames/mode=vsync-8", iters_for(rng, v),
                     [m_ns(v), m_extra(fr, "frames/op"),
                      m_mem(123456, 17 if side == "old" else 15)]))
    # allocs/op assume=exact, constant on each side but different.
    for _ in range(6):
        v = noisy(rng, 900.0, 0.02)
        rows.append(("BenchmarkExact/allocs=const-8", iters_for(rng, v),
                     [m_ns(v), m_mem(96, 3 if side == "old" else 2)]))
    # allocs/op assume=exact, identical on both sides.
    for _ in range(6):
        v = noisy(rng, 450.0, 0.02)
        rows.append(("BenchmarkExact/allocs=same-8", iters_for(rng, v),
                     [m_ns(v), m_mem(48, 1)]))
    # allocs/op assume=exact but the values vary (benchstat warns).
    for i in range(6):
        v = noisy(rng, 700.0, 0.02)
        a = [5, 5, 6, 5, 7, 5][i] if side == "old" else 5
        rows.append(("BenchmarkExact/allocs=varies-8", iters_for(rng, v),
                     [m_ns(v), m_mem(80 * a, a)]))
    # A single measurement per side: exact units still compare.
    v = 1.0e6 if side == "old" else 1.1e6
    rows.append(("BenchmarkExact/n=1-8", 1, [m_ns(v), m_mem(4096, 9 if side == "old" else 8)]))
    return rows


UNIT_LINES = ["Unit frames/op better=higher", "Unit allocs/op assume=exact"]


def case_unit_metadata():
    pkg = "example.com/corpus/unitmeta"
    rng = random.Random(20240109)
    res = {}
    for side, secs in (("old", 14.0), ("new", 13.0)):
        out = Out()
        out.header(pkg)
        for line in UNIT_LINES:
            out.text(line)
        out.rows(metadata_rows(rng, side))
        out.footer(pkg, secs)
        res[side] = out
    return res


def case_unit_metadata_old_only():
    pkg = "example.com/corpus/unitmeta"
    rng = random.Random(20240109)
    res = {}
    for side, secs in (("old", 14.0), ("new", 13.0)):
        out = Out()
        out.header(pkg)
        if side == "old":
            for line in UNIT_LINES:
                out.text(line)
        out.rows(metadata_rows(rng, side))
        out.footer(pkg, secs)
        res[side] = out
    return res


def case_sec_vs_ns():
    pkg = "example.com/corpus/units"
    rng = random.Random(20240110)
    old, new = [], []
    for _ in range(8):
        v = noisy(rng, 1234.0, 0.02)
        u = noisy(rng, 1100.0, 0.03)
        old.append(("BenchmarkTime/unit=ns-8", iters_for(rng, v),
                    [m_ns(v), m_extra(u, "user-ns/op"), m_extra(u / 10, "sys-ns/op")]))
        v = noisy(rng, 1234.0 * 1.05, 0.02)
        u = noisy(rng, 1100.0 * 1.05, 0.03)
        new.append(("BenchmarkTime/unit=ns-8", iters_for(rng, v),
                    ["%.9f sec/op" % (v * 1e-9), "%.9f user-sec/op" % (u * 1e-9),
                     "%.10f sys-sec/op" % (u * 1e-10)]))
    for _ in range(8):
        v = noisy(rng, 5.5e7, 0.02)
        old.append(("BenchmarkTime/unit=exp-8", 20, [m_ns(v)]))
        v = noisy(rng, 5.5e7, 0.02)
        new.append(("BenchmarkTime/unit=exp-8", 20, ["%.6e sec/op" % (v * 1e-9)]))
    for _ in range(8):
        v = noisy(rng, 2000.0, 0.01)
        old.append(("BenchmarkThroughput-8", iters_for(rng, v),
                    [m_ns(v), m_mbs(65536 / v * 1e3)]))
        v = noisy(rng, 1900.0, 0.01)
        new.append(("BenchmarkThroughput-8", iters_for(rng, v),
                    [m_ns(v), "%.0f B/s" % (65536 / v * 1e9)]))
    for _ in range(8):
        v = noisy(rng, 16.6e6, 0.01)
        old.append(("BenchmarkFrame-8", 60, [m_ns(v), m_extra(v / 1000, "ns/frame")]))
        v = noisy(rng, 16.6e6, 0.01)
        new.append(("BenchmarkFrame-8", 60, [m_ns(v), m_extra(v / 1000, "ns/frame")]))
    o, w = Out(), Out()
    o.block(pkg, old, 9.0)
    w.block(pkg, new, 9.0)
    return {"old": o, "new": w}


def one_side_config_case(seed, pkg, old_hdr, new_hdr):
    rng = random.Random(seed)
    res = {}
    for side, hdr, shift in (("old", old_hdr, 0.0), ("new", new_hdr, 0.05)):
        rows = []
        for name, center in (("BenchmarkAlpha-2", 300.0), ("BenchmarkBeta-2", 4500.0)):
            for _ in range(6):
                v = noisy(rng, center * (1 + shift), 0.01)
                rows.append((name, iters_for(rng, v), [m_ns(v)]))
        out = Out()
        out.block(pkg, rows, 4.0, **hdr)
        res[side] = out
    return res


def case_cpu_one_side():
    return one_side_config_case(20240111, "example.com/corpus/cpuoneside",
                                {"cpu": DEFAULT_CPU}, {"cpu": None})


def case_goos_one_side():
    return one_side_config_case(20240112, "example.com/corpus/goosoneside",
                                {"goos": None}, {"goos": "linux"})


def case_summary():
    pkg = "example.com/corpus/summary"
    rng = random.Random(20240113)
    rows = []
    for n in list(range(1, 13)) + [20]:
        name = "BenchmarkSummary/n=%d-4" % n
        for _ in range(n):
            v = noisy(rng, 250.0, 0.02)
            rows.append((name, iters_for(rng, v), [m_ns(v), m_mem(32, 1)]))
    for n in (1, 2, 6, 9):
        name = "BenchmarkSummary/const/n=%d-4" % n
        rows += [(name, 1000, [m_ns(1500.0), m_mem(0, 0)])] * n
    out = Out()
    out.block(pkg, rows, 20.0)
    return {"": out}


CASES = [
    ("n_sweep", case_n_sweep),
    ("n_sweep_distinct", case_n_sweep_distinct),
    ("geometric_exact", case_geometric_exact),
    ("unequal_sizes", case_unequal_sizes),
    ("ties", case_ties),
    ("iterations", case_iterations),
    ("names", case_names),
    ("missing_rows", case_missing_rows),
    ("multi_unit", case_multi_unit),
    ("unit_metadata", case_unit_metadata),
    ("unit_metadata_old_only", case_unit_metadata_old_only),
    ("sec_vs_ns", case_sec_vs_ns),
    ("cpu_one_side", case_cpu_one_side),
    ("goos_one_side", case_goos_one_side),
    ("summary", case_summary),
]


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: benchstat_corpus.py OUTDIR\n")
        return 2
    outdir = argv[1]
    os.makedirs(outdir, exist_ok=True)
    for case, fn in CASES:
        for side, out in fn().items():
            fname = "%s.%s.txt" % (case, side) if side else "%s.txt" % case
            with open(os.path.join(outdir, fname), "w", encoding="utf-8",
                      newline="\n") as f:
                f.write(out.data())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
