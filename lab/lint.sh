#!/bin/bash
# lab/lint.sh TREE OUT: builds mm/damon/ of the kernel tree TREE (ours laid
# over the base tree) the ways maintainers and build bots do, each in its
# own build directory under OUT, and counts the warnings in DAMON files:
#   w1        gcc, make W=1 (the lab's release configuration)
#   sparse    make C=2 (every DAMON file checked, built or not)
#   clang     LLVM=1 (clang and lld), make W=1
#   i386      ARCH=i386: every unsigned long is 32 bits wide
#   allmod    make allmodconfig
#   allyes    make allyesconfig
# "lab/lint.sh TREE OUT w1 sparse" runs only those.  The first run of each
# prepares its build directory (minutes); later runs rebuild mm/damon only.
# Exit status: 0 if building mm/damon/ gives no warning at all, 1
# otherwise, 2 if a build could not run.
set -euo pipefail

tree=$(readlink -f "${1:?usage: lab/lint.sh TREE OUT [CHECK...]}")
out=$(readlink -f "${2:?usage: lab/lint.sh TREE OUT [CHECK...]}")
shift 2
LAB_DIR=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
REPO=$(dirname "$LAB_DIR")
checks=("$@")
((${#checks[@]})) || checks=(w1 sparse clang i386 allmod allyes)
nproc=$(nproc)
status=0

say() { printf 'lint: %s\n' "$*" >&2; }

# shellcheck source=lab/kconfig.sh
. "$LAB_DIR/kconfig.sh"

# config_lab DIR ARCH MAKEARGS...: the lab's release configuration.
config_lab() {
	local dir=$1 arch=$2 frags
	shift 2
	mapfile -t frags < <(kconfig_fragments release "$tree")
	kconfig_write "$tree" "$dir" "ARCH=$arch $*" "${frags[@]}"
}

# run NAME ARCH CONFIG MAKEARGS...: configure (once), then build mm/damon/
# from clean and count the warnings in our files.
run() {
	local name=$1 arch=$2 config=$3 dir=$out/$1 log start n
	shift 3
	mkdir -p "$dir"
	log=$dir/lint.log
	start=$(date +%s)
	if [[ ! -f $dir/.config || ! -f $dir/.lint-configured ]]; then
		say "$name: configuring ($config, ARCH=$arch $*)"
		if [[ $config == lab ]]; then
			config_lab "$dir" "$arch" "$@" > "$dir/config.log" 2>&1
		else
			make -s -C "$tree" O="$dir" ARCH="$arch" "$@" "$config" > "$dir/config.log" 2>&1
		fi || { say "$name: configuring failed ($dir/config.log)"; status=2; return; }
		touch "$dir/.lint-configured"
	fi
	grep -q '^CONFIG_DAMON=y' "$dir/.config" ||
		{ say "$name: CONFIG_DAMON is not set in $dir/.config"; status=2; return; }
	# Our objects from scratch, so that every file is compiled and checked.
	rm -rf "$dir/mm/damon"
	say "$name: make ARCH=$arch $* mm/damon/ (log: $log)"
	if ! make -C "$tree" O="$dir" ARCH="$arch" -j"$nproc" "$@" mm/damon/ > "$log" 2>&1; then
		grep -E 'error:' "$log" | head -5 >&2 || true
		say "$name: BUILD FAILED ($log)"
		status=2
		return
	fi
	# Every warning of the build counts: one in a kernel header may come
	# from our use of one of its macros.
	n=$(grep -cE ":[0-9]+:[0-9]+: (warning|error)" "$log" || true)
	grep -E -B2 ":[0-9]+:[0-9]+: (warning|error)" "$log" | head -30 >&2 || true
	printf '%-8s %3d warning(s) building mm/damon/, %ds\n' "$name" "$n" $(($(date +%s) - start))
	((n == 0)) || status=$((status > 1 ? status : 1))
}

for c in "${checks[@]}"; do
	case $c in
	w1) run w1 x86_64 lab W=1 ;;
	sparse)
		command -v sparse > /dev/null || { say "sparse: not installed (apt-get install sparse)"; status=2; continue; }
		run sparse x86_64 lab C=2 ;;
	clang)
		command -v clang > /dev/null && command -v ld.lld > /dev/null ||
			{ say "clang: clang or lld not installed (apt-get install clang lld llvm)"; status=2; continue; }
		run clang x86_64 lab LLVM=1 W=1 ;;
	i386) run i386 i386 lab W=1 ;;
	allmod) run allmod x86_64 allmodconfig ;;
	allyes) run allyes x86_64 allyesconfig ;;
	*) say "unknown check '$c' (known: w1 sparse clang i386 allmod allyes)"; exit 2 ;;
	esac
done
exit "$status"
