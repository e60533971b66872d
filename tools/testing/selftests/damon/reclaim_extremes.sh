#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The largest values every parameter accepts, committed into a running
# DAMON_RECLAIM, neither wrap around into something harmful nor wedge
# kdamond: it keeps running, later commits and disabling still return
# promptly (even with sampling and watermark intervals of 2^64-1 us), and
# the kernel log stays clean.

source "$(dirname "$0")/lib.sh"

ULONG_MAX=18446744073709551615
PROMPT_S=20

require_reclaim
mark_dmesg
restore_defaults
trap restore_defaults EXIT

# prompt_write NAME VALUE WHAT: the write succeeds within PROMPT_S seconds.
prompt_write() {
	local start=$SECONDS
	if ! timeout "$PROMPT_S" sh -c "echo '$2' > '$PARAMS/$1'"; then
		fail "$3: writing $2 to $1 failed or took over $PROMPT_S s"
		return 1
	fi
	log "$3: $1=$2 took $((SECONDS - start)) s"
}

expect_accept enabled Y
pid=$(rd kdamond_pid)

log "huge quotas, goals and ages"
set_params min_age=$ULONG_MAX quota_ms=$ULONG_MAX quota_sz=$ULONG_MAX \
	quota_reset_interval_ms=$ULONG_MAX quota_mem_pressure_us=$ULONG_MAX \
	quota_autotune_feedback=$ULONG_MAX wmarks_high=1000 wmarks_mid=1000 \
	wmarks_low=0 wmarks_interval=1000
prompt_write commit_inputs Y "huge quotas"
sleep 2
check_consistent "after huge quotas"
expect_value kdamond_pid "$pid" "after huge quotas"

log "1 ms quota window, 1 byte quota"
set_params quota_reset_interval_ms=1 quota_sz=1 quota_ms=1 min_age=0
prompt_write commit_inputs Y "tiny quotas"
sleep 2
check_consistent "after tiny quotas"

log "a range far beyond System RAM"
set_params monitor_region_start=0 monitor_region_end=0x1000000000000
prompt_write commit_inputs Y "huge range"
sleep 2
check_consistent "after huge range"
set_params monitor_region_start=0 monitor_region_end=0

log "intervals of 2^64-1 us"
set_params sample_interval=$ULONG_MAX aggr_interval=$ULONG_MAX
prompt_write commit_inputs Y "huge sampling interval"
sleep 1
check_consistent "sleeping for ever"
# kdamond sleeps "for ever" now: a commit must wake it...
write_defaults
prompt_write commit_inputs Y "commit into a sleeping kdamond"
expect_value kdamond_pid "$pid" "after waking commit"

# ...and so must a stop, also from a long watermark sleep.
set_params sample_interval=$ULONG_MAX aggr_interval=$ULONG_MAX
prompt_write commit_inputs Y "huge sampling interval again"
prompt_write enabled N "stop from a huge sampling interval"
check_consistent "stopped from a huge sampling interval"

restore_defaults
set_params wmarks_interval=$ULONG_MAX wmarks_high=0 wmarks_mid=0 wmarks_low=0
expect_accept enabled Y
sleep 1
prompt_write enabled N "stop from a huge watermark interval"
check_consistent "stopped from a huge watermark interval"

finish
