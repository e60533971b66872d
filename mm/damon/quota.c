// SPDX-License-Identifier: GPL-2.0
/*
 * DAMOS quotas: how much a scheme may do per charge window, and what it does
 * first.
 *
 * At the start of every window the effective size quota (esz) is set to the
 * stricter of the size quota, the bytes the time quota buys at the measured
 * throughput of the action, and the quota tuned by feedback from the goals.
 * Within the window, regions are prioritised by a score, and a histogram of
 * the scores gives the lowest score that still fits in what is left.
 */

#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/workqueue.h>	/* before psi.h, which needs it */
#include <linux/psi.h>
#include <linux/sched.h>
#include <linux/sched/cputime.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "internal.h"

/*
 * Throughput assumed by the time quota until the action was timed once:
 * 1 GiB/s, about what pageout to a compressed RAM swap device achieves.  It
 * only sizes the first window; later ones use the measured throughput.
 */
#define DAMOS_DEFAULT_BYTES_PER_MS	(SZ_1G / MSEC_PER_SEC)

/*
 * The throughput history is halved once it holds more acting time than this
 * many full time quotas, so that the measurement follows the system within a
 * few windows instead of averaging over the whole uptime.
 */
#define DAMOS_THROUGHPUT_HISTORY_QUOTAS	8ULL

/* Bound of the throughput history when there is no time quota to scale by. */
#define DAMOS_THROUGHPUT_HISTORY_MAX_NS	(60ULL * NSEC_PER_SEC)

/* The tuned quota never goes below one page, so tuning can always recover. */
#define DAMOS_TUNE_MIN_BP		((u64)PAGE_SIZE * DAMOS_QUOTA_BP)

/* Headroom so that one doubling step cannot overflow. */
#define DAMOS_TUNE_MAX_BP		(U64_MAX / 2)

/* === Clock === */

#if IS_ENABLED(CONFIG_DAMON_KUNIT_TEST)
static u64 (*damos_test_clock_ns)(void);

/**
 * damos_set_test_clock() - Replace the clocks of the DAMOS engine.
 * @clock_ns:	Returns the time in nanoseconds, or NULL to go back to the
 *		real clocks.
 *
 * Only in kernels with the KUnit suites, which need to control how long
 * actions seem to take and when charge windows end; other kernels read the
 * real clocks directly (see internal.h).  A suite restores the real clocks
 * before it finishes.
 *
 * Context: Any context.  No kdamond may run meanwhile.
 */
void damos_set_test_clock(u64 (*clock_ns)(void))
{
	damos_test_clock_ns = clock_ns;
}

u64 damos_action_clock_ns(void)
{
	if (damos_test_clock_ns)
		return damos_test_clock_ns();
	return task_sched_runtime(current);
}

unsigned long damos_now_jiffies(void)
{
	return damos_test_clock_ns ? nsecs_to_jiffies(damos_test_clock_ns()) :
		jiffies;
}
#endif /* CONFIG_DAMON_KUNIT_TEST */

/* === Arithmetic === */

/**
 * damos_mul_div() - Compute @a * @b / @c without intermediate overflow.
 * @a:	Multiplicand.
 * @b:	Multiplier.
 * @c:	Divisor.
 *
 * Context: Any context.
 * Return: the quotient rounded down, U64_MAX if it does not fit in a u64 or
 * if @c is 0.
 */
VISIBLE_IF_KUNIT u64 damos_mul_div(u64 a, u64 b, u64 c)
{
	u64 q, r, hi;

	if (!c)
		return U64_MAX;
	/* a * b / c = (a / c) * b + (a % c) * b / c, the latter below b. */
	q = div64_u64_rem(a, c, &r);
	if (check_mul_overflow(q, b, &hi))
		return U64_MAX;
	if (check_add_overflow(hi, mul_u64_u64_div_u64(r, b, c), &hi))
		return U64_MAX;
	return hi;
}

static unsigned long damos_clamp_ulong(u64 v)
{
	return min_t(u64, v, ULONG_MAX);
}

/* === Quota goals === */

