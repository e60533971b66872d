// SPDX-License-Identifier: GPL-2.0
/*
 * DAMON operations for the physical address space: the operations table,
 * and the sampling of the regions' pages.
 *
 * A target is a set of physical address ranges.  Each region is sampled at
 * one page per sampling interval, through the reverse map of its folio (see
 * paddr-access.c); pageout and its priority scores are in paddr-pageout.c.
 *
 * All of it runs in kdamond, which owns the regions of its context.
 */

#define pr_fmt(fmt) "damon-paddr: " fmt

#include <linux/init.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "paddr.h"

/*
 * State of one pass over the sampled pages of the regions: what the last
 * large folio tested showed, so that a folio spanning the sampled pages of
 * several regions is tested once (a second test would find the Accessed
 * bits the first one cleared), and where the flushes the pass asks for are
 * noted: its own batch, or the one the last check of a window hands over to
 * the draws of the next (see damon_paddr_window_flushes()).
 */
struct damon_paddr_sample_pass {
	unsigned long memo_start_pfn;
	unsigned long memo_end_pfn;
	enum damon_paddr_access memo_access;
	struct damon_paddr_flush_batch *flushes;
	struct damon_paddr_flush_batch own_flushes;
};

static void damon_paddr_ops_init(struct damon_ctx *ctx)
{
	struct damon_paddr_ctx *pc = kzalloc(sizeof(*pc), GFP_KERNEL);

	/* Without it, each pass flushes what it asked for on its own. */
	ctx->ops_private = pc;
}

static void damon_paddr_ops_cleanup(struct damon_ctx *ctx)
{
	struct damon_paddr_ctx *pc = ctx->ops_private;

	if (!pc)
		return;
	damon_paddr_flush_batch(&pc->window_flushes);
	kfree(pc);
	ctx->ops_private = NULL;
}

/*
 * The last check of a window and the draws of the next window's pages, after
 * the schemes were applied and the regions adapted, would each flush the
 * address spaces they found young pages in: the same ones, as the regions in
 * use stay in use.  The check notes its flushes in this batch instead, and
 * the draws flush them along with their own: one flush per address space
 * and window.  The pages the check flushes for were found accessed: their
 * regions are no candidates of a scheme for unaccessed memory in the window
 * being aggregated, and their flush is done before any later check.
 *
 * Returns NULL if @ctx has no such batch (its allocation failed).
 */
static struct damon_paddr_flush_batch *
damon_paddr_window_flushes(struct damon_ctx *ctx)
{
	struct damon_paddr_ctx *pc = ctx->ops_private;

	return pc ? &pc->window_flushes : NULL;
}

/*
 * Starts a pass whose flushes go to @batch, or to its own if it is NULL.
 */
static void damon_paddr_start_pass(struct damon_paddr_sample_pass *pass,
				   struct damon_paddr_flush_batch *batch)
{
	*pass = (struct damon_paddr_sample_pass){};
	pass->flushes = batch ? batch : &pass->own_flushes;
}

/*
 * Tests the folio holding @pfn (see damon_paddr_folio_test_and_reset()), or
 * answers what @pass found when it tested that large folio already.
 */
VISIBLE_IF_KUNIT enum damon_paddr_access
damon_paddr_pfn_test_and_reset(unsigned long pfn,
			       struct damon_paddr_sample_pass *pass,
			       enum damon_paddr_flush flush)
{
	enum damon_paddr_access access;
	struct folio *folio;

	if (pass && pfn >= pass->memo_start_pfn && pfn < pass->memo_end_pfn)
		return pass->memo_access;
	folio = damon_paddr_get_lru_folio(pfn);
	if (!folio)
		return DAMON_PADDR_UNTRACKED;
	access = damon_paddr_folio_test_and_reset(folio, flush,
						  pass ? pass->flushes : NULL);
	if (pass && folio_test_large(folio)) {
		pass->memo_start_pfn = folio_pfn(folio);
		pass->memo_end_pfn = pass->memo_start_pfn +
			folio_nr_pages(folio);
		pass->memo_access = access;
	}
	folio_put(folio);
	return access;
}

