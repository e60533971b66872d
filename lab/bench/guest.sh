#!/bin/bash
# One benchmark run inside a lab guest (started by lab/bench/run through
# "lab/lab run"): sets up the reclaimer of one variant, runs one workload
# in the cgroup /sys/fs/cgroup/bench, samples the system once a second
# with lab/bench/monitor.c and writes everything to $LAB_OUT:
#   env.txt        kernel, memory map, reclaimer parameters
#   timeline.csv   one line per second (see monitor.c), phase 1 = measured
#   workload.log   the workload's own output (throughput, PASS/FAIL)
#   reclaimer.txt  the reclaimer's final counters (user-space ones)
#   reclaimer.log  the user-space reclaimer's output
#   result.txt     key=value lines the report reads
#
#   guest.sh KEY=VALUE...   keys: variant workload bin wss_mib hot_pct
#                           seconds min_age_us quota_ms kst_interval_ms
#                           nomatch (1: the reclaimer must match nothing)
#                           pin_exec (on: lab/bench/pinexec.c locks the
#                           executables and libraries in memory)
set -uo pipefail

variant= workload=hotcold bin= wss_mib=1024 hot_pct=25 seconds=60
min_age_us=5000000 quota_ms=50 kst_interval_ms=1000 nomatch=0 pin_exec=off
for kv in "$@"; do
	case $kv in
	variant=* | workload=* | bin=* | wss_mib=* | hot_pct=* | seconds=* | \
		min_age_us=* | quota_ms=* | kst_interval_ms=* | nomatch=* | pin_exec=*)
		declare "$kv" ;;
	*) echo "guest.sh: unknown argument '$kv'" >&2; exit 2 ;;
	esac
done
[[ -n $variant && -n $bin && -n ${LAB_OUT:-} ]] ||
	{ echo "guest.sh: need variant=, bin= and \$LAB_OUT" >&2; exit 2; }

out=$LAB_OUT
cg=/sys/fs/cgroup/bench
params=/sys/module/damon_reclaim/parameters
rstat=/tmp/reclaimer.stat
rpid=/tmp/reclaimer.pid
# "Matches nothing": an hour of idleness, far beyond the run.  It fits the
# unsigned int of upstream's min_age_region at the default aggr_interval.
[[ $nomatch == 1 ]] && min_age_us=3600000000

result() { echo "$1=$2" >> "$out/result.txt"; }
say() { echo "bench-guest: $*"; }

setup_cgroup() {
	echo +memory > /sys/fs/cgroup/cgroup.subtree_control || return 1
	mkdir -p "$cg"
}

record_env() {
	{
		echo "kernel: $(uname -r) $(uname -v)"
		echo "cmdline: $(cat /proc/cmdline)"
		echo "cpus: $(nproc)"
		grep -E '^(MemTotal|SwapTotal):' /proc/meminfo
		echo "zram: $(cat /sys/block/zram0/disksize 2>/dev/null) bytes, $(cat /sys/block/zram0/comp_algorithm 2>/dev/null)"
		echo "System RAM ranges:"
		grep 'System RAM' /proc/iomem
	} > "$out/env.txt"
}

