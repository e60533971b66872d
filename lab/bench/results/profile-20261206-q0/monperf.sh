#!/bin/bash
# Guest: monitoring alone (nothing matches), perf and kdamond wake-ups.
bash /work/main/lab/bench/guest.sh bin=/root/.cache/damon-lab/bin/bench variant=ours \
  workload=hotcold wss_mib=1024 hot_pct=0 seconds=50 nomatch=1 quota_ms=50 > $LAB_OUT/g.log 2>&1 &
echo 0 > /proc/sys/kernel/kptr_restrict
echo -1 > /proc/sys/kernel/perf_event_paranoid
for i in $(seq 600); do grep -q 'filled in' $LAB_OUT/g.log 2>/dev/null && break; sleep 1; done
sleep 5
kd=$(pgrep kdamond)
{ date +%s.%N; grep ctxt /proc/$kd/status; cat /proc/$kd/stat; cat /proc/$kd/schedstat; } > $LAB_OUT/kd0
perf record -q -e cpu-clock -F 1000 -a -g -o $LAB_OUT/perf.data -- sleep 30
{ date +%s.%N; grep ctxt /proc/$kd/status; cat /proc/$kd/stat; cat /proc/$kd/schedstat; } > $LAB_OUT/kd1
grep TLB /proc/interrupts > $LAB_OUT/tlb
cat /sys/module/damon_reclaim/parameters/* > $LAB_OUT/params 2>/dev/null
wait
