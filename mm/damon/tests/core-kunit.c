// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of mm/damon/core.c, kdamond.c and commit.c: attributes, the operations registry, the
 * kdamond life cycle (with the fake operations backend), damon_call() and
 * damon_commit_ctx().
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/sizes.h>

#include "../internal.h"
#include "fake-ops.h"

#define P	PAGE_SIZE

/* === Helpers === */

static void damon_test_free_ctx(void *data)
{
	damon_destroy_ctx(data);
}

/* A context freed (and stopped) when the test ends. */
static struct damon_ctx *damon_test_ctx(struct kunit *test)
{
	struct damon_ctx *ctx = damon_new_ctx();

	int err;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	err = kunit_add_action_or_reset(test, damon_test_free_ctx, ctx);
	KUNIT_ASSERT_EQ(test, err, 0);
	return ctx;
}

static struct damon_target *damon_test_add_target(struct kunit *test,
						  struct damon_ctx *ctx,
						  unsigned long start,
						  unsigned long end)
{
	struct damon_addr_range range = { start, end };
	struct damon_target *t = damon_new_target();

	KUNIT_ASSERT_NOT_NULL(test, t);
	damon_add_target(ctx, t);
	KUNIT_ASSERT_EQ(test, damon_set_regions(t, &range, 1, P), 0);
	return t;
}

static void damon_test_set_intervals(struct kunit *test,
				     struct damon_ctx *ctx,
				     unsigned long sample_us,
				     unsigned long aggr_us)
{
	struct damon_attrs attrs = ctx->attrs;

	attrs.sample_interval = sample_us;
	attrs.aggr_interval = aggr_us;
	KUNIT_ASSERT_EQ(test, damon_set_attrs(ctx, &attrs), 0);
}

/* A context monitoring [0, 64 pages) through the fake backend. */
static struct damon_ctx *damon_test_fake_ctx(struct kunit *test,
					     unsigned long sample_us,
					     unsigned long aggr_us)
{
	struct damon_ctx *ctx = damon_test_ctx(test);

	KUNIT_ASSERT_EQ(test, damon_fake_ops_select(ctx), 0);
	damon_test_add_target(test, ctx, 0, 64 * P);
	damon_test_set_intervals(test, ctx, sample_us, aggr_us);
	return ctx;
}

/* Waits up to @ms milliseconds for @v to reach @min. */
static bool damon_test_wait_atomic(atomic_t *v, int min, unsigned int ms)
{
	unsigned int waited;

	for (waited = 0; atomic_read(v) < min && waited < ms; waited += 20)
		msleep(20);
	return atomic_read(v) >= min;
}

/* Waits up to @ms milliseconds for the fake backend to take @min samples. */
static bool damon_test_wait_samples(unsigned long min, unsigned int ms)
{
	unsigned int waited;

	for (waited = 0; damon_fake_ops_nr_samples() < min && waited < ms;
	     waited += 20)
		msleep(20);
	return damon_fake_ops_nr_samples() >= min;
}

/* Waits up to @ms milliseconds for kdamond to stop on its own. */
static bool damon_test_wait_stopped(struct damon_ctx *ctx, unsigned int ms)
{
	unsigned int waited;

	for (waited = 0; damon_is_running(ctx) && waited < ms; waited += 20)
		msleep(20);
	return !damon_is_running(ctx);
}

/* What the hooks saw, shared between kdamond and the test. */
struct damon_test_hooks {
	atomic_t nr_aggregations;
	unsigned int min_nr_accesses;
	unsigned int max_nr_accesses;
	unsigned int nr_aggregations_to_stop;
	unsigned long window_slots;
	unsigned long checks_at_aggr;
	bool terminated;
};

static int damon_test_after_aggregation(struct damon_ctx *ctx)
{
	struct damon_test_hooks *h = ctx->callback.private;
	struct damon_target *t;
	struct damon_region *r;
	unsigned int nr;

	damon_for_each_target(t, ctx) {
		damon_for_each_region(r, t) {
			h->min_nr_accesses = min(h->min_nr_accesses,
						 r->nr_accesses);
			h->max_nr_accesses = max(h->max_nr_accesses,
						 r->nr_accesses);
		}
	}
	/* Samples counted, slept through included, and samples taken. */
	h->window_slots += ctx->window_nr_samples;
	h->checks_at_aggr = damon_fake_ops_nr_samples();
	nr = atomic_inc_return(&h->nr_aggregations);
	return h->nr_aggregations_to_stop && nr >= h->nr_aggregations_to_stop;
}

static void damon_test_before_terminate(struct damon_ctx *ctx)
{
	struct damon_test_hooks *h = ctx->callback.private;

	h->terminated = true;
}

static struct damon_test_hooks *damon_test_hook(struct kunit *test,
						struct damon_ctx *ctx)
{
	struct damon_test_hooks *h = kunit_kzalloc(test, sizeof(*h),
						   GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, h);
	h->min_nr_accesses = UINT_MAX;
	ctx->callback.private = h;
	ctx->callback.after_aggregation = damon_test_after_aggregation;
	ctx->callback.before_terminate = damon_test_before_terminate;
	return h;
}

/* === Attributes === */

static void damon_test_new_ctx_defaults(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_ctx(test);

	KUNIT_EXPECT_EQ(test, ctx->attrs.sample_interval, 5000UL);
	KUNIT_EXPECT_EQ(test, ctx->attrs.aggr_interval, 100000UL);
	KUNIT_EXPECT_EQ(test, ctx->attrs.min_nr_regions, 10UL);
	KUNIT_EXPECT_EQ(test, ctx->attrs.max_nr_regions, 1000UL);
	KUNIT_EXPECT_EQ(test, ctx->min_region_sz, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, damon_validate_attrs(&ctx->attrs), 0);
	KUNIT_EXPECT_FALSE(test, damon_is_running(ctx));
	KUNIT_EXPECT_EQ(test, damon_kdamond_pid(ctx), -1);
	KUNIT_EXPECT_EQ(test, damon_nr_regions(ctx), 0U);
}

