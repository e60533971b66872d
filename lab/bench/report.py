#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Table and plots of a benchmark run of lab/bench/run.

    report.py RESULTS_DIR

Reads RESULTS_DIR/meta.txt and RESULTS_DIR/raw/<workload>/<variant>/run<N>/
(result.txt, timeline.csv, reclaimer.txt) and RESULTS_DIR/raw/scaling/, and
writes RESULTS_DIR/results.md, results.csv, runs.csv and plots/*.png.

Windows (see guest.sh and monitor.c): phase 0 is the workload's set-up
(filling its memory), phase 1 the measured phase, phase 2 what follows
(the check that reads everything back).  Costs and counters are taken from
the start of the workload to the end of phase 1; memory in use is averaged
over phase 1 and "final" is its last sample.
"""
import colorsys
import csv
import math
import os
import re
import statistics
import sys

CLK_TCK = os.sysconf('SC_CLK_TCK')
PAGE = 4096
MIB = 1 << 20
# Two identical TCG runs have differed by this much: with fewer than three
# runs, a smaller difference is called noise.
TCG_NOISE = 0.30
VARIANT_ORDER = ['none', 'ours-ref', 'ours', 'upstream', 'upstream-fixed',
                 'kstaled', 'pressure', 'ours-ref-noquota', 'ours-noquota',
                 'floor']
VARIANT_LABEL = {
    'none': 'no reclaim',
    'ours': 'ours (DAMON_RECLAIM)',
    'ours-ref': 'ours, reference kernel',
    'upstream': 'upstream as shipped',
    'upstream-fixed': 'upstream + fix',
    'kstaled': 'kstaled-style full scan',
    'pressure': 'memory.reclaim + PSI',
    'ours-noquota': 'ours, quota_ms 0',
    'ours-ref-noquota': 'ours, reference kernel, quota_ms 0',
    'floor': 'floor: oracle MADV_PAGEOUT, the kernel\'s own swap-out',
}
# One colour per variant, the same in every figure (matplotlib's "tab"
# colours).  Ours and ours with quota_ms 0 are two blues, upstream as
# shipped and upstream + fix red and orange, the baseline grey, the floor
# (the kernel's own swap-out, no reclaimer) black.
VARIANT_COLOR = {
    'none': '#7f7f7f',
    'ours': '#1f77b4',
    'ours-ref': '#8c564b',
    'upstream': '#d62728',
    'upstream-fixed': '#ff7f0e',
    'kstaled': '#2ca02c',
    'pressure': '#9467bd',
    'ours-noquota': '#17becf',
    'ours-ref-noquota': '#e377c2',
    'floor': '#000000',
}
# Variants not in the map (BENCH_* experiments) take these, by name.
SPARE_COLORS = ['#bcbd22', '#8c6d31', '#7f7f7f']
# The variants that run DAMON_RECLAIM with the quota_ms of the run.
QUOTA_VARIANTS = ('ours', 'ours-ref', 'upstream', 'upstream-fixed')
# All that run DAMON_RECLAIM, but the ours-q<N> and ours-ref-q<N>.
DAMON_VARIANTS = QUOTA_VARIANTS + ('ours-noquota', 'ours-ref-noquota')
# ours-q<N> and ours-ref-q<N>: ours, and ours on the reference kernel, with
# quota_ms N instead of the run's (lab/bench/run checks N; guest.sh reads
# it from the name).  Ordered right after ours (ours-ref), by N.
QUOTA_NAME = re.compile(r'^(ours|ours-ref)-q(0|[1-9][0-9]*)$')
# Their colours: blues for ours, browns and purples for ours-ref, one per
# distinct N of the results folder (set_quota_colors()), the smallest N
# first; beyond the list, hues a golden angle apart.
QUOTA_COLORS = {
    'ours': ['#393b79', '#6baed6', '#6b6ecf', '#08306b', '#9c9ede',
             '#3182bd'],
    'ours-ref': ['#843c39', '#d6616b', '#7b4173', '#ce6dbd', '#ad494a',
                 '#a55194'],
}
# The distinct N of the ours-q<N> and ours-ref-q<N> of the folder, sorted.
QUOTA_NS = []


def quota_variant(v):
    """(base, N) of ours-q<N> and ours-ref-q<N>, else None."""
    m = QUOTA_NAME.match(v)
    return (m.group(1), int(m.group(2))) if m else None


def set_quota_colors(variants):
    """Numbers the distinct N of the quota variants among @variants, so
    that each N has a colour of its own, the same in every figure."""
    QUOTA_NS[:] = sorted({q[1] for q in map(quota_variant, variants) if q})


def color(v):
    if v in VARIANT_COLOR:
        return VARIANT_COLOR[v]
    q = quota_variant(v)
    if q:
        base, n = q
        i = sorted(set(QUOTA_NS) | {n}).index(n)
        colors = QUOTA_COLORS[base]
        if i < len(colors):
            return colors[i]
        r, g, b = colorsys.hls_to_rgb((0.6 + 0.381966 * i) % 1.0,
                                      0.4 if base == 'ours' else 0.6, 0.6)
        return '#%02x%02x%02x' % (round(r * 255), round(g * 255),
                                  round(b * 255))
    return SPARE_COLORS[sum(map(ord, v)) % len(SPARE_COLORS)]


def run_quota_ms(meta):
    """quota_ms of the run, from the params line of meta.txt, or None."""
    words = meta.get('params', '').replace(',', ' ').split()
    for i, w in enumerate(words[:-1]):
        if w == 'quota_ms':
            return words[i + 1]
    return None


def variant_label(v):
    """Name of a variant in the tables."""
    q = quota_variant(v)
    if q:
        return '%s, quota_ms %d' % ({'ours': 'ours', 'ours-ref':
                                     'ours, reference kernel'}[q[0]], q[1])
    return VARIANT_LABEL.get(v, v)


def plot_label(v, quota):
    """Name of a variant in the plots: with the quota it ran with."""
    if v == 'ours-noquota':
        return 'ours, quota_ms 0'
    if v == 'ours-ref-noquota':
        return 'ours (ref), quota_ms 0'
    q = quota_variant(v)
    if q:
        return '%s, quota_ms %d' % ({'ours': 'ours', 'ours-ref':
                                     'ours (ref)'}[q[0]], q[1])
    label = {'ours': 'ours', 'ours-ref': 'ours (ref)'}.get(
        v, VARIANT_LABEL.get(v, v))
    if quota is not None and v in QUOTA_VARIANTS:
        label += ', quota_ms %s' % quota
    elif quota is not None and v == 'pressure':
        label += ', budget %s ms' % quota
    return label


def read_lines(path):
    try:
        with open(path) as f:
            return [line.rstrip('\n') for line in f]
    except OSError:
        return []


def read_kv(path, sep='='):
    out = {}
    for line in read_lines(path):
        if sep == ' ':
            parts = line.split(None, 1)
        else:
            parts = line.split(sep, 1)
        if len(parts) == 2:
            out[parts[0].strip()] = parts[1].strip()
    return out


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def read_timeline(path):
    rows = []
    try:
        with open(path) as f:
            for r in csv.DictReader(f):
                rows.append({k: num(v) for k, v in r.items()})
    except OSError:
        pass
    return rows


def delta(a, b, key):
    """b[key] - a[key], None when either is missing (-1)."""
    x, y = a.get(key), b.get(key)
    if x is None or y is None or x < 0 or y < 0:
        return None
    return y - x


def reclaimer_ticks(a, b):
    """CPU ticks of the reclaimer from sample @a to sample @b.  A reclaimer
    process that did not exist yet at @a (no pid: floor's oracle starts
    after the fill) had used none."""
    if a.get('reclaimer_pid') is not None and a['reclaimer_pid'] < 0 and \
            a.get('reclaimer_ticks') is not None and \
            a['reclaimer_ticks'] < 0 and \
            b.get('reclaimer_pid') is not None and b['reclaimer_pid'] > 0:
        a = dict(a, reclaimer_ticks=0)
    return delta(a, b, 'reclaimer_ticks')


def run_metrics(run_dir, wss_mib=None, hot_pct=None):
    """Figures of one run, or None when it produced no timeline."""
    res = read_kv(os.path.join(run_dir, 'result.txt'))
    rows = read_timeline(os.path.join(run_dir, 'timeline.csv'))
    m = {'dir': run_dir, 'ok': res.get('lab_rc') == '0' and
         res.get('workload_check') == 'PASS',
         'check': res.get('workload_check', 'none'),
         'lab_rc': res.get('lab_rc')}
    m['throughput'] = num(res.get('throughput'))
    # floor: the CPU time per page of the oracle's first pass.
    m['floor_us_per_page'] = num(res.get('floor_us_per_page'))
    if m['floor_us_per_page']:
        m['floor_per_cpu_s'] = PAGE / (m['floor_us_per_page'] / 1e6)
    m['monitored_bytes'] = num(res.get('monitored_bytes'))
    if len(rows) < 2:
        return m
    start = rows[0]
    measured = [r for r in rows if r['phase'] == 1]
    after = [r for r in rows if r['phase'] >= 2]
    end = after[0] if after else rows[-1]
    window = measured + [end] if measured else [end]
    for r in rows:
        r['used'] = r['mem_total'] - r['mem_available']
    m['avg_used'] = statistics.mean(r['used'] for r in window)
    m['final_used'] = end['used']
    m['zram_pool'] = end['zram_pool'] if end['zram_pool'] >= 0 else 0
    m['cg_swap'] = end['cg_swap']
    m['cg_current'] = end['cg_current']
    dur = end['t_s'] - start['t_s']
    ticks = reclaimer_ticks(start, end)
    m['cpu_s'] = ticks / CLK_TCK if ticks is not None else None
    m['cpu_pct'] = 100.0 * m['cpu_s'] / dur if m['cpu_s'] is not None \
        and dur > 0 else None
    # CPU in the measured phase alone (the scaling runs use this).
    if measured:
        t = reclaimer_ticks(measured[0], end)
        d = end['t_s'] - measured[0]['t_s']
        m['cpu_pct_measured'] = 100.0 * t / CLK_TCK / d \
            if t is not None and d > 0 else None
    m['majflt'] = delta(start, end, 'pgmajfault')
    m['pswpin'] = delta(start, end, 'pswpin')
    m['pswpout_bytes'] = (delta(start, end, 'pswpout') or 0) * PAGE
    m['refaults'] = delta(start, end, 'refaults')
    # Each interrupts the workload; older timelines lack the column.
    m['tlb'] = delta(start, end, 'tlb_shootdowns')
    m['cal'] = delta(start, end, 'call_ipis')
    for key in ('tlb', 'cal'):
        if m[key] is not None and m['pswpout_bytes']:
            m[key + '_per_mib'] = m[key] / (m['pswpout_bytes'] / MIB)
    # A user-space reclaimer writes its counters after its first pass.
    for key, name in (('reclaimed_bytes', 'reclaimed'),
                      ('tried_bytes', 'tried')):
        first = next((r for r in rows if r[key] is not None and r[key] >= 0),
                     None)
        m[name] = None if first is None or end[key] is None or \
            end[key] < 0 else end[key] - (first[key] if first is start
                                           else 0)
    if m['reclaimed'] is not None and m['tried']:
        m['ratio'] = m['reclaimed'] / m['tried']
    if m['reclaimed'] is not None and m['cpu_s']:
        m['per_cpu_s'] = m['reclaimed'] / m['cpu_s']
    if wss_mib and hot_pct is not None and m['cg_swap'] is not None \
            and m['cg_swap'] >= 0:
        cold = wss_mib * MIB * (100 - hot_pct) / 100
        if cold > 0:
            m['cold_out_pct'] = 100.0 * m['cg_swap'] / cold
        if cold > 0 and measured:
            t0 = measured[0]['t_s']
            for r in rows:
                if r['t_s'] >= t0 and r['cg_swap'] is not None and \
                        r['cg_swap'] >= 0.95 * cold:
                    m['t95_s'] = r['t_s'] - t0
                    break
    m['timeline'] = rows
    m['fill_end_s'] = measured[0]['t_s'] if measured else None
    rstat = read_kv(os.path.join(run_dir, 'reclaimer.txt'), ' ')
    if rstat.get('scans') and num(rstat['scans']):
        m['scan_ms'] = num(rstat['scan_us']) / num(rstat['scans']) / 1000
    return m


def summarize(values):
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    return {'median': statistics.median(vals), 'min': min(vals),
            'max': max(vals), 'n': len(vals)}


def fmt(s, scale=1.0, digits=0, pct=False):
    if s is None:
        return '-'
    f = '{:.%df}' % digits
    med = f.format(s['median'] / scale)
    if s['n'] > 1 and s['min'] != s['max']:
        return '%s%s (%s–%s)' % (med, '%' if pct else '',
                                 f.format(s['min'] / scale),
                                 f.format(s['max'] / scale))
    return med + ('%' if pct else '')


def inside_noise(a, b):
    """Whether @a differs from the baseline @b by no more than the noise."""
    if a is None or b is None:
        return True
    if a['n'] >= 3 and b['n'] >= 3:
        return not (a['max'] < b['min'] or b['max'] < a['min'])
    base = abs(b['median'])
    return base == 0 or abs(a['median'] - b['median']) / base < TCG_NOISE


def order(variants):
    def key(v):
        q = quota_variant(v)
        base = q[0] if q else v
        return (VARIANT_ORDER.index(base) if base in VARIANT_ORDER else 99,
                q[1] if q else -1)
    return sorted(variants, key=key)


def by_count(counts, name, unit=''):
    """['3 of a, b', '1 of c'] from {a: 3, b: 3, c: 1}: keys in the order
    given, largest count first; name(key) spells a key, unit follows each
    group."""
    groups = {}
    for key, n in counts.items():
        groups.setdefault(n, []).append(name(key))
    return ['%d of %s%s' % (n, ', '.join(keys), unit)
            for n, keys in sorted(groups.items(), reverse=True)]


def runs_found(data, scaling):
    """What raw/ holds, as Markdown list items: runs per variant and
    workload, scaling runs per variant and size.  A folder filled in parts
    holds more than its first command says."""
    lines = []
    for workload in sorted(data):
        counts = {v: len(data[workload][v]) for v in order(data[workload])}
        lines.append('- Runs in this folder, %s: %s' %
                     (workload, '; '.join(by_count(counts, str))))
    if scaling:
        parts = []
        for v in order(scaling):
            per_size = {}
            for size, _ in scaling[v]:
                per_size[size] = per_size.get(size, 0) + 1
            parts.append('%s: %s' % (v, ', '.join(by_count(
                dict(sorted(per_size.items())), lambda s: '%g' % s, ' GiB'))))
        lines.append('- Scaling runs in this folder: ' + '; '.join(parts))
    return lines


def collect(out):
    meta = read_kv(os.path.join(out, 'meta.txt'))
    wss = hot = None
    w = meta.get('workload', '')
    try:
        wss = float(w.split(' MiB')[0])
        hot = float(w.split(', ')[1].split('%')[0])
    except (IndexError, ValueError):
        pass
    data = {}
    raw = os.path.join(out, 'raw')
    for workload in sorted(os.listdir(raw)) if os.path.isdir(raw) else []:
        if workload == 'scaling':
            continue
        for variant in os.listdir(os.path.join(raw, workload)):
            vdir = os.path.join(raw, workload, variant)
            for run in sorted(os.listdir(vdir)):
                m = run_metrics(os.path.join(vdir, run),
                                wss if workload == 'hotcold' else None, hot)
                m['run'] = run
                data.setdefault(workload, {}).setdefault(variant, []).append(m)
    # Scaling runs: raw/scaling/<size>G/<variant>/run<N>/, or the files
    # right in <variant>/ (one run, results from before --scaling-runs).
    scaling = {}
    sdir = os.path.join(raw, 'scaling')
    for size in os.listdir(sdir) if os.path.isdir(sdir) else []:
        for variant in os.listdir(os.path.join(sdir, size)):
            vdir = os.path.join(sdir, size, variant)
            runs = sorted(r for r in os.listdir(vdir) if r.startswith('run')
                          and os.path.isdir(os.path.join(vdir, r)))
            for run in runs or ['']:
                m = run_metrics(os.path.join(vdir, run))
                m['run'] = run or 'run1'
                scaling.setdefault(variant, []).append(
                    (float(size.rstrip('G')), m))
    return meta, data, scaling


METRICS = [
    # key, column title, scale, digits, percent
    ('throughput_rel', 'throughput vs none', 0.01, 0, True),
    ('avg_used', 'avg used MiB', MIB, 0, False),
    ('final_used', 'final used MiB', MIB, 0, False),
    ('saving_avg', 'avg saving MiB', MIB, 0, False),
    ('zram_pool', 'zram pool MiB', MIB, 0, False),
    ('cpu_pct', 'reclaimer CPU %', 1, 1, False),
    ('majflt', 'major faults', 1, 0, False),
    ('pswpin', 'swap-ins (pages)', 1, 0, False),
    ('reclaimed', 'reclaimed MiB', MIB, 0, False),
    ('tried', 'tried MiB', MIB, 0, False),
    ('ratio', 'reclaimed/tried', 0.01, 0, True),
    ('per_cpu_s', 'MiB per CPU-s', MIB, 0, False),
    ('pswpout_bytes', 'swapped out MiB', MIB, 0, False),
    ('cold_out_pct', 'cold part out', 1, 0, True),
    ('t95_s', '95% of cold out after s', 1, 0, False),
    ('tlb', 'TLB shootdowns', 1, 0, False),
    ('tlb_per_mib', 'TLB shootdowns per MiB out', 1, 1, False),
    ('cal', 'call IPIs', 1, 0, False),
    ('cal_per_mib', 'call IPIs per MiB out', 1, 1, False),
]


def add_relative(data):
    """Throughput and memory saving against the baseline's median."""
    for workload, variants in data.items():
        base = variants.get('none', [])
        bt = summarize([m.get('throughput') for m in base])
        bu = summarize([m.get('avg_used') for m in base])
        for runs in variants.values():
            for m in runs:
                if bt and m.get('throughput') is not None and bt['median']:
                    m['throughput_rel'] = m['throughput'] / bt['median']
                if bu and m.get('avg_used') is not None:
                    m['saving_avg'] = bu['median'] - m['avg_used']


def table(workload, variants):
    lines = ['| variant | runs ok | ' + ' | '.join(t for _, t, _, _, _ in
                                                     METRICS) + ' |',
             '|' + '---|' * (len(METRICS) + 2)]
    for v in order(variants):
        runs = variants[v]
        ok = sum(1 for m in runs if m['ok'])
        cells = [variant_label(v), '%d/%d' % (ok, len(runs))]
        for key, _, scale, digits, pct in METRICS:
            cells.append(fmt(summarize([m.get(key) for m in runs]), scale,
                             digits, pct))
        lines.append('| ' + ' | '.join(cells) + ' |')
    return '\n'.join(lines)


def noise_notes(workload, variants):
    notes = []
    base = variants.get('none')
    if not base:
        return notes
    bt = summarize([m.get('throughput') for m in base])
    bu = summarize([m.get('avg_used') for m in base])
    for v in order(variants):
        if v == 'none':
            continue
        runs = variants[v]
        t = summarize([m.get('throughput') for m in runs])
        u = summarize([m.get('avg_used') for m in runs])
        if t and bt:
            d = 100.0 * (t['median'] / bt['median'] - 1) if bt['median'] \
                else 0
            notes.append('- %s: throughput %+.0f%% against no reclaim: %s.'
                         % (variant_label(v), d,
                            'inside the noise' if inside_noise(t, bt)
                            else 'outside the noise'))
        if u and bu:
            d = (bu['median'] - u['median']) / MIB
            if u['n'] >= 3 and bu['n'] >= 3:
                verdict = 'inside the noise' if inside_noise(u, bu) \
                    else 'outside the noise'
            else:
                verdict = 'fewer than 3 runs, spread not measured'
            notes.append('- %s: average memory in use %.0f MiB lower than '
                         'no reclaim: %s.' % (variant_label(v), d,
                                              verdict))
    return notes


def med(runs, key):
    s = summarize([m.get(key) for m in runs])
    return s['median'] if s else None


def upstream_evidence(variants):
    runs = variants.get('upstream')
    if not runs:
        return []
    rec, tried = med(runs, 'reclaimed'), med(runs, 'tried')
    cpu, out = med(runs, 'cpu_pct'), med(runs, 'pswpout_bytes')
    if rec is None:
        return []
    lines = ['Upstream DAMON_RECLAIM as shipped: its kdamond ran (%s%% of a '
             'CPU) with the same parameters, tried %.0f MiB and reclaimed '
             '%.0f MiB; the guest swapped out %.0f MiB in all (median of %d '
             'runs).' % ('-' if cpu is None else '%.1f' % cpu,
                         (tried or 0) / MIB, rec / MIB, (out or 0) / MIB,
                         len(runs))]
    if rec < MIB:
        lines.append('It monitors but never pages anything out: '
                     'damon_reclaim_apply_parameters() installs the pageout '
                     'scheme on the running context and then commits the '
                     'parameter context, which has no scheme, over it.  '
                     '"upstream + fix" is the same tree with '
                     'lab/upstream-fix.patch, which installs the scheme on '
                     'the committed context.  The per-run statistics are in '
                     'raw/*/upstream/run*/env.txt.')
    return lines


