// SPDX-License-Identifier: GPL-2.0
/*
 * DAMON regions: their bookkeeping and the adaptive algorithm that keeps
 * their number bounded while following the access pattern.
 *
 * Every aggregation interval, neighbours whose access counts are alike are
 * merged (so that the number of regions, and thus the monitoring cost, stays
 * low), then every region is cut at random points (so that a hot or cold
 * part hidden inside a region gets a chance to show up in the next window).
 */

#define pr_fmt(fmt) "damon: " fmt

#include <linux/init.h>
#include <linux/log2.h>
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "internal.h"

static struct kmem_cache *damon_region_cache __ro_after_init;

/* === Creation and destruction === */

/**
 * damon_new_region() - Allocates a region.
 * @start:	First address of the region.
 * @end:	First address past the region.
 *
 * The region starts with no access recorded and age 0.  Every user copes
 * with a failure (a split is then not done), so the allocation gives up
 * early rather than push the system into reclaim or the OOM killer for
 * monitoring's bookkeeping.
 *
 * Context: May sleep.
 * Return: the new region, or NULL if out of memory.
 */
struct damon_region *damon_new_region(unsigned long start, unsigned long end)
{
	struct damon_region *r;

	r = kmem_cache_alloc(damon_region_cache,
			     GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN);
	if (!r)
		return NULL;
	r->ar.start = start;
	r->ar.end = end;
	r->sampling_addr = start;
	r->sampling_state = 0;
	r->nr_accesses = 0;
	r->last_nr_accesses = 0;
	r->age = 0;
	INIT_LIST_HEAD(&r->list);
	return r;
}

/**
 * damon_add_region() - Appends a region to the regions of a target.
 * @r:	The region; it must lie above every region of @t.
 * @t:	The target.
 *
 * Context: The caller owns @t (kdamond, or anyone while it is not running).
 */
void damon_add_region(struct damon_region *r, struct damon_target *t)
{
	list_add_tail(&r->list, &t->regions);
	t->nr_regions++;
}

/**
 * damon_insert_region_after() - Inserts a region right after another.
 * @r:		The new region; it must lie between @prev and the region
 *		after @prev.
 * @prev:	A region of @t.
 * @t:		The target.
 *
 * Context: The caller owns @t.
 */
void damon_insert_region_after(struct damon_region *r,
			       struct damon_region *prev,
			       struct damon_target *t)
{
	list_add(&r->list, &prev->list);
	t->nr_regions++;
}

/**
 * damon_destroy_region() - Unlinks a region from its target and frees it.
 * @r:	The region.
 * @t:	The target @r belongs to.
 *
 * Context: The caller owns @t.
 */
void damon_destroy_region(struct damon_region *r, struct damon_target *t)
{
	list_del(&r->list);
	t->nr_regions--;
	kmem_cache_free(damon_region_cache, r);
}

/**
 * damon_destroy_regions_of() - Frees every region of a target.
 * @t:	The target.
 *
 * Context: The caller owns @t.
 */
void damon_destroy_regions_of(struct damon_target *t)
{
	struct damon_region *r, *next;

	damon_for_each_region_safe(r, next, t)
		damon_destroy_region(r, t);
}

/* === Setting the monitored ranges === */

/*
 * Aligns ranges[@i] outwards to @align and clips its start to the end of the
 * previous range, whose alignment may have grown over it.  Returns false if
 * nothing of the range is left.
 */
static bool damon_aligned_range(const struct damon_addr_range *ranges,
				unsigned int i, unsigned long align,
				struct damon_addr_range *res)
{
	res->start = ALIGN_DOWN(ranges[i].start, align);
	res->end = ALIGN(ranges[i].end, align);
	if (i > 0)
		res->start = max(res->start, ALIGN(ranges[i - 1].end, align));
	return res->start < res->end;
}

/*
 * Counts the regions damon_apply_ranges() will have to create: one per gap
 * of a range not covered by the existing regions.  Walks exactly like
 * damon_apply_ranges() but changes nothing.
 */
