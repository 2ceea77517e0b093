#!/usr/bin/env python3
"""A simulation of the gate's candidate rules against the seed's loop (harness/stats/README.md §3.13).

Usage: python3 scripts/gate-sim.py [TRIALS]      (default 1000; the README quotes TRIALS=400, seed 1)

Rooms: `still` (log-normal noise of SD sigma per run), `bimodal` (the run's speed switches between
1x and 2x with probability 1/sojourn per run: a virtual CPU at half speed at moments). Per room and
true ratio r, each trial draws the loop (old, new alternated 10 times; Mann-Whitney at 5% two-sided,
"slower" when significant and the new median is higher: benchstat's test) and, in a fresh room of
the same kind, nq quads (b h h' b' / h b b' h'), which every rule reads:
  quad_t_margin  the t interval of the quads' log effects must clear ln(1 + theta) (the gate before)
  quad_t, pair_t the t interval above 0 and the mean beyond ln(1 + theta), on quads or pairs
  quad_sr        the signed-rank test of the quads at 2.5% one-sided, the median beyond theta
  pair_sr        the same on the pairs: the rule the gate uses
  pair_sr0       pair_sr without the theta condition
Pure Python, no numpy; a seeded generator, so a run repeats exactly.
"""
import random, math, statistics, sys
from functools import lru_cache

@lru_cache(None)
def sr_dist(n):
    # counts of W+ values for n ranks
    maxw = n*(n+1)//2
    c = [0]*(maxw+1); c[0]=1
    for k in range(1,n+1):
        nc = c[:]
        for w in range(maxw - k, -1, -1):
            if c[w]: nc[w+k] += c[w]
        c = nc
    tot = 2**n
    cdf=[];s=0
    for x in c: s+=x; cdf.append(s/tot)
    return cdf

def sr_upper_p(d):
    # one-sided p for W+ large (d>0 means slower); ignores zeros
    d=[x for x in d if x!=0]
    n=len(d)
    if n==0: return 1.0
    order=sorted(range(n), key=lambda i: abs(d[i]))
    ranks=[0]*n
    i=0
    while i<n:
        j=i
        while j+1<n and abs(d[order[j+1]])==abs(d[order[i]]): j+=1
        r=(i+j)/2+1
        for k in range(i,j+1): ranks[order[k]]=r
        i=j+1
    wp=sum(r for r,x in zip(ranks,d) if x>0)
    cdf=sr_dist(n)
    maxw=n*(n+1)//2
    # P(W+ >= wp) = P(W+ <= maxw - wp)
    k=math.floor(maxw-wp+1e-9)
    return cdf[k] if k>=0 else 0.0

def mw_slower(old,new):
    # benchstat-like: two-sided 0.05 MW (normal approx with continuity), direction by medians
    n1,n2=len(old),len(new)
    allv=sorted([(v,0) for v in old]+[(v,1) for v in new])
    ranks={}
    i=0;R2=0
    vals=[v for v,_ in allv]
    rk=[0]*len(allv)
    while i<len(allv):
        j=i
        while j+1<len(allv) and vals[j+1]==vals[i]: j+=1
        for k in range(i,j+1): rk[k]=(i+j)/2+1
        i=j+1
    R2=sum(r for r,(v,s) in zip(rk,allv) if s==1)
    U2=R2-n2*(n2+1)/2
    mu=n1*n2/2; sd=math.sqrt(n1*n2*(n1+n2+1)/12)
    z=(abs(U2-mu)-0.5)/sd
    p=math.erfc(z/math.sqrt(2))
    return p<0.05 and statistics.median(new)>statistics.median(old)

T975={}
def tq(df):
    # approx t quantile 0.975 via table
    tab={1:12.706,2:4.303,3:3.182,4:2.776,5:2.571,6:2.447,7:2.365,8:2.306,9:2.262,10:2.228,11:2.201,12:2.179,13:2.160,14:2.145,15:2.131,16:2.120,17:2.110,18:2.101,19:2.093,20:2.086,21:2.080,22:2.074,23:2.069,24:2.064,25:2.060,26:2.056,27:2.052,28:2.048,29:2.045,30:2.042}
    return tab.get(df, 1.96+2.4/df)

class Room:
    def __init__(s, kind, sigma=0.03, sojourn=15, rng=None):
        s.kind=kind; s.sigma=sigma; s.sojourn=sojourn; s.rng=rng; s.state=1.0; s.t=0
    def factor(s):
        s.t+=1
        if s.kind=='bimodal':
            if s.rng.random()<1.0/s.sojourn: s.state = 2.0 if s.state==1.0 else 1.0
            return s.state
        if s.kind=='drift':
            return 1.0+0.002*s.t
        return 1.0
    def run(s, true):
        return true*s.factor()*math.exp(s.rng.gauss(0,s.sigma))

def loop(room, r):
    old=[];new=[]
    for k in range(10):
        old.append(room.run(1.0)); new.append(room.run(r))
    return mw_slower(old,new)

def quads(room, r, n):
    Q=[]
    for k in range(n):
        abba = (k%4) in (0,3)
        if abba: b=room.run(1);h=room.run(r);h2=room.run(r);b2=room.run(1)
        else: h=room.run(r);b=room.run(1);b2=room.run(1);h2=room.run(r)
        Q.append((b,h,h2,b2))
    return Q

def gate_rule(Q, rule, theta=0.02):
    pairs=[]; dq=[]
    for b,h,h2,b2 in Q:
        pairs += [math.log(h/b), math.log(h2/b2)]
        dq.append(0.5*math.log(h*h2/(b*b2)))
    if rule=='quad_t_margin':
        x=dq
    elif rule.startswith('pair'):
        x=pairs
    else:
        x=dq
    n=len(x); m=statistics.mean(x); s=statistics.stdev(x)
    lo=m - tq(n-1)*s/math.sqrt(n)
    if rule=='quad_t_margin': return lo>math.log1p(theta)
    if rule in ('quad_t','pair_t'): return lo>0 and m>math.log1p(theta)
    if rule in ('quad_t0','pair_t0'): return lo>0
    if rule in ('quad_sr','pair_sr'):
        return sr_upper_p(x)<0.025 and statistics.median(x)>math.log1p(theta)
    if rule in ('quad_sr0','pair_sr0'):
        return sr_upper_p(x)<0.025

def experiment(kind, r, nq, rules, trials=2000, seed=1, sigma=0.03, sojourn=15):
    rng=random.Random(seed)
    hits={k:0 for k in ['loop']+rules}
    for t in range(trials):
        room=Room(kind, sigma, sojourn, rng)
        if loop(room,r): hits['loop']+=1
        room=Room(kind, sigma, sojourn, rng)
        Q=quads(room,r,nq)
        for rule in rules:
            if gate_rule(Q,rule): hits[rule]+=1
    return {k:v/trials for k,v in hits.items()}

if __name__=='__main__':
    rules = ["quad_t_margin", "quad_t", "pair_t", "quad_sr", "pair_sr", "pair_sr0"]
    for kind,sig,soj in [('still',0.03,15),('still',0.08,15),('bimodal',0.03,15),('bimodal',0.03,40)]:
        for nq in (5,6,7):
            for r in (1.0,1.05,1.10,1.5):
                res=experiment(kind,r,nq,rules,trials=int(sys.argv[1]) if len(sys.argv)>1 else 1000,sigma=sig,sojourn=soj)
                print(kind,sig,soj,'nq',nq,'r',r,' '.join(f'{k}={v:.3f}' for k,v in res.items()),flush=True)
