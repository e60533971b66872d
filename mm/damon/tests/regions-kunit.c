// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of mm/damon/regions.c: region bookkeeping, damon_set_regions(),
 * split and merge arithmetic and the adaptive algorithm.
 */

#include <kunit/test.h>
#include <linux/prandom.h>

#include "../internal.h"

#define P	PAGE_SIZE

/* === Helpers === */

static void damon_test_free_target(void *data)
{
	damon_destroy_target(data);
}

/* A target freed, with its regions, when the test ends. */
static struct damon_target *damon_test_target(struct kunit *test)
{
	struct damon_target *t = damon_new_target();

	int err;

	KUNIT_ASSERT_NOT_NULL(test, t);
	err = kunit_add_action_or_reset(test, damon_test_free_target, t);
	KUNIT_ASSERT_EQ(test, err, 0);
	return t;
}

static struct damon_region *damon_test_add(struct kunit *test,
					   struct damon_target *t,
					   unsigned long start,
					   unsigned long end,
					   unsigned int nr_accesses,
					   unsigned int age)
{
	struct damon_region *r = damon_new_region(start, end);

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->nr_accesses = nr_accesses;
	r->age = age;
	damon_add_region(r, t);
	return r;
}

static struct damon_region *damon_test_nth(struct damon_target *t,
					   unsigned int n)
{
	struct damon_region *r;

	damon_for_each_region(r, t)
		if (!n--)
			return r;
	return NULL;
}

/* Checks the regions of @t are exactly @ranges (pairs of addresses). */
static void damon_test_expect_ranges(struct kunit *test,
				     struct damon_target *t,
				     const unsigned long *ranges,
				     unsigned int nr)
{
	struct damon_region *r;
	unsigned int i = 0, counted = 0;

	KUNIT_EXPECT_EQ(test, t->nr_regions, nr);
	damon_for_each_region(r, t) {
		counted++;
		if (i >= nr)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, r->ar.start, ranges[2 * i],
				    "region %u", i);
		KUNIT_EXPECT_EQ_MSG(test, r->ar.end, ranges[2 * i + 1],
				    "region %u", i);
		i++;
	}
	KUNIT_EXPECT_EQ(test, counted, nr);
}

/* === Creation, split and merge === */

static void damon_test_new_region(struct kunit *test)
{
	struct damon_target *t = damon_test_target(test);
	struct damon_region *r = damon_new_region(P, 3 * P);

	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->ar.start, P);
	KUNIT_EXPECT_EQ(test, r->ar.end, 3 * P);
	KUNIT_EXPECT_EQ(test, damon_region_sz(r), 2 * P);
	KUNIT_EXPECT_EQ(test, r->nr_accesses, 0U);
	KUNIT_EXPECT_EQ(test, r->last_nr_accesses, 0U);
	KUNIT_EXPECT_EQ(test, r->age, 0U);

	damon_add_region(r, t);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 1U);
	damon_destroy_region(r, t);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 0U);
	KUNIT_EXPECT_TRUE(test, list_empty(&t->regions));
}

static void damon_test_insert_after(struct kunit *test)
{
	struct damon_target *t = damon_test_target(test);
	struct damon_region *a = damon_test_add(test, t, 0, P, 0, 0);
	struct damon_region *b;
	const unsigned long want[] = { 0, P, P, 2 * P, 4 * P, 5 * P };

	damon_test_add(test, t, 4 * P, 5 * P, 0, 0);
	b = damon_new_region(P, 2 * P);
	KUNIT_ASSERT_NOT_NULL(test, b);
	damon_insert_region_after(b, a, t);
	damon_test_expect_ranges(test, t, want, 3);
}

static void damon_test_split_at(struct kunit *test)
{
	struct damon_target *t = damon_test_target(test);
	struct damon_region *r = damon_test_add(test, t, 0, 10 * P, 7, 4);
	struct damon_region *upper;
	const unsigned long want[] = { 0, 3 * P, 3 * P, 10 * P };

	r->last_nr_accesses = 5;
	damon_split_region_at(t, r, 3 * P);
	damon_test_expect_ranges(test, t, want, 2);
	upper = damon_test_nth(t, 1);
	KUNIT_ASSERT_NOT_NULL(test, upper);
	KUNIT_EXPECT_EQ(test, r->nr_accesses, 7U);
	KUNIT_EXPECT_EQ(test, upper->nr_accesses, 7U);
	KUNIT_EXPECT_EQ(test, upper->last_nr_accesses, 5U);
	KUNIT_EXPECT_EQ(test, r->age, 4U);
	KUNIT_EXPECT_EQ(test, upper->age, 4U);
}