static unsigned int damon_count_holes(struct damon_target *t,
				      const struct damon_addr_range *ranges,
				      unsigned int nr_ranges,
				      unsigned long align)
{
	struct damon_region *r;
	struct damon_addr_range ar;
	unsigned long cursor;
	unsigned int i, nr_holes = 0;

	r = list_first_entry_or_null(&t->regions, struct damon_region, list);
	for (i = 0; i < nr_ranges; i++) {
		if (!damon_aligned_range(ranges, i, align, &ar))
			continue;
		while (r && r->ar.end <= ar.start)
			r = list_is_last(&r->list, &t->regions) ? NULL :
				list_next_entry(r, list);
		cursor = ar.start;
		while (r && r->ar.start < ar.end) {
			if (r->ar.start > cursor)
				nr_holes++;
			cursor = min(r->ar.end, ar.end);
			r = list_is_last(&r->list, &t->regions) ? NULL :
				list_next_entry(r, list);
		}
		if (cursor < ar.end)
			nr_holes++;
	}
	return nr_holes;
}

static struct damon_region *damon_take_from_pool(struct list_head *pool,
						 unsigned long start,
						 unsigned long end)
{
	struct damon_region *r;

	r = list_first_entry(pool, struct damon_region, list);
	list_del(&r->list);
	r->ar.start = start;
	r->ar.end = end;
	r->sampling_addr = start;
	r->sampling_state = 0;
	return r;
}

/*
 * Rebuilds the region list of @t so that it covers exactly the (aligned)
 * ranges.  Regions overlapping a range are kept, with their access history,
 * and trimmed to it; the first and last are stretched to its edges through
 * new regions taken from @pool, which must hold damon_count_holes() of them.
 */
static void damon_apply_ranges(struct damon_target *t,
			       const struct damon_addr_range *ranges,
			       unsigned int nr_ranges, unsigned long align,
			       struct list_head *pool)
{
	LIST_HEAD(kept);
	struct damon_region *r, *hole;
	struct damon_addr_range ar;
	unsigned long cursor;
	unsigned int i, nr = 0;

	for (i = 0; i < nr_ranges; i++) {
		if (!damon_aligned_range(ranges, i, align, &ar))
			continue;
		cursor = ar.start;
		while ((r = list_first_entry_or_null(&t->regions,
						     struct damon_region,
						     list))) {
			if (r->ar.start >= ar.end)
				break;
			if (r->ar.end <= ar.start) {
				damon_destroy_region(r, t);
				continue;
			}
			if (r->ar.start > cursor) {
				hole = damon_take_from_pool(pool, cursor,
							    r->ar.start);
				list_add_tail(&hole->list, &kept);
				nr++;
			}
			r->ar.start = max(r->ar.start, cursor);
			r->ar.end = min(r->ar.end, ar.end);
			if (r->sampling_addr < r->ar.start ||
			    r->sampling_addr >= r->ar.end) {
				r->sampling_addr = r->ar.start;
				r->sampling_state = 0;
			}
			cursor = r->ar.end;
			list_move_tail(&r->list, &kept);
			t->nr_regions--;
			nr++;
		}
		if (cursor < ar.end) {
			hole = damon_take_from_pool(pool, cursor, ar.end);
			list_add_tail(&hole->list, &kept);
			nr++;
		}
	}
	damon_destroy_regions_of(t);
	list_splice(&kept, &t->regions);
	t->nr_regions = nr;
}

/**
 * damon_set_regions() - Makes a target cover exactly the given ranges.
 * @t:			The target.
 * @ranges:		Address ranges, sorted and not overlapping.
 * @nr_ranges:		Number of @ranges.
 * @min_region_sz:	Alignment of regions (a power of two); ranges are
 *			widened to it.
 *
 * Existing regions that overlap a range are kept with their access history
 * and trimmed to it; the parts of a range no region covers get new regions;
 * regions outside every range are freed.  So a client can move the edges of
 * what it monitors without losing what was learnt about the rest.
 *
 * Context: May sleep.  The caller owns @t.
 * Return: 0 on success, -EINVAL if @ranges are not sorted, overlap, are
 * empty or end above the last @min_region_sz-aligned address (so that they
 * cannot be widened), -ENOMEM if out of memory; on failure @t is left
 * unchanged.
 */
