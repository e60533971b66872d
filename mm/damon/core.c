// SPDX-License-Identifier: GPL-2.0
/*
 * DAMON core: the registry of operations backends, targets and contexts,
 * and the monitoring attributes with the aggregation windows they define.
 *
 * The kdamond thread that drives a context is in kdamond.c, the commit of
 * new parameters into a running context in commit.c.
 */

#define pr_fmt(fmt) "damon: " fmt

#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "internal.h"

/* Defaults of a new context: 5 ms sampling, 100 ms windows. */
#define DAMON_DEFAULT_SAMPLE_US		5000
#define DAMON_DEFAULT_AGGR_US		100000
#define DAMON_DEFAULT_MIN_NR_REGIONS	10
#define DAMON_DEFAULT_MAX_NR_REGIONS	1000

/* === Operations registry === */

static DEFINE_MUTEX(damon_ops_lock);
static struct damon_operations damon_registered_ops[NR_DAMON_OPS];
static bool damon_ops_registered[NR_DAMON_OPS];

/**
 * damon_register_ops() - Makes an operations backend selectable by its id.
 * @ops:	The backend; its callbacks must stay valid until it is
 *		unregistered.
 *
 * Context: May sleep.
 * Return: 0 on success, -EINVAL if the id is unknown or a mandatory
 * callback is missing, -EBUSY if a backend of that id is registered.
 */
int damon_register_ops(const struct damon_operations *ops)
{
	int err = 0;

	if (ops->id >= NR_DAMON_OPS || !ops->prepare_access_checks ||
	    !ops->check_accesses)
		return -EINVAL;
	mutex_lock(&damon_ops_lock);
	if (damon_ops_registered[ops->id]) {
		err = -EBUSY;
	} else {
		damon_registered_ops[ops->id] = *ops;
		damon_ops_registered[ops->id] = true;
	}
	mutex_unlock(&damon_ops_lock);
	return err;
}

/**
 * damon_unregister_ops() - Withdraws an operations backend.
 * @id:	Its id.
 *
 * Contexts that selected the backend keep their copy of its callbacks, so
 * the caller must make sure none of them runs any more.
 *
 * Context: May sleep.
 */
void damon_unregister_ops(enum damon_ops_id id)
{
	if (id >= NR_DAMON_OPS)
		return;
	mutex_lock(&damon_ops_lock);
	damon_ops_registered[id] = false;
	mutex_unlock(&damon_ops_lock);
}

/**
 * damon_select_ops() - Makes a context use a registered backend.
 * @ctx:	The context; it must not be running.
 * @id:		Id of the backend.
 *
 * Context: May sleep.
 * Return: 0 on success, -EINVAL if @id is unknown, -ENODEV if no backend
 * of that id is registered.
 */
int damon_select_ops(struct damon_ctx *ctx, enum damon_ops_id id)
{
	bool registered;

	if (id >= NR_DAMON_OPS)
		return -EINVAL;
	mutex_lock(&damon_ops_lock);
	registered = damon_ops_registered[id];
	if (registered)
		ctx->ops = damon_registered_ops[id];
	mutex_unlock(&damon_ops_lock);
	return registered ? 0 : -ENODEV;
}

/* === Targets and contexts === */

/**
 * damon_new_target() - Allocates a target without regions.
 *
 * Context: May sleep.
 * Return: the target, or NULL if out of memory.
 */
struct damon_target *damon_new_target(void)
{
	struct damon_target *t = kzalloc(sizeof(*t), GFP_KERNEL);

	if (t) {
		INIT_LIST_HEAD(&t->regions);
		INIT_LIST_HEAD(&t->list);
	}
	return t;
}

/**
 * damon_add_target() - Appends a target to a context.
 * @ctx:	The context.
 * @t:		The target.
 *
 * Context: The caller owns @ctx (kdamond, or anyone while it is not
 * running).
 */
void damon_add_target(struct damon_ctx *ctx, struct damon_target *t)
{
	list_add_tail(&t->list, &ctx->targets);
}

/**
 * damon_destroy_target() - Unlinks a target from its context (if any) and
 * frees it with its regions.
 * @t:	The target.
 *
 * Context: The caller owns the context of @t.
 */
void damon_destroy_target(struct damon_target *t)
{
	list_del(&t->list);
	damon_destroy_regions_of(t);
	kfree(t);
}

/**
 * damon_nr_regions() - Counts the regions of a context.
 * @ctx:	The context.
 *
 * Context: The caller owns @ctx.
 * Return: the number of regions of all targets of @ctx.
 */
unsigned int damon_nr_regions(const struct damon_ctx *ctx)
{
	const struct damon_target *t;
	unsigned int nr = 0;

	damon_for_each_target(t, ctx)
		nr += t->nr_regions;
	return nr;
}

