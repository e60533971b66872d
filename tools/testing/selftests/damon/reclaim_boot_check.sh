#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Checks the state DAMON_RECLAIM booted into, in a guest started with
# damon_reclaim.* parameters on the kernel command line.  Not part of the
# normal run: the lab boots a guest per case and calls this in it.
#
# usage: reclaim_boot_check.sh [OPTION]... [NAME=VALUE]...
#   NAME=VALUE   parameter NAME must read VALUE (e.g. enabled=Y)
#   --defaults   every tunable not given as NAME=VALUE must read its default
#   --dmesg RE   some kernel log line since boot must match RE
#   --runs-or-dmesg RE
#                DAMON_RECLAIM runs, or some kernel log line matches RE
#   --idle-cpu PCT
#                if it runs, kdamond uses less than PCT% of a CPU (over 2 s)
#   --stop-within S
#                if it runs, enabled=N returns within S seconds
#   --pageout    cold memory must be paged out (needs swap and a boot line
#                with an active configuration, see reclaim.rst)
# Whatever the options, the kernel log since boot must be free of kernel
# reports (BUG, WARNING, KASAN, UBSAN, lockdep...).
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
#   damon_reclaim.enabled=Y damon_reclaim.min_age=abc
#     -> reclaim_boot_check.sh --defaults enabled=N \
#          --dmesg "damon_reclaim.min_age"
#   damon_reclaim.enabled=Y damon_reclaim.aggr_interval=18446744073709551615
#     -> reclaim_boot_check.sh --runs-or-dmesg "damon_reclaim.*interval" \
#          --idle-cpu 50 --stop-within 5
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
defaults=0
runs_or=
idle_pct=
stop_s=
while (($#)); do
	case $1 in
	--dmesg)
		regexes+=("${2:?--dmesg needs a regex}")
		shift 2
		;;
	--defaults)
		defaults=1
		shift
		;;
	--runs-or-dmesg)
		runs_or=${2:?--runs-or-dmesg needs a regex}
		shift 2
		;;
	--idle-cpu)
		idle_pct=${2:?--idle-cpu needs a percentage}
		shift 2
		;;
	--stop-within)
		stop_s=${2:?--stop-within needs seconds}
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
		echo "usage: $0 [--defaults] [--dmesg REGEX]..." \
			"[--runs-or-dmesg REGEX] [--idle-cpu PCT] [--stop-within S]" \
			"[--pageout] [NAME=VALUE]..." >&2
		exit $KSFT_FAIL
		;;
	esac
done

cmdline=$(cat /proc/cmdline)
log "kernel command line: $cmdline"
nr_boot_params=$(grep -o 'damon_reclaim\.[a-z_]*' <<< "$cmdline" | wc -l)
log "$nr_boot_params damon_reclaim parameter(s) on the command line"
if ((defaults)); then
	for kv in "${DEFAULTS[@]}"; do
		[[ " ${expect[*]} " == *" ${kv%%=*}="* ]] || expect+=("$kv")
	done
fi
for kv in "${expect[@]}"; do
	expect_value "${kv%%=*}" "${kv#*=}" "after boot"
done
for re in "${regexes[@]}"; do
	expect_dmesg "$re" "after boot"
done
check_consistent "after boot"
if [ "$(rd enabled)" == Y ]; then
	log "DAMON_RECLAIM runs (kdamond_pid $(rd kdamond_pid))"
elif [ -n "$runs_or" ]; then
	log "DAMON_RECLAIM is off"
	expect_dmesg "$runs_or" "off after boot"
	dmesg | grep -E 'damon_reclaim' | grep -vi 'command line' | head -20 | sed 's/^/#   /'
fi
if [ -n "$idle_pct" ] && [ "$(rd enabled)" == Y ]; then
	pid=$(rd kdamond_pid)
	ticks=$(ticks_over "$pid" 2)
	# USER_HZ ticks (100 a second) over 2 s: percent = ticks / 2.
	log "kdamond used $((ticks / 2))% of a CPU over 2 s"
	((ticks / 2 < idle_pct)) ||
		fail "kdamond used $((ticks / 2))% of a CPU, expected below $idle_pct%"
fi
if [ -n "$stop_s" ] && [ "$(rd enabled)" == Y ]; then
	t0=${EPOCHREALTIME/./}
	wr enabled N || fail "enabled=N refused: $WERR"
	ms=$(((${EPOCHREALTIME/./} - t0) / 1000))
	log "enabled=N took $ms ms"
	((ms <= stop_s * 1000)) || fail "enabled=N took $ms ms, limit $stop_s s"
	check_consistent "after enabled=N"
fi

if ((pageout)); then
	[ "$(rd enabled)" == Y ] || fail "--pageout, but not enabled"
	swap0=$(swap_used_kib)
	make_cold_file "$COLD_MIB" || fail "cannot make tmpfs file"
	trap drop_cold_file EXIT
	want_kib=$((COLD_MIB * 1024 / 2))
	swap_grew() { (($(swap_used_kib) - swap0 >= want_kib)); }
	if wait_for "$TIMEOUT_S" swap_grew; then
		log "$(($(swap_used_kib) - swap0)) KiB paged out;" \
			"bytes_reclaimed_regions $(rd bytes_reclaimed_regions)"
	else
		fail "swap grew by $(($(swap_used_kib) - swap0)) KiB in $TIMEOUT_S s," \
			"expected $want_kib"
	fi
	((pid = $(rd kdamond_pid), pid > 0)) || fail "no kdamond after pageout"
fi

finish