int damon_set_regions(struct damon_target *t,
		      const struct damon_addr_range *ranges,
		      unsigned int nr_ranges, unsigned long min_region_sz)
{
	LIST_HEAD(pool);
	struct damon_region *r, *next;
	unsigned int i, nr_holes;

	if (!min_region_sz || !is_power_of_2(min_region_sz))
		return -EINVAL;
	for (i = 0; i < nr_ranges; i++) {
		if (ranges[i].start >= ranges[i].end ||
		    ranges[i].end > ALIGN_DOWN(ULONG_MAX, min_region_sz))
			return -EINVAL;
		if (i > 0 && ranges[i].start < ranges[i - 1].end)
			return -EINVAL;
	}

	nr_holes = damon_count_holes(t, ranges, nr_ranges, min_region_sz);
	for (i = 0; i < nr_holes; i++) {
		r = damon_new_region(0, 0);
		if (!r)
			goto free_pool;
		list_add(&r->list, &pool);
	}
	damon_apply_ranges(t, ranges, nr_ranges, min_region_sz, &pool);
	return 0;

free_pool:
	list_for_each_entry_safe(r, next, &pool, list)
		kmem_cache_free(damon_region_cache, r);
	return -ENOMEM;
}

/* === Split and merge === */

/**
 * damon_split_region_at() - Cuts a region in two.
 * @t:		The target of @r.
 * @r:		The region; it keeps the lower part.
 * @sz_left:	Size of the lower part, in bytes; must be above 0 and below
 *		the size of @r.
 *
 * Both parts keep the access counts and age of @r; the sampled page stays
 * with the part that holds it.  If no memory is left for the upper part,
 * @r is left whole.
 *
 * Context: May sleep.  The caller owns @t.
 * Return: true if @r was cut, false if it was left whole.
 */
bool damon_split_region_at(struct damon_target *t, struct damon_region *r,
			   unsigned long sz_left)
{
	struct damon_region *upper;

	if (WARN_ON_ONCE(!sz_left || sz_left >= damon_region_sz(r)))
		return false;
	upper = damon_new_region(r->ar.start + sz_left, r->ar.end);
	if (!upper)
		return false;
	upper->nr_accesses = r->nr_accesses;
	upper->last_nr_accesses = r->last_nr_accesses;
	upper->age = r->age;
	r->ar.end = upper->ar.start;
	if (r->sampling_addr >= r->ar.end) {
		if (r->sampling_addr < upper->ar.end) {
			upper->sampling_addr = r->sampling_addr;
			upper->sampling_state = r->sampling_state;
		}
		r->sampling_addr = r->ar.start;
		r->sampling_state = 0;
	}
	damon_insert_region_after(upper, r, t);
	return true;
}

/*
 * Average of @a and @b weighted by @wa and @wb, rounded down.  The weights
 * are scaled down until their sum fits in 32 bits, so that the products
 * cannot overflow; they stay exact for regions below 4 GiB.
 */
static unsigned int damon_weighted_avg(unsigned int a, unsigned long wa,
				       unsigned int b, unsigned long wb)
{
	u64 total = (u64)wa + wb;
	unsigned int shift = 0;

	if (total > U32_MAX) {
		shift = fls64(total) - 32;
		wa >>= shift;
		wb >>= shift;
	}
	if (!wa && !wb)
		return a;
	return div64_u64((u64)a * wa + (u64)b * wb, (u64)wa + wb);
}

/**
 * damon_merge_two_regions() - Merges a region into its lower neighbour.
 * @t:	The target of the regions.
 * @l:	The lower region; it takes over the range of @r.
 * @r:	The region right above @l; it is freed.
 *
 * The access counts and the age of the merged region are the averages of
 * those of @l and @r, weighted by their sizes.  It keeps the sampled page
 * of @l.
 *
 * Context: The caller owns @t.
 */
VISIBLE_IF_KUNIT
void damon_merge_two_regions(struct damon_target *t, struct damon_region *l,
			     struct damon_region *r)
{
	unsigned long sz_l = damon_region_sz(l), sz_r = damon_region_sz(r);

