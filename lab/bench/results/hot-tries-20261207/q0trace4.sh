#!/bin/bash
# From ../age-steps-20261207/trace/q0trace3.sh, with the hot part's frames
# recorded too and the trace running to the end of the measured phase.
# Guest: hotcold with ours-noquota, 90 s; damos_before_apply from the start of the
# fill to 88 s after it, DAMON_RECLAIM's counters every 0.2 s, and the
# physical frames of hotcold's pages, hot and cold, one per 64 KiB.
T=/sys/kernel/tracing
mountpoint -q $T || mount -t tracefs none $T
echo 65536 > $T/buffer_size_kb
bash /work/main/lab/bench/guest.sh bin=/root/.cache/damon-lab/bin/bench variant=ours-noquota pin_exec=on \
  workload=hotcold wss_mib=3072 hot_pct=25 seconds=90 \
  min_age_us=5000000 quota_ms=0 > $LAB_OUT/g.log 2>&1 &
for i in $(seq 600); do grep -q 'filling' $LAB_OUT/g.log 2>/dev/null && break; sleep 0.2; done
echo 1 > $T/events/damon/damos_before_apply/enable
cat /proc/uptime > $LAB_OUT/t_fill_start
cat $T/trace_pipe > $LAB_OUT/trace.txt &
tp=$!
P=/sys/module/damon_reclaim/parameters
( while :; do read -r up _ < /proc/uptime; echo "$up $(cat $P/nr_reclaim_tried_regions $P/bytes_reclaim_tried_regions $P/nr_reclaimed_regions $P/bytes_reclaimed_regions $P/nr_quota_exceeds | tr '\n' ' ')"; sleep 0.2; done > $LAB_OUT/stats.txt ) &
sp=$!
for i in $(seq 600); do grep -q 'cold part at' $LAB_OUT/g.log 2>/dev/null && break; sleep 0.2; done
cat /proc/uptime > $LAB_OUT/t_fill_end
line=$(grep 'cold part at' $LAB_OUT/g.log)
python3 - "$line" > $LAB_OUT/coldpfns.txt <<'PY'
import re, struct, sys
m = re.search(r'cold part at (0x[0-9a-f]+) length (\d+) bytes \(pid (\d+)\)', sys.argv[1])
addr, length, pid = int(m.group(1), 16), int(m.group(2)), int(m.group(3))
with open('/proc/%d/pagemap' % pid, 'rb') as f:
    hot = length // 3
    for va in range(addr - hot, addr + length, 4096 * 16):
        f.seek(va // 4096 * 8)
        e = struct.unpack('<Q', f.read(8))[0]
        if e >> 63:
            print('%s %x %x' % ('hot' if va < addr else 'cold', va, (e & ((1 << 55) - 1)) * 4096))
PY
sleep 88
echo 0 > $T/events/damon/enable
kill $tp $sp
wait