/* Attributes by sampling, aggregation, and region count bounds. */
#define DAMON_TEST_ATTRS(sample, aggr, lo, hi)				\
	{ .sample_interval = (sample), .aggr_interval = (aggr),		\
	  .min_nr_regions = (lo), .max_nr_regions = (hi) }

static void damon_test_validate_attrs(struct kunit *test)
{
	static const struct {
		struct damon_attrs attrs;
		int err;
	} cases[] = {
		{ DAMON_TEST_ATTRS(5000, 100000, 10, 1000), 0 },
		{ DAMON_TEST_ATTRS(5000, 5000, 3, 3), 0 },
		{ DAMON_TEST_ATTRS(0, 100000, 10, 1000), -EINVAL },
		{ DAMON_TEST_ATTRS(5000, 0, 10, 1000), -EINVAL },
		{ DAMON_TEST_ATTRS(5000, 4999, 10, 1000), -EINVAL },
		{ DAMON_TEST_ATTRS(5000, 100000, 2, 1000), -EINVAL },
		{ DAMON_TEST_ATTRS(5000, 100000, 0, 1000), -EINVAL },
		{ DAMON_TEST_ATTRS(5000, 100000, 11, 10), -EINVAL },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_EQ_MSG(test, damon_validate_attrs(&cases[i].attrs),
				    cases[i].err, "case %u", i);
}

static void damon_test_set_attrs_invalid_keeps_old(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_ctx(test);
	struct damon_attrs good = {
		.sample_interval = 1000, .aggr_interval = 20000,
		.min_nr_regions = 5, .max_nr_regions = 50,
	};
	struct damon_attrs bad = {
		.sample_interval = 1000, .aggr_interval = 500,
		.min_nr_regions = 5, .max_nr_regions = 50,
	};

	KUNIT_ASSERT_EQ(test, damon_set_attrs(ctx, &good), 0);
	KUNIT_EXPECT_EQ(test, damon_set_attrs(ctx, &bad), -EINVAL);
	KUNIT_EXPECT_EQ(test, ctx->attrs.sample_interval, 1000UL);
	KUNIT_EXPECT_EQ(test, ctx->attrs.aggr_interval, 20000UL);
	KUNIT_EXPECT_EQ(test, ctx->attrs.min_nr_regions, 5UL);
	KUNIT_EXPECT_EQ(test, ctx->attrs.max_nr_regions, 50UL);
}

/* New intervals rescale what the regions learnt under the old ones. */
static void damon_test_set_attrs_rescales(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_ctx(test);
	struct damon_target *t = damon_test_add_target(test, ctx, 0, P);
	struct damon_region *r = list_first_entry(&t->regions,
						  struct damon_region, list);

	/* 20 samples per window of 100 ms. */
	r->nr_accesses = 7;
	r->last_nr_accesses = 10;
	r->age = 4;
	/* 10 samples per window of 50 ms. */
	damon_test_set_intervals(test, ctx, 5000, 50000);
	KUNIT_EXPECT_EQ(test, r->last_nr_accesses, 5U);
	KUNIT_EXPECT_EQ(test, r->age, 8U);
	KUNIT_EXPECT_EQ(test, r->nr_accesses, 0U);

	/* Same intervals: nothing to rescale. */
	r->nr_accesses = 3;
	damon_test_set_intervals(test, ctx, 5000, 50000);
	KUNIT_EXPECT_EQ(test, r->nr_accesses, 3U);
	KUNIT_EXPECT_EQ(test, r->age, 8U);
}

static void damon_test_rescale(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, damon_rescale(10, 3, 2), 15U);
	KUNIT_EXPECT_EQ(test, damon_rescale(0, 5, 0), 0U);
	KUNIT_EXPECT_EQ(test, damon_rescale(7, 5, 0), UINT_MAX);
	KUNIT_EXPECT_EQ(test, damon_rescale(UINT_MAX, ULONG_MAX, 1), UINT_MAX);
	/* Products beyond 64 bits. */
	KUNIT_EXPECT_EQ(test, damon_rescale(1000, 1ULL << 63, 1ULL << 62),
			2000U);
	KUNIT_EXPECT_EQ(test, damon_rescale(3, U64_MAX, U64_MAX), 3U);
	KUNIT_EXPECT_EQ(test, damon_rescale(UINT_MAX, U64_MAX, U64_MAX),
			UINT_MAX);
	KUNIT_EXPECT_EQ(test, damon_rescale(1U << 31, 1ULL << 40, 1ULL << 41),
			1U << 30);
}

/*
 * Aggregation intervals of 2^32 us and more: ages follow them exactly,
 * with no truncation to 32 bits on the way (which divided by zero).
 */
static void damon_test_set_attrs_huge_intervals(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_ctx(test);
	struct damon_target *t = damon_test_add_target(test, ctx, 0, P);
	struct damon_region *r = list_first_entry(&t->regions,
						  struct damon_region, list);

	damon_test_set_intervals(test, ctx, 5000, 3UL << 31);
	r->age = 3000;
	damon_test_set_intervals(test, ctx, 5000, 1UL << 31);
	KUNIT_EXPECT_EQ(test, r->age, 9000U);
	damon_test_set_intervals(test, ctx, 5000, 1UL << 33);
	KUNIT_EXPECT_EQ(test, r->age, 2250U);
	damon_test_set_intervals(test, ctx, 5000, 1UL << 32);
	KUNIT_EXPECT_EQ(test, r->age, 4500U);
	damon_test_set_intervals(test, ctx, ULONG_MAX, ULONG_MAX);
	KUNIT_EXPECT_EQ(test, r->age, 0U);
	KUNIT_EXPECT_EQ(test, damon_max_nr_accesses(&ctx->attrs), 1U);
}

