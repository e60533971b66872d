// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the physical address operations: the pageout coldness
 * score, and access checks and pageout on pages the
 * test allocates itself (a kernel page DAMON does not track, an unmapped
 * shmem folio on an LRU list, and an anonymous page the test maps), and a
 * whole kdamond with a DAMOS_STAT scheme on kernel memory nobody accesses.
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/damon.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/kthread.h>
#include <linux/memblock.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/shmem_fs.h>
#include <linux/swap.h>
#include <linux/uaccess.h>

#include "../paddr.h"

/* Tests the folio of @pfn on its own, as a sample outside any pass. */
static enum damon_paddr_access damon_paddr_test_access(unsigned long pfn)
{
	return damon_paddr_pfn_test_and_reset(pfn, NULL, DAMON_PADDR_FLUSH_NONE);
}

/* Flushes the last check of a window left to the next draws. */
static unsigned int damon_paddr_test_put_off(const struct damon_ctx *ctx)
{
	const struct damon_paddr_ctx *pc = ctx->ops_private;

	return pc ? pc->window_flushes.nr : 0;
}

/* === Coldness score === */

/* 20 samples per aggregation window, of 100 ms each. */
static const struct damon_attrs damon_paddr_test_attrs = {
	.sample_interval = 5000,
	.aggr_interval = 100000,
	.min_nr_regions = 10,
	.max_nr_regions = 1000,
};

static unsigned int damon_paddr_test_score(unsigned int nr_accesses,
					   unsigned int age,
					   unsigned long nr_pages,
					   unsigned int weight_freq,
					   unsigned int weight_age,
					   unsigned int weight_sz)
{
	struct damon_region r = {
		.ar = { .start = 0, .end = nr_pages * PAGE_SIZE },
		.nr_accesses = nr_accesses,
		.age = age,
	};
	struct damos_quota q = {
		.weight_nr_accesses = weight_freq,
		.weight_age = weight_age,
		.weight_sz = weight_sz,
	};

	return damon_paddr_coldness_score(&damon_paddr_test_attrs, &r, &q);
}

static void damon_paddr_test_score_frequency(struct kunit *test)
{
	/* Frequency only: (20 - nr) / 20 of the range. */
	KUNIT_EXPECT_EQ(test, damon_paddr_test_score(0, 0, 1, 1, 0, 0), 99U);
	KUNIT_EXPECT_EQ(test, damon_paddr_test_score(5, 0, 1, 1, 0, 0), 74U);
	KUNIT_EXPECT_EQ(test, damon_paddr_test_score(10, 0, 1, 1, 0, 0), 49U);
	KUNIT_EXPECT_EQ(test, damon_paddr_test_score(20, 0, 1, 1, 0, 0), 0U);
	/* More accesses than a window holds count as the most. */
	KUNIT_EXPECT_EQ(test, damon_paddr_test_score(UINT_MAX, 0, 1, 1, 0, 0),
			0U);
}

/*
 * Ages of windows so long that age times interval overflows 64 bits (and
 * would trap in a 128-bit divide) score as the oldest.
 */
static void damon_paddr_test_score_huge_age(struct kunit *test)
{
	struct damon_attrs attrs = damon_paddr_test_attrs;
	struct damon_region r = {
		.ar = { .start = 0, .end = PAGE_SIZE },
		.age = UINT_MAX,
	};
	struct damos_quota q = { .weight_age = 1 };

	attrs.aggr_interval = ULONG_MAX;
	attrs.sample_interval = ULONG_MAX;
	KUNIT_EXPECT_EQ(test, damon_paddr_coldness_score(&attrs, &r, &q), 99U);
	r.age = 1;
	KUNIT_EXPECT_EQ(test, damon_paddr_coldness_score(&attrs, &r, &q), 99U);
}

static void damon_paddr_test_score_age(struct kunit *test)
{
	/* 50 windows of 100 ms: log2(5000 ms) = 12 of 20, 600 per-mille. */
	KUNIT_EXPECT_EQ(test, damon_paddr_test_score(0, 0, 1, 0, 1, 0), 0U);
	KUNIT_EXPECT_EQ(test, damon_paddr_test_score(0, 50, 1, 0, 1, 0), 59U);
	KUNIT_EXPECT_EQ(test, damon_paddr_test_score(0, UINT_MAX, 1, 0, 1, 0),
			99U);
	/* A region hot for long is the least cold. */
	KUNIT_EXPECT_EQ(test, damon_paddr_test_score(20, 0, 1, 0, 1, 0), 99U);
	KUNIT_EXPECT_EQ(test, damon_paddr_test_score(20, 50, 1, 0, 1, 0), 39U);
	KUNIT_EXPECT_EQ(test, damon_paddr_test_score(20, UINT_MAX, 1, 0, 1, 0),
			0U);
}

static void damon_paddr_test_score_size_and_weights(struct kunit *test)
{
	/* Size only: log2(16 pages) = 4 of 24, 166 per-mille. */
	KUNIT_EXPECT_EQ(test, damon_paddr_test_score(0, 0, 16, 0, 0, 1), 16U);
	KUNIT_EXPECT_EQ(test, damon_paddr_test_score(0, 0, 1, 0, 0, 1), 0U);
	/* No weights at all: frequency and age count equally. */
	KUNIT_EXPECT_EQ(test, damon_paddr_test_score(0, 50, 16, 0, 0, 0), 79U);
	KUNIT_EXPECT_EQ(test, damon_paddr_test_score(0, 50, 16, 1, 1, 0), 79U);
	/* The biggest weights neither overflow nor leave the range. */
	KUNIT_EXPECT_EQ(test, damon_paddr_test_score(0, 50, 16, UINT_MAX,
						     UINT_MAX, UINT_MAX), 58U);
	KUNIT_EXPECT_EQ(test, damon_paddr_test_score(0, UINT_MAX, ULONG_MAX >>
						     PAGE_SHIFT, UINT_MAX,
						     UINT_MAX, UINT_MAX), 99U);
}