	l->nr_accesses = damon_weighted_avg(l->nr_accesses, sz_l,
					    r->nr_accesses, sz_r);
	l->last_nr_accesses = damon_weighted_avg(l->last_nr_accesses, sz_l,
						 r->last_nr_accesses, sz_r);
	l->age = damon_weighted_avg(l->age, sz_l, r->age, sz_r);
	l->ar.end = r->ar.end;
	damon_destroy_region(r, t);
}

/**
 * damon_ages_alike() - Whether two regions are of a similar age.
 * @a:	Age of one region.
 * @b:	Age of the other.
 *
 * The younger is at least half as old as the older.  A region that just
 * started over (a new access pattern, or a DAMOS action that left pages in
 * place) is not alike an old neighbour: merged, it would pull the old one's
 * age down by its share of the size, again at every such merge, and
 * memory that stays idle would not reach a scheme's minimum age.
 *
 * Context: Any context.
 * Return: true if @a and @b are alike.
 */
VISIBLE_IF_KUNIT bool damon_ages_alike(unsigned int a, unsigned int b)
{
	return (u64)min(a, b) * 2 >= max(a, b);
}

/**
 * damon_merge_regions_of() - Merges alike neighbours of a target.
 * @t:		The target.
 * @threshold:	Largest difference of access counts of regions merged.
 * @sz_limit:	Largest size of a merged region, in bytes.
 * @ages_too:	Merge only regions whose ages are alike (damon_ages_alike()).
 *
 * Walks the regions once, merging each region into its lower neighbour when
 * they touch, their access counts differ by at most @threshold, their ages
 * are alike if @ages_too, and the merged region would not be larger than
 * @sz_limit.
 *
 * Context: The caller owns @t.
 */
VISIBLE_IF_KUNIT
void damon_merge_regions_of(struct damon_target *t, unsigned int threshold,
			    unsigned long sz_limit, bool ages_too)
{
	struct damon_region *r, *next, *prev = NULL;

	damon_for_each_region_safe(r, next, t) {
		if (prev && prev->ar.end == r->ar.start &&
		    abs_diff(prev->nr_accesses, r->nr_accesses) <= threshold &&
		    (!ages_too || damon_ages_alike(prev->age, r->age)) &&
		    damon_region_sz(prev) + damon_region_sz(r) <= sz_limit) {
			damon_merge_two_regions(t, prev, r);
			continue;
		}
		prev = r;
	}
}

/*
 * A random size for the lower part of a region of @nr_units units: at
 * least one unit and at least one unit less than the whole.
 */
static unsigned long damon_random_units(unsigned long nr_units)
{
	unsigned long span = nr_units - 1;

	if (span <= U32_MAX)
		return 1 + get_random_u32_below(span);
	return 1 + mul_u64_u32_shr(span, get_random_u32(), 32);
}

/**
 * damon_split_regions_of() - Cuts every region of a target at random points.
 * @t:			The target.
 * @nr_subs:		Number of pieces to cut each region into.
 * @min_region_sz:	Smallest piece, in bytes, and the alignment of the
 *			cuts (a power of two).
 *
 * Each cut goes into the largest piece so far, so a region of at least
 * @nr_subs times @min_region_sz always gives @nr_subs pieces; smaller ones
 * give fewer.  Each piece keeps the access counts and age of its region.
 *
 * Context: May sleep.  The caller owns @t.
 */
VISIBLE_IF_KUNIT
void damon_split_regions_of(struct damon_target *t, unsigned int nr_subs,
			    unsigned long min_region_sz)
{
	struct damon_region *r, *next, *piece, *biggest;
	unsigned long nr_units;
	unsigned int i;

	if (nr_subs < 2 || !min_region_sz)
		return;
	damon_for_each_region_safe(r, next, t) {
		for (i = 1; i < nr_subs; i++) {
			biggest = r;
			for (piece = r; piece != next;
			     piece = list_next_entry(piece, list))
				if (damon_region_sz(piece) >
				    damon_region_sz(biggest))
					biggest = piece;
			nr_units = damon_region_sz(biggest) / min_region_sz;
			if (nr_units < 2 ||
			    !damon_split_region_at(t, biggest, min_region_sz *
						   damon_random_units(nr_units)))
				break;
		}
	}
}

