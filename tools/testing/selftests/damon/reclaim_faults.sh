#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# DAMON_RECLAIM under allocation failures (fault injection).
#
#  1. enabled=Y fails at its 1st, 2nd, ... allocation in turn (the writer's
#     /proc/thread-self/fail-nth), until the write no longer reaches the nth:
#     the write succeeds or fails with an error, and the module is then in
#     the state it reports (off after a failed write).
#  2. The same for commit_inputs=Y on a running module, each time with a new
#     min_age so that the commit really rebuilds: (a) the writer's
#     allocations (building the parameter context), (b) kdamond's, which
#     applies the commit (its own fail-nth; with watermarks inactive it
#     allocates nothing else meanwhile).  After a failed commit the same
#     kdamond still runs, and a clean commit then succeeds.
#  3. failslab and fail_page_alloc make the running kdamond's allocations
#     fail (task-filter, make-it-fail), the first ones in a row and then at
#     random, while it splits and merges regions and applies a scheme with
#     a tiny quota: kdamond still runs afterwards, or it stopped and the
#     module says so.
#  4. Enable/disable cycles and a commit still work.
#  Throughout: no kernel report (BUG, WARNING, KASAN, UBSAN, lockdep...),
#  and kmemleak finds no leaked object allocated by DAMON code.
#
# Needs CONFIG_FAULT_INJECTION, FAILSLAB, FAULT_INJECTION_DEBUG_FS (and
# FAIL_PAGE_ALLOC, DEBUG_KMEMLEAK for the parts using them); skips without
# the first ones.  Everything is restored on exit.

source "$(dirname "$0")/lib.sh"

DEBUGFS=/sys/kernel/debug
# Upper bound of n for each fail-nth loop.
MAX_NTH=${MAX_NTH:-300}
# Seconds of each kdamond failure round.
KDAMOND_FAIL_S=${KDAMOND_FAIL_S:-5}
# verbose of the fault attributes: 1 logs each failure in one line, 2 with
# a stack dump (to see where they hit; rate limited).
FAULT_VERBOSE=${FAULT_VERBOSE:-1}

require_reclaim
[ -e /proc/self/fail-nth ] || skip "no /proc/self/fail-nth (CONFIG_FAULT_INJECTION)"
mountpoint -q "$DEBUGFS" || mount -t debugfs none "$DEBUGFS" 2> /dev/null
[ -d "$DEBUGFS/failslab" ] ||
	skip "no $DEBUGFS/failslab (CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS)"
HAVE_FPA=0
[ -d "$DEBUGFS/fail_page_alloc" ] && HAVE_FPA=1

# Page allocation failures injected here come with a call trace.
KERNEL_REPORTS=${KERNEL_REPORTS%|Call Trace}

# nap SECONDS: sleeps without a fork (a read that times out on a pipe
# nobody writes to).
exec {NAP_FD}<> <(:)
nap() { read -r -t "$1" -u "$NAP_FD" _; }

# === Fault injection settings, saved and restored ===

ATTR_FILES=(probability interval times space verbose task-filter
	ignore-gfp-wait ignore-gfp-highmem min-order)
declare -A SAVED_ATTRS
save_fault_attrs() {
	local d f v
	for d in "$DEBUGFS"/fail*/; do
		d=${d%/}
		for f in "${ATTR_FILES[@]}"; do
			[ -f "$d/$f" ] || continue
			v=
			read -r v < "$d/$f" && SAVED_ATTRS[$d/$f]=$v
		done
	done
}

restore_fault_attrs() {
	local k
	# Stop failing first, then put the rest back.
	for k in "${!SAVED_ATTRS[@]}"; do
		[[ $k == */probability ]] && printf '0\n' > "$k" 2> /dev/null
	done
	for k in "${!SAVED_ATTRS[@]}"; do
		printf '%s\n' "${SAVED_ATTRS[$k]}" > "$k" 2> /dev/null ||
			log "could not restore $k"
	done
}

# fattr DIR FILE VALUE: sets a fault injection attribute.
fattr() {
	printf '%s\n' "$3" > "$DEBUGFS/$1/$2" ||
		fail "cannot set $1/$2 to $3"
}