static u64 damos_psi_mem_some_us(void)
{
#ifdef CONFIG_PSI
	/* Refreshed by the PSI averaging work every couple of seconds. */
	return div_u64(READ_ONCE(psi_system.total[PSI_AVGS][PSI_MEM_SOME]),
		       NSEC_PER_USEC);
#else
	return 0;
#endif
}

/**
 * damos_new_quota_goal() - Allocate a quota auto-tuning goal.
 * @m:			What the goal measures.
 * @target_value:	The value the tuning aims at.
 *
 * A PSI goal starts measuring from now.
 *
 * Context: Process context; may sleep.
 * Return: the goal, not on any list, or NULL if out of memory.
 */
struct damos_quota_goal *damos_new_quota_goal(enum damos_quota_goal_metric m,
					      unsigned long target_value)
{
	struct damos_quota_goal *g = kzalloc(sizeof(*g), GFP_KERNEL);

	if (!g)
		return NULL;
	g->metric = m;
	g->target_value = target_value;
	g->last_psi_total = damos_psi_mem_some_us();
	INIT_LIST_HEAD(&g->list);
	return g;
}

/**
 * damos_add_quota_goal() - Add a goal to a quota.
 * @q:	The quota.
 * @g:	A goal from damos_new_quota_goal(), on no list.
 *
 * Context: The caller owns @q: kdamond is not running it, or this runs in
 * the kdamond thread.
 */
void damos_add_quota_goal(struct damos_quota *q, struct damos_quota_goal *g)
{
	list_add_tail(&g->list, &q->goals);
}

/**
 * damos_destroy_quota_goal() - Unlink a goal from its quota and free it.
 * @g:	The goal.
 *
 * Context: As damos_add_quota_goal().
 */
void damos_destroy_quota_goal(struct damos_quota_goal *g)
{
	list_del(&g->list);
	kfree(g);
}

/**
 * damos_quota_goals_start() - Restart the measurements of a quota's goals.
 * @q:	The quota.
 *
 * Context: As damos_add_quota_goal().
 */
void damos_quota_goals_start(struct damos_quota *q)
{
	struct damos_quota_goal *g;
	u64 psi_us = damos_psi_mem_some_us();

	damos_for_each_quota_goal(g, q)
		g->last_psi_total = psi_us;
}

static void damos_measure_goal(struct damos_quota_goal *g)
{
	u64 now_us;

	switch (g->metric) {
	case DAMOS_QUOTA_SOME_MEM_PSI_US:
		now_us = damos_psi_mem_some_us();
		g->current_value = now_us > g->last_psi_total ?
			damos_clamp_ulong(now_us - g->last_psi_total) : 0;
		g->last_psi_total = now_us;
		break;
	default:
		/* DAMOS_QUOTA_USER_INPUT: kept fresh by the user. */
		break;
	}
}

/* How far a goal is reached, in basis points (DAMOS_QUOTA_BP = reached). */
static u64 damos_goal_score_bp(const struct damos_quota_goal *g)
{
	if (!g->target_value)
		return g->current_value ? U64_MAX : DAMOS_QUOTA_BP;
	return damos_mul_div(g->current_value, DAMOS_QUOTA_BP,
			     g->target_value);
}

/**
 * damos_tune_esz_bp() - One feedback step of the auto-tuned quota.
 * @esz_bp:	The tuned quota of the last window, in bytes times
 *		%DAMOS_QUOTA_BP; 0 if not tuned yet.
 * @score_bp:	How far the goals are reached, in basis points: below
 *		%DAMOS_QUOTA_BP the quota may grow, above it must shrink.
 * @max_bp:	Upper bound of the result (the other quotas, so that the tuned
 *		quota does not wind up beyond what can be used).
 *
 * Below the goal, the quota grows by the fraction missing (at most
 * doubling, and at least by one page); above, it shrinks in proportion
 * to the excess.  It starts at one page and never leaves [one page,
 * @max_bp].
 *
 * Context: Any context.
 * Return: the tuned quota for the new window, in bytes times
 * %DAMOS_QUOTA_BP.
 */
