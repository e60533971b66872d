#!/bin/bash
# The DAMON_RECLAIM demo inside a lab guest (see lab/lab demo): runs the
# hot/cold workload and prints, once a second, what memory and
# DAMON_RECLAIM are doing, then a summary.  Every source may be missing
# (no reclaim module yet, no zram): it shows "-" then.
set -uo pipefail

bin=${1:?usage: demo.sh WORKLOAD SIZE_MIB SECONDS}
size_mib=${2:?}
seconds=${3:?}
params=/sys/module/damon_reclaim/parameters
hz=$(getconf CLK_TCK)

mib() { [[ $1 == - ]] && echo - || echo $(($1 / 1048576)); }
param() { cat "$params/$1" 2>/dev/null || echo -; }
# Integers only: awk would print large products in exponent notation.
meminfo() { awk -v k="$1:" '$1 == k { printf "%d\n", $2 * 1024 }' /proc/meminfo; }

kdamond_pid() {
	local pid
	pid=$(param kdamond_pid)
	if [[ $pid =~ ^[1-9][0-9]*$ ]]; then
		echo "$pid"
		return
	fi
	grep -lx 'kdamond.*' /proc/[0-9]*/comm 2>/dev/null | head -1 | cut -d/ -f3
}

# CPU ticks (user + system) a task has used.
cpu_ticks() {
	[[ -n $1 && -r /proc/$1/stat ]] || { echo -; return; }
	# Fields after the ")" that ends the command name: 12 and 13 are
	# utime and stime.
	sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

echo "demo: kernel $(uname -r), $(nproc) CPUs, $(($(meminfo MemTotal) / 1048576)) MiB"
echo "demo: swap: $(tail -n +2 /proc/swaps | awk '{ print $1, $3 / 1024 " MiB" }')"
if [[ -d $params ]]; then
	echo "demo: damon_reclaim parameters:"
	for p in enabled min_age quota_ms quota_sz wmarks_high wmarks_mid wmarks_low; do
		[[ -r $params/$p ]] && printf '  %s=%s\n' "$p" "$(cat "$params/$p")"
	done
else
	echo "demo: no /sys/module/damon_reclaim: this kernel has no DAMON_RECLAIM"
fi

"$bin" "$size_mib" 25 "$seconds" &
wl=$!

printf '%5s %9s %9s %9s %13s %11s %11s %9s\n' t used_MiB rss_MiB swap_MiB \
	zram_orig/cmp reclaim_MiB tried_MiB kdamond%
t=0 peak_used=0 peak_swap=0 kd_ticks0= kd_pid= cpu_sum=0 cpu_n=0
prev_ticks=-
while kill -0 "$wl" 2>/dev/null; do
	sleep 1
	t=$((t + 1))
	used=$(($(meminfo MemTotal) - $(meminfo MemAvailable)))
	((used > peak_used)) && peak_used=$used
	rss=$(awk '/^VmRSS:/ { printf "%d\n", $2 * 1024 }' "/proc/$wl/status" 2>/dev/null)
	swap=$(($(meminfo SwapTotal) - $(meminfo SwapFree)))
	((swap > peak_swap)) && peak_swap=$swap
	zram=-
	if [[ -r /sys/block/zram0/mm_stat ]]; then
		read -r orig compr _ < /sys/block/zram0/mm_stat
		zram="$(mib "$orig")/$(mib "$compr")"
	fi
	[[ -n $kd_pid ]] || kd_pid=$(kdamond_pid)
	ticks=$(cpu_ticks "$kd_pid")
	cpu=-
	if [[ $ticks != - && $prev_ticks != - && $ticks -ge $prev_ticks ]]; then
		cpu=$(((ticks - prev_ticks) * 100 / hz))
		cpu_sum=$((cpu_sum + cpu))
		cpu_n=$((cpu_n + 1))
	fi
	[[ -z $kd_ticks0 && $ticks != - ]] && kd_ticks0=$ticks
	prev_ticks=$ticks
	printf '%5s %9s %9s %9s %13s %11s %11s %9s\n' "${t}s" "$(mib "$used")" \
		"$(mib "${rss:--}")" "$(mib "$swap")" "$zram" \
		"$(mib "$(param bytes_reclaimed_regions)")" \
		"$(mib "$(param bytes_reclaim_tried_regions)")" "$cpu"
done
wait "$wl"
rc=$?

echo
echo "=== demo summary ==="
echo "workload:            $size_mib MiB, 25% hot, ${seconds}s; $([[ $rc == 0 ]] && echo PASS || echo "FAIL (exit $rc)")"
echo "peak memory used:    $(mib "$peak_used") MiB (MemTotal - MemAvailable)"
echo "memory used now:     $(mib $(($(meminfo MemTotal) - $(meminfo MemAvailable)))) MiB"
echo "swap used:           $(mib "$peak_swap") MiB at peak, $(mib $(($(meminfo SwapTotal) - $(meminfo SwapFree)))) MiB now"
if [[ -r /sys/block/zram0/mm_stat ]]; then
	read -r orig compr used_total _ < /sys/block/zram0/mm_stat
	echo "zram now:            $(mib "$orig") MiB stored in $(mib "$used_total") MiB"
fi
echo "DAMON_RECLAIM:       reclaimed $(mib "$(param bytes_reclaimed_regions)") MiB of $(mib "$(param bytes_reclaim_tried_regions)") MiB tried, quota exceeded $(param nr_quota_exceeds) times"
if ((cpu_n)); then
	echo "kdamond CPU:         $((cpu_sum / cpu_n))% on average over ${cpu_n}s"
else
	echo "kdamond CPU:         - (no kdamond seen)"
fi
exit $rc
