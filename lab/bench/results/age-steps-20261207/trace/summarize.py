#!/usr/bin/env python3
# Per half second of a q0trace.sh run: DAMON regions holding the sampled
# frames of the cold part (busy: access seen in the window; idle, and of
# those at least 50 windows = 5 s old), and the damos_before_apply
# events: regions, their bytes, sampled cold frames in them.
#   summarize.py <run dir of q0trace.sh>
import re, sys, bisect, collections
d = sys.argv[1]
t0 = float(open(d + '/t_fill_start').read().split()[0])
t1 = float(open(d + '/t_fill_end').read().split()[0])
pfns = sorted(int(l.split()[1], 16) for l in open(d + '/coldpfns.txt'))
print('fill %.1f s; cold sample frames %d, pa %x-%x' % (t1 - t0, len(pfns), pfns[0], pfns[-1]))
rx = re.compile(r'\s(\d+\.\d+): (damon_aggregated|damos_before_apply): .* nr_regions=(\d+) (\d+)-(\d+): (\d+) (\d+)')
agg = collections.defaultdict(list)   # second -> list of (start,end,nr,age)
app = collections.defaultdict(list)
for line in open(d + '/trace.txt'):
    m = rx.search(line)
    if not m:
        continue
    ts = float(m.group(1)) - t0
    rec = (int(m.group(4)), int(m.group(5)), int(m.group(6)), int(m.group(7)), int(m.group(3)))
    (agg if m.group(2) == 'damon_aggregated' else app)[int(ts * 2) / 2].append(rec)
def cold_in(s, e):
    return bisect.bisect_left(pfns, e) - bisect.bisect_left(pfns, s)
for sec in sorted(set(agg) | set(app)):
    a = agg.get(sec, [])
    # last window's regions of that half-second
    nr = a[-1][4] if a else 0
    cold_regs = [r for r in a[-nr:]] if nr else []
    cr = [r for r in cold_regs if cold_in(r[0], r[1])]
    ages = sorted(r[3] for r in cr if r[2] == 0)
    busy = sum(cold_in(r[0], r[1]) for r in cr if r[2] > 0)
    idle = [(cold_in(r[0], r[1]), r[3]) for r in cr if r[2] == 0]
    old = sum(n for n, age in idle if age >= 50)
    ap = app.get(sec, [])
    apb = sum(r[1] - r[0] for r in ap) >> 20
    apc = sum(cold_in(r[0], r[1]) for r in ap)
    print('%5.1f regions %4d cold-regions %4d | cold frames: busy %4d idle %4d (age>=50: %4d) max age %4s | applied %3d regions %5d MiB, cold frames %4d' % (
        sec, nr, len(cr), busy, sum(n for n, _ in idle), old, ages[-1] if ages else '-', len(ap), apb, apc))
