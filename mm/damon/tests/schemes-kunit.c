// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the DAMOS engine: validation, filters, quota arithmetic
 * and auto-tuning, prioritisation, resumption, watermarks, statistics and
 * commit.  The engine is driven by hand on a context with the fake
 * operations backend and its fake clock, so every number is exact.
 */

#include <kunit/test.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/mm.h>
#include <linux/sizes.h>

#include "../internal.h"
#include "fake-ops.h"

/* One charge window of the schemes below, and its length on the clock. */
#define DAMOS_TEST_RESET_MS	1000UL
#define DAMOS_TEST_RESET_NS	(DAMOS_TEST_RESET_MS * NSEC_PER_MSEC)

/* The tuned quota's floor: one page, in bytes times DAMOS_QUOTA_BP. */
#define DAMOS_TEST_MIN_BP	((u64)PAGE_SIZE * DAMOS_QUOTA_BP)

/* === Fixtures === */

static void damos_test_destroy_ctx(void *ctx)
{
	damon_destroy_ctx(ctx);
}

static void damos_test_restore_clock(void *unused)
{
	damos_set_test_clock(NULL);
}

static void damos_test_destroy_scheme(void *s)
{
	damon_destroy_scheme(s);
}

/* Runs @fn(@arg) when the test ends, or now if that cannot be arranged. */
static void damos_test_defer(struct kunit *test, kunit_action_t *fn,
			     void *arg)
{
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fn, arg), 0);
}

/*
 * A context on the fake backend and its clock, with 20 samples per
 * aggregation, freed when the test ends.
 */
static struct damon_ctx *damos_test_ctx(struct kunit *test)
{
	struct damon_ctx *ctx = damon_new_ctx();

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	damos_test_defer(test, damos_test_destroy_ctx, ctx);
	ctx->attrs.sample_interval = 5000;
	ctx->attrs.aggr_interval = 100000;
	KUNIT_ASSERT_EQ(test, damon_fake_ops_select(ctx), 0);
	damos_set_test_clock(damon_fake_ops_clock_ns);
	damos_test_defer(test, damos_test_restore_clock, NULL);
	return ctx;
}

/* A target of @nr regions of @sz bytes each, from @start. */
static struct damon_target *damos_test_target(struct kunit *test,
					      struct damon_ctx *ctx,
					      unsigned long start,
					      unsigned int nr, unsigned long sz)
{
	struct damon_target *t = damon_new_target();
	struct damon_region *r;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, t);
	damon_add_target(ctx, t);
	for (i = 0; i < nr; i++) {
		r = damon_new_region(start + i * sz, start + (i + 1) * sz);
		KUNIT_ASSERT_NOT_NULL(test, r);
		damon_add_region(r, t);
	}
	return t;
}

static const struct damos_access_pattern damos_test_any = {
	.max_sz_region = ULONG_MAX,
	.max_nr_accesses = UINT_MAX,
	.max_age_region = UINT_MAX,
};

