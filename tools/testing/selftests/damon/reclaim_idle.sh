#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# With the default watermarks (act only when free memory is between 20% and
# 40%) and more than half of memory free, DAMON_RECLAIM is enabled but
# tries and pages out nothing, and its kdamond uses almost no CPU, even
# with min_age 0 (everything unaccessed would qualify).

source "$(dirname "$0")/lib.sh"

WAIT_S=8
MAX_CPU_PERCENT=2

require_reclaim
mark_dmesg
restore_defaults
trap restore_defaults EXIT

free_permil=$(awk '/^MemTotal:/ { t = $2 } /^MemFree:/ { f = $2 }
	END { print int(f * 1000 / t) }' /proc/meminfo)
((free_permil > 500)) ||
	skip "only $free_permil per-thousand of memory free, need > 500"

STATS=(nr_reclaim_tried_regions bytes_reclaim_tried_regions
	nr_reclaimed_regions bytes_reclaimed_regions)

set_params min_age=0 wmarks_interval=1000000
swap_before=$(swap_used_kib)
# The statistics count since boot: compare against their current values.
declare -A stat_before
for p in "${STATS[@]}"; do
	stat_before[$p]=$(rd "$p")
done
expect_accept enabled Y
pid=$(rd kdamond_pid)
ticks=$(ticks_over "$pid" $WAIT_S)
hz=$(getconf CLK_TCK)

expect_value enabled Y "after $WAIT_S s"
expect_value kdamond_pid "$pid" "after $WAIT_S s"
for p in "${STATS[@]}"; do
	expect_value "$p" "${stat_before[$p]}" "free memory above wmarks_high"
done
swap_after=$(swap_used_kib)
log "kdamond used $ticks ticks (of $hz per s) in $WAIT_S s; swap $swap_before -> $swap_after KiB"
((ticks * 100 <= MAX_CPU_PERCENT * hz * WAIT_S)) ||
	fail "kdamond used $ticks ticks in $WAIT_S s, over $MAX_CPU_PERCENT%"
check_consistent "idle"

finish