def scaling_sizes(scaling):
    """Guest sizes of the scaling runs, in GiB, ascending."""
    return sorted({s for runs in scaling.values() for s, _ in runs})


def scaling_summary(runs, key='cpu_pct_measured'):
    """{size: summarize() of @key over the runs of that size}."""
    by = {}
    for size, m in runs:
        by.setdefault(size, []).append(m.get(key))
    return dict((size, s) for size, s in
                ((size, summarize(v)) for size, v in by.items()) if s)


def equal_cpu(hc, quota):
    """Ours at equal CPU: each of our variants on one kernel (ours, ours
    with quota_ms 0, ours-q<N>) against upstream + fix at the run's
    quota_ms, and the one closest to it in kdamond CPU."""
    fixed = hc.get('upstream-fixed')
    if not fixed:
        return []
    cf, rf = med(fixed, 'cpu_pct'), med(fixed, 'reclaimed')
    sf = med(fixed, 'pswpin')
    if cf is None or rf is None:
        return []

    def ratio(a, b):
        if a is None or b is None:
            return '-'
        return '%.2fx' % (a / b) if b else 'upstream 0'

    out = []
    for base in ('ours', 'ours-ref'):
        vs = [v for v in order(hc) if v in (base, base + '-noquota') or
              quota_variant(v) and quota_variant(v)[0] == base]
        rows = []
        for v in vs:
            co, ro = med(hc[v], 'cpu_pct'), med(hc[v], 'reclaimed')
            so = med(hc[v], 'pswpin')
            if co is None:
                continue
            rows.append((v, co, ro, so))
        if not rows:
            continue
        out.append('- Equal CPU, hotcold%s (medians): upstream + fix%s: '
                   'kdamond %.1f%% CPU, %.0f MiB reclaimed, %s hot pages '
                   'read back (swap-ins); against it:' % (
                       ', ours on the reference kernel'
                       if base == 'ours-ref' else '',
                       '' if quota is None else ', quota_ms %s' % quota,
                       cf, rf / MIB, '-' if sf is None else '%.0f' % sf))
        for v, co, ro, so in rows:
            out.append('  - %s: %.1f%% CPU; reclaimed %s MiB (%s); '
                       'swap-ins %s (%s).' % (
                           plot_label(v, quota), co,
                           '-' if ro is None else '%.0f' % (ro / MIB),
                           ratio(ro, rf),
                           '-' if so is None else '%.0f' % so,
                           ratio(so, sf)))
        at = interpolate_at_cpu(rows, cf)
        if at:
            (lo, hi, rat) = at
            out.append('- Equal CPU: upstream + fix\'s %.1f%% lies between '
                       '%s (%.1f%%) and %s (%.1f%%); their reclaimed bytes '
                       'interpolated linearly to it: %.0f MiB; at least '
                       '1.5x upstream + fix\'s: %s: %s.' % (
                           cf, plot_label(lo[0], quota), lo[1],
                           plot_label(hi[0], quota), hi[1], rat / MIB,
                           ratio(rat, rf),
                           'met' if rat >= 1.5 * rf else 'NOT met'))
            continue
        # Of two as close, the first in the order of the table.
        v, co, ro, so = min(rows, key=lambda r: abs(r[1] - cf))
        far = ''
        if cf and abs(co - cf) / cf > TCG_NOISE:
            far = ', more than %.0f%% apart: not at equal CPU, an ' \
                  'ours-q<N> nearer it is wanted' % (100 * TCG_NOISE)
        out.append('- Equal CPU: %s is the closest in CPU to upstream + fix '
                   '(%.1f%% against %.1f%%%s); reclaimed bytes at least '
                   '1.5x upstream + fix\'s: %s: %s.' % (
                       plot_label(v, quota), co, cf, far, ratio(ro, rf),
                       'met' if ro and ro >= 1.5 * rf else 'NOT met'))
    return out


