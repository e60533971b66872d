#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Parameter fuzz of DAMON_RECLAIM: every parameter under
# /sys/module/damon_reclaim/parameters/ gets every value of a table of
# boundaries, overflows and malformed numbers, while the module is off
# (state a) and while it runs an active scheme, then committed (state b);
# deliberate combinations follow (huge intervals that must not make kdamond
# spin or stop slowly, huge region counts and ranges).  The boot command
# line (state c) is covered by the lab's boot cases and
# reclaim_boot_check.sh.
#
# The contract:
# - numbers are decimal (leading zeros too: "0100" is 100) or 0x/0X hex, with
#   at most one trailing newline; anything else (empty, blanks, a sign,
#   garbage, beyond 2^64-1 or the parameter's range) is refused with EINVAL
#   and the old value stays.  Bools take what kstrtobool() takes.
# - a write to a read-only parameter fails (permission), its value stays.
# - an accepted value lets the module run, or makes enabled=Y and
#   commit_inputs=Y fail with EINVAL and a kernel log line naming the
#   parameter; a failed commit leaves the running kdamond as it was.
# - every write returns within 10 s (enabled=N within 5 s); no oops, BUG,
#   WARNING, KASAN/UBSAN report or lockup; an idle kdamond (huge intervals)
#   stays below 50% of a CPU.
#
# Written values go through shell builtins only (forks are slow under
# emulation).  A watchdog reports a write that does not return (with the
# stacks of the writer and of kdamond).
#
# Environment (for debugging; the defaults are the full test):
#   FUZZ_SETTLE   seconds kdamond runs with each committed value (0.1)
#   FUZZ_STATES   which of "a b combo" to run (all)
#   FUZZ_PARAMS   parameters to fuzz (all)
#   FUZZ_SKIP     "NAME=VALUE ..." pairs not to try, e.g. one that is known
#                 to crash the kernel, to see what comes after it

source "$(dirname "$0")/lib.sh"

export LC_ALL=C

ULONG_MAX=18446744073709551615
UINT_MAX=4294967295
SETTLE=${FUZZ_SETTLE:-0.1}
WRITE_LIMIT_S=10
STOP_LIMIT_S=5
IDLE_CPU_PCT=50

# The values.  Each is written with one trailing newline ("echo"), except
# those starting with RAW:, written as they are.
VALUES=(
	0 1 2 3 1000 1001
	2147483647 2147483648 4294967295 4294967296 4294967297
	9223372036854775808 18446744073709551615 18446744073709551616
	-1 +5 -0
	"" " " " 5" "5 " $'5\n' $'5\t' RAW:5 RAW:abc
	abc 5x 0.5 1e3
	0100 007 08
	0x10 0X1F 0x 0xffffffffffffffff 0x10000000000000000
	123456789012345678901234567890
	y N on off
)

TUNABLES=()
for kv in "${DEFAULTS[@]}"; do
	TUNABLES+=("${kv%%=*}")
done

# Ranges of the numeric parameters, inclusive.
declare -A LO HI
for p in min_age quota_ms quota_sz quota_mem_pressure_us \
	quota_autotune_feedback monitor_region_start monitor_region_end; do
	LO[$p]=0 HI[$p]=$ULONG_MAX
done
for p in quota_reset_interval_ms wmarks_interval sample_interval aggr_interval; do
	LO[$p]=1 HI[$p]=$ULONG_MAX
done
for p in wmarks_high wmarks_mid wmarks_low; do
	LO[$p]=0 HI[$p]=1000
done
for p in min_nr_regions max_nr_regions; do
	LO[$p]=3 HI[$p]=65536
done
declare -A IS_RO
for p in "${READ_ONLY[@]}"; do
	IS_RO[$p]=1
done

# The configuration of state (b): an active scheme (free memory is always
# below the high watermark) on regions unaccessed for a second.
RUN_BASE=(min_age=1000000 quota_ms=0 wmarks_high=1000 wmarks_mid=999
	wmarks_low=0)