static void damon_test_unit_conversions(struct kunit *test)
{
	struct damon_attrs attrs = {
		.sample_interval = 5000, .aggr_interval = 100000,
		.min_nr_regions = 10, .max_nr_regions = 1000,
	};

	KUNIT_EXPECT_EQ(test, damon_max_nr_accesses(&attrs), 20U);
	KUNIT_EXPECT_EQ(test, damon_us_to_aggr_windows(&attrs, 250000), 2U);
	KUNIT_EXPECT_EQ(test, damon_us_to_aggr_windows(&attrs, 99999), 0U);
	KUNIT_EXPECT_EQ(test, damon_us_to_aggr_windows(&attrs, ULONG_MAX),
			UINT_MAX);
	attrs.sample_interval = 0;
	KUNIT_EXPECT_EQ(test, damon_max_nr_accesses(&attrs), 1U);
	attrs.sample_interval = 200000;
	KUNIT_EXPECT_EQ(test, damon_max_nr_accesses(&attrs), 1U);
	attrs.aggr_interval = 0;
	KUNIT_EXPECT_EQ(test, damon_us_to_aggr_windows(&attrs, 250000), 0U);
}

static void damon_test_nr_regions(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_ctx(test);
	const struct damon_addr_range ranges[] = {
		{ 0, P }, { 2 * P, 3 * P }, { 4 * P, 5 * P },
	};
	struct damon_target *t;

	damon_test_add_target(test, ctx, 0, P);
	t = damon_test_add_target(test, ctx, 0, P);
	KUNIT_ASSERT_EQ(test, damon_set_regions(t, ranges, 3, P), 0);
	KUNIT_EXPECT_EQ(test, damon_nr_regions(ctx), 4U);
}

/* === Operations registry === */

static void damon_test_fake_prepare(struct damon_ctx *ctx)
{
}

static unsigned int damon_test_fake_check(struct damon_ctx *ctx)
{
	return 0;
}

static void damon_test_ops_registry(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_ctx(test);
	struct damon_operations ops = {
		.id = DAMON_OPS_PADDR,
		.prepare_access_checks = damon_test_fake_prepare,
		.check_accesses = damon_test_fake_check,
	};

	if (!IS_ENABLED(CONFIG_DAMON_PADDR))
		kunit_skip(test, "needs the physical address operations");
	/* They register at boot. */
	KUNIT_ASSERT_EQ(test, damon_select_ops(ctx, DAMON_OPS_PADDR), 0);
	KUNIT_EXPECT_EQ(test, ctx->ops.id, DAMON_OPS_PADDR);
	KUNIT_EXPECT_NOT_NULL(test, ctx->ops.check_accesses);
	KUNIT_EXPECT_TRUE(test, ctx->ops.check_accesses != damon_test_fake_check);
	KUNIT_EXPECT_EQ(test, damon_register_ops(&ops), -EBUSY);

	ops.id = NR_DAMON_OPS;
	KUNIT_EXPECT_EQ(test, damon_register_ops(&ops), -EINVAL);
	ops.id = DAMON_OPS_PADDR;
	ops.check_accesses = NULL;
	KUNIT_EXPECT_EQ(test, damon_register_ops(&ops), -EINVAL);
	KUNIT_EXPECT_EQ(test, damon_select_ops(ctx, NR_DAMON_OPS), -EINVAL);
}

/*
 * A window cut short after 10 of its 20 samples, or after 3, counts out of
 * 20 all the same; full windows are left alone.
 */
static void damon_test_scale_window_accesses(struct kunit *test)
{
	static const unsigned int counts[] = { 0, 1, 5, 10 };
	static const unsigned int of_10[] = { 0, 2, 10, 20 };
	static const unsigned int of_3[] = { 0, 7, 20, 20 };
	struct damon_ctx *ctx = damon_test_ctx(test);
	struct damon_target *t = damon_test_add_target(test, ctx, 0, 4 * P);
	struct damon_region *r;
	unsigned int i;

	damon_test_set_intervals(test, ctx, 5000, 100000);
	KUNIT_ASSERT_EQ(test, damon_max_nr_accesses(&ctx->attrs), 20U);
	for (i = 0; i < 3; i++) {
		r = list_last_entry(&t->regions, struct damon_region, list);
		damon_split_region_at(t, r, P);
	}
	KUNIT_ASSERT_EQ(test, damon_nr_regions(ctx), 4U);

	i = 0;
	damon_for_each_region(r, t)
		r->nr_accesses = counts[i++];
	damon_scale_window_accesses(ctx, 20);
	i = 0;
	damon_for_each_region(r, t)
		KUNIT_EXPECT_EQ(test, r->nr_accesses, counts[i++]);
	damon_scale_window_accesses(ctx, 10);
	i = 0;
	damon_for_each_region(r, t)
		KUNIT_EXPECT_EQ(test, r->nr_accesses, of_10[i++]);

	i = 0;
	damon_for_each_region(r, t) {
		r->nr_accesses = min(counts[i], 3U);
		i++;
	}
	damon_scale_window_accesses(ctx, 3);
	i = 0;
	damon_for_each_region(r, t)
		KUNIT_EXPECT_EQ(test, r->nr_accesses, of_3[i++]);
}

/*
 * Samples slept through: as many as the operations say check nothing, as
 * long as the window keeps one to take and the sleep ends with the first
 * sample due at or after the window's deadline.
 */
