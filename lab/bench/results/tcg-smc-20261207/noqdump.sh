#!/bin/bash
# Guest: benchmark-like hotcold run (variant $1) and a watcher that dumps the
# backtraces of all CPUs (sysrq l) whenever kdamond spent a mostly
# unproductive second: >= 80 ticks and < 1500 pages written to swap.
echo 1 > /proc/sys/kernel/sysrq
bash /work/main/lab/bench/guest.sh bin=/root/.cache/damon-lab/bin/bench variant=${1:-ours-noquota} \
  workload=hotcold wss_mib=3072 hot_pct=25 seconds=${2:-60} \
  min_age_us=5000000 pin_exec=${PIN:-on} > $LAB_OUT/g.log 2>&1 &
G=$!
mkfifo /tmp/tick; exec 3<> /tmp/tick
kd=
pt=0 pp=0 n=0
while kill -0 $G 2>/dev/null; do
	read -t 1 -u 3 x
	if [[ -z $kd ]]; then
		for d in /proc/[0-9]*; do
			read -r c < $d/comm 2>/dev/null && [[ $c == kdamond.0 ]] && kd=${d#/proc/} && break
		done
		continue
	fi
	read -r -a st < /proc/$kd/stat || continue
	t=$((st[13] + st[14]))
	while read -r k v; do [[ $k == pswpout ]] && { p=$v; break; }; done < /proc/vmstat
	if ((t - pt >= 80 && p - pp < 1500 && n < 12)); then
		echo "watch: ticks +$((t - pt)) pswpout +$((p - pp))" > /dev/kmsg
		echo l > /proc/sysrq-trigger
		n=$((n + 1))
	fi
	pt=$t pp=$p
done
