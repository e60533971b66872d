#!/bin/bash
# Runs the installed DAMON kselftests inside a lab guest (see lab/lab
# selftests).  The install directory is on the read-only root: tests may
# write next to themselves, so run a copy on tmpfs.  TAP output goes to the
# console and to $LAB_OUT/kselftest.tap.
set -uo pipefail
src=${1:?usage: kselftest.sh INSTALL_DIR [COLLECTION:TEST...]}
shift
tests=()
for t in "$@"; do tests+=(-t "$t"); done
cp -a "$src" /tmp/kselftest
cd /tmp/kselftest || exit 1
# Each result line is followed by how long the test took, as a TAP
# comment: what to look at first when the run gets slow.
timed() {
	local line name start=$SECONDS

	while IFS= read -r line; do
		printf '%s\n' "$line"
		[[ $line =~ ^(not\ )?ok\ [0-9]+\  ]] || continue
		name=${line#*selftests: }
		printf '# time: %s: %d s\n' "${name%% #*}" $((SECONDS - start))
		start=$SECONDS
	done
}
# run_kselftest.sh applies each test's timeout from its "settings" file.
./run_kselftest.sh "${tests[@]}" 2>&1 | timed | tee "$LAB_OUT/kselftest.tap"
exit "${PIPESTATUS[0]}"