/*
 * The sampled page and what the backend keeps about it go together: to the
 * part that holds the page; the other part starts with none.
 */
static void damon_test_split_moves_sample(struct kunit *test)
{
	struct damon_target *t = damon_test_target(test);
	struct damon_region *r = damon_test_add(test, t, 0, 10 * P, 0, 0);
	struct damon_region *upper;

	r->sampling_addr = 7 * P;
	r->sampling_state = 5;
	KUNIT_ASSERT_TRUE(test, damon_split_region_at(t, r, 3 * P));
	upper = damon_test_nth(t, 1);
	KUNIT_ASSERT_NOT_NULL(test, upper);
	KUNIT_EXPECT_EQ(test, upper->sampling_addr, 7 * P);
	KUNIT_EXPECT_EQ(test, upper->sampling_state, 5U);
	KUNIT_EXPECT_EQ(test, r->sampling_addr, 0UL);
	KUNIT_EXPECT_EQ(test, r->sampling_state, 0U);

	/* The lower part keeps a page it holds; the upper gets none. */
	r->sampling_addr = P;
	r->sampling_state = 3;
	KUNIT_ASSERT_TRUE(test, damon_split_region_at(t, r, 2 * P));
	upper = damon_test_nth(t, 1);
	KUNIT_EXPECT_EQ(test, r->sampling_addr, P);
	KUNIT_EXPECT_EQ(test, r->sampling_state, 3U);
	KUNIT_EXPECT_EQ(test, upper->sampling_addr, 2 * P);
	KUNIT_EXPECT_EQ(test, upper->sampling_state, 0U);
}

/* A region trimmed past its sampled page gets a new one, without state. */
static void damon_test_trim_resets_sample(struct kunit *test)
{
	struct damon_target *t = damon_test_target(test);
	struct damon_region *r = damon_test_add(test, t, 0, 10 * P, 0, 0);
	const struct damon_addr_range keep = { .start = 0, .end = 4 * P };

	r->sampling_addr = 8 * P;
	r->sampling_state = 5;
	KUNIT_ASSERT_EQ(test, damon_set_regions(t, &keep, 1, P), 0);
	KUNIT_ASSERT_EQ(test, t->nr_regions, 1U);
	r = damon_test_nth(t, 0);
	KUNIT_EXPECT_EQ(test, r->ar.end, 4 * P);
	KUNIT_EXPECT_EQ(test, r->sampling_addr, 0UL);
	KUNIT_EXPECT_EQ(test, r->sampling_state, 0U);

	/* One still inside keeps both. */
	r->sampling_addr = 2 * P;
	r->sampling_state = 3;
	KUNIT_ASSERT_EQ(test, damon_set_regions(t, &keep, 1, P), 0);
	r = damon_test_nth(t, 0);
	KUNIT_EXPECT_EQ(test, r->sampling_addr, 2 * P);
	KUNIT_EXPECT_EQ(test, r->sampling_state, 3U);
}

static void damon_test_merge_two(struct kunit *test)
{
	struct damon_target *t = damon_test_target(test);
	struct damon_region *l = damon_test_add(test, t, 0, P, 10, 4);
	struct damon_region *r = damon_test_add(test, t, P, 4 * P, 2, 8);

	l->last_nr_accesses = 1;
	r->last_nr_accesses = 9;
	damon_merge_two_regions(t, l, r);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 1U);
	KUNIT_EXPECT_EQ(test, l->ar.start, 0UL);
	KUNIT_EXPECT_EQ(test, l->ar.end, 4 * P);
	/* (10 * 1 + 2 * 3) / 4, (1 * 1 + 9 * 3) / 4, (4 * 1 + 8 * 3) / 4 */
	KUNIT_EXPECT_EQ(test, l->nr_accesses, 4U);
	KUNIT_EXPECT_EQ(test, l->last_nr_accesses, 7U);
	KUNIT_EXPECT_EQ(test, l->age, 7U);
}

/* Weights beyond 32 bits must not overflow the products. */
static void damon_test_merge_two_huge(struct kunit *test)
{
	struct damon_target *t = damon_test_target(test);
	unsigned long half = 1UL << 45;
	struct damon_region *l = damon_test_add(test, t, 0, half, 100,
						UINT_MAX);
	struct damon_region *r = damon_test_add(test, t, half, 4 * half, 300,
						UINT_MAX - 4);

	damon_merge_two_regions(t, l, r);
	KUNIT_EXPECT_EQ(test, l->ar.end, 4 * half);
	KUNIT_EXPECT_EQ(test, l->nr_accesses, 250U);
	KUNIT_EXPECT_EQ(test, l->age, UINT_MAX - 3);
}