VISIBLE_IF_KUNIT u64 damos_tune_esz_bp(u64 esz_bp, u64 score_bp, u64 max_bp)
{
	u64 delta;

	max_bp = clamp(max_bp, DAMOS_TUNE_MIN_BP, DAMOS_TUNE_MAX_BP);
	if (!esz_bp)
		return DAMOS_TUNE_MIN_BP;
	if (score_bp < DAMOS_QUOTA_BP) {
		delta = damos_mul_div(esz_bp, DAMOS_QUOTA_BP - score_bp,
				      DAMOS_QUOTA_BP);
		delta = max(delta, DAMOS_TUNE_MIN_BP);
		if (check_add_overflow(esz_bp, delta, &esz_bp))
			esz_bp = U64_MAX;
	} else if (score_bp > DAMOS_QUOTA_BP) {
		esz_bp = damos_mul_div(esz_bp, DAMOS_QUOTA_BP, score_bp);
	}
	return clamp(esz_bp, DAMOS_TUNE_MIN_BP, max_bp);
}

/* The goal furthest above its target decides: none is overshot for another. */
static void damos_tune_quota(struct damos_quota *q, unsigned long limit)
{
	struct damos_quota_goal *g;
	u64 score_bp = 0, max_bp;

	damos_for_each_quota_goal(g, q) {
		damos_measure_goal(g);
		score_bp = max(score_bp, damos_goal_score_bp(g));
	}
	if (check_mul_overflow((u64)limit, DAMOS_QUOTA_BP, &max_bp))
		max_bp = U64_MAX;
	q->esz_bp = damos_tune_esz_bp(q->esz_bp, score_bp, max_bp);
}

/* === Charge windows === */

/* Bytes the time quota buys at the throughput measured so far. */
static unsigned long damos_time_quota_bytes(const struct damos_quota *q)
{
	u64 budget_ns;

	if (!q->total_charged_ns || !q->total_charged_sz)
		return damos_clamp_ulong(damos_mul_div(q->ms,
					 DAMOS_DEFAULT_BYTES_PER_MS, 1));
	if (check_mul_overflow((u64)q->ms, (u64)NSEC_PER_MSEC, &budget_ns))
		return ULONG_MAX;
	/* At least a page, so that a slow action is still measured again. */
	return max(damos_clamp_ulong(damos_mul_div(budget_ns,
						   q->total_charged_sz,
						   q->total_charged_ns)),
		   PAGE_SIZE);
}

static void damos_halve_throughput(struct damos_quota *q)
{
	q->total_charged_sz /= 2;
	q->total_charged_ns /= 2;
}

static void damos_decay_throughput(struct damos_quota *q)
{
	u64 limit_ns;

	if (check_mul_overflow((u64)q->ms,
			       DAMOS_THROUGHPUT_HISTORY_QUOTAS * NSEC_PER_MSEC,
			       &limit_ns) || !limit_ns)
		limit_ns = DAMOS_THROUGHPUT_HISTORY_MAX_NS;
	limit_ns = min(limit_ns, DAMOS_THROUGHPUT_HISTORY_MAX_NS);
	/* Keep a byte, so that a very slow action is not forgotten. */
	while (q->total_charged_ns > limit_ns && q->total_charged_sz > 1)
		damos_halve_throughput(q);
}

/**
 * damos_quota_charge_ns() - Charge the current window with CPU time.
 * @q:		The quota of the scheme.
 * @ns:		Nanoseconds of CPU time spent (damos_action_clock_ns()).
 *
 * For work the scheme needs but that tries no byte (choosing the regions:
 * scores, the histogram, cuts): it counts against the time quota (see
 * damos_time_quota_spent()) but not in the throughput the byte budget is
 * bought at, as it does not grow with the bytes acted on.
 *
 * Context: The kdamond thread.
 */
void damos_quota_charge_ns(struct damos_quota *q, u64 ns)
{
	if (check_add_overflow(q->charged_ns, ns, &q->charged_ns))
		q->charged_ns = U64_MAX;
}

/**
 * damos_quota_record_throughput() - Record how long an action took.
 * @q:		The quota of the scheme.
 * @sz:		Bytes the action was tried on.
 * @ns:		Nanoseconds of CPU time it took (damos_action_clock_ns()).
 *
 * The time goes into the throughput history and is charged to the current
 * window (see damos_quota_charge_ns()).
 *
 * Context: The kdamond thread.
 */
