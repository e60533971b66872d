// SPDX-License-Identifier: GPL-2.0
/*
 * DAMON operations for the physical address space.
 *
 * A target is a set of physical address ranges.  Accesses are found through
 * the reverse map of the folio holding each region's sampled page: its
 * mappings' Accessed bits are tested and cleared, and its idle flag (which
 * folio_mark_accessed() and reclaim's reverse-map walks clear) is set.  DAMOS
 * pageout isolates the cold folios of a region, unmaps them in batches with
 * one TLB flush each, and hands them to the kernel's reclaim of a folio list.
 *
 * Only LRU folios are tracked.  Free pages, slab, page tables, other kernel
 * memory, holes and offline memory are never accessed as far as DAMON can
 * tell, and are skipped without taking a reference where possible.
 */

#define pr_fmt(fmt) "damon-paddr: " fmt

#include <linux/damon.h>
#include <linux/hugetlb.h>
#include <linux/init.h>
#include <linux/ioport.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/page_idle.h>
#include <linux/pagemap.h>
#include <linux/random.h>
#include <linux/rmap.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/swap.h>
#include <asm/tlbflush.h>

#include "../internal.h"	/* mm/internal.h: LRU isolation, reclaim */
#include "../swap.h"		/* mm/swap.h: add_to_swap() */
#include "internal.h"		/* mm/damon/internal.h */

/* === Getting at the folio of a physical page === */

/*
 * Returns the LRU folio holding @pfn with a reference held, or NULL when
 * there is none: a hole, offline memory, or a page DAMON does not track
 * (free, slab, page table, other kernel memory).  Non-LRU memory is turned
 * away by a peek at the flags, before touching the reference count.
 */
static struct folio *damon_paddr_get_lru_folio(unsigned long pfn)
{
	struct page *page = pfn_to_online_page(pfn);
	struct folio *folio = page ? page_folio(page) : NULL;

	if (!folio || !folio_test_lru(folio) || !folio_try_get(folio))
		return NULL;
	/* Split, freed or reused between the peek and the reference? */
	if (likely(folio == page_folio(page) && folio_test_lru(folio)))
		return folio;
	folio_put(folio);
	return NULL;
}

/* Page frames that pfn_to_online_page() finds online or not together. */
#if defined(CONFIG_SPARSEMEM) && !defined(CONFIG_HAVE_ARCH_PFN_VALID)
#define DAMON_PADDR_HOLE_ALIGN	PAGES_PER_SUBSECTION
#else
#define DAMON_PADDR_HOLE_ALIGN	1UL
#endif

/*
 * How many page frames from @pfn on can be passed over without a closer
 * look, given that @pfn holds no LRU folio: the rest of a free buddy block,
 * of a compound page or of a missing memory subsection.  The flags and the
 * order are read without a reference, so they may be stale; that only makes
 * a pass skip or revisit a few pages.
 */
static unsigned long damon_paddr_nr_untracked(struct page *page,
					      unsigned long pfn)
{
	struct folio *folio;
	unsigned long end;

	if (!page)
		return DAMON_PADDR_HOLE_ALIGN - (pfn & (DAMON_PADDR_HOLE_ALIGN - 1));
	if (PageBuddy(page)) {
		unsigned long order = buddy_order_unsafe(page);

		if (order <= MAX_PAGE_ORDER)
			return 1UL << order;
		return 1;
	}
	folio = page_folio(page);
	end = folio_pfn(folio) + folio_nr_pages(folio);
	return end > pfn ? end - pfn : 1;
}

/* === Access checks === */

/*
 * Clearing an Accessed bit does not flush the TLB (x86 never does, see
 * ptep_clear_flush_young()): a CPU that still caches the translation goes
 * on accessing the page without setting the bit again, and the page looks
 * idle for as long as the entry stays cached.  Hardware TLBs are small
 * enough for that not to last, an emulator's may hold a whole working set.
 * So the callers ask for flushes where a blind spot is costly.
 */
enum damon_paddr_flush {
	DAMON_PADDR_FLUSH_NONE,
	DAMON_PADDR_FLUSH_YOUNG,	/* the mappings found young */
	DAMON_PADDR_FLUSH_ALL,		/* every mapping */
};

/*
 * Each flush interrupts every CPU that runs the address space, and under
 * an emulator one costs more than a whole pass of samples.  A pass over the
 * regions (or over the pages of a pageout) therefore only notes which
 * address spaces need one, and flushes each of them once at its end.  The
 * blind spot lasts until then: the rest of the pass.
 */
