#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dry_run=Y runs the scheme with the stat action: the tried statistics grow
# on cold memory while nothing is paged out.  Then, paging out for real
# with a small size quota, the statistics sampled over time never show
# more bytes tried (or reclaimed) than the quota allows per window, and
# committing dry_run=Y again stops the pageout without a new kdamond.
# Needs swap, e.g. zram.

source "$(dirname "$0")/lib.sh"

MIB=$((1 << 20))
COLD_MIB=${COLD_MIB:-64}
QUOTA=$((2 * MIB))

setup_cold_test "$COLD_MIB"

now_us() { echo $((${EPOCHREALTIME/[.,]/})); }

log "dry run on a cold file"
make_cold_file "$COLD_MIB" || skip "cannot make a tmpfs file"
swap0=$(swap_used_kib)
tried0=$(rd bytes_reclaim_tried_regions)
reclaimed0=$(rd bytes_reclaimed_regions)
set_params dry_run=Y min_age=1000000 quota_ms=0 wmarks_high=1000 \
	wmarks_mid=999 wmarks_low=0 wmarks_interval=100000
expect_accept enabled Y
pid=$(rd kdamond_pid)
wait_for 60 param_ge bytes_reclaim_tried_regions \
	$((tried0 + COLD_MIB * MIB)) ||
	fail "dry run: bytes_reclaim_tried_regions grew by" \
		"$(($(rd bytes_reclaim_tried_regions) - tried0)) in 60 s," \
		"expected $COLD_MIB MiB"
sleep 2
log "dry run: tried $(($(rd bytes_reclaim_tried_regions) - tried0)) bytes"
expect_value bytes_reclaimed_regions "$reclaimed0" "dry run"
swapped=$(($(swap_used_kib) - swap0))
((swapped < COLD_MIB * 1024 / 8)) ||
	fail "dry run: swap grew by $swapped KiB"

log "pageout under a $((QUOTA / MIB)) MiB quota, committed"
set_params dry_run=N quota_sz=$QUOTA quota_reset_interval_ms=1000
expect_accept commit_inputs Y N
expect_value kdamond_pid "$pid" "after committing dry_run=N"
# Samples every 0.25 s for 8 s.  A span of d seconds holds at most
# floor(d) + 2 quota windows, each worth QUOTA bytes at most; one more
# window of slack covers the statistics being published when a pass ends,
# not when they are read.
times=() tried=() reclaimed=()
for ((i = 0; i < 32; i++)); do
	times+=("$(now_us)")
	rdv bytes_reclaim_tried_regions
	tried+=("$RV")
	rdv bytes_reclaimed_regions
	reclaimed+=("$RV")
	sleep 0.25
done
worst=0
for ((i = 0; i < 32; i++)); do
	for ((j = i + 1; j < 32; j++)); do
		windows=$(((times[j] - times[i]) / 1000000 + 3))
		dt=$((tried[j] - tried[i]))
		if ((dt > windows * QUOTA)); then
			fail "tried $dt bytes in $(((times[j] - times[i]) / 1000)) ms:" \
				"more than $windows windows of $QUOTA"
			break 2
		fi
		((dt * 1000 / windows > worst)) && worst=$((dt * 1000 / windows))
	done
done
total=$((tried[31] - tried[0]))
log "tried $total bytes, reclaimed $((reclaimed[31] - reclaimed[0]))" \
	"in $(((times[31] - times[0]) / 1000)) ms;" \
	"at most $((worst / 1000)) bytes per window"
((total > 0)) || fail "nothing tried with dry_run=N"
((reclaimed[31] > reclaimed0)) || fail "nothing paged out with dry_run=N"
((reclaimed[31] - reclaimed[0] <= total)) ||
	fail "reclaimed more than the $total bytes tried"

log "dry_run=Y again, committed"
set_params dry_run=Y
expect_accept commit_inputs Y N
expect_value kdamond_pid "$pid" "after committing dry_run=Y"
sleep 1
r1=$(rd bytes_reclaimed_regions)
sleep 3
expect_value bytes_reclaimed_regions "$r1" "dry run committed"
check_consistent "after dry runs"

# What was paged out still reads back right.
expect_cold_intact "$COLD_MIB" "pageout"
finish