void damos_quota_record_throughput(struct damos_quota *q, unsigned long sz,
				   u64 ns)
{
	damos_quota_charge_ns(q, ns);
	/* Make room by forgetting old history; empty totals always fit. */
	while ((q->total_charged_sz > ULONG_MAX - sz ||
		q->total_charged_ns > U64_MAX - ns) &&
	       (q->total_charged_sz || q->total_charged_ns))
		damos_halve_throughput(q);
	q->total_charged_sz += sz;
	q->total_charged_ns += ns;
}

/* The time quota of one window, in nanoseconds; 0 without a time quota. */
static u64 damos_time_quota_ns(const struct damos_quota *q)
{
	u64 ns;

	if (check_mul_overflow((u64)q->ms, (u64)NSEC_PER_MSEC, &ns))
		return U64_MAX;
	return ns;
}

/**
 * damos_time_quota_spent() - Whether acting used up the window's time.
 * @q:	The quota.
 *
 * The byte budget of a window is what the time quota buys at the measured
 * throughput, and a window whose work costs more per byte than measured so
 * far (pageout after passes that only made pages idle, say) would go on
 * past the time quota.  So the time spent is counted too, and acting stops
 * once it reaches @q->ms.  What the last action of a window spent beyond it
 * is a debt that the next windows pay first, so that on average acting
 * never takes more than @q->ms per window.
 *
 * Context: Any context.
 * Return: true if @q has a time quota and it is spent.
 */
bool damos_time_quota_spent(const struct damos_quota *q)
{
	return q->ms && q->charged_ns >= damos_time_quota_ns(q);
}

/**
 * damos_quota_stop_ns() - When an action starting now must stop.
 * @q:		The quota.
 * @now_ns:	The action clock now (damos_action_clock_ns()).
 *
 * Context: Any context.
 * Return: the action clock at which the window's time quota is spent
 * (about @now_ns if it is already), or 0 if @q has no time quota.
 */
u64 damos_quota_stop_ns(const struct damos_quota *q, u64 now_ns)
{
	u64 quota_ns = damos_time_quota_ns(q), stop_ns;

	if (!q->ms)
		return 0;
	/* 0 would mean no limit, should the clock read 0. */
	if (q->charged_ns >= quota_ns)
		return max(now_ns, 1ULL);
	if (check_add_overflow(now_ns, quota_ns - q->charged_ns, &stop_ns))
		return U64_MAX;
	return stop_ns;
}

/**
 * damos_quota_is_set() - Whether a quota limits anything.
 * @q:	The quota.
 *
 * Context: Any context.
 * Return: true if a size or time quota or an auto-tuning goal is set.
 */
bool damos_quota_is_set(const struct damos_quota *q)
{
	return q->ms || q->sz || !list_empty(&q->goals);
}

/*
 * The length of a charge window in jiffies.  msecs_to_jiffies() takes an
 * unsigned int: longer windows, which never end in practice, are as long as
 * a jiffies deadline can be.
 */
static unsigned long damos_reset_interval_jiffies(const struct damos_quota *q)
{
	if (q->reset_interval_ms > UINT_MAX)
		return MAX_JIFFY_OFFSET;
	return msecs_to_jiffies(q->reset_interval_ms);
}

/**
 * damos_update_quota() - Start a new charge window if the current one ended.
 * @q:			The quota.
 * @now_jiffies:	The time now, in jiffies (damos_now_jiffies()).
 *
 * A window lasts @q->reset_interval_ms.  The first call after the window
 * ended (or the very first call, while @q->esz is 0) starts a new one: the
 * throughput history is aged, the goals are measured and the tuned quota
 * stepped, @q->esz is set to the stricter of the size quota, the time
 * quota's byte budget and the tuned quota, and the charge is cleared (but
 * for time spent beyond the time quota, see damos_time_quota_spent()).
 * Without any quota there is no window: @q->esz is 0 and nothing is
 * charged.
 *
 * Context: The kdamond thread (or a caller that owns @q).
 */