static void damon_paddr_test_score_monotonic(struct kunit *test)
{
	unsigned int nr, age, last;

	/* Fewer accesses: never less cold. */
	last = DAMOS_MAX_SCORE;
	for (nr = 0; nr <= 20; nr++) {
		unsigned int score = damon_paddr_test_score(nr, 50, 256, 100,
							    100, 0);

		KUNIT_EXPECT_LE(test, score, last);
		KUNIT_EXPECT_LE(test, score, (unsigned int)DAMOS_MAX_SCORE);
		last = score;
	}
	/* Idle for longer: never less cold. */
	last = 0;
	for (age = 0; age < 100000; age = age * 2 + 1) {
		unsigned int score = damon_paddr_test_score(0, age, 256, 100,
							    100, 0);

		KUNIT_EXPECT_GE(test, score, last);
		last = score;
	}
	KUNIT_EXPECT_EQ(test, last, 99U);
}

/* === Access checks and pageout on pages of the test === */

/* A context of the paddr operations with one region over @pfn's page. */
static struct damon_ctx *damon_paddr_test_ctx(struct kunit *test,
					      unsigned long pfn,
					      struct damon_region **rp)
{
	struct damon_target *t;
	struct damon_region *r;
	struct damon_ctx *ctx;

	ctx = damon_new_ctx();
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_ASSERT_EQ(test, damon_select_ops(ctx, DAMON_OPS_PADDR), 0);
	t = damon_new_target();
	KUNIT_ASSERT_NOT_NULL(test, t);
	damon_add_target(ctx, t);
	r = damon_new_region(PFN_PHYS(pfn), PFN_PHYS(pfn + 1));
	KUNIT_ASSERT_NOT_NULL(test, r);
	damon_add_region(r, t);
	*rp = r;
	return ctx;
}

/* One sampling interval; returns what check_accesses() returned. */
static unsigned int damon_paddr_test_sample(struct damon_ctx *ctx,
					    void (*access)(void *), void *arg)
{
	ctx->ops.prepare_access_checks(ctx);
	if (access)
		access(arg);
	return ctx->ops.check_accesses(ctx);
}

/*
 * Accesses @folio as a read() would.  A second access activates the folio
 * through a per-CPU batch, off the LRU lists until the batch is drained.
 */
static void damon_paddr_test_mark_accessed(void *folio)
{
	folio_mark_accessed(folio);
	lru_add_drain_all();
}

static struct damos *damon_paddr_test_scheme(struct kunit *test,
					     enum damos_action action)
{
	struct damos *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->action = action;
	s->quota.weight_nr_accesses = 1;
	s->quota.weight_age = 1;
	INIT_LIST_HEAD(&s->quota.goals);
	INIT_LIST_HEAD(&s->filters);
	return s;
}

/* What the DAMOS engine passes to apply_scheme() for @r. */
static struct damos_apply_budget
damon_paddr_test_budget(const struct damon_region *r, unsigned long max_sz)
{
	return (struct damos_apply_budget){
		.max_sz = max_sz,
		.max_prepare_sz = max_sz,
		.end = r->ar.end,
	};
}

/* A kernel page is not on an LRU: never accessed, never paged out. */
static void damon_paddr_test_kernel_page(struct kunit *test)
{
	struct page *page = alloc_page(GFP_KERNEL);
	struct damos_apply_budget b;
	unsigned long pfn;
	struct damon_region *r;
	struct damon_ctx *ctx;
	struct damos *s;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, page);
	pfn = page_to_pfn(page);
	KUNIT_EXPECT_EQ(test, damon_paddr_test_access(pfn),
			DAMON_PADDR_UNTRACKED);

	ctx = damon_paddr_test_ctx(test, pfn, &r);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, damon_paddr_test_sample(ctx, NULL, NULL),
				0U);
	KUNIT_EXPECT_EQ(test, r->nr_accesses, 0U);
	KUNIT_EXPECT_EQ(test, PHYS_PFN(r->sampling_addr), pfn);

	s = damon_paddr_test_scheme(test, DAMOS_PAGEOUT);
	r->age = 100;
	KUNIT_EXPECT_EQ(test, ctx->ops.get_scheme_score(ctx, NULL, r, s), 0);
	/* A free page costs the quota nothing. */
	b = damon_paddr_test_budget(r, ULONG_MAX);
	KUNIT_EXPECT_EQ(test, ctx->ops.apply_scheme(ctx, NULL, r, s, &b), 0UL);
	KUNIT_EXPECT_EQ(test, b.sz_tried, 0UL);
	KUNIT_EXPECT_EQ(test, b.end, r->ar.end);
	/* No reference was left behind. */
	KUNIT_EXPECT_EQ(test, page_ref_count(page), 1);
	damon_destroy_ctx(ctx);
	__free_page(page);
}

/* A page frame past the end of memory has no struct page at all. */
static void damon_paddr_test_no_page(struct kunit *test)
{
	unsigned long pfn = max_pfn + (1UL << 20);

	KUNIT_EXPECT_EQ(test, damon_paddr_test_access(pfn),
			DAMON_PADDR_UNTRACKED);
}

/*
 * Sets up a one-page shmem file and returns its folio, on an LRU list, with
 * a reference held; fails or skips the test if that cannot be done.  The
 * caller drops the reference and the file.
 */
static struct folio *damon_paddr_test_shmem_folio(struct kunit *test,
						  struct file **filep)
{
	struct folio *folio;
	struct file *file;