/*
 * The sampled page of a region stays the same for a whole aggregation
 * window and is drawn anew at random once the window was aggregated and the
 * regions adapted, so that the reverse-map walk that tests a page also makes
 * it idle for the next test: one walk per region and sample instead of two.
 * The draw does not depend on what was found, so the estimate stays
 * unbiased, and a region's pages are covered at random over the windows.
 *
 * Flags of &damon_region.sampling_state (they go with the sampled page, and
 * the core clears them when it picks a new one):
 *
 * DAMON_PADDR_ARMED: the sampled page was made idle by its draw or its last
 * test, so the next test tells whether it was accessed since.  Only armed
 * pages are tested.
 *
 * DAMON_PADDR_STALE_TLB: an Accessed bit of the page was cleared without a
 * TLB flush since the last flush (see damon_paddr_sample_flush()).
 *
 * DAMON_PADDR_BARREN: the last draw found no tracked memory in the region
 * (see damon_paddr_draw_sample()).
 */
#define DAMON_PADDR_ARMED		BIT(0)
#define DAMON_PADDR_STALE_TLB		BIT(1)
#define DAMON_PADDR_BARREN		BIT(2)

static bool damon_paddr_sample_armed(const struct damon_region *r)
{
	return (r->sampling_state & DAMON_PADDR_ARMED) &&
	       r->sampling_addr >= r->ar.start && r->sampling_addr < r->ar.end;
}

static unsigned long damon_paddr_random_pfn(const struct damon_region *r)
{
	unsigned long first = PHYS_PFN(r->ar.start);
	unsigned long nr = PHYS_PFN(r->ar.end) - first;

	if (nr <= 1)
		return first;
	if (nr <= U32_MAX)
		return first + get_random_u32_below(nr);
	return first + get_random_long() % nr;
}

/*
 * Which TLB entries the check of @r flushes, at the end of its pass.  Only
 * in the last check of each aggregation window: those of the pages found
 * young, and all of the sampled page's if one of its bits was cleared
 * without a flush since the last one.  Any other test leaves the page
 * marked stale.  So a page in use shows as accessed at least once per
 * window, wherever its translation stays cached, and sampling costs one
 * flush per address space and window, shared with the draws of the next
 * window's pages (see damon_paddr_window_flushes()).
 */
static enum damon_paddr_flush
damon_paddr_sample_flush(const struct damon_ctx *ctx,
			 const struct damon_region *r)
{
	if (!damon_window_last_sample(ctx))
		return DAMON_PADDR_FLUSH_NONE;
	if (r->sampling_state & DAMON_PADDR_STALE_TLB)
		return DAMON_PADDR_FLUSH_ALL;
	return DAMON_PADDR_FLUSH_YOUNG;
}

/* Records whether the sampled page of @r was left with a stale TLB entry. */
static void damon_paddr_note_flush(struct damon_region *r,
				   enum damon_paddr_access access,
				   enum damon_paddr_flush flush)
{
	if (flush != DAMON_PADDR_FLUSH_NONE)
		r->sampling_state &= ~DAMON_PADDR_STALE_TLB;
	else if (access == DAMON_PADDR_ACCESSED)
		r->sampling_state |= DAMON_PADDR_STALE_TLB;
}

static bool damon_paddr_access_known(enum damon_paddr_access access)
{
	return access == DAMON_PADDR_ACCESSED || access == DAMON_PADDR_IDLE;
}

/*
 * A region that showed no access in the last aggregation window nor so far
 * in this one rests: its sampled page is looked at in the last sample of
 * each window only, right before the window is aggregated.  An Accessed bit
 * stays set until it is cleared, so an access in the window is not missed,
 * only counted once for the samples it spans, and the region is looked at
 * more often from the next window on.  Where proactive reclaim pays, most of
 * memory is cold and most regions rest.
 */
static bool damon_paddr_region_rests(const struct damon_region *r)
{
	return !r->nr_accesses && !r->last_nr_accesses;
}

/*
 * A region with a few accesses, in the last window and so far in this one,
 * is light: it is looked at in every DAMON_PADDR_LIGHT_STRIDE-th sample
 * (and the window's last), and an access in between counts once, as for a
 * resting region.  Regions that see an access now and then (a shell's
 * libraries, a daemon's data) are common in memory that is mostly cold,
 * and one of them would otherwise wake kdamond for every sample.  A region
 * found accessed more often becomes heavy in the same window and is looked
 * at in every sample: its count falls short by at most the samples it
 * spent light, in the first window it is hot.
 *
 * Tuned in the lab: a longer stride saves wake-ups but lets a region that
 * turns hot count less in its first window; a higher threshold keeps more
 * regions light, with the same cost.
 */