static void damon_test_merge_regions_of(struct kunit *test)
{
	struct damon_target *t = damon_test_target(test);
	const unsigned int nr[] = { 0, 1, 5, 6, 20, 21, 21 };
	const unsigned long want[] = { 0, 2 * P, 2 * P, 4 * P, 4 * P, 6 * P,
				       6 * P, 7 * P, 8 * P, 9 * P };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(nr); i++)
		damon_test_add(test, t, i * P, (i + 1) * P, nr[i], 0);
	/* Alike but not adjacent to the region before it. */
	damon_test_add(test, t, 8 * P, 9 * P, 21, 0);

	/* 6-7 is alike 4-6 but would make it larger than the limit. */
	damon_merge_regions_of(t, 1, 2 * P, true);
	damon_test_expect_ranges(test, t, want, 5);
	KUNIT_EXPECT_EQ(test, damon_test_nth(t, 0)->nr_accesses, 0U);
	KUNIT_EXPECT_EQ(test, damon_test_nth(t, 1)->nr_accesses, 5U);
	KUNIT_EXPECT_EQ(test, damon_test_nth(t, 2)->nr_accesses, 20U);
	KUNIT_EXPECT_EQ(test, damon_test_nth(t, 3)->nr_accesses, 21U);
	KUNIT_EXPECT_EQ(test, damon_test_nth(t, 4)->nr_accesses, 21U);

	/* A higher threshold and no size limit. */
	damon_merge_regions_of(t, 5, ULONG_MAX, true);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 3U);
	KUNIT_EXPECT_EQ(test, damon_test_nth(t, 0)->ar.end, 4 * P);
	/* (0 * 2 + 5 * 2) / 4 and (20 * 2 + 21 * 1) / 3 */
	KUNIT_EXPECT_EQ(test, damon_test_nth(t, 0)->nr_accesses, 2U);
	KUNIT_EXPECT_EQ(test, damon_test_nth(t, 1)->ar.start, 4 * P);
	KUNIT_EXPECT_EQ(test, damon_test_nth(t, 1)->ar.end, 7 * P);
	KUNIT_EXPECT_EQ(test, damon_test_nth(t, 1)->nr_accesses, 20U);
	KUNIT_EXPECT_EQ(test, damon_test_nth(t, 2)->ar.start, 8 * P);
}

/* Every region aligned to @align, at least that big, in order, covering. */
static void damon_test_expect_tiling(struct kunit *test,
				     struct damon_target *t,
				     unsigned long start, unsigned long end,
				     unsigned long align)
{
	struct damon_region *r;
	unsigned long expected_start = start;
	unsigned int nr = 0;

	damon_for_each_region(r, t) {
		KUNIT_EXPECT_EQ(test, r->ar.start, expected_start);
		KUNIT_EXPECT_EQ(test, r->ar.start % align, 0UL);
		KUNIT_EXPECT_EQ(test, r->ar.end % align, 0UL);
		KUNIT_EXPECT_GE(test, damon_region_sz(r), align);
		expected_start = r->ar.end;
		nr++;
	}
	KUNIT_EXPECT_EQ(test, expected_start, end);
	KUNIT_EXPECT_EQ(test, t->nr_regions, nr);
}

static void damon_test_split_regions_of(struct kunit *test)
{
	struct damon_target *t = damon_test_target(test);
	struct damon_region *r;
	unsigned int round;

	for (round = 0; round < 20; round++) {
		damon_destroy_regions_of(t);
		damon_test_add(test, t, 0, 100 * P, 3, 2);
		damon_test_add(test, t, 100 * P, 102 * P, 1, 0);
		damon_test_add(test, t, 102 * P, 103 * P, 1, 0);
		damon_split_regions_of(t, 3, P);
		/* 3 pieces, 2 pieces (too small for 3), 1 piece. */
		KUNIT_EXPECT_EQ(test, t->nr_regions, 6U);
		damon_test_expect_tiling(test, t, 0, 103 * P, P);
		r = damon_test_nth(t, 2);
		KUNIT_EXPECT_EQ(test, r->ar.end, 100 * P);
		KUNIT_EXPECT_EQ(test, r->nr_accesses, 3U);
		KUNIT_EXPECT_EQ(test, r->age, 2U);
	}
	damon_split_regions_of(t, 1, P);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 6U);
}

