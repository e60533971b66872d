// SPDX-License-Identifier: GPL-2.0
/*
 * DAMON core: monitoring contexts, the registry of operations backends, the
 * kdamond thread and the commit of new parameters into a running context.
 *
 * Locking: &damon_ctx.kdamond_lock serialises damon_start(), damon_stop()
 * and damon_call() and is never taken by kdamond itself, so damon_stop() may
 * hold it while it waits for the thread to exit.  The requests of
 * damon_call() go through &damon_ctx.call_lock, a spinlock kdamond takes
 * only to pick them up.  While kdamond runs, it alone touches the targets,
 * schemes and attributes of its context.
 */

#define pr_fmt(fmt) "damon: " fmt

#include <linux/completion.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/idr.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <kunit/visibility.h>

#include "internal.h"

#define CREATE_TRACE_POINTS
#include <trace/events/damon.h>

/* Defaults of a new context: 5 ms sampling, 100 ms windows, 60 s updates. */
#define DAMON_DEFAULT_SAMPLE_US		5000
#define DAMON_DEFAULT_AGGR_US		100000
#define DAMON_DEFAULT_OPS_UPDATE_US	60000000
#define DAMON_DEFAULT_MIN_NR_REGIONS	10
#define DAMON_DEFAULT_MAX_NR_REGIONS	1000

static DEFINE_IDA(damon_kdamond_ida);

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

static bool damon_ops_usable(const struct damon_operations *ops)
{
	return ops->prepare_access_checks && ops->check_accesses;
}

/* Undoes the init() of the operations of @ctx; called by kdamond. */
static void damon_ops_cleanup(struct damon_ctx *ctx)
{
	if (ctx->ops.cleanup)
		ctx->ops.cleanup(ctx);
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
 * 60 s operations update, 10 to 1000 regions), a minimum region size of
 * %PAGE_SIZE, no operations, no targets and no schemes.
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
	ctx->attrs.ops_update_interval = DAMON_DEFAULT_OPS_UPDATE_US;
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
static void damon_schedule_aggregation(struct damon_ctx *ctx)
{
	ctx->window_nr_samples = 0;
	ctx->window_last_sample = false;
	ctx->next_aggregation_us = damos_deadline_us(ctx->now_us,
						     ctx->attrs.aggr_interval);
}

/* Whether the sample about to be checked is the window's last. */
static bool damon_sample_ends_window(const struct damon_ctx *ctx)
{
	return ctx->window_nr_samples + 1 >=
		damon_max_nr_accesses(&ctx->attrs) ||
	       ctx->now_us >= ctx->next_aggregation_us;
}

/* Drops the samples of the current window and starts a new one. */
static void damon_restart_window(struct damon_ctx *ctx)
{
	struct damon_target *t;
	struct damon_region *r;

	damon_for_each_target(t, ctx)
		damon_for_each_region(r, t)
			r->nr_accesses = 0;
	damon_schedule_aggregation(ctx);
}