def interpolate_at_cpu(rows, cpu):
    """Of @rows (variant, CPU %, reclaimed bytes, swap-ins), the closest
    below @cpu and the closest above it, and their reclaimed bytes
    interpolated linearly to @cpu; None unless two rows bracket it."""
    known = [r for r in rows if r[2] is not None]
    below = [r for r in known if r[1] <= cpu]
    above = [r for r in known if r[1] > cpu]
    if not below or not above:
        return None
    lo = max(below, key=lambda r: r[1])
    hi = min(above, key=lambda r: r[1])
    if lo[1] == cpu:
        return (lo, hi, lo[2])
    f = (cpu - lo[1]) / (hi[1] - lo[1])
    return (lo, hi, lo[2] + f * (hi[2] - lo[2]))


FLOOR_OF = {
    'hotcold': 'of exactly the cold part',
    'redis': 'of redis-server\'s whole heap, hot keys too',
}


def against_floor(data, quota):
    """Per workload, the bytes per CPU-second of each DAMON_RECLAIM variant
    as a fraction of the floor's: the kernel's own swap-out cost of the
    workload's pages, measured in the same run by the oracle of the floor
    variant (its first pass)."""
    out = []
    for workload in sorted(data):
        variants = data[workload]
        runs = variants.get('floor')
        if not runs:
            continue
        us = med(runs, 'floor_us_per_page')
        if not us:
            out.append('- Against the floor, %s: the floor runs measured '
                       'nothing (no floor_us_per_page in their '
                       'result.txt).' % workload)
            continue
        fc = med(runs, 'floor_per_cpu_s')
        n = len([m for m in runs if m.get('floor_us_per_page')])
        whole = med(runs, 'per_cpu_s')
        out.append(
            '- Against the floor, %s (medians): the kernel\'s own swap-out '
            '%s (the oracle\'s first MADV_PAGEOUT pass) costs %.1f us of '
            'CPU per page = %.0f MiB per CPU-s (%s%s); against it:' % (
                workload, FLOOR_OF.get(workload, 'of the workload'), us,
                fc / MIB, '%d run%s' % (n, '' if n == 1 else 's'),
                '' if whole is None else '; the oracle over the whole run, '
                'later passes included: %.0f MiB per CPU-s' % (whole / MIB)))
        for v in order(variants):
            if v not in DAMON_VARIANTS and not quota_variant(v):
                continue
            pc = med(variants[v], 'per_cpu_s')
            out.append('  - %s: %s.' % (
                plot_label(v, quota), 'no MiB per CPU-s' if pc is None else
                '%.0f MiB per CPU-s = %.2fx the floor' % (pc / MIB,
                                                        pc / fc)))
    return out


