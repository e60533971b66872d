#!/bin/bash
# Diagnosis: runs the demo (demo.sh, same arguments) and every 15 s prints a
# summary of DAMON's regions from the damon_aggregated tracepoint: each
# region as SIZE@START:NR_ACCESSES/AGE.  Used to find why cold memory stays
# in RAM.  Run it with "lab/lab run --kernel release --mem 4G --zram 3G
# --append 'damon_reclaim.enabled=Y ...' -- 'bash lab/guest/regions-trace.sh
# BIN 2048 75'".
T=/sys/kernel/tracing
[[ -d $T/events ]] || mount -t tracefs none "$T" 2>/dev/null
snap() {
	echo > "$T/trace"
	echo 1 > "$T/events/damon/damon_aggregated/enable"
	sleep 0.25
	echo 0 > "$T/events/damon/damon_aggregated/enable"
	grep -o 'nr_regions=.*' "$T/trace" | awk -v tag="$1" '
	{ r = $2; sub(":", "", r); split(r, b, "-"); st = b[1] + 0; en = b[2] + 0
	  if (seen[st]++) next
	  sz = (en - st) / 1048576; tot += sz
	  if ($3 == 0) { if ($4 >= 50) old += sz; else young += sz } else hot += sz
	  nr++
	  line = line sprintf(" %.0fM@%.2fG:%d/%d", sz, st / 1073741824, $3, $4) }
	END { printf "SNAP %s: %d regions, %.0f MiB; idle age>=50: %.0f MiB, idle younger: %.0f MiB, accessed: %.0f MiB\n%s\n", tag, nr, tot, old, young, hot, line }'
}
bash "$(dirname "$0")/demo.sh" "$@" &
demo=$!
t=0
while kill -0 "$demo" 2>/dev/null; do
	sleep 15
	t=$((t + 15))
	kill -0 "$demo" 2>/dev/null && snap "t=$t"
done
wait "$demo"
