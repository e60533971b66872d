#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# quota_ms bounds the CPU time kdamond spends paging out, checks of pages
# included.  With plenty of cold memory to page out and quota_ms 10 (1% of
# a CPU per 1 s window), kdamond uses little more CPU than monitoring alone
# costs while pages go out; with quota_ms 0 the same work takes many times
# that.  Needs swap.

source "$(dirname "$0")/lib.sh"

COLD_MIB=${COLD_MIB:-256}
QUOTA_MS=10
MEASURE_S=8
# Acting beyond monitoring, in percent of a CPU.  The quota is 1%; a window
# that runs over (a batch of pages is not cut short) is paid back by the
# next ones.  Monitoring itself varies from one measurement to the next (by
# up to a third under TCG), so half of what it cost is allowed on top.
MAX_ACT_PERCENT=4
# Without a time quota, acting must cost at least this much.
MIN_UNBOUND_PERCENT=12

setup_cold_test "$COLD_MIB"
hz=$(getconf CLK_TCK)

percent() { echo "$(($1 * 100 / (hz * MEASURE_S))).$(($1 * 1000 / (hz * MEASURE_S) % 10))"; }

make_cold_file "$COLD_MIB" || skip "cannot make a tmpfs file"

log "monitoring alone: min_age of an hour, nothing matches"
set_params min_age=3600000000 quota_ms=$QUOTA_MS wmarks_high=1000 \
	wmarks_mid=999 wmarks_low=0 wmarks_interval=1000000
# The statistics count since boot: compare with their value before.
base=$(rd bytes_reclaimed_regions)
expect_accept enabled Y
pid=$(rd kdamond_pid)
sleep 2
mon=$(ticks_over "$pid" $MEASURE_S)
log "kdamond: $mon ticks in $MEASURE_S s ($(percent "$mon")% of a CPU)"
expect_value bytes_reclaimed_regions "$base" "nothing matching"

log "paging out under quota_ms $QUOTA_MS"
wr min_age 1000000 || fail "min_age 1 s refused: $WERR"
expect_accept commit_inputs Y N
wait_for 60 param_ge bytes_reclaimed_regions $((base + 1)) ||
	fail "nothing paged out within 60 s"
exceeds0=$(rd nr_quota_exceeds)
swap0=$(swap_used_kib)
used=$(ticks_over "$pid" $MEASURE_S)
exceeds=$(($(rd nr_quota_exceeds) - exceeds0))
swapped=$(($(swap_used_kib) - swap0))
act=$((used - mon))
log "kdamond: $used ticks ($(percent "$used")%)," \
	"beyond monitoring $(percent $((act > 0 ? act : 0)))%;" \
	"quota ran out in $exceeds windows, swap +$swapped KiB"
# Busy: the quota bound the work (a window that ran over is followed by
# windows that do nothing, which do not count).
((exceeds >= 2)) ||
	fail "the quota ran out in only $exceeds windows: nothing to measure"
((swapped < COLD_MIB * 1024 / 2)) ||
	fail "half the cold file went out in $MEASURE_S s: the quota did not bind"
max_act=$((MAX_ACT_PERCENT * hz * MEASURE_S / 100 + mon / 2))
((act <= max_act)) ||
	fail "acting used $(percent "$act")% of a CPU under quota_ms $QUOTA_MS" \
		"(at most $(percent "$max_act")%)"

log "the same without a time quota"
wr quota_ms 0 || fail "quota_ms 0 refused: $WERR"
expect_accept commit_inputs Y N
expect_value kdamond_pid "$pid" "after committing quota_ms 0"
used=$(ticks_over "$pid" $MEASURE_S)
act=$((used - mon))
log "kdamond: $used ticks ($(percent "$used")%)," \
	"beyond monitoring $(percent $((act > 0 ? act : 0)))%"
((act * 100 >= MIN_UNBOUND_PERCENT * hz * MEASURE_S)) ||
	fail "acting used only $(percent "$act")% of a CPU with quota_ms 0:" \
		"the measurement cannot tell a bound"

expect_accept enabled N
expect_cold_intact "$COLD_MIB" "quota_ms"
check_consistent "quota_ms"
finish