static void damon_test_samples_to_skip(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_fake_ctx(test, 5000, 100000);
	static const struct {
		unsigned int quiet;
		unsigned int taken;
		u64 now_us;
		unsigned int skip;
	} cases[] = {
		{ 0, 0, 0, 0 },
		{ 3, 0, 0, 3 },
		{ UINT_MAX, 0, 0, 19 },		/* one left to take */
		{ 3, 16, 80000, 3 },
		{ 3, 17, 80000, 2 },
		{ 3, 19, 80000, 0 },
		{ 3, 0, 80000, 3 },		/* 20 ms left: 4 intervals */
		{ 3, 0, 85000, 2 },		/* 15 ms: 3 */
		{ 3, 0, 90001, 1 },		/* under 10 ms: 2 */
		{ 3, 0, 96000, 0 },
		{ 3, 0, 100000, 0 },		/* the window is over */
	};
	unsigned int i;

	KUNIT_ASSERT_EQ(test, damon_max_nr_accesses(&ctx->attrs), 20U);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		damon_fake_ops_set_quiet_samples(cases[i].quiet);
		ctx->window_nr_samples = cases[i].taken;
		ctx->now_us = cases[i].now_us;
		ctx->next_aggregation_us = 100000;
		KUNIT_EXPECT_EQ_MSG(test, damon_nr_samples_to_skip(ctx),
				    cases[i].skip, "case %u", i);
	}
	/* Operations that cannot tell: never. */
	ctx->ops.nr_quiet_samples = NULL;
	ctx->window_nr_samples = 0;
	ctx->now_us = 0;
	KUNIT_EXPECT_EQ(test, damon_nr_samples_to_skip(ctx), 0U);
}

/* A window that never ends: skips all its samples but one, no wrap. */
static void damon_test_samples_to_skip_endless_window(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_fake_ctx(test, 5000, ULONG_MAX);

	damon_fake_ops_set_quiet_samples(UINT_MAX);
	ctx->window_nr_samples = 0;
	ctx->now_us = 1000;
	ctx->next_aggregation_us = U64_MAX;
	KUNIT_EXPECT_EQ(test, damon_nr_samples_to_skip(ctx), UINT_MAX - 1);
	ctx->now_us = U64_MAX - 1;
	KUNIT_EXPECT_EQ(test, damon_nr_samples_to_skip(ctx), 0U);
}

