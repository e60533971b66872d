#!/bin/bash
# Guest: hotcold with ours at quota_ms 80; per-second statistics, and perf
# over the whole run, to find what kdamond does while nothing is tried.
P=/sys/module/damon_reclaim/parameters
echo 0 > /proc/sys/kernel/kptr_restrict
echo -1 > /proc/sys/kernel/perf_event_paranoid
bash /work/main/lab/bench/guest.sh bin=/root/.cache/damon-lab/bin/bench variant=ours \
  workload=hotcold wss_mib=3072 hot_pct=25 seconds=90 \
  min_age_us=5000000 quota_ms=${Q:-80} > $LAB_OUT/g.log 2>&1 &
G=$!
for i in $(seq 100); do pgrep -x kdamond.0 >/dev/null && break; sleep 0.2; done
perf record -q -e cpu-clock -F 500 -a -g -o $LAB_OUT/perf.data &
PF=$!
kd=$(pgrep -x kdamond.0)
while kill -0 $G 2>/dev/null; do
	printf '%s tried=%s applied=%s qx=%s nrt=%s kd=%s\n' "$(cut -d' ' -f1 /proc/uptime)" \
		"$(cat $P/bytes_reclaim_tried_regions 2>/dev/null)" \
		"$(cat $P/bytes_reclaimed_regions 2>/dev/null)" \
		"$(cat $P/nr_quota_exceeds 2>/dev/null)" \
		"$(cat $P/nr_reclaim_tried_regions 2>/dev/null)" \
		"$(awk '{print $14+$15}' /proc/$kd/stat 2>/dev/null)" >> $LAB_OUT/stats.txt
	sleep 1
done
kill -INT $PF; wait $PF