#define DAMON_PADDR_LIGHT_STRIDE	4
#define DAMON_PADDR_LIGHT_MAX_ACCESSES	2

static bool damon_paddr_region_light(const struct damon_region *r)
{
	return r->nr_accesses <= DAMON_PADDR_LIGHT_MAX_ACCESSES &&
	       r->last_nr_accesses <= DAMON_PADDR_LIGHT_MAX_ACCESSES;
}

/* Samples from the one taken now to the next where light regions are due. */
static unsigned int damon_paddr_samples_to_light(const struct damon_ctx *ctx)
{
	return DAMON_PADDR_LIGHT_STRIDE - 1 -
		damon_window_sample(ctx) % DAMON_PADDR_LIGHT_STRIDE;
}

static bool damon_paddr_sample_due(const struct damon_ctx *ctx,
				   const struct damon_region *r)
{
	if (damon_window_last_sample(ctx) || !damon_paddr_region_light(r))
		return true;
	return !damon_paddr_region_rests(r) && !damon_paddr_samples_to_light(ctx);
}

/**
 * damon_paddr_nr_quiet_samples() - Samples in which no region is due.
 * @ctx:	The context.
 *
 * While every region rests, no sample but the last of the window checks
 * anything, and while every region is light, only one sample in
 * %DAMON_PADDR_LIGHT_STRIDE does: kdamond sleeps through the others
 * instead of waking up for each, as a wake-up costs about what a sample of
 * such regions does.  Monitoring memory that is all cold then takes one
 * wake-up per aggregation window.
 *
 * Return: %UINT_MAX (all until the window's last) while every region rests,
 * the samples before the next one due for light regions while none is
 * heavy, otherwise 0.
 */
VISIBLE_IF_KUNIT unsigned int
damon_paddr_nr_quiet_samples(struct damon_ctx *ctx)
{
	struct damon_target *t;
	struct damon_region *r;
	bool all_rest = true;

	damon_for_each_target(t, ctx) {
		damon_for_each_region(r, t) {
			if (!damon_paddr_region_light(r))
				return 0;
			if (!damon_paddr_region_rests(r))
				all_rest = false;
		}
	}
	return all_rest ? UINT_MAX : damon_paddr_samples_to_light(ctx);
}

/*
 * Draws a new sampled page for @r and makes it idle.  A draw that lands on
 * memory DAMON does not track (free or kernel memory, which a glance at the
 * page flags tells) is tried again a few times: a resting region is looked
 * at once per window, and one whose page is free would otherwise stay
 * blind for a whole window, though it may hold hot pages next to the free
 * ones.  Access frequencies thus speak of the region's tracked pages.
 *
 * A region where all tries failed is mostly untracked memory, and it is
 * drawn for again in each sample of the window: with one try each time, or
 * the regions of free memory would cost more than the checks of all the
 * others while some region keeps kdamond awake for every sample.
 *
 * Eight tries find a tracked page in a region that is one-third tracked
 * 96% of the time; each failed try costs a look at the page flags only.
 */
#define DAMON_PADDR_DRAW_TRIES	8

static void damon_paddr_draw_sample(struct damon_region *r,
				    struct damon_paddr_sample_pass *pass,
				    enum damon_paddr_flush flush)
{
	unsigned int tries = r->sampling_state & DAMON_PADDR_BARREN ?
		1 : DAMON_PADDR_DRAW_TRIES;
	enum damon_paddr_access access;
	unsigned long pfn;

	do {
		pfn = damon_paddr_random_pfn(r);
		access = damon_paddr_pfn_test_and_reset(pfn, pass, flush);
	} while (access == DAMON_PADDR_UNTRACKED && --tries);
	r->sampling_addr = PFN_PHYS(pfn);
	r->sampling_state = 0;
	if (damon_paddr_access_known(access))
		r->sampling_state |= DAMON_PADDR_ARMED;
	else if (access == DAMON_PADDR_UNTRACKED)
		r->sampling_state |= DAMON_PADDR_BARREN;
	damon_paddr_note_flush(r, access, flush);
}

