#!/bin/bash
# Guest: hotcold with ours-noquota, perf over the pageout burst.
bash /work/main/lab/bench/guest.sh bin=/root/.cache/damon-lab/bin/bench variant=ours-noquota \
  workload=hotcold wss_mib=3072 hot_pct=25 seconds=60 \
  min_age_us=5000000 quota_ms=0 > $LAB_OUT/g.log 2>&1 &
echo 0 > /proc/sys/kernel/kptr_restrict
echo -1 > /proc/sys/kernel/perf_event_paranoid
# wait for the fill to end (the measured phase starts)
for i in $(seq 600); do grep -q 'filled in' $LAB_OUT/g.log 2>/dev/null && break; sleep 1; done
date +%s > $LAB_OUT/t0
grep -E 'pswpout|pgsteal|pgscan' /proc/vmstat > $LAB_OUT/vm0
cat /proc/$(pgrep kdamond)/stat > $LAB_OUT/kd0
perf record -q -e cpu-clock -F 1000 -a -g -o $LAB_OUT/perf.data -- sleep 30
grep -E 'pswpout|pgsteal|pgscan' /proc/vmstat > $LAB_OUT/vm1
cat /proc/$(pgrep kdamond)/stat > $LAB_OUT/kd1
grep TLB /proc/interrupts > $LAB_OUT/tlb
wait