static void damon_test_destroy_regions_of(struct kunit *test)
{
	struct damon_target *t = damon_test_target(test);

	damon_test_add(test, t, 0, P, 0, 0);
	damon_test_add(test, t, P, 2 * P, 0, 0);
	damon_destroy_regions_of(t);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 0U);
	KUNIT_EXPECT_TRUE(test, list_empty(&t->regions));
}

/* === damon_set_regions() === */

static void damon_test_set_regions_empty_target(struct kunit *test)
{
	struct damon_target *t = damon_test_target(test);
	const struct damon_addr_range ranges[] = {
		{ P, 3 * P }, { 5 * P, 6 * P },
	};
	const unsigned long want[] = { P, 3 * P, 5 * P, 6 * P };

	KUNIT_EXPECT_EQ(test, damon_set_regions(t, ranges, 2, P), 0);
	damon_test_expect_ranges(test, t, want, 2);
}

static void damon_test_set_regions_trim(struct kunit *test)
{
	struct damon_target *t = damon_test_target(test);
	const struct damon_addr_range range = { P, 6 * P };
	const unsigned long want[] = { P, 2 * P, 2 * P, 4 * P, 4 * P, 6 * P };

	damon_test_add(test, t, 0, 2 * P, 1, 11);
	damon_test_add(test, t, 2 * P, 4 * P, 2, 12);
	damon_test_add(test, t, 4 * P, 8 * P, 3, 13);
	damon_test_add(test, t, 9 * P, 10 * P, 4, 14);
	KUNIT_EXPECT_EQ(test, damon_set_regions(t, &range, 1, P), 0);
	damon_test_expect_ranges(test, t, want, 3);
	/* The kept regions keep their history. */
	KUNIT_EXPECT_EQ(test, damon_test_nth(t, 0)->nr_accesses, 1U);
	KUNIT_EXPECT_EQ(test, damon_test_nth(t, 0)->age, 11U);
	KUNIT_EXPECT_EQ(test, damon_test_nth(t, 2)->nr_accesses, 3U);
	KUNIT_EXPECT_EQ(test, damon_test_nth(t, 2)->age, 13U);
}

static void damon_test_set_regions_expand(struct kunit *test)
{
	struct damon_target *t = damon_test_target(test);
	const struct damon_addr_range range = { 0, 8 * P };
	const unsigned long want[] = { 0, P, P, 2 * P, 2 * P, 3 * P,
				       3 * P, 4 * P, 4 * P, 8 * P };

	damon_test_add(test, t, P, 2 * P, 5, 1);
	damon_test_add(test, t, 3 * P, 4 * P, 6, 2);
	KUNIT_EXPECT_EQ(test, damon_set_regions(t, &range, 1, P), 0);
	/* The edges and the hole between the old regions are new. */
	damon_test_expect_ranges(test, t, want, 5);
	KUNIT_EXPECT_EQ(test, damon_test_nth(t, 0)->nr_accesses, 0U);
	KUNIT_EXPECT_EQ(test, damon_test_nth(t, 1)->nr_accesses, 5U);
	KUNIT_EXPECT_EQ(test, damon_test_nth(t, 2)->nr_accesses, 0U);
	KUNIT_EXPECT_EQ(test, damon_test_nth(t, 3)->nr_accesses, 6U);
	KUNIT_EXPECT_EQ(test, damon_test_nth(t, 3)->age, 2U);
	KUNIT_EXPECT_EQ(test, damon_test_nth(t, 4)->nr_accesses, 0U);
}

static void damon_test_set_regions_one_region_two_ranges(struct kunit *test)
{
	struct damon_target *t = damon_test_target(test);
	const struct damon_addr_range ranges[] = {
		{ 0, 2 * P }, { 5 * P, 6 * P },
	};
	const unsigned long want[] = { 0, 2 * P, 5 * P, 6 * P };

	damon_test_add(test, t, 0, 10 * P, 7, 3);
	KUNIT_EXPECT_EQ(test, damon_set_regions(t, ranges, 2, P), 0);
	damon_test_expect_ranges(test, t, want, 2);
	KUNIT_EXPECT_EQ(test, damon_test_nth(t, 0)->nr_accesses, 7U);
	KUNIT_EXPECT_EQ(test, damon_test_nth(t, 1)->nr_accesses, 0U);
}

static void damon_test_set_regions_align(struct kunit *test)
{
	struct damon_target *t = damon_test_target(test);
	/* Widened, then the second is clipped by the first. */
	const struct damon_addr_range ranges[] = {
		{ P + 1, 3 * P - 1 }, { 3 * P - 1, 3 * P + 1 },
	};
	const unsigned long want[] = { P, 3 * P, 3 * P, 4 * P };

	KUNIT_EXPECT_EQ(test, damon_set_regions(t, ranges, 2, P), 0);
	damon_test_expect_ranges(test, t, want, 2);
}

