/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fake operations backend for the KUnit suites of DAMON.
 *
 * It monitors no real memory.  A suite tells it which address ranges are
 * "hot" (found accessed when sampled, every sample or one sample in N), and
 * it counts accesses of regions whose sampling address falls in a hot range.
 * It records the regions the DAMOS engine applies actions to, and can
 * pretend that acting takes a chosen time per byte on a fake clock the suite
 * hands to damos_set_test_clock().  So the whole kdamond loop, schemes
 * included, runs deterministically.
 *
 * Usage:
 *	damon_fake_ops_select(ctx);		// reset state, ctx->ops = fake
 *	damon_fake_ops_add_hot_range(0, SZ_1M, 1);
 *	damos_set_test_clock(damon_fake_ops_clock_ns);	// time quotas only
 *	... damon_start(ctx) or drive the engine by hand ...
 *	KUNIT_EXPECT_EQ(test, damon_fake_ops_nr_applied(), 2);
 *	damos_set_test_clock(NULL);
 *
 * The state is global (one suite runs at a time) and protected by a
 * spinlock, so it may be changed and read while kdamond runs.
 */
#ifndef _MM_DAMON_TESTS_FAKE_OPS_H
#define _MM_DAMON_TESTS_FAKE_OPS_H

#include <linux/damon.h>
#include <linux/types.h>

/* Most hot ranges the fake backend holds. */
#define DAMON_FAKE_MAX_HOT_RANGES	8

/* Most apply_scheme() calls recorded; later calls are only counted. */
#define DAMON_FAKE_MAX_APPLIED		64

/**
 * struct damon_fake_applied - One apply_scheme() call the backend received.
 * @start:		Start of the region acted on.
 * @end:		Where the action stopped: the region's end, or where
 *			the budget ran out.
 * @nr_accesses:	Access count of the region at that time.
 * @age:		Age of the region at that time.
 * @scheme:		The scheme (compare pointers only; it may be gone).
 * @action:		The action of the scheme.
 */
struct damon_fake_applied {
	unsigned long start;
	unsigned long end;
	unsigned int nr_accesses;
	unsigned int age;
	const struct damos *scheme;
	enum damos_action action;
};

/**
 * typedef damon_fake_score_fn - Priority score of a region for a scheme.
 * @r:	The region.
 * @s:	The scheme.
 *
 * Return: a score from 0 to %DAMOS_MAX_SCORE.
 */
typedef int (*damon_fake_score_fn)(const struct damon_region *r,
				   const struct damos *s);

int damon_fake_ops_select(struct damon_ctx *ctx);
void damon_fake_ops_reset(void);
int damon_fake_ops_add_hot_range(unsigned long start, unsigned long end,
				 unsigned int every);
void damon_fake_ops_set_quiet_samples(unsigned int nr);
void damon_fake_ops_delay_next_prepare(unsigned int ms);
void damon_fake_ops_set_cost_ns_per_byte(u64 ns);
void damon_fake_ops_set_applied_permil(unsigned int permil);
void damon_fake_ops_set_tried_permil(unsigned int permil);
void damon_fake_ops_set_unprepared_permil(unsigned int permil);
void damon_fake_ops_set_prepared_from(unsigned long addr);
void damon_fake_ops_set_clock_check_sz(unsigned long sz);
void damon_fake_ops_set_score_fn(damon_fake_score_fn fn);
u64 damon_fake_ops_clock_ns(void);
void damon_fake_ops_advance_clock_ns(u64 ns);

unsigned long damon_fake_ops_nr_samples(void);
unsigned long damon_fake_ops_nr_last_samples(void);
unsigned int damon_fake_ops_nr_inits(void);
unsigned int damon_fake_ops_nr_cleanups(void);
unsigned int damon_fake_ops_nr_applied(void);
bool damon_fake_ops_applied(unsigned int i, struct damon_fake_applied *rec);

#endif /* _MM_DAMON_TESTS_FAKE_OPS_H */