/* A scheme matching every region, added to @ctx. */
static struct damos *damos_test_scheme(struct kunit *test,
				       struct damon_ctx *ctx,
				       enum damos_action action,
				       const struct damos_quota *quota)
{
	struct damos *s = damos_new_scheme(&damos_test_any, action, quota,
					   NULL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	damon_add_scheme(ctx, s);
	return s;
}

/* A scheme on no context, freed when the test ends. */
static struct damos *damos_test_lone_scheme(struct kunit *test,
					    const struct damos_quota *quota)
{
	struct damos *s = damos_new_scheme(&damos_test_any, DAMOS_PAGEOUT,
					   quota, NULL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	damos_test_defer(test, damos_test_destroy_scheme, s);
	return s;
}

static struct damon_region *damos_test_region(struct damon_target *t,
					      unsigned int i)
{
	struct damon_region *r;

	damon_for_each_region(r, t)
		if (!i--)
			return r;
	return NULL;
}

static struct damon_fake_applied damos_test_applied(struct kunit *test,
						    unsigned int i)
{
	struct damon_fake_applied rec;

	KUNIT_ASSERT_TRUE(test, damon_fake_ops_applied(i, &rec));
	return rec;
}

static void damos_test_next_window(void)
{
	damon_fake_ops_advance_clock_ns(DAMOS_TEST_RESET_NS);
}

/* === Validation === */

static struct damos *damos_test_valid_scheme(struct kunit *test)
{
	struct damos_quota quota = {
		.sz = SZ_1M,
		.reset_interval_ms = DAMOS_TEST_RESET_MS,
	};
	struct damos_watermarks wmarks = {
		.metric = DAMOS_WMARK_FREE_MEM_RATE,
		.interval_us = 1000,
		.high = 1000,
		.mid = 500,
		.low = 500,
	};
	struct damos_access_pattern pattern = {
		.min_sz_region = PAGE_SIZE,
		.max_sz_region = PAGE_SIZE,
		.min_nr_accesses = 3,
		.max_nr_accesses = 3,
		.min_age_region = 7,
		.max_age_region = 7,
	};
	struct damos *s = damos_new_scheme(&pattern, DAMOS_STAT, &quota,
					   &wmarks);

	KUNIT_ASSERT_NOT_NULL(test, s);
	damos_test_defer(test, damos_test_destroy_scheme, s);
	return s;
}

static void damos_test_validate(struct kunit *test)
{
	struct damos *s = damos_test_valid_scheme(test);
	struct damos_quota_goal *g;
	struct damos_filter *f;

	/* Equal bounds, high == 1000 and mid == low are all valid. */
	KUNIT_EXPECT_EQ(test, damos_validate_scheme(s), 0);

	s->pattern.min_sz_region = PAGE_SIZE + 1;
	KUNIT_EXPECT_EQ(test, damos_validate_scheme(s), -EINVAL);
	s->pattern.min_sz_region = PAGE_SIZE;
	s->pattern.min_nr_accesses = 4;
	KUNIT_EXPECT_EQ(test, damos_validate_scheme(s), -EINVAL);
	s->pattern.min_nr_accesses = 3;
	s->pattern.min_age_region = 8;
	KUNIT_EXPECT_EQ(test, damos_validate_scheme(s), -EINVAL);
	s->pattern.min_age_region = 7;

	s->action = NR_DAMOS_ACTIONS;
	KUNIT_EXPECT_EQ(test, damos_validate_scheme(s), -EINVAL);
	s->action = DAMOS_PAGEOUT;

	s->wmarks.metric = NR_DAMOS_WMARK_METRICS;
	KUNIT_EXPECT_EQ(test, damos_validate_scheme(s), -EINVAL);
	s->wmarks.metric = DAMOS_WMARK_FREE_MEM_RATE;
	s->wmarks.high = 499;
	KUNIT_EXPECT_EQ(test, damos_validate_scheme(s), -EINVAL);
	s->wmarks.high = 1000;
	s->wmarks.low = 501;
	KUNIT_EXPECT_EQ(test, damos_validate_scheme(s), -EINVAL);
	s->wmarks.low = 500;
	s->wmarks.high = 1001;
	KUNIT_EXPECT_EQ(test, damos_validate_scheme(s), -EINVAL);
	/* Only the free memory rate is in per-thousand. */
	s->wmarks.metric = DAMOS_WMARK_NONE;
	KUNIT_EXPECT_EQ(test, damos_validate_scheme(s), 0);
	s->wmarks.high = 1000;

	s->quota.reset_interval_ms = 0;
	KUNIT_EXPECT_EQ(test, damos_validate_scheme(s), -EINVAL);
	s->quota.sz = 0;
	KUNIT_EXPECT_EQ(test, damos_validate_scheme(s), 0);
	s->quota.ms = 1;
	KUNIT_EXPECT_EQ(test, damos_validate_scheme(s), -EINVAL);
	s->quota.ms = 0;
	g = damos_new_quota_goal(DAMOS_QUOTA_USER_INPUT, 1);
	KUNIT_ASSERT_NOT_NULL(test, g);
	damos_add_quota_goal(&s->quota, g);
	KUNIT_EXPECT_EQ(test, damos_validate_scheme(s), -EINVAL);
	s->quota.reset_interval_ms = DAMOS_TEST_RESET_MS;
	KUNIT_EXPECT_EQ(test, damos_validate_scheme(s), 0);
	g->metric = NR_DAMOS_QUOTA_GOAL_METRICS;
	KUNIT_EXPECT_EQ(test, damos_validate_scheme(s), -EINVAL);
	g->metric = DAMOS_QUOTA_SOME_MEM_PSI_US;
	KUNIT_EXPECT_EQ(test, damos_validate_scheme(s), 0);

	f = damos_new_filter(DAMOS_FILTER_TYPE_ANON, true);
	KUNIT_ASSERT_NOT_NULL(test, f);
	damos_add_filter(s, f);
	KUNIT_EXPECT_EQ(test, damos_validate_scheme(s), 0);
	f->type = NR_DAMOS_FILTER_TYPES;
	KUNIT_EXPECT_EQ(test, damos_validate_scheme(s), -EINVAL);
}

/* === Filters and patterns === */

static void damos_test_filter_out_folio(struct kunit *test)
{
	struct damos *s = damos_test_lone_scheme(test, NULL);
	struct folio *anon = kunit_kzalloc(test, sizeof(*anon), GFP_KERNEL);
	struct folio *file = kunit_kzalloc(test, sizeof(*file), GFP_KERNEL);
	struct damos_filter *f;

	KUNIT_ASSERT_NOT_NULL(test, anon);
	KUNIT_ASSERT_NOT_NULL(test, file);
	/* folio_test_anon() only looks at the tag in the mapping pointer. */
	anon->mapping = (struct address_space *)PAGE_MAPPING_ANON;

	KUNIT_EXPECT_FALSE(test, damos_filter_out_folio(s, anon));
	KUNIT_EXPECT_FALSE(test, damos_filter_out_folio(s, file));

	f = damos_new_filter(DAMOS_FILTER_TYPE_ANON, true);
	KUNIT_ASSERT_NOT_NULL(test, f);
	damos_add_filter(s, f);
	KUNIT_EXPECT_TRUE(test, damos_filter_out_folio(s, anon));
	KUNIT_EXPECT_FALSE(test, damos_filter_out_folio(s, file));

	f->matching = false;
	KUNIT_EXPECT_FALSE(test, damos_filter_out_folio(s, anon));
	KUNIT_EXPECT_TRUE(test, damos_filter_out_folio(s, file));

	f = damos_new_filter(DAMOS_FILTER_TYPE_ANON, true);
	KUNIT_ASSERT_NOT_NULL(test, f);
	damos_add_filter(s, f);
	KUNIT_EXPECT_TRUE(test, damos_filter_out_folio(s, anon));
	KUNIT_EXPECT_TRUE(test, damos_filter_out_folio(s, file));

	damos_destroy_filter(f);
	KUNIT_EXPECT_FALSE(test, damos_filter_out_folio(s, anon));
}

static void damos_test_pattern_matches(struct kunit *test)
{
	struct damon_ctx *ctx = damos_test_ctx(test);
	struct damos *s = damos_test_lone_scheme(test, NULL);
	struct damon_region r = {
		.ar = { .start = 0, .end = 2 * PAGE_SIZE },
		.nr_accesses = 5,
		.age = 10,
	};

	s->pattern = (struct damos_access_pattern) {
		.min_sz_region = 2 * PAGE_SIZE,
		.max_sz_region = 2 * PAGE_SIZE,
		.min_nr_accesses = 5,
		.max_nr_accesses = 6,
		.min_age_region = 9,
		.max_age_region = 10,
	};
	KUNIT_EXPECT_TRUE(test, damos_pattern_matches(ctx, &r, s));
	r.ar.end++;
	KUNIT_EXPECT_FALSE(test, damos_pattern_matches(ctx, &r, s));
	r.ar.end -= 2;
	KUNIT_EXPECT_FALSE(test, damos_pattern_matches(ctx, &r, s));
	r.ar.end++;
	r.nr_accesses = 4;
	KUNIT_EXPECT_FALSE(test, damos_pattern_matches(ctx, &r, s));
	r.nr_accesses = 7;
	KUNIT_EXPECT_FALSE(test, damos_pattern_matches(ctx, &r, s));
	r.nr_accesses = 6;
	KUNIT_EXPECT_TRUE(test, damos_pattern_matches(ctx, &r, s));
	r.age = 8;
	KUNIT_EXPECT_FALSE(test, damos_pattern_matches(ctx, &r, s));
	r.age = 11;
	KUNIT_EXPECT_FALSE(test, damos_pattern_matches(ctx, &r, s));

	/* The oldest age matches, unless the minimum says "never". */
	r.age = UINT_MAX;
	s->pattern.max_age_region = UINT_MAX;
	s->pattern.min_age_region = UINT_MAX - 1;
	KUNIT_EXPECT_TRUE(test, damos_pattern_matches(ctx, &r, s));
	s->pattern.min_age_region = UINT_MAX;
	KUNIT_EXPECT_FALSE(test, damos_pattern_matches(ctx, &r, s));
}

/* === Quota arithmetic === */

static void damos_test_mul_div(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, damos_mul_div(10, 3, 4), 7ULL);
	KUNIT_EXPECT_EQ(test, damos_mul_div(1ULL << 40, 1ULL << 40, 1ULL << 30),
			1ULL << 50);
	KUNIT_EXPECT_EQ(test, damos_mul_div(U64_MAX, 3, 4),
			13835058055282163711ULL);
	KUNIT_EXPECT_EQ(test, damos_mul_div(U64_MAX, U64_MAX, U64_MAX),
			U64_MAX);
	KUNIT_EXPECT_EQ(test, damos_mul_div(U64_MAX, 2, 1), U64_MAX);
	KUNIT_EXPECT_EQ(test, damos_mul_div(1, 1, 0), U64_MAX);
	KUNIT_EXPECT_EQ(test, damos_mul_div(0, U64_MAX, 1), 0ULL);
}

static void damos_test_min_score(struct kunit *test)
{
	unsigned long hist[DAMOS_MAX_SCORE + 1] = {};

	hist[DAMOS_MAX_SCORE] = 10;
	hist[50] = 100;
	hist[0] = 1000;
	KUNIT_EXPECT_EQ(test, damos_quota_min_score(hist, 10), 99U);
	KUNIT_EXPECT_EQ(test, damos_quota_min_score(hist, 11), 50U);
	KUNIT_EXPECT_EQ(test, damos_quota_min_score(hist, 110), 50U);
	KUNIT_EXPECT_EQ(test, damos_quota_min_score(hist, 111), 0U);
	hist[1] = ULONG_MAX;
	KUNIT_EXPECT_EQ(test, damos_quota_min_score(hist, ULONG_MAX), 1U);
}

static void damos_test_update_quota_sz(struct kunit *test)
{
	struct damos *s = damos_test_lone_scheme(test, NULL);
	struct damos_quota *q = &s->quota;
	unsigned long window = msecs_to_jiffies(DAMOS_TEST_RESET_MS);
	unsigned long now = 12345;

	/* Without any quota, nothing is limited or charged. */
	q->charged_sz = 77;
	damos_update_quota(q, now);
	KUNIT_EXPECT_EQ(test, q->esz, 0UL);
	KUNIT_EXPECT_EQ(test, q->charged_sz, 0UL);

	q->sz = 100000;
	q->reset_interval_ms = DAMOS_TEST_RESET_MS;
	damos_update_quota(q, now);
	KUNIT_EXPECT_EQ(test, q->esz, 100000UL);
	KUNIT_EXPECT_EQ(test, q->charged_from, now);

	/* The window runs until reset_interval_ms passed. */
	q->charged_sz = 4096;
	q->sz = 50000;
	damos_update_quota(q, now + window - 1);
	KUNIT_EXPECT_EQ(test, q->esz, 100000UL);
	KUNIT_EXPECT_EQ(test, q->charged_sz, 4096UL);
	damos_update_quota(q, now + window);
	KUNIT_EXPECT_EQ(test, q->esz, 50000UL);
	KUNIT_EXPECT_EQ(test, q->charged_sz, 0UL);
	KUNIT_EXPECT_EQ(test, q->charged_from, now + window);
}

/*
 * A charge window of 2^32 ms or more lasts as long as a jiffies deadline can
 * (msecs_to_jiffies() takes 32 bits: 2^32 + 1 ms was one millisecond).
 */
static void damos_test_update_quota_huge_window(struct kunit *test)
{
	struct damos *s = damos_test_lone_scheme(test, NULL);
	struct damos_quota *q = &s->quota;
	unsigned long now = 12345;

	q->sz = 100000;
	q->reset_interval_ms = (1UL << 32) + 1;
	damos_update_quota(q, now);
	KUNIT_EXPECT_EQ(test, q->charged_from, now);
	q->charged_sz = 4096;
	damos_update_quota(q, now + msecs_to_jiffies(1000));
	KUNIT_EXPECT_EQ(test, q->charged_sz, 4096UL);
	damos_update_quota(q, now + MAX_JIFFY_OFFSET - 1);
	KUNIT_EXPECT_EQ(test, q->charged_sz, 4096UL);
	KUNIT_EXPECT_EQ(test, q->charged_from, now);
}

static void damos_test_update_quota_ms(struct kunit *test)
{
	struct damos *s = damos_test_lone_scheme(test, NULL);
	struct damos_quota *q = &s->quota;
	unsigned long window = msecs_to_jiffies(DAMOS_TEST_RESET_MS);
	unsigned long now = 0;

	q->ms = 10;
	q->reset_interval_ms = DAMOS_TEST_RESET_MS;
	/* Before any measurement: 1 GiB/s, i.e. 1,073,741 bytes per ms. */
	damos_update_quota(q, now);
	KUNIT_EXPECT_EQ(test, q->esz, 10737410UL);

	/* 1,000,000 bytes in 10 ms: 100,000 bytes per ms. */
	damos_quota_record_throughput(q, 1000000, 10 * NSEC_PER_MSEC);
	now += window;
	damos_update_quota(q, now);
	KUNIT_EXPECT_EQ(test, q->esz, 1000000UL);

	/* The stricter of the size and the time quota. */
	q->sz = 300000;
	now += window;
	damos_update_quota(q, now);
	KUNIT_EXPECT_EQ(test, q->esz, 300000UL);
	q->sz = 0;

	/* The history is halved beyond 8 time quotas, keeping the ratio. */
	damos_quota_record_throughput(q, 9000000, 90 * NSEC_PER_MSEC);
	now += window;
	damos_update_quota(q, now);
	KUNIT_EXPECT_EQ(test, q->total_charged_sz, 5000000UL);
	KUNIT_EXPECT_EQ(test, q->total_charged_ns, 50 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, q->esz, 1000000UL);

	/* A hopelessly slow action still gets a page per window. */
	q->total_charged_sz = 1;
	q->total_charged_ns = U64_MAX;
	now += window;
	damos_update_quota(q, now);
	KUNIT_EXPECT_EQ(test, q->esz, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, q->total_charged_sz, 1UL);

	/* Huge quotas and throughputs saturate instead of overflowing. */
	q->ms = ULONG_MAX;
	q->total_charged_sz = ULONG_MAX;
	q->total_charged_ns = 1;
	now += window;
	damos_update_quota(q, now);
	KUNIT_EXPECT_EQ(test, q->esz, ULONG_MAX);
	/* A sample too big to add pushes the old history out. */
	damos_quota_record_throughput(q, ULONG_MAX, U64_MAX);
	KUNIT_EXPECT_EQ(test, q->total_charged_sz, ULONG_MAX);
	KUNIT_EXPECT_EQ(test, q->total_charged_ns, U64_MAX);
}

/* === Auto-tuning === */

static void damos_test_tune_step(struct kunit *test)
{
	const u64 x = 10000000000ULL;

	KUNIT_EXPECT_EQ(test, damos_tune_esz_bp(0, 0, U64_MAX),
			DAMOS_TEST_MIN_BP);
	KUNIT_EXPECT_EQ(test, damos_tune_esz_bp(0, U64_MAX, U64_MAX),
			DAMOS_TEST_MIN_BP);
	/* Far below the goal: doubling. */
	KUNIT_EXPECT_EQ(test, damos_tune_esz_bp(x, 0, U64_MAX), 2 * x);
	/* Half way: +50%. */
	KUNIT_EXPECT_EQ(test, damos_tune_esz_bp(x, 5000, U64_MAX),
			x + x / 2);
	/* Just below: at least a page more. */
	KUNIT_EXPECT_EQ(test, damos_tune_esz_bp(x, 9999, U64_MAX),
			x + DAMOS_TEST_MIN_BP);
	KUNIT_EXPECT_EQ(test, damos_tune_esz_bp(x, 10000, U64_MAX), x);
	/* Twice the goal: halving. */
	KUNIT_EXPECT_EQ(test, damos_tune_esz_bp(x, 20000, U64_MAX), x / 2);
	KUNIT_EXPECT_EQ(test, damos_tune_esz_bp(x, U64_MAX, U64_MAX),
			DAMOS_TEST_MIN_BP);
	/* Bounds. */
	KUNIT_EXPECT_EQ(test, damos_tune_esz_bp(x, 0, x + 1), x + 1);
	KUNIT_EXPECT_EQ(test, damos_tune_esz_bp(x, 0, 1), DAMOS_TEST_MIN_BP);
	KUNIT_EXPECT_EQ(test, damos_tune_esz_bp(U64_MAX, 0, U64_MAX),
			U64_MAX / 2);
	KUNIT_EXPECT_EQ(test, damos_tune_esz_bp(U64_MAX / 2, 0, U64_MAX),
			U64_MAX / 2);
}

static void damos_test_autotune_feedback(struct kunit *test)
{
	struct damos_quota in = {
		.sz = SZ_1M,
		.reset_interval_ms = DAMOS_TEST_RESET_MS,
	};
	struct damos *s = damos_test_lone_scheme(test, &in);
	struct damos_quota *q = &s->quota;
	unsigned long window = msecs_to_jiffies(DAMOS_TEST_RESET_MS);
	struct damos_quota_goal *g;
	unsigned long now = 0, expect = PAGE_SIZE;
	int i;

	g = damos_new_quota_goal(DAMOS_QUOTA_USER_INPUT, 100);
	KUNIT_ASSERT_NOT_NULL(test, g);
	damos_add_quota_goal(q, g);

	/* Nothing achieved: doubles each window from a page to the sz cap. */
	g->current_value = 0;
	for (i = 0; i < 12; i++) {
		damos_update_quota(q, now);
		KUNIT_EXPECT_EQ(test, q->esz, expect);
		expect = min(expect * 2, (unsigned long)SZ_1M);
		now += window;
	}
	KUNIT_EXPECT_EQ(test, q->esz_bp, (u64)SZ_1M * DAMOS_QUOTA_BP);

	/* On target: unchanged.  Twice the target: halved. */
	g->current_value = 100;
	damos_update_quota(q, now);
	KUNIT_EXPECT_EQ(test, q->esz, (unsigned long)SZ_1M);
	now += window;
	g->current_value = 200;
	damos_update_quota(q, now);
	KUNIT_EXPECT_EQ(test, q->esz, (unsigned long)SZ_512K);
	now += window;

	/* Extremes stay within [one page, the size quota]. */
	g->current_value = ULONG_MAX;
	g->target_value = 1;
	damos_update_quota(q, now);
	KUNIT_EXPECT_EQ(test, q->esz, PAGE_SIZE);
	now += window;
	g->target_value = 0;
	damos_update_quota(q, now);
	KUNIT_EXPECT_EQ(test, q->esz, PAGE_SIZE);
	now += window;
	/* A zero target reached exactly keeps the quota. */
	g->current_value = 0;
	damos_update_quota(q, now);
	KUNIT_EXPECT_EQ(test, q->esz, PAGE_SIZE);
	now += window;
	g->target_value = ULONG_MAX;
	for (i = 0; i < 64; i++) {
		damos_update_quota(q, now);
		KUNIT_EXPECT_GE(test, q->esz, PAGE_SIZE);
		KUNIT_EXPECT_LE(test, q->esz, (unsigned long)SZ_1M);
		now += window;
	}
	KUNIT_EXPECT_EQ(test, q->esz, (unsigned long)SZ_1M);

	/* With the goal the only quota, growth stops at the headroom bound. */
	q->sz = 0;
	for (i = 0; i < 64; i++) {
		damos_update_quota(q, now);
		now += window;
	}
	KUNIT_EXPECT_EQ(test, q->esz_bp, U64_MAX / 2);
	KUNIT_EXPECT_EQ(test, q->esz,
			(unsigned long)min_t(u64, U64_MAX / 2 / DAMOS_QUOTA_BP,
					     ULONG_MAX));
}

static void damos_test_autotune_psi(struct kunit *test)
{
	struct damos_quota in = { .reset_interval_ms = DAMOS_TEST_RESET_MS };
	struct damos *s = damos_test_lone_scheme(test, &in);
	unsigned long window = msecs_to_jiffies(DAMOS_TEST_RESET_MS);
	struct damos_quota_goal *g;

	/* No system stalls 2^64 microseconds in a second: always below. */
	g = damos_new_quota_goal(DAMOS_QUOTA_SOME_MEM_PSI_US, ULONG_MAX);
	KUNIT_ASSERT_NOT_NULL(test, g);
	damos_add_quota_goal(&s->quota, g);
	damos_update_quota(&s->quota, 0);
	KUNIT_EXPECT_EQ(test, s->quota.esz, PAGE_SIZE);
	damos_update_quota(&s->quota, window);
	KUNIT_EXPECT_EQ(test, s->quota.esz, 2 * PAGE_SIZE);
	damos_update_quota(&s->quota, 2 * window);
	KUNIT_EXPECT_EQ(test, s->quota.esz, 4 * PAGE_SIZE);
}

/* === Applying: quotas, resumption, priorities, statistics === */

static void damos_test_size_quota_never_exceeded(struct kunit *test)
{
	struct damon_ctx *ctx = damos_test_ctx(test);
	struct damos_quota in = {
		.sz = 100000,	/* 24 pages and a bit */
		.reset_interval_ms = DAMOS_TEST_RESET_MS,
	};
	struct damos *s;
	unsigned long before;
	int w;

	damos_test_target(test, ctx, 0, 10, SZ_64K);
	s = damos_test_scheme(test, ctx, DAMOS_PAGEOUT, &in);
	for (w = 0; w < 20; w++) {
		before = s->stat.sz_tried;
		damos_apply_schemes(ctx);
		/* Another aggregation in the same window finds nothing left. */
		damos_apply_schemes(ctx);
		KUNIT_EXPECT_EQ(test, s->stat.sz_tried - before,
				24 * PAGE_SIZE);
		KUNIT_EXPECT_EQ(test, s->quota.charged_sz, 24 * PAGE_SIZE);
		KUNIT_EXPECT_EQ(test, s->stat.qt_exceeds, (unsigned long)w + 1);
		KUNIT_EXPECT_EQ(test, s->quota.nr_exceeded,
				(unsigned long)w + 1);
		damos_test_next_window();
	}
	KUNIT_EXPECT_EQ(test, s->stat.sz_tried, 20 * 24 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, s->stat.sz_applied, 20 * 24 * PAGE_SIZE);
}

/*
 * What the action found unprepared and only prepared (pageout: pages never
 * made idle) is neither charged to the size quota nor counted as tried, and
 * nothing of it counts as applied.  Without a time quota, a window prepares
 * at most the size quota's worth of bytes: with three quarters of each
 * region unprepared, the second region is cut at the page where its
 * prepared bytes would pass the 16 KiB left (5 pages: 15 KiB of them).  The
 * budget to act is not spent, so the walk goes on to the rest of that
 * region, where the action stops at once (it would have to prepare): not
 * counted as tried, and no quota exceed.
 */
static void damos_test_prepared_not_tried(struct kunit *test)
{
	struct damon_ctx *ctx = damos_test_ctx(test);
	struct damos_quota in = {
		.sz = SZ_64K,
		.reset_interval_ms = DAMOS_TEST_RESET_MS,
	};
	struct damon_fake_applied rec;
	struct damos *s;

	damos_test_target(test, ctx, 0, 2, SZ_64K);
	s = damos_test_scheme(test, ctx, DAMOS_PAGEOUT, &in);
	damon_fake_ops_set_unprepared_permil(750);
	damos_apply_schemes(ctx);
	KUNIT_ASSERT_EQ(test, damon_fake_ops_nr_applied(), 3U);
	rec = damos_test_applied(test, 1);
	KUNIT_EXPECT_EQ(test, rec.end, (unsigned long)SZ_64K + 5 * SZ_4K);
	rec = damos_test_applied(test, 2);
	KUNIT_EXPECT_EQ(test, rec.start, (unsigned long)SZ_64K + 5 * SZ_4K);
	KUNIT_EXPECT_EQ(test, rec.end, rec.start);
	KUNIT_EXPECT_EQ(test, s->quota.charged_sz,
			(unsigned long)SZ_16K + 5 * SZ_1K);
	KUNIT_EXPECT_EQ(test, s->quota.prepared_sz,
			(unsigned long)SZ_64K - SZ_16K + 15 * SZ_1K);
	KUNIT_EXPECT_EQ(test, s->stat.sz_tried, (unsigned long)SZ_16K + 5 * SZ_1K);
	KUNIT_EXPECT_EQ(test, s->stat.sz_applied,
			(unsigned long)SZ_16K + 5 * SZ_1K);
	KUNIT_EXPECT_EQ(test, s->stat.nr_tried, 2UL);
	KUNIT_EXPECT_EQ(test, s->stat.qt_exceeds, 0UL);
}

/*
 * An action charges the quota with what it reports having worked on, not
 * with the region size: regions that are three-quarters free memory let a
 * window cover four times the quota in region bytes.
 */
static void damos_test_quota_charges_tried(struct kunit *test)
{
	struct damon_ctx *ctx = damos_test_ctx(test);
	struct damos_quota in = {
		.sz = SZ_64K,
		.reset_interval_ms = DAMOS_TEST_RESET_MS,
	};
	struct damon_fake_applied rec;
	struct damos *s;

	damos_test_target(test, ctx, 0, 8, SZ_64K);
	s = damos_test_scheme(test, ctx, DAMOS_PAGEOUT, &in);
	damon_fake_ops_set_tried_permil(250);
	damon_fake_ops_set_applied_permil(500);
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, damon_fake_ops_nr_applied(), 4U);
	rec = damos_test_applied(test, 3);
	KUNIT_EXPECT_EQ(test, rec.end, 4UL * SZ_64K);
	KUNIT_EXPECT_EQ(test, s->quota.charged_sz, (unsigned long)SZ_64K);
	KUNIT_EXPECT_EQ(test, s->stat.sz_tried, (unsigned long)SZ_64K);
	/* Never more applied than tried. */
	KUNIT_EXPECT_EQ(test, s->stat.sz_applied, (unsigned long)SZ_64K);
	KUNIT_EXPECT_EQ(test, s->stat.qt_exceeds, 1UL);

	/* The next window goes on from there. */
	damos_test_next_window();
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, damon_fake_ops_nr_applied(), 8U);
	rec = damos_test_applied(test, 4);
	KUNIT_EXPECT_EQ(test, rec.start, 4UL * SZ_64K);
	KUNIT_EXPECT_EQ(test, s->stat.sz_tried, 2UL * SZ_64K);
}