MADE_FAIL=
cleanup() {
	# Disarm this shell first: what follows allocates.
	[ -n "${NTH_W:-}" ] && printf '0' 1>&"$NTH_W" 2> /dev/null
	[ -n "$MADE_FAIL" ] && printf '0\n' > "/proc/$MADE_FAIL/make-it-fail" 2> /dev/null
	restore_fault_attrs
	restore_defaults
}

mark_dmesg
save_fault_attrs
restore_defaults
trap cleanup EXIT

# One line per injected failure, without a stack dump (verbose 2) that
# would look like a kernel report (unless FAULT_VERBOSE asks for it).
for d in "$DEBUGFS"/fail*/; do
	[ -f "$d/verbose" ] && printf '%s\n' "$FAULT_VERBOSE" > "$d/verbose"
done
# fail-nth sees only the allocations these filters let through: all slab
# allocations, page allocations of those that cannot sleep (a user page
# fault of this shell must not fail, page tables are GFP_KERNEL).
fattr failslab ignore-gfp-wait N
((HAVE_FPA)) && fattr fail_page_alloc ignore-gfp-wait Y

# === kmemleak ===

KMEMLEAK=$DEBUGFS/kmemleak
HAVE_KMEMLEAK=0
# kmemleak_cmd CMD: runs a kmemleak command, timing scans.
kmemleak_cmd() {
	local start=$SECONDS
	printf '%s\n' "$1" > "$KMEMLEAK" 2> /dev/null || return 1
	[ "$1" == scan ] && log "kmemleak scan took $((SECONDS - start)) s"
	return 0
}
if [ -e "$KMEMLEAK" ] && kmemleak_cmd scan; then
	# Reports from before this test (early boot, other tests) are not ours.
	kmemleak_cmd clear
	HAVE_KMEMLEAK=1
else
	log "kmemleak unavailable or off: no leak check"
fi

# === Helpers ===