static void damon_test_set_regions_invalid(struct kunit *test)
{
	struct damon_target *t = damon_test_target(test);
	const struct damon_addr_range unsorted[] = {
		{ 4 * P, 5 * P }, { 0, P },
	};
	const struct damon_addr_range empty = { P, P };
	const struct damon_addr_range ok = { 0, P };
	const unsigned long want[] = { 2 * P, 3 * P };

	damon_test_add(test, t, 2 * P, 3 * P, 9, 9);
	KUNIT_EXPECT_EQ(test, damon_set_regions(t, unsorted, 2, P), -EINVAL);
	KUNIT_EXPECT_EQ(test, damon_set_regions(t, &empty, 1, P), -EINVAL);
	KUNIT_EXPECT_EQ(test, damon_set_regions(t, &ok, 1, 3), -EINVAL);
	KUNIT_EXPECT_EQ(test, damon_set_regions(t, &ok, 1, 0), -EINVAL);
	damon_test_expect_ranges(test, t, want, 1);
	KUNIT_EXPECT_EQ(test, damon_test_nth(t, 0)->nr_accesses, 9U);
}

/*
 * A range ending above the last aligned address cannot be widened to the
 * alignment (ALIGN() would wrap to 0): refused, rather than leaving the
 * target without regions.
 */
static void damon_test_set_regions_top_of_space(struct kunit *test)
{
	struct damon_target *t = damon_test_target(test);
	const struct damon_addr_range top = { ULONG_MAX - 3 * P, ULONG_MAX };
	const struct damon_addr_range last = {
		ULONG_MAX - 3 * P + 1, ALIGN_DOWN(ULONG_MAX, P)
	};
	const unsigned long want[] = { 2 * P, 3 * P };
	const unsigned long want_last[] = {
		ALIGN_DOWN(ULONG_MAX, P) - 2 * P, ALIGN_DOWN(ULONG_MAX, P)
	};

	damon_test_add(test, t, 2 * P, 3 * P, 9, 9);
	KUNIT_EXPECT_EQ(test, damon_set_regions(t, &top, 1, P), -EINVAL);
	damon_test_expect_ranges(test, t, want, 1);
	KUNIT_EXPECT_EQ(test, damon_set_regions(t, &last, 1, P), 0);
	damon_test_expect_ranges(test, t, want_last, 1);
}

static void damon_test_set_regions_none(struct kunit *test)
{
	struct damon_target *t = damon_test_target(test);

	damon_test_add(test, t, 2 * P, 3 * P, 9, 9);
	KUNIT_EXPECT_EQ(test, damon_set_regions(t, NULL, 0, P), 0);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 0U);
	KUNIT_EXPECT_TRUE(test, list_empty(&t->regions));
}

/* === Adaptation === */

static void damon_test_free_ctx(void *data)
{
	damon_destroy_ctx(data);
}

static struct damon_ctx *damon_test_ctx(struct kunit *test,
					unsigned long min_nr,
					unsigned long max_nr)
{
	struct damon_ctx *ctx = damon_new_ctx();

	int err;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	err = kunit_add_action_or_reset(test, damon_test_free_ctx, ctx);
	KUNIT_ASSERT_EQ(test, err, 0);
	ctx->attrs.min_nr_regions = min_nr;
	ctx->attrs.max_nr_regions = max_nr;
	return ctx;
}

static struct damon_target *damon_test_ctx_target(struct kunit *test,
						  struct damon_ctx *ctx)
{
	struct damon_target *t = damon_new_target();

	KUNIT_ASSERT_NOT_NULL(test, t);
	damon_add_target(ctx, t);
	return t;
}

static void damon_test_region_sz_limit(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_ctx(test, 10, 100);
	struct damon_target *t = damon_test_ctx_target(test, ctx);

	KUNIT_EXPECT_EQ(test, damon_region_sz_limit(ctx), P);
	damon_test_add(test, t, 0, 20 * P, 0, 0);
	damon_test_add(test, t, 30 * P, 40 * P, 0, 0);
	KUNIT_EXPECT_EQ(test, damon_region_sz_limit(ctx), 3 * P);
	ctx->attrs.min_nr_regions = 100;
	KUNIT_EXPECT_EQ(test, damon_region_sz_limit(ctx), P);
}