	file = shmem_kernel_file_setup("damon-paddr-kunit", PAGE_SIZE,
				       VM_NORESERVE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	folio = shmem_read_folio(file->f_mapping, 0);
	if (IS_ERR(folio)) {
		fput(file);
		KUNIT_FAIL_AND_ABORT(test, "shmem_read_folio() failed: %ld",
				     PTR_ERR(folio));
	}
	/* New folios reach the LRU lists through per-CPU batches. */
	lru_add_drain_all();
	if (!folio_test_lru(folio)) {
		folio_put(folio);
		fput(file);
		kunit_skip(test, "the shmem folio is not on an LRU list");
	}
	*filep = file;
	return folio;
}

/*
 * An unmapped shmem folio on an LRU list: its idle flag tells whether
 * folio_mark_accessed() was called since the last check.
 */
static void damon_paddr_test_lru_folio(struct kunit *test)
{
	void (*access)(void *) = damon_paddr_test_mark_accessed;
	struct damon_region *r;
	struct damon_ctx *ctx;
	struct folio *folio;
	struct file *file;
	struct damos_apply_budget b;
	unsigned long pfn;
	bool swap;
	struct damos *s;
	int refs;

	folio = damon_paddr_test_shmem_folio(test, &file);
	pfn = folio_pfn(folio);
	refs = folio_ref_count(folio);

	/* Never made idle: accessed; then idle until it is accessed. */
	KUNIT_EXPECT_EQ(test, damon_paddr_test_access(pfn),
			DAMON_PADDR_ACCESSED);
	KUNIT_EXPECT_EQ(test, damon_paddr_test_access(pfn),
			DAMON_PADDR_IDLE);
	damon_paddr_test_mark_accessed(folio);
	KUNIT_EXPECT_EQ(test, damon_paddr_test_access(pfn),
			DAMON_PADDR_ACCESSED);
	KUNIT_EXPECT_EQ(test, damon_paddr_test_access(pfn),
			DAMON_PADDR_IDLE);

	/*
	 * Through the operations: only accesses inside an interval count.
	 * Each sample is the last of its window, where a region that rests
	 * is checked too.
	 */
	ctx = damon_paddr_test_ctx(test, pfn, &r);
	ctx->window_last_sample = true;
	KUNIT_EXPECT_EQ(test, damon_paddr_test_sample(ctx, NULL, NULL), 0U);
	KUNIT_EXPECT_EQ(test, damon_paddr_test_sample(ctx, access, folio), 1U);
	KUNIT_EXPECT_EQ(test, damon_paddr_test_sample(ctx, NULL, NULL), 1U);
	KUNIT_EXPECT_EQ(test, damon_paddr_test_sample(ctx, access, folio), 2U);
	KUNIT_EXPECT_EQ(test, r->nr_accesses, 2U);
	KUNIT_EXPECT_EQ(test, PHYS_PFN(r->sampling_addr), pfn);

	/*
	 * Pageout: the test's own reference keeps the folio from being
	 * reclaimed, so it must come back to its LRU list, and nothing is
	 * counted as paged out.  Without swap it is not even tried.
	 */
	s = damon_paddr_test_scheme(test, DAMOS_PAGEOUT);
	r->nr_accesses = 0;
	r->age = 100;
	swap = get_nr_swap_pages() > 0;
	if (swap)
		KUNIT_EXPECT_GT(test,
				ctx->ops.get_scheme_score(ctx, NULL, r, s), 0);
	else
		KUNIT_EXPECT_EQ(test,
				ctx->ops.get_scheme_score(ctx, NULL, r, s), 0);
	/* A budget too small for the folio stops before it. */
	b = damon_paddr_test_budget(r, 0);
	KUNIT_EXPECT_EQ(test, ctx->ops.apply_scheme(ctx, NULL, r, s, &b), 0UL);
	KUNIT_EXPECT_EQ(test, b.sz_tried, 0UL);
	KUNIT_EXPECT_EQ(test, b.end, swap ? r->ar.start : r->ar.end);
	/* Tried (and charged) only where it could have gone. */
	b = damon_paddr_test_budget(r, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, ctx->ops.apply_scheme(ctx, NULL, r, s, &b), 0UL);
	KUNIT_EXPECT_EQ(test, b.sz_tried, swap ? PAGE_SIZE : 0UL);
	KUNIT_EXPECT_EQ(test, b.end, r->ar.end);
	lru_add_drain_all();
	KUNIT_EXPECT_TRUE(test, folio_test_lru(folio));

	/* Used through a system call since: only made idle (prepared). */
	damon_paddr_test_mark_accessed(folio);
	b = damon_paddr_test_budget(r, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, ctx->ops.apply_scheme(ctx, NULL, r, s, &b), 0UL);
	KUNIT_EXPECT_EQ(test, b.sz_tried, swap ? PAGE_SIZE : 0UL);
	KUNIT_EXPECT_EQ(test, b.sz_prepared, swap ? PAGE_SIZE : 0UL);
	if (swap)
		KUNIT_EXPECT_EQ(test, damon_paddr_test_access(pfn),
				DAMON_PADDR_IDLE);
	KUNIT_EXPECT_TRUE(test, folio_test_lru(folio));

	s->action = DAMOS_STAT;
	b = damon_paddr_test_budget(r, ULONG_MAX);
	KUNIT_EXPECT_EQ(test, ctx->ops.apply_scheme(ctx, NULL, r, s, &b), 0UL);

	damon_destroy_ctx(ctx);
	/* Every reference DAMON took was dropped. */
	KUNIT_EXPECT_EQ(test, folio_ref_count(folio), refs);
	folio_put(folio);
	fput(file);
}

/*
 * A page frame next to @folio that DAMON does not track (free or kernel
 * memory).  Skips the test, dropping @folio and @file, if there is none.
 */
static unsigned long
damon_paddr_test_untracked_neighbour(struct kunit *test, struct folio *folio,
				     struct file *file)
{
	unsigned long pfn = folio_pfn(folio);