/*
 * Where the quota runs out inside a region, the action stops there by
 * itself and the next window resumes at that very address.
 */
static void damos_test_quota_stops_inside_region(struct kunit *test)
{
	struct damon_ctx *ctx = damos_test_ctx(test);
	struct damos_quota in = {
		.sz = 6 * PAGE_SIZE,
		.reset_interval_ms = DAMOS_TEST_RESET_MS,
	};
	struct damon_fake_applied rec;
	struct damon_target *t;
	struct damos *s;

	t = damos_test_target(test, ctx, 0, 2, 16 * PAGE_SIZE);
	damos_test_region(t, 0)->age = 7;
	s = damos_test_scheme(test, ctx, DAMOS_PAGEOUT, &in);
	damon_fake_ops_set_tried_permil(500);
	damos_apply_schemes(ctx);
	/* 6 pages tried in the first 12 of the first region. */
	KUNIT_EXPECT_EQ(test, damon_fake_ops_nr_applied(), 1U);
	rec = damos_test_applied(test, 0);
	KUNIT_EXPECT_EQ(test, rec.start, 0UL);
	KUNIT_EXPECT_EQ(test, rec.end, 12 * PAGE_SIZE);
	/* Only the part acted on starts aging afresh. */
	KUNIT_EXPECT_EQ(test, damos_test_region(t, 0)->ar.end, 12 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, damos_test_region(t, 0)->age, 0U);
	KUNIT_EXPECT_EQ(test, damos_test_region(t, 1)->age, 7U);
	KUNIT_EXPECT_EQ(test, s->quota.charged_sz, 6 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, s->stat.qt_exceeds, 1UL);

	/* 2 pages tried of the rest, then 4 of the second region. */
	damos_test_next_window();
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, damon_fake_ops_nr_applied(), 3U);
	rec = damos_test_applied(test, 1);
	KUNIT_EXPECT_EQ(test, rec.start, 12 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, rec.end, 16 * PAGE_SIZE);
	rec = damos_test_applied(test, 2);
	KUNIT_EXPECT_EQ(test, rec.start, 16 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, rec.end, 24 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, s->stat.sz_tried, 12 * PAGE_SIZE);
}

