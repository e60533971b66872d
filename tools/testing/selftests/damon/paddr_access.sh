#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Physical-address access checks: while DAMON_RECLAIM monitors all of
# memory (with a min_age never reached, so nothing is paged out), the
# damon:damon_aggregated tracepoint shows accesses in the regions made of
# the physical pages of an area kept hot, and none in those made of the
# pages of a cold area.  The pages are mapped to physical addresses through
# /proc/self/pagemap.

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/paddr_lib.sh"

HOT_MIB=${HOT_MIB:-32}
COLD_MIB=${COLD_MIB:-128}
WARMUP_S=${WARMUP_S:-10}
TRACE_S=${TRACE_S:-5}
TRACE_MAX_S=${TRACE_MAX_S:-60}
MIN_RECORDS=${MIN_RECORDS:-20}
TRACING=/sys/kernel/tracing
EVENT=$TRACING/events/damon/damon_aggregated

tracing_off() {
	[ -f "$EVENT/enable" ] || return 0
	echo 0 > "$EVENT/enable"
	echo 1 > "$TRACING/tracing_on"
}

require_reclaim
if [ ! -d "$EVENT" ]; then
	mount -t tracefs nodev "$TRACING" 2>/dev/null
	[ -d "$EVENT" ] || skip "no damon:damon_aggregated tracepoint"
fi
mark_dmesg
restore_defaults
trap 'tracing_off; hc_stop; restore_defaults' EXIT

hc_start --hot-mib "$HOT_MIB" --cold-mib "$COLD_MIB" || finish
set_params "${RECLAIM_AGGRESSIVE[@]}" min_age=18446744073709551615
expect_accept enabled Y
# Let the regions adapt to the hot and cold areas first.
sleep "$WARMUP_S"

echo 0 > "$TRACING/tracing_on"
echo 16384 > "$TRACING/buffer_size_kb"
echo > "$TRACING/trace"
echo 1 > "$EVENT/enable"
echo 1 > "$TRACING/tracing_on"
# Judge at least MIN_RECORDS records of each kind: how fast the regions
# adapt to where the areas landed in physical memory varies from boot to
# boot, and a handful of records is a coin toss.
traced=0
while :; do
	sleep "$TRACE_S"
	traced=$((traced + TRACE_S))
	cp "$TRACING/trace" "$HC_DIR/trace"
	result=$(hc_cmd "trace $HC_DIR/trace")
	hot=$(hc_field "$result" hot_records)
	cold=$(hc_field "$result" cold_records)
	((hot < MIN_RECORDS || cold < MIN_RECORDS)) || break
	((traced < TRACE_MAX_S)) || break
done
echo 0 > "$TRACING/tracing_on"
echo 0 > "$EVENT/enable"
expect_accept enabled N

log "$result (traced $traced s)"
hot_accessed=$(hc_field "$result" hot_accessed)
cold_accessed=$(hc_field "$result" cold_accessed)
[ "$(hc_field "$result" hot_pfns)" -gt 0 ] ||
	skip "no page frame numbers in pagemap (not root?)"

# A hot region shows accesses in a window when the page sampled in it is
# one of its hot pages, so about hot_share percent of the hot records
# should; fewer than half of that is a miss of access checking, not bad
# luck.  Almost no cold record shows accesses.
hot_share=$(hc_field "$result" hot_share)
if ((hot == 0)); then
	fail "no region was mostly made of the hot area's pages"
elif ((hot_accessed * 200 < hot * hot_share)); then
	fail "only $hot_accessed of $hot hot region records show accesses," \
		"expected about $((hot * hot_share / 100))" \
		"(hot area swept every $(hc_field "$result" sweep_ms) ms)"
fi
if ((cold == 0)); then
	fail "no region was mostly made of the cold area's pages"
elif ((cold_accessed * 20 > cold)); then
	fail "$cold_accessed of $cold cold region records show accesses"
fi
hc_stop

finish