/* === Adaptation === */

/**
 * damon_region_sz_limit() - Largest size a merge may produce.
 * @ctx:	The monitoring context.
 *
 * Bounding merged regions to the total monitored size over
 * &damon_attrs.min_nr_regions keeps at least that many regions.
 *
 * Context: The caller owns @ctx's targets.
 * Return: the limit, in bytes, never below &damon_ctx.min_region_sz.
 */
VISIBLE_IF_KUNIT
unsigned long damon_region_sz_limit(const struct damon_ctx *ctx)
{
	const struct damon_target *t;
	const struct damon_region *r;
	unsigned long total = 0;

	damon_for_each_target(t, ctx)
		damon_for_each_region(r, t)
			total += damon_region_sz(r);
	if (ctx->attrs.min_nr_regions)
		total /= ctx->attrs.min_nr_regions;
	return max(total, ctx->min_region_sz);
}

/* @a / @b rounded up, for any @a (DIV_ROUND_UP() overflows near the top). */
static unsigned long damon_div_round_up(unsigned long a, unsigned long b)
{
	return a / b + (a % b ? 1 : 0);
}

/**
 * damon_split_oversized_regions() - Cuts regions above the merge size limit.
 * @ctx:	The monitoring context.
 *
 * A region larger than damon_region_sz_limit() (a new range, or the first
 * regions of a target) is cut into equal, aligned pieces within the limit.
 * Merging never builds such regions again, so from then on the context
 * keeps at least &damon_attrs.min_nr_regions regions.
 *
 * Context: May sleep.  The caller owns @ctx's targets.
 */
void damon_split_oversized_regions(struct damon_ctx *ctx)
{
	unsigned long align = ctx->min_region_sz;
	unsigned long limit, sz, nr_pieces, piece_sz;
	struct damon_region *r, *next;
	struct damon_target *t;

	if (!align)
		return;
	limit = ALIGN_DOWN(damon_region_sz_limit(ctx), align);
	damon_for_each_target(t, ctx) {
		damon_for_each_region_safe(r, next, t) {
			sz = damon_region_sz(r);
			if (sz <= limit)
				continue;
			nr_pieces = damon_div_round_up(sz, limit);
			piece_sz = ALIGN(damon_div_round_up(sz, nr_pieces),
					 align);
			while (damon_region_sz(r) > piece_sz) {
				if (!damon_split_region_at(t, r, piece_sz))
					break;	/* out of memory */
				r = list_next_entry(r, list);
			}
		}
	}
}

/* Largest difference of access counts of regions that are alike. */
static unsigned int damon_alike_threshold(unsigned int max_nr_accesses)
{
	return max(1U, max_nr_accesses / 10);
}

/**
 * damon_window_age_steps() - How many aggregation intervals the regions age
 * by at the end of the current window.
 * @ctx:	The context.
 *
 * A window lasts an aggregation interval unless kdamond spent longer at
 * its end (a scheme paging out for a second, say): ages count the time the
 * windows took, so that a minimum age is a time, as the user gave it.
 * Sampling does not watch that time: an action for which that matters
 * checks its pages itself.  The remainder is kept for the next windows; a
 * window shorter than an interval (it got all its samples early) still
 * counts one.
 *
 * Context: kdamond, at the end of a window.
 * Return: at least 1.
 */
VISIBLE_IF_KUNIT unsigned int damon_window_age_steps(struct damon_ctx *ctx)
{
	unsigned long interval = ctx->attrs.aggr_interval;
	u64 steps;

	if (!interval || ctx->now_us <= ctx->aged_us ||
	    ctx->now_us - ctx->aged_us < interval) {
		ctx->aged_us = ctx->now_us;
		return 1;
	}
	steps = div64_u64(ctx->now_us - ctx->aged_us, interval);
	ctx->aged_us += steps * interval;
	return min_t(u64, steps, UINT_MAX);
}

