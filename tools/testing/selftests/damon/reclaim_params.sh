#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every DAMON_RECLAIM parameter has the upstream default, takes the values
# at both ends of its range, and refuses (EINVAL) anything beyond them or
# malformed, keeping its old value.  Checked while off and while running;
# no refused write stops the running kdamond.

source "$(dirname "$0")/lib.sh"

ULONG_MAX=18446744073709551615
ULONG_OVER=18446744073709551616
UINT_MAX=4294967295
MAX_NR_REGIONS=65536

require_reclaim
mark_dmesg

# Defaults, before anything was written (a fresh boot, or the previous test
# restored them).
for kv in "${DEFAULTS[@]}" enabled=N commit_inputs=N kdamond_pid=-1; do
	expect_value "${kv%%=*}" "${kv#*=}" "default"
done

restore_defaults
trap restore_defaults EXIT

# name lowest highest refused-values...
RANGES=(
	"min_age 0 $ULONG_MAX -1 $ULONG_OVER 12x"
	"quota_ms 0 $ULONG_MAX -1 $ULONG_OVER"
	"quota_sz 0 $ULONG_MAX -1 $ULONG_OVER 1M"
	"quota_reset_interval_ms 1 $ULONG_MAX 0 -1 $ULONG_OVER"
	"quota_mem_pressure_us 0 $ULONG_MAX -1 $ULONG_OVER"
	"quota_autotune_feedback 0 $ULONG_MAX -1 $ULONG_OVER"
	"wmarks_interval 1 $ULONG_MAX 0 -1 $ULONG_OVER"
	"wmarks_high 0 1000 1001 -1 $ULONG_OVER"
	"wmarks_mid 0 1000 1001 -1"
	"wmarks_low 0 1000 1001 -1"
	"sample_interval 1 $ULONG_MAX 0 -1 $ULONG_OVER"
	"aggr_interval 1 $ULONG_MAX 0 -1 $ULONG_OVER"
	"min_nr_regions 3 $MAX_NR_REGIONS 2 0 $((MAX_NR_REGIONS + 1)) $UINT_MAX $((UINT_MAX + 1)) -1"
	"max_nr_regions 3 $MAX_NR_REGIONS 2 0 $((MAX_NR_REGIONS + 1)) $UINT_MAX $((UINT_MAX + 1)) -1"
	"monitor_region_start 0 $ULONG_MAX -1 $ULONG_OVER"
	"monitor_region_end 0 $ULONG_MAX -1 $ULONG_OVER"
)

check_ranges() {
	local spec name lo hi bad
	for spec in "${RANGES[@]}"; do
		set -- $spec
		name=$1 lo=$2 hi=$3
		shift 3
		expect_accept "$name" "$lo"
		expect_accept "$name" "$hi"
		for bad in "$@" "" abc " 5" 5x 0.5; do
			expect_einval "$name" "$bad"
		done
		# Refusals keep whatever was there, not just the default.
		expect_value "$name" "$hi" "$name after refusals"
		expect_accept "$name" "$lo"
		expect_einval "$name" "${1:-abc}"
		expect_value "$name" "$lo" "$name after refusals"
	done

	# Hexadecimal after 0x; leading zeros are still decimal, a sign is
	# refused.
	expect_accept monitor_region_start 0x100000 1048576
	expect_accept min_age 010 10
	expect_accept min_age 0X1f 31
	expect_einval min_age +5
	expect_einval min_age -0

	expect_accept skip_anon Y
	expect_accept skip_anon n N
	expect_einval skip_anon maybe
	expect_einval skip_anon ""
	expect_accept dry_run 1 Y
	expect_accept dry_run N
	expect_einval dry_run 2
	expect_einval enabled maybe
	expect_einval commit_inputs maybe
	expect_value commit_inputs N "commit_inputs"
}

log "while off"
check_ranges
expect_value enabled N "after range checks while off"
restore_defaults

log "while running"
expect_accept enabled Y
pid=$(rd kdamond_pid)
check_ranges
# Nothing above takes effect without a commit, and nothing stops kdamond.
expect_value enabled Y "after range checks while running"
expect_value kdamond_pid "$pid" "after range checks while running"
check_consistent "after range checks while running"

finish