	if (damon_paddr_test_access(pfn + 1) ==
	    DAMON_PADDR_UNTRACKED)
		return pfn + 1;
	if (pfn && damon_paddr_test_access(pfn - 1) ==
	    DAMON_PADDR_UNTRACKED)
		return pfn - 1;
	folio_put(folio);
	fput(file);
	kunit_skip(test, "both neighbours of the folio are tracked");
	return 0;
}

/*
 * A new sampled page is drawn again where the first draw lands on memory
 * DAMON does not track: in a region of two pages, one an LRU folio and the
 * other free or kernel memory, nearly every draw ends on the folio (one in
 * two would without the retries).
 */
static void damon_paddr_test_draw_retries(struct kunit *test)
{
	struct damon_region *r;
	struct damon_ctx *ctx;
	unsigned long pfn, other;
	unsigned int i, on_folio = 0;
	struct folio *folio;
	struct file *file;

	folio = damon_paddr_test_shmem_folio(test, &file);
	pfn = folio_pfn(folio);
	other = damon_paddr_test_untracked_neighbour(test, folio, file);

	ctx = damon_paddr_test_ctx(test, min(pfn, other), &r);
	r->ar.end += PAGE_SIZE;
	for (i = 0; i < 64; i++) {
		/* Out of the region: no sampled page, draw one. */
		r->sampling_addr = r->ar.end;
		ctx->ops.prepare_access_checks(ctx);
		KUNIT_EXPECT_GE(test, r->sampling_addr, r->ar.start);
		KUNIT_EXPECT_LT(test, r->sampling_addr, r->ar.end);
		on_folio += PHYS_PFN(r->sampling_addr) == pfn;
	}
	/* With 8 tries a draw misses once in 256: the bar is far off. */
	KUNIT_EXPECT_GE(test, on_folio, 56U);

	damon_destroy_ctx(ctx);
	folio_put(folio);
	fput(file);
}

/*
 * A region whose draw found only untracked memory gets one try per sample
 * for the rest of the window, and its full tries again from the next one:
 * the region of an untracked page is drawn for, then widened to hold the
 * folio next to it and drawn for again.  About one draw in two ends on the
 * folio with one try, nearly all with eight.
 */
static void damon_paddr_test_barren_draws(struct kunit *test)
{
	unsigned int i, in_window = 0, next_window = 0;
	unsigned long pfn, other, start;
	struct damon_region *r;
	struct damon_ctx *ctx;
	struct folio *folio;
	struct file *file;

	folio = damon_paddr_test_shmem_folio(test, &file);
	pfn = folio_pfn(folio);
	other = damon_paddr_test_untracked_neighbour(test, folio, file);

	ctx = damon_paddr_test_ctx(test, other, &r);
	start = PFN_PHYS(min(pfn, other));
	for (i = 0; i < 64; i++) {
		/* The untracked page alone: every try fails, not armed. */
		r->ar.start = PFN_PHYS(other);
		r->ar.end = PFN_PHYS(other + 1);
		r->sampling_addr = r->ar.end;
		ctx->ops.prepare_access_checks(ctx);
		KUNIT_EXPECT_EQ(test, PHYS_PFN(r->sampling_addr), other);
		KUNIT_EXPECT_EQ(test, ctx->ops.check_accesses(ctx), 0U);

		/* Widened within the window: one try. */
		r->ar.start = start;
		r->ar.end = start + 2 * PAGE_SIZE;
		ctx->ops.prepare_access_checks(ctx);
		in_window += PHYS_PFN(r->sampling_addr) == pfn;
	}
	for (i = 0; i < 64; i++) {
		r->ar.start = PFN_PHYS(other);
		r->ar.end = PFN_PHYS(other + 1);
		r->sampling_addr = r->ar.end;
		ctx->ops.prepare_access_checks(ctx);
		/* The window ends: its last check sees the region unarmed. */
		ctx->window_last_sample = true;
		ctx->ops.check_accesses(ctx);
		ctx->window_last_sample = false;

		r->ar.start = start;
		r->ar.end = start + 2 * PAGE_SIZE;
		ctx->ops.prepare_access_checks(ctx);
		next_window += PHYS_PFN(r->sampling_addr) == pfn;
	}
	/* Binomial(64, 1/2) is outside [16, 48] about once in 10^4 runs. */
	KUNIT_EXPECT_GE(test, in_window, 16U);
	KUNIT_EXPECT_LE(test, in_window, 48U);
	KUNIT_EXPECT_GE(test, next_window, 56U);

	damon_destroy_ctx(ctx);
	folio_put(folio);
	fput(file);
}

/*
 * Samples kdamond may sleep through: while every region rests, all of them
 * until the window's last (the core keeps that one); none while a region
 * showed an access in this window or the last.
 */
static void damon_paddr_test_quiet_samples(struct kunit *test)
{
	struct damon_region *regions[3];
	struct damon_target *t;
	struct damon_ctx *ctx;
	unsigned int i;

	ctx = damon_new_ctx();
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	t = damon_new_target();
	KUNIT_ASSERT_NOT_NULL(test, t);
	damon_add_target(ctx, t);
	for (i = 0; i < ARRAY_SIZE(regions); i++) {
		regions[i] = damon_new_region(i * PAGE_SIZE,
					      (i + 1) * PAGE_SIZE);
		KUNIT_ASSERT_NOT_NULL(test, regions[i]);
		damon_add_region(regions[i], t);
	}

	for (i = 0; i < 20; i++) {
		ctx->window_nr_samples = i;
		KUNIT_EXPECT_EQ_MSG(test, damon_paddr_nr_quiet_samples(ctx),
				    UINT_MAX, "sample %u", i);
	}
	/* Light regions: up to the next sample in four (3, 7, 11, ...). */
	regions[1]->last_nr_accesses = 1;
	regions[2]->nr_accesses = 2;
	for (i = 0; i < 20; i++) {
		ctx->window_nr_samples = i;
		KUNIT_EXPECT_EQ_MSG(test, damon_paddr_nr_quiet_samples(ctx),
				    3 - i % 4, "sample %u", i);
	}
	/* A heavy region, this window or the last: none. */
	ctx->window_nr_samples = 0;
	regions[2]->nr_accesses = 3;
	KUNIT_EXPECT_EQ(test, damon_paddr_nr_quiet_samples(ctx), 0U);
	regions[2]->nr_accesses = 0;
	regions[0]->last_nr_accesses = 20;
	KUNIT_EXPECT_EQ(test, damon_paddr_nr_quiet_samples(ctx), 0U);
	regions[0]->last_nr_accesses = 0;
	regions[1]->last_nr_accesses = 0;
	KUNIT_EXPECT_EQ(test, damon_paddr_nr_quiet_samples(ctx), UINT_MAX);
	damon_destroy_ctx(ctx);
}

/*
 * A light region is checked in one sample in four, where an access since
 * its last check counts once; once its count passes the light limit it is
 * checked in every sample.  The folio is accessed before every sample.
 */
static void damon_paddr_test_light_stride(struct kunit *test)
{
	static const unsigned int want[] = {
		0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 4, 5,
	};
	void (*access)(void *) = damon_paddr_test_mark_accessed;
	struct damon_region *r;
	struct damon_ctx *ctx;
	struct folio *folio;
	struct file *file;
	unsigned int i, got;

	folio = damon_paddr_test_shmem_folio(test, &file);
	ctx = damon_paddr_test_ctx(test, folio_pfn(folio), &r);
	r->last_nr_accesses = 1;
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		ctx->window_nr_samples = i;
		got = damon_paddr_test_sample(ctx, access, folio);
		KUNIT_EXPECT_EQ_MSG(test, got, want[i], "sample %u", i);
	}
	damon_destroy_ctx(ctx);
	folio_put(folio);
	fput(file);
}

