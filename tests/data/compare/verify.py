#!/usr/bin/env python3
"""Independent check of the numbers in analysis_compare_test.cpp and the compare.* golden files.

Pure Python (fractions, itertools, math): no scipy. Run: python3 tests/data/compare/verify.py
(tests/golden/verify.py imports these functions and checks the golden files with them).
- Mann-Whitney U: mid-ranks; exact p by enumerating every split of the pooled values when
  C(N, n_a) <= 2e6, else by a dictionary DP over the doubled mid-ranks (same distribution,
  conditional on the tie pattern); both the |U - mu| p and the doubled-tail p (benchstat/R/scipy).
- Hodges-Lehmann ratio: exp(median of all ln b_j - ln a_i), Moses CI with
  k = max{k : 2 P0(U <= k-1) <= 0.05} from the no-ties distribution of U (counted exactly).
- Median CI: benchstat's (golang.org/x/perf 712aea8), [x_(lo), x_(hi)] from the counts of
  samples below the median taken most probable first (n <= 30) or the normal approximation
  (n > 30), with the exact binomial level of the orders chosen.
- benchstat's p: 2 P0(U_a <= min(U_a, n_a n_b - U_a)) over every split, as benchstat prints it.
"""
import itertools, math, os, re
from fractions import Fraction
from math import comb
from statistics import NormalDist

HERE = os.path.dirname(os.path.abspath(__file__))


def tidy(unit):
    """benchunit's tidying, written again: every "ns" token of the numerator becomes "sec" (the
    value times 1e-9), every "MB" token "B" (times 1e6); tokens are split at '*', '/', '-' and
    spaces, and a '/' starts the denominator until the next '*'."""
    out, factor, denominator, token = "", 1.0, False, ""

    def flush():
        nonlocal out, factor, token
        if token == "ns" and not denominator:
            out, factor = out + "sec", factor * 1e-9
        elif token == "MB" and not denominator:
            out, factor = out + "B", factor * 1e6
        else:
            out += token
        token = ""

    for c in unit:
        if c in "*/- ":
            flush()
            out += c
            if c == "*":
                denominator = False
            elif c == "/":
                denominator = True
        else:
            token += c
    flush()
    return out, factor


def gotest(path):
    """(full name as printed, tidied unit) -> values in that unit: rows are keyed as benchstat keys
    them, ns/op read as sec/op."""
    out = {}
    for line in open(path):
        m = re.match(r"^(Benchmark\S*)\s+\d+\s+(.*)$", line)
        if not m:
            continue
        f = m.group(2).split()
        for v, u in zip(f[0::2], f[1::2]):
            unit, factor = tidy(u)
            out.setdefault((m.group(1), unit), []).append(float(v) * factor if factor != 1 else float(v))
    return out


def midranks2(values):
    s = sorted(values)
    r = {}
    i = 0
    while i < len(s):
        j = i
        while j < len(s) and s[j] == s[i]:
            j += 1
        r[s[i]] = (i + 1) + j  # doubled mid-rank: (i+1 + j)
        i = j
    return [r[v] for v in values]


def mann_whitney(a, b):
    na, nb = len(a), len(b)
    r2 = midranks2(a + b)
    u2 = sum(r2[:na]) - na * (na + 1)  # doubled U
    mu2 = na * nb
    total = comb(na + nb, na)
    dist = {}
    if total <= 2_000_000:
        for idx in itertools.combinations(range(na + nb), na):
            s = sum(r2[i] for i in idx) - na * (na + 1)
            dist[s] = dist.get(s, 0) + 1
    else:
        cnt = [dict() for _ in range(na + 1)]
        cnt[0][0] = 1
        for r in r2:
            for k in range(na, 0, -1):
                for s, c in cnt[k - 1].items():
                    cnt[k][s + r] = cnt[k].get(s + r, 0) + c
        dist = {s - na * (na + 1): c for s, c in cnt[na].items()}
    assert sum(dist.values()) == total
    ext = sum(c for s, c in dist.items() if abs(s - mu2) >= abs(u2 - mu2))
    le = sum(c for s, c in dist.items() if s <= u2)
    ge = sum(c for s, c in dist.items() if s >= u2)
    return u2 / 2, Fraction(ext, total), min(Fraction(1), Fraction(2 * min(le, ge), total))


