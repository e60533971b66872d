/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of DAMON share with each other, and the seams their KUnit
 * suites reach in through, but not with the rest of the kernel.
 */
#ifndef _MM_DAMON_INTERNAL_H
#define _MM_DAMON_INTERNAL_H

#include <linux/damon.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sched/cputime.h>

/* === core.c: operations, attributes and aggregation windows === */

/* Whether @ops has the callbacks monitoring cannot do without. */
static inline bool damon_ops_usable(const struct damon_operations *ops)
{
	return ops->prepare_access_checks && ops->check_accesses;
}

/* Undoes the init() of the operations of @ctx; called by kdamond. */
static inline void damon_ops_cleanup(struct damon_ctx *ctx)
{
	if (ctx->ops.cleanup)
		ctx->ops.cleanup(ctx);
}

/* Converts microseconds to whole aggregation windows, never dividing by 0. */
unsigned int damon_us_to_aggr_windows(const struct damon_attrs *attrs,
				      unsigned long us);

/* The largest nr_accesses a region can reach in one aggregation window. */
unsigned int damon_max_nr_accesses(const struct damon_attrs *attrs);

/* Starts a new window now, or drops the samples of this one and does. */
void damon_schedule_aggregation(struct damon_ctx *ctx);
void damon_restart_window(struct damon_ctx *ctx);

unsigned int damon_scale_count(unsigned int count, unsigned int nr_samples,
			       unsigned int max_nr);
void damon_scale_window_accesses(struct damon_ctx *ctx,
				 unsigned int nr_samples);

/* === kdamond.c === */

/* Regions a loop of kdamond goes through between two chances to stop. */
#define DAMON_STOP_CHECK_REGIONS	1024

/*
 * Lets a long loop over the regions give up the CPU, and tells whether the
 * kdamond running it is asked to stop, so that damon_stop() stays prompt
 * with many regions.  Any thread may call it: only a kthread can be asked.
 */
static inline bool damon_loop_should_stop(void)
{
	cond_resched();
	return (current->flags & PF_KTHREAD) && kthread_should_stop();
}

/* === commit.c === */

int damon_target_ranges(const struct damon_target *src,
			struct damon_addr_range **rangesp, unsigned int *nrp);

/* === regions.c: region bookkeeping and the adaptive algorithm === */

bool damon_split_region_at(struct damon_target *t, struct damon_region *r,
			   unsigned long sz_left);
void damon_split_oversized_regions(struct damon_ctx *ctx);
void damon_age_regions(struct damon_ctx *ctx, unsigned int max_nr_accesses);
void damon_adapt_regions(struct damon_ctx *ctx, unsigned int max_nr_accesses);
void damon_destroy_regions_of(struct damon_target *t);

/*
 * === schemes.c, schemes-apply.c, quota.c, watermarks.c: the DAMOS engine,
 * driven by the kdamond loop ===
 */

/*
 * Checks the watermarks of every scheme whose check is due.  Returns true if
 * the context has schemes and none of them is active, in which case kdamond
 * only sleeps (damos_wmarks_sleep_us() long) and checks again.
 */
bool damos_all_inactive(struct damon_ctx *ctx);
unsigned long damos_wmarks_sleep_us(struct damon_ctx *ctx);
bool damos_scheme_active(const struct damos *s);

/* Applies every active scheme to the regions; once per aggregation. */
void damos_apply_schemes(struct damon_ctx *ctx);

/* Resets the private state of the schemes when kdamond starts. */
void damos_start_schemes(struct damon_ctx *ctx);

/*
 * Makes the schemes of @dst those of @src.  Schemes matched by position keep
 * their private state (quota charge, watermark state, statistics).  Either
 * everything is applied or, on failure, nothing.
 */
int damos_commit_schemes(struct damon_ctx *dst, const struct damon_ctx *src);

/* Ratios in the quota arithmetic are in basis points: 10,000 means 1. */
#define DAMOS_QUOTA_BP		10000ULL

void damos_update_quota(struct damos_quota *q, unsigned long now_jiffies);
unsigned int damos_generic_score(const struct damon_ctx *ctx,
				 const struct damon_region *r,
				 const struct damos *s);
unsigned int damos_quota_min_score(const unsigned long *hist_bytes,
				   unsigned long quota_bytes);
bool damos_quota_is_set(const struct damos_quota *q);
bool damos_time_quota_spent(const struct damos_quota *q);
u64 damos_quota_stop_ns(const struct damos_quota *q, u64 now_ns);
void damos_quota_goals_start(struct damos_quota *q);
void damos_quota_charge_ns(struct damos_quota *q, u64 ns);
void damos_quota_record_throughput(struct damos_quota *q, unsigned long sz,
				   u64 ns);

/*
 * The clocks of the engine: damos_action_clock_ns() times actions in CPU
 * time, damos_now_jiffies() ends charge windows.  CPU time of kdamond rather
 * than time passed: the time quota bounds what acting costs, and an action
 * that yields the CPU between batches (to a busy workload, say) does not
 * pay for the time it waits to run again.  With the KUnit suites built in,
 * damos_set_test_clock() drives both from one fake clock.
 */
#if IS_ENABLED(CONFIG_DAMON_KUNIT_TEST)
u64 damos_action_clock_ns(void);
unsigned long damos_now_jiffies(void);
void damos_set_test_clock(u64 (*clock_ns)(void));
#else
static inline u64 damos_action_clock_ns(void)
{
	return task_sched_runtime(current);
}

static inline unsigned long damos_now_jiffies(void)
{
	return jiffies;
}
#endif

/* @now_us + @delta_us, saturated: a huge interval means "not again". */
static inline u64 damos_deadline_us(u64 now_us, unsigned long delta_us)
{
	u64 deadline_us;

	if (check_add_overflow(now_us, (u64)delta_us, &deadline_us))
		return U64_MAX;
	return deadline_us;
}

/* === Internal helpers visible to the KUnit suites only === */

#if IS_ENABLED(CONFIG_KUNIT)
/* core.c, kdamond.c */
unsigned int damon_rescale(unsigned int val, u64 mul, u64 div);
unsigned int damon_nr_samples_to_skip(struct damon_ctx *ctx);
void damon_count_slept_samples(struct damon_ctx *ctx, unsigned int nr_skip,
			       u64 slept_us);

/* regions.c */
void damon_merge_two_regions(struct damon_target *t, struct damon_region *l,
			     struct damon_region *r);
bool damon_ages_alike(unsigned int a, unsigned int b);
unsigned int damon_window_age_steps(struct damon_ctx *ctx);
void damon_merge_regions_of(struct damon_target *t, unsigned int threshold,
			    unsigned long sz_limit, bool ages_too);
void damon_split_regions_of(struct damon_target *t, unsigned int nr_subs,
			    unsigned long min_region_sz);
unsigned long damon_region_sz_limit(const struct damon_ctx *ctx);

/* schemes-apply.c, quota.c, watermarks.c */
bool damos_pattern_matches(const struct damon_ctx *ctx,
			   const struct damon_region *r, const struct damos *s);
u64 damos_tune_esz_bp(u64 esz_bp, u64 score_bp, u64 max_bp);
u64 damos_mul_div(u64 a, u64 b, u64 c);
bool damos_wmarks_decide(const struct damos_watermarks *wm,
			 unsigned long metric, bool active);
#endif /* CONFIG_KUNIT */

#endif /* _MM_DAMON_INTERNAL_H */