def spread(data, quota):
    """Per workload, lowest run / median of the reclaimed bytes of each
    variant that reclaimed anything, flagged under 0.75."""
    out = []
    for workload in sorted(data):
        cells, flagged = [], 0
        for v in order(data[workload]):
            s = summarize([m.get('reclaimed') for m in data[workload][v]])
            if not s or s['median'] <= 0:
                continue
            name = plot_label(v, quota)
            if s['n'] < 2:
                cells.append('%s: 1 run' % name)
                continue
            r = s['min'] / s['median']
            flagged += r < 0.75
            cells.append('%s: %.2f (%d runs)%s' % (
                name, r, s['n'], ', FLAGGED' if r < 0.75 else ''))
        if cells:
            out.append('- Spread of reclaimed MiB, %s (lowest run / median, '
                       'flagged under 0.75): %s; %s.' % (
                           workload, '; '.join(cells),
                           '%d of %d flagged' % (flagged, len(cells))
                           if flagged else 'none flagged'))
    return out


def targets(data, scaling, quota=None):
    out = []
    hc = data.get('hotcold', {})
    ours, fixed = hc.get('ours'), hc.get('upstream-fixed')
    if ours and fixed:
        ro, rf = med(ours, 'reclaimed'), med(fixed, 'reclaimed')
        co, cf = med(ours, 'cpu_pct'), med(fixed, 'cpu_pct')
        sw = med(ours, 'pswpin')
        if ro is not None and rf is not None:
            out.append('- Pages out at least 3x the bytes of upstream + fix: '
                       'ours %.0f MiB, upstream + fix %.0f MiB (%s): %s.' % (
                           ro / MIB, rf / MIB,
                           '%.1fx' % (ro / rf) if rf else 'upstream 0',
                           'met' if ro >= 3 * rf else 'NOT met'))
        if co is not None and cf is not None:
            out.append('- No more kdamond CPU than upstream + fix: ours %.1f%%, '
                       'upstream + fix %.1f%%: %s.' % (
                           co, cf, 'met' if co <= cf else 'NOT met'))
        if sw is not None and ro:
            out.append('- Swap-ins near zero: %.0f pages swapped in against '
                       '%.0f paged out (%.2f%%).' % (
                           sw, ro / PAGE, 100.0 * sw * PAGE / ro))
    if ours:
        r = med(ours, 'ratio')
        rf = med(fixed, 'ratio') if fixed else None
        if r is not None:
            out.append('- At least half of the bytes tried are paged out: '
                       'ours %.0f%%%s: %s.' % (
                           100 * r, '' if rf is None else
                           ', upstream + fix %.0f%%' % (100 * rf),
                           'met' if r >= 0.5 else 'NOT met'))
        mo = med(ours, 'monitored_bytes')
        up = hc.get('upstream-fixed') or hc.get('upstream')
        mu = med(up, 'monitored_bytes') if up else None
        if mo and mu:
            out.append('- Memory watched: ours %.0f MiB, upstream %.0f MiB '
                       '(upstream watches only the biggest System RAM range).'
                       % (mo / MIB, mu / MIB))
    so = scaling_summary(scaling.get('ours', []))
    su = scaling_summary(scaling.get('upstream-fixed',
                                     scaling.get('upstream', [])))
    pairs = [(s, so[s], su[s]) for s in sorted(so) if s in su]
    if pairs:
        met = all(o['median'] <= 0.5 * u['median'] for _, o, u in pairs)
        out.append('- Monitoring alone at most half of upstream\'s CPU '
                   '(medians): ' + ', '.join(
                       '%g GiB: %s%% vs %s%% (%.2fx, %d and %d runs)' % (
                           s, fmt(o, digits=2), fmt(u, digits=2),
                           o['median'] / u['median'] if u['median'] else 0,
                           o['n'], u['n']) for s, o, u in pairs) +
                   ': %s.' % ('met' if met else 'NOT met'))
    nq = hc.get('ours-noquota') or hc.get('ours-q0')
    if nq:
        t = [m.get('t95_s') for m in nq]
        done = [x for x in t if x is not None]
        out.append('- With quota_ms 0, 95%% of the cold bytes out within 60 s '
                   'of the end of the fill: %s: %s.' % (
                       ', '.join('-' if x is None else '%.0f s' % x
                                 for x in t),
                       'met' if len(done) == len(t) and
                       max(done) <= 60 else 'NOT met'))
    else:
        out.append('- With quota_ms 0, 95% of the cold bytes out within '
                   '60 s: not measured by this run (variant ours-noquota '
                   'or ours-q0).')
    return out + equal_cpu(hc, quota) + against_floor(data, quota) + \
        spread(data, quota)


