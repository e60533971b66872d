// SPDX-License-Identifier: GPL-2.0
/*
 * The memory a built-in DAMON module watches: the System RAM within the
 * physical range its parameters give, found in the resource tree, followed
 * through memory hotplug, and reported in the kernel log.
 */

#include <linux/ioport.h>
#include <linux/lockdep.h>
#include <linux/memory.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include "internal.h"
#include "modules-common.h"

/* State of one walk over the System RAM resources. */
struct damon_modules_ram_walk {
	struct damon_addr_range *ranges;
	unsigned int max_nr;
	unsigned int nr;
	u64 last_end;
};

static int damon_modules_add_ram_res(struct resource *res, void *arg)
{
	struct damon_modules_ram_walk *walk = arg;
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
 * damon_modules_system_ram() - Find the "System RAM" physical ranges.
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
VISIBLE_IF_KUNIT int damon_modules_system_ram(struct damon_addr_range *ranges,
					      unsigned int max_nr)
{
	struct damon_modules_ram_walk walk = {
		.ranges = ranges,
		.max_nr = max_nr,
	};

	walk_system_ram_res(0, ULONG_MAX, &walk, damon_modules_add_ram_res);
	return walk.nr;
}

/**
 * damon_modules_ram_ranges() - The System RAM within a physical range.
 * @start:	First address of the range; 0 with @end 0 for all memory.
 * @end:	First address past the range.
 * @rangesp:	Where an array of the ranges found is stored, to be freed
 *		with kfree() by the caller.
 *
 * Physical addresses outside System RAM (holes, device memory) hold nothing
 * DAMON could page out, and watching them would only cost sampling time.
 *
 * Context: Process context, may sleep.
 * Return: the number of ranges (at least 1), -ENOENT if the range holds no
 * System RAM, -ENOMEM if out of memory.
 */
int damon_modules_ram_ranges(unsigned long start, unsigned long end,
			     struct damon_addr_range **rangesp)
{
	struct damon_addr_range *ranges = NULL;
	int nr, room = 0, i, kept = 0;

	/* Memory may be hotplugged between counting and filling: retry. */
	while ((nr = damon_modules_system_ram(ranges, room)) > room) {
		kfree(ranges);
		ranges = kcalloc(nr, sizeof(*ranges), GFP_KERNEL);
		if (!ranges)
			return -ENOMEM;
		room = nr;
	}
	if (!start && !end)
		end = ULONG_MAX;
	for (i = 0; i < nr; i++) {
		ranges[kept].start = max(ranges[i].start, start);
		ranges[kept].end = min(ranges[i].end, end);
		if (ranges[kept].start < ranges[kept].end)
			kept++;
	}
	if (!kept) {
		kfree(ranges);
		return -ENOENT;
	}
	*rangesp = ranges;
	return kept;
}

/* The ranges a target is to cover, handed to kdamond by damon_call(). */
struct damon_modules_ram {
	struct damon_addr_range *ranges;
	int nr;
};

static int damon_modules_set_ram_fn(struct damon_ctx *ctx, void *data)
{
	struct damon_modules_ram *ram = data;
	struct damon_target *t;

	t = list_first_entry_or_null(&ctx->targets, struct damon_target, list);
	if (!t)
		return -ENOENT;
	return damon_set_regions(t, ram->ranges, ram->nr, ctx->min_region_sz);
}

/*
 * Records @ranges (taken over) as what @r->ctx watches, and says so in the
 * kernel log when that changed, with @why in front.
 */
void damon_modules_set_watched(struct damon_modules_runner *r,
			       struct damon_addr_range *ranges, unsigned int nr,
			       const char *why)
{
	unsigned long sz = 0;
	unsigned int i;

	lockdep_assert_held(&r->lock);
	if (nr == r->nr_watched &&
	    !memcmp(ranges, r->watched, nr * sizeof(*ranges))) {
		kfree(ranges);
		return;
	}
	kfree(r->watched);
	r->watched = ranges;
	r->nr_watched = nr;
	for (i = 0; i < nr; i++)
		sz += ranges[i].end - ranges[i].start;
	pr_info("%s: %swatching %lu MiB of System RAM in %u range(s) (see monitored_ranges)\n",
		r->name, why, sz >> 20, nr);
}

/* Makes the target of @r->ctx follow System RAM within @r->applied. */
static void damon_modules_follow_ram(struct damon_modules_runner *r)
{
	struct damon_modules_ram ram;
	int err;

	lockdep_assert_held(&r->lock);
	ram.nr = damon_modules_ram_ranges(r->applied.start, r->applied.end,
					  &ram.ranges);
	if (ram.nr < 0) {
		pr_warn("%s: System RAM changed, and none is left to watch (%d)\n",
			r->name, ram.nr);
		return;
	}
	err = damon_call(r->ctx, damon_modules_set_ram_fn, &ram);
	if (err) {
		pr_warn("%s: System RAM changed, but watching it failed (%d)\n",
			r->name, err);
		kfree(ram.ranges);
		return;
	}
	damon_modules_set_watched(r, ram.ranges, ram.nr,
				  "System RAM changed: ");
}

static void damon_modules_ram_work_fn(struct work_struct *work)
{
	struct damon_modules_runner *r =
		container_of(work, struct damon_modules_runner, ram_work);

	mutex_lock(&r->lock);
	if (r->ctx && damon_is_running(r->ctx))
		damon_modules_follow_ram(r);
	mutex_unlock(&r->lock);
}

/* Memory hotplug: runs with the hotplug lock held, so defers the work. */
static int damon_modules_ram_notify(struct notifier_block *nb,
				    unsigned long action, void *arg)
{
	struct damon_modules_runner *r =
		container_of(nb, struct damon_modules_runner, ram_nb);

	if (action == MEM_ONLINE || action == MEM_OFFLINE)
		schedule_work(&r->ram_work);
	return NOTIFY_OK;
}

/**
 * damon_modules_follow_hotplug() - Makes a module follow memory hotplug.
 * @r:	The runner of the module, for the life of the system.
 *
 * From then on, System RAM onlined or offlined while the module runs is
 * added to or dropped from what it watches, within the range last applied,
 * a few moments later.
 *
 * Context: Process context, may sleep.  Call once.
 * Return: 0, or the error of register_memory_notifier().
 */
int damon_modules_follow_hotplug(struct damon_modules_runner *r)
{
	INIT_WORK(&r->ram_work, damon_modules_ram_work_fn);
	r->ram_nb.notifier_call = damon_modules_ram_notify;
	return register_memory_notifier(&r->ram_nb);
}
