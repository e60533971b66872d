#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Physical-address pageout of memory it must treat with care: with
# DAMON_RECLAIM paging out what stayed unaccessed for 5 s, an mlocked area
# stays resident, a transparent huge page area (MADV_HUGEPAGE) and a plain
# cold area are paged out, everything reads back intact, no reference is
# leaked (after the areas are unmapped, MemFree comes back to within a few
# MiB of where it was) and the kernel reports no bad page.  Needs zram.

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/paddr_lib.sh"

HOT_MIB=16
COLD_MIB=64
MLOCK_MIB=32
THP_MIB=64
TIMEOUT_S=${TIMEOUT_S:-600}
LEAK_SLACK_KIB=$((8 * 1024))

mem_free_kib() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
	awk '/^MemFree:/ { print $2 }' /proc/meminfo
}

require_reclaim
require_zram $((COLD_MIB + THP_MIB))
mark_dmesg
restore_defaults
trap 'hc_stop; restore_defaults' EXIT

free0=$(mem_free_kib)
hc_start --hot-mib $HOT_MIB --cold-mib $COLD_MIB --mlock-mib $MLOCK_MIB \
	--thp-mib $THP_MIB || finish
before=$(hc_cmd status)
log "before: $before"
[ "$(hc_field "$before" anon_huge_kib)" -gt 0 ] ||
	log "no transparent huge page was allocated; the thp area is plain"

tried0=$(rd bytes_reclaim_tried_regions)
reclaimed0=$(rd bytes_reclaimed_regions)
set_params "${RECLAIM_AGGRESSIVE[@]}"
expect_accept enabled Y
start=$SECONDS
if wait_paged_out "$TIMEOUT_S" cold thp; then
	log "cold and thp areas out after $((SECONDS - start)) s"
else
	fail "not paged out in $TIMEOUT_S s: $HC_STATUS"
fi
log "after: $HC_STATUS"
log "bytes tried $(($(rd bytes_reclaim_tried_regions) - tried0)), reclaimed" \
	"$(($(rd bytes_reclaimed_regions) - reclaimed0))"
expect_accept enabled N

mlock_res=$(hc_field "$HC_STATUS" mlock)
mlock_total=$(hc_total "$HC_STATUS" mlock)
((mlock_res == mlock_total)) ||
	fail "mlocked area: $((mlock_total - mlock_res)) of $mlock_total pages paged out"
(($(hc_field "$HC_STATUS" lck_kib) == MLOCK_MIB * 1024)) ||
	fail "VmLck is $(hc_field "$HC_STATUS" lck_kib) KiB, expected $((MLOCK_MIB * 1024))"

verify=$(hc_cmd verify)
log "$verify"
[[ $verify == "verify ok"* ]] || fail "data changed: $verify"
hc_stop

# Freed swap slots and pages may take a moment to reach the free lists.
sleep 2
free1=$(mem_free_kib)
log "MemFree before $free0 KiB, after $free1 KiB"
((free1 + LEAK_SLACK_KIB >= free0)) ||
	fail "MemFree is $((free0 - free1)) KiB lower than before: leaked pages?"
if dmesg_since | grep -q 'Bad page state'; then
	fail "the kernel reported a bad page state"
fi

finish