/* A sleep cut short counts only the samples whose time passed. */
static void damon_test_count_slept_samples(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_fake_ctx(test, 5000, 100000);
	static const struct {
		unsigned int nr_skip;
		u64 slept_us;
		unsigned int left;
	} cases[] = {
		{ 19, 100000, 19 },	/* slept through */
		{ 19, 120000, 19 },
		{ 19, 50000, 9 },	/* 10 intervals: 9 skipped, 1 taken */
		{ 19, 4999, 0 },	/* none passed: the one taken only */
		{ 19, 0, 0 },
		{ 0, 0, 0 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		ctx->window_nr_samples = cases[i].nr_skip;
		damon_count_slept_samples(ctx, cases[i].nr_skip,
					  cases[i].slept_us);
		KUNIT_EXPECT_EQ_MSG(test, ctx->window_nr_samples,
				    cases[i].left, "case %u", i);
	}
	/* Samples taken before the skip stay counted. */
	ctx->window_nr_samples = 5 + 10;
	damon_count_slept_samples(ctx, 10, 0);
	KUNIT_EXPECT_EQ(test, ctx->window_nr_samples, 5U);
}

/* === Start and stop === */

static void damon_test_start_stop(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_fake_ctx(test, 1000, 10000);
	struct damon_test_hooks *h = damon_test_hook(test, ctx);
	unsigned long nr_aggr;

	KUNIT_ASSERT_EQ(test, damon_fake_ops_add_hot_range(0, 64 * P, 1), 0);
	KUNIT_ASSERT_EQ(test, damon_start(ctx), 0);
	KUNIT_EXPECT_TRUE(test, damon_is_running(ctx));
	KUNIT_EXPECT_GT(test, damon_kdamond_pid(ctx), 0);
	KUNIT_EXPECT_TRUE(test, damon_test_wait_atomic(&h->nr_aggregations, 3,
						       10000));
	KUNIT_EXPECT_EQ(test, damon_stop(ctx), 0);

	KUNIT_EXPECT_FALSE(test, damon_is_running(ctx));
	KUNIT_EXPECT_EQ(test, damon_kdamond_pid(ctx), -1);
	KUNIT_EXPECT_TRUE(test, h->terminated);
	KUNIT_EXPECT_EQ(test, damon_fake_ops_nr_inits(), 1U);
	KUNIT_EXPECT_EQ(test, damon_fake_ops_nr_cleanups(), 1U);
	/*
	 * Windows hold 10 samples at most, fewer when sampling is slower than
	 * 1 ms (then they end on time), and at least one.
	 */
	nr_aggr = atomic_read(&h->nr_aggregations);
	KUNIT_EXPECT_GE(test, damon_fake_ops_nr_samples(), nr_aggr);
	KUNIT_EXPECT_LE(test, damon_fake_ops_nr_samples(), 10 * (nr_aggr + 1));
	/* The operations were told which sample ended each window. */
	KUNIT_EXPECT_EQ(test, damon_fake_ops_nr_last_samples(), nr_aggr);
	/* All hot: every region found accessed in all samples, out of 10. */
	KUNIT_EXPECT_EQ(test, h->min_nr_accesses, 10U);
	KUNIT_EXPECT_EQ(test, h->max_nr_accesses, 10U);
	/* At least min_nr_regions from the start. */
	KUNIT_EXPECT_GE(test, damon_nr_regions(ctx), 10U);

	KUNIT_EXPECT_EQ(test, damon_stop(ctx), -EPERM);
}

/*
 * A kdamond whose operations have nothing to check in 3 samples of 4 takes
 * one in 4 and counts the others as slept through: the windows hold 4
 * samples per one taken, but for those capped by a window's deadline (in
 * its last 4 intervals).
 */
static void damon_test_sleeps_through_quiet_samples(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_fake_ctx(test, 1000, 500000);
	struct damon_test_hooks *h = damon_test_hook(test, ctx);
	unsigned long nr_aggr, checks;

	damon_fake_ops_set_quiet_samples(3);
	KUNIT_ASSERT_EQ(test, damon_start(ctx), 0);
	KUNIT_EXPECT_TRUE(test, damon_test_wait_atomic(&h->nr_aggregations, 2,
						       20000));
	KUNIT_EXPECT_EQ(test, damon_stop(ctx), 0);

	nr_aggr = atomic_read(&h->nr_aggregations);
	checks = h->checks_at_aggr;
	KUNIT_EXPECT_GE(test, checks, nr_aggr);
	KUNIT_EXPECT_LE(test, h->window_slots, 4 * checks);
	KUNIT_EXPECT_GE(test, h->window_slots + 12 * nr_aggr, 4 * checks);
}

/*
 * Operations with nothing to check but in the last sample of a window: one
 * sample taken per window, the window's last, and all 20 counted.
 */
static void damon_test_one_sample_per_quiet_window(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_fake_ctx(test, 1000, 20000);
	struct damon_test_hooks *h = damon_test_hook(test, ctx);
	unsigned long nr_aggr;

	damon_fake_ops_set_quiet_samples(UINT_MAX);
	KUNIT_ASSERT_EQ(test, damon_start(ctx), 0);
	KUNIT_EXPECT_TRUE(test, damon_test_wait_atomic(&h->nr_aggregations, 3,
						       10000));
	KUNIT_EXPECT_EQ(test, damon_stop(ctx), 0);

	nr_aggr = atomic_read(&h->nr_aggregations);
	KUNIT_EXPECT_EQ(test, h->checks_at_aggr, nr_aggr);
	KUNIT_EXPECT_EQ(test, h->window_slots, 20 * nr_aggr);
	KUNIT_EXPECT_EQ(test, damon_fake_ops_nr_last_samples(), nr_aggr);
}

/* Cold memory is never found accessed. */
static void damon_test_cold_memory(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_fake_ctx(test, 1000, 5000);
	struct damon_test_hooks *h = damon_test_hook(test, ctx);

	KUNIT_ASSERT_EQ(test, damon_fake_ops_add_hot_range(SZ_1G, SZ_2G, 1),
			0);
	KUNIT_ASSERT_EQ(test, damon_start(ctx), 0);
	KUNIT_EXPECT_TRUE(test, damon_test_wait_atomic(&h->nr_aggregations, 3,
						       10000));
	KUNIT_EXPECT_EQ(test, damon_stop(ctx), 0);
	KUNIT_EXPECT_EQ(test, h->max_nr_accesses, 0U);
}

static void damon_test_start_twice(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_fake_ctx(test, 1000, 10000);

	KUNIT_ASSERT_EQ(test, damon_start(ctx), 0);
	KUNIT_EXPECT_EQ(test, damon_start(ctx), -EBUSY);
	KUNIT_EXPECT_EQ(test, damon_fake_ops_nr_inits(), 1U);
	KUNIT_EXPECT_EQ(test, damon_stop(ctx), 0);
	/* And again after a stop. */
	KUNIT_EXPECT_EQ(test, damon_start(ctx), 0);
	KUNIT_EXPECT_EQ(test, damon_stop(ctx), 0);
	KUNIT_EXPECT_EQ(test, damon_fake_ops_nr_inits(), 2U);
}

static void damon_test_start_invalid(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_ctx(test);

	damon_test_add_target(test, ctx, 0, P);
	/* No operations selected. */
	KUNIT_EXPECT_EQ(test, damon_start(ctx), -EINVAL);
	KUNIT_ASSERT_EQ(test, damon_fake_ops_select(ctx), 0);
	ctx->attrs.aggr_interval = ctx->attrs.sample_interval - 1;
	KUNIT_EXPECT_EQ(test, damon_start(ctx), -EINVAL);
	KUNIT_EXPECT_FALSE(test, damon_is_running(ctx));
	KUNIT_EXPECT_EQ(test, damon_fake_ops_nr_inits(), 0U);
}

static void damon_test_start_no_target(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_ctx(test);

	KUNIT_ASSERT_EQ(test, damon_fake_ops_select(ctx), 0);
	KUNIT_EXPECT_EQ(test, damon_start(ctx), -EINVAL);
	KUNIT_EXPECT_FALSE(test, damon_is_running(ctx));
	KUNIT_EXPECT_EQ(test, damon_kdamond_pid(ctx), -1);
	/* Refused before the operations were set up. */
	KUNIT_EXPECT_EQ(test, damon_fake_ops_nr_inits(), 0U);
	KUNIT_EXPECT_EQ(test, damon_stop(ctx), -EPERM);
}

/* The time damon_stop() takes on a context started @delay_ms ago. */
static s64 damon_test_stop_ms(struct kunit *test, struct damon_ctx *ctx,
			      unsigned int delay_ms)
{
	ktime_t start;

	KUNIT_EXPECT_EQ(test, damon_start(ctx), 0);
	msleep(delay_ms);
	start = ktime_get();
	KUNIT_EXPECT_EQ(test, damon_stop(ctx), 0);
	return ktime_ms_delta(ktime_get(), start);
}

/*
 * With 10 s aggregation and 2 s sampling, stop must not wait for either:
 * kthread_stop() wakes kdamond from its sleep.  Generous 500 ms for a slow
 * debug kernel under emulation, still far below one sampling interval.
 */
static void damon_test_stop_is_prompt(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_fake_ctx(test, 2000000, 10000000);
	s64 ms;

	ms = damon_test_stop_ms(test, ctx, 100);
	KUNIT_EXPECT_LT(test, ms, 500);
	ms = damon_test_stop_ms(test, ctx, 1);
	KUNIT_EXPECT_LT(test, ms, 500);
}

/* Same while all schemes are held inactive by watermarks checked every 10 s. */
static void damon_test_stop_is_prompt_wmarks(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_fake_ctx(test, 5000, 100000);
	struct damos_access_pattern pattern = {
		.max_sz_region = ULONG_MAX,
		.max_nr_accesses = UINT_MAX,
		.max_age_region = UINT_MAX,
	};
	struct damos_quota quota = { .reset_interval_ms = 1000 };
	/* Free memory is never at or below 0 per-thousand: inactive. */
	struct damos_watermarks wmarks = {
		.metric = DAMOS_WMARK_FREE_MEM_RATE,
		.interval_us = 10000000,
	};
	struct damos *s;
	s64 ms;

	s = damos_new_scheme(&pattern, DAMOS_STAT, &quota, &wmarks);
	KUNIT_ASSERT_NOT_NULL(test, s);
	damon_add_scheme(ctx, s);
	ms = damon_test_stop_ms(test, ctx, 200);
	KUNIT_EXPECT_LT(test, ms, 500);
	/* It slept: nothing was sampled. */
	KUNIT_EXPECT_EQ(test, damon_fake_ops_nr_samples(), 0UL);
}

/* A hook asking to stop ends kdamond on its own; it can start again. */
static void damon_test_hook_stops(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_fake_ctx(test, 1000, 10000);
	struct damon_test_hooks *h = damon_test_hook(test, ctx);

	h->nr_aggregations_to_stop = 2;
	KUNIT_ASSERT_EQ(test, damon_start(ctx), 0);
	KUNIT_EXPECT_TRUE(test, damon_test_wait_stopped(ctx, 5000));
	KUNIT_EXPECT_EQ(test, damon_kdamond_pid(ctx), -1);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->nr_aggregations), 2);
	KUNIT_EXPECT_TRUE(test, h->terminated);
	KUNIT_EXPECT_EQ(test, damon_fake_ops_nr_cleanups(), 1U);

	/* The stopped thread is reaped by the next start. */
	h->nr_aggregations_to_stop = 0;
	KUNIT_EXPECT_EQ(test, damon_start(ctx), 0);
	KUNIT_EXPECT_TRUE(test, damon_is_running(ctx));
	KUNIT_EXPECT_EQ(test, damon_stop(ctx), 0);
	KUNIT_EXPECT_EQ(test, damon_stop(ctx), -EPERM);
}