#define DAMON_PADDR_FLUSH_BATCH_MMS	8

struct damon_paddr_flush_batch {
	struct mm_struct *mms[DAMON_PADDR_FLUSH_BATCH_MMS];
	unsigned int nr;
};

/* Argument of the reverse-map walk that tests and clears Accessed bits. */
struct damon_paddr_rmap_arg {
	bool young;
	enum damon_paddr_flush flush;
	struct damon_paddr_flush_batch *batch;
};

/*
 * Notes that @mm needs a flush at the end of the pass.  Returns false if
 * the batch is full of other address spaces: then the caller flushes now.
 */
static bool damon_paddr_defer_flush(struct damon_paddr_flush_batch *batch,
				    struct mm_struct *mm)
{
	unsigned int i;

	for (i = 0; i < batch->nr; i++)
		if (batch->mms[i] == mm)
			return true;
	if (batch->nr == DAMON_PADDR_FLUSH_BATCH_MMS)
		return false;
	/* Keeps the mm_struct, not the address space, until the flush. */
	mmgrab(mm);
	batch->mms[batch->nr++] = mm;
	return true;
}

/* Ends a pass: flushes the address spaces noted in @batch. */
static void damon_paddr_flush_batch(struct damon_paddr_flush_batch *batch)
{
	unsigned int i;

	for (i = 0; i < batch->nr; i++) {
		flush_tlb_mm(batch->mms[i]);
		mmdrop(batch->mms[i]);
	}
	batch->nr = 0;
}

/*
 * Lets the next access through the mapping at @pvmw set its Accessed (or
 * Dirty) bit again.
 */
static void damon_paddr_flush_mapping(struct page_vma_mapped_walk *pvmw,
				      struct damon_paddr_flush_batch *batch)
{
	unsigned long size = PAGE_SIZE;

	if (batch && damon_paddr_defer_flush(batch, pvmw->vma->vm_mm))
		return;
	if (IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE) && !pvmw->pte)
		size = HPAGE_PMD_SIZE;
	flush_tlb_range(pvmw->vma, pvmw->address, pvmw->address + size);
}

static bool damon_paddr_clear_young_one(struct folio *folio,
					struct vm_area_struct *vma,
					unsigned long addr, void *arg)
{
	DEFINE_FOLIO_VMA_WALK(pvmw, folio, vma, addr, 0);
	struct damon_paddr_rmap_arg *rmap_arg = arg;

	while (page_vma_mapped_walk(&pvmw)) {
		bool young = false;

		if (pvmw.pte)
			young = ptep_clear_young_notify(vma, pvmw.address,
							pvmw.pte);
		else if (IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE))
			young = pmdp_clear_young_notify(vma, pvmw.address,
							pvmw.pmd);
		else
			WARN_ON_ONCE(1);	/* PMD mapping without THP */
		if (young)
			rmap_arg->young = true;
		if (rmap_arg->flush == DAMON_PADDR_FLUSH_ALL ||
		    (young && rmap_arg->flush == DAMON_PADDR_FLUSH_YOUNG))
			damon_paddr_flush_mapping(&pvmw, rmap_arg->batch);
	}
	return true;
}

/*
 * Tests whether @folio was accessed since it was last made idle, and makes
 * it idle again: clears the Accessed bits of all its mappings and sets its
 * idle flag.  A young mapping is handed over to the folio's young flag so
 * that reclaim still counts the reference DAMON consumed.
 *
 * An unmapped folio (page cache, swap cache) only has its idle flag, which
 * folio_mark_accessed() clears on each access; PG_referenced and the LRU
 * position are reclaim's and are left alone.
 *
 * @flush says which mappings to flush from the TLBs: at once, or at the end
 * of the pass if there is a @batch (see damon_paddr_flush_batch()).
 *
 * The caller holds a reference on @folio.
 */
static enum damon_paddr_access
damon_paddr_folio_test_and_reset(struct folio *folio,
				 enum damon_paddr_flush flush,
				 struct damon_paddr_flush_batch *batch)
{
	struct damon_paddr_rmap_arg arg = {
		.flush = flush,
		.batch = batch,
	};
	struct rmap_walk_control rwc = {
		.arg = &arg,
		.rmap_one = damon_paddr_clear_young_one,
		.anon_lock = folio_lock_anon_vma_read,
		/* kdamond must not wait behind mmap or truncation. */
		.try_lock = true,
	};
	bool accessed;