/* Pretends @nr more pages of free swap space (or fewer, if negative). */
static void damon_paddr_test_pretend_swap(long nr)
{
#ifdef CONFIG_SWAP
	atomic_long_add(nr, &nr_swap_pages);
#endif
}

/*
 * The PTE of @addr in the test's address space; made young first if
 * @mkyoung, as the MMU does when it walks to the page for an access.
 */
static pte_t damon_paddr_test_pte(struct kunit *test, unsigned long addr,
				  bool mkyoung)
{
	struct mm_struct *mm = current->mm;
	spinlock_t *ptl;	/* the page table lock of @addr */
	pte_t *ptep, pte;

	mmap_read_lock(mm);
	ptep = get_locked_pte(mm, addr, &ptl);
	if (!ptep) {
		mmap_read_unlock(mm);
		KUNIT_FAIL_AND_ABORT(test, "no page table for %lx", addr);
	}
	pte = ptep_get(ptep);
	KUNIT_EXPECT_TRUE(test, pte_present(pte));
	if (mkyoung) {
		pte = pte_mkyoung(pte);
		/* x86 writes the entry only when asked to, as for a write. */
		ptep_set_access_flags(find_vma(mm, addr), addr, ptep, pte, 1);
	}
	pte_unmap_unlock(ptep, ptl);
	mmap_read_unlock(mm);
	return pte;
}

/* Whether the mapping of @addr in the test's address space is dirty. */
static bool damon_paddr_test_pte_dirty(struct kunit *test, unsigned long addr)
{
	return pte_dirty(damon_paddr_test_pte(test, addr, false));
}

/*
 * A page of anonymous memory of the test's address space, written with @len
 * bytes of @data, on an LRU list; returns its folio, with a reference held,
 * and its address in @addrp.  Skips the test if the folio is not on an LRU
 * list.
 */
static struct folio *damon_paddr_test_anon_folio(struct kunit *test,
						 const char *data, size_t len,
						 unsigned long *addrp)
{
	unsigned long addr;
	struct page *page;

	addr = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, addr, 0UL, "kunit_vm_mmap() failed");
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)addr, data, len),
			0UL);
	KUNIT_ASSERT_EQ(test, get_user_pages_fast(addr, 1, 0, &page), 1);
	lru_add_drain_all();
	if (!folio_test_lru(page_folio(page))) {
		put_page(page);
		kunit_skip(test, "the anonymous folio is not on an LRU list");
	}
	*addrp = addr;
	return page_folio(page);
}

/*
 * The budgets stop a pageout pass before a dirty anonymous page; a page never
 * made idle is only made idle; one idle since is tried.  The KUnit guest has
 * no swap space: one page of it is pretended so that the folio is tried,
 * and neither the unmapping ahead of reclaim nor reclaim finds a swap slot:
 * the folio goes back to its LRU still mapped, its Dirty bit and data as
 * they were.
 */
static void damon_paddr_test_pageout_without_swap(struct kunit *test)
{
	static const char data[] = "cold but dirty";
	char back[sizeof(data)] = {};
	struct damos_apply_budget b;
	struct damon_region *r;
	struct damon_ctx *ctx;
	struct folio *folio;
	unsigned long addr;
	struct damos *s;

	if (!IS_ENABLED(CONFIG_SWAP) || get_nr_swap_pages() > 0)
		kunit_skip(test, "needs CONFIG_SWAP and no swap space on");
	folio = damon_paddr_test_anon_folio(test, data, sizeof(data), &addr);
	KUNIT_EXPECT_TRUE(test, damon_paddr_test_pte_dirty(test, addr));

	ctx = damon_paddr_test_ctx(test, folio_pfn(folio), &r);
	s = damon_paddr_test_scheme(test, DAMOS_PAGEOUT);
	damon_paddr_test_pretend_swap(1);
	/* Out of time, or of bytes to prepare: stops before the page. */
	b = damon_paddr_test_budget(r, PAGE_SIZE);
	b.stop_ns = 1;
	KUNIT_EXPECT_EQ(test, ctx->ops.apply_scheme(ctx, NULL, r, s, &b), 0UL);
	KUNIT_EXPECT_EQ(test, b.sz_tried, 0UL);
	KUNIT_EXPECT_EQ(test, b.end, r->ar.start);
	b = damon_paddr_test_budget(r, PAGE_SIZE);
	b.max_prepare_sz = 0;
	KUNIT_EXPECT_EQ(test, ctx->ops.apply_scheme(ctx, NULL, r, s, &b), 0UL);
	KUNIT_EXPECT_EQ(test, b.sz_tried, 0UL);
	KUNIT_EXPECT_EQ(test, b.end, r->ar.start);
	KUNIT_EXPECT_FALSE(test, folio_test_idle(folio));
	/* Never made idle: only made idle, its Dirty bit left in place. */
	b = damon_paddr_test_budget(r, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, ctx->ops.apply_scheme(ctx, NULL, r, s, &b), 0UL);
	KUNIT_EXPECT_EQ(test, b.sz_prepared, PAGE_SIZE);
	KUNIT_EXPECT_TRUE(test, damon_paddr_test_pte_dirty(test, addr));
	/* Idle since: isolated, handed to reclaim, given back. */
	b = damon_paddr_test_budget(r, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, ctx->ops.apply_scheme(ctx, NULL, r, s, &b), 0UL);
	damon_paddr_test_pretend_swap(-1);
	KUNIT_EXPECT_EQ(test, b.sz_tried, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, b.sz_prepared, 0UL);
	KUNIT_EXPECT_TRUE(test, damon_paddr_test_pte_dirty(test, addr));
	KUNIT_EXPECT_FALSE(test, folio_test_swapcache(folio));
	KUNIT_EXPECT_TRUE(test, folio_mapped(folio));
	lru_add_drain_all();
	KUNIT_EXPECT_TRUE(test, folio_test_lru(folio));

	KUNIT_EXPECT_EQ(test, copy_from_user(back, (void __user *)addr,
					     sizeof(back)), 0UL);
	KUNIT_EXPECT_STREQ(test, back, data);
	KUNIT_EXPECT_EQ(test, copy_to_user((void __user *)addr, data,
					   sizeof(data)), 0UL);
	KUNIT_EXPECT_TRUE(test, damon_paddr_test_pte_dirty(test, addr));

	damon_destroy_ctx(ctx);
	folio_put(folio);
}