struct damon_test_start_stopper {
	struct damon_ctx *ctx;
	unsigned int nr_unexpected;
	struct completion done;
};

static int damon_test_start_stop_loop(void *data)
{
	struct damon_test_start_stopper *s = data;
	unsigned int i;
	int err;

	for (i = 0; i < 20; i++) {
		err = damon_start(s->ctx);
		if (err && err != -EBUSY)
			s->nr_unexpected++;
		err = damon_stop(s->ctx);
		if (err && err != -EPERM)
			s->nr_unexpected++;
	}
	complete(&s->done);
	return 0;
}

/* Starts and stops racing each other never fail in unexpected ways. */
static void damon_test_concurrent_start_stop(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_fake_ctx(test, 1000, 5000);
	struct damon_test_start_stopper other = { .ctx = ctx };
	struct task_struct *tsk;
	unsigned int i, nr_unexpected = 0;
	int err;

	init_completion(&other.done);
	tsk = kthread_run(damon_test_start_stop_loop, &other, "damon-test");
	KUNIT_ASSERT_FALSE(test, IS_ERR(tsk));
	for (i = 0; i < 20; i++) {
		err = damon_stop(ctx);
		if (err && err != -EPERM)
			nr_unexpected++;
		err = damon_start(ctx);
		if (err && err != -EBUSY)
			nr_unexpected++;
	}
	wait_for_completion(&other.done);
	damon_stop(ctx);
	KUNIT_EXPECT_EQ(test, nr_unexpected, 0U);
	KUNIT_EXPECT_EQ(test, other.nr_unexpected, 0U);
	KUNIT_EXPECT_FALSE(test, damon_is_running(ctx));
	KUNIT_EXPECT_EQ(test, damon_fake_ops_nr_inits(),
			damon_fake_ops_nr_cleanups());
}

/* === damon_call() === */

struct damon_test_call {
	bool in_kdamond;
	unsigned int nr_calls;
};

static int damon_test_call_fn(struct damon_ctx *ctx, void *data)
{
	struct damon_test_call *c = data;

	c->in_kdamond = current == ctx->kdamond;
	c->nr_calls++;
	return 7;
}

static void damon_test_call(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_fake_ctx(test, 1000000, 10000000);
	struct damon_test_call c = {};
	ktime_t start;

	/* Not running: runs right here. */
	KUNIT_EXPECT_EQ(test, damon_call(ctx, damon_test_call_fn, &c), 7);
	KUNIT_EXPECT_FALSE(test, c.in_kdamond);
	KUNIT_EXPECT_EQ(test, c.nr_calls, 1U);

	/* Running: kdamond runs it, woken from its 1 s sleep. */
	KUNIT_ASSERT_EQ(test, damon_start(ctx), 0);
	start = ktime_get();
	KUNIT_EXPECT_EQ(test, damon_call(ctx, damon_test_call_fn, &c), 7);
	KUNIT_EXPECT_LT(test, ktime_ms_delta(ktime_get(), start), 500);
	KUNIT_EXPECT_TRUE(test, c.in_kdamond);
	KUNIT_EXPECT_EQ(test, c.nr_calls, 2U);
	KUNIT_EXPECT_EQ(test, damon_stop(ctx), 0);
}

/*
 * A request queued while kdamond is busy between two sleeps (here in a slow
 * prepare_access_checks()) finds it running, so its wakeup is lost: kdamond
 * must still see it before it sleeps, not 30 s later.
 */
static void damon_test_call_while_busy(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_fake_ctx(test, 30 * USEC_PER_SEC,
						    60 * USEC_PER_SEC);
	struct damon_test_call c = {};
	ktime_t start;

	damon_fake_ops_delay_next_prepare(1000);
	KUNIT_ASSERT_EQ(test, damon_start(ctx), 0);
	msleep(200);
	start = ktime_get();
	KUNIT_EXPECT_EQ(test, damon_call(ctx, damon_test_call_fn, &c), 7);
	KUNIT_EXPECT_LT(test, ktime_ms_delta(ktime_get(), start), 10000);
	KUNIT_EXPECT_EQ(test, c.nr_calls, 1U);
	KUNIT_EXPECT_EQ(test, damon_stop(ctx), 0);
}