/* A quota set on a scheme that had none limits its very next application. */
static void damos_test_quota_set_later(struct kunit *test)
{
	struct damon_ctx *ctx = damos_test_ctx(test);
	struct damos *s;

	damos_test_target(test, ctx, 0, 4, SZ_64K);
	s = damos_test_scheme(test, ctx, DAMOS_PAGEOUT, NULL);
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, s->stat.sz_tried, 4UL * SZ_64K);
	KUNIT_EXPECT_EQ(test, s->quota.esz, 0UL);

	s->quota.sz = 2 * PAGE_SIZE;
	s->quota.reset_interval_ms = DAMOS_TEST_RESET_MS;
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, s->stat.sz_tried, 4UL * SZ_64K + 2 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, s->quota.esz, 2 * PAGE_SIZE);
}

/*
 * With the regions merged back into one between windows (as adaptation
 * would), each window must continue exactly where the last one stopped,
 * wrapping around at the end.
 */
static void damos_test_resumption_is_contiguous(struct kunit *test)
{
	struct damon_ctx *ctx = damos_test_ctx(test);
	struct damos_quota in = {
		.sz = 100000,
		.reset_interval_ms = DAMOS_TEST_RESET_MS,
	};
	const unsigned long end = 10 * SZ_64K;
	struct damon_fake_applied rec;
	unsigned long expect_start = 0, sz;
	struct damon_target *t;
	struct damon_region *r;
	unsigned int i, n;
	int w;

	t = damos_test_target(test, ctx, 0, 1, end);
	damos_test_scheme(test, ctx, DAMOS_PAGEOUT, &in);
	for (w = 0; w < 9; w++) {
		damon_destroy_regions_of(t);
		r = damon_new_region(0, end);
		KUNIT_ASSERT_NOT_NULL(test, r);
		damon_add_region(r, t);
		damos_apply_schemes(ctx);
		damos_test_next_window();
	}

	n = damon_fake_ops_nr_applied();
	KUNIT_ASSERT_LE(test, n, DAMON_FAKE_MAX_APPLIED);
	/* 9 windows of 24 pages over 160 pages: one wrap, in window 7. */
	KUNIT_EXPECT_EQ(test, n, 10U);
	sz = 0;
	for (i = 0; i < n; i++) {
		rec = damos_test_applied(test, i);
		KUNIT_EXPECT_EQ(test, rec.start, expect_start);
		sz += rec.end - rec.start;
		expect_start = rec.end == end ? 0 : rec.end;
	}
	KUNIT_EXPECT_EQ(test, sz, 9 * 24 * PAGE_SIZE);
	rec = damos_test_applied(test, 6);
	KUNIT_EXPECT_EQ(test, rec.start, 6 * 24 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, rec.end, end);
	rec = damos_test_applied(test, 7);
	KUNIT_EXPECT_EQ(test, rec.start, 0UL);
	KUNIT_EXPECT_EQ(test, rec.end, 8 * PAGE_SIZE);
}

/* Over several targets, every byte is visited once per full round. */
static void damos_test_resumption_covers_all(struct kunit *test)
{
	struct damon_ctx *ctx = damos_test_ctx(test);
	struct damos_quota in = {
		.sz = 7 * PAGE_SIZE,
		.reset_interval_ms = DAMOS_TEST_RESET_MS,
	};
	const unsigned long base[2] = { 0, SZ_1M };
	unsigned long *visits;
	struct damon_fake_applied rec;
	unsigned long addr;
	unsigned int i, n, nr_pages = 2 * 5 * 3;
	u64 now_ns;
	int w, tgt;

	visits = kunit_kcalloc(test, nr_pages, sizeof(*visits), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, visits);
	for (tgt = 0; tgt < 2; tgt++)
		damos_test_target(test, ctx, base[tgt], 5, 3 * PAGE_SIZE);
	damos_test_scheme(test, ctx, DAMOS_PAGEOUT, &in);

	/* 30 pages at 7 a window: 30 windows make exactly 7 full rounds. */
	for (w = 0; w < 30; w++) {
		damos_apply_schemes(ctx);
		damos_test_next_window();
		n = damon_fake_ops_nr_applied();
		KUNIT_ASSERT_LE(test, n, DAMON_FAKE_MAX_APPLIED);
		for (i = 0; i < n; i++) {
			rec = damos_test_applied(test, i);
			for (addr = rec.start; addr < rec.end;
			     addr += PAGE_SIZE) {
				tgt = addr >= SZ_1M;
				visits[tgt * 15 + (addr - base[tgt]) /
				       PAGE_SIZE]++;
			}
		}
		/* Forget the records, not the time. */
		now_ns = damon_fake_ops_clock_ns();
		damon_fake_ops_reset();
		damon_fake_ops_advance_clock_ns(now_ns);
	}
	for (i = 0; i < nr_pages; i++)
		KUNIT_EXPECT_EQ_MSG(test, visits[i], 7UL, "page %u", i);
}

#if IS_ENABLED(CONFIG_FAILSLAB) && IS_ENABLED(CONFIG_FAULT_INJECTION_DEBUG_FS)
/*
 * failslab leaves allocations that may sleep alone unless told otherwise
 * (its "ignore-gfp-wait" knob, a bool kept in the debugfs file's inode).
 */
static bool *damos_test_failslab_ignore_gfp_wait(void)
{
	struct dentry *dir, *knob;
	bool *ignore = NULL;

	dir = debugfs_lookup("failslab", NULL);
	if (IS_ERR_OR_NULL(dir))
		return NULL;
	knob = debugfs_lookup("ignore-gfp-wait", dir);
	if (!IS_ERR_OR_NULL(knob)) {
		ignore = d_inode(knob)->i_private;
		dput(knob);
	}
	dput(dir);
	return ignore;
}

static void damos_test_no_more_failures(void)
{
	current->fail_nth = 0;
}

static void damos_test_stop_failing(void *ignore)
{
	damos_test_no_more_failures();
	*(bool *)ignore = true;
}

/* Makes the @nth slab allocation of the test's thread from now on fail. */
static void damos_test_fail_nth_alloc(struct kunit *test, unsigned int nth)
{
	bool *ignore = damos_test_failslab_ignore_gfp_wait();

	if (!ignore)
		kunit_skip(test, "failslab has no ignore-gfp-wait knob");
	*ignore = false;
	damos_test_defer(test, damos_test_stop_failing, ignore);
	current->fail_nth = nth;
}
#else
static void damos_test_no_more_failures(void)
{
}

static void damos_test_fail_nth_alloc(struct kunit *test, unsigned int nth)
{
	kunit_skip(test, "needs CONFIG_FAILSLAB and CONFIG_FAULT_INJECTION_DEBUG_FS");
}
#endif

/*
 * The walk resumes inside a region and cuts it there; with no memory for
 * the cut, the region waits for a later window, and the walk does not step
 * past the last region of the target.
 */
static void damos_test_resume_cut_fails(struct kunit *test)
{
	struct damon_ctx *ctx = damos_test_ctx(test);
	struct damos_quota in = {
		.sz = 4 * PAGE_SIZE,
		.reset_interval_ms = DAMOS_TEST_RESET_MS,
	};
	const unsigned long end = 16 * PAGE_SIZE;
	struct damon_fake_applied rec;
	struct damon_target *t;
	struct damon_region *r;

	t = damos_test_target(test, ctx, 0, 1, end);
	damos_test_scheme(test, ctx, DAMOS_PAGEOUT, &in);
	damos_apply_schemes(ctx);
	damos_test_next_window();
	KUNIT_ASSERT_EQ(test, damon_fake_ops_nr_applied(), 1U);
	/* The regions merged again: the next window resumes inside one. */
	damon_destroy_regions_of(t);
	r = damon_new_region(0, end);
	KUNIT_ASSERT_NOT_NULL(test, r);
	damon_add_region(r, t);

	damos_test_fail_nth_alloc(test, 1);
	damos_apply_schemes(ctx);
	damos_test_no_more_failures();
	KUNIT_EXPECT_EQ(test, damon_fake_ops_nr_applied(), 1U);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 1U);
	KUNIT_EXPECT_EQ(test, r->ar.start, 0UL);
	KUNIT_EXPECT_EQ(test, r->ar.end, end);

	/* With memory again, it resumes where it stopped. */
	damos_test_next_window();
	damos_apply_schemes(ctx);
	KUNIT_ASSERT_EQ(test, damon_fake_ops_nr_applied(), 2U);
	rec = damos_test_applied(test, 1);
	KUNIT_EXPECT_EQ(test, rec.start, 4 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, rec.end, 8 * PAGE_SIZE);
}

static int damos_test_score_by_age(const struct damon_region *r,
				   const struct damos *s)
{
	return r->age;
}

/*
 * A pageout scheme with quota @quota over one target of @nr 64 KiB regions
 * aged @ages, scored by age.  The target goes to *@tp.
 */
static struct damos *damos_test_aged(struct kunit *test, struct damon_ctx *ctx,
				     const unsigned int *ages, unsigned int nr,
				     const struct damos_quota *quota,
				     struct damon_target **tp)
{
	unsigned int i;

	*tp = damos_test_target(test, ctx, 0, nr, SZ_64K);
	for (i = 0; i < nr; i++)
		damos_test_region(*tp, i)->age = ages[i];
	damon_fake_ops_set_score_fn(damos_test_score_by_age);
	return damos_test_scheme(test, ctx, DAMOS_PAGEOUT, quota);
}