static void damon_test_split_oversized(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_ctx(test, 10, 100);
	struct damon_target *t = damon_test_ctx_target(test, ctx);

	damon_test_add(test, t, 0, 100 * P, 4, 2);
	damon_split_oversized_regions(ctx);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 10U);
	damon_test_expect_tiling(test, t, 0, 100 * P, P);
	KUNIT_EXPECT_EQ(test, damon_region_sz(damon_test_nth(t, 9)), 10 * P);
	KUNIT_EXPECT_EQ(test, damon_test_nth(t, 9)->nr_accesses, 4U);
	KUNIT_EXPECT_EQ(test, damon_test_nth(t, 9)->age, 2U);

	/* Nothing above the limit: nothing changes. */
	damon_split_oversized_regions(ctx);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 10U);
}

/* Ages and window reset of three regions too different to merge. */
static void damon_test_adapt_ages(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_ctx(test, 3, 5);
	struct damon_target *t = damon_test_ctx_target(test, ctx);
	struct damon_region *a, *b, *c;

	a = damon_test_add(test, t, 0, P, 20, 3);
	b = damon_test_add(test, t, P, 2 * P, 0, 6);
	c = damon_test_add(test, t, 2 * P, 3 * P, 10, 9);
	a->last_nr_accesses = 19;	/* alike: ages */
	b->last_nr_accesses = 5;	/* changed: starts over */
	c->last_nr_accesses = 12;	/* changed by exactly the threshold */

	/* Threshold: 20 / 10 = 2.  Three regions of the size limit. */
	damon_age_regions(ctx, 20);
	damon_adapt_regions(ctx, 20);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 3U);
	KUNIT_EXPECT_EQ(test, a->age, 4U);
	KUNIT_EXPECT_EQ(test, b->age, 0U);
	KUNIT_EXPECT_EQ(test, c->age, 10U);
	KUNIT_EXPECT_EQ(test, a->last_nr_accesses, 20U);
	KUNIT_EXPECT_EQ(test, b->last_nr_accesses, 0U);
	KUNIT_EXPECT_EQ(test, c->last_nr_accesses, 10U);
	KUNIT_EXPECT_EQ(test, a->nr_accesses, 0U);
	KUNIT_EXPECT_EQ(test, b->nr_accesses, 0U);
	KUNIT_EXPECT_EQ(test, c->nr_accesses, 0U);
}

/* Alike neighbours merge with size-weighted counts and ages. */
static void damon_test_adapt_merges(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_ctx(test, 3, 4);
	struct damon_target *t = damon_test_ctx_target(test, ctx);
	const unsigned long want[] = { 0, 4 * P, 4 * P, 7 * P, 7 * P, 10 * P,
				       10 * P, 12 * P };
	struct damon_region *r;

	r = damon_test_add(test, t, 0, P, 10, 2);
	r->last_nr_accesses = 10;
	r = damon_test_add(test, t, P, 4 * P, 11, 4);
	r->last_nr_accesses = 11;
	damon_test_add(test, t, 4 * P, 10 * P, 0, 0);
	damon_test_add(test, t, 10 * P, 12 * P, 0, 0);
	damon_age_regions(ctx, 11);
	damon_adapt_regions(ctx, 11);
	/*
	 * The size limit is 12 / 3 = 4 pages: 0-1 and 1-4 merge, 4-10 cannot
	 * take 10-12 and is itself cut in two as it is above the limit.  Four
	 * regions: no room for random splits.
	 */
	damon_test_expect_ranges(test, t, want, 4);
	r = damon_test_nth(t, 0);
	/* Ages 3 and 5 after aging, weighted: (3 * 1 + 5 * 3) / 4. */
	KUNIT_EXPECT_EQ(test, r->age, 4U);
	/* (10 * 1 + 11 * 3) / 4, now the previous window's count. */
	KUNIT_EXPECT_EQ(test, r->last_nr_accesses, 10U);
	KUNIT_EXPECT_EQ(test, r->nr_accesses, 0U);
	KUNIT_EXPECT_EQ(test, damon_test_nth(t, 2)->age, 1U);
}

/*
 * Ages count the time windows took, in aggregation intervals: a window that
 * lasted 2.5 intervals counts 2 and carries the half over; a short one
 * counts 1.
 */