	if (folio_mapped(folio)) {
		/* File and KSM reverse maps are stable only under the lock. */
		bool need_lock = !folio_test_anon(folio) ||
				 folio_test_ksm(folio);

		if (need_lock && !folio_trylock(folio))
			return DAMON_PADDR_UNKNOWN;
		rmap_walk(folio, &rwc);
		if (need_lock)
			folio_unlock(folio);
		if (rwc.contended)
			return DAMON_PADDR_UNKNOWN;
		if (arg.young)
			folio_set_young(folio);
	}
	accessed = arg.young || !folio_test_idle(folio);
	folio_set_idle(folio);
	return accessed ? DAMON_PADDR_ACCESSED : DAMON_PADDR_IDLE;
}

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

/* What the operations keep in &damon_ctx.ops_private. */
struct damon_paddr_ctx {
	struct damon_paddr_flush_batch window_flushes;
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

/**
 * damon_paddr_nr_put_off_flushes() - Flushes waiting for the next draws.
 * @ctx:	The context, of the physical address operations.
 *
 * Context: The kdamond thread of @ctx, or its KUnit test.
 * Return: how many address spaces the last check of a window left for the
 * draws of the next window's pages to flush.
 */
unsigned int damon_paddr_nr_put_off_flushes(struct damon_ctx *ctx)
{
	struct damon_paddr_flush_batch *batch = damon_paddr_window_flushes(ctx);

	return batch ? batch->nr : 0;
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

static enum damon_paddr_access
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

/**
 * damon_paddr_test_and_reset_access() - Sample the folio of a page frame.
 * @pfn:	The page frame.
 *
 * Tests whether the LRU folio holding @pfn was accessed since the last call
 * made it idle, and makes it idle again, as DAMON does for a sampled page.
 * A folio never made idle before counts as accessed.
 *
 * Context: Process context; may not sleep (takes no sleeping lock, only
 * try-locks).
 * Return: %DAMON_PADDR_UNTRACKED if @pfn holds no LRU folio,
 * %DAMON_PADDR_UNKNOWN if a lock needed for the reverse map was busy (then
 * nothing was changed), otherwise %DAMON_PADDR_ACCESSED or
 * %DAMON_PADDR_IDLE.
 */
enum damon_paddr_access damon_paddr_test_and_reset_access(unsigned long pfn)
{
	return damon_paddr_pfn_test_and_reset(pfn, NULL, DAMON_PADDR_FLUSH_NONE);
}

/*
 * The sampled page of a region stays the same from one sampling interval to
 * the next within an aggregation window, and is re-drawn at random once the
 * window was aggregated and the regions adapted.  Then the reverse-map walk
 * that finds whether it was accessed also makes it idle for the next
 * interval: one walk per region and interval instead of two (one to clear
 * the Accessed bits, one to test them), which is most of the cost of
 * monitoring.  The draw does not depend on what was found, so the estimate
 * stays unbiased, and a region's pages are still covered at random over
 * time.
 *
 * A sampled page whose folio was made idle by the last check (or when it
 * was drawn) is "armed": its address is tagged with DAMON_PADDR_ARMED, a
 * bit below PAGE_SHIFT that DAMON's page-granular addresses never use.
 * Only an armed page is checked.  Another such bit, DAMON_PADDR_STALE_TLB,
 * tells that an Accessed bit of the page was cleared without a TLB flush
 * (see damon_paddr_sample_flush()), and a third, DAMON_PADDR_BARREN, that
 * the region's last draw found no tracked memory (see
 * damon_paddr_draw_sample()).
 */
#define DAMON_PADDR_ARMED		1UL
#define DAMON_PADDR_STALE_TLB		2UL
#define DAMON_PADDR_BARREN		4UL

static bool damon_paddr_sample_armed(const struct damon_region *r)
{
	unsigned long addr = r->sampling_addr;

	return (addr & DAMON_PADDR_ARMED) && addr >= r->ar.start &&
	       addr < r->ar.end;
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
	if (r->sampling_addr & DAMON_PADDR_STALE_TLB)
		return DAMON_PADDR_FLUSH_ALL;
	return DAMON_PADDR_FLUSH_YOUNG;
}

/* Records whether the sampled page of @r was left with a stale TLB entry. */
static void damon_paddr_note_flush(struct damon_region *r,
				   enum damon_paddr_access access,
				   enum damon_paddr_flush flush)
{
	if (flush != DAMON_PADDR_FLUSH_NONE)
		r->sampling_addr &= ~DAMON_PADDR_STALE_TLB;
	else if (access == DAMON_PADDR_ACCESSED)
		r->sampling_addr |= DAMON_PADDR_STALE_TLB;
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
unsigned int damon_paddr_nr_quiet_samples(struct damon_ctx *ctx)
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
 */
#define DAMON_PADDR_DRAW_TRIES	8

static void damon_paddr_draw_sample(struct damon_region *r,
				    struct damon_paddr_sample_pass *pass,
				    enum damon_paddr_flush flush)
{
	unsigned int tries = r->sampling_addr & DAMON_PADDR_BARREN ?
		1 : DAMON_PADDR_DRAW_TRIES;
	enum damon_paddr_access access;
	unsigned long pfn;

	do {
		pfn = damon_paddr_random_pfn(r);
		access = damon_paddr_pfn_test_and_reset(pfn, pass, flush);
	} while (access == DAMON_PADDR_UNTRACKED && --tries);
	r->sampling_addr = PFN_PHYS(pfn);
	if (damon_paddr_access_known(access))
		r->sampling_addr |= DAMON_PADDR_ARMED;
	else if (access == DAMON_PADDR_UNTRACKED)
		r->sampling_addr |= DAMON_PADDR_BARREN;
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
		r->sampling_addr &= ~DAMON_PADDR_ARMED;
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
					r->sampling_addr &= ~DAMON_PADDR_BARREN;
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

/* === Pageout === */

/*
 * Whether a folio is worth handing to reclaim, judged from its flags: on an
 * evictable LRU, not mlocked, not under writeback, not a dirty file folio
 * (only kswapd writes those back; others would just be rotated), and not
 * swap-backed memory when no swap space is left.  Also used without a
 * reference, as a hint.
 */
static bool damon_paddr_folio_reclaimable(struct folio *folio)
{
	if (!folio_test_lru(folio) || folio_test_unevictable(folio) ||
	    folio_test_mlocked(folio) || folio_test_writeback(folio))
		return false;
	if (!folio_test_swapbacked(folio))
		return !folio_test_dirty(folio);
	return folio_test_swapcache(folio) || get_nr_swap_pages() > 0;
}

/*
 * Folios isolated before they are handed to reclaim together.  Reclaim
 * flushes the TLBs once per batch for the mappings it removed, and each
 * flush interrupts the CPUs running the workload: one flush per 2 MiB of
 * base pages rather than per SWAP_CLUSTER_MAX of them.
 */
#define DAMON_PADDR_PAGEOUT_BATCH	512

/*
 * Under a time limit, a pass starts with a batch this small: what it costs
 * tells how many folios the time left buys, and the next batches are sized
 * to it, so that a pass overruns its limit by a fraction of a batch rather
 * than by a whole one (which may cost far more than a small time quota).
 */
#define DAMON_PADDR_PAGEOUT_FIRST_BATCH	SWAP_CLUSTER_MAX

/**
 * damon_paddr_pageout_batch() - Size of the next batch of folios to reclaim.
 * @left_ns:		CPU time left before the pass must stop.
 * @ns_per_folio:	What reclaiming a folio of the last batch cost.
 *
 * Context: Any context.
 * Return: the folios @left_ns buys, between %DAMON_PADDR_PAGEOUT_FIRST_BATCH
 * and %DAMON_PADDR_PAGEOUT_BATCH.
 */
unsigned int damon_paddr_pageout_batch(u64 left_ns, u64 ns_per_folio)
{
	u64 nr = div64_u64(left_ns, max(ns_per_folio, 1ULL));

	return clamp_t(u64, nr, DAMON_PADDR_PAGEOUT_FIRST_BATCH,
		       DAMON_PADDR_PAGEOUT_BATCH);
}

/* Page frames scanned between two chances to reschedule. */
#define DAMON_PADDR_RESCHED_PFNS	1024

/* A pageout pass over one region, or one that only makes it idle ahead. */
struct damon_paddr_pageout {
	struct damos *scheme;
	unsigned long start_pfn;
	bool idle_only;			/* idle ahead: reclaims nothing */
	unsigned long sample_pfn;	/* idle ahead leaves it to sampling */
	struct list_head folios;	/* isolated, not yet reclaimed */
	unsigned int nr_folios;
	unsigned int max_folios;	/* reclaimed once that many */
	unsigned long nr_tried;		/* pages of folios worth a try */
	unsigned long nr_unjudged;	/* of those, pages never made idle */
	unsigned long max_judged;	/* pages: the budgets */
	unsigned long max_unjudged;
	u64 stop_ns;			/* the action clock's limit, or 0 */
	bool stopped;			/* a budget ran out */
	unsigned long nr_reclaimed;	/* pages */
	struct damon_paddr_flush_batch flushes;
};

/*
 * Whether reclaim would give @folio swap space and unmap it, and whether it
 * may be done ahead of reclaim without reclaim's care: a base page of
 * anonymous memory (large folios may need splitting; KSM folios are shared
 * across address spaces), still mapped and not pinned for DMA.
 */
static bool damon_paddr_unmap_ahead_ok(struct folio *folio)
{
	return folio_test_anon(folio) && folio_test_swapbacked(folio) &&
	       !folio_test_large(folio) && !folio_test_ksm(folio) &&
	       folio_mapped(folio) && !folio_maybe_dma_pinned(folio);
}

/*
 * Reclaim removes the mappings of each folio it pages out, and before it
 * writes a folio out it flushes the TLBs of the CPUs running the workload if
 * a removed mapping was dirty, as a stale writable translation could change
 * the page under the write: one flush, interrupting the workload, per dirty
 * folio, and one more for the list.  Swap space is given and the mappings
 * removed here instead, for the whole batch, and the TLBs flushed once:
 * reclaim then finds the folios unmapped and writes them out at once.  A
 * folio it cannot do this for (locked, no swap space left, still mapped)
 * goes to reclaim as it is, which takes the usual course with it.  A folio
 * mapped again by a fault before reclaim gets it is unmapped by reclaim as
 * usual.
 */
static void damon_paddr_unmap_batch(struct list_head *folios)
{
	struct folio *folio;

	list_for_each_entry(folio, folios, lru) {
		if (!damon_paddr_unmap_ahead_ok(folio) || !folio_trylock(folio))
			continue;
		if (folio_test_swapcache(folio) || add_to_swap(folio))
			try_to_unmap(folio, TTU_BATCH_FLUSH);
		folio_unlock(folio);
	}
	try_to_unmap_flush();
}

static void damon_paddr_pageout_flush(struct damon_paddr_pageout *po)
{
	if (!po->nr_folios)
		return;
	damon_paddr_flush_batch(&po->flushes);
	damon_paddr_unmap_batch(&po->folios);
	/* Puts back on their LRUs the folios it could not reclaim. */
	po->nr_reclaimed += reclaim_pages(&po->folios);
	po->nr_folios = 0;
}

/*
 * Whether @folio, reclaimable and past the scheme's filters, may be paged
 * out: it was not accessed since it was last made idle.  A region is judged
 * cold from a few sampled pages; a hot page among cold ones would be paged
 * out and read back at once.  So every folio gets a second chance: one
 * found young is made idle and kept, and goes on a later pass if nothing
 * touched it in between (as does one never made idle, see
 * damon_paddr_pageout_pfn(), which does not even count as tried).  The
 * engine restarts the region's age after the pass, so the later pass comes
 * the scheme's minimum age later.  The engine also has the folios of a
 * region made idle ahead, half-way to its minimum age
 * (damon_paddr_idle_ahead()): then a folio untouched since goes on the
 * first pass.  The TLB entries of a young folio are flushed before it goes
 * back to its LRU so that a later access shows, and the folio keeps the
 * access visible to reclaim through its young flag.
 *
 * A folio that may go is isolated from its LRU and joins the batch to
 * reclaim.
 */
static void damon_paddr_pageout_isolate(struct damon_paddr_pageout *po,
					struct folio *folio)
{
	if (damon_paddr_folio_test_and_reset(folio, DAMON_PADDR_FLUSH_YOUNG,
					     &po->flushes) != DAMON_PADDR_IDLE) {
		damon_paddr_flush_batch(&po->flushes);
		return;
	}
	if (!folio_isolate_lru(folio))
		return;
	list_add_tail(&folio->lru, &po->folios);
	po->nr_folios++;
}

/*
 * Considers the page frame @pfn for pageout; isolates its folio if it may go.
 * Returns how many page frames, from @pfn on, were dealt with.
 */
static unsigned long damon_paddr_pageout_pfn(struct damon_paddr_pageout *po,
					     unsigned long pfn)
{
	struct page *page = pfn_to_online_page(pfn);
	struct folio *folio;
	unsigned long nr, nr_pages, used, max;
	bool unjudged;

	if (!page || !damon_paddr_folio_reclaimable(page_folio(page)))
		return damon_paddr_nr_untracked(page, pfn);
	folio = damon_paddr_get_lru_folio(pfn);
	if (!folio)
		return 1;
	nr = folio_pfn(folio) + folio_nr_pages(folio) - pfn;
	/*
	 * A large folio belongs to the region holding its first page, so that
	 * it is not paged out for a region it barely overlaps.
	 */
	if (folio_pfn(folio) < po->start_pfn ||
	    !damon_paddr_folio_reclaimable(folio) ||
	    damos_filter_out_folio(po->scheme, folio))
		goto out;
	nr_pages = folio_nr_pages(folio);
	/* Never made idle (or used through a system call since)? */
	unjudged = !po->idle_only && !folio_test_idle(folio);
	used = unjudged ? po->nr_unjudged : po->nr_tried - po->nr_unjudged;
	max = unjudged ? po->max_unjudged : po->max_judged;
	/*
	 * The first folio of a pass goes whole, even beyond the budget: a
	 * large one would otherwise stop every pass that reaches it.
	 */
	if (nr_pages > max - used && (used || !max)) {
		po->stopped = true;
		folio_put(folio);
		return 0;
	}
	po->nr_tried += nr_pages;
	if (po->idle_only) {
		/* An access since the last check must still show there. */
		if (po->sample_pfn < folio_pfn(folio) ||
		    po->sample_pfn >= folio_pfn(folio) + folio_nr_pages(folio))
			damon_paddr_folio_test_and_reset(folio,
							 DAMON_PADDR_FLUSH_YOUNG,
							 &po->flushes);
		goto out;
	}
	if (unjudged) {
		/* Whether it is in use cannot be told yet: for a later pass. */
		po->nr_unjudged += nr_pages;
		damon_paddr_folio_test_and_reset(folio, DAMON_PADDR_FLUSH_YOUNG,
						 &po->flushes);
		goto out;
	}
	damon_paddr_pageout_isolate(po, folio);
out:
	folio_put(folio);
	return nr;
}

/* Stops the pass if the action clock read @now_ns is past its limit. */
static bool damon_paddr_pageout_stops_at(struct damon_paddr_pageout *po,
					 u64 now_ns)
{
	if (now_ns < po->stop_ns)
		return false;
	po->stopped = true;
	return true;
}

/*
 * Whether the time quota is spent.  Reading the CPU clock of kdamond takes
 * its runqueue lock, so it is read at the start of a pass, around batches
 * and every DAMON_PADDR_RESCHED_PFNS page frames only.
 */
static bool damon_paddr_pageout_time_up(struct damon_paddr_pageout *po)
{
	return po->stop_ns &&
	       damon_paddr_pageout_stops_at(po, damos_action_clock_ns());
}

/*
 * Reclaims the batch; under a time limit, sizes the next batch to the time
 * left.  Returns true if the time is up.
 */
static bool damon_paddr_pageout_reclaim_batch(struct damon_paddr_pageout *po)
{
	unsigned int nr = po->nr_folios;
	u64 start_ns, now_ns;

	if (!po->stop_ns) {
		damon_paddr_pageout_flush(po);
		return false;
	}
	start_ns = damos_action_clock_ns();
	damon_paddr_pageout_flush(po);
	now_ns = damos_action_clock_ns();
	if (damon_paddr_pageout_stops_at(po, now_ns))
		return true;
	po->max_folios = damon_paddr_pageout_batch(po->stop_ns - now_ns,
						   div_u64(now_ns - start_ns,
							   max(nr, 1U)));
	return false;
}

/*
 * Pages out what may go of @r, from its start until a limit of @b is
 * reached, or with @idle_only only makes the folios that could go idle.
 * Tries only the folios it weighs: free, kernel, unevictable and
 * filtered-out memory is passed over at little cost.  Returns the bytes
 * reclaimed.
 */
static unsigned long damon_paddr_pageout(struct damon_region *r,
					 struct damos *s,
					 struct damos_apply_budget *b,
					 bool idle_only)
{
	struct damon_paddr_pageout po = {
		.scheme = s,
		.start_pfn = PHYS_PFN(r->ar.start),
		.idle_only = idle_only,
		.sample_pfn = PHYS_PFN(r->sampling_addr),
		.max_judged = b->max_sz >> PAGE_SHIFT,
		.max_unjudged = b->max_unjudged_sz >> PAGE_SHIFT,
		.stop_ns = b->stop_ns,
		.folios = LIST_HEAD_INIT(po.folios),
		.max_folios = b->stop_ns ? DAMON_PADDR_PAGEOUT_FIRST_BATCH :
			DAMON_PADDR_PAGEOUT_BATCH,
	};
	unsigned long end_pfn = PHYS_PFN(r->ar.end);
	unsigned long pfn = po.start_pfn;
	unsigned long next_resched = pfn + DAMON_PADDR_RESCHED_PFNS;

	if (damon_paddr_pageout_time_up(&po))
		end_pfn = pfn;
	while (pfn < end_pfn) {
		pfn += damon_paddr_pageout_pfn(&po, pfn);
		if (po.stopped)
			break;
		if (po.nr_folios >= po.max_folios &&
		    damon_paddr_pageout_reclaim_batch(&po))
			break;
		if (pfn >= next_resched) {
			next_resched = pfn + DAMON_PADDR_RESCHED_PFNS;
			if (damon_paddr_pageout_time_up(&po))
				break;
			/* Let a stop request end a long pass early. */
			if (damon_loop_should_stop()) {
				po.stopped = true;
				break;
			}
		}
	}
	damon_paddr_pageout_flush(&po);
	damon_paddr_flush_batch(&po.flushes);
	b->sz_tried = po.nr_tried << PAGE_SHIFT;
	b->sz_unjudged = po.nr_unjudged << PAGE_SHIFT;
	if (po.stopped)
		b->end = PFN_PHYS(pfn);
	return po.nr_reclaimed << PAGE_SHIFT;
}

static unsigned long damon_paddr_apply_scheme(struct damon_ctx *ctx,
					      struct damon_target *t,
					      struct damon_region *r,
					      struct damos *s,
					      struct damos_apply_budget *b)
{
	switch (s->action) {
	case DAMOS_PAGEOUT:
		return damon_paddr_pageout(r, s, b, false);
	default:
		return 0;
	}
}

static void damon_paddr_idle_ahead(struct damon_ctx *ctx,
				   struct damon_target *t,
				   struct damon_region *r, struct damos *s,
				   struct damos_apply_budget *b)
{
	if (s->action == DAMOS_PAGEOUT)
		damon_paddr_pageout(r, s, b, true);
}

/* === Priority scores === */

/* Sub-scores are in per-mille before they are weighted. */
#define DAMON_PADDR_SUBSCORE_MAX	1000U

/* Age and size sub-scores grow with the log2 of the value, up to these. */
#define DAMON_PADDR_AGE_MS_LOG2_MAX	20U	/* about 17 minutes */
#define DAMON_PADDR_SZ_PAGES_LOG2_MAX	24U	/* 64 GiB of 4 KiB pages */

static unsigned int damon_paddr_log2_subscore(u64 value, unsigned int max_log2)
{
	unsigned int log2 = value ? ilog2(value) : 0;

	return min(log2, max_log2) * DAMON_PADDR_SUBSCORE_MAX / max_log2;
}

/**
 * damon_paddr_coldness_score() - How cold a region is, for pageout.
 * @attrs:	Monitoring attributes of the region's context.
 * @r:		The region.
 * @quota:	Quota of the scheme, whose weights are used.
 *
 * Combines three sub-scores, each from 0 to 1000, weighted by
 * @quota->weight_nr_accesses, @quota->weight_age and @quota->weight_sz
 * (equal weights for frequency and age if all are 0):
 *
 * - frequency: 1000 for no access in the aggregation window, 0 for an
 *   access in every sample;
 * - age: log2 of the region's age in milliseconds, saturating at 2^20 ms.
 *   Long-lasting idleness makes a rarely accessed region (frequency
 *   sub-score of at least 500) colder; long-lasting use makes a frequently
 *   accessed one hotter, so then the age sub-score is reversed;
 * - size: log2 of the region's size in pages, saturating at 2^24.  Big
 *   regions stayed merged because their pages behave alike.
 *
 * Context: Any context.
 * Return: the weighted average, scaled to 0..%DAMOS_MAX_SCORE.
 */
unsigned int damon_paddr_coldness_score(const struct damon_attrs *attrs,
					const struct damon_region *r,
					const struct damos_quota *quota)
{
	unsigned int max_nr = damon_max_nr_accesses(attrs);
	unsigned int freq, age, sz;
	u64 weight_freq = quota->weight_nr_accesses;
	u64 weight_age = quota->weight_age;
	u64 weight_sz = quota->weight_sz;
	u64 age_us, age_ms, sum, weights;

	if (!max_nr)
		freq = DAMON_PADDR_SUBSCORE_MAX;
	else
		freq = div_u64((u64)(max_nr - min(r->nr_accesses, max_nr)) *
			       DAMON_PADDR_SUBSCORE_MAX, max_nr);

	/* Saturated: any age beyond 2^20 ms scores the same. */
	if (check_mul_overflow((u64)attrs->aggr_interval, (u64)r->age,
			       &age_us))
		age_us = U64_MAX;
	age_ms = div_u64(age_us, USEC_PER_MSEC);
	age = damon_paddr_log2_subscore(age_ms, DAMON_PADDR_AGE_MS_LOG2_MAX);
	if (freq < DAMON_PADDR_SUBSCORE_MAX / 2)
		age = DAMON_PADDR_SUBSCORE_MAX - age;

	sz = damon_paddr_log2_subscore(damon_region_sz(r) >> PAGE_SHIFT,
				       DAMON_PADDR_SZ_PAGES_LOG2_MAX);

	weights = weight_freq + weight_age + weight_sz;
	if (!weights) {
		weight_freq = 1;
		weight_age = 1;
		weights = 2;
	}
	sum = weight_freq * freq + weight_age * age + weight_sz * sz;
	return (unsigned int)div64_u64(sum, weights) * DAMOS_MAX_SCORE /
		DAMON_PADDR_SUBSCORE_MAX;
}

/* Pages looked at to guess how much of a region reclaim could take. */
#define DAMON_PADDR_NR_PROBES	4U

/*
 * Looks at the sampled page of @r and at pages spread evenly from it around
 * the region, without taking references, and returns how many of them look
 * reclaimable and pass the filters of @s.  The same region state always
 * gives the same answer, as the DAMOS engine may ask for a score more than
 * once per application.
 */
static unsigned int damon_paddr_nr_reclaimable_probes(struct damon_region *r,
						      struct damos *s)
{
	unsigned long first = PHYS_PFN(r->ar.start);
	unsigned long nr_pfns = PHYS_PFN(r->ar.end) - first;
	unsigned long offset = PHYS_PFN(r->sampling_addr) - first;
	unsigned int i, nr = 0;

	if (!nr_pfns)
		return 0;
	if (r->sampling_addr < r->ar.start || offset >= nr_pfns)
		offset = 0;
	for (i = 0; i < DAMON_PADDR_NR_PROBES; i++) {
		unsigned long step = nr_pfns / DAMON_PADDR_NR_PROBES * i;
		struct folio *folio;
		struct page *page;

		page = pfn_to_online_page(first + (offset + step) % nr_pfns);
		if (!page)
			continue;
		folio = page_folio(page);
		if (damon_paddr_folio_reclaimable(folio) &&
		    !damos_filter_out_folio(s, folio))
			nr++;
	}
	return nr;
}

/*
 * The pageout score is the coldness, scaled by the share of the region that
 * looks reclaimable.  Free memory, kernel memory, mlocked memory and memory
 * the filters keep look as cold as it gets, but paging them out achieves
 * nothing: without this, the quota would be spent on them first.  A region
 * with nothing reclaimable in sight scores 0; any other cold region at
 * least 1.
 */
static int damon_paddr_pageout_score(struct damon_ctx *ctx,
				     struct damon_region *r, struct damos *s)
{
	unsigned int coldness = damon_paddr_coldness_score(&ctx->attrs, r,
							   &s->quota);
	unsigned int nr = damon_paddr_nr_reclaimable_probes(r, s);

	if (!nr || !coldness)
		return 0;
	return max(coldness * nr / DAMON_PADDR_NR_PROBES, 1U);
}

static int damon_paddr_get_scheme_score(struct damon_ctx *ctx,
					struct damon_target *t,
					struct damon_region *r,
					struct damos *s)
{
	switch (s->action) {
	case DAMOS_PAGEOUT:
		return damon_paddr_pageout_score(ctx, r, s);
	default:
		/* Nothing to tell worthless regions apart: skip none. */
		return max(damos_generic_score(ctx, r, s), 1U);
	}
}

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

/* === Registration === */

static const struct damon_operations damon_paddr_ops = {
	.id = DAMON_OPS_PADDR,
	.init = damon_paddr_ops_init,
	.prepare_access_checks = damon_paddr_prepare_access_checks,
	.check_accesses = damon_paddr_check_accesses,
	.nr_quiet_samples = damon_paddr_nr_quiet_samples,
	.apply_scheme = damon_paddr_apply_scheme,
	.idle_ahead = damon_paddr_idle_ahead,
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