static void damos_test_highest_score_first(struct kunit *test)
{
	static const unsigned int ages[] = { 10, 40, 20, 30 };
	struct damon_ctx *ctx = damos_test_ctx(test);
	struct damos_quota in = {
		.sz = 2 * SZ_64K,
		.reset_interval_ms = DAMOS_TEST_RESET_MS,
	};
	struct damon_fake_applied rec;
	struct damon_target *t;
	struct damos *s;

	s = damos_test_aged(test, ctx, ages, ARRAY_SIZE(ages), &in, &t);

	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, s->quota.min_score, 30U);
	KUNIT_ASSERT_EQ(test, damon_fake_ops_nr_applied(), 2U);
	rec = damos_test_applied(test, 0);
	KUNIT_EXPECT_EQ(test, rec.start, (unsigned long)SZ_64K);
	KUNIT_EXPECT_EQ(test, rec.age, 40U);
	rec = damos_test_applied(test, 1);
	KUNIT_EXPECT_EQ(test, rec.start, 3UL * SZ_64K);
	KUNIT_EXPECT_EQ(test, rec.age, 30U);
	/* Acted on: they start aging afresh; the others keep their age. */
	KUNIT_EXPECT_EQ(test, damos_test_region(t, 1)->age, 0U);
	KUNIT_EXPECT_EQ(test, damos_test_region(t, 3)->age, 0U);
	KUNIT_EXPECT_EQ(test, damos_test_region(t, 2)->age, 20U);

	/* Out-of-range scores from the operations are clamped. */
	damos_test_region(t, 1)->age = 40;
	damos_test_region(t, 3)->age = 30;
	damos_test_region(t, 0)->age = 1000;
	damos_test_next_window();
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, s->quota.min_score, 40U);
}

/*
 * A threshold-scored region met first must not take the quota that a
 * higher-scored region met later needs: the threshold regions only get
 * what the higher ones leave.
 */
static void damos_test_higher_score_reserved(struct kunit *test)
{
	static const unsigned int ages[] = { 50, 90, 50 };
	struct damon_ctx *ctx = damos_test_ctx(test);
	struct damos_quota in = {
		.sz = SZ_64K + SZ_32K,
		.reset_interval_ms = DAMOS_TEST_RESET_MS,
	};
	struct damon_fake_applied rec;
	struct damon_target *t;
	struct damos *s;

	s = damos_test_aged(test, ctx, ages, ARRAY_SIZE(ages), &in, &t);

	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, s->quota.min_score, 50U);
	KUNIT_ASSERT_EQ(test, damon_fake_ops_nr_applied(), 2U);
	rec = damos_test_applied(test, 0);
	KUNIT_EXPECT_EQ(test, rec.start, 0UL);
	KUNIT_EXPECT_EQ(test, rec.end, (unsigned long)SZ_32K);
	rec = damos_test_applied(test, 1);
	KUNIT_EXPECT_EQ(test, rec.start, (unsigned long)SZ_64K);
	KUNIT_EXPECT_EQ(test, rec.end, 2UL * SZ_64K);
	KUNIT_EXPECT_EQ(test, s->quota.charged_sz, (unsigned long)in.sz);
	KUNIT_EXPECT_EQ(test, s->quota.charge_addr_from, 2UL * SZ_64K);
	KUNIT_EXPECT_EQ(test, s->stat.qt_exceeds, 1UL);
}

/*
 * Quota that the regions at and above the threshold leave unused stays
 * with them while they could still be prepared: the older region (the only
 * one above the threshold) lets the action try a quarter of it, and the
 * younger one waits for the next window.
 */
static void damos_test_leftover_stays_above(struct kunit *test)
{
	static const unsigned int ages[] = { 90, 10 };
	struct damon_ctx *ctx = damos_test_ctx(test);
	struct damos_quota in = {
		.sz = SZ_64K,
		.reset_interval_ms = DAMOS_TEST_RESET_MS,
	};
	struct damon_target *t;
	struct damos *s;

	s = damos_test_aged(test, ctx, ages, ARRAY_SIZE(ages), &in, &t);
	damon_fake_ops_set_tried_permil(250);
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, s->quota.min_score, 90U);
	KUNIT_ASSERT_EQ(test, damon_fake_ops_nr_applied(), 1U);
	KUNIT_EXPECT_EQ(test, damos_test_applied(test, 0).age, 90U);
	KUNIT_EXPECT_EQ(test, s->quota.charged_sz, (unsigned long)SZ_16K);
	KUNIT_EXPECT_EQ(test, damos_test_region(t, 1)->age, 10U);
	KUNIT_EXPECT_EQ(test, s->stat.qt_exceeds, 0UL);
}

/*
 * Once the window may prepare no more, the quota left goes to the regions
 * below the threshold in a second walk.  The older region needs preparing
 * throughout: its first half uses up what a window may prepare (it then
 * starts aging afresh, scoring 0), and the action stops at once on the rest
 * in both walks.  The younger region was prepared before: acted on with the
 * whole size quota.
 */
static void damos_test_leftover_goes_below(struct kunit *test)
{
	static const unsigned int ages[] = { 90, 10 };
	struct damon_ctx *ctx = damos_test_ctx(test);
	struct damos_quota in = {
		.sz = SZ_32K,
		.reset_interval_ms = DAMOS_TEST_RESET_MS,
	};
	struct damon_fake_applied rec;
	struct damon_target *t;
	struct damos *s;

	s = damos_test_aged(test, ctx, ages, ARRAY_SIZE(ages), &in, &t);
	damon_fake_ops_set_unprepared_permil(1000);
	damon_fake_ops_set_prepared_from(SZ_64K);
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, s->quota.min_score, 90U);
	KUNIT_ASSERT_EQ(test, damon_fake_ops_nr_applied(), 4U);
	rec = damos_test_applied(test, 0);
	KUNIT_EXPECT_EQ(test, rec.start, 0UL);
	KUNIT_EXPECT_EQ(test, rec.end, (unsigned long)SZ_32K);
	rec = damos_test_applied(test, 1);
	KUNIT_EXPECT_EQ(test, rec.start, (unsigned long)SZ_32K);
	KUNIT_EXPECT_EQ(test, rec.end, rec.start);
	rec = damos_test_applied(test, 2);
	KUNIT_EXPECT_EQ(test, rec.start, (unsigned long)SZ_32K);
	KUNIT_EXPECT_EQ(test, rec.end, rec.start);
	rec = damos_test_applied(test, 3);
	KUNIT_EXPECT_EQ(test, rec.start, (unsigned long)SZ_64K);
	KUNIT_EXPECT_EQ(test, rec.end, (unsigned long)SZ_64K + SZ_32K);
	KUNIT_EXPECT_EQ(test, rec.age, 10U);
	KUNIT_EXPECT_EQ(test, s->quota.prepared_sz, (unsigned long)SZ_32K);
	KUNIT_EXPECT_EQ(test, s->quota.charged_sz, (unsigned long)SZ_32K);
	KUNIT_EXPECT_EQ(test, s->stat.nr_tried, 2UL);
	KUNIT_EXPECT_EQ(test, s->stat.sz_tried, (unsigned long)SZ_32K);
	KUNIT_EXPECT_EQ(test, s->stat.qt_exceeds, 1UL);
}

/*
 * Regions the operations score 0 (the action would achieve nothing there)
 * are skipped: not acted on, not counted as tried, not charged, with or
 * without a quota.
 */
static void damos_test_zero_score_skipped(struct kunit *test)
{
	static const unsigned int ages[] = { 0, 60, 0, 20 };
	struct damon_ctx *ctx = damos_test_ctx(test);
	struct damos_quota in = {
		.sz = 8 * SZ_64K,
		.reset_interval_ms = DAMOS_TEST_RESET_MS,
	};
	struct damon_fake_applied rec;
	struct damon_target *t;
	struct damos *s;

	s = damos_test_aged(test, ctx, ages, ARRAY_SIZE(ages), &in, &t);

	/* The quota covers everything: no threshold, still no 0 scores. */
	damos_apply_schemes(ctx);
	KUNIT_ASSERT_EQ(test, damon_fake_ops_nr_applied(), 2U);
	rec = damos_test_applied(test, 0);
	KUNIT_EXPECT_EQ(test, rec.start, (unsigned long)SZ_64K);
	rec = damos_test_applied(test, 1);
	KUNIT_EXPECT_EQ(test, rec.start, 3UL * SZ_64K);
	KUNIT_EXPECT_EQ(test, s->stat.sz_tried, 2UL * SZ_64K);
	KUNIT_EXPECT_EQ(test, s->stat.nr_tried, 2UL);
	KUNIT_EXPECT_EQ(test, s->quota.charged_sz, 2UL * SZ_64K);

	/* Without a quota either (ages restored: acting reset them). */
	KUNIT_EXPECT_EQ(test, damos_test_region(t, 1)->age, 0U);
	damos_test_region(t, 1)->age = 60;
	damos_test_region(t, 3)->age = 20;
	s->quota.sz = 0;
	damos_test_next_window();
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, damon_fake_ops_nr_applied(), 4U);
	KUNIT_EXPECT_EQ(test, s->stat.sz_tried, 4UL * SZ_64K);
}

/*
 * A: 1 MiB accessed in 10 of 20 samples; B: 64 KiB never accessed; both
 * 7 aggregations old.
 */