/* @count out of @nr_samples, as a count out of @max_nr, rounded. */
static unsigned int damon_scale_count(unsigned int count,
				      unsigned int nr_samples,
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

/* Schedules the next operations update, one interval from now. */
static void damon_schedule_ops_update(struct damon_ctx *ctx)
{
	unsigned long interval = ctx->attrs.ops_update_interval;

	ctx->next_ops_update_us = interval ?
		damos_deadline_us(ctx->now_us, interval) : U64_MAX;
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
	if (old.ops_update_interval != attrs->ops_update_interval)
		damon_schedule_ops_update(ctx);
	return 0;
}

/* === damon_call(): running code in kdamond === */

/*
 * Runs the pending requests.  Called by kdamond only, which is the only one
 * that removes requests while it is active.
 */
static void kdamond_serve_calls(struct damon_ctx *ctx)
{
	struct damon_call_request *req, *next;
	LIST_HEAD(reqs);

	spin_lock(&ctx->call_lock);
	list_splice_init(&ctx->call_requests, &reqs);
	spin_unlock(&ctx->call_lock);

	list_for_each_entry_safe(req, next, &reqs, list) {
		list_del(&req->list);
		req->ret = req->fn(ctx, req->data);
		/* @req lives on the stack of its waiter: done with it now. */
		complete(&req->done);
	}
}

/*
 * Serves what is left and stops accepting requests, atomically with the
 * check for an empty queue, so that none is stranded.
 */
static void kdamond_retire_calls(struct damon_ctx *ctx)
{
	for (;;) {
		spin_lock(&ctx->call_lock);
		if (list_empty(&ctx->call_requests)) {
			ctx->kdamond_active = false;
			spin_unlock(&ctx->call_lock);
			return;
		}
		spin_unlock(&ctx->call_lock);
		kdamond_serve_calls(ctx);
	}
}

/**
 * damon_call() - Runs a function on a context at a safe point.
 * @ctx:	The context.
 * @fn:		The function; it gets @ctx and @data.
 * @data:	Argument of @fn.
 *
 * If kdamond runs, @fn is queued and kdamond, woken up, runs it before its
 * next sample, so that @fn may change the context freely.  Otherwise @fn
 * runs right away in the caller with &damon_ctx.kdamond_lock held, so that
 * kdamond cannot start meanwhile.  Either way @fn runs exactly once.
 *
 * Context: May sleep.  Must not be called from kdamond (a hook or @fn),
 * which would wait for itself.
 * Return: what @fn returned.
 */
int damon_call(struct damon_ctx *ctx,
	       int (*fn)(struct damon_ctx *ctx, void *data), void *data)
{
	struct damon_call_request req = {
		.fn = fn,
		.data = data,
	};
	bool queued;

	init_completion(&req.done);
	mutex_lock(&ctx->kdamond_lock);
	spin_lock(&ctx->call_lock);
	queued = ctx->kdamond_active;
	if (queued)
		list_add_tail(&req.list, &ctx->call_requests);
	spin_unlock(&ctx->call_lock);
	if (!queued) {
		req.ret = fn(ctx, data);
		mutex_unlock(&ctx->kdamond_lock);
		return req.ret;
	}
	/*
	 * Cut a long sleep short: kdamond serves requests first thing after.
	 * If it is not asleep yet, it finds the request before it sleeps.
	 */
	wake_up_state(ctx->kdamond, TASK_INTERRUPTIBLE);
	mutex_unlock(&ctx->kdamond_lock);

	wait_for_completion(&req.done);
	return req.ret;
}

/* === The kdamond thread === */

/* Passed by damon_start() to the thread it creates. */
struct kdamond_startup {
	struct damon_ctx *ctx;
	int id;
	int err;
	struct completion done;
};

/* Whether a damon_call() request waits to be served. */
static bool kdamond_has_calls(struct damon_ctx *ctx)
{
	bool pending;

	spin_lock(&ctx->call_lock);
	pending = !list_empty(&ctx->call_requests);
	spin_unlock(&ctx->call_lock);
	return pending;
}

/*
 * Sleeps @us microseconds or until kthread_stop() or damon_call() wakes
 * the thread.  The slack lets the timer be batched with others.  A request
 * queued since kdamond last served them found it running, so its wakeup
 * was lost: it is looked for once the task state says "sleeping", which
 * orders the check after any such wakeup.
 */
static void kdamond_sleep_us(struct damon_ctx *ctx, unsigned long us)
{
	u64 ns = min_t(u64, us, KTIME_MAX / NSEC_PER_USEC) * NSEC_PER_USEC;
	ktime_t expires = ns_to_ktime(ns);

	set_current_state(TASK_INTERRUPTIBLE);
	if (!kthread_should_stop() && !kdamond_has_calls(ctx))
		schedule_hrtimeout_range(&expires, ns >> 4, HRTIMER_MODE_REL);
	__set_current_state(TASK_RUNNING);
}

static bool kdamond_has_valid_target(struct damon_ctx *ctx)
{
	struct damon_target *t;

	if (!ctx->ops.target_valid)
		return !list_empty(&ctx->targets);
	damon_for_each_target(t, ctx)
		if (ctx->ops.target_valid(t))
			return true;
	return false;
}

static int kdamond_init(struct damon_ctx *ctx)
{
	ctx->now_us = 0;
	damon_restart_window(ctx);
	damon_schedule_ops_update(ctx);

	if (ctx->ops.init)
		ctx->ops.init(ctx);
	if (!kdamond_has_valid_target(ctx)) {
		damon_ops_cleanup(ctx);
		return -EINVAL;
	}
	damon_split_oversized_regions(ctx);
	damos_start_schemes(ctx);

	spin_lock(&ctx->call_lock);
	ctx->kdamond_active = true;
	spin_unlock(&ctx->call_lock);
	return 0;
}

static void kdamond_trace_regions(struct damon_ctx *ctx)
{
	struct damon_target *t;
	struct damon_region *r;
	unsigned int tidx = 0;

	if (!trace_damon_aggregated_enabled())
		return;
	damon_for_each_target(t, ctx) {
		damon_for_each_region(r, t)
			trace_damon_aggregated(tidx, r, t->nr_regions);
		tidx++;
	}
}

/*
 * Ends an aggregation window.  Returns non-zero if monitoring must stop.
 */
static int kdamond_aggregate(struct damon_ctx *ctx,
			     unsigned int max_nr_accesses)
{
	damon_scale_window_accesses(ctx, ctx->window_nr_samples);
	max_nr_accesses = damon_scale_count(max_nr_accesses,
					    ctx->window_nr_samples,
					    damon_max_nr_accesses(&ctx->attrs));
	damos_apply_schemes(ctx);
	kdamond_trace_regions(ctx);
	if (ctx->callback.after_aggregation &&
	    ctx->callback.after_aggregation(ctx))
		return -ECANCELED;
	damon_adapt_regions(ctx, max_nr_accesses);
	damon_schedule_aggregation(ctx);
	if (!kdamond_has_valid_target(ctx))
		return -ESRCH;
	return 0;
}

/**
 * damon_nr_samples_to_skip() - How many samples kdamond may sleep through.
 * @ctx:	The context.
 *
 * Those the operations have nothing to check in (see
 * &damon_operations.nr_quiet_samples), as long as the window keeps a sample
 * to take after them and the sleep ends with the first sample due at or
 * after the window's deadline, as it would without the skip.  Where most
 * regions rest, a wake-up costs about as much as the sample itself:
 * sleeping through the quiet ones saves most of what monitoring cold memory
 * costs.  (A damon_call() may cut such a sleep short: then only the samples
 * whose time passed count, see damon_count_slept_samples().)
 *
 * Return: the number of samples to count as taken without waking up.
 */
unsigned int damon_nr_samples_to_skip(struct damon_ctx *ctx)
{
	unsigned long interval = ctx->attrs.sample_interval;
	unsigned int taken = ctx->window_nr_samples;
	unsigned int max_nr = damon_max_nr_accesses(&ctx->attrs);
	unsigned int nr;
	u64 fit, left_us, rem;

	if (!ctx->ops.nr_quiet_samples || !interval || taken + 1 >= max_nr ||
	    ctx->now_us >= ctx->next_aggregation_us)
		return 0;
	nr = min(ctx->ops.nr_quiet_samples(ctx), max_nr - taken - 1);
	/*
	 * The sleep lasts one interval per sample skipped and one for the
	 * sample taken: at most the intervals that reach the deadline, at
	 * least one.
	 */
	left_us = ctx->next_aggregation_us - ctx->now_us;
	fit = div64_u64_rem(left_us, interval, &rem) + (rem ? 1 : 0);
	if (fit <= nr)
		nr = fit - 1;
	return nr;
}

/**
 * damon_count_slept_samples() - Uncounts the samples a sleep was cut short
 * of.
 * @ctx:	The context.
 * @nr_skip:	Samples counted as taken before the sleep
 *		(damon_nr_samples_to_skip()), not including the one the sleep
 *		ends with.
 * @slept_us:	How long the sleep lasted.
 *
 * A damon_call() wakes kdamond early.  The samples whose time did not pass
 * are not counted, so that a window still ends with its deadline or its
 * samples, not with the next request: ages stay in windows of the
 * aggregation interval however often a client commits.
 */
VISIBLE_IF_KUNIT void damon_count_slept_samples(struct damon_ctx *ctx,
						unsigned int nr_skip,
						u64 slept_us)
{
	unsigned long interval = ctx->attrs.sample_interval;
	u64 passed;

	if (!nr_skip || !interval)
		return;
	/* The sample the sleep ends with is taken in any case. */
	passed = div64_ul(slept_us, interval);
	if (passed)
		passed--;
	if (passed < nr_skip)
		ctx->window_nr_samples -= min(nr_skip - (unsigned int)passed,
					      ctx->window_nr_samples);
}

/*
 * One sample of monitoring, after sleeping through the samples that would
 * check nothing.  Returns non-zero if monitoring must stop.
 */
static int kdamond_sample(struct damon_ctx *ctx, ktime_t start)
{
	unsigned long interval = ctx->attrs.sample_interval, sleep_us;
	unsigned int max_nr_accesses, nr_skip;
	ktime_t sleep_start;
	int err;

	nr_skip = damon_nr_samples_to_skip(ctx);
	ctx->window_nr_samples += nr_skip;
	ctx->ops.prepare_access_checks(ctx);
	if (check_mul_overflow(interval, (unsigned long)nr_skip + 1,
			       &sleep_us))
		sleep_us = ULONG_MAX;
	sleep_start = ktime_get();
	kdamond_sleep_us(ctx, sleep_us);
	if (kthread_should_stop())
		return 0;
	damon_count_slept_samples(ctx, nr_skip,
				  ktime_us_delta(ktime_get(), sleep_start));
	ctx->now_us = ktime_us_delta(ktime_get(), start);
	/* Decided before the check, for operations that look at it. */
	ctx->window_last_sample = damon_sample_ends_window(ctx);
	max_nr_accesses = ctx->ops.check_accesses(ctx);
	ctx->window_nr_samples++;

	if (ctx->callback.after_sampling && ctx->callback.after_sampling(ctx))
		return -ECANCELED;
	if (ctx->window_last_sample) {
		err = kdamond_aggregate(ctx, max_nr_accesses);
		if (err)
			return err;
	}
	if (ctx->now_us >= ctx->next_ops_update_us) {
		if (ctx->ops.update)
			ctx->ops.update(ctx);
		damon_schedule_ops_update(ctx);
	}
	return 0;
}

static int kdamond_fn(void *data)
{
	struct kdamond_startup *startup = data;
	struct damon_ctx *ctx = startup->ctx;
	int id = startup->id;
	ktime_t start = ktime_get();
	int err;

	err = kdamond_init(ctx);
	startup->err = err;
	/* @startup lives on the stack of damon_start(): done with it now. */
	complete(&startup->done);
	if (err)
		goto out;

	while (!kthread_should_stop()) {
		cond_resched();
		kdamond_serve_calls(ctx);
		if (kthread_should_stop())
			break;
		if (damos_all_inactive(ctx)) {
			/* Never spin, whatever the watermark intervals. */
			kdamond_sleep_us(ctx, max(damos_wmarks_sleep_us(ctx),
						  ctx->attrs.sample_interval));
			ctx->now_us = ktime_us_delta(ktime_get(), start);
			/* Samples from before the pause say nothing now. */
			damon_restart_window(ctx);
			continue;
		}
		if (kdamond_sample(ctx, start))
			break;
	}

	/* The client's hook may still use what the operations set up. */
	if (ctx->callback.before_terminate)
		ctx->callback.before_terminate(ctx);
	damon_ops_cleanup(ctx);
	kdamond_retire_calls(ctx);
out:
	ida_free(&damon_kdamond_ida, id);
	return err;
}

/* === Start and stop === */

/* Waits for a thread that is stopping or stopped and drops it. */
static void damon_reap_kdamond(struct damon_ctx *ctx)
{
	lockdep_assert_held(&ctx->kdamond_lock);
	kthread_stop_put(ctx->kdamond);
	ctx->kdamond = NULL;
}

/**
 * damon_start() - Starts monitoring a context in a new kdamond thread.
 * @ctx:	The context, with its operations selected and its targets set.
 *
 * The thread, named "kdamond.N", initialises the operations and the
 * schemes before this returns, so that a failure is reported here.
 *
 * Context: May sleep; takes &damon_ctx.kdamond_lock.
 * Return: 0 on success; -EBUSY if @ctx runs already; -EINVAL if @ctx has
 * no usable operations, invalid attributes or no valid target; -ENOMEM or
 * another error if the thread could not be created.
 */
int damon_start(struct damon_ctx *ctx)
{
	struct kdamond_startup startup = { .ctx = ctx };
	struct task_struct *tsk;
	int err;

	if (!damon_ops_usable(&ctx->ops) || damon_validate_attrs(&ctx->attrs) ||
	    !is_power_of_2(ctx->min_region_sz))
		return -EINVAL;

	mutex_lock(&ctx->kdamond_lock);
	if (ctx->kdamond) {
		if (ctx->kdamond_active) {
			err = -EBUSY;
			goto unlock;
		}
		/* It stopped on its own; nobody reaped it yet. */
		damon_reap_kdamond(ctx);
	}

	startup.id = ida_alloc(&damon_kdamond_ida, GFP_KERNEL);
	if (startup.id < 0) {
		err = startup.id;
		goto unlock;
	}
	init_completion(&startup.done);
	tsk = kthread_create(kdamond_fn, &startup, "kdamond.%d", startup.id);
	if (IS_ERR(tsk)) {
		ida_free(&damon_kdamond_ida, startup.id);
		err = PTR_ERR(tsk);
		goto unlock;
	}
	/* Keep the task around even if it exits before damon_stop(). */
	get_task_struct(tsk);
	ctx->kdamond = tsk;
	wake_up_process(tsk);
	wait_for_completion(&startup.done);
	err = startup.err;
	if (err)
		damon_reap_kdamond(ctx);
unlock:
	mutex_unlock(&ctx->kdamond_lock);
	return err;
}

/**
 * damon_stop() - Stops the kdamond of a context and waits for it to exit.
 * @ctx:	The context.
 *
 * kdamond wakes up from its sleep right away, calls the before_terminate
 * hook and the cleanup of the operations, and runs the damon_call()
 * requests still pending.  The targets and schemes stay with @ctx.
 *
 * Context: May sleep; takes &damon_ctx.kdamond_lock.
 * Return: 0 if a kdamond was stopped (or had stopped on its own and is now
 * reaped), -EPERM if none was there.
 */
int damon_stop(struct damon_ctx *ctx)
{
	int err = 0;

	mutex_lock(&ctx->kdamond_lock);
	if (ctx->kdamond)
		damon_reap_kdamond(ctx);
	else
		err = -EPERM;
	mutex_unlock(&ctx->kdamond_lock);
	return err;
}

/**
 * damon_is_running() - Whether kdamond monitors a context.
 * @ctx:	The context.
 *
 * A kdamond that stopped on its own (a hook asked it to, or no target was
 * valid any more) does not count as running.
 *
 * Context: May sleep; takes &damon_ctx.kdamond_lock.
 * Return: true if kdamond runs.
 */
bool damon_is_running(struct damon_ctx *ctx)
{
	bool running;

	mutex_lock(&ctx->kdamond_lock);
	spin_lock(&ctx->call_lock);
	running = ctx->kdamond && ctx->kdamond_active;
	spin_unlock(&ctx->call_lock);
	mutex_unlock(&ctx->kdamond_lock);
	return running;
}

/**
 * damon_kdamond_pid() - Process id of the kdamond of a context.
 * @ctx:	The context.
 *
 * Context: May sleep; takes &damon_ctx.kdamond_lock.
 * Return: the pid while kdamond runs (see damon_is_running()), else -1.
 */
int damon_kdamond_pid(struct damon_ctx *ctx)
{
	int pid = -1;

	mutex_lock(&ctx->kdamond_lock);
	spin_lock(&ctx->call_lock);
	if (ctx->kdamond && ctx->kdamond_active)
		pid = task_pid_nr(ctx->kdamond);
	spin_unlock(&ctx->call_lock);
	mutex_unlock(&ctx->kdamond_lock);
	return pid;
}

/* === Commit === */

/*
 * The new state of one destination target, built before anything of the
 * destination changes.  @shadow holds the new regions of an existing target
 * (swapped in on success) or is itself a new target (added on success).
 */
struct damon_commit_target {
	struct damon_target *dst;
	struct damon_target *shadow;
};

/**
 * damon_target_ranges() - The address ranges a target covers.
 * @src:	The target.
 * @rangesp:	Where a kmalloc()ed array of the ranges is stored (NULL when
 *		@src has no region); the caller frees it.
 * @nrp:	Where their number is stored.
 *
 * Adjacent regions are joined, so that a commit keeps the destination's own
 * finer regions inside them, and a client sees the ranges it asked for.
 *
 * Context: May sleep.  The caller owns @src.
 * Return: 0 on success, -ENOMEM if out of memory.
 */
int damon_target_ranges(const struct damon_target *src,
			struct damon_addr_range **rangesp, unsigned int *nrp)
{
	struct damon_addr_range *ranges;
	const struct damon_region *r;
	unsigned int nr = 0;

	*rangesp = NULL;
	*nrp = 0;
	if (!src->nr_regions)
		return 0;
	ranges = kmalloc_array(src->nr_regions, sizeof(*ranges), GFP_KERNEL);
	if (!ranges)
		return -ENOMEM;
	damon_for_each_region(r, src) {
		if (nr && ranges[nr - 1].end == r->ar.start) {
			ranges[nr - 1].end = r->ar.end;
			continue;
		}
		ranges[nr++] = r->ar;
	}
	*rangesp = ranges;
	*nrp = nr;
	return 0;
}

/* A copy of the regions of @t, with their access history. */
static struct damon_target *damon_copy_target(const struct damon_target *t)
{
	const struct damon_region *r;
	struct damon_region *copy;
	struct damon_target *new;

	new = damon_new_target();
	if (!new)
		return NULL;
	damon_for_each_region(r, t) {
		copy = damon_new_region(r->ar.start, r->ar.end);
		if (!copy) {
			damon_destroy_target(new);
			return NULL;
		}
		copy->nr_accesses = r->nr_accesses;
		copy->last_nr_accesses = r->last_nr_accesses;
		copy->age = r->age;
		copy->idled_ahead = r->idled_ahead;
		damon_add_region(copy, new);
	}
	return new;
}

static int damon_prepare_target(struct damon_commit_target *ct,
				const struct damon_target *src,
				unsigned long min_region_sz)
{
	struct damon_addr_range *ranges;
	unsigned int nr_ranges;
	int err;

	err = damon_target_ranges(src, &ranges, &nr_ranges);
	if (err)
		return err;
	if (ct->dst)
		ct->shadow = damon_copy_target(ct->dst);
	else
		ct->shadow = damon_new_target();
	if (!ct->shadow) {
		err = -ENOMEM;
		goto out;
	}
	err = damon_set_regions(ct->shadow, ranges, nr_ranges, min_region_sz);
out:
	kfree(ranges);
	return err;
}

static void damon_swap_regions(struct damon_target *a, struct damon_target *b)
{
	LIST_HEAD(tmp);

	list_splice_init(&a->regions, &tmp);
	list_splice_init(&b->regions, &a->regions);
	list_splice(&tmp, &b->regions);
	swap(a->nr_regions, b->nr_regions);
}

/* Schemes must not keep pointing at a target that goes away. */
static void damon_forget_target(struct damon_ctx *ctx, struct damon_target *t)
{
	struct damos *s;

	damon_for_each_scheme(s, ctx)
		if (s->quota.charge_target_from == t)
			s->quota.charge_target_from = NULL;
}

static int damon_commit_targets_and_schemes(struct damon_ctx *dst,
					    const struct damon_ctx *src)
{
	unsigned int nr_dst = 0, nr_src = 0, nr, i;
	struct damon_commit_target *cts;
	const struct damon_target *st;
	struct damon_target *t;
	int err = 0;

	damon_for_each_target(t, dst)
		nr_dst++;
	damon_for_each_target(st, src)
		nr_src++;
	nr = max(nr_dst, nr_src);
	cts = kcalloc(max(nr, 1U), sizeof(*cts), GFP_KERNEL);
	if (!cts)
		return -ENOMEM;

	/* Build everything that needs memory; dst does not change. */
	i = 0;
	damon_for_each_target(t, dst)
		cts[i++].dst = t;
	i = 0;
	damon_for_each_target(st, src) {
		err = damon_prepare_target(&cts[i++], st, src->min_region_sz);
		if (err)
			goto free;
	}
	err = damos_commit_schemes(dst, src);
	if (err)
		goto free;

	/* Nothing can fail from here on. */
	for (i = 0; i < nr_src; i++) {
		if (cts[i].dst) {
			damon_swap_regions(cts[i].dst, cts[i].shadow);
		} else {
			damon_add_target(dst, cts[i].shadow);
			cts[i].shadow = NULL;
		}
	}
	for (i = nr_src; i < nr_dst; i++) {
		damon_forget_target(dst, cts[i].dst);
		damon_destroy_target(cts[i].dst);
	}
free:
	for (i = 0; i < nr; i++)
		if (cts[i].shadow)
			damon_destroy_target(cts[i].shadow);
	kfree(cts);
	return err;
}

static int damon_commit_fn(struct damon_ctx *dst, void *data)
{
	const struct damon_ctx *src = data;
	bool running = current == dst->kdamond;
	bool ops_changed = dst->ops.id != src->ops.id;
	int err;

	err = damon_commit_targets_and_schemes(dst, src);
	if (err)
		return err;
	if (running && ops_changed)
		damon_ops_cleanup(dst);
	dst->ops = src->ops;
	if (running && ops_changed && dst->ops.init)
		dst->ops.init(dst);
	dst->min_region_sz = src->min_region_sz;
	/* Validated by damon_commit_ctx(); cannot fail. */
	return damon_set_attrs(dst, &src->attrs);
}

/**
 * damon_commit_ctx() - Makes a context use the parameters of another.
 * @dst:	The context to change; it may be running.
 * @src:	The parameters: attributes, minimum region size, operations,
 *		targets (their regions give the ranges to monitor) and
 *		schemes.  It is not changed and must not be running.
 *
 * Everything is validated first.  Then, through damon_call(), @dst takes
 * the attributes, operations and schemes of @src (schemes matched by
 * position keep their quota charge, watermark state and statistics), and
 * each target of @dst is narrowed or widened to the ranges of the target
 * of @src at the same position, keeping what it learnt about the memory
 * both cover.  Extra targets are added or removed.  The hooks of @dst are
 * kept.
 *
 * Context: May sleep.  Not from kdamond.
 * Return: 0 on success; -EINVAL if a parameter of @src is invalid; -ENOMEM
 * if out of memory.  On failure @dst is left unchanged.
 */
int damon_commit_ctx(struct damon_ctx *dst, struct damon_ctx *src)
{
	struct damos *s;
	int err;

	err = damon_validate_attrs(&src->attrs);
	if (err)
		return err;
	if (!damon_ops_usable(&src->ops) || !is_power_of_2(src->min_region_sz))
		return -EINVAL;
	damon_for_each_scheme(s, src) {
		err = damos_validate_scheme(s);
		if (err)
			return err;
	}
	return damon_call(dst, damon_commit_fn, src);
}
