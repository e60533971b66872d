#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the physical-address access-check and pageout tests: start
# damon_hotcold, send it commands, read its answers.  Source after lib.sh.

HC_BIN=$(dirname "$0")/damon_hotcold
HC_DIR=
HC_PID=

# require_zram MIB: skips unless a zram device with MIB MiB free is swap.
require_zram() {
	grep -q '^/dev/zram' /proc/swaps || skip "no zram swap device"
	[ "$(awk '/^SwapFree:/ { print $2 }' /proc/meminfo)" -gt $(($1 * 1024)) ] ||
		skip "needs more than $1 MiB of free swap"
}

hc_replied() { (($(wc -l < "$HC_DIR/out") > $1)); }

# hc_start ARGS...: starts damon_hotcold ARGS and waits until it is ready.
# Caches are not dropped first: the page cache freed would be scattered
# single pages, handed out first, and the hot and cold areas would then
# interleave physically, which physical monitoring cannot tell apart.
hc_start() {
	[ -x "$HC_BIN" ] || skip "$HC_BIN is not built"
	HC_DIR=$(mktemp -d /tmp/damon-hotcold.XXXXXX)
	mkfifo "$HC_DIR/in"
	"$HC_BIN" "$@" < "$HC_DIR/in" > "$HC_DIR/out" 2>&1 &
	HC_PID=$!
	exec 7> "$HC_DIR/in"
	if ! wait_for 300 hc_replied 0 || ! grep -q '^ready' "$HC_DIR/out"; then
		fail "damon_hotcold did not start: $(head -3 "$HC_DIR/out")"
		return 1
	fi
}

# hc_cmd COMMAND: sends COMMAND and prints the answer.
hc_cmd() {
	local before
	before=$(wc -l < "$HC_DIR/out")
	echo "$1" >&7
	if ! wait_for 600 hc_replied "$before"; then
		fail "damon_hotcold did not answer '$1'"
		return 1
	fi
	sed -n "$((before + 1))p" "$HC_DIR/out"
}

# hc_stop: asks damon_hotcold to exit and waits for it.
hc_stop() {
	[ -n "$HC_PID" ] || return 0
	echo quit >&7 2>/dev/null
	exec 7>&-
	wait "$HC_PID" 2>/dev/null
	HC_PID=
	rm -rf "$HC_DIR"
}

# hc_field LINE NAME: the value of NAME=VALUE in LINE (for A/B, A).
hc_field() {
	local v
	v=$(tr ' ' '\n' <<< "$1" | sed -n "s/^$2=//p")
	echo "${v%%/*}"
}

# hc_total LINE NAME: B of NAME=A/B in LINE.
hc_total() {
	tr ' ' '\n' <<< "$1" | sed -n "s/^$2=[0-9]*\///p"
}

# Parameters that make DAMON_RECLAIM page out everything unaccessed for
# 5 s, without a time quota, whatever the free memory.
RECLAIM_AGGRESSIVE=(min_age=5000000 quota_ms=0 wmarks_high=1000
	wmarks_mid=999 wmarks_low=0 wmarks_interval=1000000)

# wait_paged_out SECONDS AREA...: polls the status until at least 90% of
# each AREA is paged out.  Leaves the last status in HC_STATUS.  Logs the
# progress every 30 s, so that a slow run shows whether it stalled.
wait_paged_out() {
	local start=$SECONDS deadline=$((SECONDS + $1)) next_log=$((SECONDS + 30))
	local area res total done progress
	shift
	while :; do
		HC_STATUS=$(hc_cmd status) || return 1
		done=1
		progress=
		for area in "$@"; do
			res=$(hc_field "$HC_STATUS" "$area")
			total=$(hc_total "$HC_STATUS" "$area")
			progress+=" $area $res/$total"
			((res * 10 <= total)) || done=0
		done
		((done)) && return 0
		((SECONDS < deadline)) || return 1
		if ((SECONDS >= next_log)); then
			next_log=$((SECONDS + 30))
			log "after $((SECONDS - start)) s: resident$progress;" \
				"tried $(rd bytes_reclaim_tried_regions)," \
				"reclaimed $(rd bytes_reclaimed_regions)"
		fi
		sleep 2
	done
}
