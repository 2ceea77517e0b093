#!/usr/bin/env python3
"""Independent check of the numbers in analysis_compare_test.cpp and the compare.* golden files.

Pure Python (fractions, itertools, math): no scipy. Run: python3 tests/data/compare/verify.py
(tests/golden/verify.py imports these functions and checks the golden files with them).
- Mann-Whitney U: mid-ranks; exact p by enumerating every split of the pooled values when
  C(N, n_a) <= 2e6, else by a dictionary DP over the doubled mid-ranks (same distribution,
  conditional on the tie pattern); both the |U - mu| p and the doubled-tail p (benchstat/R/scipy).
- Hodges-Lehmann ratio: exp(median of all ln b_j - ln a_i), Moses CI with
  k = max{k : 2 P0(U <= k-1) <= 0.05} from the no-ties distribution of U (counted exactly).
- Median CI: equal-tailed order statistics, k = max{k : 2 P(Bin(n,1/2) <= k-1) <= 0.05}.
"""
import itertools, math, os, re
from fractions import Fraction
from math import comb

HERE = os.path.dirname(os.path.abspath(__file__))


def gotest(path):
    """(full name as printed, unit) -> values: rows are keyed as benchstat keys them."""
    out = {}
    for line in open(path):
        m = re.match(r"^(Benchmark\S*)\s+\d+\s+(.*)$", line)
        if not m:
            continue
        f = m.group(2).split()
        for v, u in zip(f[0::2], f[1::2]):
            out.setdefault((m.group(1), u), []).append(float(v))
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


def median_ci(x):
    n = len(x)
    s = sorted(x)
    k = 0
    for kk in range(1, n + 1):
        if 2 * Fraction(sum(comb(n, j) for j in range(kk)), 2 ** n) <= Fraction(5, 100):
            k = kk
    med = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    if k == 0:
        return med, None, None, None
    lo, hi = s[k - 1], s[n - k]
    return med, lo, hi, max(hi / med - 1, 1 - lo / med)


def report(title, a, b):
    u, p, p2 = mann_whitney(a, b)
    est, lo, hi = hodges_lehmann(a, b)
    print(f"{title}: n={len(a)} vs {len(b)} U={u} p={p} ({float(p):.17g}) doubling={p2} ({float(p2):.6g})")
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

    base = [10.0, 10.1, 10.2, 10.3, 10.4, 10.5, 10.6, 10.7, 10.8, 10.9]
    report("holm A", base, [v * 1.2 for v in base])
    report("holm B", base, [v + 0.05 for v in base])
    pa = mann_whitney(base, [v * 1.2 for v in base])[1]
    pb = mann_whitney(base, [v + 0.05 for v in base])[1]
    ps = sorted([pa, pb])
    print(f"holm: A {float(min(1, 2 * ps[0]))!r}, B {float(min(1, max(2 * ps[0], ps[1])))!r}")


if __name__ == "__main__":
    main()