static void damos_test_generic_score(struct kunit *test)
{
	struct damon_ctx *ctx = damos_test_ctx(test);
	struct damos_quota in = {
		.sz = SZ_64K,
		.reset_interval_ms = DAMOS_TEST_RESET_MS,
	};
	struct damon_region *a, *b;
	struct damon_fake_applied rec;
	struct damon_target *t;
	struct damos *s;

	t = damos_test_target(test, ctx, 0, 0, 0);
	a = damon_new_region(0, SZ_1M);
	b = damon_new_region(SZ_1M, SZ_1M + SZ_64K);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	damon_add_region(a, t);
	damon_add_region(b, t);
	a->nr_accesses = 10;
	a->age = 7;
	b->age = 7;
	s = damos_test_scheme(test, ctx, DAMOS_PAGEOUT, &in);

	KUNIT_EXPECT_EQ(test, damos_generic_score(ctx, a, s), 0U);

	/* Size: log2 20 and 16 of 63, times 99. */
	s->quota.weight_sz = 1;
	KUNIT_EXPECT_EQ(test, damos_generic_score(ctx, a, s), 31U);
	KUNIT_EXPECT_EQ(test, damos_generic_score(ctx, b, s), 25U);
	damos_apply_schemes(ctx);
	KUNIT_ASSERT_EQ(test, damon_fake_ops_nr_applied(), 1U);
	rec = damos_test_applied(test, 0);
	KUNIT_EXPECT_EQ(test, rec.start, 0UL);
	KUNIT_EXPECT_EQ(test, rec.end, (unsigned long)SZ_64K);

	/* Coldness: (20 - 10) / 20 and 20 / 20, times 99. */
	s->quota.weight_sz = 0;
	s->quota.weight_nr_accesses = 1;
	KUNIT_EXPECT_EQ(test, damos_generic_score(ctx, a, s), 49U);
	KUNIT_EXPECT_EQ(test, damos_generic_score(ctx, b, s), 99U);
	damos_test_next_window();
	damos_apply_schemes(ctx);
	KUNIT_ASSERT_EQ(test, damon_fake_ops_nr_applied(), 2U);
	rec = damos_test_applied(test, 1);
	KUNIT_EXPECT_EQ(test, rec.start, (unsigned long)SZ_1M);
	KUNIT_EXPECT_EQ(test, rec.end, (unsigned long)SZ_1M + SZ_64K);

	/* Age: log2(8) = 3 of 31, times 99, scaled by coldness. */
	KUNIT_EXPECT_EQ(test, b->age, 0U);
	damos_test_region(t, 0)->age = 7;
	b->age = 7;
	s->quota.weight_nr_accesses = 0;
	s->quota.weight_age = 1;
	KUNIT_EXPECT_EQ(test, damos_generic_score(ctx, damos_test_region(t, 0),
						  s), 4U);
	KUNIT_EXPECT_EQ(test, damos_generic_score(ctx, b, s), 9U);

	/* All three: the weighted average. */
	s->quota.weight_sz = 1;
	s->quota.weight_nr_accesses = 1;
	KUNIT_EXPECT_EQ(test, damos_generic_score(ctx, b, s),
			(25U + 99 + 9) / 3);
	s->quota.weight_sz = UINT_MAX;
	s->quota.weight_nr_accesses = UINT_MAX;
	s->quota.weight_age = UINT_MAX;
	KUNIT_EXPECT_EQ(test, damos_generic_score(ctx, b, s),
			(25U + 99 + 9) / 3);
}

/*
 * A region acted on restarts at age 0, so that it has to show the pattern
 * for the scheme's minimum age again before the next action; counting it
 * (DAMOS_STAT) leaves the monitoring results alone.
 */
static void damos_test_action_restarts_age(struct kunit *test)
{
	static const unsigned int ages[] = { 5, 0, 9 };
	struct damon_ctx *ctx = damos_test_ctx(test);
	struct damos_quota in = {};
	struct damon_target *t;
	struct damos *s;

	s = damos_test_aged(test, ctx, ages, ARRAY_SIZE(ages), &in, &t);
	s->action = DAMOS_STAT;
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, s->stat.nr_tried, 2UL);
	KUNIT_EXPECT_EQ(test, damon_fake_ops_nr_applied(), 0U);
	KUNIT_EXPECT_EQ(test, damos_test_region(t, 0)->age, 5U);
	KUNIT_EXPECT_EQ(test, damos_test_region(t, 2)->age, 9U);

	s->action = DAMOS_PAGEOUT;
	damos_test_next_window();
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, damon_fake_ops_nr_applied(), 2U);
	KUNIT_EXPECT_EQ(test, damos_test_region(t, 0)->age, 0U);
	KUNIT_EXPECT_EQ(test, damos_test_region(t, 2)->age, 0U);

	/* Now aged 0, they score 0 and wait. */
	damos_test_next_window();
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, damon_fake_ops_nr_applied(), 2U);
	KUNIT_EXPECT_EQ(test, s->stat.nr_tried, 4UL);
}

/*
 * A pageout scheme with a time quota of 10 ms per window over one target of
 * 64 regions of 1 MiB, where acting costs 10 ns per byte.  The target goes
 * to *@tp if @tp is not NULL.
 */
static struct damos *damos_test_time_quota_scheme(struct kunit *test,
						  struct damon_ctx *ctx,
						  struct damon_target **tp)
{
	static const struct damos_quota in = {
		.ms = 10,
		.reset_interval_ms = DAMOS_TEST_RESET_MS,
	};
	struct damon_target *t = damos_test_target(test, ctx, 0, 64, SZ_1M);

	if (tp)
		*tp = t;
	damon_fake_ops_set_cost_ns_per_byte(10);
	return damos_test_scheme(test, ctx, DAMOS_PAGEOUT, &in);
}

/* Applies the schemes once; returns the fake time that took. */
static u64 damos_test_apply_ns(struct damon_ctx *ctx)
{
	u64 start_ns = damon_fake_ops_clock_ns();

	damos_apply_schemes(ctx);
	return damon_fake_ops_clock_ns() - start_ns;
}

/*
 * Acting costs 10 ns per byte and the time quota is 10 ms per window: after
 * the first window at the assumed throughput, every window spends the
 * budget to within one page.
 */
static void damos_test_time_quota_converges(struct kunit *test)
{
	struct damon_ctx *ctx = damos_test_ctx(test);
	struct damon_target *t;
	struct damos *s = damos_test_time_quota_scheme(test, ctx, &t);
	u64 spent_ns;
	int w;

	spent_ns = damos_test_apply_ns(ctx);
	/*
	 * 10,737,410 bytes at 1 GiB/s, but the action reads the clock between
	 * pages and stops at the first reading past 10 ms: 245 pages into the
	 * first region, which is cut there.
	 */
	KUNIT_EXPECT_EQ(test, s->quota.esz, 10737410UL);
	KUNIT_EXPECT_EQ(test, spent_ns, 10ULL * 245 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, damon_region_sz(damos_test_region(t, 0)),
			245 * PAGE_SIZE);

	for (w = 1; w < 20; w++) {
		damos_test_next_window();
		spent_ns = damos_test_apply_ns(ctx);
		KUNIT_EXPECT_EQ(test, s->quota.esz, 1000000UL);
		/* 244 pages: the most that fit in 1,000,000 bytes. */
		KUNIT_EXPECT_EQ(test, spent_ns, 10ULL * 244 * PAGE_SIZE);
		KUNIT_EXPECT_LE(test, spent_ns, 10 * NSEC_PER_MSEC);
	}
}

/*
 * Acting turns ten times dearer than measured (10 ns per byte, then 100),
 * for an action that reads the clock only when it starts on a region (a
 * real one reads it between batches of pages, and overruns less): the
 * window in which it does spends more than its 10 ms, as its byte budget
 * was bought at the old price, and the next windows pay that debt first,
 * so that over the twenty windows from the change acting takes no more
 * than twenty time quotas plus what one region costs.
 */
static void damos_test_time_quota_pays_debt(struct kunit *test)
{
	struct damon_ctx *ctx = damos_test_ctx(test);
	struct damos *s = damos_test_time_quota_scheme(test, ctx, NULL);
	u64 spent_ns, total_ns = 0;
	unsigned int nr_idle = 0;
	int w;

	damon_fake_ops_set_clock_check_sz(ULONG_MAX);

	for (w = 0; w < 20; w++) {
		damos_apply_schemes(ctx);
		damos_test_next_window();
	}
	KUNIT_ASSERT_EQ(test, s->quota.esz, 1000000UL);

	damon_fake_ops_set_cost_ns_per_byte(100);
	for (w = 0; w < 20; w++) {
		spent_ns = damos_test_apply_ns(ctx);
		if (!w) {
			/* Up to 244 pages at the new price, to a region end. */
			KUNIT_EXPECT_GT(test, spent_ns, 50 * NSEC_PER_MSEC);
			KUNIT_EXPECT_LE(test, spent_ns,
					100ULL * 244 * PAGE_SIZE);
		} else if (!spent_ns) {
			nr_idle++;
		}
		total_ns += spent_ns;
		damos_test_next_window();
	}
	/* The first window overspent by 40 ms or more: as many windows pay. */
	KUNIT_EXPECT_GE(test, nr_idle, 4U);
	KUNIT_EXPECT_LE(test, total_ns, 20 * 10 * NSEC_PER_MSEC +
			100ULL * SZ_1M);
	KUNIT_EXPECT_GE(test, total_ns, 15 * 10 * NSEC_PER_MSEC);
}

/*
 * What the action only prepares is paid for with time, not with bytes: with
 * half of what it tries found unprepared, over 40 windows of 10 ms the
 * action looks at twice the bytes it is charged for (10 ns per byte looked
 * at) and spends the time to within a page's cost.
 */
static void damos_test_time_quota_pays_preparing(struct kunit *test)
{
	struct damon_ctx *ctx = damos_test_ctx(test);
	struct damon_target *t;
	struct damon_region *r;
	u64 spent_ns = 0;
	struct damos *s;
	int w;

	s = damos_test_time_quota_scheme(test, ctx, &t);
	damon_for_each_region(r, t)
		r->age = 100;
	damon_fake_ops_set_unprepared_permil(500);

	for (w = 0; w < 40; w++) {
		damos_test_next_window();
		spent_ns += damos_test_apply_ns(ctx);
	}
	KUNIT_EXPECT_GT(test, s->stat.sz_tried, 0UL);
	KUNIT_EXPECT_EQ(test, spent_ns, 20ULL * s->stat.sz_tried);
	KUNIT_EXPECT_LE(test, spent_ns, 400 * NSEC_PER_MSEC + 10 * PAGE_SIZE);
	KUNIT_EXPECT_GE(test, spent_ns, 390 * NSEC_PER_MSEC);
}

/* A score that costs 100 us of the fake clock. */
static int damos_test_slow_score(const struct damon_region *r,
				 const struct damos *s)
{
	damon_fake_ops_advance_clock_ns(100 * NSEC_PER_USEC);
	return 50;
}

/*
 * Choosing the regions (scores, here 100 us each, 64 regions scored at
 * least twice a window) counts against the time quota as acting does:
 * over 20 windows, the scheme spends 10 ms a window on average, to within
 * what one window overruns.
 */
static void damos_test_time_quota_pays_choosing(struct kunit *test)
{
	struct damon_ctx *ctx = damos_test_ctx(test);
	struct damos *s = damos_test_time_quota_scheme(test, ctx, NULL);
	u64 spent_ns = 0;
	int w;

	damon_fake_ops_set_score_fn(damos_test_slow_score);
	for (w = 0; w < 20; w++) {
		damos_test_next_window();
		spent_ns += damos_test_apply_ns(ctx);
	}
	KUNIT_EXPECT_LE(test, spent_ns, (20 * 10 + 25) * NSEC_PER_MSEC);
	KUNIT_EXPECT_GT(test, s->stat.sz_tried, 0UL);
}

