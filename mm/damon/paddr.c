// SPDX-License-Identifier: GPL-2.0
/*
 * DAMON operations for the physical address space.
 */

#define pr_fmt(fmt) "damon-paddr: " fmt

#include <linux/damon.h>
#include <linux/ioport.h>
#include <linux/mm.h>

/* === Target ranges: System RAM === */

/* State of one walk over the System RAM resources. */
struct damon_paddr_ram_walk {
	struct damon_addr_range *ranges;
	unsigned int max_nr;
	unsigned int nr;
	u64 last_end;
};

static int damon_paddr_add_ram_res(struct resource *res, void *arg)
{
	struct damon_paddr_ram_walk *walk = arg;
	u64 start = round_up((u64)res->start, PAGE_SIZE);
	u64 end = round_down((u64)res->end + 1, PAGE_SIZE);

	/* Physical addresses that an unsigned long cannot hold are skipped. */
	end = min_t(u64, end, round_down((u64)ULONG_MAX, PAGE_SIZE));
	if (start >= end)
		return 0;

	/* Resources that touch each other make one range. */
	if (walk->nr && start == walk->last_end) {
		if (walk->nr <= walk->max_nr)
			walk->ranges[walk->nr - 1].end = end;
	} else {
		if (walk->nr < walk->max_nr) {
			walk->ranges[walk->nr].start = start;
			walk->ranges[walk->nr].end = end;
		}
		walk->nr++;
	}
	walk->last_end = end;
	return 0;
}

/**
 * damon_paddr_system_ram_ranges() - Find the "System RAM" physical ranges.
 * @ranges:	Where to store the ranges.
 * @max_nr:	How many ranges @ranges can hold.
 *
 * Stores the physical address ranges of System RAM (what /proc/iomem calls
 * "System RAM"), in ascending order, page-aligned, with adjacent resources
 * merged into one range, so that a DAMON target built from them covers all
 * of memory and none of the holes between.
 *
 * Context: Process context; takes the resource tree lock for reading.
 * Return: the number of ranges found.  When that is more than @max_nr, only
 * the first @max_nr were stored, and the caller may retry with more room.
 */
int damon_paddr_system_ram_ranges(struct damon_addr_range *ranges,
				  unsigned int max_nr)
{
	struct damon_paddr_ram_walk walk = {
		.ranges = ranges,
		.max_nr = max_nr,
	};

	walk_system_ram_res(0, ULONG_MAX, &walk, damon_paddr_add_ram_res);
	return walk.nr;
}
