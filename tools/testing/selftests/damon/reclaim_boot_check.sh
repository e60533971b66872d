#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Checks the state DAMON_RECLAIM booted into, in a guest started with
# damon_reclaim.* parameters on the kernel command line.  Not part of the
# normal run: the lab boots a guest per case and calls this in it.
#
# usage: reclaim_boot_check.sh [--dmesg REGEX]... [--pageout] [NAME=VALUE]...
#   NAME=VALUE   parameter NAME must read VALUE (e.g. enabled=Y)
#   --dmesg RE   some kernel log line since boot must match RE
#   --pageout    cold memory must be paged out (needs swap and a boot line
#                with an active configuration, see reclaim.rst)
#
# Examples (kernel command line -> command):
#   damon_reclaim.enabled=Y damon_reclaim.min_age=5000000
#     -> reclaim_boot_check.sh enabled=Y min_age=5000000
#   damon_reclaim.min_age=5000000 damon_reclaim.enabled=Y
#     -> reclaim_boot_check.sh enabled=Y min_age=5000000
#   damon_reclaim.enabled=Y damon_reclaim.sample_interval=0
#     -> reclaim_boot_check.sh enabled=N sample_interval=5000 \
#          --dmesg "damon_reclaim: not enabled.*sample_interval"
#   damon_reclaim.enabled=Y damon_reclaim.aggr_interval=1000
#     -> reclaim_boot_check.sh enabled=N aggr_interval=1000 \
#          --dmesg "damon_reclaim: aggr_interval .* sample_interval"
#   damon_reclaim.enabled=maybe
#     -> reclaim_boot_check.sh enabled=N \
#          --dmesg "damon_reclaim: not enabled.*enabled|invalid for parameter"
#   (with zram swap) damon_reclaim.enabled=Y damon_reclaim.min_age=2000000
#   damon_reclaim.quota_ms=0 damon_reclaim.wmarks_high=1000
#   damon_reclaim.wmarks_mid=999 damon_reclaim.wmarks_low=0
#   damon_reclaim.wmarks_interval=1000000
#     -> reclaim_boot_check.sh enabled=Y min_age=2000000 --pageout

source "$(dirname "$0")/lib.sh"

COLD_MIB=${COLD_MIB:-128}
TIMEOUT_S=${TIMEOUT_S:-90}

require_reclaim
DMESG_MARK=0

expect=()
regexes=()
pageout=0
while (($#)); do
	case $1 in
	--dmesg)
		regexes+=("${2:?--dmesg needs a regex}")
		shift 2
		;;
	--pageout)
		pageout=1
		shift
		;;
	*=*)
		expect+=("$1")
		shift
		;;
	*)
		echo "usage: $0 [--dmesg REGEX]... [--pageout] [NAME=VALUE]..." >&2
		exit $KSFT_FAIL
		;;
	esac
done

log "kernel command line: $(cat /proc/cmdline)"
for kv in "${expect[@]}"; do
	expect_value "${kv%%=*}" "${kv#*=}" "after boot"
done
for re in "${regexes[@]}"; do
	expect_dmesg "$re" "after boot"
done
check_consistent "after boot"

if ((pageout)); then
	[ "$(rd enabled)" == Y ] || fail "--pageout, but not enabled"
	swap0=$(swap_used_kib)
	make_cold_file "$COLD_MIB" || fail "cannot make tmpfs file"
	trap drop_cold_file EXIT
	want_kib=$((COLD_MIB * 1024 / 2))
	swap_grew() { (($(swap_used_kib) - swap0 >= want_kib)); }
	if wait_for "$TIMEOUT_S" swap_grew; then
		log "$(($(swap_used_kib) - swap0)) KiB paged out; bytes_reclaimed_regions $(rd bytes_reclaimed_regions)"
	else
		fail "swap grew by $(($(swap_used_kib) - swap0)) KiB in $TIMEOUT_S s, expected $want_kib"
	fi
	((pid = $(rd kdamond_pid), pid > 0)) || fail "no kdamond after pageout"
fi

finish