/* Pageout's look at @folio, outside any pass. */
static enum damon_paddr_access damon_paddr_test_claim(struct folio *folio)
{
	return damon_paddr_folio_claim_access(folio, DAMON_PADDR_FLUSH_NONE,
					      NULL);
}

/*
 * Pageout's look at a folio counts every use since its last look: a young
 * mapping, the young flag a sampling check left after it consumed one,
 * and the idle flag cleared (reclaim found a reference, or a system call
 * used it).  It clears the young flag, and hands nothing over to it, so
 * that each use counts for one look only.
 */
static void damon_paddr_test_claim_access(struct kunit *test)
{
	static const char data[] = "used, then sampled";
	struct damon_paddr_flush_batch flushes = {};
	struct folio *folio;
	unsigned long addr, pfn;

	folio = damon_paddr_test_anon_folio(test, data, sizeof(data), &addr);
	pfn = folio_pfn(folio);
	folio_test_clear_young(folio);

	/* Written, then sampled: the check consumes the Accessed bit. */
	damon_paddr_test_pte(test, addr, true);
	KUNIT_EXPECT_EQ(test, damon_paddr_test_access(pfn),
			DAMON_PADDR_ACCESSED);
	KUNIT_EXPECT_TRUE(test, folio_test_young(folio));
	KUNIT_EXPECT_FALSE(test,
			   pte_young(damon_paddr_test_pte(test, addr, false)));
	KUNIT_EXPECT_EQ(test, damon_paddr_test_claim(folio),
			DAMON_PADDR_ACCESSED);
	KUNIT_EXPECT_FALSE(test, folio_test_young(folio));
	KUNIT_EXPECT_EQ(test, damon_paddr_test_claim(folio), DAMON_PADDR_IDLE);

	/* Used again: found young by pageout itself, nothing handed over. */
	damon_paddr_test_pte(test, addr, true);
	KUNIT_EXPECT_EQ(test,
			damon_paddr_folio_claim_access(folio,
						       DAMON_PADDR_FLUSH_YOUNG,
						       &flushes),
			DAMON_PADDR_ACCESSED);
	KUNIT_EXPECT_EQ(test, flushes.nr, 1U);
	damon_paddr_flush_batch(&flushes);
	KUNIT_EXPECT_FALSE(test, folio_test_young(folio));
	KUNIT_EXPECT_EQ(test, damon_paddr_test_claim(folio), DAMON_PADDR_IDLE);

	/* A sampling check that found nothing leaves nothing to claim. */
	KUNIT_EXPECT_EQ(test, damon_paddr_test_access(pfn), DAMON_PADDR_IDLE);
	KUNIT_EXPECT_EQ(test, damon_paddr_test_claim(folio), DAMON_PADDR_IDLE);

	/* A reference reclaim found, or a use through a system call. */
	folio_clear_idle(folio);
	KUNIT_EXPECT_EQ(test, damon_paddr_test_claim(folio),
			DAMON_PADDR_ACCESSED);
	KUNIT_EXPECT_EQ(test, damon_paddr_test_claim(folio), DAMON_PADDR_IDLE);

	/* The sampling checks still see only what came after their own. */
	damon_paddr_test_pte(test, addr, true);
	KUNIT_EXPECT_EQ(test, damon_paddr_test_access(pfn),
			DAMON_PADDR_ACCESSED);
	KUNIT_EXPECT_EQ(test, damon_paddr_test_access(pfn), DAMON_PADDR_IDLE);
	KUNIT_EXPECT_TRUE(test, folio_test_young(folio));

	folio_put(folio);
}

/*
 * A mapped page used through a system call (its idle flag cleared) before
 * each check is found accessed.  A check within a window leaves its page
 * flagged as possibly cached unflushed; the last check of the window flushes
 * all its mappings, and leaves that flush to the draws of the next window's
 * pages, which do it with theirs.  Without the operations' init(), the last
 * check flushes on its own.
 */
static void damon_paddr_test_put_off_flush(struct kunit *test)
{
	static const char data[] = "hot";
	struct damon_region *r;
	struct damon_ctx *ctx;
	struct folio *folio;
	unsigned long addr;
	int i;

	folio = damon_paddr_test_anon_folio(test, data, sizeof(data), &addr);
	ctx = damon_paddr_test_ctx(test, folio_pfn(folio), &r);
	for (i = 0; i < 2; i++) {
		if (i)
			ctx->ops.init(ctx);
		/* Heavy: checked in every sample. */
		r->last_nr_accesses = 20;
		r->nr_accesses = 0;
		ctx->window_last_sample = false;
		ctx->ops.prepare_access_checks(ctx);
		folio_clear_idle(folio);
		KUNIT_EXPECT_EQ(test, ctx->ops.check_accesses(ctx), 1U);
		KUNIT_EXPECT_EQ(test, damon_paddr_test_put_off(ctx), 0U);
		folio_clear_idle(folio);
		ctx->window_last_sample = true;
		KUNIT_EXPECT_EQ(test, ctx->ops.check_accesses(ctx), 2U);
		/* The test's address space with init(), none without. */
		KUNIT_EXPECT_EQ(test, damon_paddr_test_put_off(ctx),
				(unsigned int)i);
		ctx->window_last_sample = false;
		ctx->ops.prepare_access_checks(ctx);
		KUNIT_EXPECT_EQ(test, damon_paddr_test_put_off(ctx), 0U);
	}
	ctx->ops.cleanup(ctx);
	KUNIT_EXPECT_NULL(test, ctx->ops_private);
	damon_destroy_ctx(ctx);
	folio_put(folio);
}