/*
 * Regions without a sampled page get one here: all of them after each
 * window, as the last check of a window drops its pages (see
 * damon_paddr_check_region()), and those whose draw found only free or
 * kernel memory or whose lock was busy, resting or not, so that the check
 * at the window's end covers as much as it can.  The pages found young are
 * flushed at the end of the pass, or a page in use would look idle until
 * its translation leaves the TLBs: when all of memory is cold, nothing is.
 */
static void damon_paddr_prepare_access_checks(struct damon_ctx *ctx)
{
	struct damon_paddr_sample_pass pass;
	struct damon_target *t;
	struct damon_region *r;
	unsigned int nr = 0;

	damon_paddr_start_pass(&pass, damon_paddr_window_flushes(ctx));
	damon_for_each_target(t, ctx) {
		damon_for_each_region(r, t) {
			if (!damon_paddr_sample_armed(r))
				damon_paddr_draw_sample(r, &pass,
							DAMON_PADDR_FLUSH_YOUNG);
			if (!(++nr % DAMON_STOP_CHECK_REGIONS) &&
			    damon_loop_should_stop())
				goto out;
		}
	}
out:
	damon_paddr_flush_batch(pass.flushes);
}

static void damon_paddr_check_region(const struct damon_ctx *ctx,
				     struct damon_region *r,
				     struct damon_paddr_sample_pass *pass)
{
	enum damon_paddr_flush flush = damon_paddr_sample_flush(ctx, r);
	enum damon_paddr_access access;

	access = damon_paddr_pfn_test_and_reset(PHYS_PFN(r->sampling_addr),
						pass, flush);
	damon_paddr_note_flush(r, access, flush);
	if (access == DAMON_PADDR_ACCESSED)
		r->nr_accesses++;
	/*
	 * A new page is drawn for the next window once the regions were
	 * adapted to this one: none is drawn for a region about to be merged
	 * away, and a piece split off gets one in the same pass.
	 */
	if (!damon_paddr_access_known(access) || damon_window_last_sample(ctx))
		r->sampling_state &= ~DAMON_PADDR_ARMED;
}

static unsigned int damon_paddr_check_accesses(struct damon_ctx *ctx)
{
	bool last = damon_window_last_sample(ctx);
	struct damon_paddr_flush_batch *put_off =
		last ? damon_paddr_window_flushes(ctx) : NULL;
	struct damon_paddr_sample_pass pass;
	unsigned int max_nr_accesses = 0, nr = 0;
	struct damon_target *t;
	struct damon_region *r;

	damon_paddr_start_pass(&pass, put_off);

	damon_for_each_target(t, ctx) {
		damon_for_each_region(r, t) {
			if (!damon_paddr_sample_armed(r)) {
				/* Full tries again in the next window. */
				if (last)
					r->sampling_state &= ~DAMON_PADDR_BARREN;
			} else if (damon_paddr_sample_due(ctx, r)) {
				damon_paddr_check_region(ctx, r, &pass);
			}
			max_nr_accesses = max(max_nr_accesses, r->nr_accesses);
			if (!(++nr % DAMON_STOP_CHECK_REGIONS) &&
			    damon_loop_should_stop())
				goto out;
		}
	}
out:
	/* Else the draws of the next window's pages flush. */
	if (!put_off)
		damon_paddr_flush_batch(pass.flushes);
	return max_nr_accesses;
}

/* === Registration === */

static const struct damon_operations damon_paddr_ops = {
	.id = DAMON_OPS_PADDR,
	.init = damon_paddr_ops_init,
	.prepare_access_checks = damon_paddr_prepare_access_checks,
	.check_accesses = damon_paddr_check_accesses,
	.nr_quiet_samples = damon_paddr_nr_quiet_samples,
	.apply_scheme = damon_paddr_apply_scheme,
	.get_scheme_score = damon_paddr_get_scheme_score,
	.cleanup = damon_paddr_ops_cleanup,
};

static int __init damon_paddr_init(void)
{
	int err = damon_register_ops(&damon_paddr_ops);

	if (err)
		pr_err("cannot register the operations: %d\n", err);
	return err;
}
subsys_initcall(damon_paddr_init);
