#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tunables are 0600 and the pid and statistics 0400: root cannot write the
# read-only ones, and an unprivileged user can neither read the tunables nor
# write anything.

source "$(dirname "$0")/lib.sh"

require_reclaim
mark_dmesg
restore_defaults
trap restore_defaults EXIT

TUNABLES=(enabled commit_inputs)
for kv in "${DEFAULTS[@]}"; do
	TUNABLES+=("${kv%%=*}")
done

for p in "${TUNABLES[@]}"; do
	mode=$(stat -c %a "$PARAMS/$p")
	[ "$mode" == 600 ] || fail "$p has mode $mode, expected 600"
done
for p in "${READ_ONLY[@]}"; do
	mode=$(stat -c %a "$PARAMS/$p")
	[ "$mode" == 400 ] || fail "$p has mode $mode, expected 400"
done

# Root cannot write the read-only ones either, running or not.
check_read_only() {
	local p before
	for p in "${READ_ONLY[@]}"; do
		before=$(rd "$p")
		if wr "$p" 0; then
			fail "root wrote 0 to read-only $p"
		fi
		if wr "$p" 12345; then
			fail "root wrote 12345 to read-only $p"
		fi
		# kdamond_pid and statistics may only change by themselves.
		[ "$p" == kdamond_pid ] && expect_value "$p" "$before" "$p"
	done
}
check_read_only
expect_accept enabled Y
check_read_only
expect_accept enabled N

# As nobody.
if command -v setpriv > /dev/null; then
	as_nobody() {
		setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
	}
elif command -v runuser > /dev/null; then
	as_nobody() { runuser -u nobody -- "$@"; }
else
	skip "neither setpriv nor runuser to drop privileges"
fi
[ "$(as_nobody id -u)" == 65534 ] || skip "cannot run as uid 65534"

# nobody_attempts: as nobody, tries to open every tunable for reading and
# every parameter for writing, all in one shell (each program started
# costs ~0.3 s in a debug guest under TCG).  Prints "read P" or "wrote P"
# for each attempt that got through, then "done".
nobody_attempts() {
	as_nobody bash -c '
		params=$1 nr_tunables=$2
		shift 2
		i=0
		for p in "$@"; do
			if ((i++ < nr_tunables)); then
				{ : < "$params/$p"; } 2> /dev/null && echo "read $p"
			fi
			{ echo 1 > "$params/$p"; } 2> /dev/null && echo "wrote $p"
		done
		echo done
	' nobody "$PARAMS" "${#TUNABLES[@]}" "${TUNABLES[@]}" "${READ_ONLY[@]}"
}

check_unprivileged() {
	local p got line
	local -A before

	for p in kdamond_pid enabled commit_inputs min_age; do
		rdv "$p"
		before[$p]=$RV
	done
	got=$(nobody_attempts)
	[[ $got == *done ]] || fail "the attempts as nobody did not run: '$got'"
	while read -r line; do
		case $line in
		done) ;;
		read\ *) fail "nobody read tunable ${line#read }" ;;
		wrote\ *) fail "nobody wrote 1 to ${line#wrote }" ;;
		?*) fail "unexpected output as nobody: $line" ;;
		esac
	done <<< "$got"
	for p in "${!before[@]}"; do
		expect_value "$p" "${before[$p]}" "$p after nobody wrote"
	done
}

check_unprivileged
expect_value enabled N "after nobody tried to enable"
check_consistent "after nobody tried to enable"

expect_accept enabled Y
pid=$(rd kdamond_pid)
check_unprivileged
expect_value enabled Y "after nobody tried to disable"
expect_value kdamond_pid "$pid" "after nobody tried to disable"
check_consistent "running, after nobody's writes"

finish