# Bytes of physical memory the DAMON_RECLAIM instance watches: its
# monitor_region_* when set (upstream fills them in with the biggest System
# RAM range), else all System RAM.
monitored_bytes() {
	local s e
	s=$(cat "$params/monitor_region_start" 2>/dev/null || echo 0)
	e=$(cat "$params/monitor_region_end" 2>/dev/null || echo 0)
	if ((s != 0 || e != 0)); then
		echo $((e - s))
		return
	fi
	# Bash arithmetic: mawk prints sums over 2^31 in exponent form.
	local total=0 range
	while read -r range _; do
		s=${range%-*}
		e=${range#*-}
		total=$((total + 16#$e - 16#$s + 1))
	done < <(grep 'System RAM' /proc/iomem | sed 's/^ *//')
	echo "$total"
}

start_damon_reclaim() {
	[[ -d $params ]] || { say "no DAMON_RECLAIM in this kernel"; return 1; }
	local kv
	for kv in min_age=$min_age_us quota_ms=$quota_ms wmarks_high=1000 \
		wmarks_mid=999 wmarks_low=0; do
		echo "${kv#*=}" > "$params/${kv%%=*}" ||
			{ say "cannot set ${kv%%=*}"; return 1; }
	done
	echo Y > "$params/enabled" || { say "cannot enable DAMON_RECLAIM"; return 1; }
	sleep 1
	{
		echo "damon_reclaim parameters after enabling:"
		for kv in "$params"/*; do
			printf '  %s=%s\n' "${kv##*/}" "$(cat "$kv" 2>/dev/null)"
		done
	} >> "$out/env.txt"
	result quota_ms "$(cat "$params/quota_ms")"
	result kdamond_pid "$(cat "$params/kdamond_pid")"
	result monitored_bytes "$(monitored_bytes)"
	[[ $(cat "$params/kdamond_pid") -gt 0 ]] || { say "no kdamond running"; return 1; }
}

start_reclaimer() {
	case $variant in
	none) ;;
	ours | ours-ref | upstream | upstream-fixed) start_damon_reclaim || return 1 ;;
	ours-noquota | ours-ref-noquota) quota_ms=0 start_damon_reclaim || return 1 ;;
	# ours-q<N>, ours-ref-q<N>: quota_ms N (lab/bench/run checks N).
	ours-q* | ours-ref-q*)
		[[ ${variant##*-q} =~ ^(0|[1-9][0-9]*)$ ]] ||
			{ say "bad quota_ms in variant $variant"; return 1; }
		quota_ms=${variant##*-q} start_damon_reclaim || return 1
		;;
	kstaled)
		local opts=(--min-age-ms $((min_age_us / 1000))
			--interval-ms "$kst_interval_ms" --cgroup "$cg" --stats "$rstat")
		[[ $nomatch == 1 ]] && opts+=(--no-pageout)
		"$bin/kstaled" "${opts[@]}" > "$out/reclaimer.log" 2>&1 &
		echo $! > "$rpid"
		echo "kstaled ${opts[*]}" >> "$out/env.txt"
		;;
	pressure)
		"$bin/pressure" --cgroup "$cg" --budget-ms "$quota_ms" \
			--stats "$rstat" > "$out/reclaimer.log" 2>&1 &
		echo $! > "$rpid"
		echo "pressure --cgroup $cg --budget-ms $quota_ms" >> "$out/env.txt"
		;;
	# Started by run_hotcold once the workload says where its cold part
	# is, by run_redis once its keys are in.
	floor) ;;
	*) say "unknown variant $variant"; return 1 ;;
	esac
}

stop_reclaimer() {
	case $variant in
	ours | ours-ref | ours-noquota | ours-ref-noquota | ours-q* | ours-ref-q* | \
		upstream | upstream-fixed)
		{
			echo "damon_reclaim statistics at the end:"
			for p in nr_reclaim_tried_regions bytes_reclaim_tried_regions \
				nr_reclaimed_regions bytes_reclaimed_regions nr_quota_exceeds; do
				printf '  %s=%s\n' "$p" "$(cat "$params/$p" 2>/dev/null)"
			done
		} >> "$out/env.txt"
		echo N > "$params/enabled" 2>/dev/null
		;;
	kstaled | pressure)
		kill -TERM "$(cat "$rpid")" 2>/dev/null
		wait "$(cat "$rpid")" 2>/dev/null
		cp "$rstat" "$out/reclaimer.txt" 2>/dev/null
		;;
	floor) stop_oracle ;;
	esac
}

# The floor: lab/bench/oracle.c pages out a range of process PID min_age
# after the fill, and measures what the kernel's swap-out costs.
# start_oracle PID ADDR LENGTH [OPTION...]
start_oracle() {
	local opts=(--pid "$1" --addr "$2" --length "$3"
		--min-age-ms $((min_age_us / 1000))
		--interval-ms "$kst_interval_ms" --stats "$rstat" "${@:4}")
	"$bin/oracle" "${opts[@]}" > "$out/reclaimer.log" 2>&1 &
	echo $! > "$rpid"
	echo "oracle ${opts[*]}" >> "$out/env.txt"
}

# start_hotcold_oracle LINE: LINE is hotcold's "cold part at ADDR length N
# bytes (pid P)".
start_hotcold_oracle() {
	local re='cold part at (0x[0-9a-f]+) length ([0-9]+) bytes \(pid ([0-9]+)\)'
	if ! [[ $1 =~ $re ]] || ((BASH_REMATCH[2] == 0)); then
		say "floor: no cold part in '$1'"
		result floor_error "no cold part"
		return 1
	fi
	start_oracle "${BASH_REMATCH[3]}" "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
}

