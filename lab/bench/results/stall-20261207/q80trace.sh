#!/bin/bash
# Guest: hotcold with ours at quota_ms 80, DAMOS applications traced,
# per-second statistics and kdamond CPU ticks.
P=/sys/module/damon_reclaim/parameters
T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
echo 65536 > $T/buffer_size_kb
echo 1 > $T/events/damon/damos_before_apply/enable
bash /work/main/lab/bench/guest.sh bin=/root/.cache/damon-lab/bin/bench variant=ours \
  workload=hotcold wss_mib=3072 hot_pct=25 seconds=90 \
  min_age_us=5000000 quota_ms=80 > $LAB_OUT/g.log 2>&1 &
G=$!
i=0
while kill -0 $G 2>/dev/null; do
	printf '%s tried=%s applied=%s qx=%s nrt=%s kd=%s\n' "$(cut -d' ' -f1 /proc/uptime)" \
		"$(cat $P/bytes_reclaim_tried_regions 2>/dev/null)" \
		"$(cat $P/bytes_reclaimed_regions 2>/dev/null)" \
		"$(cat $P/nr_quota_exceeds 2>/dev/null)" \
		"$(cat $P/nr_reclaim_tried_regions 2>/dev/null)" "$(awk '{print $14+$15}' /proc/$(pgrep -x kdamond.0)/stat 2>/dev/null)" >> $LAB_OUT/stats.txt
	if ((i % 5 == 0)); then
		echo "== $(cut -d' ' -f1 /proc/uptime)" >> $LAB_OUT/agg.txt
		echo 1 > $T/events/damon/damon_aggregated/enable
		sleep 0.15
		echo 0 > $T/events/damon/damon_aggregated/enable
	fi
	i=$((i+1))
	sleep 1
done
echo 0 > $T/events/damon/damos_before_apply/enable
cp $T/trace $LAB_OUT/trace.txt
