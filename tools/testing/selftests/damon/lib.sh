#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the DAMON_RECLAIM selftests: reading and writing the module
# parameters, counting kdamond threads, restoring the defaults and checking
# the kernel log.  Source it; the tests run as root in a guest.

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

PARAMS=/sys/module/damon_reclaim/parameters
TEST_NAME=$(basename "$0")
NR_FAILED=0

# The tunables and their defaults (those of the upstream module).
DEFAULTS=(
	min_age=120000000
	quota_ms=10
	quota_sz=134217728
	quota_reset_interval_ms=1000
	quota_mem_pressure_us=0
	quota_autotune_feedback=0
	wmarks_interval=5000000
	wmarks_high=500
	wmarks_mid=400
	wmarks_low=200
	sample_interval=5000
	aggr_interval=100000
	min_nr_regions=10
	max_nr_regions=1000
	monitor_region_start=0
	monitor_region_end=0
	skip_anon=N
	dry_run=N
)

# Read-only parameters (0400).
READ_ONLY=(kdamond_pid monitored_ranges nr_reclaim_tried_regions
	bytes_reclaim_tried_regions nr_reclaimed_regions bytes_reclaimed_regions
	nr_quota_exceeds)

log() { echo "# $TEST_NAME: $*"; }
pass() { echo "# PASS: $*"; }
fail() {
	echo "# FAIL: $*"
	NR_FAILED=$((NR_FAILED + 1))
}
skip() {
	echo "# SKIP: $*"
	rm -f "$WERR_FILE"
	ENDING=1
	exit $KSFT_SKIP
}

# Ends the test: 0 if no check failed, 1 otherwise.
finish() {
	check_dmesg_clean
	rm -f "$WERR_FILE"
	ENDING=1
	if ((NR_FAILED)); then
		log "$NR_FAILED check(s) failed"
		exit $KSFT_FAIL
	fi
	log "all checks passed"
	exit $KSFT_PASS
}

require_reclaim() {
	[ "$(id -u)" -eq 0 ] || skip "must run as root"
	[ -d "$PARAMS" ] || skip "DAMON_RECLAIM is not built in ($PARAMS missing)"
}

# Reads and writes use shell builtins only: a fork and exec costs a
# debug kernel under emulation a good part of a second, and the parameter
# tests make thousands of them.

# rdv NAME: reads parameter NAME into RV.
rdv() {
	RV=
	read -r RV < "$PARAMS/$1"
}

# rd NAME: prints the value of parameter NAME.
rd() {
	rdv "$1"
	printf '%s\n' "$RV"
}

WERR_FILE=$(mktemp /tmp/damon-werr.XXXXXX)

# wr NAME VALUE: writes VALUE to NAME.  Returns the write's status and
# leaves the error message (e.g. "Invalid argument") in WERR.
wr() {
	local rc=0
	printf '%s\n' "$2" 2> "$WERR_FILE" > "$PARAMS/$1" || rc=$?
	WERR=
	((rc)) && read -r WERR < "$WERR_FILE"
	return $rc
}

# expect_value NAME VALUE WHAT: checks that NAME reads VALUE.
expect_value() {
	rdv "$1"
	if [ "$RV" == "$2" ]; then
		return 0
	fi
	fail "$3: $1 reads '$RV', expected '$2'"
	return 1
}

# expect_accept NAME VALUE [READBACK]: the write succeeds and reads back.
expect_accept() {
	if ! wr "$1" "$2"; then
		fail "write '$2' to $1 refused: $WERR"
		return 1
	fi
	expect_value "$1" "${3:-$2}" "after writing '$2'"
}

# expect_einval NAME VALUE: the write fails with EINVAL, the value stays.
expect_einval() {
	local before
	rdv "$1"
	before=$RV
	if wr "$1" "$2"; then
		fail "write '$2' to $1 accepted, expected EINVAL"
		return 1
	fi
	case $WERR in
	*"Invalid argument"*) ;;
	*) fail "write '$2' to $1 failed with '$WERR', expected EINVAL" ;;
	esac
	expect_value "$1" "$before" "after refused write '$2'"
}

# Number of threads named kdamond.*.
nr_kdamonds() {
	grep -s -l '^kdamond\.' /proc/[0-9]*/comm 2>/dev/null | wc -l
}

# Checks that the kdamond state matches "enabled": Y with exactly one
# kdamond whose pid is kdamond_pid, or N with none and kdamond_pid -1.
check_consistent() {
	local what=$1 enabled pid nr comm
	enabled=$(rd enabled)
	pid=$(rd kdamond_pid)
	nr=$(nr_kdamonds)
	if [ "$enabled" == Y ]; then
		comm=$(cat "/proc/$pid/comm" 2>/dev/null)
		if [ "$nr" -ne 1 ] || [[ $comm != kdamond.* ]]; then
			fail "$what: enabled Y, kdamond_pid $pid ($comm), $nr kdamond(s)"
			return 1
		fi
	elif [ "$nr" -ne 0 ] || [ "$pid" != -1 ]; then
		fail "$what: enabled $enabled, kdamond_pid $pid, $nr kdamond(s)"
		return 1
	fi
	return 0
}

# Writes every default back, without committing.
write_defaults() {
	local kv
	for kv in "${DEFAULTS[@]}"; do
		wr "${kv%%=*}" "${kv#*=}" ||
			fail "restoring ${kv%%=*} failed: $WERR"
	done
}

# The values DAMON_RECLAIM had when the test started (NAME=VALUE), and
# whether the test is ending (finish or skip): then restore_defaults, which
# the tests' exit handlers call, puts those back instead of the defaults, so
# that a run on a real host leaves DAMON_RECLAIM as the administrator had
# it.
ADMIN_VALUES=()
ENDING=0

