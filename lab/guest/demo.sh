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

# The guest is busy (the workload, kdamond, TCG): a monitor that forks
# awk and cat each second falls behind.  Everything below is bash builtins.

# Sets the global R to bytes in MiB, or "-".
to_mib() { if [[ $1 =~ ^[0-9]+$ ]]; then R=$(($1 / 1048576)); else R=-; fi; }
# Sets the global R to a reclaim parameter, or "-".
read_param() { R=-; [[ -r $params/$1 ]] && read -r R < "$params/$1"; }

# Reads /proc/meminfo into MEM[key] (bytes).
declare -A MEM
read_meminfo() {
	local k v _
	while read -r k v _; do
		MEM[${k%:}]=$((v * 1024))
	done < /proc/meminfo
}

kdamond_pid() {
	local c f
	read_param kdamond_pid
	if [[ $R =~ ^[1-9][0-9]*$ ]]; then
		echo "$R"
		return
	fi
	for f in /proc/[0-9]*/comm; do
		read -r c < "$f" 2>/dev/null || continue
		[[ $c == kdamond* ]] && { f=${f#/proc/}; echo "${f%/comm}"; return; }
	done
}

# Sets R to the CPU ticks (user + system) task $1 has used, or "-".
cpu_ticks() {
	local line f
	R=-
	[[ -n $1 && -r /proc/$1/stat ]] || return 0
	read -r line < "/proc/$1/stat"
	# After the ")" that ends the command name, utime and stime are the
	# 12th and 13th fields.
	read -r -a f <<< "${line##*) }"
	R=$((f[11] + f[12]))
}

# Sets R to microseconds since the epoch.
now_us() { local t=${EPOCHREALTIME/./}; R=$((10#$t)); }

read_meminfo
echo "demo: kernel $(uname -r), $(nproc) CPUs, $((MEM[MemTotal] / 1048576)) MiB"
echo "demo: swap: $(tail -n +2 /proc/swaps | awk '{ print $1, int($3 / 1024) " MiB" }')"
if [[ -d $params ]]; then
	echo "demo: damon_reclaim parameters:"
	for p in enabled min_age quota_ms quota_sz wmarks_high wmarks_mid wmarks_low; do
		[[ -r $params/$p ]] && printf '  %s=%s\n' "$p" "$(cat "$params/$p")"
	done
else
	echo "demo: no /sys/module/damon_reclaim: this kernel has no DAMON_RECLAIM"
fi

hot_percent=25
cold_bytes=$((size_mib * (100 - hot_percent) / 100 * 1048576))
wl_log=$(mktemp /tmp/demo-workload.XXXXXX)
"$bin" "$size_mib" "$hot_percent" "$seconds" > "$wl_log" 2>&1 &
wl=$!
wl_lines=0
# Cold memory turns cold when the fill ends; from then on, track how much
# of it left RAM (RSS above the hot part) and when 80% had gone.
filled_us= cold_out_max=0 t80=
# Major faults the workload took reading its hot part (it says): hot
# pages read back from swap.
hot_majflt=

# Prints the workload's new output lines; sets filled_us at "filled".
show_workload() {
	local i=0 line
	while IFS= read -r line; do
		((i++ < wl_lines)) && continue
		echo "$line"
		[[ -z $filled_us && $line == *"filled in"* ]] && filled_us=$t_us
		if [[ $line =~ "hot pages read back: "([0-9]+)" major faults" ]]; then
			hot_majflt=${BASH_REMATCH[1]}
		fi
	done < "$wl_log"
	wl_lines=$i
}

printf '%6s %9s %8s %9s %14s %12s %10s %9s\n' time used_MiB rss_MiB swap_MiB \
	zram_orig/cmp reclaimed_MiB tried_MiB kdamond%
now_us; start_us=$R
peak_used=0 peak_swap=0 kd_pid= cpu_sum_ticks=0 cpu_us=0
prev_ticks=- prev_us=$start_us
while kill -0 "$wl" 2>/dev/null; do
	sleep 1
	now_us; t_us=$R
	show_workload
	read_meminfo
	used=$((MEM[MemTotal] - MEM[MemAvailable]))
	((used > peak_used)) && peak_used=$used
	swap=$((MEM[SwapTotal] - MEM[SwapFree]))
	((swap > peak_swap)) && peak_swap=$swap
	rss=-
	{ while read -r k v _; do
		[[ $k == VmRSS: ]] && rss=$((v * 1024))
	done < "/proc/$wl/status"; } 2>/dev/null
	zram=-
	if [[ -r /sys/block/zram0/mm_stat ]]; then
		read -r orig compr _ < /sys/block/zram0/mm_stat
		zram="$((orig / 1048576))/$((compr / 1048576))"
	fi
	[[ -n $kd_pid ]] || kd_pid=$(kdamond_pid)
	cpu_ticks "$kd_pid"; ticks=$R
	cpu=-
	if [[ $ticks != - && $prev_ticks != - ]] && ((ticks >= prev_ticks)); then
		cpu=$(((ticks - prev_ticks) * 100000000 / hz / (t_us - prev_us)))
		cpu_sum_ticks=$((cpu_sum_ticks + ticks - prev_ticks))
		cpu_us=$((cpu_us + t_us - prev_us))
	fi
	prev_ticks=$ticks prev_us=$t_us
	to_mib "$rss"; rss_m=$R
	if [[ -n $filled_us && $rss != - ]]; then
		out=$((size_mib * 1048576 - rss))
		((out > cold_out_max)) && cold_out_max=$out
		if [[ -z $t80 ]] && ((out * 10 >= cold_bytes * 8)); then
			t80=$(((t_us - filled_us) / 1000000))
		fi
	fi
	read_param bytes_reclaimed_regions; to_mib "$R"; recl_m=$R
	read_param bytes_reclaim_tried_regions; to_mib "$R"; tried_m=$R
	printf '%5ds %9d %8s %9d %14s %12s %10s %9s\n' \
		$(((t_us - start_us) / 1000000)) $((used / 1048576)) "$rss_m" \
		$((swap / 1048576)) "$zram" "$recl_m" "$tried_m" "$cpu"
done
wait "$wl"
rc=$?
now_us; t_us=$R
show_workload
rm -f "$wl_log"

read_meminfo
echo
echo "=== demo summary ==="
echo "workload:          $size_mib MiB, 25% hot, ${seconds}s: $([[ $rc == 0 ]] && echo PASS || echo "FAIL (exit $rc)")"
echo "memory in use:     $((peak_used / 1048576)) MiB at peak, $(((MEM[MemTotal] - MEM[MemAvailable]) / 1048576)) MiB at the end (MemTotal - MemAvailable)"
if [[ -n $filled_us ]]; then
	echo "cold memory:       $((cold_out_max / 1048576)) of $((cold_bytes / 1048576)) MiB paged out at most ($((cold_out_max * 100 / cold_bytes))%); 80% $([[ -n $t80 ]] && echo "reached $t80 s after it turned cold" || echo "not reached")"
fi
if [[ -n $hot_majflt ]]; then
	echo "hot part:          $hot_majflt of its $((size_mib * hot_percent / 100 * 256)) pages read back from swap (major faults)"
fi
echo "swap (zram) used:  $((peak_swap / 1048576)) MiB at peak, $(((MEM[SwapTotal] - MEM[SwapFree]) / 1048576)) MiB at the end"
if [[ -r /sys/block/zram0/mm_stat ]]; then
	read -r orig compr used_total _ < /sys/block/zram0/mm_stat
	echo "zram at the end:   $((orig / 1048576)) MiB stored in $((used_total / 1048576)) MiB"
fi
if [[ -d $params ]]; then
	read_param bytes_reclaimed_regions; to_mib "$R"; recl_m=$R
	read_param bytes_reclaim_tried_regions; to_mib "$R"; tried_m=$R
	read_param nr_quota_exceeds; qx=$R
	echo "DAMON_RECLAIM:     reclaimed $recl_m MiB of $tried_m MiB tried; quota exceeded $qx times"
else
	echo "DAMON_RECLAIM:     not in this kernel"
fi
if ((cpu_us)); then
	echo "kdamond CPU:       $((cpu_sum_ticks * 100000000 / hz / cpu_us))% of one CPU on average over $((cpu_us / 1000000)) s"
else
	echo "kdamond CPU:       - (no kdamond seen)"
fi
exit $rc
