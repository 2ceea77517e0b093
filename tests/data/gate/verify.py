#!/usr/bin/env python3
"""Independent check of the numbers in stats_gate_test.cpp and analysis_gate_test.cpp (§3.13).

Pure Python 3 (math, statistics.NormalDist): no scipy. Run: python3 tests/data/gate/verify.py
and compare what it prints with the values the C++ tests assert.
- Student's t and Fisher's F: CDFs from the regularized incomplete beta function I_x(a, b)
  (Lentz's continued fraction, as in Numerical Recipes' betacf), quantiles by bisection.
- A block of quads written out from the definitions of §3.13: b~ = sqrt(b b'), h~ = sqrt(h h'),
  d = ln(h~/b~); the signed floors with sigma = +1 for kept repeats k % 4 in {0, 1}, -1 otherwise
  (the design's rule; the C++ alternates the sign among the quads of each order, which is the same
  sign for complete blocks); the GM intervals; sigma0, nu0, MDE, excess spread; the least N by a
  plain scan from N = 2; Welch's interaction; the false-alarm bounds.
"""
import math
from statistics import NormalDist

CONF = 0.95
THETA = 0.02


# --- distributions ---------------------------------------------------------------------------

def betacf(a, b, x):
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            return h
    raise RuntimeError("betacf did not converge")


