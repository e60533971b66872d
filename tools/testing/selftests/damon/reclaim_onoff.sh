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

# The other spellings a bool parameter takes.
for on_off in "1 0" "y n" "on off"; do
	set -- $on_off
	expect_accept enabled "$1" Y && check_consistent "enabled=$1"
	expect_accept enabled "$2" N && check_consistent "enabled=$2"
done

finish
