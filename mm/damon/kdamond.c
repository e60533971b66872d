// SPDX-License-Identifier: GPL-2.0
/*
 * The kdamond thread: starting and stopping it, its sampling and
 * aggregation loop, and damon_call(), through which other threads reach a
 * running context.
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
#include <linux/lockdep.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/spinlock.h>
#include <kunit/visibility.h>

#include "internal.h"

#define CREATE_TRACE_POINTS
#include <trace/events/damon.h>

static DEFINE_IDA(damon_kdamond_ida);

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

/* Whether the sample about to be checked is the window's last. */
static bool damon_sample_ends_window(const struct damon_ctx *ctx)
{
	return ctx->window_nr_samples + 1 >=
		damon_max_nr_accesses(&ctx->attrs) ||
	       ctx->now_us >= ctx->next_aggregation_us;
}

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

static int kdamond_init(struct damon_ctx *ctx)
{
	ctx->now_us = 0;
	damon_restart_window(ctx);
	if (list_empty(&ctx->targets))
		return -EINVAL;
	if (ctx->ops.init)
		ctx->ops.init(ctx);
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
	damon_age_regions(ctx, max_nr_accesses);
	damos_apply_schemes(ctx);
	kdamond_trace_regions(ctx);
	if (ctx->callback.after_aggregation &&
	    ctx->callback.after_aggregation(ctx))
		return -ECANCELED;
	damon_adapt_regions(ctx, max_nr_accesses);
	damon_schedule_aggregation(ctx);
	/* A commit took every target away: nothing is left to monitor. */
	if (list_empty(&ctx->targets))
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
VISIBLE_IF_KUNIT unsigned int damon_nr_samples_to_skip(struct damon_ctx *ctx)
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

	if (ctx->window_last_sample)
		return kdamond_aggregate(ctx, max_nr_accesses);
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
 * no usable operations, invalid attributes or no target; -ENOMEM or
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
 * A kdamond that stopped on its own (its after_aggregation hook asked it
 * to, or a commit left it no target) does not count as running.
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