/**
 * damon_age_regions() - Ages the regions at the end of a window.
 * @ctx:		The monitoring context.
 * @max_nr_accesses:	Highest access count seen in the window.
 *
 * A region whose access count moved by no more than a tenth of
 * @max_nr_accesses (at least 1) since the previous window grows older by
 * the time the window took (damon_window_age_steps()); otherwise its
 * pattern changed and it starts over at age 0.  Done before schemes are
 * applied, so that they see the window's ages, and a region they act on
 * ages only from then on.
 *
 * Context: Called by kdamond, or by tests on a context that is not running.
 */
void damon_age_regions(struct damon_ctx *ctx, unsigned int max_nr_accesses)
{
	unsigned int threshold = damon_alike_threshold(max_nr_accesses);
	unsigned int steps = damon_window_age_steps(ctx);
	struct damon_target *t;
	struct damon_region *r;

	damon_for_each_target(t, ctx) {
		damon_for_each_region(r, t) {
			if (abs_diff(r->nr_accesses, r->last_nr_accesses) >
			    threshold)
				r->age = 0;
			else
				r->age += min(steps, UINT_MAX - r->age);
		}
	}
}

/* Starts a new aggregation window. */
static void damon_reset_window(struct damon_ctx *ctx)
{
	struct damon_target *t;
	struct damon_region *r;

	damon_for_each_target(t, ctx) {
		damon_for_each_region(r, t) {
			r->last_nr_accesses = r->nr_accesses;
			r->nr_accesses = 0;
		}
	}
}

/**
 * damon_adapt_regions() - Ends an aggregation window: merges, resets and
 * splits the regions of a context.
 * @ctx:		The monitoring context.
 * @max_nr_accesses:	Highest access count seen in the window.
 *
 * Regions whose access counts differ by no more than a tenth of
 * @max_nr_accesses (at least 1) are alike: neighbours of alike ages
 * (damon_ages_alike()) merge.  While more than
 * &damon_attrs.max_nr_regions remain, ages are no longer looked at, then
 * the threshold doubles, and merging goes on.  Then each access count
 * becomes the previous one, regions above the merge size limit are cut (see
 * damon_split_oversized_regions()) and, while that cannot exceed
 * &damon_attrs.max_nr_regions, every region is split in two pieces (three
 * while there are at most twice &damon_attrs.min_nr_regions) so that the
 * count grows back.
 *
 * Context: May sleep.  Called by kdamond, or by tests on a context that is
 * not running.
 */
void damon_adapt_regions(struct damon_ctx *ctx, unsigned int max_nr_accesses)
{
	unsigned long sz_limit = damon_region_sz_limit(ctx);
	unsigned int threshold = damon_alike_threshold(max_nr_accesses);
	unsigned long max_nr = ctx->attrs.max_nr_regions;
	unsigned int nr_regions, nr_subs;
	struct damon_target *t;
	bool ages_too = true;

	for (;;) {
		damon_for_each_target(t, ctx)
			damon_merge_regions_of(t, threshold, sz_limit,
					       ages_too);
		nr_regions = damon_nr_regions(ctx);
		/* Past max_nr_accesses, every neighbour is alike already. */
		if (nr_regions <= max_nr ||
		    (!ages_too && (threshold > max_nr_accesses ||
				   threshold > UINT_MAX / 2)))
			break;
		/* Too many regions: ages first, then access counts give. */
		if (ages_too)
			ages_too = false;
		else
			threshold *= 2;
	}
	damon_reset_window(ctx);
	damon_split_oversized_regions(ctx);
	nr_regions = damon_nr_regions(ctx);

	if ((unsigned long)nr_regions * 2 > max_nr)
		return;
	/* Few, large regions: look inside them faster. */
	if ((unsigned long)nr_regions * 3 <= max_nr &&
	    nr_regions <= 2 * ctx->attrs.min_nr_regions)
		nr_subs = 3;
	else
		nr_subs = 2;
	damon_for_each_target(t, ctx)
		damon_split_regions_of(t, nr_subs, ctx->min_region_sz);
}

static int __init damon_regions_init(void)
{
	damon_region_cache = KMEM_CACHE(damon_region, SLAB_PANIC);
	return 0;
}
subsys_initcall(damon_regions_init);