/**
 * damon_new_ctx() - Allocates a monitoring context.
 *
 * The context has default attributes (5 ms sampling, 100 ms aggregation,
 * 10 to 1000 regions), a minimum region size of %PAGE_SIZE, no
 * operations, no targets and no schemes.
 *
 * Context: May sleep.
 * Return: the context, or NULL if out of memory.
 */
struct damon_ctx *damon_new_ctx(void)
{
	struct damon_ctx *ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return NULL;
	ctx->attrs.sample_interval = DAMON_DEFAULT_SAMPLE_US;
	ctx->attrs.aggr_interval = DAMON_DEFAULT_AGGR_US;
	ctx->attrs.min_nr_regions = DAMON_DEFAULT_MIN_NR_REGIONS;
	ctx->attrs.max_nr_regions = DAMON_DEFAULT_MAX_NR_REGIONS;
	ctx->min_region_sz = PAGE_SIZE;
	INIT_LIST_HEAD(&ctx->targets);
	INIT_LIST_HEAD(&ctx->schemes);
	mutex_init(&ctx->kdamond_lock);
	spin_lock_init(&ctx->call_lock);
	INIT_LIST_HEAD(&ctx->call_requests);
	return ctx;
}

/**
 * damon_destroy_ctx() - Stops a context if it runs and frees it with its
 * targets and schemes.
 * @ctx:	The context.
 *
 * Context: May sleep.
 */
void damon_destroy_ctx(struct damon_ctx *ctx)
{
	struct damon_target *t, *next_t;
	struct damos *s, *next_s;

	damon_stop(ctx);
	damon_for_each_target_safe(t, next_t, ctx)
		damon_destroy_target(t);
	damon_for_each_scheme_safe(s, next_s, ctx)
		damon_destroy_scheme(s);
	mutex_destroy(&ctx->kdamond_lock);
	kfree(ctx);
}

/* === Attributes === */

/**
 * damon_us_to_aggr_windows() - Converts a duration into aggregation windows.
 * @attrs:	Attributes giving the window length.
 * @us:		The duration, in microseconds.
 *
 * Return: whole windows in @us (rounded down), at most %UINT_MAX; 0 if the
 * aggregation interval is 0.
 */
unsigned int damon_us_to_aggr_windows(const struct damon_attrs *attrs,
				      unsigned long us)
{
	if (!attrs->aggr_interval)
		return 0;
	return min_t(unsigned long, us / attrs->aggr_interval, UINT_MAX);
}

/**
 * damon_max_nr_accesses() - Highest access count of a region in a window.
 * @attrs:	The attributes.
 *
 * Return: the number of samples per aggregation window, between 1 and
 * %UINT_MAX, so that callers may divide by it.
 */
unsigned int damon_max_nr_accesses(const struct damon_attrs *attrs)
{
	unsigned long nr;

	if (!attrs->sample_interval)
		return 1;
	nr = attrs->aggr_interval / attrs->sample_interval;
	return clamp_t(unsigned long, nr, 1, UINT_MAX);
}

/**
 * damon_validate_attrs() - Checks that monitoring attributes can work.
 * @attrs:	The attributes.
 *
 * Return: 0 if valid; -EINVAL if the sampling or aggregation interval is 0,
 * the aggregation interval is shorter than the sampling one, fewer than 3
 * regions are asked for or the minimum number of regions exceeds the
 * maximum.
 */
int damon_validate_attrs(const struct damon_attrs *attrs)
{
	if (!attrs->sample_interval || !attrs->aggr_interval)
		return -EINVAL;
	if (attrs->aggr_interval < attrs->sample_interval)
		return -EINVAL;
	if (attrs->min_nr_regions < 3 ||
	    attrs->min_nr_regions > attrs->max_nr_regions)
		return -EINVAL;
	return 0;
}

/**
 * damon_rescale() - Rescales a count or an age to new intervals.
 * @val:	The count, or age in windows.
 * @mul:	What one unit of @val is worth before (an interval, or a
 *		count out of a maximum).
 * @div:	What one unit is worth after.
 *
 * The intervals are unsigned long, so @val * @mul may need more than 64
 * bits: then both @mul and @div lose their low bits until it fits, which
 * changes the result by less than one part in 2^31.
 *
 * Return: @val * @mul / @div, rounded down, at most %UINT_MAX; %UINT_MAX
 * if @div is 0 and @val * @mul is not.
 */
