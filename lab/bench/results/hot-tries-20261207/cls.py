#!/usr/bin/env python3
"""Regions DAMON_RECLAIM applied pageout to after the fill (damos_before_apply),
with how many of the hot and cold frames sampled at the end of the fill each
holds.    cls.py <run dir of q0trace4.sh> > cls.txt"""
import bisect, re, sys
R = sys.argv[1]
t0 = float(open(R + '/t_fill_start').read().split()[0])
t1 = float(open(R + '/t_fill_end').read().split()[0])
hot, cold = [], []
for l in open(R + '/coldpfns.txt'):
    k, va, pa = l.split()
    (hot if k == 'hot' else cold).append(int(pa, 16))
hot.sort(); cold.sort()
def cnt(a, s, e): return bisect.bisect_left(a, e) - bisect.bisect_left(a, s)
rx = re.compile(r'\s(\d+\.\d+): damos_before_apply: .* (\d+)-(\d+): (\d+) (\d+)')
stats = []
for l in open(R + '/stats.txt'):
    f = l.split()
    if len(f) >= 5: stats.append((float(f[0]) - t0, int(f[2]), int(f[4])))
def st(t):
    best = None
    for x in stats:
        if x[0] <= t: best = x
    return best
print('fill ended at %.1f s; samples: hot %d cold %d (one per 64 KiB)' % (t1 - t0, len(hot), len(cold)))
for l in open(R + '/trace.txt'):
    m = rx.search(l)
    if not m: continue
    t = float(m.group(1)) - t0
    s, e = int(m.group(2)), int(m.group(3))
    if t < t1 - t0: continue
    h, c = cnt(hot, s, e), cnt(cold, s, e)
    print('%6.1f s  %#011x-%#011x %7.1f MiB acc %s age %4s  hot %5d cold %5d  other %5.0f%%' % (
        t, s, e, (e - s) / 2**20, m.group(4), m.group(5), h, c,
        100 - 100 * (h + c) * 65536 / max(e - s, 1)))