# Where redis-server's cold keys lie is not known: the floor pages out its
# heap (its biggest anonymous mapping), hot keys too, in one pass; its cost
# per page is the measurement, not what redis reads back afterwards.
# start_redis_oracle PID
start_redis_oracle() {
	local range perms path start end len best=0 addr
	while read -r range perms _ _ _ path; do
		[[ $perms == rw* && -z $path ]] || continue
		start=$((16#${range%-*})) end=$((16#${range#*-}))
		len=$((end - start))
		((len > best)) && best=$len addr=${range%-*}
	done < "/proc/$1/maps"
	if ((best == 0)); then
		say "floor: no anonymous mapping in redis-server"
		result floor_error "no heap"
		return 1
	fi
	start_oracle "$1" "0x$addr" "$best" --once
}

# The measured phase is over: no more passes (it stays, for the monitor's
# sample of its CPU time, until stop_oracle).
end_oracle_phase() {
	[[ -f $rpid ]] && kill -USR1 "$(cat "$rpid")" 2>/dev/null
}

# stop_oracle: ends it and records its first pass (see oracle.c).
stop_oracle() {
	[[ -f $rpid ]] || { result floor_error "oracle not started"; return; }
	kill -TERM "$(cat "$rpid")" 2>/dev/null
	wait "$(cat "$rpid")" 2>/dev/null
	cp "$rstat" "$out/reclaimer.txt" 2>/dev/null ||
		{ result floor_error "no statistics from the oracle"; return; }
	local key value
	while read -r key value; do
		case $key in
		us_per_page) result floor_us_per_page "$value" ;;
		pass1_pages) result floor_pages "$value" ;;
		pass1_cpu_us) result floor_cpu_us "$value" ;;
		pass1_wall_us) result floor_wall_us "$value" ;;
		pass1_advised_bytes) result floor_advised_bytes "$value" ;;
		pass1_done) result floor_pass_complete "$value" ;;
		passes) result floor_passes "$value" ;;
		esac
	done < "$out/reclaimer.txt"
}

start_monitor() {
	local opts=(--out "$out/timeline.csv" --cgroup "$cg")
	case $variant in
	ours | ours-ref | ours-noquota | ours-ref-noquota | ours-q* | ours-ref-q* | \
		upstream | upstream-fixed)
		opts+=(--damon) ;;
	# The oracle of floor writes its pid file once it starts, after the
	# fill: the monitor samples its CPU from then on.
	kstaled | pressure | floor) opts+=(--stats "$rstat" --pid-file "$rpid") ;;
	esac
	"$bin/monitor" "${opts[@]}" &
	MON=$!
}

# Locks the executables and libraries every variant runs (the workloads',
# and whatever is mapped executable, rescanned every 2 s), before any
# reclaimer starts: see lab/bench/pinexec.c for why.
start_pinexec() {
	PIN=
	[[ $pin_exec == on ]] || return 0
	local f files=("$bin/hotcold" "$bin/monitor" "$bin/kvload")
	for f in redis-server redis-cli redis-benchmark; do
		f=$(command -v "$f") && files+=("$f")
	done
	"$bin/pinexec" "${files[@]}" > "$out/pinexec.log" 2>&1 &
	PIN=$!
	# Its first scan, before the reclaimer can see the page cache.
	for f in $(seq 50); do
		[[ -s $out/pinexec.log ]] && break
		sleep 0.1
	done
	result pinexec "$(tail -1 "$out/pinexec.log")"
}

stop_pinexec() {
	[[ -n $PIN ]] || return 0
	kill -TERM "$PIN" 2>/dev/null
	wait "$PIN" 2>/dev/null
	result pinexec_last "$(tail -1 "$out/pinexec.log")"
}

next_phase() { kill -USR1 "$MON" 2>/dev/null; }

# Runs its arguments in the benchmark cgroup.
in_cgroup() {
	bash -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$cg" "$@"
}