VISIBLE_IF_KUNIT unsigned int damon_rescale(unsigned int val, u64 mul, u64 div)
{
	unsigned int shift;
	u64 product;

	if (check_mul_overflow((u64)val, mul, &product)) {
		/* @val has at most 32 bits: @mul keeps 64 minus those. */
		shift = fls64(mul) + fls(val) - 64;
		mul >>= shift;
		div >>= shift;
		product = (u64)val * mul;
	}
	if (!div)
		return product ? UINT_MAX : 0;
	return min_t(u64, div64_u64(product, div), UINT_MAX);
}

/*
 * Keeps what the regions learnt meaningful under new intervals: the access
 * counts of the previous window are rescaled to the new number of samples
 * per window, ages to the new window length, and the current, partial
 * window is dropped.
 */
static void damon_update_monitoring_results(struct damon_ctx *ctx,
					    const struct damon_attrs *old,
					    const struct damon_attrs *new)
{
	unsigned int old_max = damon_max_nr_accesses(old);
	unsigned int new_max = damon_max_nr_accesses(new);
	struct damon_target *t;
	struct damon_region *r;

	damon_for_each_target(t, ctx) {
		damon_for_each_region(r, t) {
			r->last_nr_accesses = damon_rescale(r->last_nr_accesses,
							    new_max, old_max);
			r->age = damon_rescale(r->age, old->aggr_interval,
					       new->aggr_interval);
			r->nr_accesses = 0;
		}
	}
}

/*
 * Starts a new aggregation window now.  It ends once it holds all the
 * samples it can, or when its time is up if that comes first: where sampling
 * itself takes long (a loaded machine, a debug kernel), windows, and the
 * ages counted in them, still follow the clock.
 */
void damon_schedule_aggregation(struct damon_ctx *ctx)
{
	ctx->window_nr_samples = 0;
	ctx->window_last_sample = false;
	ctx->next_aggregation_us = damos_deadline_us(ctx->now_us,
						     ctx->attrs.aggr_interval);
}

/* Drops the samples of the current window and starts a new one. */
void damon_restart_window(struct damon_ctx *ctx)
{
	struct damon_target *t;
	struct damon_region *r;

	damon_for_each_target(t, ctx)
		damon_for_each_region(r, t)
			r->nr_accesses = 0;
	/* Ages count monitored time only. */
	ctx->aged_us = ctx->now_us;
	damon_schedule_aggregation(ctx);
}

/* @count out of @nr_samples, as a count out of @max_nr, rounded. */
unsigned int damon_scale_count(unsigned int count, unsigned int nr_samples,
			       unsigned int max_nr)
{
	if (!nr_samples || nr_samples >= max_nr)
		return count;
	return min_t(u64, div_u64((u64)count * max_nr + nr_samples / 2,
				  nr_samples), max_nr);
}

/**
 * damon_scale_window_accesses() - Scale the access counts of a window that
 * ended early to the samples a full window holds.
 * @ctx:	The context.
 * @nr_samples:	Samples the window took.
 *
 * A window cut short by its deadline counted accesses out of fewer samples
 * than damon_max_nr_accesses(): scaled, a count keeps meaning the share of
 * the window the region was found accessed in, so schemes and merging see
 * the same numbers whatever the sampling cost.
 */
void damon_scale_window_accesses(struct damon_ctx *ctx,
				 unsigned int nr_samples)
{
	unsigned int max_nr = damon_max_nr_accesses(&ctx->attrs);
	struct damon_target *t;
	struct damon_region *r;

	if (nr_samples >= max_nr)
		return;
	damon_for_each_target(t, ctx)
		damon_for_each_region(r, t)
			r->nr_accesses = damon_scale_count(r->nr_accesses,
							   nr_samples, max_nr);
}

/**
 * damon_set_attrs() - Sets the monitoring attributes of a context.
 * @ctx:	The context.
 * @attrs:	The new attributes.
 *
 * If the intervals change, the access counts and ages the regions carry are
 * rescaled to them and the current aggregation window starts over.
 *
 * Context: @ctx must not be running, or the caller must be its kdamond
 * (through damon_call()).
 * Return: 0 on success, -EINVAL (see damon_validate_attrs()) leaving the
 * old attributes in force.
 */
int damon_set_attrs(struct damon_ctx *ctx, const struct damon_attrs *attrs)
{
	struct damon_attrs old = ctx->attrs;
	int err;

	err = damon_validate_attrs(attrs);
	if (err)
		return err;
	ctx->attrs = *attrs;
	/*
	 * The current window goes on unless its length changes: restarting it
	 * with its accesses counted so far would let them exceed
	 * damon_max_nr_accesses().
	 */
	if (old.sample_interval != attrs->sample_interval ||
	    old.aggr_interval != attrs->aggr_interval) {
		damon_update_monitoring_results(ctx, &old, attrs);
		damon_schedule_aggregation(ctx);
	}
	return 0;
}