/*
 * The whole loop on real memory: a kdamond with the physical address
 * operations monitors 1 MiB of kernel pages nobody accesses, and a
 * DAMOS_STAT scheme for unaccessed regions counts all of it as tried in
 * every aggregation window while acting on nothing.
 */
static void damon_paddr_test_stat_cold(struct kunit *test)
{
	const unsigned int order = 8;
	const unsigned long sz = PAGE_SIZE << order;
	struct damos_access_pattern cold = {
		.max_sz_region = ULONG_MAX,
		.max_nr_accesses = 0,
		.max_age_region = UINT_MAX,
	};
	struct damos_quota quota = { .reset_interval_ms = 1000 };
	struct damos_watermarks wmarks = { .metric = DAMOS_WMARK_NONE };
	struct damon_attrs attrs = damon_paddr_test_attrs;
	struct damon_addr_range range;
	struct damon_target *t;
	struct damon_ctx *ctx;
	struct page *page;
	struct damos *s;
	int waited_ms;

	page = alloc_pages(GFP_KERNEL | __GFP_NOWARN, order);
	if (!page)
		kunit_skip(test, "no free 1 MiB block");
	range.start = page_to_phys(page);
	range.end = range.start + sz;

	ctx = damon_new_ctx();
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_ASSERT_EQ(test, damon_select_ops(ctx, DAMON_OPS_PADDR), 0);
	attrs.sample_interval = 1000;
	attrs.aggr_interval = 10000;
	attrs.min_nr_regions = 3;
	attrs.max_nr_regions = 10;
	KUNIT_ASSERT_EQ(test, damon_set_attrs(ctx, &attrs), 0);
	t = damon_new_target();
	KUNIT_ASSERT_NOT_NULL(test, t);
	damon_add_target(ctx, t);
	KUNIT_ASSERT_EQ(test, damon_set_regions(t, &range, 1, PAGE_SIZE), 0);
	s = damos_new_scheme(&cold, DAMOS_STAT, &quota, &wmarks);
	KUNIT_ASSERT_NOT_NULL(test, s);
	damon_add_scheme(ctx, s);

	KUNIT_ASSERT_EQ(test, damon_start(ctx), 0);
	for (waited_ms = 0; waited_ms < 20000 &&
	     READ_ONCE(s->stat.sz_tried) < 3 * sz; waited_ms += 20)
		msleep(20);
	KUNIT_EXPECT_EQ(test, damon_stop(ctx), 0);

	/* Three windows at least, each trying the whole, untouched MiB. */
	KUNIT_EXPECT_GE(test, s->stat.sz_tried, 3 * sz);
	KUNIT_EXPECT_GE(test, s->stat.nr_tried, 3UL);
	KUNIT_EXPECT_EQ(test, s->stat.sz_tried % sz, 0UL);
	KUNIT_EXPECT_EQ(test, s->stat.sz_applied, 0UL);
	KUNIT_EXPECT_EQ(test, s->stat.nr_applied, 0UL);
	damon_destroy_ctx(ctx);
	__free_pages(page, order);
}

/*
 * With skip_anon, anonymous memory is filtered out: a region of it offers
 * the action nothing, so it scores 0, as free memory does, and is neither
 * prepared nor charged to the quota.
 */
static void damon_paddr_test_filtered_scores_zero(struct kunit *test)
{
	static const char data[] = "anonymous";
	struct damos_filter *filter;
	struct damon_region *r;
	struct damon_ctx *ctx;
	struct folio *folio;
	unsigned long addr;
	struct damos *s;

	if (!IS_ENABLED(CONFIG_SWAP))
		kunit_skip(test, "needs CONFIG_SWAP");
	folio = damon_paddr_test_anon_folio(test, data, sizeof(data), &addr);
	ctx = damon_paddr_test_ctx(test, folio_pfn(folio), &r);
	s = damon_paddr_test_scheme(test, DAMOS_PAGEOUT);
	r->age = 100;
	damon_paddr_test_pretend_swap(1);
	KUNIT_EXPECT_GT(test, ctx->ops.get_scheme_score(ctx, NULL, r, s), 0);
	filter = damos_new_filter(DAMOS_FILTER_TYPE_ANON, true);
	KUNIT_ASSERT_NOT_NULL(test, filter);
	damos_add_filter(s, filter);
	KUNIT_EXPECT_EQ(test, ctx->ops.get_scheme_score(ctx, NULL, r, s), 0);
	damon_paddr_test_pretend_swap(-1);
	damos_destroy_filter(filter);
	damon_destroy_ctx(ctx);
	folio_put(folio);
}

/*
 * A folio larger than the budget is taken whole when it comes first in a
 * pass: a small quota must not stop at a huge page for good.  After it,
 * the pass stops at the budget as usual.
 */
static void damon_paddr_test_large_folio_first(struct kunit *test)
{
	static const char data[] = "huge";
	struct damos_apply_budget b;
	struct damon_region *r;
	struct damon_ctx *ctx;
	unsigned long addr;
	struct folio *folio;
	struct page *page;
	struct damos *s;

	if (!IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE) || !IS_ENABLED(CONFIG_SWAP))
		kunit_skip(test, "needs CONFIG_TRANSPARENT_HUGEPAGE and CONFIG_SWAP");
	addr = kunit_vm_mmap(test, NULL, 0, 2 * HPAGE_PMD_SIZE,
			     PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, addr, 0UL, "kunit_vm_mmap() failed");
	addr = ALIGN(addr, HPAGE_PMD_SIZE);
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)addr, data,
					   sizeof(data)), 0UL);
	KUNIT_ASSERT_EQ(test, get_user_pages_fast(addr, 1, 0, &page), 1);
	folio = page_folio(page);
	lru_add_drain_all();
	if (!folio_test_large(folio) || !folio_test_lru(folio)) {
		folio_put(folio);
		kunit_skip(test, "no huge page on an LRU list");
	}

	ctx = damon_paddr_test_ctx(test, folio_pfn(folio), &r);
	s = damon_paddr_test_scheme(test, DAMOS_PAGEOUT);
	damon_paddr_test_pretend_swap(1);
	b = damon_paddr_test_budget(r, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, ctx->ops.apply_scheme(ctx, NULL, r, s, &b), 0UL);
	damon_paddr_test_pretend_swap(-1);
	/* Never made idle: made idle, whole. */
	KUNIT_EXPECT_EQ(test, b.sz_prepared, folio_size(folio));
	KUNIT_EXPECT_EQ(test, b.sz_tried, folio_size(folio));
	KUNIT_EXPECT_EQ(test, b.end, r->ar.end);
	KUNIT_EXPECT_TRUE(test, folio_test_idle(folio));
	damon_destroy_ctx(ctx);
	folio_put(folio);
}

