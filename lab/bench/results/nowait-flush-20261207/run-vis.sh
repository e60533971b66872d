#!/bin/bash
# paddr_access.sh on two release kernels, interleaved, 3 runs each: how
# many aggregation records of the hot area's regions show accesses.
# Needs the selftests installed in ~/.cache/damon-lab/kselftest.
# Usage: BZ_head=bzImage BZ_new=bzImage run-vis.sh  (from the repo root)
for r in 1 2 3; do
	for k in head new; do
		bz=BZ_$k log=/tmp/vis-$k-$r.log
		lab/lab run --kernel "${!bz}" --mem 4G --zram 2G --timeout 900 -- \
			"bash $PWD/lab/guest/kselftest.sh $HOME/.cache/damon-lab/kselftest damon:paddr_access.sh" > "$log" 2>&1
		echo "$k run$r $(grep -o 'hot_records.*traced [0-9]* s)' "$log" | head -1) |" \
			"$(grep -E '^(not )?ok' "$log" | tail -1)"
	done
done
