#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Values that are only invalid together are refused when they would take
# effect: "enabled=Y" fails with EINVAL and stays N, "commit_inputs=Y" fails
# with EINVAL and the running kdamond goes on untouched (same pid, still
# enabled).  The kernel log names the offending parameters.

source "$(dirname "$0")/lib.sh"

require_reclaim
mark_dmesg
restore_defaults
trap restore_defaults EXIT

# "params to write|regex of the log line that must name them"
CASES=(
	"sample_interval=5000 aggr_interval=4999|aggr_interval.*sample_interval"
	"min_nr_regions=101 max_nr_regions=100|min_nr_regions.*max_nr_regions"
	"wmarks_high=300 wmarks_mid=400 wmarks_low=200|wmarks_high.*wmarks_mid.*wmarks_low"
	"wmarks_high=500 wmarks_mid=400 wmarks_low=401|wmarks_high.*wmarks_mid.*wmarks_low"
	"monitor_region_start=0x200000 monitor_region_end=0x100000|monitor_region_start.*monitor_region_end"
	"monitor_region_start=0x200000 monitor_region_end=0|monitor_region_start.*monitor_region_end"
	"monitor_region_start=0x200000 monitor_region_end=0x200000|monitor_region_start.*monitor_region_end"
	"monitor_region_start=0 monitor_region_end=100|monitor_region_start.*monitor_region_end"
)

# expect_refused PARAM WHAT REGEX: writing Y to PARAM fails with EINVAL and
# a new log line matches REGEX.
expect_refused() {
	local before=$DMESG_MARK
	mark_dmesg
	if wr "$1" Y; then
		fail "$2: $1=Y accepted"
	else
		case $WERR in
		*"Invalid argument"*) ;;
		*) fail "$2: $1=Y failed with '$WERR', expected EINVAL" ;;
		esac
	fi
	expect_dmesg "damon_reclaim: .*$3" "$2"
	DMESG_MARK=$before
}

for c in "${CASES[@]}"; do
	params=${c%%|*}
	regex=${c#*|}

	log "off, then enable: $params"
	restore_defaults
	set_params $params
	expect_refused enabled "enable with $params" "$regex"
	check_consistent "after refused enable with $params"
	expect_value enabled N "after refused enable with $params"
	# Off, a commit checks the values too.
	expect_refused commit_inputs "commit while off with $params" "$regex"
	expect_value commit_inputs N "after refused commit while off"

	log "running, then commit: $params"
	restore_defaults
	expect_accept enabled Y
	pid=$(rd kdamond_pid)
	set_params $params
	expect_refused commit_inputs "commit with $params" "$regex"
	expect_value enabled Y "after refused commit with $params"
	expect_value kdamond_pid "$pid" "after refused commit with $params"
	expect_value commit_inputs N "after refused commit"
	check_consistent "after refused commit with $params"
	# Still alive a while later, and a valid commit works again.
	sleep 0.5
	expect_value kdamond_pid "$pid" "0.5 s after refused commit"
	write_defaults
	expect_accept commit_inputs Y N
	expect_value kdamond_pid "$pid" "after valid commit"
done

# A valid pair that only looks odd is taken.
restore_defaults
set_params monitor_region_start=0x100000 monitor_region_end=0x200000
expect_accept enabled Y
check_consistent "enabled on one small range"
set_params sample_interval=1000 aggr_interval=1000 min_nr_regions=3 \
	max_nr_regions=3 wmarks_high=0 wmarks_mid=0 wmarks_low=0
expect_accept commit_inputs Y N
check_consistent "after committing equal bounds"

finish
