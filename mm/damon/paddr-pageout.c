// SPDX-License-Identifier: GPL-2.0
/*
 * DAMOS pageout for the physical address operations, and the priority
 * scores that decide which regions the pageout quota goes to first.
 *
 * A pass over a region isolates the folios that stayed idle since they were
 * last made idle, gives them swap space and unmaps them in batches with one
 * TLB flush each, and hands them to reclaim_pages().  Runs in kdamond.
 */

#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/page_idle.h>
#include <linux/rmap.h>
#include <linux/swap.h>
#include <kunit/visibility.h>

#include "../internal.h"	/* mm/internal.h: LRU isolation, reclaim */
#include "../swap.h"		/* mm/swap.h: add_to_swap() */
#include "paddr.h"

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
 * base pages rather than per SWAP_CLUSTER_MAX of them.  A larger batch
 * keeps more folios off their LRU lists (and out of reach of the kernel's
 * own reclaim) while it fills.
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
VISIBLE_IF_KUNIT unsigned int damon_paddr_pageout_batch(u64 left_ns,
							u64 ns_per_folio)
{
	u64 nr = div64_u64(left_ns, max(ns_per_folio, 1ULL));

	return clamp_t(u64, nr, DAMON_PADDR_PAGEOUT_FIRST_BATCH,
		       DAMON_PADDR_PAGEOUT_BATCH);
}

/*
 * Page frames scanned between two chances to reschedule, to read the clock
 * and to see a stop request: 4 MiB, a few tens of microseconds of scanning,
 * against what reading the clock costs (its runqueue lock).
 */
#define DAMON_PADDR_RESCHED_PFNS	1024

/* A pass over one region that pages out what may go. */
struct damon_paddr_pageout {
	struct damos *scheme;
	unsigned long start_pfn;
	struct list_head folios;	/* isolated, not yet reclaimed */
	unsigned int nr_folios;
	unsigned int max_folios;	/* reclaimed once that many */
	unsigned long nr_tried;		/* pages of folios worth a try */
	unsigned long nr_prepared;	/* of those, pages never made idle */
	unsigned long max_acted;	/* pages: the budgets */
	unsigned long max_prepared;
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
 * out: nothing used it since a pass last made it idle.  A region is judged
 * cold from a few sampled pages; a hot page among cold ones would be paged
 * out and read back at once.  So every folio gets a second chance: one
 * found accessed is made idle and kept, and goes on a later pass if
 * nothing touched it in between (as does one never made idle, which
 * damon_paddr_pageout_pfn() reports as only prepared).  The engine restarts
 * the region's age after the pass, so the later pass comes the scheme's
 * minimum age later.
 *
 * The sampling checks make their pages idle too.  A folio used, then drawn
 * as a sampled page, would look idle from the draw on: so what the checks
 * saw counts as well (see damon_paddr_folio_claim_access()).
 *
 * The TLB entries of a young folio are flushed along with the batch it
 * would have joined (see damon_paddr_pageout_flush()) or at the end of the
 * pass, so that a later access shows: one flush per address space and
 * batch, however many young folios it holds.
 *
 * A folio that may go is isolated from its LRU and joins the batch to
 * reclaim.
 */
static void damon_paddr_pageout_isolate(struct damon_paddr_pageout *po,
					struct folio *folio)
{
	if (damon_paddr_folio_claim_access(folio, DAMON_PADDR_FLUSH_YOUNG,
					   &po->flushes) != DAMON_PADDR_IDLE)
		return;
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
	bool unprepared;

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
	unprepared = !folio_test_idle(folio);
	used = unprepared ? po->nr_prepared : po->nr_tried - po->nr_prepared;
	max = unprepared ? po->max_prepared : po->max_acted;
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
	if (unprepared) {
		/* Whether it is in use cannot be told yet: for a later pass. */
		po->nr_prepared += nr_pages;
		damon_paddr_folio_claim_access(folio, DAMON_PADDR_FLUSH_YOUNG,
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
	/*
	 * The kept folios' flush costs per batch, not per folio: it stays out
	 * of the time that sizes the next batch.
	 */
	damon_paddr_flush_batch(&po->flushes);
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
 * reached.  Tries only the folios it weighs: free, kernel, unevictable and
 * filtered-out memory is passed over at little cost.  Returns the bytes
 * reclaimed.
 */
static unsigned long damon_paddr_pageout(struct damon_region *r,
					 struct damos *s,
					 struct damos_apply_budget *b)
{
	struct damon_paddr_pageout po = {
		.scheme = s,
		.start_pfn = PHYS_PFN(r->ar.start),
		.max_acted = b->max_sz >> PAGE_SHIFT,
		.max_prepared = b->max_prepare_sz >> PAGE_SHIFT,
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
	b->sz_prepared = po.nr_prepared << PAGE_SHIFT;
	if (po.stopped)
		b->end = PFN_PHYS(pfn);
	return po.nr_reclaimed << PAGE_SHIFT;
}

/* &damon_operations.apply_scheme: only pageout does anything. */
unsigned long damon_paddr_apply_scheme(struct damon_ctx *ctx,
				       struct damon_target *t,
				       struct damon_region *r, struct damos *s,
				       struct damos_apply_budget *b)
{
	switch (s->action) {
	case DAMOS_PAGEOUT:
		return damon_paddr_pageout(r, s, b);
	default:
		return 0;
	}
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
VISIBLE_IF_KUNIT unsigned int
damon_paddr_coldness_score(const struct damon_attrs *attrs,
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

/* &damon_operations.get_scheme_score */
int damon_paddr_get_scheme_score(struct damon_ctx *ctx, struct damon_target *t,
				 struct damon_region *r, struct damos *s)
{
	switch (s->action) {
	case DAMOS_PAGEOUT:
		return damon_paddr_pageout_score(ctx, r, s);
	default:
		/* Nothing to tell worthless regions apart: skip none. */
		return max(damos_generic_score(ctx, r, s), 1U);
	}
}
