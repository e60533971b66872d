#!/bin/bash
# Monitoring alone, A/B, interleaved: 3 runs of each kernel, kdamond's CPU
# over 30 s and the TLB shootdowns (first and last count) of both vCPUs.
# Usage: BZ_head=bzImage BZ_new=bzImage run-moncost.sh  (from the repo root)
for r in 1 2 3; do
	for k in head new; do
		bz=BZ_$k
		lab/lab run --kernel "${!bz}" --mem 4G --zram 3072M --timeout 600 -- \
			"bash $PWD/lab/bench/results/flush-interval-20261206/moncost.sh" > /dev/null 2>&1
		d=$(ls -td ~/.cache/damon-lab/runs/*/ | head -1)
		echo "$k run$r $(head -1 "$d/cost.txt")" \
			"$(sed -n 2,3p "$d/cost.txt" | awk '{s = 0; for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+$/) s += $i; printf "%d ", s}')"
	done
done
