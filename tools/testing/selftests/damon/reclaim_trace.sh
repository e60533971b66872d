#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The damon:damos_before_apply tracepoint reports each region DAMON_RECLAIM
# is about to act on, in the format of upstream Linux 6.12 (which perf and
# trace-cmd users parse): the scheme's pattern holds for every region
# reported (no access in the window, at least min_age old), and the regions
# lie in the System RAM DAMON_RECLAIM says it watches (its log line and
# its monitored_ranges parameter, empty again when it stops).

source "$(dirname "$0")/lib.sh"

TRACING=/sys/kernel/tracing
EVENT=$TRACING/events/damon/damos_before_apply
FORMAT='print fmt: "ctx_idx=%u scheme_idx=%u target_idx=%lu nr_regions=%u'
FORMAT+=' %lu-%lu: %u %u", REC->context_idx, REC->scheme_idx,'
FORMAT+=' REC->target_idx, REC->nr_regions, REC->start, REC->end,'
FORMAT+=' REC->nr_accesses, REC->age'
MIN_AGE_US=1000000
AGGR_US=100000

require_reclaim
[ -d "$EVENT" ] || mount -t tracefs nodev "$TRACING" 2>/dev/null
[ -d "$EVENT" ] || skip "no damon:damos_before_apply tracepoint"

cleanup() {
	echo 0 > "$EVENT/enable" 2>/dev/null
	echo > "$TRACING/trace" 2>/dev/null
	restore_defaults
}

mark_dmesg
restore_defaults
trap cleanup EXIT

if grep -qxF "$FORMAT" "$EVENT/format"; then
	pass "the event prints in upstream's format"
else
	fail "format differs from upstream's: $(grep '^print fmt' "$EVENT/format")"
fi

# Always active, counting only (dry_run): every cold region is acted on.
set_params dry_run=Y min_age=$MIN_AGE_US aggr_interval=$AGGR_US quota_ms=0 \
	quota_sz=0 wmarks_high=1000 wmarks_mid=999 wmarks_low=0 \
	wmarks_interval=100000
echo > "$TRACING/trace"
echo 1 > "$EVENT/enable"
wr enabled Y || fail "enabling failed: $WERR"

has_events() { grep -q 'damos_before_apply:' "$TRACING/trace"; }
wait_for 60 has_events || fail "no damos_before_apply event in 60 s"
echo 0 > "$EVENT/enable"
# What it watches, as it says in its log and its monitored_ranges.
rdv monitored_ranges
read -r -a ranges <<< "$RV"
((${#ranges[@]})) || fail "monitored_ranges is empty while running"
expect_dmesg 'damon_reclaim: watching [0-9]+ MiB of System RAM in [0-9]+ range' \
	"a log line saying what is watched"
wr enabled N || fail "disabling failed: $WERR"
expect_value monitored_ranges "" "monitored_ranges when off"

# watched START END: [START, END) lies in one of the monitored ranges.
watched() {
	local rg
	for rg in "${ranges[@]}"; do
		(($1 >= ${rg%-*} && $2 <= ${rg#*-})) && return 0
	done
	return 1
}

nr=0 bad=0
re='ctx_idx=([0-9]+) scheme_idx=([0-9]+) target_idx=([0-9]+)'
re+=' nr_regions=([0-9]+) ([0-9]+)-([0-9]+): ([0-9]+) ([0-9]+)$'
while IFS= read -r line; do
	[[ $line == *damos_before_apply:* ]] || continue
	nr=$((nr + 1))
	if ! [[ $line =~ $re ]]; then
		fail "unparsable event: $line"
		bad=$((bad + 1))
		continue
	fi
	ctx=${BASH_REMATCH[1]} sch=${BASH_REMATCH[2]} tgt=${BASH_REMATCH[3]}
	nrr=${BASH_REMATCH[4]} start=${BASH_REMATCH[5]} end=${BASH_REMATCH[6]}
	acc=${BASH_REMATCH[7]} age=${BASH_REMATCH[8]}
	if ((ctx || sch || tgt || !nrr || start >= end || acc ||
	     age < MIN_AGE_US / AGGR_US)) || ! watched "$start" "$end"; then
		((bad++ < 5)) && fail "event off the pattern or the ranges: $line"
	fi
done < "$TRACING/trace"
log "$nr events, $bad off the pattern (monitored_ranges: ${ranges[*]})"
((nr > 0)) || fail "no event recorded"
((bad == 0)) && pass "every region reported matches the scheme's pattern"
finish