static void damos_test_stats_add_up(struct kunit *test)
{
	struct damon_ctx *ctx = damos_test_ctx(test);
	struct damos *pageout, *stat;

	damos_test_target(test, ctx, 0, 4, SZ_64K);
	pageout = damos_test_scheme(test, ctx, DAMOS_PAGEOUT, NULL);
	stat = damos_test_scheme(test, ctx, DAMOS_STAT, NULL);
	damon_fake_ops_set_applied_permil(500);

	damos_apply_schemes(ctx);
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, pageout->stat.nr_tried, 8UL);
	KUNIT_EXPECT_EQ(test, pageout->stat.sz_tried, 8UL * SZ_64K);
	KUNIT_EXPECT_EQ(test, pageout->stat.nr_applied, 8UL);
	KUNIT_EXPECT_EQ(test, pageout->stat.sz_applied, 4UL * SZ_64K);
	KUNIT_EXPECT_EQ(test, pageout->stat.qt_exceeds, 0UL);
	/* The stat action counts what it sees and never calls the backend. */
	KUNIT_EXPECT_EQ(test, stat->stat.nr_tried, 8UL);
	KUNIT_EXPECT_EQ(test, stat->stat.sz_tried, 8UL * SZ_64K);
	KUNIT_EXPECT_EQ(test, stat->stat.nr_applied, 0UL);
	KUNIT_EXPECT_EQ(test, stat->stat.sz_applied, 0UL);
	KUNIT_EXPECT_EQ(test, damon_fake_ops_nr_applied(), 8U);

	/* A region the action did nothing on is tried, not applied. */
	damon_fake_ops_set_applied_permil(0);
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, pageout->stat.nr_tried, 12UL);
	KUNIT_EXPECT_EQ(test, pageout->stat.nr_applied, 8UL);
	KUNIT_EXPECT_EQ(test, pageout->stat.sz_applied, 4UL * SZ_64K);
}

/* === Watermarks === */

static void damos_test_wmarks_decide(struct kunit *test)
{
	struct damos_watermarks wm = {
		.metric = DAMOS_WMARK_FREE_MEM_RATE,
		.high = 600,
		.mid = 400,
		.low = 200,
	};

	KUNIT_EXPECT_FALSE(test, damos_wmarks_decide(&wm, 601, true));
	KUNIT_EXPECT_TRUE(test, damos_wmarks_decide(&wm, 600, true));
	KUNIT_EXPECT_FALSE(test, damos_wmarks_decide(&wm, 600, false));
	KUNIT_EXPECT_TRUE(test, damos_wmarks_decide(&wm, 401, true));
	KUNIT_EXPECT_FALSE(test, damos_wmarks_decide(&wm, 401, false));
	KUNIT_EXPECT_TRUE(test, damos_wmarks_decide(&wm, 400, false));
	KUNIT_EXPECT_TRUE(test, damos_wmarks_decide(&wm, 201, false));
	KUNIT_EXPECT_FALSE(test, damos_wmarks_decide(&wm, 200, true));
	KUNIT_EXPECT_FALSE(test, damos_wmarks_decide(&wm, 0, true));
	KUNIT_EXPECT_FALSE(test, damos_wmarks_decide(&wm, ULONG_MAX, true));

	wm.metric = DAMOS_WMARK_NONE;
	KUNIT_EXPECT_TRUE(test, damos_wmarks_decide(&wm, 0, false));
	KUNIT_EXPECT_TRUE(test, damos_wmarks_decide(&wm, 601, false));
}

static void damos_test_all_inactive(struct kunit *test)
{
	struct damon_ctx *ctx = damos_test_ctx(test);
	/* Free memory is never above 1000 per-thousand: always inactive. */
	struct damos_watermarks never = {
		.metric = DAMOS_WMARK_FREE_MEM_RATE,
		.interval_us = 1000,
		.high = 1000,
		.mid = 1000,
		.low = 1000,
	};
	struct damos *s, *none;

	ctx->attrs.sample_interval = 100;
	KUNIT_EXPECT_FALSE(test, damos_all_inactive(ctx));
	KUNIT_EXPECT_EQ(test, damos_wmarks_sleep_us(ctx), 0UL);

	damos_test_target(test, ctx, 0, 1, SZ_64K);
	s = damos_new_scheme(&damos_test_any, DAMOS_STAT, NULL, &never);
	KUNIT_ASSERT_NOT_NULL(test, s);
	damon_add_scheme(ctx, s);
	damos_start_schemes(ctx);

	ctx->now_us = 0;
	KUNIT_EXPECT_TRUE(test, damos_all_inactive(ctx));
	KUNIT_EXPECT_EQ(test, s->wmarks.next_check_us, 1000ULL);
	KUNIT_EXPECT_EQ(test, damos_wmarks_sleep_us(ctx), 1000UL);
	ctx->now_us = 400;
	KUNIT_EXPECT_TRUE(test, damos_all_inactive(ctx));
	KUNIT_EXPECT_EQ(test, s->wmarks.next_check_us, 1000ULL);
	KUNIT_EXPECT_EQ(test, damos_wmarks_sleep_us(ctx), 600UL);
	/* Never less than a sampling interval. */
	ctx->now_us = 950;
	KUNIT_EXPECT_EQ(test, damos_wmarks_sleep_us(ctx), 100UL);
	ctx->now_us = 1000;
	KUNIT_EXPECT_TRUE(test, damos_all_inactive(ctx));
	KUNIT_EXPECT_EQ(test, s->wmarks.next_check_us, 2000ULL);

	/* An inactive scheme is not applied. */
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, s->stat.nr_tried, 0UL);

	/* Active once the low mark is 0 (some memory is always free). */
	s->wmarks.low = 0;
	ctx->now_us = 2000;
	KUNIT_EXPECT_FALSE(test, damos_all_inactive(ctx));
	KUNIT_EXPECT_TRUE(test, s->wmarks.activated);
	damos_apply_schemes(ctx);
	KUNIT_EXPECT_EQ(test, s->stat.nr_tried, 1UL);

	/* A scheme without watermarks keeps the context active. */
	s->wmarks.low = 1000;
	ctx->now_us = 3000;
	KUNIT_EXPECT_TRUE(test, damos_all_inactive(ctx));
	none = damos_test_scheme(test, ctx, DAMOS_STAT, NULL);
	KUNIT_EXPECT_FALSE(test, damos_all_inactive(ctx));
	KUNIT_EXPECT_TRUE(test, none->wmarks.activated);
	damon_destroy_scheme(none);

	/* A huge check interval saturates: checked once more, then never. */
	s->wmarks.interval_us = ULONG_MAX;
	ctx->now_us = 4000;
	KUNIT_EXPECT_TRUE(test, damos_all_inactive(ctx));
	KUNIT_EXPECT_EQ(test, s->wmarks.next_check_us, U64_MAX);
	KUNIT_EXPECT_EQ(test, damos_wmarks_sleep_us(ctx),
			(unsigned long)min_t(u64, U64_MAX - 4000, ULONG_MAX));
	s->wmarks.low = 0;
	ctx->now_us = U64_MAX - 1;
	KUNIT_EXPECT_TRUE(test, damos_all_inactive(ctx));
}

/* === With kdamond === */

/* Short intervals so that a fraction of a second sees many aggregations. */
static void damos_test_fast_attrs(struct damon_ctx *ctx)
{
	ctx->attrs.sample_interval = 1000;
	ctx->attrs.aggr_interval = 10000;
}

static void damos_test_kdamond_applies(struct kunit *test)
{
	struct damon_ctx *ctx = damos_test_ctx(test);
	struct damos *s;

	damos_test_fast_attrs(ctx);
	damos_test_target(test, ctx, 0, 4, SZ_64K);
	s = damos_test_scheme(test, ctx, DAMOS_STAT, NULL);
	KUNIT_ASSERT_EQ(test, damon_start(ctx), 0);
	msleep(100);
	KUNIT_ASSERT_EQ(test, damon_stop(ctx), 0);

	KUNIT_EXPECT_GT(test, damon_fake_ops_nr_samples(), 0UL);
	KUNIT_EXPECT_GT(test, s->stat.nr_tried, 0UL);
	/* Every aggregation tries all 256 KiB, however the regions adapt. */
	KUNIT_EXPECT_EQ(test, s->stat.sz_tried % (4 * SZ_64K), 0UL);
	KUNIT_EXPECT_GT(test, s->stat.sz_tried, 0UL);
}

/*
 * With its only scheme held inactive by watermarks checked every 10 s,
 * kdamond takes no sample, and still stops at once.
 */
static void damos_test_kdamond_sleeps_while_inactive(struct kunit *test)
{
	struct damos_watermarks never = {
		.metric = DAMOS_WMARK_FREE_MEM_RATE,
		.interval_us = 10 * USEC_PER_SEC,
		.high = 1000,
		.mid = 1000,
		.low = 1000,
	};
	struct damon_ctx *ctx = damos_test_ctx(test);
	struct damos *s;
	ktime_t start;

	damos_test_fast_attrs(ctx);
	damos_test_target(test, ctx, 0, 4, SZ_64K);
	s = damos_new_scheme(&damos_test_any, DAMOS_STAT, NULL, &never);
	KUNIT_ASSERT_NOT_NULL(test, s);
	damon_add_scheme(ctx, s);
	KUNIT_ASSERT_EQ(test, damon_start(ctx), 0);
	msleep(100);
	start = ktime_get();
	KUNIT_ASSERT_EQ(test, damon_stop(ctx), 0);

	KUNIT_EXPECT_LT(test, ktime_ms_delta(ktime_get(), start), 1000LL);
	KUNIT_EXPECT_EQ(test, damon_fake_ops_nr_samples(), 0UL);
	KUNIT_EXPECT_EQ(test, s->stat.nr_tried, 0UL);
	KUNIT_EXPECT_FALSE(test, s->wmarks.activated);
}

/* === Commit === */

static struct damon_ctx *damos_test_src_ctx(struct kunit *test,
					    unsigned int nr,
					    unsigned long quota_sz)
{
	struct damon_ctx *src = damon_new_ctx();
	struct damos_quota in = {
		.sz = quota_sz,
		.reset_interval_ms = DAMOS_TEST_RESET_MS,
	};
	struct damos_filter *f;
	struct damos *s;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, src);
	damos_test_defer(test, damos_test_destroy_ctx, src);
	for (i = 0; i < nr; i++) {
		s = damos_test_scheme(test, src, DAMOS_PAGEOUT, &in);
		s->pattern.max_nr_accesses = i;
		f = damos_new_filter(DAMOS_FILTER_TYPE_ANON, true);
		KUNIT_ASSERT_NOT_NULL(test, f);
		damos_add_filter(s, f);
	}
	return src;
}

static unsigned int damos_test_nr_schemes(struct damon_ctx *ctx)
{
	unsigned int nr = 0;
	struct damos *s;

	damon_for_each_scheme(s, ctx)
		nr++;
	return nr;
}