declare -A COMBOS
STATE=setup

# === Helpers, builtins only ===

# nap SECONDS: sleeps without a fork (a read that times out on a pipe
# nobody writes to).
exec {NAP_FD}<> <(:)
nap() { read -r -t "$1" -u "$NAP_FD" _; }

now_us() { NOW_US=${EPOCHREALTIME/./}; }

# dec_cmp A B: DC is -1, 0 or 1 as decimal A (no leading zeros) is below,
# equal to or above B.
dec_cmp() {
	if ((${#1} != ${#2})); then
		DC=$(((${#1} < ${#2}) ? -1 : 1))
	elif [[ $1 == "$2" ]]; then
		DC=0
	elif [[ $1 < "$2" ]]; then
		DC=-1
	else
		DC=1
	fi
}

# parse_num TEXT: NUM is what the contract reads back for TEXT (newline
# already stripped); fails if TEXT is no number or above ULONG_MAX.
parse_num() {
	local v=$1
	if [[ $v =~ ^0[xX]([0-9a-fA-F]+)$ ]]; then
		v=${BASH_REMATCH[1]}
		while [[ $v == 0?* ]]; do v=${v#0}; done
		((${#v} <= 16)) || return 1
		printf -v NUM '%u' "0x$v"
		return 0
	fi
	[[ $v =~ ^[0-9]+$ ]] || return 1
	while [[ $v == 0?* ]]; do v=${v#0}; done
	dec_cmp "$v" "$ULONG_MAX"
	((DC <= 0)) || return 1
	NUM=$v
}

# kbool TEXT: BOOL is Y or N as kstrtobool() reads TEXT (as written,
# newline included); fails where it refuses TEXT.
kbool() {
	case ${1:0:1} in
	[yYtT1]) BOOL=Y ;;
	[nNfF0]) BOOL=N ;;
	[oO])
		case ${1:1:1} in
		[nN]) BOOL=Y ;;
		[fF]) BOOL=N ;;
		*) return 1 ;;
		esac
		;;
	*) return 1 ;;
	esac
}

# written VALUE: OUT is what a write of table VALUE puts in the file.
written() {
	if [[ $1 == RAW:* ]]; then OUT=${1#RAW:}; else OUT=$1$'\n'; fi
}

# expect_of NAME VALUE: EXP is "ok" (EXPV: what NAME then reads) or
# "einval", or "eperm" for read-only parameters.
expect_of() {
	local name=$1 text
	written "$2"
	EXP=einval EXPV=
	if [[ -n ${IS_RO[$name]:-} ]]; then
		EXP=eperm
	elif [[ -n ${LO[$name]:-} ]]; then
		text=${OUT%$'\n'}
		parse_num "$text" || return 0
		dec_cmp "$NUM" "${LO[$name]}"
		((DC >= 0)) || return 0
		dec_cmp "$NUM" "${HI[$name]}"
		((DC <= 0)) || return 0
		EXP=ok EXPV=$NUM
	elif kbool "$OUT"; then
		EXP=ok EXPV=$BOOL
		[ "$name" == commit_inputs ] && EXPV=N
	fi
	return 0
}

# The watchdog: the main shell writes a heartbeat before each write; a
# heartbeat older than WRITE_LIMIT_S means a write has not returned.
HB_FILE=$(mktemp /tmp/damon-fuzz-hb.XXXXXX)
HB_N=0
kdamond_stacks() {
	local f c
	for f in /proc/[0-9]*/comm; do
		c=
		read -r c 2>/dev/null < "$f"
		[[ $c == kdamond.* ]] || continue
		echo "# watchdog: stack of $c (${f%/comm}):"
		sed 's/^/#     /' "${f%/comm}/stack" 2>/dev/null
	done
}
start_watchdog() {
	local main=$$
	(
		last= since=$SECONDS reported=0
		while [ -d "/proc/$main" ]; do
			nap 1
			hb=
			read -r hb < "$HB_FILE" 2>/dev/null
			if [[ $hb != "$last" ]]; then
				last=$hb since=$SECONDS reported=0
				continue
			fi
			if ((reported == 0 && SECONDS - since >= WRITE_LIMIT_S)) ||
				((reported == 1 && SECONDS - since >= 60)); then
				reported=$((reported + 1))
				echo "# FAIL: watchdog: no return for" \
					"$((SECONDS - since)) s from write #${hb#* * }"
				echo "# watchdog: stack of the writer ($main):"
				sed 's/^/#     /' "/proc/$main/stack" 2>/dev/null
				kdamond_stacks
			fi
		done
	) &
	WATCHDOG_PID=$!
}

# fw NAME VALUE [LIMIT_S]: writes table VALUE to NAME, timing it.  Returns
# the write's status; WERR is its error message, WUS its duration in us.
fw() {
	local rc=0 t0 shown
	written "$2"
	printf -v shown '%q' "$OUT"
	HB_N=$((HB_N + 1))
	printf '%d %d %s=%s (state %s)\n' "$HB_N" "$EPOCHSECONDS" "$1" "$shown" \
		"$STATE" > "$HB_FILE"
	now_us
	t0=$NOW_US
	printf '%s' "$OUT" 2> "$WERR_FILE" > "$PARAMS/$1" || rc=$?
	now_us
	WUS=$((NOW_US - t0))
	WERR=
	((rc)) && read -r WERR < "$WERR_FILE"
	# "reclaim_fuzz.sh: line N: printf: write error: Invalid argument"
	WERR=${WERR##*: }
	if ((WUS > ${3:-$WRITE_LIMIT_S} * 1000000)); then
		fail "$STATE: writing $1=$shown took $((WUS / 1000)) ms" \
			"(limit ${3:-$WRITE_LIMIT_S} s)"
	fi
	return $rc
}

# fw_ok NAME VALUE [LIMIT_S] WHAT: fw, failing the test if refused.
fw_ok() {
	fw "$1" "$2" "${3:-}" && return 0
	fail "$STATE: ${4:-writing} $1=$2 refused: $WERR"
	return 1
}

fw_params() {
	local kv rc=0
	for kv in "$@"; do
		fw_ok "${kv%%=*}" "${kv#*=}" || rc=1
	done
	return $rc
}

# Kernel log, read from /dev/kmsg with builtins (an exec of dmesg costs
# seconds here): the messages since the previous kmsg_new call in NEWLOG;
# kernel reports among them fail the test.  "read -t 0" only polls, so a
# record is never cut by a timeout.
BAD_RE='BUG:|WARNING:|KASAN|UBSAN|Oops|general protection'
BAD_RE+='|possible circular|possible recursive|inconsistent lock'
BAD_RE+='|suspicious RCU|INFO: task .* blocked|soft lockup|rcu.* stall'
BAD_RE+='|Call Trace|Kernel panic|Bad page|kernel BUG|refcount_t:'
exec {KMSG_FD}< /dev/kmsg
kmsg_new() {
	local rec line bad=0 nr=0
	NEWLOG=()
	while read -r -t 0 -u "$KMSG_FD"; do
		# Fails once (EPIPE) when records were overwritten unread.
		read -r -u "$KMSG_FD" rec || continue
		# Continuation (dictionary) lines start with a blank.
		[[ $rec == " "* ]] && continue
		NEWLOG+=("${rec#*;}")
		# Bounded: a kernel that logs without end must not hold us.
		((++nr < 100000)) || break
	done
	# The first call only drains: older reports are not ours.
	[ "${1:-}" == --mark ] && return 0
	for line in "${NEWLOG[@]}"; do
		[[ $line =~ $BAD_RE ]] || continue
		((bad++ == 0)) && fail "kernel report during $STATE ${1:-}:"
		((bad <= 30)) && echo "#   $line"
	done
	return 0
}

# log_names NAME: a kernel log line since the last kmsg_new names NAME.
declare -A SHOWN_LOG
log_names() {
	local line re="damon_reclaim.*(^|[^a-z_])$1([^a-z_]|$)"
	kmsg_new "$1"
	for line in "${NEWLOG[@]}"; do
		[[ $line =~ $re ]] || continue
		if [[ -z ${SHOWN_LOG[$STATE$1]:-} ]]; then
			SHOWN_LOG[$STATE$1]=1
			echo "#   log: $line"
		fi
		return 0
	done
	return 1
}

# is_kdamond PID: PID is a kdamond thread.
is_kdamond() {
	local c=
	[[ $1 =~ ^[1-9][0-9]*$ ]] || return 1
	read -r c 2>/dev/null < "/proc/$1/comm"
	[[ $c == kdamond.* ]]
}

# cpu_pct PID SECONDS: PCT is the share of one CPU thread PID used.
cpu_pct() {
	local -a s0 s1
	local t0
	PCT=-1
	read -r -a s0 2>/dev/null < "/proc/$1/stat" || return 1
	now_us
	t0=$NOW_US
	nap "$2"
	read -r -a s1 2>/dev/null < "/proc/$1/stat" || return 1
	now_us
	# utime + stime, in USER_HZ (100 on x86) ticks.
	PCT=$(((s1[13] + s1[14] - s0[13] - s0[14]) * 100 * 10000 / (NOW_US - t0)))
}

# lib.sh's, with timed and watched writes.
write_defaults() { fw_params "${DEFAULTS[@]}"; }

# === State (b): the running module ===

# start_running: the state (b) configuration, enabled.  Sets KPID.
start_running() {
	fw enabled N "$STOP_LIMIT_S"
	write_defaults
	fw_params "${RUN_BASE[@]}"
	fw_ok enabled Y "" "starting with the state (b) configuration" || return 1
	rdv kdamond_pid
	KPID=$RV
	is_kdamond "$KPID" || fail "$STATE: no kdamond after enabling (pid $KPID)"
}

# check_running WHAT: still enabled, with kdamond KPID; restarts otherwise.
check_running() {
	local en pid
	rdv enabled
	en=$RV
	rdv kdamond_pid
	pid=$RV
	[ "$en" == Y ] && [ "$pid" == "$KPID" ] && is_kdamond "$pid" && return 0
	fail "$STATE: $1: enabled $en, kdamond_pid $pid (was $KPID)"
	start_running
	return 1
}

# === One (parameter, value) ===

# effect_off NAME SHOWN: NAME holds an accepted value and the module is
# off: commit_inputs=Y (a check only) and enabled=Y both succeed (the
# module then runs and stops promptly) or both fail with EINVAL and a log
# line naming NAME.
effect_off() {
	local name=$1 shown=$2 crc=0 erc=0 cerr eerr
	fw commit_inputs Y || crc=$?
	cerr=$WERR
	fw enabled Y || erc=$?
	eerr=$WERR
	if ((erc == 0)); then
		rdv enabled
		[ "$RV" == Y ] || fail "$STATE: $name=$shown: enabled=Y accepted, enabled reads $RV"
		rdv kdamond_pid
		is_kdamond "$RV" ||
			fail "$STATE: $name=$shown: enabled=Y accepted," \
				"kdamond_pid $RV is no kdamond"
		fw_ok enabled N "$STOP_LIMIT_S" "stopping after"
		rdv kdamond_pid
		[ "$RV" == -1 ] || fail "$STATE: $name=$shown: kdamond_pid $RV after enabled=N"
	else
		rdv enabled
		[ "$RV" == N ] ||
			fail "$STATE: $name=$shown: enabled=Y failed ($eerr), enabled reads $RV"
		[[ $eerr == *"Invalid argument"* ]] ||
			fail "$STATE: $name=$shown: enabled=Y failed with '$eerr', expected EINVAL"
	fi
	if ((crc)); then
		[[ $cerr == *"Invalid argument"* ]] ||
			fail "$STATE: $name=$shown: commit_inputs=Y failed with '$cerr'," \
				"expected EINVAL"
	fi
	if (((crc == 0) != (erc == 0))); then
		fail "$STATE: $name=$shown: commit_inputs=Y ${cerr:-succeeded}," \
			"enabled=Y ${eerr:-succeeded}"
	fi
	if ((crc || erc)) && ! log_names "$name"; then
		fail "$STATE: $name=$shown refused at commit/enable, no kernel log line names $name"
	fi
}

# effect_on NAME SHOWN: NAME holds an accepted value, the module runs:
# commit_inputs=Y succeeds (kdamond keeps running with it) or fails with
# EINVAL and a log line naming NAME, kdamond unchanged.
effect_on() {
	local name=$1 shown=$2
	if fw commit_inputs Y; then
		nap "$SETTLE"
		check_running "after committing $name=$shown"
		return 0
	fi
	[[ $WERR == *"Invalid argument"* ]] ||
		fail "$STATE: committing $name=$shown failed with '$WERR', expected EINVAL"
	log_names "$name" ||
		fail "$STATE: committing $name=$shown refused, no kernel log line names $name"
	check_running "after the refused commit of $name=$shown"
	return 1
}

# try NAME VALUE: one fuzz write in the current state, its checks, and the
# previous value back.
try() {
	local name=$1 v=$2 prev shown rc=0 committed=0 limit=$WRITE_LIMIT_S
	if [[ " ${FUZZ_SKIP:-} " == *" $name=$v "* ]]; then
		log "$STATE: skipping $name=$v (FUZZ_SKIP)"
		return
	fi
	COMBOS[$STATE]=$((${COMBOS[$STATE]:-0} + 1))
	written "$v"
	printf -v shown '%q' "$OUT"
	rdv "$name"
	prev=$RV
	expect_of "$name" "$v"
	# Turning off must be prompt.
	[[ $name == enabled && $EXP == ok && $EXPV == N ]] && limit=$STOP_LIMIT_S
	fw "$name" "$v" "$limit" || rc=$?

	case $EXP in
	eperm)
		if ((rc == 0)); then
			fail "$STATE: root wrote $shown to read-only $name"
		elif [[ $WERR != *"Permission denied"* && $WERR != *"not permitted"* ]]; then
			fail "$STATE: write $shown to read-only $name failed with '$WERR'," \
				"expected a permission error"
		fi
		rdv "$name"
		if [ "$name" == kdamond_pid ] || [ "$STATE" == a ]; then
			[ "$RV" == "$prev" ] ||
				fail "$STATE: read-only $name went from $prev to $RV" \
					"on writing $shown"
		else
			# Statistics of a running kdamond only grow.
			dec_cmp "$RV" "$prev"
			((DC >= 0)) ||
				fail "$STATE: read-only $name went from $prev down to $RV" \
					"on writing $shown"
		fi
		return
		;;
	ok)
		if ((rc)); then
			fail "$STATE: $name=$shown refused ($WERR), expected accepted as $EXPV"
			return
		fi
		rdv "$name"
		if [ "$name" == enabled ]; then
			:	# checked below
		elif [ "$RV" != "$EXPV" ]; then
			fail "$STATE: $name=$shown reads '$RV', expected '$EXPV'"
		fi
		;;
	einval)
		if ((rc == 0)); then
			rdv "$name"
			fail "$STATE: $name=$shown accepted (reads '$RV'), expected EINVAL"
		else
			[[ $WERR == *"Invalid argument"* ]] ||
				fail "$STATE: $name=$shown failed with '$WERR', expected EINVAL"
			rdv "$name"
			[ "$RV" == "$prev" ] ||
				fail "$STATE: refused $name=$shown changed it from '$prev' to '$RV'"
		fi
		;;
	esac

	case $name in
	enabled)
		if [ "$STATE" == a ]; then
			rdv enabled
			if ((rc == 0)) && [ "$RV" == Y ]; then
				rdv kdamond_pid
				is_kdamond "$RV" || fail "$STATE: enabled=$shown: no kdamond"
				fw_ok enabled N "$STOP_LIMIT_S" "stopping after"
			fi
			rdv kdamond_pid
			[ "$RV" == -1 ] ||
				fail "$STATE: after enabled=$shown and off: kdamond_pid $RV"
		else
			rdv enabled
			if ((rc == 0)) && [ "$RV" == N ]; then
				rdv kdamond_pid
				[ "$RV" == -1 ] ||
					fail "$STATE: enabled=$shown stopped, kdamond_pid $RV"
				start_running
			else
				check_running "after enabled=$shown"
			fi
		fi
		return
		;;
	commit_inputs)
		if [ "$STATE" == a ]; then
			rdv enabled
			[ "$RV" == N ] || fail "$STATE: commit_inputs=$shown enabled the module"
		else
			check_running "after commit_inputs=$shown"
		fi
		return
		;;
	esac

	((rc == 0)) || return
	if [ "$STATE" == a ]; then
		effect_off "$name" "$shown"
	else
		effect_on "$name" "$shown" && committed=1
	fi
	fw_ok "$name" "$prev" "" "restoring" || write_defaults
	if ((committed)); then
		fw_ok commit_inputs Y "" "committing the restored $name after"
		check_running "after restoring $name"
	fi
}

sweep() {
	local p v
	for p in ${FUZZ_PARAMS:-"${TUNABLES[@]}" enabled commit_inputs "${READ_ONLY[@]}"}; do
		for v in "${VALUES[@]}"; do
			try "$p" "$v"
		done
		kmsg_new "$p"
	done
}

# === Deliberate combinations, state (b) ===

# combo LIMIT_PCT STOP KV...: commits the KV pairs into the running module
# (they form a valid configuration), measures kdamond's CPU use over 2 s
# (fails above LIMIT_PCT unless it is 0), then with STOP=1 stops it (within
# STOP_LIMIT_S) and starts it again, else commits the state (b)
# configuration back (waking kdamond from whatever sleep).
combo() {
	local limit=$1 stop=$2 what kv
	shift 2
	what="$*"
	for kv in "$@"; do
		if [[ " ${FUZZ_SKIP:-} " == *" $kv "* ]]; then
			log "$STATE: skipping $what (FUZZ_SKIP)"
			return
		fi
	done
	COMBOS[$STATE]=$((${COMBOS[$STATE]:-0} + $#))
	kmsg_new
	if ! fw_params "$@"; then
		start_running
		return
	fi
	if ! fw commit_inputs Y; then
		# Allowed: EINVAL with a log line naming one of the parameters.
		local err=$WERR named=
		kmsg_new "($what)"
		local line
		for line in "${NEWLOG[@]}"; do
			for kv in "$@"; do
				[[ $line == *damon_reclaim*"${kv%%=*}"* ]] && named=$line
			done
		done
		if [[ $err == *"Invalid argument"* && -n $named ]]; then
			log "$what: commit refused (EINVAL): $named"
		else
			local where=", no log line naming its parameters"
			[[ -n $named ]] && where=", log: $named"
			fail "$STATE: committing $what failed with" \
				"'$err'$where"
		fi
		check_running "after the refused commit of $what"
		write_defaults
		fw_params "${RUN_BASE[@]}"
		return
	fi
	nap 0.5
	check_running "after committing $what" || return
	cpu_pct "$KPID" 2
	log "$what: kdamond at $PCT% of a CPU"
	if ((limit && PCT > limit)); then
		fail "$STATE: $what: kdamond at $PCT% of a CPU, expected below $limit%"
	fi
	if ((stop)); then
		fw_ok enabled N "$STOP_LIMIT_S" "stopping from $what" &&
			log "$what: enabled=N took $((WUS / 1000)) ms"
		rdv kdamond_pid
		[ "$RV" == -1 ] || fail "$STATE: $what: kdamond_pid $RV after enabled=N"
		start_running
	else
		write_defaults
		fw_params "${RUN_BASE[@]}"
		fw_ok commit_inputs Y "" "committing back from $what" &&
			log "$what: commit back took $((WUS / 1000)) ms"
		check_running "after committing back from $what"
	fi
	kmsg_new "($what)"
}

combos() {
	local v
	start_running
	cpu_pct "$KPID" 2
	log "state (b) configuration: kdamond at $PCT% of a CPU"
	for v in 4294967296 9223372036854775808 $ULONG_MAX; do
		combo $IDLE_CPU_PCT 0 sample_interval=$v aggr_interval=$v
		combo $IDLE_CPU_PCT 0 aggr_interval=$v
		combo $IDLE_CPU_PCT 0 wmarks_high=0 wmarks_mid=0 wmarks_low=0 \
			wmarks_interval=$v
	done
	combo $IDLE_CPU_PCT 1 sample_interval=$ULONG_MAX aggr_interval=$ULONG_MAX
	combo $IDLE_CPU_PCT 1 aggr_interval=$ULONG_MAX
	combo $IDLE_CPU_PCT 1 wmarks_high=0 wmarks_mid=0 wmarks_low=0 \
		wmarks_interval=$ULONG_MAX
	combo $IDLE_CPU_PCT 1 wmarks_high=0 wmarks_mid=0 wmarks_low=0 \
		wmarks_interval=1
	combo 0 0 min_age=$ULONG_MAX quota_reset_interval_ms=$ULONG_MAX \
		quota_sz=$ULONG_MAX quota_ms=$ULONG_MAX
	combo 0 0 quota_ms=1 quota_sz=1 quota_reset_interval_ms=1 min_age=0
	combo 0 0 quota_mem_pressure_us=$ULONG_MAX quota_autotune_feedback=$ULONG_MAX
	combo 0 0 min_nr_regions=3 max_nr_regions=3
	combo 0 0 monitor_region_start=0 monitor_region_end=$ULONG_MAX
	combo 0 1 monitor_region_start=9223372036854775808 \
		monitor_region_end=$ULONG_MAX
	combo 0 1 sample_interval=1 aggr_interval=1
	combo 0 1 max_nr_regions=65536
	# Last: the most regions there may be, from the start.
	combo 0 1 min_nr_regions=65536 max_nr_regions=65536
}

# === Main ===

require_reclaim
mark_dmesg
kmsg_new --mark
start_watchdog
cleanup() {
	kill "$WATCHDOG_PID" 2>/dev/null
	wait "$WATCHDOG_PID" 2>/dev/null
	rm -f "$HB_FILE"
	restore_defaults
}
trap cleanup EXIT
restore_defaults
START=$SECONDS

STATES=" ${FUZZ_STATES:-a b combo} "
if [[ $STATES == *" a "* ]]; then
	STATE=a
	log "state (a): ${#VALUES[@]} values into every parameter, module off"
	sweep
	log "state (a) done after $((SECONDS - START)) s"
fi
if [[ $STATES == *" b "* ]]; then
	STATE=b
	log "state (b): the same, module running an active scheme, each committed"
	start_running
	sweep
	log "state (b) done after $((SECONDS - START)) s"
fi
if [[ $STATES == *" combo "* ]]; then
	STATE=combo
	log "combinations, module running"
	combos
	log "combinations done after $((SECONDS - START)) s"
fi

STATE=end
fw_ok enabled N "$STOP_LIMIT_S" "stopping at the end"
check_consistent "at the end"
kmsg_new
total=0
for s in "${!COMBOS[@]}"; do
	total=$((total + COMBOS[$s]))
done
log "tried $total (parameter, value, state) combinations:" \
	"a ${COMBOS[a]:-0}, b ${COMBOS[b]:-0}," \
	"combinations ${COMBOS[combo]:-0}, in $((SECONDS - START)) s"
finish