def u_cdf_no_ties(m, n):
    # counts of U = 0..mn without ties: f(m, n, u) = f(m-1, n, u-n) + f(m, n-1, u)
    from functools import lru_cache

    @lru_cache(maxsize=None)
    def f(m, n, u):
        if u < 0:
            return 0
        if m == 0 or n == 0:
            return 1 if u == 0 else 0
        return f(m - 1, n, u - n) + f(m, n - 1, u)

    counts = [f(m, n, u) for u in range(m * n + 1)]
    return counts, comb(m + n, m)


def hodges_lehmann(a, b, alpha=Fraction(5, 100)):
    d = sorted(math.log(y) - math.log(x) for x in a for y in b)
    N = len(d)
    med = d[N // 2] if N % 2 else (d[N // 2 - 1] + d[N // 2]) / 2
    counts, total = u_cdf_no_ties(len(a), len(b))
    k, cum = 0, 0
    for kk in range(1, N + 1):
        cum_k = sum(counts[:kk])  # P0(U <= kk-1) * total
        if 2 * Fraction(cum_k, total) <= alpha:
            k = kk
        else:
            break
    if k == 0:
        return math.exp(med), None, None
    return math.exp(med), math.exp(d[k - 1]), math.exp(d[N - k])


# Where benchstat 712aea8 (amd64) puts the count n - k before the equally probable count k < n/2:
# its binomial terms for n > 20 are rounded exp(lgamma) values, so the two are not quite equal.
# Found by running benchstat at a confidence that makes each such tie decide the interval.
BENCHSTAT_RIGHT_FIRST = {21: {2, 4, 7}, 22: {2, 4, 7, 10}, 23: {2, 4, 7}, 24: {2, 4, 7, 11},
                         25: {2, 4, 7, 10}, 26: {2, 4, 7, 10}, 27: {2, 4, 7, 10, 11},
                         28: {2, 4, 7, 10, 12, 13}, 29: {2, 4, 5, 6, 7, 10, 13},
                         30: {2, 4, 5, 6, 7, 8, 10, 13, 14}}


def median_ci_orders(n, conf=0.95):
    """benchstat's median CI as orders (lo, hi), CI = [x_(lo), x_(hi)], with the exact level
    P(lo <= K < hi), K ~ Bin(n, 1/2) the count of samples below the median; None when an end is
    infinite (lo < 1 or hi > n)."""
    if n == 0:
        return None
    if n <= 30:
        # The interval holds the most probable counts: take them in decreasing probability
        # until their mass reaches conf. Of two equal ones (k and n - k) the lower comes first,
        # unless benchstat's rounding says otherwise; so does the lower of the two modes (odd n).
        def rank(k):
            low = min(k, n - k)
            first = low if low not in BENCHSTAT_RIGHT_FIRST.get(n, ()) else n - low
            return (-comb(n, k), 0 if k == first else 1)
        taken, mass = [], Fraction(0)
        for k in sorted(range(n + 1), key=rank):
            if mass >= Fraction(conf):
                break
            taken.append(k)
            mass += Fraction(comb(n, k), 2 ** n)
        lo, hi = min(taken), max(taken) + 1
        assert len(taken) == hi - lo  # contiguous
    else:
        # Normal approximation with continuity correction; the count k is [k - 1/2, k + 1/2).
        approx = NormalDist(n / 2, math.sqrt(n) / 2)
        left = approx.inv_cdf((1 - conf) / 2)
        lo = math.floor(left - 0.5) + 1
        hi = math.ceil(n - left - 0.5) + 1
        covers = lambda a, b: approx.cdf(b - 0.5) - approx.cdf(a - 0.5)
        if covers(lo, hi - 1) >= conf and covers(lo, hi - 1) < covers(lo, hi):
            hi -= 1
    if lo < 1 or hi > n:
        return None
    return lo, hi, Fraction(sum(comb(n, k) for k in range(lo, hi)), 2 ** n)


def median_ci(x):
    n = len(x)
    s = sorted(x)
    med = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    orders = median_ci_orders(n)
    if orders is None:
        return med, None, None, None
    lo, hi = s[orders[0] - 1], s[orders[1] - 1]
    return med, lo, hi, max(hi / med - 1, 1 - lo / med)


def benchstat_p(a, b):
    """The exact p benchstat prints: 2 P0(U_a <= min(U_a, n_a n_b - U_a)) over every split of the
    pooled values (1 when U_a = n_a n_b / 2); with two distinct values its count also takes the
    split with all of a on the lower value when the threshold is less than N/2 below that
    split's U. Can exceed 1 or be 0 under asymmetric ties."""
    na, nb = len(a), len(b)
    pooled = a + b
    if len(set(pooled)) == 1:
        return Fraction(1)
    r2 = midranks2(pooled)
    u2 = sum(r2[:na]) - na * (na + 1)
    if 2 * u2 == 2 * na * nb:
        return Fraction(1)
    threshold = min(u2, 2 * na * nb - u2)
    splits = [sum(r2[i] for i in idx) - na * (na + 1) for idx in itertools.combinations(range(na + nb), na)]
    count = sum(1 for s in splits if s <= threshold)
    low = min(pooled)
    t = pooled.count(low)
    if len(set(pooled)) == 2 and na <= t and threshold < na * (t - na) and threshold > na * (t - na) - (na + nb):
        count += comb(t, na)
    return Fraction(2 * count, len(splits))


def report(title, a, b):
    u, p, p2 = mann_whitney(a, b)
    est, lo, hi = hodges_lehmann(a, b)
    print(f"{title}: n={len(a)} vs {len(b)} U={u} p={p} ({float(p):.17g}) doubling={p2} ({float(p2):.6g})")
    if comb(len(a) + len(b), len(a)) <= 2_000_000:
        pb = benchstat_p(a, b)
        print(f"  benchstat's p={pb} ({float(pb):.17g})")
    print(f"  HL={est!r} CI=[{lo!r}, {hi!r}]")
    for side, x in (("old", a), ("new", b)):
        med, clo, chi, h = median_ci(x)
        print(f"  {side}: median={med!r} ci=[{clo}, {chi}] ± {'∞' if h is None else f'{100 * h:.0f}%'}")
    ma, mb = median_ci(a)[0], median_ci(b)[0]
    print(f"  delta={(mb / ma - 1) * 100:+.2f}%")


def main():
    idle = gotest(os.path.join(HERE, "idle.txt"))
    noisy = gotest(os.path.join(HERE, "noisy.txt"))
    key = ("BenchmarkMakeBuffer_Correct-16", "ns/op")
    report("demo idle vs noisy ns/op", idle[key], noisy[key])

    old = gotest(os.path.join(HERE, "..", "gotest", "makebuffer_benchmem_count3.txt"))
    new = gotest(os.path.join(HERE, "..", "gotest", "makebuffer_cpu_1_2.txt"))
    key = ("BenchmarkMakeBuffer_Correct-2", "ns/op")
    report("count3 vs cpu_1_2 ns/op (GOMAXPROCS 2 on both sides)", old[key], new[key])

    report("asymmetric ties", [10, 10, 10, 10], [10, 10, 11, 12, 12, 12])
    # benchstat p=0.051 where the |U - mu| p is 10/273 = 0.037 (stats_compare_test.cpp).
    report("4 vs 11, heavy ties", [10] * 4, [10] * 3 + [11] * 2 + [12] * 6)

    base = [10.0, 10.1, 10.2, 10.3, 10.4, 10.5, 10.6, 10.7, 10.8, 10.9]
    report("holm A", base, [v * 1.2 for v in base])
    report("holm B", base, [v + 0.05 for v in base])
    pa = mann_whitney(base, [v * 1.2 for v in base])[1]
    pb = mann_whitney(base, [v + 0.05 for v in base])[1]
    ps = sorted([pa, pb])
    print(f"holm: A {float(min(1, 2 * ps[0]))!r}, B {float(min(1, max(2 * ps[0], ps[1])))!r}")


if __name__ == "__main__":
    main()
