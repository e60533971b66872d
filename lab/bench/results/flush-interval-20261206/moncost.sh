#!/bin/bash
# Guest: monitoring alone (nothing matches); kdamond CPU over 20 s.
bash /work/main/lab/bench/guest.sh bin=/root/.cache/damon-lab/bin/bench variant=ours \
  workload=hotcold wss_mib=${WSS:-1024} hot_pct=${HOT:-0} seconds=40 nomatch=1 quota_ms=50 > $LAB_OUT/g.log 2>&1 &
for i in $(seq 600); do grep -q 'filled in' $LAB_OUT/g.log 2>/dev/null && break; sleep 1; done
sleep 5
kd=$(pgrep kdamond)
t0=$(cut -d' ' -f1 /proc/uptime); s0=$(awk '{print $14+$15}' /proc/$kd/stat); i0=$(grep TLB /proc/interrupts)
sleep 30
t1=$(cut -d' ' -f1 /proc/uptime); s1=$(awk '{print $14+$15}' /proc/$kd/stat); i1=$(grep TLB /proc/interrupts)
echo "kdamond_cpu_pct=$(echo "($s1 - $s0) / ($t1 - $t0)" | bc -l)" > $LAB_OUT/cost.txt
echo "$i0" >> $LAB_OUT/cost.txt; echo "$i1" >> $LAB_OUT/cost.txt
grep -E "nr_regions|^" /dev/null
wait