def fit(points):
    """Least-squares slope and intercept of (x, y) points."""
    if len(points) < 2:
        return None
    xs, ys = zip(*points)
    mx, my = statistics.mean(xs), statistics.mean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if not sxx:
        return None
    slope = sum((x - mx) * (y - my) for x, y in points) / sxx
    return slope, my - slope * mx


def scaling_table(scaling):
    if not scaling:
        return [], {}
    sizes = scaling_sizes(scaling)
    lines = ['| variant | ' + ' | '.join('%g GiB' % s for s in sizes) +
             ' | slope (% CPU per GiB) |', '|' + '---|' * (len(sizes) + 2)]
    slopes = {}
    for v in order(scaling):
        cpu = scaling_summary(scaling[v])
        scan = scaling_summary(scaling[v], 'scan_ms')
        cells, pts = [], []
        for s in sizes:
            c = cpu.get(s)
            extra = ''
            if scan.get(s):
                extra = ' (%.0f ms/scan)' % scan[s]['median']
            cells.append('-' if c is None else
                         '%s%%%s' % (fmt(c, digits=2), extra))
            if c is not None:
                pts.append((s, c['median']))
        f = fit(pts)
        slopes[v] = f
        lines.append('| %s | %s | %s |' % (
            variant_label(v), ' | '.join(cells),
            '-' if not f else '%.3f' % f[0]))
    return lines, slopes


