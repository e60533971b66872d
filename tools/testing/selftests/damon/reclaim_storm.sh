#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Enable/disable storm: one writer toggles "enabled" while others write the
# other parameters and commit, a few thousand writes in a few seconds.
# Afterwards there is exactly one kdamond if "enabled" reads Y and none if
# N, and the kernel log has no KASAN, lockdep or WARN report.

source "$(dirname "$0")/lib.sh"

STORM_S=${STORM_S:-6}
STORM_MIN_OPS=${STORM_MIN_OPS:-100}

require_reclaim
mark_dmesg
restore_defaults
trap 'kill $(jobs -p) 2> /dev/null; wait; restore_defaults' EXIT

# Small intervals so that kdamond really works between the toggles.
set_params sample_interval=1000 aggr_interval=10000 min_age=0 \
	wmarks_high=1000 wmarks_mid=999 wmarks_low=0 wmarks_interval=10000

OPS_DIR=$(mktemp -d /tmp/damon-storm.XXXXXX)

# writer NAME: runs a write loop until STORM_S passed; leaves its count of
# writes in OPS_DIR/NAME.
toggler() {
	local n=0 end=$((SECONDS + STORM_S))
	while ((SECONDS < end)); do
		printf 'Y\n' > "$PARAMS/enabled" 2> /dev/null
		printf 'N\n' > "$PARAMS/enabled" 2> /dev/null
		n=$((n + 2))
	done
	echo $n > "$OPS_DIR/toggler"
}

tuner() {
	local n=0 i=0 end=$((SECONDS + STORM_S))
	while ((SECONDS < end)); do
		i=$((i + 1))
		printf '%s\n' $((i % 7 * 1000)) > "$PARAMS/min_age"
		printf '%s\n' $((i % 5 * 4096 + 4096)) > "$PARAMS/quota_sz"
		printf '%s\n' $((i % 3)) > "$PARAMS/quota_ms"
		printf '%s\n' $((i % 2 ? 1 : 0)) > "$PARAMS/skip_anon"
		printf '%s\n' $((i % 4 * 1000 + 1000)) > "$PARAMS/quota_autotune_feedback"
		printf 'Y\n' > "$PARAMS/commit_inputs" 2> /dev/null
		n=$((n + 6))
	done
	echo $n > "$OPS_DIR/tuner$1"
}

reader() {
	local n=0 end=$((SECONDS + STORM_S))
	while ((SECONDS < end)); do
		cat "$PARAMS/enabled" "$PARAMS/kdamond_pid" \
			"$PARAMS/bytes_reclaim_tried_regions" > /dev/null
		n=$((n + 3))
	done
	echo $n > "$OPS_DIR/reader"
}

log "storm for $STORM_S s"
toggler &
tuner 1 &
tuner 2 &
reader &
wait

total=0
for f in "$OPS_DIR"/*; do
	log "$(basename "$f"): $(cat "$f") operations"
	total=$((total + $(cat "$f")))
done
rm -rf "$OPS_DIR"
log "$total operations in total"
# A floor that proves the writers really raced.  A debug kernel under
# TCG manages a few hundred writes where real hardware does thousands;
# what must hold at any speed is the state checked below.
((total >= STORM_MIN_OPS)) || fail "only $total operations in $STORM_S s"

# No thread may be left behind: the state must match at once.
check_consistent "right after the storm"
expect_accept enabled Y
check_consistent "enabled after the storm"
sleep 0.5
check_consistent "0.5 s later"
expect_accept enabled N
check_consistent "disabled after the storm"

finish
