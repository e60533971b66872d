#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Memory hotplugged while DAMON_RECLAIM runs is watched: a memory block
# added (through the memory/probe interface) and onlined shows up in the
# regions of the damon:damon_aggregated tracepoint and in monitored_ranges
# within seconds, with a log line, and offlining it again breaks nothing,
# all without kernel reports.
#
# Needs memory the kernel does not use but the machine has: boot with
# mem= below the machine's RAM (the lab boots a 2 GiB guest with
# mem=1536M), CONFIG_MEMORY_HOTPLUG, CONFIG_ARCH_MEMORY_PROBE and tracing.

source "$(dirname "$0")/lib.sh"

MEMORY=/sys/devices/system/memory
TRACING=/sys/kernel/tracing
EVENT=$TRACING/events/damon/damon_aggregated

require_reclaim
[ -w "$MEMORY/probe" ] || skip "no $MEMORY/probe (CONFIG_ARCH_MEMORY_PROBE)"
grep -qE '(^| )mem=' /proc/cmdline ||
	skip "boot with mem= below the machine's RAM to leave memory to probe"
[ -d "$EVENT" ] || mount -t tracefs nodev "$TRACING" 2>/dev/null
[ -d "$EVENT" ] || skip "no damon:damon_aggregated tracepoint"

# The end of the highest System RAM range, rounded up to a memory block:
# the memory mem= kept from the kernel starts there.
block=$((0x$(cat "$MEMORY/block_size_bytes")))
top=0
while IFS= read -r line; do
	[[ $line =~ ^([0-9a-f]+)-([0-9a-f]+)\ :\ System\ RAM$ ]] || continue
	end=$((0x${BASH_REMATCH[2]} + 1))
	((end > top)) && top=$end
done < /proc/iomem
((top > 0)) || skip "no System RAM in /proc/iomem (not root?)"
addr=$(((top + block - 1) / block * block))
nr=$((addr / block))
log "probing a $((block >> 20)) MiB block at $(printf '%#x' "$addr") (memory$nr)"

# Whether a region of the last aggregations overlaps the new block.
watched() {
	local line start end
	echo > "$TRACING/trace"
	echo 1 > "$EVENT/enable"
	sleep 0.5
	echo 0 > "$EVENT/enable"
	while IFS= read -r line; do
		[[ $line =~ \ ([0-9]+)-([0-9]+):\  ]] || continue
		start=${BASH_REMATCH[1]} end=${BASH_REMATCH[2]}
		((start < addr + block && end > addr)) && return 0
	done < "$TRACING/trace"
	return 1
}

# Some aggregation was traced at all: the check above can fail.
tracing_works() {
	echo > "$TRACING/trace"
	echo 1 > "$EVENT/enable"
	sleep 0.5
	echo 0 > "$EVENT/enable"
	grep -q 'damon_aggregated' "$TRACING/trace"
}

cleanup() {
	echo 0 > "$EVENT/enable" 2>/dev/null
	restore_defaults
}

mark_dmesg
restore_defaults
trap cleanup EXIT

# Always active, nothing old enough to page out.
set_params wmarks_high=1000 wmarks_mid=999 wmarks_low=0 \
	wmarks_interval=100000 min_age=$((1 << 40))
wr enabled Y || fail "enabling failed: $WERR"
wait_for 20 tracing_works || fail "no damon_aggregated event in 20 s"
watched && fail "a region covers $(printf '%#x' "$addr") before it was added"

if ! printf '%#x\n' "$addr" > "$MEMORY/probe"; then
	skip "probing $(printf '%#x' "$addr") failed: no memory there?"
fi
[ -d "$MEMORY/memory$nr" ] || fail "memory$nr did not appear after the probe"
echo online_movable > "$MEMORY/memory$nr/state" ||
	echo online > "$MEMORY/memory$nr/state" ||
	fail "onlining memory$nr failed"

if wait_for 30 watched; then
	pass "the onlined block is watched"
else
	fail "the onlined block is not watched after 30 s"
fi
expect_dmesg 'damon_reclaim: System RAM changed: watching' \
	"a log line for the change"
# monitored_ranges lists it too.
in_ranges() {
	local rg
	rdv monitored_ranges
	for rg in $RV; do
		((${rg%-*} <= addr && ${rg#*-} >= addr + block)) && return 0
	done
	return 1
}
in_ranges || fail "monitored_ranges ($RV) does not hold the new block"
check_consistent "after onlining"
kpid=$(rd kdamond_pid)

# Offline memory keeps its System RAM resource: the ranges stay, nothing
# may break while the pages under some regions go away.
if echo offline > "$MEMORY/memory$nr/state"; then
	sleep 3
	check_consistent "after offlining"
	expect_value kdamond_pid "$kpid" "kdamond after offlining"
else
	log "offlining memory$nr failed (memory in use): not checked"
fi
wr enabled N || fail "disabling failed: $WERR"
finish