def plot_memory(out, workload, variants, plt, quota=None):
    fig, ax = plt.subplots(figsize=(9, 5))
    for v in order(variants):
        runs = [m for m in variants[v] if m.get('timeline')]
        if not runs:
            continue
        runs.sort(key=lambda m: m.get('avg_used') or 0)
        m = runs[len(runs) // 2]
        rows = [r for r in m['timeline'] if r['phase'] <= 1]
        # Fill times differ from run to run under TCG: align on its end.
        t0 = m.get('fill_end_s') or 0
        ax.plot([r['t_s'] - t0 for r in rows],
                [r['used'] / MIB for r in rows], color=color(v),
                ls='--' if v == 'none' else '-',
                label=plot_label(v, quota))
    ax.axvline(0, color='grey', ls=':', lw=1)
    ax.set_xlabel('seconds since the workload finished filling its memory')
    ax.set_ylabel('memory in use, MiB (MemTotal - MemAvailable, zram incl.)')
    ax.set_title('%s: memory in use over time (median run)' % workload)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    path = os.path.join(out, 'plots', '%s-memory.png' % workload)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def plot_costs(out, workload, variants, plt, quota=None):
    vs = [v for v in order(variants) if v != 'none']
    if not vs:
        return None
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 5))
    labels = [plot_label(v, quota) for v in vs]
    for ax, key, scale, title in (
            (a1, 'saving_avg', MIB, 'average memory saved vs none, MiB'),
            (a2, 'cpu_pct', 1, 'reclaimer CPU, % of one CPU')):
        meds, lo, hi = [], [], []
        for v in vs:
            s = summarize([m.get(key) for m in variants[v]])
            mv = s['median'] / scale if s else 0
            meds.append(mv)
            lo.append(mv - (s['min'] / scale if s else 0))
            hi.append((s['max'] / scale if s else 0) - mv)
        ax.bar(range(len(vs)), meds, yerr=[lo, hi], capsize=4,
               color=[color(v) for v in vs])
        ax.set_xticks(range(len(vs)))
        ax.set_xticklabels(labels, rotation=25, ha='right', fontsize=8)
        ax.set_title(title, fontsize=10)
        ax.grid(axis='y', alpha=0.3)
    fig.suptitle('%s: median, bars from min to max' % workload)
    fig.tight_layout()
    path = os.path.join(out, 'plots', '%s-costs.png' % workload)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def plot_scaling(out, scaling, slopes, plt, quota=None):
    fig, ax = plt.subplots(figsize=(8, 5))
    variants = order(scaling)
    for i, v in enumerate(variants):
        cpu = scaling_summary(scaling[v])
        sizes = sorted(cpu)
        if not sizes:
            continue
        # Side by side, so that the min-max bars do not hide each other;
        # by a factor, as the axis is logarithmic.
        shift = 2 ** ((i - (len(variants) - 1) / 2) * 0.05)
        f = slopes.get(v)
        label = plot_label(v, quota)
        if f:
            label += ' (slope %.3f %%/GiB)' % f[0]
        meds = [cpu[s]['median'] for s in sizes]
        ax.errorbar([x * shift for x in sizes], meds, fmt='o-', capsize=4,
                    label=label, color=color(v),
                    yerr=[[m - cpu[s]['min'] for s, m in zip(sizes, meds)],
                          [cpu[s]['max'] - m for s, m in zip(sizes, meds)]])
    all_sizes = scaling_sizes(scaling)
    # Sizes double from one to the next: one step each on a log scale.
    ax.set_xscale('log', base=2)
    ax.set_xticks(all_sizes)
    ax.set_xticklabels(['%g' % s for s in all_sizes])
    ax.set_xlim(min(all_sizes) / 1.4, max(all_sizes) * 1.4)
    # Logarithmic too: DAMON's 2% and 5% and a full scan's 100% on one
    # axis, each a factor apart.
    ax.set_yscale('log')
    lows = [cpu['min'] for v in variants
            for cpu in scaling_summary(scaling[v]).values() if cpu['min'] > 0]
    highs = [cpu['max'] for v in variants
             for cpu in scaling_summary(scaling[v]).values()]
    if lows and highs:
        ylo, yhi = min(lows) / 1.5, max(max(highs) * 1.5, min(lows) * 10)
        ax.set_ylim(ylo, yhi)
        ticks = [t * 10 ** e for e in range(-3, 4) for t in (1, 2, 5)
                 if ylo <= t * 10 ** e <= yhi]
        ax.set_yticks(ticks)
        ax.set_yticklabels(['%g' % t for t in ticks])
        ax.minorticks_off()
    ax.set_xlabel('guest memory, GiB')
    ax.set_ylabel('monitoring CPU, % of one CPU (log scale)')
    ax.set_title('Monitoring cost against memory size (nothing reclaimed; '
                 'median, bars min to max)', fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = os.path.join(out, 'plots', 'scaling-cpu.png')
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def write_csv(out, data, scaling):
    keys = ['throughput', 'avg_used', 'final_used', 'zram_pool', 'cpu_pct',
            'cpu_s', 'majflt', 'pswpin', 'reclaimed', 'tried', 'ratio',
            'per_cpu_s', 'pswpout_bytes', 'cold_out_pct', 't95_s',
            'tlb', 'tlb_per_mib', 'cal', 'cal_per_mib', 'monitored_bytes',
            'throughput_rel', 'saving_avg', 'floor_us_per_page']
    with open(os.path.join(out, 'runs.csv'), 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['workload', 'variant', 'run', 'ok'] + keys)
        for workload, variants in sorted(data.items()):
            for v in order(variants):
                for m in variants[v]:
                    w.writerow([workload, v, m['run'], int(m['ok'])] +
                               [m.get(k, '') for k in keys])
        for v in order(scaling):
            for s, m in sorted(scaling[v], key=lambda sm: (sm[0], sm[1]['run'])):
                w.writerow(['scaling-%gG' % s, v, m['run'], int(m['ok'])] +
                           [m.get('cpu_pct_measured', '')] + [''] *
                           (len(keys) - 1))
    with open(os.path.join(out, 'results.csv'), 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['workload', 'variant', 'metric', 'median', 'min', 'max',
                    'runs'])
        for workload, variants in sorted(data.items()):
            for v in order(variants):
                for key in keys:
                    s = summarize([m.get(key) for m in variants[v]])
                    if s:
                        w.writerow([workload, v, key, s['median'], s['min'],
                                    s['max'], s['n']])
        for v in order(scaling):
            for s, c in sorted(scaling_summary(scaling[v]).items()):
                w.writerow(['scaling', v, 'cpu_pct_%gGiB' % s, c['median'],
                            c['min'], c['max'], c['n']])


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: report.py RESULTS_DIR')
    out = sys.argv[1]
    meta, data, scaling = collect(out)
    quota = run_quota_ms(meta)
    set_quota_colors([v for variants in data.values() for v in variants] +
                     list(scaling))
    add_relative(data)
    os.makedirs(os.path.join(out, 'plots'), exist_ok=True)
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        plt = None
        print('report: no matplotlib (apt-get install python3-matplotlib): '
              'no plots', file=sys.stderr)

    md = ['# DAMON_RECLAIM benchmark', '']
    for k, title in (('command', 'Command'), ('date', 'Date'),
                     ('host', 'Host'), ('cpu', 'CPU'),
                     ('host_cpus', 'Host CPUs'), ('host_mem', 'Host memory'),
                     ('host_kernel', 'Host kernel'), ('qemu', 'QEMU'),
                     ('accel', 'Accelerator'), ('repo', 'Repository'),
                     ('base_tree', 'Base tree'),
                     ('upstream_fix', 'Upstream fix'), ('guest', 'Guest'),
                     ('workload', 'Workload'),
                     ('runs', 'Runs per variant (first command)'),
                     ('params', 'Parameters'),
                     ('scaling', 'Scaling runs (first command)')):
        if k in meta:
            md.append('- %s: `%s`' % (title, meta[k]) if k == 'command'
                      else '- %s: %s' % (title, meta[k]))
    # Each later run into the folder added a line; read_kv() keeps one.
    for line in read_lines(os.path.join(out, 'meta.txt')):
        if line.startswith('also_ran='):
            md.append('- Also ran into this folder: %s' %
                      line[len('also_ran='):])
    md += runs_found(data, scaling)
    kernels = {}
    for variants in data.values():
        for v, runs in variants.items():
            for m in runs:
                r = read_kv(os.path.join(m['dir'], 'result.txt'))
                if r.get('kernel'):
                    kernels[v] = '%s, %s' % (r['kernel'],
                                             r.get('kernel_image', '?'))
    if kernels:
        md.append('- Guest kernels: ' + ', '.join(
            '%s `%s`' % (v, kernels[v]) for v in order(kernels)))
    md += ['', 'Each cell: median (min–max) over the runs.  Memory in use is '
           'MemTotal - MemAvailable of the guest, which includes what zram '
           'holds (its pool), so savings are net of zram.  Costs and '
           'counters run from the start of the workload to the end of the '
           'measured phase (before the final read-back check); the '
           'reclaimer\'s CPU is utime + stime of kdamond or of the '
           'user-space reclaimer, as a percent of one CPU.  "swapped out" '
           'is pswpout of the whole guest.  Guests run under TCG, where two '
           'identical runs have differed by up to 30%.', '']
    for workload in sorted(data):
        variants = data[workload]
        md += ['## Workload: %s' % workload, '', table(workload, variants), '']
        notes = noise_notes(workload, variants)
        if notes:
            md += ['Against the baseline (with 3 or more runs, a '
                   'difference whose min–max ranges overlap is inside the '
                   'noise; with fewer, a throughput difference under 30% '
                   'is):', ''] + notes + ['']
        ev = upstream_evidence(variants)
        if ev:
            md += [' '.join(ev), '']
        failed = [m['dir'] for runs in variants.values() for m in runs
                  if not m['ok']]
        if failed:
            md += ['Runs that failed or whose workload check did not pass: ' +
                   ', '.join('`%s`' % os.path.relpath(d, out)
                             for d in failed), '']
        if plt:
            p1 = plot_memory(out, workload, variants, plt, quota)
            p2 = plot_costs(out, workload, variants, plt, quota)
            md += ['![memory in use](%s)' % os.path.relpath(p1, out)]
            if p2:
                md += ['', '![costs](%s)' % os.path.relpath(p2, out)]
            md += ['']
    lines, slopes = scaling_table(scaling)
    if lines:
        md += ['## Monitoring cost against memory size', '',
               'A quarter of the guest\'s memory filled, nothing hot, '
               'reclaimers that match nothing (min_age one hour; kstaled '
               'scans but does not page out); CPU over the measured phase, '
               'median (min–max) over the runs.',
               ''] + lines + ['']
        if plt:
            p = plot_scaling(out, scaling, slopes, plt, quota)
            md += ['![scaling](%s)' % os.path.relpath(p, out), '']
    md += ['## Targets of the benchmark issue', ''] + targets(data, scaling,
                                                              quota)
    md += ['', 'Per-run figures: runs.csv; medians: results.csv; raw '
           'timelines and logs: raw/.']
    with open(os.path.join(out, 'results.md'), 'w') as f:
        f.write('\n'.join(md) + '\n')
    write_csv(out, data, scaling)
    print(os.path.join(out, 'results.md'))


if __name__ == '__main__':
    main()
