# shellcheck shell=bash
# The kernel configurations of the lab, for lab/lab and lab/lint.sh: which
# fragments make each variant, and how they become a .config.  Sourced;
# needs LAB_DIR and REPO.

# kconfig_fragments VARIANT TREE: the fragments of VARIANT (release, debug
# or upstream), one path a line, merged in this order over tinyconfig.
kconfig_fragments() {
	local variant=$1 tree=$2
	echo "$LAB_DIR/configs/guest.config"
	echo "$REPO/Kconfig.damon"
	case $variant in
	debug)
		echo "$LAB_DIR/configs/debug.config"
		[[ -f $tree/tools/testing/selftests/damon/config ]] &&
			echo "$tree/tools/testing/selftests/damon/config"
		;;
	*) echo "$LAB_DIR/configs/release.config" ;;
	esac
	# A checkout without our mm/damon builds the base tree's DAMON off.
	if [[ $variant != upstream && ! -f $REPO/mm/damon/Kconfig ]]; then
		echo "$LAB_DIR/configs/damon-off.config"
	fi
	return 0
}

# kconfig_write TREE OUT MAKEARGS FRAGMENT...: OUT/.config becomes
# tinyconfig with each FRAGMENT merged in, completed by olddefconfig.
# MAKEARGS is one string of make arguments for every step ("ARCH=i386
# LLVM=1").  Prints make's output; returns the first failing status.
kconfig_write() {
	local tree=$1 out=$2 args
	read -r -a args <<< "$3"
	shift 3
	make -s -C "$tree" O="$out" "${args[@]}" tinyconfig || return
	(cd "$tree" && scripts/kconfig/merge_config.sh -m -O "$out" \
		"$out/.config" "$@") || return
	make -s -C "$tree" O="$out" "${args[@]}" olddefconfig
}