void damos_update_quota(struct damos_quota *q, unsigned long now_jiffies)
{
	unsigned long esz = ULONG_MAX;

	/* No window either, so that a quota set later starts one at once. */
	if (!damos_quota_is_set(q)) {
		q->esz = 0;
		q->charged_sz = 0;
		q->prepared_sz = 0;
		q->charged_ns = 0;
		return;
	}
	if (q->esz && time_before(now_jiffies, q->charged_from +
				  damos_reset_interval_jiffies(q)))
		return;

	damos_decay_throughput(q);
	if (q->sz)
		esz = q->sz;
	if (q->ms)
		esz = min(esz, damos_time_quota_bytes(q));
	if (!list_empty(&q->goals)) {
		damos_tune_quota(q, esz);
		esz = min(esz, damos_clamp_ulong(div64_u64(q->esz_bp,
							   DAMOS_QUOTA_BP)));
	}
	q->esz = esz;
	q->charged_sz = 0;
	q->prepared_sz = 0;
	/* The time spent beyond the last window's quota is paid first. */
	if (q->ms)
		q->charged_ns -= min(q->charged_ns, damos_time_quota_ns(q));
	else
		q->charged_ns = 0;
	q->charged_from = now_jiffies;
}

/* === Priority scores === */

static unsigned int damos_log2_score(u64 v, unsigned int max_log2)
{
	unsigned int l = v ? ilog2(v) : 0;

	return min(l, max_log2) * DAMOS_MAX_SCORE / max_log2;
}

/**
 * damos_generic_score() - Priority of a region when the operations have no
 * score of their own.
 * @ctx:	The context of the region.
 * @r:		The region.
 * @s:		The scheme.
 *
 * Three factors, each from 0 to %DAMOS_MAX_SCORE, are averaged with the
 * weights of @s->quota: size (log2 of the bytes, so that big regions come
 * first), coldness (the fewer accesses in this aggregation window, the
 * higher) and age (log2 of the aggregation windows, scaled by coldness:
 * a region that stayed hot for long is no better a victim for it).  All
 * weights 0 give every region score 0.
 *
 * Context: Any context.
 * Return: the score, from 0 to %DAMOS_MAX_SCORE.
 */
unsigned int damos_generic_score(const struct damon_ctx *ctx,
				 const struct damon_region *r,
				 const struct damos *s)
{
	const struct damos_quota *q = &s->quota;
	unsigned int max_nr = damon_max_nr_accesses(&ctx->attrs);
	unsigned int sz_score, cold_score = DAMOS_MAX_SCORE, age_score;
	u64 sum, weights;

	weights = (u64)q->weight_sz + q->weight_nr_accesses + q->weight_age;
	if (!weights)
		return 0;

	sz_score = damos_log2_score(damon_region_sz(r), BITS_PER_LONG - 1);
	if (max_nr)
		cold_score = div_u64((u64)DAMOS_MAX_SCORE *
				     (max_nr - min(r->nr_accesses, max_nr)),
				     max_nr);
	age_score = damos_log2_score((u64)r->age + 1, 31) * cold_score /
		DAMOS_MAX_SCORE;

	sum = (u64)sz_score * q->weight_sz +
		(u64)cold_score * q->weight_nr_accesses +
		(u64)age_score * q->weight_age;
	return div64_u64(sum, weights);
}

/**
 * damos_quota_min_score() - The lowest score that fills a quota.
 * @hist_bytes:	Bytes of the eligible regions, per score
 *		(%DAMOS_MAX_SCORE + 1 buckets).
 * @quota_bytes: Bytes the quota has left.
 *
 * Context: Any context.
 * Return: the highest score such that the regions scored at or above it
 * hold at least @quota_bytes, or 0 if all of them fit.
 */
unsigned int damos_quota_min_score(const unsigned long *hist_bytes,
				   unsigned long quota_bytes)
{
	unsigned long sum = 0;
	unsigned int score;

	for (score = DAMOS_MAX_SCORE; score > 0; score--) {
		if (check_add_overflow(sum, hist_bytes[score], &sum))
			return score;
		if (sum >= quota_bytes)
			return score;
	}
	return 0;
}