/*
 * Requests wake kdamond from sleeps through quiet samples, but do not end
 * aggregation windows: ages keep counting windows of the aggregation
 * interval however often a client calls.
 */
static void damon_test_calls_keep_windows(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_fake_ctx(test, 100000,
						    3 * USEC_PER_SEC);
	struct damon_test_hooks *h = damon_test_hook(test, ctx);
	struct damon_test_call c = {};
	ktime_t start;
	s64 ms;
	int i;

	damon_fake_ops_set_quiet_samples(UINT_MAX);
	KUNIT_ASSERT_EQ(test, damon_start(ctx), 0);
	start = ktime_get();
	for (i = 0; i < 10; i++) {
		KUNIT_EXPECT_EQ(test, damon_call(ctx, damon_test_call_fn, &c),
				7);
		msleep(50);
	}
	ms = ktime_ms_delta(ktime_get(), start);
	KUNIT_EXPECT_EQ(test, damon_stop(ctx), 0);
	KUNIT_EXPECT_EQ(test, c.nr_calls, 10U);
	/* One window at most per 3 s that passed, and one more started. */
	KUNIT_EXPECT_LE(test, atomic_read(&h->nr_aggregations),
			(int)(ms / 3000) + 1);
}

/* === damon_commit_ctx() === */

struct damon_test_snapshot {
	struct damon_attrs attrs;
	unsigned int nr_targets;
	unsigned long start;
	unsigned long end;
	unsigned long sz;
};

static int damon_test_snapshot_fn(struct damon_ctx *ctx, void *data)
{
	struct damon_test_snapshot *snap = data;
	struct damon_target *t;
	struct damon_region *r;

	memset(snap, 0, sizeof(*snap));
	snap->attrs = ctx->attrs;
	snap->start = ULONG_MAX;
	damon_for_each_target(t, ctx) {
		snap->nr_targets++;
		damon_for_each_region(r, t) {
			snap->start = min(snap->start, r->ar.start);
			snap->end = max(snap->end, r->ar.end);
			snap->sz += damon_region_sz(r);
		}
	}
	return 0;
}

/* A source context using the fake backend, without targets. */
static struct damon_ctx *damon_test_src(struct kunit *test,
					unsigned long sample_us,
					unsigned long aggr_us)
{
	struct damon_ctx *src = damon_test_ctx(test);

	KUNIT_ASSERT_EQ(test, damon_fake_ops_select(src), 0);
	damon_test_set_intervals(test, src, sample_us, aggr_us);
	return src;
}

/* A commit that leaves no target ends monitoring at the next aggregation. */
static void damon_test_targets_vanish(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_fake_ctx(test, 1000, 5000);
	struct damon_ctx *src = damon_test_src(test, 1000, 5000);

	KUNIT_ASSERT_EQ(test, damon_start(ctx), 0);
	KUNIT_EXPECT_EQ(test, damon_commit_ctx(ctx, src), 0);
	KUNIT_EXPECT_TRUE(test, damon_test_wait_stopped(ctx, 5000));
	KUNIT_EXPECT_EQ(test, damon_nr_regions(ctx), 0U);
	KUNIT_EXPECT_EQ(test, damon_kdamond_pid(ctx), -1);
	/* Reaping a thread that stopped on its own counts as a stop. */
	KUNIT_EXPECT_EQ(test, damon_stop(ctx), 0);
}

static void damon_test_commit_running(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_fake_ctx(test, 1000, 10000);
	struct damon_ctx *src = damon_test_src(test, 2000, 40000);
	struct damon_test_snapshot snap;
	unsigned long nr_samples;

	damon_test_add_target(test, src, 16 * P, 128 * P);
	src->attrs.max_nr_regions = 200;
	KUNIT_ASSERT_EQ(test, damon_start(ctx), 0);
	KUNIT_EXPECT_EQ(test, damon_commit_ctx(ctx, src), 0);
	KUNIT_EXPECT_EQ(test, damon_call(ctx, damon_test_snapshot_fn, &snap),
			0);
	KUNIT_EXPECT_EQ(test, snap.attrs.sample_interval, 2000UL);
	KUNIT_EXPECT_EQ(test, snap.attrs.aggr_interval, 40000UL);
	KUNIT_EXPECT_EQ(test, snap.attrs.max_nr_regions, 200UL);
	KUNIT_EXPECT_EQ(test, snap.nr_targets, 1U);
	KUNIT_EXPECT_EQ(test, snap.start, 16 * P);
	KUNIT_EXPECT_EQ(test, snap.end, 128 * P);
	KUNIT_EXPECT_EQ(test, snap.sz, 112 * P);

	/* Invalid: refused, the running parameters stay. */
	src->attrs.aggr_interval = 1000;
	KUNIT_EXPECT_EQ(test, damon_commit_ctx(ctx, src), -EINVAL);
	src->attrs.aggr_interval = 40000;
	src->min_region_sz = 3;
	KUNIT_EXPECT_EQ(test, damon_commit_ctx(ctx, src), -EINVAL);
	KUNIT_EXPECT_EQ(test, damon_call(ctx, damon_test_snapshot_fn, &snap),
			0);
	KUNIT_EXPECT_EQ(test, snap.attrs.aggr_interval, 40000UL);
	KUNIT_EXPECT_EQ(test, snap.sz, 112 * P);

	/* Still monitoring. */
	nr_samples = damon_fake_ops_nr_samples();
	KUNIT_EXPECT_TRUE(test, damon_test_wait_samples(nr_samples + 5, 5000));
	KUNIT_EXPECT_TRUE(test, damon_is_running(ctx));
	KUNIT_EXPECT_EQ(test, damon_stop(ctx), 0);
}

/*
 * Commits that change no interval leave the aggregation window alone, so
 * access counts never exceed the samples of one window.
 */