static void damos_test_commit_keeps_state(struct kunit *test)
{
	struct damon_ctx *dst = damos_test_ctx(test), *src;
	struct damos_quota in = {
		.sz = 100000,
		.reset_interval_ms = DAMOS_TEST_RESET_MS,
	};
	struct damos_quota_goal *g;
	struct damos_quota saved;
	struct damos_stat stat;
	struct damos *s, *second;
	struct damon_target *t;

	t = damos_test_target(test, dst, 0, 10, SZ_64K);
	s = damos_test_scheme(test, dst, DAMOS_PAGEOUT, &in);
	g = damos_new_quota_goal(DAMOS_QUOTA_USER_INPUT, 5);
	KUNIT_ASSERT_NOT_NULL(test, g);
	damos_add_quota_goal(&s->quota, g);
	damos_test_scheme(test, dst, DAMOS_STAT, NULL);
	damon_fake_ops_set_cost_ns_per_byte(1);
	damos_apply_schemes(dst);
	KUNIT_ASSERT_PTR_EQ(test, s->quota.charge_target_from, t);
	saved = s->quota;
	stat = s->stat;

	src = damos_test_src_ctx(test, 1, SZ_1M);
	KUNIT_ASSERT_EQ(test, damos_commit_schemes(dst, src), 0);
	KUNIT_ASSERT_EQ(test, damos_test_nr_schemes(dst), 1U);
	KUNIT_EXPECT_PTR_EQ(test, list_first_entry(&dst->schemes,
						   struct damos, list), s);
	/* New user fields, filters and goals... */
	KUNIT_EXPECT_EQ(test, s->quota.sz, (unsigned long)SZ_1M);
	KUNIT_EXPECT_EQ(test, s->pattern.max_nr_accesses, 0U);
	KUNIT_EXPECT_EQ(test, list_count_nodes(&s->filters), 1UL);
	KUNIT_EXPECT_TRUE(test, list_empty(&s->quota.goals));
	/* ...on the old charge state and statistics. */
	KUNIT_EXPECT_EQ(test, s->quota.esz, saved.esz);
	KUNIT_EXPECT_EQ(test, s->quota.charged_sz, saved.charged_sz);
	KUNIT_EXPECT_EQ(test, s->quota.charged_from, saved.charged_from);
	KUNIT_EXPECT_PTR_EQ(test, s->quota.charge_target_from, t);
	KUNIT_EXPECT_EQ(test, s->quota.charge_addr_from,
			saved.charge_addr_from);
	KUNIT_EXPECT_EQ(test, s->quota.charge_addr_from, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, s->quota.total_charged_sz,
			saved.total_charged_sz);
	KUNIT_EXPECT_EQ(test, s->quota.total_charged_ns,
			saved.total_charged_ns);
	KUNIT_EXPECT_EQ(test, s->quota.esz_bp, saved.esz_bp);
	KUNIT_EXPECT_EQ(test, s->quota.nr_exceeded, 1UL);
	KUNIT_EXPECT_EQ(test, s->stat.sz_tried, stat.sz_tried);
	KUNIT_EXPECT_EQ(test, s->stat.qt_exceeds, 1UL);

	/* More schemes in src: the first stays, the rest are added. */
	src = damos_test_src_ctx(test, 3, 2048);
	KUNIT_ASSERT_EQ(test, damos_commit_schemes(dst, src), 0);
	KUNIT_ASSERT_EQ(test, damos_test_nr_schemes(dst), 3U);
	KUNIT_EXPECT_PTR_EQ(test, list_first_entry(&dst->schemes,
						   struct damos, list), s);
	/* A lowered size quota cuts the current window at once. */
	KUNIT_EXPECT_EQ(test, s->quota.esz, 2048UL);
	KUNIT_EXPECT_EQ(test, s->stat.sz_tried, stat.sz_tried);
	second = list_next_entry(s, list);
	KUNIT_EXPECT_EQ(test, second->pattern.max_nr_accesses, 1U);
	KUNIT_EXPECT_EQ(test, second->stat.nr_tried, 0UL);
}

/* Goals staying at their position and metric keep their measurement. */
static void damos_test_commit_goals(struct kunit *test)
{
	struct damon_ctx *dst = damos_test_src_ctx(test, 1, SZ_1M);
	struct damon_ctx *src = damos_test_src_ctx(test, 1, SZ_1M);
	struct damos *d = list_first_entry(&dst->schemes, struct damos, list);
	struct damos *s = list_first_entry(&src->schemes, struct damos, list);
	static const enum damos_quota_goal_metric dst_metrics[] = {
		DAMOS_QUOTA_SOME_MEM_PSI_US, DAMOS_QUOTA_SOME_MEM_PSI_US,
	};
	static const enum damos_quota_goal_metric src_metrics[] = {
		DAMOS_QUOTA_SOME_MEM_PSI_US, DAMOS_QUOTA_USER_INPUT,
		DAMOS_QUOTA_SOME_MEM_PSI_US,
	};
	struct damos_quota_goal *g;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(dst_metrics); i++) {
		g = damos_new_quota_goal(dst_metrics[i], 1);
		KUNIT_ASSERT_NOT_NULL(test, g);
		g->last_psi_total = 1000 + i;
		g->current_value = 2000 + i;
		damos_add_quota_goal(&d->quota, g);
	}
	for (i = 0; i < ARRAY_SIZE(src_metrics); i++) {
		g = damos_new_quota_goal(src_metrics[i], 10 + i);
		KUNIT_ASSERT_NOT_NULL(test, g);
		g->last_psi_total = 3000 + i;
		g->current_value = 4000 + i;
		damos_add_quota_goal(&s->quota, g);
	}

	KUNIT_ASSERT_EQ(test, damos_commit_schemes(dst, src), 0);
	KUNIT_ASSERT_EQ(test, list_count_nodes(&d->quota.goals), 3UL);
	g = list_first_entry(&d->quota.goals, struct damos_quota_goal, list);
	KUNIT_EXPECT_EQ(test, g->metric, DAMOS_QUOTA_SOME_MEM_PSI_US);
	KUNIT_EXPECT_EQ(test, g->target_value, 10UL);
	KUNIT_EXPECT_EQ(test, g->last_psi_total, 1000ULL);
	KUNIT_EXPECT_EQ(test, g->current_value, 2000UL);
	/* The user's input comes from src even at a kept position. */
	g = list_next_entry(g, list);
	KUNIT_EXPECT_EQ(test, g->metric, DAMOS_QUOTA_USER_INPUT);
	KUNIT_EXPECT_EQ(test, g->target_value, 11UL);
	KUNIT_EXPECT_EQ(test, g->current_value, 4001UL);
	/* A new PSI goal starts measuring from now, not from src's state. */
	g = list_next_entry(g, list);
	KUNIT_EXPECT_EQ(test, g->target_value, 12UL);
	KUNIT_EXPECT_NE(test, g->last_psi_total, 3002ULL);
	/* src is untouched. */
	KUNIT_EXPECT_EQ(test, list_count_nodes(&s->quota.goals), 3UL);
}

static void damos_test_commit_failure_changes_nothing(struct kunit *test)
{
	struct damon_ctx *dst = damos_test_src_ctx(test, 2, SZ_1M);
	struct damon_ctx *src = damos_test_src_ctx(test, 3, SZ_64K);
	struct damos *first = list_first_entry(&dst->schemes, struct damos,
					       list);
	struct damos *bad = list_last_entry(&src->schemes, struct damos, list);

	first->stat.nr_tried = 42;
	bad->wmarks.metric = DAMOS_WMARK_FREE_MEM_RATE;
	bad->wmarks.high = 100;
	bad->wmarks.mid = 200;
	KUNIT_EXPECT_EQ(test, damos_commit_schemes(dst, src), -EINVAL);
	KUNIT_ASSERT_EQ(test, damos_test_nr_schemes(dst), 2U);
	KUNIT_EXPECT_PTR_EQ(test, list_first_entry(&dst->schemes,
						   struct damos, list), first);
	KUNIT_EXPECT_EQ(test, first->quota.sz, (unsigned long)SZ_1M);
	KUNIT_EXPECT_EQ(test, first->stat.nr_tried, 42UL);
	KUNIT_EXPECT_EQ(test, list_count_nodes(&first->filters), 1UL);

	/* And an empty src empties dst. */
	src = damos_test_src_ctx(test, 0, 0);
	KUNIT_EXPECT_EQ(test, damos_commit_schemes(dst, src), 0);
	KUNIT_EXPECT_EQ(test, damos_test_nr_schemes(dst), 0U);
}

static struct kunit_case damos_test_cases[] = {
	KUNIT_CASE(damos_test_validate),
	KUNIT_CASE(damos_test_filter_out_folio),
	KUNIT_CASE(damos_test_pattern_matches),
	KUNIT_CASE(damos_test_mul_div),
	KUNIT_CASE(damos_test_min_score),
	KUNIT_CASE(damos_test_update_quota_sz),
	KUNIT_CASE(damos_test_update_quota_ms),
	KUNIT_CASE(damos_test_update_quota_huge_window),
	KUNIT_CASE(damos_test_tune_step),
	KUNIT_CASE(damos_test_autotune_feedback),
	KUNIT_CASE(damos_test_autotune_psi),
	KUNIT_CASE(damos_test_size_quota_never_exceeded),
	KUNIT_CASE(damos_test_quota_charges_tried),
	KUNIT_CASE(damos_test_quota_stops_inside_region),
	KUNIT_CASE(damos_test_quota_set_later),
	KUNIT_CASE(damos_test_resumption_is_contiguous),
	KUNIT_CASE(damos_test_resumption_covers_all),
	KUNIT_CASE(damos_test_resume_cut_fails),
	KUNIT_CASE(damos_test_highest_score_first),
	KUNIT_CASE(damos_test_higher_score_reserved),
	KUNIT_CASE(damos_test_leftover_stays_above),
	KUNIT_CASE(damos_test_leftover_goes_below),
	KUNIT_CASE(damos_test_zero_score_skipped),
	KUNIT_CASE(damos_test_action_restarts_age),
	KUNIT_CASE(damos_test_prepared_not_tried),
	KUNIT_CASE(damos_test_generic_score),
	KUNIT_CASE(damos_test_time_quota_converges),
	KUNIT_CASE(damos_test_time_quota_pays_preparing),
	KUNIT_CASE(damos_test_time_quota_pays_debt),
	KUNIT_CASE(damos_test_time_quota_pays_choosing),
	KUNIT_CASE(damos_test_stats_add_up),
	KUNIT_CASE(damos_test_wmarks_decide),
	KUNIT_CASE(damos_test_all_inactive),
	KUNIT_CASE(damos_test_kdamond_applies),
	KUNIT_CASE(damos_test_kdamond_sleeps_while_inactive),
	KUNIT_CASE(damos_test_commit_keeps_state),
	KUNIT_CASE(damos_test_commit_goals),
	KUNIT_CASE(damos_test_commit_failure_changes_nothing),
	{}
};

static struct kunit_suite damos_test_suite = {
	.name = "damon-schemes",
	.test_cases = damos_test_cases,
};

kunit_test_suite(damos_test_suite);

MODULE_LICENSE("GPL");