def betai(a, b, x):
    """Regularized incomplete beta I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * betacf(b, a, 1.0 - x) / b


def t_cdf(t, df):
    tail = 0.5 * betai(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


def f_cdf(x, d1, d2):
    return betai(d1 / 2.0, d2 / 2.0, d1 * x / (d1 * x + d2)) if x > 0 else 0.0


def bisect(cdf, p, lo, hi):
    while cdf(hi) < p:
        hi *= 2.0
    for _ in range(400):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if cdf(mid) < p:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def t_q(p, df):
    if p < 0.5:
        return -t_q(1.0 - p, df)
    return bisect(lambda t: t_cdf(t, df), p, 0.0, 10.0)


def f_q(p, d1, d2):
    return bisect(lambda x: f_cdf(x, d1, d2), p, 0.0, 10.0)


# --- the statistics of §3.13 -----------------------------------------------------------------

def mean(v):
    return math.fsum(v) / len(v)


def sd(v):
    m = mean(v)
    return math.sqrt(math.fsum((x - m) ** 2 for x in v) / (len(v) - 1))


def gm_ci(logs, conf=CONF):
    n, m, s = len(logs), mean(logs), sd(logs)
    half = t_q(0.5 * (1 + conf), n - 1) * s / math.sqrt(n)
    return math.exp(m), math.exp(m - half), math.exp(m + half)


def halfwidth(logs):
    g, lo, hi = gm_ci(logs)
    return max(hi / g - 1, 1 - lo / g)


def floors(s_e, s_f, n):
    ve, vf = s_e * s_e, s_f * s_f
    return math.sqrt((ve + vf) / 4), (ve + vf) ** 2 / ((ve * ve + vf * vf) / (n - 1))


def mde(sigma0, n, theta=THETA, power=0.8, confirm=True, conf=CONF):
    pi = math.sqrt(power) if confirm else power
    k = (t_q(0.5 * (1 + conf), n - 1) + t_q(pi, n - 1)) * sigma0 / math.sqrt(n)
    return math.exp(math.log(1 + theta) + k) - 1, 1 - math.exp(-(-math.log(1 - theta) + k))


def needed(mean_log, sd_log, n, theta=THETA, conf=CONF, cap=60):
    up, down = math.log(1 + theta), -math.log(1 - theta)
    if mean_log > up:
        g = mean_log - up
    elif mean_log < -down:
        g = -down - mean_log
    else:
        g = min(up - mean_log, mean_log + down)
    if g <= 0:
        return None
    for big_n in range(2, 10 * cap + 1):  # the plain scan: no lower bound, no iteration
        if t_q(0.5 * (1 + conf), big_n - 1) * sd_log / math.sqrt(big_n) < g:
            return max(big_n - n, 0)
    return None


EARLY_SPEND = 0.1  # the share of alpha/2 a block's early looks spend together


def false_alarm(m, conf=CONF, confirm=True):
    p = (1 - conf) / 2 * (1 + EARLY_SPEND)
    p = p * p if confirm else p
    return 1 - (1 - p) ** m


# --- when a block stops (§3.13) ---------------------------------------------------------------

def moments(x):
    n = len(x)
    m = sum(x) / n
    return m, math.sqrt(sum((v - m) ** 2 for v in x) / (n - 1)), n


def reach(x, n, conf=CONF):
    m, s, _ = moments(x)
    h = t_q(0.5 * (1 + conf), n - 1) * s / math.sqrt(n)
    return max(math.exp(m + h) - 1, 1 - math.exp(m - h))


def gate_threshold(e, f, theta=THETA, conf=CONF):
    return max(theta, reach(e, len(e), conf), reach(f, len(f), conf))


def clears(m, h, t):
    return m - h > math.log1p(t) or (t < 1 and m + h < math.log1p(-t))


def decided_early(d, e, f, looks, theta=THETA, conf=CONF):
    m, s, n = moments(d)
    a = (1 - conf) / 2 * EARLY_SPEND / looks
    h = t_q(1 - a, n - 1) * s / math.sqrt(n)
    return clears(m, h, gate_threshold(e, f, theta, conf)), h


def futile(d, e, f, cap, theta=THETA, conf=CONF):
    m, s, n = moments(d)
    cap = max(cap, n)
    r = max(reach(e, cap, conf), reach(f, cap, conf))
    if r <= theta:
        return False, r
    return not clears(m, t_q(0.5 * (1 + conf), cap - 1) * s / math.sqrt(cap), r), r


def welch(dc, dr, conf=CONF):
    vc, vr = sd(dc) ** 2 / len(dc), sd(dr) ** 2 / len(dr)
    df = (vc + vr) ** 2 / (vc * vc / (len(dc) - 1) + vr * vr / (len(dr) - 1))
    delta = mean(dc) - mean(dr)
    half = t_q(0.5 * (1 + conf), df) * math.sqrt(vc + vr)
    return math.exp(delta), math.exp(delta - half), math.exp(delta + half), df


def block(b, h, h2, b2):
    """The figures of one block from its quads (kept repeats k = 0, 1, ...)."""
    n = len(b)
    sign = [1 if k % 4 in (0, 1) else -1 for k in range(n)]
    d = [0.5 * math.log(h[i] * h2[i]) - 0.5 * math.log(b[i] * b2[i]) for i in range(n)]
    e = [sign[i] * math.log(b2[i] / b[i]) for i in range(n)]
    f = [sign[i] * math.log(h2[i] / h[i]) for i in range(n)]
    s0, nu0 = floors(sd(e), sd(f), n)
    return dict(n=n, d=d, e=e, f=f, gm=gm_ci(d), aa=gm_ci(e), bb=gm_ci(f), aa_hw=halfwidth(e),
                bb_hw=halfwidth(f), sigma0=s0, nu0=nu0, mde=mde(s0, n), sd_d=sd(d), mean_d=mean(d))


# --- the effect, the looks and the stops of §3.13 (brute force, no recursion shared with C++) ----

def pairs(b, h, h2, b2):
    """The pair log ratios of a block: ln(h/b), ln(h'/b') of each quad."""
    out = []
    for i in range(len(b)):
        out += [math.log(h[i] / b[i]), math.log(h2[i] / b2[i])]
    return out


def signed_rank_null(n):
    """P0(T+ <= c) for c = 0..n(n+1)/2, by enumerating all 2^n sign patterns of ranks 1..n."""
    top = n * (n + 1) // 2
    count = [0] * (top + 1)
    for pattern in range(2 ** n):
        count[sum(r + 1 for r in range(n) if pattern >> r & 1)] += 1
    cdf, acc = [], 0
    for c in count:
        acc += c
        cdf.append(acc / 2 ** n)
    return cdf


def shift(x, tail):
    """Hodges-Lehmann estimate and the signed-rank interval [W_(k), W_(M+1-k)] at one-sided tail."""
    n = len(x)
    walsh = sorted((x[i] + x[j]) / 2 for i in range(n) for j in range(i, n))
    m = len(walsh)
    est = walsh[m // 2] if m % 2 else (walsh[m // 2 - 1] + walsh[m // 2]) / 2
    cdf = signed_rank_null(n)
    k = 0
    while k < len(cdf) and cdf[k] <= tail:
        k += 1  # P0(T+ <= k - 1) <= tail for the k found
    if k == 0:
        return est, -math.inf, math.inf, None
    return est, walsh[k - 1], walsh[m - k], 1 - 2 * cdf[k - 1]


def verdict(est, lo, hi, theta=THETA):
    up, down = math.log1p(theta), math.log1p(-theta)
    if lo > 0 and est > up:
        return "slower"
    if hi < 0 and est < down:
        return "faster"
    if down <= lo and hi <= up:
        return "equivalent"
    return "inconclusive"


def looks(first, cap, conf=CONF, sequential=True):
    half = (1 - conf) / 2
    if not sequential or first >= cap:
        return [(cap, half)]
    q, at = first, []
    while q < cap:
        at.append(q)
        q *= 2
    at.append(cap)
    return [(at[0], half / 2)] + [(a, half / 2 / (len(at) - 1)) for a in at[1:]]


def gammainc_lower(a, x):
    """Regularized lower incomplete gamma P(a, x) (series, or the continued fraction)."""
    if x <= 0:
        return 0.0
    gln = math.lgamma(a)
    if x < a + 1:
        ap, total, delta = a, 1.0 / a, 1.0 / a
        for _ in range(100000):
            ap += 1
            delta *= x / ap
            total += delta
            if abs(delta) < abs(total) * 1e-16:
                break
        return total * math.exp(-x + a * math.log(x) - gln)
    b, c, d = x + 1 - a, 1 / 1e-300, 1 / (x + 1 - a)
    h = d
    for i in range(1, 100000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1 / (d if abs(d) > 1e-300 else 1e-300)
        c = b + an / c
        c = c if abs(c) > 1e-300 else 1e-300
        h *= d * c
        if abs(d * c - 1) < 1e-16:
            break
    return 1 - math.exp(-x + a * math.log(x) - gln) * h


def chi2_upper_q(p, k):
    """The x with P(chi2_k > x) = p."""
    return bisect(lambda x: gammainc_lower(k / 2, x / 2), 1 - p, 0.0, 1e4)


def futile_new(x, cap_pairs, tail, theta=THETA):
    n = len(x)
    m = mean(x)
    sdv = sd(x)
    med = statistics_median(x)
    madv = statistics_median([abs(v - med) for v in x])
    spread = min(sdv, 1.482602218505602 * madv)
    optimistic = spread * math.sqrt((n - 1) / chi2_upper_q(0.10, n - 1))
    h = NormalDist().inv_cdf(1 - tail) * optimistic / math.sqrt(max(cap_pairs, n))
    est = shift(x, tail)[0]
    up, down = math.log1p(theta), math.log1p(-theta)
    slower = est > up and est - h > 0
    faster = est < down and est + h < 0
    within = down <= est - h and est + h <= up
    return not (slower or faster or within), h


def statistics_median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def mde_new(sigma0, n, tail, theta=THETA, power=0.8, confirm=False):
    per = math.sqrt(power) if confirm else power
    u = sigma0 / math.sqrt(n)
    q, push = t_q(1 - tail, n - 1) * u, t_q(per, n - 1) * u
    return (math.expm1(max(math.log1p(theta), q) + push),
            -math.expm1(-(max(-math.log1p(-theta), q) + push)))


def needed_new(mean_log, sd_log, n, theta=THETA, conf=CONF, cap=60):
    up, down = math.log1p(theta), -math.log1p(-theta)
    if mean_log > up:
        g = mean_log
    elif mean_log < -down:
        g = -mean_log
    else:
        g = min(up - mean_log, mean_log + down)
    if g <= 0:
        return None
    for big in range(2, 10 * cap + 1):
        if t_q(0.5 + conf / 2, big - 1) * sd_log / math.sqrt(big) < g:
            return max(0, big - n)
    return None


# --- the test data (the same lists as analysis_gate_test.cpp) ---------------------------------

SLOWED = ([100.0, 101.2, 99.1, 100.6, 99.7, 100.9, 100.3, 99.5],
          [150.9, 149.2, 150.4, 151.1, 149.6, 150.2, 149.9, 150.7],
          [150.1, 150.8, 149.5, 150.3, 150.6, 149.4, 151.0, 149.8],
          [100.4, 100.1, 99.8, 101.0, 100.2, 99.6, 100.8, 99.9])
STEADY = ([200.0, 200.4, 199.6, 200.2, 199.8, 200.3, 199.9, 200.1],
          [200.2, 199.7, 200.3, 199.9, 200.1, 200.4, 199.8, 200.0],
          [199.9, 200.1, 200.2, 199.6, 200.3, 199.9, 200.2, 199.8],
          [200.1, 199.8, 200.0, 200.3, 199.7, 200.2, 200.0, 199.9])
BUSY_SLOWED = ([101.0, 99.2, 100.8, 98.9, 100.5, 99.6, 101.3, 99.0],
               [181.5, 178.9, 180.7, 179.4, 181.9, 178.6, 180.2, 179.9],
               [179.6, 181.2, 178.8, 181.0, 179.3, 180.9, 179.1, 180.6],
               [99.5, 100.9, 99.3, 101.1, 99.8, 100.4, 98.8, 100.7])
BUSY_STEADY = ([200.5, 199.4, 200.6, 199.7, 200.3, 199.5, 200.4, 199.8],
               [200.3, 199.6, 200.7, 199.5, 200.2, 199.9, 200.6, 199.4],
               [199.8, 200.4, 199.6, 200.5, 199.7, 200.3, 199.5, 200.6],
               [199.6, 200.5, 199.8, 200.4, 199.9, 200.2, 199.7, 200.3])
FLAKY = ([100.0, 100.1, 99.9, 100.0, 100.1, 99.9],
         [103.0, 101.0, 105.0, 102.0, 104.5, 100.8],
         [103.1, 100.9, 105.1, 101.9, 104.4, 100.9],
         [100.1, 100.0, 100.0, 99.9, 100.0, 100.1])
NOISY = ([100.0, 100.2, 99.9, 100.1, 100.0, 99.8, 100.2, 100.0],
         [150.2, 149.8, 150.1, 150.0, 149.9, 150.3, 150.0, 150.1],
         [150.0, 150.1, 149.9, 150.2, 150.1, 149.8, 150.2, 149.9],
         [104.0, 95.5, 103.2, 96.1, 105.0, 94.8, 103.5, 96.5])


def show(name, value):
    print(f"{name:44s} {value!r}")


def main():
    print("# stats_gate_test.cpp")
    show("t(0.975, 5)", t_q(0.975, 5))
    s0, nu0 = floors(0.02, 0.01, 10)
    show("combine_floors(0.02, 0.01, 10).sigma0", s0)
    show("combine_floors(0.02, 0.01, 10).nu0", nu0)
    show("mde(0.01, 6, 2%, 0.8, confirm).slower", mde(0.01, 6)[0])
    show("mde(0.01, 6, 2%, 0.8, confirm).faster", mde(0.01, 6)[1])
    show("mde(0.01, 6, 2%, 0.8, no confirm).slower", mde(0.01, 6, confirm=False)[0])
    show("mde(0, 6, 2%) slower = faster = θ", mde(0.0, 6))
    show("needed(ln 1.03, 0.02, 6)", needed(math.log(1.03), 0.02, 6))
    show("needed(ln 1.005, 0.01, 6) (within noise)", needed(math.log(1.005), 0.01, 6))
    show("needed(-ln 1.03, 0.02, 6) (faster)", needed(-math.log(1.03), 0.02, 6))
    show("needed(mean, s, 2): s/g = 1/2", needed(math.log(1.02) + 0.02, 0.01, 2))
    show("needed(ln 1.0201, 0.02, 6, cap 60)", needed(math.log(1.0201), 0.02, 6))
    for m in (2, 20, 80):
        show(f"false_alarm_bound({m}, confirm)", false_alarm(m))
    show("false_alarm_bound(20, no confirm)", false_alarm(20, confirm=False))
    show("false_alarm_row(confirm)", false_alarm(1))
    show("false_alarm_row(no confirm)", false_alarm(1, confirm=False))
    ED = [math.log(x) for x in (1.12, 1.09, 1.15, 1.10, 1.13, 1.08)]
    EE = [0.010, -0.020, 0.015, -0.005, 0.012, -0.018]
    EF = [-0.011, 0.017, -0.009, 0.004, 0.021, -0.013]
    show("gate_threshold(EE, EF)", gate_threshold(EE, EF))
    show("decided_early(ED, EE, EF, looks 14) (decided, log half-width)", decided_early(ED, EE, EF, 14))
    show("decided_early(ED, EE, EF, looks 54)", decided_early(ED, EE, EF, 54))
    EW = [0.06, -0.05, 0.04, -0.06, 0.05, -0.04]
    show("gate_threshold(EW, EF): the wide floor's reach", gate_threshold(EW, EF))
    show("decided_early(ED, EW, EF, looks 14)", decided_early(ED, EW, EF, 14))
    FD = [math.log(x) for x in (1.01, 0.99, 1.00, 1.02, 0.98, 1.00)]
    show("futile(FD, EW, EW, cap 20) (futile, projected reach)", futile(FD, EW, EW, 20))
    show("futile(FD, EW, EW, cap 60)", futile(FD, EW, EW, 60))
    show("futile(FD, EE, EF, cap 20)", futile(FD, EE, EF, 20))
    c = [math.log(x) for x in (1.21, 1.18, 1.23, 1.19, 1.20, 1.22)]
    r = [math.log(x) for x in (1.01, 0.99, 1.00, 1.02, 0.98, 1.00, 1.01, 0.99)]
    w = welch(c, r)
    show("interaction ratio", w[0])
    show("interaction lo", w[1])
    show("interaction hi", w[2])
    show("interaction df", w[3])
    show("F(0.99; 5, 12)", f_q(0.99, 5, 12))
    show("excess: s_d 0.03, σ0 0.01, ν0 12, n 6", 3.0 if 9.0 > f_q(0.99, 5, 12) else None)
    show("excess: s_d 0.02, σ0 0.01 (4 < F?)", 2.0 if 4.0 > f_q(0.99, 5, 12) else None)

    print("\n# analysis_gate_test.cpp")
    s = block(*SLOWED)
    show("slowed gm", s["gm"][0])
    show("slowed lo", s["gm"][1])
    show("slowed hi", s["gm"][2])
    show("slowed aa gm", s["aa"][0])
    show("slowed aa halfwidth", s["aa_hw"])
    show("slowed bb halfwidth", s["bb_hw"])
    show("slowed sigma0", s["sigma0"])
    show("slowed nu0", s["nu0"])
    show("slowed mde slower", s["mde"][0])
    show("slowed mde faster", s["mde"][1])
    show("slowed sd_d", s["sd_d"])
    st = block(*STEADY)
    show("steady gm", st["gm"][0])
    show("steady lo", st["gm"][1])
    show("steady hi", st["gm"][2])
    fl = block(*FLAKY)
    show("flaky gm", fl["gm"][0])
    show("flaky lo", fl["gm"][1])
    show("flaky hi", fl["gm"][2])
    show("flaky aa halfwidth", fl["aa_hw"])
    show("flaky bb halfwidth", fl["bb_hw"])
    f99 = f_q(0.99, fl["n"] - 1, fl["nu0"])
    show("flaky s_d/sigma0", fl["sd_d"] / fl["sigma0"])
    show("flaky F(0.99; n-1, nu0)", f99)
    show("flaky needs more", needed(fl["mean_d"], fl["sd_d"], fl["n"]))
    no = block(*NOISY)
    show("noisy gm", no["gm"][0])
    show("noisy lo", no["gm"][1])
    show("noisy aa", no["aa"])
    show("noisy aa halfwidth", no["aa_hw"])
    show("noisy needs more (0: d alone decides)", needed(no["mean_d"], no["sd_d"], no["n"]))
    bs = block(*BUSY_SLOWED)
    w = welch(bs["d"], s["d"])
    show("contention Slowed ratio", w[0])
    show("contention Slowed lo", w[1])
    show("contention Slowed hi", w[2])
    show("contention Slowed df", w[3])
    bst = block(*BUSY_STEADY)
    w = welch(bst["d"], st["d"])
    show("contention Steady ratio", w[0])
    show("contention Steady lo", w[1])
    show("contention Steady hi", w[2])
    show("false alarm, 2 gating rows", false_alarm(2))


if __name__ == "__main__":
    main()
