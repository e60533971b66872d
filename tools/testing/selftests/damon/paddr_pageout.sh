#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Physical-address pageout: with DAMON_RECLAIM paging out what stayed
# unaccessed for 5 s (no time quota, watermarks always active), at least
# 90% of a cold anonymous area leaves memory, an area kept hot stays
# resident, and every byte reads back intact.  That includes an area whose
# pages are rewritten at random, 20 a second: 90% of it must leave memory
# too, and the writes go on for a while after, so that they race with
# pageout (which moves the Dirty bits of the pages it takes to the pages
# themselves before they go) and bring pages back.  Needs zram swap.
#
# The time allowed is generous: a debug kernel under emulation samples and
# pages out many times slower than hardware (this takes about a minute
# there, seconds on hardware).  The test ends as soon as the area is out.

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/paddr_lib.sh"

HOT_MIB=${HOT_MIB:-32}
COLD_MIB=${COLD_MIB:-128}
WRITTEN_MIB=${WRITTEN_MIB:-16}
TIMEOUT_S=${TIMEOUT_S:-600}

require_reclaim
require_zram "$COLD_MIB"
mark_dmesg
restore_defaults
trap 'hc_stop; restore_defaults' EXIT

hc_start --hot-mib "$HOT_MIB" --cold-mib "$COLD_MIB" \
	--written-mib "$WRITTEN_MIB" || finish
before=$(hc_cmd status)
log "before: $before"
tried0=$(rd bytes_reclaim_tried_regions)
reclaimed0=$(rd bytes_reclaimed_regions)

set_params "${RECLAIM_AGGRESSIVE[@]}"
expect_accept enabled Y
start=$SECONDS
if wait_paged_out "$TIMEOUT_S" cold written; then
	log "90% of the cold and written areas were out after $((SECONDS - start)) s"
	# Writes hit pages being paged out and pages already out.
	sleep 10
else
	fail "cold and written areas:" \
		"$(hc_field "$HC_STATUS" cold) of $(hc_total "$HC_STATUS" cold) and" \
		"$(hc_field "$HC_STATUS" written) of $(hc_total "$HC_STATUS" written)" \
		"pages still resident after $TIMEOUT_S s"
fi
log "after: $HC_STATUS"
tried=$(($(rd bytes_reclaim_tried_regions) - tried0))
reclaimed=$(($(rd bytes_reclaimed_regions) - reclaimed0))
log "bytes tried $tried, reclaimed $reclaimed"
expect_accept enabled N

# The hot area was swept all along: it must not have been paged out.
hot_res=$(hc_field "$HC_STATUS" hot)
hot_total=$(hc_total "$HC_STATUS" hot)
((hot_res * 10 >= hot_total * 9)) ||
	fail "hot area: only $hot_res of $hot_total pages resident"
((reclaimed > 0)) || fail "bytes_reclaimed_regions did not grow"

verify=$(hc_cmd verify)
log "$verify"
[[ $verify == "verify ok"* ]] || fail "data changed: $verify"
hc_stop

finish
