// SPDX-License-Identifier: GPL-2.0
/*
 * Whether a physical page was accessed: its LRU folio is looked up, the
 * Accessed bits of all its mappings are tested and cleared through the
 * reverse map, and its idle flag is tested and set.  Used by the sampling
 * of the physical address operations and by pageout.
 *
 * Only LRU folios are tracked.  Free pages, slab, page tables, other kernel
 * memory, holes and offline memory are never accessed as far as DAMON can
 * tell.
 */

#include <linux/hugetlb.h>	/* for flush_tlb_range() */
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/page_idle.h>
#include <linux/pagemap.h>
#include <linux/rmap.h>
#include <linux/sched/mm.h>
#include <linux/smp.h>
#include <asm/tlbflush.h>

#include "../internal.h"	/* mm/internal.h: buddy_order_unsafe() */
#include "paddr.h"

/**
 * damon_paddr_get_lru_folio() - The LRU folio holding a page frame.
 * @pfn:	The page frame.
 *
 * Non-LRU memory (free, slab, page tables, other kernel memory) is turned
 * away by a peek at the flags, before the reference count is touched.
 *
 * Context: Any context that may take a folio reference.
 * Return: the folio with a reference held, or NULL if @pfn is a hole,
 * offline, or holds no LRU folio.
 */
struct folio *damon_paddr_get_lru_folio(unsigned long pfn)
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

/**
 * damon_paddr_nr_untracked() - Page frames a scan may pass over.
 * @page:	The page of @pfn, or NULL if @pfn is not online.
 * @pfn:	A page frame that holds no LRU folio.
 *
 * The flags and the order are read without a reference, so they may be
 * stale; that only makes a scan skip or revisit a few pages.
 *
 * Context: Any context.
 * Return: how many page frames from @pfn on hold no LRU folio either, at
 * least 1: the rest of a free buddy block, of a compound page or of a
 * missing memory subsection.
 */
unsigned long damon_paddr_nr_untracked(struct page *page, unsigned long pfn)
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

#ifdef CONFIG_X86
static void damon_paddr_flush_local(void *unused)
{
	__flush_tlb_all();
}

/*
 * These flushes change no mapping: they only drop cached translations so
 * that later accesses set Accessed bits again, and nothing depends on when
 * they finish.  x86's flush_tlb_mm() waits until every CPU running the
 * address space has taken its IPI: a millisecond and more each window in
 * an emulated guest.  Instead, every CPU that ran one of the batch's
 * address spaces gets one IPI, not waited for, and flushes its whole TLB:
 * also the entries kept under other PCIDs, as the CPU may have switched
 * to another address space since.  The mask is allocated without
 * sleeping, so that callers keep the context flush_tlb_mm() needs.
 * Returns false, having flushed nothing, if it could not be allocated.
 */
static bool damon_paddr_flush_nowait(struct damon_paddr_flush_batch *batch)
{
	cpumask_var_t cpus;
	unsigned int i;

	if (!zalloc_cpumask_var(&cpus, GFP_NOWAIT | __GFP_NOWARN))
		return false;
	for (i = 0; i < batch->nr; i++)
		cpumask_or(cpus, cpus, mm_cpumask(batch->mms[i]));
	on_each_cpu_mask(cpus, damon_paddr_flush_local, NULL, false);
	free_cpumask_var(cpus);
	return true;
}
#else
static bool damon_paddr_flush_nowait(struct damon_paddr_flush_batch *batch)
{
	return false;
}
#endif

/**
 * damon_paddr_flush_batch() - Flushes the address spaces a pass noted.
 * @batch:	The batch; it is empty afterwards.
 *
 * Where it can, returns without waiting for the other CPUs to flush: the
 * flushes only make later accesses visible (see &enum damon_paddr_flush).
 *
 * Context: Process context, interrupts enabled (flushes send IPIs).
 */
void damon_paddr_flush_batch(struct damon_paddr_flush_batch *batch)
{
	bool flushed;
	unsigned int i;

	if (!batch->nr)
		return;
	flushed = damon_paddr_flush_nowait(batch);
	for (i = 0; i < batch->nr; i++) {
		if (!flushed)
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
 * Tests and resets @folio for damon_paddr_folio_test_and_reset() or, if
 * @claim, for damon_paddr_folio_claim_access().
 */
static enum damon_paddr_access
damon_paddr_folio_reset(struct folio *folio, enum damon_paddr_flush flush,
			struct damon_paddr_flush_batch *batch, bool claim)
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

	VM_WARN_ON_ONCE_FOLIO(!folio_ref_count(folio), folio);
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
		if (arg.young && !claim)
			folio_set_young(folio);
	}
	accessed = arg.young || !folio_test_idle(folio);
	if (claim && folio_test_clear_young(folio))
		accessed = true;
	folio_set_idle(folio);
	return accessed ? DAMON_PADDR_ACCESSED : DAMON_PADDR_IDLE;
}

/**
 * damon_paddr_folio_test_and_reset() - Tests whether a folio was accessed
 * since it was last made idle, and makes it idle again.
 * @folio:	The folio.
 * @flush:	Which of its mappings to flush from the TLBs.
 * @batch:	Where to note the address spaces to flush at the end of the
 *		pass, or NULL to flush at once.
 *
 * Clears the Accessed bits of all mappings of @folio and sets its idle
 * flag.  A young mapping is handed over to the folio's young flag, so that
 * reclaim still counts the reference DAMON consumed.  An unmapped folio
 * (page cache, swap cache) only has its idle flag, which
 * folio_mark_accessed() clears on each access; PG_referenced and the LRU
 * position are reclaim's and are left alone.  A folio never made idle
 * counts as accessed.
 *
 * Context: Process context; takes only try-locks.  The caller holds a
 * reference on @folio.
 * Return: %DAMON_PADDR_UNKNOWN if a lock the reverse map needs was busy
 * (then nothing changed), else %DAMON_PADDR_ACCESSED or %DAMON_PADDR_IDLE.
 */
enum damon_paddr_access
damon_paddr_folio_test_and_reset(struct folio *folio,
				 enum damon_paddr_flush flush,
				 struct damon_paddr_flush_batch *batch)
{
	return damon_paddr_folio_reset(folio, flush, batch, false);
}

/**
 * damon_paddr_folio_claim_access() - Tests whether a folio was accessed
 * since its last claim, and makes it idle again.
 * @folio:	The folio.
 * @flush:	Which of its mappings to flush from the TLBs.
 * @batch:	Where to note the address spaces to flush at the end of the
 *		pass, or NULL to flush at once.
 *
 * Like damon_paddr_folio_test_and_reset(), but the folio's young flag
 * counts as an access and is cleared, and a young mapping is not handed
 * over to it.  So the answer covers all accesses since the last claim,
 * wherever they were seen first: in the young flag, where the sampling
 * checks leave the ones they consume, or in the idle flag, which reclaim
 * clears when it finds a reference.  Reclaim then sees none of the
 * references consumed here.
 *
 * Context: Process context; takes only try-locks.  The caller holds a
 * reference on @folio.
 * Return: %DAMON_PADDR_UNKNOWN if a lock the reverse map needs was busy
 * (then nothing changed), else %DAMON_PADDR_ACCESSED or %DAMON_PADDR_IDLE.
 */
enum damon_paddr_access
damon_paddr_folio_claim_access(struct folio *folio,
			       enum damon_paddr_flush flush,
			       struct damon_paddr_flush_batch *batch)
{
	return damon_paddr_folio_reset(folio, flush, batch, true);
}