static void damon_test_window_age_steps(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_ctx(test, 1, 10);
	struct damon_target *t = damon_test_ctx_target(test, ctx);
	struct damon_region *r;

	ctx->attrs.aggr_interval = 100000;
	KUNIT_EXPECT_EQ(test, damon_window_age_steps(ctx), 1U);
	KUNIT_EXPECT_EQ(test, ctx->aged_us, 0ULL);
	ctx->now_us = 100000;
	KUNIT_EXPECT_EQ(test, damon_window_age_steps(ctx), 1U);
	ctx->now_us = 350000;
	KUNIT_EXPECT_EQ(test, damon_window_age_steps(ctx), 2U);
	KUNIT_EXPECT_EQ(test, ctx->aged_us, 300000ULL);
	ctx->now_us = 400000;
	KUNIT_EXPECT_EQ(test, damon_window_age_steps(ctx), 1U);
	KUNIT_EXPECT_EQ(test, ctx->aged_us, 400000ULL);
	ctx->now_us = 430000;
	KUNIT_EXPECT_EQ(test, damon_window_age_steps(ctx), 1U);
	KUNIT_EXPECT_EQ(test, ctx->aged_us, 430000ULL);

	/* A window of more intervals than an age can count. */
	ctx->attrs.aggr_interval = 1;
	ctx->now_us = ctx->aged_us + (u64)UINT_MAX + 5;
	KUNIT_EXPECT_EQ(test, damon_window_age_steps(ctx), UINT_MAX);
	KUNIT_EXPECT_EQ(test, ctx->aged_us, ctx->now_us);
	ctx->attrs.aggr_interval = 0;
	ctx->now_us += 7;
	KUNIT_EXPECT_EQ(test, damon_window_age_steps(ctx), 1U);
	ctx->attrs.aggr_interval = ULONG_MAX;
	ctx->now_us += 500;
	KUNIT_EXPECT_EQ(test, damon_window_age_steps(ctx), 1U);
	KUNIT_EXPECT_EQ(test, ctx->aged_us, ctx->now_us);

	/* Stable regions age by the steps, saturating; changed ones restart. */
	ctx->attrs.aggr_interval = 100000;
	ctx->aged_us = 0;
	ctx->now_us = 1500000;
	r = damon_test_add(test, t, 0, P, 0, 3);
	damon_test_add(test, t, P, 2 * P, 0, UINT_MAX - 4);
	damon_test_add(test, t, 2 * P, 3 * P, 20, 9);
	damon_age_regions(ctx, 20);
	KUNIT_EXPECT_EQ(test, r->age, 18U);
	KUNIT_EXPECT_EQ(test, damon_test_nth(t, 1)->age, UINT_MAX);
	KUNIT_EXPECT_EQ(test, damon_test_nth(t, 2)->age, 0U);
}

static void damon_test_ages_alike(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, damon_ages_alike(0, 0));
	KUNIT_EXPECT_FALSE(test, damon_ages_alike(0, 1));
	KUNIT_EXPECT_TRUE(test, damon_ages_alike(2, 1));
	KUNIT_EXPECT_TRUE(test, damon_ages_alike(30, 60));
	KUNIT_EXPECT_FALSE(test, damon_ages_alike(61, 30));
	KUNIT_EXPECT_TRUE(test, damon_ages_alike(UINT_MAX, UINT_MAX / 2 + 1));
	KUNIT_EXPECT_FALSE(test, damon_ages_alike(UINT_MAX / 2, UINT_MAX));
}

/*
 * Idle A (just restarted, say by a pageout pass) and idle B (old) have alike
 * access counts but not alike ages: they stay apart, so that B keeps its
 * age, unless there are more regions than allowed.
 */
static void damon_test_adapt_ages_apart(struct kunit *test)
{
	const unsigned long want[] = { 0, 4 * P, 4 * P, 8 * P, 8 * P, 12 * P };
	const unsigned int nr[] = { 0, 0, 20, 0 };
	const unsigned int age[] = { 0, 60, 5, 7 };
	/* In pages; the size limit is 12 / 3 = 4 pages. */
	const unsigned long bounds[] = { 0, 2, 4, 8, 12 };
	unsigned int max_nr, i;

	for (max_nr = 4; max_nr >= 3; max_nr--) {
		struct damon_ctx *ctx = damon_test_ctx(test, 3, max_nr);
		struct damon_target *t = damon_test_ctx_target(test, ctx);
		struct damon_region *r;

		for (i = 0; i < ARRAY_SIZE(nr); i++) {
			r = damon_test_add(test, t, bounds[i] * P,
					   bounds[i + 1] * P, nr[i], age[i]);
			r->last_nr_accesses = nr[i];
		}
		damon_age_regions(ctx, 20);
		damon_adapt_regions(ctx, 20);
		if (max_nr == 4) {
			KUNIT_EXPECT_EQ(test, t->nr_regions, 4U);
			KUNIT_EXPECT_EQ(test, damon_test_nth(t, 0)->age, 1U);
			KUNIT_EXPECT_EQ(test, damon_test_nth(t, 1)->age, 61U);
			KUNIT_EXPECT_EQ(test, damon_test_nth(t, 1)->ar.start,
					2 * P);
			continue;
		}
		/* Three at most: the ages give, weighted (1 * 2 + 61 * 2) / 4. */
		damon_test_expect_ranges(test, t, want, 3);
		KUNIT_EXPECT_EQ(test, damon_test_nth(t, 0)->age, 31U);
		KUNIT_EXPECT_EQ(test, damon_test_nth(t, 2)->age, 8U);
	}
}