run_hotcold() {
	local line status=FAIL
	while IFS= read -r line; do
		echo "$line"
		echo "$line" >> "$out/workload.log"
		case $line in
		*"filled in"*) next_phase ;;
		*"cold part at "*) [[ $variant == floor ]] && start_hotcold_oracle "$line" ;;
		*throughput:*)
			next_phase
			[[ $variant == floor ]] && end_oracle_phase
			result throughput "$(sed 's/.*: \([0-9.]*\) pages\/s$/\1/' <<< "$line")"
			result throughput_unit "hot pages read/s"
			;;
		*PASS) status=PASS ;;
		esac
	done < <(in_cgroup "$bin/hotcold" "$wss_mib" "$hot_pct" "$seconds" 2>&1)
	result workload_check "$status"
}

# redis-server with WSS of 4000-byte values, hot_pct of the keys read by
# redis-benchmark for the measured phase, in rounds of about 10 s.
run_redis() {
	# A Unix socket: the guest kernels have no IPv4/IPv6.
	local value_bytes=4000 per_key nr_keys nr_hot sock=/tmp/redis.sock srv
	local end t0 t1 reqs=0 total_s=0 n rps status=FAIL
	per_key=$((value_bytes + 300))
	nr_keys=$((wss_mib * 1048576 / per_key))
	nr_hot=$((nr_keys * hot_pct / 100))
	((nr_hot > 0)) || nr_hot=1
	in_cgroup redis-server --port 0 --unixsocket $sock --unixsocketperm 700 \
		--save '' --appendonly no --dir /tmp \
		> "$out/redis-server.log" 2>&1 &
	srv=$!
	for n in $(seq 100); do
		redis-cli -s $sock ping > /dev/null 2>&1 && break
		sleep 0.2
	done
	say "loading $nr_keys keys of $value_bytes bytes ($nr_hot hot)"
	"$bin/kvload" "$nr_keys" "$value_bytes" |
		in_cgroup redis-cli -s $sock --pipe >> "$out/workload.log" 2>&1
	echo "redis: $(redis-cli -s $sock info memory | grep -E '^used_memory_human')" |
		tee -a "$out/workload.log"
	next_phase
	# $srv is the shell that started it.
	[[ $variant == floor ]] && start_redis_oracle "$(redis-cli -s $sock info server |
		sed -n 's/^process_id:\([0-9]*\).*/\1/p')"
	end=$(($(date +%s) + seconds))
	while (($(date +%s) < end)); do
		# Short rounds, so the measured phase ends on time.
		n=20000
		t0=$(date +%s.%N)
		in_cgroup redis-benchmark -s $sock -t get -r "$nr_hot" -n "$n" \
			-c 8 -P 16 -q --csv \
			>> "$out/workload.log" 2>&1
		t1=$(date +%s.%N)
		reqs=$((reqs + n))
		total_s=$(echo "$total_s + $t1 - $t0" | bc -l)
	done
	next_phase
	[[ $variant == floor ]] && end_oracle_phase
	rps=$(echo "$reqs / $total_s" | bc -l)
	result throughput "$(printf '%.0f' "$rps")"
	result throughput_unit "GET requests/s"
	say "redis: $reqs GETs in ${total_s}s: $(printf '%.0f' "$rps")/s"
	# Nothing lost: every key is still there.
	n=$(redis-cli -s $sock dbsize)
	[[ $n == "$nr_keys" ]] && status=PASS
	say "redis: dbsize $n of $nr_keys: $status"
	result workload_check "$status"
	redis-cli -s $sock shutdown nosave > /dev/null 2>&1
	wait "$srv" 2>/dev/null
}

main() {
	: > "$out/result.txt"
	result variant "$variant"
	result workload "$workload"
	result kernel "$(uname -r)"
	setup_cgroup || { say "no cgroup v2 memory controller"; exit 1; }
	record_env
	result pin_exec "$pin_exec"
	start_pinexec
	start_reclaimer || { result error "reclaimer did not start"; exit 1; }
	start_monitor
	say "variant $variant, workload $workload ($wss_mib MiB, $hot_pct% hot, ${seconds}s)"
	case $workload in
	hotcold) run_hotcold ;;
	redis) run_redis ;;
	*) say "unknown workload $workload"; exit 2 ;;
	esac
	stop_reclaimer
	kill -TERM "$MON"
	wait "$MON"
	stop_pinexec
	say "done: $(tr '\n' ' ' < "$out/result.txt")"
}

# One line: an edit to this file while a guest runs it (see lab/lab) must
# not make bash read on into the changed text once main returns.
main; exit
