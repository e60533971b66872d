#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# commit_inputs=Y applies new values to the running kdamond before the
# write returns, keeps the quota charge state, and reads back N.
#
# The quota bounds how many bytes the scheme may try per quota window,
# whatever the memory holds: with min_age 0 and watermarks always active,
# every unaccessed region with something reclaimable in it is a candidate
# each aggregation, so bytes_reclaim_tried_regions grows by the size quota
# per window.  Lowering quota_sz through a commit must bound that growth at
# once; raising it must lift the bound.

source "$(dirname "$0")/lib.sh"

MIB=$((1 << 20))
PERIOD_S=4

require_reclaim
mark_dmesg
restore_defaults
trap restore_defaults EXIT

# growth_over SECONDS: sets G to the bytes_reclaim_tried_regions growth over
# about SECONDS, and WINDOWS to the 1 s quota windows that growth may span:
# those in the time really elapsed (a guest short of memory may sleep far
# longer than asked), plus the one open at each end.
growth_over() {
	local before after start
	start=${EPOCHREALTIME/[.,]/}
	rdv bytes_reclaim_tried_regions
	before=$RV
	sleep "$1"
	rdv bytes_reclaim_tried_regions
	after=$RV
	G=$((after - before))
	WINDOWS=$(((${EPOCHREALTIME/[.,]/} - start) / 1000000 + 2))
}

set_params min_age=0 quota_ms=0 quota_sz=$MIB quota_reset_interval_ms=1000 \
	wmarks_high=1000 wmarks_mid=999 wmarks_low=0 wmarks_interval=100000
# Statistics count since boot: compare with their value before.
base=$(rd bytes_reclaim_tried_regions)
expect_accept enabled Y
pid=$(rd kdamond_pid)

# Statistics are fresh: they move within a second or two.
wait_for 10 param_ge bytes_reclaim_tried_regions $((base + 1)) ||
	fail "bytes_reclaim_tried_regions did not grow in 10 s"

growth_over $PERIOD_S
log "quota_sz 1 MiB: tried $G bytes in $((WINDOWS - 2)) s"
((G > 0)) || fail "nothing tried with quota_sz 1 MiB"
((G <= WINDOWS * MIB)) ||
	fail "tried $G bytes with quota_sz 1 MiB in $WINDOWS windows"

# Raised, but not so far that everything unaccessed for one aggregation
# (this shell's own pages too) is paged out every second: under emulation
# that thrashing starves the guest.
wr quota_sz $((32 * MIB)) || fail "quota_sz 32 MiB refused: $WERR"
expect_accept commit_inputs Y N
growth_over $PERIOD_S
log "quota_sz 32 MiB (committed): tried $G bytes in $((WINDOWS - 2)) s"
((G > WINDOWS * MIB)) ||
	fail "raising quota_sz by commit had no effect ($G bytes)"
((G <= WINDOWS * 32 * MIB)) ||
	fail "tried $G bytes with quota_sz 32 MiB in $WINDOWS windows"

wr quota_sz $MIB || fail "quota_sz 1 MiB refused: $WERR"
expect_accept commit_inputs Y N
# Let the window that was open during the commit end.
sleep 1.5
growth_over $PERIOD_S
log "quota_sz 1 MiB (committed): tried $G bytes in $((WINDOWS - 2)) s"
((G <= WINDOWS * MIB)) ||
	fail "lowering quota_sz by commit had no effect ($G bytes)"
expect_value kdamond_pid "$pid" "after commits"
check_consistent "after commits"

# Quota charge state survives a commit: in one long window, the quota is
# spent once, however many commits happen inside it.
log "charge state across commits"
expect_accept enabled N
set_params quota_reset_interval_ms=60000 quota_sz=$MIB
base=$(rd bytes_reclaim_tried_regions)
qbase=$(rd nr_quota_exceeds)
expect_accept enabled Y
# Pages pageout could only make idle use up the quota without counting as
# tried: the quota running out is what tells that it was spent.
wait_for 20 param_ge nr_quota_exceeds $((qbase + 1)) ||
	fail "1 MiB quota not spent after 20 s"
start=$(rd bytes_reclaim_tried_regions)
for i in 1 2 3 4 5; do
	wr min_age $((i * 1000)) || fail "min_age refused: $WERR"
	expect_accept commit_inputs Y N
	sleep 0.5
done
end=$(rd bytes_reclaim_tried_regions)
log "tried $((start - base)) bytes, then $((end - start)) more across 5 commits"
((end - start < MIB)) ||
	fail "commits reset the quota charge: $((end - start)) more bytes tried"
((end - base <= MIB)) ||
	fail "tried $((end - base)) bytes in one 1 MiB window"

# A commit applies before the write returns: watermarks that can never be
# met stop the scheme at the next check, and it stays stopped.
log "commit takes effect before the write returns"
expect_accept enabled N
set_params quota_reset_interval_ms=1000 quota_sz=$((8 * MIB))
base=$(rd bytes_reclaim_tried_regions)
expect_accept enabled Y
wait_for 10 param_ge bytes_reclaim_tried_regions $((base + 1)) ||
	fail "nothing tried before the watermark commit"
set_params wmarks_high=0 wmarks_mid=0 wmarks_low=0
expect_accept commit_inputs Y N
# One aggregation may be under way at the commit; then nothing more.
sleep 1
growth_over 3
log "watermarks 0/0/0 (committed): tried $G bytes in $((WINDOWS - 2)) s"
((G == 0)) || fail "scheme still active after committing 0/0/0 watermarks"
check_consistent "after watermark commit"

finish
