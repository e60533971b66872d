/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of the physical address operations share: paddr-access.c
 * tells whether a physical page was accessed, paddr.c samples the regions
 * with it and registers the operations, paddr-pageout.c pages out and
 * scores regions for pageout.
 */
#ifndef _MM_DAMON_PADDR_H
#define _MM_DAMON_PADDR_H

#include <linux/damon.h>
#include <linux/mm_types.h>

#include "internal.h"

/* === paddr-access.c === */

/* What testing the folio of a page frame found. */
enum damon_paddr_access {
	DAMON_PADDR_UNTRACKED,	/* no LRU folio there: free, kernel, hole */
	DAMON_PADDR_UNKNOWN,	/* a reverse-map lock was busy */
	DAMON_PADDR_IDLE,	/* not accessed since it was made idle */
	DAMON_PADDR_ACCESSED,	/* accessed since it was made idle */
};

/*
 * Which TLB entries a test flushes after clearing Accessed bits.  x86 does
 * not flush when it clears one (see ptep_clear_flush_young()): a CPU that
 * still caches the translation goes on using the page without setting the
 * bit again, so the page looks idle until the entry is evicted.  With
 * thousands of second-level TLB entries, and huge pages, a hot working set
 * can stay cached for seconds.  Callers flush where that blind spot costs:
 * before a page is judged for pageout, and once per aggregation window for
 * the sampled pages.
 */
enum damon_paddr_flush {
	DAMON_PADDR_FLUSH_NONE,
	DAMON_PADDR_FLUSH_YOUNG,	/* the mappings found young */
	DAMON_PADDR_FLUSH_ALL,		/* every mapping */
};

/*
 * A flush interrupts every CPU running the address space (an IPI each, and
 * a VM exit each in a guest), so a pass over many pages notes the address
 * spaces that need one and flushes each once at its end.  Up to this many
 * are noted; a pass that meets more flushes the others at once.  It costs
 * a few pointers on the stack and covers the processes one pass usually
 * finds in use.
 */
#define DAMON_PADDR_FLUSH_BATCH_MMS	8

/**
 * struct damon_paddr_flush_batch - Address spaces to flush at the end of a
 * pass.
 * @mms:	The address spaces, each grabbed (mmgrab()) until flushed.
 * @nr:		How many of @mms are used.
 */
struct damon_paddr_flush_batch {
	struct mm_struct *mms[DAMON_PADDR_FLUSH_BATCH_MMS];
	unsigned int nr;
};

struct folio *damon_paddr_get_lru_folio(unsigned long pfn);
unsigned long damon_paddr_nr_untracked(struct page *page, unsigned long pfn);
enum damon_paddr_access
damon_paddr_folio_test_and_reset(struct folio *folio,
				 enum damon_paddr_flush flush,
				 struct damon_paddr_flush_batch *batch);
enum damon_paddr_access
damon_paddr_folio_claim_access(struct folio *folio,
			       enum damon_paddr_flush flush,
			       struct damon_paddr_flush_batch *batch);
void damon_paddr_flush_batch(struct damon_paddr_flush_batch *batch);

/* === paddr.c === */

/**
 * struct damon_paddr_ctx - What the operations keep in
 * &damon_ctx.ops_private.
 * @window_flushes:	Flushes the last check of a window leaves to the
 *			draws of the next window's sampled pages.
 */
struct damon_paddr_ctx {
	struct damon_paddr_flush_batch window_flushes;
};

/* === paddr-pageout.c === */

unsigned long damon_paddr_apply_scheme(struct damon_ctx *ctx,
				       struct damon_target *t,
				       struct damon_region *r, struct damos *s,
				       struct damos_apply_budget *b);
int damon_paddr_get_scheme_score(struct damon_ctx *ctx, struct damon_target *t,
				 struct damon_region *r, struct damos *s);

#if IS_ENABLED(CONFIG_KUNIT)
struct damon_paddr_sample_pass;

enum damon_paddr_access
damon_paddr_pfn_test_and_reset(unsigned long pfn,
			       struct damon_paddr_sample_pass *pass,
			       enum damon_paddr_flush flush);
unsigned int damon_paddr_nr_quiet_samples(struct damon_ctx *ctx);
unsigned int damon_paddr_pageout_batch(u64 left_ns, u64 ns_per_folio);
unsigned int damon_paddr_coldness_score(const struct damon_attrs *attrs,
					const struct damon_region *r,
					const struct damos_quota *quota);
#endif

#endif /* _MM_DAMON_PADDR_H */