# Sets KDAMONDS to the pids of the threads named kdamond.* (builtins only).
list_kdamonds() {
	local f comm
	KDAMONDS=()
	for f in /proc/[0-9]*/comm; do
		comm=
		read -r comm < "$f" 2> /dev/null || continue
		if [[ $comm == kdamond.* ]]; then
			f=${f#/proc/}
			KDAMONDS+=("${f%/comm}")
		fi
	done
}

# consistent WHAT: enabled Y with exactly one kdamond, kdamond_pid, or N
# with none and -1 (a thread that is exiting gets 2 s to go).  Leaves the
# state in EN and PID.
consistent() {
	local try
	for try in 1 2 3 4 5 6 7 8 9 10; do
		rdv enabled
		EN=$RV
		rdv kdamond_pid
		PID=$RV
		list_kdamonds
		if [ "$EN" == Y ]; then
			((${#KDAMONDS[@]} == 1)) && [ "${KDAMONDS[0]}" == "$PID" ] &&
				return 0
		elif [ "$EN" == N ]; then
			((${#KDAMONDS[@]} == 0)) && [ "$PID" == -1 ] && return 0
		fi
		nap 0.2
	done
	fail "$1: enabled $EN, kdamond_pid $PID, kdamond(s): ${KDAMONDS[*]:-none}"
	return 1
}

# armed_write NTH_FD NTH_PATH OP_FD VALUE N: makes the Nth allocation of the
# task whose fail-nth is NTH_PATH (open for writing at NTH_FD) fail, writes
# VALUE through OP_FD, and disarms.  Files are opened before arming: opening
# allocates.  Sets OP_RC (the write's status), OP_ERR (its error message)
# and LEFT (fail-nth after the write: 0 if the failure was injected).
armed_write() {
	local nth_fd=$1 nth_path=$2 op_fd=$3 value=$4 n=$5 rd err
	exec {err}> "$WERR_FILE" {rd}< "$nth_path"
	printf '%s' "$n" 1>&"$nth_fd"
	printf '%s\n' "$value" 2>&"$err" 1>&"$op_fd"
	OP_RC=$?
	LEFT=
	read -r LEFT <&"$rd"
	printf '0' 1>&"$nth_fd"
	exec {rd}<&- {err}>&-
	OP_ERR=
	if ((OP_RC)); then
		read -r OP_ERR < "$WERR_FILE"
		OP_ERR=${OP_ERR##*: }
	fi
	[[ $LEFT =~ ^[0-9]+$ ]]
}

# Parameters that make every part of the context get built: a filter, two
# quota goals.  Few regions, and watermarks that keep the scheme inactive
# (a guest with most of its memory free), so that kdamond allocates
# nothing on its own between commits.
COMMON=(skip_anon=Y quota_mem_pressure_us=1000 quota_autotune_feedback=1000
	min_nr_regions=10 max_nr_regions=20 aggr_interval=1000000)

exec {NTH_W}> /proc/thread-self/fail-nth
NTH_PATH=/proc/thread-self/fail-nth
exec {EN_FD}> "$PARAMS/enabled" {COMMIT_FD}> "$PARAMS/commit_inputs"

# === 1. enabled=Y ===

log "1. failing each allocation of enabled=Y in turn"
set_params "${COMMON[@]}"
F_ENABLE=0 E_ENABLE=0
for ((n = 1; n <= MAX_NTH; n++)); do
	if ! armed_write "$NTH_W" "$NTH_PATH" "$EN_FD" Y $n; then
		fail "enable, n=$n: fail-nth reads '$LEFT'"
		break
	fi
	if ((LEFT)); then
		((OP_RC)) && fail "enable failed ($OP_ERR) with no failure injected"
		consistent "enable, nothing injected (n=$n)"
		[ "$EN" == Y ] || fail "enable, nothing injected: enabled reads $EN"
		log "enable: reached $((n - 1)) allocations, $E_ENABLE failed the write"
		wr enabled N || fail "disabling failed: $WERR"
		break
	fi
	F_ENABLE=$((F_ENABLE + 1))
	consistent "enable, allocation $n failed"
	if ((OP_RC)); then
		E_ENABLE=$((E_ENABLE + 1))
		[ "$EN" == N ] ||
			fail "enable failed ($OP_ERR) at allocation $n but enabled reads $EN"
	fi
	wr enabled N || fail "disabling after n=$n failed: $WERR"
	consistent "disabled after n=$n"
done
((n > MAX_NTH)) && fail "enable still reached allocation $MAX_NTH"

# === 2a. commit_inputs=Y, the writer's allocations ===

# next_min_age [BASE]: writes min_age BASE or BASE + 1 s (BASE defaults to
# 100 s), the other than last time, so that each commit changes the scheme.
MIN_AGE_I=0
next_min_age() {
	MIN_AGE_I=$((MIN_AGE_I + 1))
	wr min_age $((${1:-100000000} + MIN_AGE_I % 2 * 1000000)) ||
		fail "writing min_age refused: $WERR"
}

# start_running WHAT: turns the module on (unarmed) and sets KPID.
start_running() {
	wr enabled Y || fail "$1: enabling failed: $WERR"
	consistent "$1" || return 1
	KPID=$PID
}

# after_commit WHAT: the same kdamond still runs; after a failed commit, a
# clean one succeeds.
after_commit() {
	consistent "$1"
	if [ "$EN" != Y ] || [ "$PID" != "$KPID" ]; then
		fail "$1 (${OP_ERR:-succeeded}): kdamond $KPID gone (enabled $EN, kdamond_pid $PID)"
		start_running "restart after $1"
		return 1
	fi
	if ((OP_RC)); then
		next_min_age
		wr commit_inputs Y ||
			fail "$1: the next clean commit failed too: $WERR"
		consistent "$1, clean commit after it"
		[ "$PID" == "$KPID" ] || fail "$1: clean commit after it changed kdamond"
	fi
}

# fail_each_commit_alloc WHO NTH_FD NTH_PATH: fails the 1st, 2nd, ...
# allocation of WHO (the writer or kdamond) through its fail-nth file
# (NTH_PATH, open as NTH_FD) during commit_inputs=Y, until a commit no longer
# reaches the nth.  Counts in F_COMMIT (failed) and E_COMMIT (failed writes).
fail_each_commit_alloc() {
	local who=$1 fd=$2 path=$3
	F_COMMIT=0 E_COMMIT=0
	for ((n = 1; n <= MAX_NTH; n++)); do
		next_min_age
		if ! armed_write "$fd" "$path" "$COMMIT_FD" Y $n; then
			fail "commit ($who), n=$n: fail-nth reads '$LEFT'"
			return
		fi
		if ((LEFT)); then
			((OP_RC)) && fail "commit failed ($OP_ERR) with nothing injected in $who"
			after_commit "commit ($who), nothing injected"
			log "commit ($who): reached $((n - 1)) allocations," \
				"$E_COMMIT failed the write"
			return
		fi
		F_COMMIT=$((F_COMMIT + 1))
		((OP_RC)) && E_COMMIT=$((E_COMMIT + 1))
		after_commit "commit, $who's allocation $n failed"
	done
	fail "commit ($who) still reached allocation $MAX_NTH"
}

log "2a. failing each allocation of commit_inputs=Y (writer) in turn"
start_running "before commits"
fail_each_commit_alloc writer "$NTH_W" "$NTH_PATH"
F_WCOMMIT=$F_COMMIT E_WCOMMIT=$E_COMMIT

# === 2b. commit_inputs=Y, kdamond's allocations ===

# A running module applies a commit in kdamond (damon_call()): its own
# fail-nth reaches those allocations.
log "2b. failing each allocation kdamond makes applying a commit in turn"
exec {KNTH_W}> "/proc/$KPID/fail-nth" || fail "cannot open /proc/$KPID/fail-nth"
fail_each_commit_alloc kdamond "$KNTH_W" "/proc/$KPID/fail-nth"
F_KCOMMIT=$F_COMMIT E_KCOMMIT=$E_COMMIT
[ -n "${KNTH_W:-}" ] && exec {KNTH_W}>&-
wr enabled N || fail "disabling after the commits failed: $WERR"
consistent "off after the commits"

# === 3. The running kdamond's own allocations ===

# kdamond_round NAME PROB TIMES_SLAB TIMES_PAGE [commit]: lets failslab
# (and fail_page_alloc) fail up to TIMES of kdamond's allocations, each
# with probability PROB %, for at most KDAMOND_FAIL_S seconds; with
# "commit", commits a new min_age every half second meanwhile (kdamond
# applies it, so the commit may fail).  Adds the number failed to
# F_KDAMOND.
kdamond_round() {
	local name=$1 prob=$2 ts=$3 tp=$4 commit=${5:-} end left_s left_p=0 got
	local nr_commits=0 nr_refused=0
	fattr failslab times "$ts"
	fattr failslab probability "$prob"
	if ((HAVE_FPA)); then
		fattr fail_page_alloc times "$tp"
		fattr fail_page_alloc probability "$prob"
	fi
	end=$((SECONDS + KDAMOND_FAIL_S))
	while ((SECONDS < end)); do
		nap 0.5
		if [ -n "$commit" ]; then
			next_min_age 1000000
			nr_commits=$((nr_commits + 1))
			wr commit_inputs Y || nr_refused=$((nr_refused + 1))
		fi
		read -r left_s < "$DEBUGFS/failslab/times"
		((HAVE_FPA)) && read -r left_p < "$DEBUGFS/fail_page_alloc/times"
		((left_s == 0 && left_p == 0)) && break
	done
	((nr_commits)) && log "$name: $nr_refused of $nr_commits commits failed"
	fattr failslab probability 0
	((HAVE_FPA)) && fattr fail_page_alloc probability 0
	read -r left_s < "$DEBUGFS/failslab/times"
	got=$((ts - left_s))
	if ((HAVE_FPA)); then
		read -r left_p < "$DEBUGFS/fail_page_alloc/times"
		log "$name: $got slab and $((tp - left_p)) page allocations failed"
		got=$((got + tp - left_p))
	else
		log "$name: $got slab allocations failed"
	fi
	F_KDAMOND=$((F_KDAMOND + got))
}

log "3. failing the running kdamond's allocations"
write_defaults
# Many regions, split and merged every 100 ms; a scheme always active whose
# 4 KiB quota makes it split regions too.
set_params min_nr_regions=10 max_nr_regions=1000 aggr_interval=100000 \
	sample_interval=5000 min_age=1000000 quota_ms=10 quota_sz=4096 \
	wmarks_high=1000 wmarks_mid=999 wmarks_low=0 wmarks_interval=100000
F_KDAMOND=0
if start_running "kdamond failures: start"; then
	# Let it split regions and apply the scheme first.
	nap 3
	fattr failslab task-filter Y
	fattr failslab interval 1
	fattr failslab space 0
	if ((HAVE_FPA)); then
		fattr fail_page_alloc task-filter Y
		fattr fail_page_alloc interval 1
		fattr fail_page_alloc space 0
		fattr fail_page_alloc ignore-gfp-wait N
		fattr fail_page_alloc ignore-gfp-highmem N
		fattr fail_page_alloc min-order 0
	fi
	if printf '1\n' > "/proc/$KPID/make-it-fail"; then
		MADE_FAIL=$KPID
		rdv nr_reclaim_tried_regions
		tried=$RV
		kdamond_round "in a row" 100 100 50
		kdamond_round "at random (10%)" 10 300 100 commit
		rdv nr_reclaim_tried_regions
		log "scheme tried $((RV - tried)) regions meanwhile"
		printf '0\n' > "/proc/$KPID/make-it-fail" 2> /dev/null
		MADE_FAIL=
	else
		fail "cannot set /proc/$KPID/make-it-fail"
	fi
	((HAVE_FPA)) && fattr fail_page_alloc ignore-gfp-wait Y
	((F_KDAMOND)) || fail "no allocation of kdamond failed"
	consistent "after kdamond's failures"
	if [ "$EN" == Y ]; then
		[ "$PID" == "$KPID" ] || fail "kdamond $KPID replaced by $PID"
		# It still works: it goes on and a commit applies.
		nap 1
		consistent "1 s after kdamond's failures"
		next_min_age 1000000
		wr commit_inputs Y || fail "commit after kdamond's failures: $WERR"
		consistent "commit after kdamond's failures"
	else
		log "kdamond stopped under the failures (enabled reads N)"
	fi
	wr enabled N || fail "disabling after kdamond's failures: $WERR"
	consistent "off after kdamond's failures"
fi
write_defaults

# === 4. Life goes on ===

log "4. enable/disable cycles"
set_params "${COMMON[@]}"
for round in 1 2 3; do
	wr enabled Y || fail "round $round: enabling failed: $WERR"
	consistent "round $round, on"
	next_min_age
	wr commit_inputs Y || fail "round $round: commit failed: $WERR"
	consistent "round $round, committed"
	wr enabled N || fail "round $round: disabling failed: $WERR"
	consistent "round $round, off"
done
write_defaults

# === Leaks ===

# Prints the kmemleak reports whose backtrace has a DAMON function.
damon_leaks() {
	awk '
	function flush() { if (obj != "" && hit) printf "%s", obj; obj = ""; hit = 0 }
	/^unreferenced object/ { flush() }
	{ obj = obj $0 "\n" }
	/^ +\[<[0-9a-f]+>\]/ && /damon/ { hit = 1 }
	END { flush() }' "$KMEMLEAK"
}

if ((HAVE_KMEMLEAK)); then
	# An object is reported once it was unreferenced in a scan and older
	# than the scan before (and than 5 s): two scans, 6 s apart.
	nap 6
	kmemleak_cmd scan || fail "kmemleak scan failed"
	nap 6
	kmemleak_cmd scan || fail "kmemleak scan failed"
	leaks=$(damon_leaks)
	nr_all=$(grep -c '^unreferenced object' "$KMEMLEAK")
	if [ -n "$leaks" ]; then
		fail "kmemleak: $(grep -c '^unreferenced object' <<< "$leaks")" \
			"leaked object(s) allocated by DAMON ($nr_all reported in all):"
		echo "$leaks" | head -60 | sed 's/^/#   /'
	else
		log "kmemleak: no DAMON object leaked ($nr_all other report(s))"
	fi
fi

log "allocations failed: enable $F_ENABLE ($E_ENABLE failed the write)," \
	"commit writer $F_WCOMMIT ($E_WCOMMIT), commit kdamond $F_KCOMMIT" \
	"($E_KCOMMIT), running kdamond $F_KDAMOND;" \
	"$((F_ENABLE + F_WCOMMIT + F_KCOMMIT + F_KDAMOND)) in total"
finish
