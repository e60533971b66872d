#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# DAMON_RECLAIM really pages cold memory out, however it was configured:
# enabled with the final values, or enabled with a min_age that never
# triggers and then fixed through commit_inputs.  (The third way, the boot
# command line, is checked by reclaim_boot_check.sh --pageout in a guest
# booted with the parameters.)  Needs swap, e.g. zram.

source "$(dirname "$0")/lib.sh"

COLD_MIB=${COLD_MIB:-128}
TIMEOUT_S=${TIMEOUT_S:-90}

setup_cold_test "$COLD_MIB"

# Pages out aggressively: everything unaccessed for 2 s, no time quota,
# watermarks always active.
ACTIVE=(min_age=2000000 quota_ms=0 wmarks_high=1000 wmarks_mid=999
	wmarks_low=0 wmarks_interval=1000000)

# expect_pageout SWAP_KIB RECLAIMED WHAT: at least half of the cold file goes to swap and the
# statistics account for it, within TIMEOUT_S.
expect_pageout() {
	local want_kib=$((COLD_MIB * 1024 / 2)) swap0=$1 reclaimed0=$2 what=$3
	local swapped

	swap_grew() { (($(swap_used_kib) - swap0 >= want_kib)); }
	if ! wait_for "$TIMEOUT_S" swap_grew; then
		fail "$what: swap grew by $(($(swap_used_kib) - swap0)) KiB" \
			"in $TIMEOUT_S s, expected $want_kib"
		return 1
	fi
	swapped=$(($(swap_used_kib) - swap0))
	log "$what: $swapped KiB paged out;" \
		"bytes_reclaimed_regions $reclaimed0 -> $(rd bytes_reclaimed_regions)"
	# The statistics are published when the pass that pages out ends,
	# which under emulation can take tens of seconds.
	wait_for 30 param_ge bytes_reclaimed_regions \
		$((reclaimed0 + want_kib * 1024)) ||
		fail "$what: bytes_reclaimed_regions grew by less than $((want_kib * 1024))"
	# What was paged out still reads back right.
	expect_cold_intact "$COLD_MIB" "$what"
}

log "enable with the final values"
swap0=$(swap_used_kib)
make_cold_file "$COLD_MIB" || skip "cannot make a tmpfs file"
set_params "${ACTIVE[@]}"
reclaimed0=$(rd bytes_reclaimed_regions)
expect_accept enabled Y
expect_pageout "$swap0" "$reclaimed0" "enabled"
expect_accept enabled N
drop_cold_file
restore_defaults

log "enable with a min_age never reached, then commit"
set_params "${ACTIVE[@]}" min_age=18446744073709551615
expect_accept enabled Y
pid=$(rd kdamond_pid)
swap0=$(swap_used_kib)
make_cold_file "$COLD_MIB" || skip "cannot make a tmpfs file"
reclaimed0=$(rd bytes_reclaimed_regions)
sleep 5
expect_value bytes_reclaimed_regions "$reclaimed0" "min_age never reached"
set_params "${ACTIVE[@]}"
expect_accept commit_inputs Y N
expect_pageout "$swap0" "$reclaimed0" "committed"
expect_value kdamond_pid "$pid" "after commit"
check_consistent "after pageout"

finish