/* What a pass run by damon_paddr_test_stopped_pass_fn() got and did. */
struct damon_paddr_test_pass {
	struct damon_ctx *ctx;
	struct damon_region *r;
	struct damos *s;
	struct damos_apply_budget b;
	struct completion started;
};

/* Waits to be told to stop, then runs a pageout pass over a region. */
static int damon_paddr_test_stopped_pass_fn(void *data)
{
	struct damon_paddr_test_pass *pass = data;

	complete(&pass->started);
	while (!kthread_should_stop())
		usleep_range(1000, 2000);
	pass->ctx->ops.apply_scheme(pass->ctx, NULL, pass->r, pass->s,
				    &pass->b);
	return 0;
}

/*
 * A pass over a region ends early when its kdamond is asked to stop, and
 * says where it stopped: the rest of the region was not dealt with.
 */
static void damon_paddr_test_pass_stops(struct kunit *test)
{
	const unsigned int order = 10;
	struct damon_paddr_test_pass pass;
	struct task_struct *task;
	struct damon_region *r;
	struct page *page;

	page = alloc_pages(GFP_KERNEL | __GFP_NOWARN, order);
	if (!page)
		kunit_skip(test, "no free 4 MiB block");
	pass.ctx = damon_paddr_test_ctx(test, page_to_pfn(page), &r);
	/* Twice the block: a pass looks at a stop request every 4 MiB. */
	r->ar.end = r->ar.start + (PAGE_SIZE << (order + 1));
	pass.r = r;
	pass.s = damon_paddr_test_scheme(test, DAMOS_PAGEOUT);
	pass.b = damon_paddr_test_budget(r, ULONG_MAX);
	init_completion(&pass.started);

	task = kthread_run(damon_paddr_test_stopped_pass_fn, &pass,
			   "damon-paddr-kunit");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	/* Stopped before it ran, it would not run at all. */
	wait_for_completion(&pass.started);
	KUNIT_EXPECT_EQ(test, kthread_stop(task), 0);
	KUNIT_EXPECT_GE(test, pass.b.end, r->ar.start);
	KUNIT_EXPECT_LT(test, pass.b.end, r->ar.end);
	damon_destroy_ctx(pass.ctx);
	__free_pages(page, order);
}

/*
 * Under a time limit, pageout reclaims batches the time left buys at the
 * cost of the last one: between SWAP_CLUSTER_MAX folios (so that a pass
 * goes on measuring) and 512 (one TLB flush per 2 MiB of base pages).
 */
static void damon_paddr_test_pageout_batch(struct kunit *test)
{
	/* 50 ms at 45 us a folio: 1,111, capped. */
	KUNIT_EXPECT_EQ(test, damon_paddr_pageout_batch(50 * NSEC_PER_MSEC,
							45 * NSEC_PER_USEC),
			512U);
	/* 8.6 ms at 45 us: 191. */
	KUNIT_EXPECT_EQ(test, damon_paddr_pageout_batch(8600 * NSEC_PER_USEC,
							45 * NSEC_PER_USEC),
			191U);
	/* A slow kernel, 1 ms a folio, with 1 ms left: the floor. */
	KUNIT_EXPECT_EQ(test, damon_paddr_pageout_batch(NSEC_PER_MSEC,
							NSEC_PER_MSEC),
			(unsigned int)SWAP_CLUSTER_MAX);
	/* A batch too fast to time costs no more than a nanosecond a folio. */
	KUNIT_EXPECT_EQ(test, damon_paddr_pageout_batch(NSEC_PER_USEC, 0), 512U);
	KUNIT_EXPECT_EQ(test, damon_paddr_pageout_batch(100, 0), 100U);
	KUNIT_EXPECT_EQ(test, damon_paddr_pageout_batch(U64_MAX, 1), 512U);
}

static struct kunit_case damon_paddr_test_cases[] = {
	KUNIT_CASE(damon_paddr_test_pageout_batch),
	KUNIT_CASE(damon_paddr_test_score_frequency),
	KUNIT_CASE(damon_paddr_test_score_huge_age),
	KUNIT_CASE(damon_paddr_test_score_age),
	KUNIT_CASE(damon_paddr_test_score_size_and_weights),
	KUNIT_CASE(damon_paddr_test_score_monotonic),
	KUNIT_CASE(damon_paddr_test_kernel_page),
	KUNIT_CASE(damon_paddr_test_no_page),
	KUNIT_CASE(damon_paddr_test_lru_folio),
	KUNIT_CASE(damon_paddr_test_draw_retries),
	KUNIT_CASE(damon_paddr_test_barren_draws),
	KUNIT_CASE(damon_paddr_test_quiet_samples),
	KUNIT_CASE(damon_paddr_test_light_stride),
	KUNIT_CASE(damon_paddr_test_pageout_without_swap),
	KUNIT_CASE(damon_paddr_test_claim_access),
	KUNIT_CASE(damon_paddr_test_put_off_flush),
	KUNIT_CASE(damon_paddr_test_stat_cold),
	KUNIT_CASE(damon_paddr_test_filtered_scores_zero),
	KUNIT_CASE(damon_paddr_test_large_folio_first),
	KUNIT_CASE(damon_paddr_test_pass_stops),
	{},
};

static struct kunit_suite damon_paddr_test_suite = {
	.name = "damon-paddr",
	.test_cases = damon_paddr_test_cases,
};

kunit_test_suite(damon_paddr_test_suite);

MODULE_LICENSE("GPL");