static void damon_test_commit_keeps_window(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_fake_ctx(test, 1000, 10000);
	struct damon_ctx *src = damon_test_src(test, 1000, 10000);
	struct damon_test_hooks *h = damon_test_hook(test, ctx);
	unsigned int i;

	damon_test_add_target(test, src, 0, 64 * P);
	KUNIT_ASSERT_EQ(test, damon_fake_ops_add_hot_range(0, 64 * P, 1), 0);
	KUNIT_ASSERT_EQ(test, damon_start(ctx), 0);
	for (i = 0; i < 30; i++) {
		KUNIT_EXPECT_EQ(test, damon_commit_ctx(ctx, src), 0);
		usleep_range(2000, 3000);
	}
	KUNIT_EXPECT_TRUE(test, damon_test_wait_atomic(&h->nr_aggregations, 3,
						       10000));
	KUNIT_EXPECT_EQ(test, damon_stop(ctx), 0);
	KUNIT_EXPECT_EQ(test, h->min_nr_accesses, 10U);
	KUNIT_EXPECT_EQ(test, h->max_nr_accesses, 10U);
}

static void damon_test_commit_targets(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_fake_ctx(test, 1000, 10000);
	struct damon_ctx *src = damon_test_src(test, 1000, 10000);
	struct damon_test_snapshot snap;
	struct damon_target *t;

	/* More targets than the destination: one is added. */
	damon_test_add_target(test, src, 0, 8 * P);
	t = damon_test_add_target(test, src, 100 * P, 104 * P);
	KUNIT_EXPECT_EQ(test, damon_commit_ctx(ctx, src), 0);
	damon_test_snapshot_fn(ctx, &snap);
	KUNIT_EXPECT_EQ(test, snap.nr_targets, 2U);
	KUNIT_EXPECT_EQ(test, snap.start, 0UL);
	KUNIT_EXPECT_EQ(test, snap.end, 104 * P);
	KUNIT_EXPECT_EQ(test, snap.sz, 12 * P);

	/* Fewer: the extra one goes. */
	damon_destroy_target(t);
	KUNIT_EXPECT_EQ(test, damon_commit_ctx(ctx, src), 0);
	damon_test_snapshot_fn(ctx, &snap);
	KUNIT_EXPECT_EQ(test, snap.nr_targets, 1U);
	KUNIT_EXPECT_EQ(test, snap.sz, 8 * P);
}

/* Regions of the destination inside the new ranges keep their history. */
static void damon_test_commit_keeps_history(struct kunit *test)
{
	struct damon_ctx *ctx = damon_test_fake_ctx(test, 1000, 10000);
	struct damon_ctx *src = damon_test_src(test, 1000, 10000);
	const struct damon_addr_range ranges[] = {
		{ 0, 2 * P }, { 2 * P, 4 * P },
	};
	struct damon_target *t, *src_t;
	struct damon_region *r;

	t = list_first_entry(&ctx->targets, struct damon_target, list);
	KUNIT_ASSERT_EQ(test, damon_set_regions(t, ranges, 2, P), 0);
	damon_for_each_region(r, t)
		r->age = 5;
	/* Two adjacent source regions: one range, split elsewhere. */
	src_t = damon_test_add_target(test, src, 0, 3 * P);
	KUNIT_ASSERT_EQ(test, damon_set_regions(src_t, ranges, 2, P), 0);
	damon_split_region_at(src_t, list_first_entry(&src_t->regions,
						      struct damon_region,
						      list), P);

	KUNIT_EXPECT_EQ(test, damon_commit_ctx(ctx, src), 0);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 2U);
	damon_for_each_region(r, t)
		KUNIT_EXPECT_EQ(test, r->age, 5U);
	KUNIT_EXPECT_EQ(test, list_first_entry(&t->regions,
					       struct damon_region,
					       list)->ar.end, 2 * P);
}

static struct kunit_case damon_core_test_cases[] = {
	KUNIT_CASE(damon_test_new_ctx_defaults),
	KUNIT_CASE(damon_test_validate_attrs),
	KUNIT_CASE(damon_test_set_attrs_invalid_keeps_old),
	KUNIT_CASE(damon_test_set_attrs_rescales),
	KUNIT_CASE(damon_test_rescale),
	KUNIT_CASE(damon_test_set_attrs_huge_intervals),
	KUNIT_CASE(damon_test_unit_conversions),
	KUNIT_CASE(damon_test_scale_window_accesses),
	KUNIT_CASE(damon_test_samples_to_skip),
	KUNIT_CASE(damon_test_samples_to_skip_endless_window),
	KUNIT_CASE(damon_test_count_slept_samples),
	KUNIT_CASE(damon_test_nr_regions),
	KUNIT_CASE(damon_test_ops_registry),
	KUNIT_CASE(damon_test_start_stop),
	KUNIT_CASE(damon_test_sleeps_through_quiet_samples),
	KUNIT_CASE(damon_test_one_sample_per_quiet_window),
	KUNIT_CASE(damon_test_cold_memory),
	KUNIT_CASE(damon_test_start_twice),
	KUNIT_CASE(damon_test_start_invalid),
	KUNIT_CASE(damon_test_start_no_target),
	KUNIT_CASE(damon_test_stop_is_prompt),
	KUNIT_CASE(damon_test_stop_is_prompt_wmarks),
	KUNIT_CASE(damon_test_hook_stops),
	KUNIT_CASE(damon_test_concurrent_start_stop),
	KUNIT_CASE(damon_test_call),
	KUNIT_CASE(damon_test_call_while_busy),
	KUNIT_CASE(damon_test_calls_keep_windows),
	KUNIT_CASE(damon_test_commit_running),
	KUNIT_CASE(damon_test_targets_vanish),
	KUNIT_CASE(damon_test_commit_keeps_window),
	KUNIT_CASE(damon_test_commit_targets),
	KUNIT_CASE(damon_test_commit_keeps_history),
	{}
};

static struct kunit_suite damon_core_test_suite = {
	.name = "damon-core",
	.test_cases = damon_core_test_cases,
};

kunit_test_suite(damon_core_test_suite);
