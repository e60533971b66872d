/* SPDX-License-Identifier: GPL-2.0 */
/*
 * swapio.h: how many pages the guest has read from and written to swap,
 * for the benchmark's programs (monitor.c, oracle.c, pageoutcost.c).
 */
#ifndef LAB_SWAPIO_H
#define LAB_SWAPIO_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Value of @key in a "key value" or "key: value kB" file, in its unit;
 * -1 if the file or the key is missing.
 */
static inline long long read_keyed(const char *path, const char *key)
{
	char line[256];
	size_t len = strlen(key);
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, len) ||
		    (line[len] != ' ' && line[len] != ':'))
			continue;
		v = strtoll(line + len + 1, NULL, 10);
		break;
	}
	fclose(f);
	return v;
}

/*
 * Pages read from / written to the zram swap device (sectors of
 * /sys/block/zram0/stat).  Stands in for pswpin/pswpout of /proc/vmstat,
 * which a kernel without CONFIG_VM_EVENT_COUNTERS (the lab's) does not
 * have; zram is the only swap of the lab's guests.
 */
static inline void zram_io_pages(long long *in, long long *out)
{
	long long v[7];
	FILE *f = fopen("/sys/block/zram0/stat", "r");

	*in = *out = -1;
	if (!f)
		return;
	if (fscanf(f, "%lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1],
		   &v[2], &v[3], &v[4], &v[5], &v[6]) == 7) {
		*in = v[2] / 8;
		*out = v[6] / 8;
	}
	fclose(f);
}

/* Pages swapped in and out so far; -1 each when neither source is there. */
static inline void swap_io_pages(long long *in, long long *out)
{
	*in = read_keyed("/proc/vmstat", "pswpin");
	*out = read_keyed("/proc/vmstat", "pswpout");
	if (*in < 0 || *out < 0)
		zram_io_pages(in, out);
}

#endif /* LAB_SWAPIO_H */
