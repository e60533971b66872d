#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# DAMON_RECLAIM turns on and off: "enabled" reads the real state, exactly
# one kdamond runs while enabled, kdamond_pid is its pid or -1.

source "$(dirname "$0")/lib.sh"

require_reclaim
mark_dmesg
restore_defaults
trap restore_defaults EXIT

check_consistent "initially off"
expect_value enabled N "initially"
expect_value kdamond_pid -1 "initially"

for round in 1 2 3; do
	expect_accept enabled Y || break
	check_consistent "round $round, on"
	pid=$(rd kdamond_pid)

	# Enabling again changes nothing: same thread.
	expect_accept enabled Y
	expect_value kdamond_pid "$pid" "round $round, enabled twice"
	check_consistent "round $round, enabled twice"

	# The thread keeps running (it does not stop by itself).
	sleep 1
	expect_value kdamond_pid "$pid" "round $round, after 1 s"
	[ -d "/proc/$pid" ] || fail "round $round: kdamond $pid vanished"

	expect_accept enabled N
	check_consistent "round $round, off"
	[ -d "/proc/$pid" ] && fail "round $round: kdamond $pid still exists"
	expect_accept enabled N
	check_consistent "round $round, disabled twice"
done

# A new run learns ages afresh: memory that looked cold in an earlier run
# is not paged out before it has been seen unaccessed for min_age again.
set_params min_age=4000000 quota_ms=0 wmarks_high=1000 wmarks_mid=999 \
	wmarks_low=0 wmarks_interval=100000
base=$(rd bytes_reclaim_tried_regions)
expect_accept enabled Y
if wait_for 60 param_ge bytes_reclaim_tried_regions $((base + 1)); then
	expect_accept enabled N
	base=$(rd bytes_reclaim_tried_regions)
	expect_accept enabled Y
	sleep 2
	expect_value bytes_reclaim_tried_regions "$base" \
		"2 s into a new run with min_age 4 s"
else
	fail "nothing unaccessed for 4 s within 60 s"
fi
expect_accept enabled N
write_defaults

# The other spellings a bool parameter takes.
for on_off in "1 0" "y n" "on off"; do
	set -- $on_off
	expect_accept enabled "$1" Y && check_consistent "enabled=$1"
	expect_accept enabled "$2" N && check_consistent "enabled=$2"
done

finish