/*
 * Whatever the access pattern, adaptation keeps the number of regions in
 * [min_nr_regions, max_nr_regions] and the regions tiling the target.
 */
static void damon_test_adapt_bounds(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_ctx(test, 10, 100);
	struct damon_target *t = damon_test_ctx_target(test, ctx);
	const unsigned long end = 4096 * P;
	struct rnd_state rnd;
	struct damon_region *r;
	unsigned int round, nr, max_nr, hot_start, hot_len;
	unsigned int min_seen = UINT_MAX, max_seen = 0;

	prandom_seed_state(&rnd, 42);
	damon_test_add(test, t, 0, end, 0, 0);
	damon_split_oversized_regions(ctx);
	for (round = 0; round < 300; round++) {
		/* A hot window that moves; the rest is noise or cold. */
		hot_start = prandom_u32_state(&rnd) % 4096;
		hot_len = prandom_u32_state(&rnd) % 512;
		max_nr = 0;
		damon_for_each_region(r, t) {
			if (r->ar.start / P >= hot_start &&
			    r->ar.start / P < hot_start + hot_len)
				r->nr_accesses = 20;
			else if (round % 3 == 0)
				r->nr_accesses = prandom_u32_state(&rnd) % 21;
			else
				r->nr_accesses = 0;
			max_nr = max(max_nr, r->nr_accesses);
		}
		damon_adapt_regions(ctx, max_nr);
		nr = damon_nr_regions(ctx);
		KUNIT_ASSERT_GE_MSG(test, nr, 10U, "round %u", round);
		KUNIT_ASSERT_LE_MSG(test, nr, 100U, "round %u", round);
		min_seen = min(min_seen, nr);
		max_seen = max(max_seen, nr);
	}
	damon_test_expect_tiling(test, t, 0, end, P);
	/* The count really moves: merging and splitting both happened. */
	KUNIT_EXPECT_LT(test, min_seen, max_seen);
}

static struct kunit_case damon_regions_test_cases[] = {
	KUNIT_CASE(damon_test_new_region),
	KUNIT_CASE(damon_test_insert_after),
	KUNIT_CASE(damon_test_split_at),
	KUNIT_CASE(damon_test_split_moves_sample),
	KUNIT_CASE(damon_test_trim_resets_sample),
	KUNIT_CASE(damon_test_merge_two),
	KUNIT_CASE(damon_test_merge_two_huge),
	KUNIT_CASE(damon_test_merge_regions_of),
	KUNIT_CASE(damon_test_split_regions_of),
	KUNIT_CASE(damon_test_destroy_regions_of),
	KUNIT_CASE(damon_test_set_regions_empty_target),
	KUNIT_CASE(damon_test_set_regions_trim),
	KUNIT_CASE(damon_test_set_regions_expand),
	KUNIT_CASE(damon_test_set_regions_one_region_two_ranges),
	KUNIT_CASE(damon_test_set_regions_align),
	KUNIT_CASE(damon_test_set_regions_invalid),
	KUNIT_CASE(damon_test_set_regions_top_of_space),
	KUNIT_CASE(damon_test_set_regions_none),
	KUNIT_CASE(damon_test_region_sz_limit),
	KUNIT_CASE(damon_test_split_oversized),
	KUNIT_CASE(damon_test_adapt_ages),
	KUNIT_CASE(damon_test_adapt_merges),
	KUNIT_CASE(damon_test_window_age_steps),
	KUNIT_CASE(damon_test_ages_alike),
	KUNIT_CASE(damon_test_adapt_ages_apart),
	KUNIT_CASE(damon_test_adapt_bounds),
	{}
};

static struct kunit_suite damon_regions_test_suite = {
	.name = "damon-regions",
	.test_cases = damon_regions_test_cases,
};

kunit_test_suite(damon_regions_test_suite);
