#!/usr/bin/env python3
"""Per second of a q0trace3.sh run: aggregation windows that ended in it,
the longest, and the age of the region holding physical address 0x44ed8000.
    windows.py <run dir of q0trace3.sh> > windows.txt"""
import collections
import re
import sys

R = sys.argv[1]
t0 = float(open(R + '/t_fill_start').read().split()[0])
t1 = float(open(R + '/t_fill_end').read().split()[0])
rx = re.compile(r'\s(\d+\.\d+): damon_aggregated: .* nr_regions=(\d+) '
                r'(\d+)-(\d+): (\d+) (\d+)')
ADDR = 0x44ed8000
ends, ages, last = [], {}, None
for line in open(R + '/trace.txt'):
    m = rx.search(line)
    if not m:
        continue
    t = float(m.group(1)) - t0
    # The regions of one window are traced together, within microseconds.
    if last is None or t - last > 0.02:
        ends.append(t)
    last = t
    s, e = int(m.group(3)), int(m.group(4))
    if s <= ADDR < e:
        ages[round(ends[-1], 2)] = int(m.group(6))
print('# Aggregation windows of a quota_ms 0 run of hotcold at 7a63b72 (trace of')
print('# damon:damon_aggregated), seconds from the start of the fill; the fill')
print('# ended at %.1f s.  For each second: windows that ended in it, the longest' % (t1 - t0))
print('# window, and the age of the region holding physical address 0x44ed8000')
print('# (cold data written at about 23 s) at its last window.')
per = collections.defaultdict(list)
for a, b in zip(ends, ends[1:]):
    per[int(b)].append(b - a)
for sec in sorted(per):
    if sec < 20 or sec > 62:
        continue
    agek = [k for k in ages if int(k) == sec]
    print('%3d s: %2d windows, longest %.2f s, age %s' % (
        sec, len(per[sec]), max(per[sec]), ages[max(agek)] if agek else '-'))
