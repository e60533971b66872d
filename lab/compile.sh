# shellcheck shell=bash
# Compiling the lab's C programs (the workloads and the benchmark's helpers)
# for lab/lab and lab/bench/run.  Sourced; needs LAB_DIR.

# compile_c BIN SRC: compiles SRC into BIN unless BIN is newer than SRC and
# than every header of the lab that SRC may include.  Returns gcc's status.
compile_c() {
	local bin=$1 src=$2 newest=$2 h
	for h in "$LAB_DIR"/bench/*.h "$LAB_DIR"/workloads/*.h; do
		[[ $h -nt $newest ]] && newest=$h
	done
	[[ -x $bin && ! $newest -nt $bin ]] && return 0
	mkdir -p "$(dirname "$bin")"
	gcc -O2 -Wall -Wextra -o "$bin.tmp" "$src" && mv "$bin.tmp" "$bin"
}
