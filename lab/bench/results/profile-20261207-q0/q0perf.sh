#!/bin/bash
# Guest: hotcold with ours-noquota, perf over 30 s of the pageout burst,
# with kdamond's CPU ticks and zram's writes around it (cost per page).
bash /work/main/lab/bench/guest.sh bin=/root/.cache/damon-lab/bin/bench variant=ours-noquota \
  workload=hotcold wss_mib=3072 hot_pct=25 seconds=60 \
  min_age_us=5000000 quota_ms=0 > $LAB_OUT/g.log 2>&1 &
echo 0 > /proc/sys/kernel/kptr_restrict
echo -1 > /proc/sys/kernel/perf_event_paranoid
for i in $(seq 600); do grep -q 'filled in' $LAB_OUT/g.log 2>/dev/null && break; sleep 1; done
kd=$(pgrep kdamond)
cat /sys/block/zram0/stat > $LAB_OUT/zram0
cat /proc/$kd/stat > $LAB_OUT/kd0
grep TLB /proc/interrupts > $LAB_OUT/tlb0
perf record -q -e cpu-clock -F 1000 -a -g -o $LAB_OUT/perf.data -- sleep 30
cat /sys/block/zram0/stat > $LAB_OUT/zram1
cat /proc/$kd/stat > $LAB_OUT/kd1
grep TLB /proc/interrupts > $LAB_OUT/tlb1
getconf CLK_TCK > $LAB_OUT/clk_tck
wait