save_admin_values() {
	local kv
	[ -d "$PARAMS" ] || return 0
	for kv in "${DEFAULTS[@]}" enabled=N; do
		rdv "${kv%%=*}" && ADMIN_VALUES+=("${kv%%=*}=$RV")
	done
}

# Writes the saved values back, then starts DAMON_RECLAIM if it ran.
write_admin_values() {
	local kv
	for kv in "${ADMIN_VALUES[@]}"; do
		[ "${kv%%=*}" == enabled ] && continue
		wr "${kv%%=*}" "${kv#*=}" ||
			log "restoring ${kv%%=*}=${kv#*=} failed: $WERR"
	done
	for kv in "${ADMIN_VALUES[@]}"; do
		[ "$kv" == enabled=Y ] || continue
		wr enabled Y || log "enabling DAMON_RECLAIM again failed: $WERR"
	done
}

# Turns DAMON_RECLAIM off and writes every default back (or, when the test
# ends, the values it started with).
restore_defaults() {
	wr enabled N || fail "turning off failed: $WERR"
	if ((ENDING)); then
		write_admin_values
	else
		write_defaults
	fi
}

# Writes NAME=VALUE pairs, failing the test on any refusal.
set_params() {
	local kv
	for kv in "$@"; do
		wr "${kv%%=*}" "${kv#*=}" ||
			fail "writing $kv refused: $WERR"
	done
}

# Remembers where the kernel log is, for check_dmesg_clean and dmesg_since.
mark_dmesg() { DMESG_MARK=$(dmesg | wc -l); }
dmesg_since() { dmesg | tail -n +$((${DMESG_MARK:-0} + 1)); }

# Kernel log lines that report a problem.  A test that expects call traces
# (from injected allocation failures) may drop "|Call Trace".
KERNEL_REPORTS='BUG:|WARNING:|KASAN|UBSAN|Oops|general protection'
KERNEL_REPORTS+='|possible circular|possible recursive|inconsistent lock'
KERNEL_REPORTS+='|suspicious RCU|INFO: task .* blocked|refcount_t:'
KERNEL_REPORTS+='|Kernel panic|Bad page|Call Trace'

# Fails if the kernel complained since mark_dmesg (KASAN, lockdep, WARN...).
check_dmesg_clean() {
	local bad
	[ -n "${DMESG_MARK:-}" ] || return 0
	bad=$(dmesg_since | grep -E "$KERNEL_REPORTS")
	if [ -n "$bad" ]; then
		fail "kernel log has errors:"
		echo "$bad" | head -20 | sed 's/^/#   /'
	fi
}

# expect_dmesg REGEX WHAT: the kernel log since mark_dmesg matches REGEX.
expect_dmesg() {
	if dmesg_since | grep -qE "$1"; then
		return 0
	fi
	fail "$2: no kernel log line matches '$1'"
	return 1
}

# wait_for SECONDS COMMAND...: polls COMMAND every 0.2 s until it succeeds.
wait_for() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@"; do
		((SECONDS < deadline)) || return 1
		sleep 0.2
	done
}

# param_ge NAME N: whether parameter NAME reads at least N (for wait_for).
param_ge() { (($(rd "$1") >= $2)); }

# cpu_ticks PID: CPU time (user + system) thread PID used so far, in
# clock ticks (getconf CLK_TCK per second).
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# ticks_over PID SECONDS: the CPU ticks thread PID uses in the next SECONDS.
ticks_over() {
	local before
	before=$(cpu_ticks "$1")
	sleep "$2"
	echo $(($(cpu_ticks "$1") - before))
}

# Swap in use, in KiB.
swap_used_kib() {
	awk '/^SwapTotal:/ { t = $2 } /^SwapFree:/ { f = $2 }
		END { print t - f }' /proc/meminfo
}

# make_cold_file MIB: fills MIB MiB of a private tmpfs with data nobody
# touches afterwards (shmem, so it pages out to swap), at COLD_FILE.  Not in
# a subshell: drop_cold_file needs COLD_DIR.
make_cold_file() {
	COLD_DIR=$(mktemp -d /tmp/damon-cold.XXXXXX) || return 1
	COLD_FILE=$COLD_DIR/cold
	mount -t tmpfs -o size=$(($1 + 16))m tmpfs "$COLD_DIR" || return 1
	cold_data "$1" > "$COLD_FILE"
}

# setup_cold_test MIB: starts a test that pages out a cold file of MIB MiB:
# skips it without DAMON_RECLAIM or without more swap than that, marks the
# kernel log, and restores the defaults now and when the test exits (the
# cold file dropped too).
setup_cold_test() {
	require_reclaim
	[ "$(awk '/^SwapTotal:/ { print $2 }' /proc/meminfo)" -gt $(($1 * 1024)) ] ||
		skip "needs more than $1 MiB of swap"
	mark_dmesg
	restore_defaults
	trap 'drop_cold_file; restore_defaults' EXIT
}

# cold_data MIB: the content of a cold file of MIB MiB.
cold_data() { yes 'DAMON_RECLAIM cold data' | head -c $(($1 << 20)); }

# expect_cold_intact MIB WHAT: the cold file of MIB MiB still reads back
# what make_cold_file wrote, whatever was paged out of it.
expect_cold_intact() {
	cold_data "$1" | cmp -s - "$COLD_FILE" && return 0
	fail "$2: cold data changed after pageout"
	return 1
}

drop_cold_file() {
	[ -n "${COLD_DIR:-}" ] || return 0
	umount "$COLD_DIR" 2>/dev/null
	rmdir "$COLD_DIR" 2>/dev/null
	COLD_DIR=
}

save_admin_values
